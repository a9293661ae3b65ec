#include "mailer.h"

#include <curl/curl.h>
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <future>
#include <optional>
#include <unordered_set>
#include <vector>

#include "log.h"

namespace counterattack::server {
namespace {

// Waits for a write to be durable; nothing when the storage has stopped taking writes.
std::optional<bool> write_and_wait(Storage& storage, Storage::Op op, const std::atomic<bool>& stopping) {
  auto done = std::make_shared<std::promise<bool>>();
  auto result = done->get_future();
  storage.write(std::move(op), [done](bool ok) { done->set_value(ok); });
  while (result.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
    if (stopping) return std::nullopt;
  }
  return result.get();
}

std::string rfc5322_date() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char out[64];
  std::strftime(out, sizeof out, "%a, %d %b %Y %H:%M:%S +0000", &utc);
  return out;
}

// The body with CRLF line ends, as SMTP carries it (libcurl escapes leading dots).
std::string crlf(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

struct Upload {
  std::string data;
  std::size_t at = 0;
};

std::size_t read_upload(char* out, std::size_t size, std::size_t count, void* arg) {
  auto* u = static_cast<Upload*>(arg);
  const std::size_t n = std::min(size * count, u->data.size() - u->at);
  std::copy_n(u->data.data() + u->at, n, out);
  u->at += n;
  return n;
}

int abort_when_stopping(void* stopping, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(stopping)->load() ? 1 : 0;
}

// Seconds before attempt n + 1 of a message: `first`, then doubling, at most an hour.
std::int64_t backoff(int first, int attempts) {
  return std::min<std::int64_t>(std::max(first, 3600), std::int64_t{first} << std::min(attempts - 1, 12));
}

struct Row {
  std::int64_t id = 0;
  std::string to, subject, body;
  int attempts = 0;
};

}  // namespace

Mailer::Mailer(Storage& storage, const Config& config) : storage_(storage), config_(config) {
  storage_.read([&](Db& db) {
    auto& q = db.prepare("SELECT id, email FROM users WHERE email_confirmed = 1 AND email != ''");
    while (q.step()) addresses_[q.integer(0)] = q.text(1);
    auto& t = db.prepare(
        "SELECT id, turn_mail, digest_hours, digest_sent_unix FROM users WHERE turn_mail != 'each' OR digest_hours != 24");
    while (t.step()) {
      const std::string mode = t.text(1);
      turn_mail_[t.integer(0)] = TurnMail{mode == "digest" ? wire::TURN_MAIL_DIGEST
                                          : mode == "off"  ? wire::TURN_MAIL_OFF
                                                           : wire::TURN_MAIL_EACH,
                                          static_cast<int>(t.integer(2)), t.integer(3)};
    }
    auto& l = db.prepare("SELECT user_id, game_id, state FROM digest_listed");
    while (l.step()) digest_listed_[l.integer(0)][l.text(1)] = l.integer(2);
    return 0;
  });
}

Mailer::~Mailer() { stop(); }

void Mailer::start() {
  if (!enabled() || thread_.joinable()) return;
  thread_ = std::thread([this] {
    log::name_thread("ca-mail");
    loop();
  });
}

void Mailer::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string Mailer::check_address(const std::string& address, bool dotted) {
  const auto at = address.rfind('@');
  const bool shaped = address.size() <= 254 && at != std::string::npos && at > 0 && at + 1 < address.size() &&
                      (!dotted || address.find('.', at) != std::string::npos);
  const bool clean = std::none_of(address.begin(), address.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c <= ' ' || c == 0x7f || c == '<' || c == '>' || c == '(' || c == ')' || c == ',' || c == ';' || c == '"' ||
           c == '\\';
  });
  return shaped && clean ? "" : "That is not an e-mail address such as name@example.org.";
}

std::function<void(bool)> Mailer::stored(const char* failure) {
  return [this, failure](bool ok) {
    if (!ok) {
      log::error(failure);
      return;
    }
    {
      std::lock_guard lock(mu_);
      woken_ = true;
    }
    cv_.notify_all();
  };
}

void Mailer::queue(std::int64_t user_id, const std::string& to, const std::string& subject, const std::string& body) {
  if (!enabled()) return;
  storage_.write(
      [user_id, to, subject, body](Db& db) {
        const auto now = unix_now();
        db.prepare("INSERT INTO outbox (user_id, to_address, subject, body, created_unix, next_attempt_unix) VALUES (?, ?, ?, ?, ?, ?)")
            .run(user_id, to, subject, body, now, now);
      },
      stored("mail could not be stored in the outbox"));
}

void Mailer::confirmed(std::int64_t user_id, const std::string& address) {
  std::lock_guard lock(addresses_mu_);
  addresses_[user_id] = address;
}

void Mailer::forget(std::int64_t user_id) {
  std::lock_guard lock(addresses_mu_);
  addresses_.erase(user_id);
}

bool Mailer::has_address(std::int64_t user_id) {
  if (!enabled()) return false;
  std::lock_guard lock(addresses_mu_);
  return addresses_.count(user_id) > 0;
}

Mailer::TurnMail Mailer::turn_mail(std::int64_t user_id) {
  std::lock_guard lock(addresses_mu_);
  auto it = turn_mail_.find(user_id);
  return it == turn_mail_.end() ? TurnMail{} : it->second;
}

void Mailer::set_turn_mail(std::int64_t user_id, const TurnMail& t) {
  std::lock_guard lock(addresses_mu_);
  auto it = turn_mail_.find(user_id);
  const std::int64_t sent = std::max(t.digest_sent, it == turn_mail_.end() ? 0 : it->second.digest_sent);
  if (t.mode == wire::TURN_MAIL_EACH && t.digest_hours == TurnMail{}.digest_hours && sent == 0) {
    turn_mail_.erase(user_id);
  } else {
    turn_mail_[user_id] = TurnMail{t.mode, t.digest_hours, sent};
  }
}

const char* Mailer::mode_name(wire::TurnMail mode) {
  return mode == wire::TURN_MAIL_DIGEST ? "digest" : mode == wire::TURN_MAIL_OFF ? "off" : "each";
}

std::vector<std::int64_t> Mailer::digests_due(std::int64_t now) {
  std::vector<std::int64_t> due;
  if (!enabled()) return due;
  std::lock_guard lock(addresses_mu_);
  for (const auto& [user, t] : turn_mail_) {
    if (t.mode == wire::TURN_MAIL_DIGEST && now - t.digest_sent >= std::int64_t{t.digest_hours} * config_.digest_hour_seconds &&
        addresses_.count(user)) {
      const auto again = digest_look_again_.find(user);
      if (again != digest_look_again_.end() && again->second > now) continue;
      due.push_back(user);
    }
  }
  return due;
}

void Mailer::nothing_waits(const std::vector<std::int64_t>& users, std::int64_t now) {
  const std::int64_t again = now + std::max<std::int64_t>(1, config_.digest_hour_seconds / 60);
  std::lock_guard lock(addresses_mu_);
  for (const auto user : users) digest_look_again_[user] = again;
}

std::string Mailer::address_of(std::int64_t user_id) {
  std::lock_guard lock(addresses_mu_);
  auto it = addresses_.find(user_id);
  return it == addresses_.end() ? "" : it->second;
}

std::string Mailer::opening(const wire::GameSummary& game, const std::string& what) {
  const bool soviet = game.your_side() == "soviet";
  const std::string& me = soviet ? game.soviet() : game.german();
  const std::string& them = soviet ? game.german() : game.soviet();
  return "Hello " + me + ",\n\n" + what + " in game " + game.game_id() + " against " + them + " (turn " +
         std::to_string(game.turn()) + ", you play the " + (soviet ? "Soviet" : "German") + " side).\n\n";
}

std::string Mailer::client_command(const std::string& words) const {
  return "counterattack" + (config_.public_url.empty() ? "" : " --server " + config_.public_url) + " " + words;
}

std::string Mailer::command(const std::string& words) const { return "`" + client_command(words) + "`"; }

std::string Mailer::how_to_answer(const wire::GameSummary& game, bool moved) const {
  std::string text = "To answer, run " + command("play " + game.game_id()) + ", or type `open " +
                     game.game_id() + "` in the counterattack shell.\n";
  const bool soviet = game.your_side() == "soviet";
  if (game.draw_offered_by() == (soviet ? game::GERMAN : game::SOVIET)) {
    text += (soviet ? game.german() : game.soviet()) + " offers a draw: " + command("draw " + game.game_id() + " accept") +
            " takes it; an order of yours declines it.\n";
  }
  if (game.deadline_unix() > 0) {
    const std::time_t t = static_cast<std::time_t>(game.deadline_unix());
    std::tm utc{};
    gmtime_r(&t, &utc);
    char when[64];
    std::strftime(when, sizeof when, "%a %d %b %Y, %H:%M:%S UTC", &utc);
    // What the server does at the deadline (GameService::end_on_time): a player who never
    // moved has the game aborted, except in a tournament, where it is lost but rates nothing.
    text += "Answer by " + std::string(when) +
            (moved                         ? ", or the game is lost on time.\n"
             : game.tournament_id().empty() ? ", or the game is aborted, with no rating change, as you have made no first move"
                                              " in it yet.\n"
                                            : ", or the game is lost on time: a loss in the tournament's standings, though with"
                                              " no first move of yours no rating changes.\n");
  }
  return text;
}

namespace {
// "3 days", "12 hours", "90 minutes", "45 seconds": the largest unit that divides it.
std::string duration_words(std::int64_t seconds) {
  for (const auto& [unit, name] : {std::pair<std::int64_t, const char*>{86400, "day"}, {3600, "hour"}, {60, "minute"}}) {
    if (seconds % unit == 0) return std::to_string(seconds / unit) + " " + name + (seconds == unit ? "" : "s");
  }
  return std::to_string(seconds) + (seconds == 1 ? " second" : " seconds");
}

// "with 3 days per move", "with a game clock of 15 minutes for each player and 10
// seconds more at each move"; "" for an untimed game.
std::string time_words(std::int64_t move_seconds, std::int64_t clock, std::int64_t increment) {
  if (clock > 0) {
    return "with a game clock of " + duration_words(clock) + " for each player" +
           (increment > 0 ? " and " + duration_words(increment) + " more at each move" : "");
  }
  return move_seconds > 0 ? "with " + duration_words(move_seconds) + " per move" : "";
}

// Whether `player` sits out the tournament's round: a knock-out's first round may have several.
bool sits_out(const wire::Tournament& t, const std::string& player) {
  const std::string list = ", " + t.sits_out() + ", ";
  return list.find(", " + player + ", ") != std::string::npos;
}

const char* kFooter =
    "\nYou get these mails while you are away from your games; to receive none, remove your address:\n"
    "`counterattack email off`.\n";
}  // namespace

void Mailer::your_turn(std::int64_t user_id, const wire::GameSummary& game, const SinceLooked& since, bool moved) {
  const std::string to = address_of(user_id);
  if (to.empty()) return;
  std::string happened;
  if (!since.lines.empty() || since.earlier) {
    const std::string whole = command("show " + game.game_id() + " --log 0");
    happened = "Since you last looked:\n";
    if (since.earlier) happened += "  (earlier events: " + whole + ")\n";
    for (const auto& line : since.lines) happened += "  " + line + "\n";
    if (since.more > 0) happened += "  ... and " + std::to_string(since.more) + " more: " + whole + "\n";
    happened += "\n";
  }
  queue(user_id, to, "Your move in game " + game.game_id() + " (turn " + std::to_string(game.turn()) + ")",
        opening(game, "It is your move") + happened + how_to_answer(game, moved) +
            "\nYou get one such mail per game until you next look at the game or play in it; for one mail a day"
            " listing every game that waits for you instead: " + command("email --turns digest") + ".\n" + kFooter);
}

namespace {
// "2 days 3 hours", "5 hours 10 minutes", "12 minutes": the two largest units, for a glance.
std::string time_left_words(std::int64_t seconds) {
  if (seconds < 60) return "less than a minute";
  std::string out;
  int shown = 0;
  for (const auto& [unit, name] : {std::pair<std::int64_t, const char*>{86400, "day"}, {3600, "hour"}, {60, "minute"}}) {
    const std::int64_t n = seconds / unit;
    seconds %= unit;
    if (n == 0 && shown == 0) continue;
    if (n > 0) out += (out.empty() ? "" : " ") + std::to_string(n) + " " + name + (n == 1 ? "" : "s");
    if (++shown == 2) break;
  }
  return out;
}
}  // namespace

bool Mailer::digest(std::int64_t user_id, const std::vector<Waiting>& games, std::int64_t now) {
  const std::string to = address_of(user_id);
  if (to.empty() || games.empty() || !enabled()) return false;
  const TurnMail t = turn_mail(user_id);
  // The games the last digest listed as they wait now: no news, and no mail, when every one is.
  std::vector<bool> listed_before(games.size(), false);
  std::size_t fresh = 0;
  std::map<std::string, std::int64_t> listing;
  {
    std::lock_guard lock(addresses_mu_);
    const auto it = digest_listed_.find(user_id);
    for (std::size_t i = 0; i < games.size(); ++i) {
      const auto& id = games[i].game.game_id();
      listing[id] = games[i].state;
      if (it != digest_listed_.end()) {
        const auto was = it->second.find(id);
        listed_before[i] = was != it->second.end() && was->second == games[i].state;
      }
      if (!listed_before[i]) ++fresh;
    }
    if (fresh == 0) return false;
    // At once, so that the next tick does not send it again while it is being stored.
    turn_mail_[user_id].digest_sent = now;
    digest_listed_[user_id] = listing;
  }
  const auto& first = games.front().game;
  const std::string me = first.your_side() == "soviet" ? first.soviet() : first.german();
  const std::size_t still = games.size() - fresh;
  std::string body = "Hello " + me + ",\n\n" +
                     (games.size() == 1 ? std::string("one game waits") : std::to_string(games.size()) + " games wait") +
                     " for your move" +
                     (still == 0 ? std::string("") : ", " + std::to_string(fresh) + " new since the last digest") + ":\n";
  for (std::size_t i = 0; i < games.size(); ++i) {
    const auto& [g, since, state] = games[i];
    const bool soviet = g.your_side() == "soviet";
    body += "\nGame " + g.game_id() + " against " + (soviet ? g.german() : g.soviet()) + " (" +
            (g.scenario().empty() ? "counterattack" : g.scenario()) + ", turn " + std::to_string(g.turn()) + ", you play the " +
            (soviet ? "Soviet" : "German") + " side)\n";
    if (listed_before[i]) body += "  Still waiting, as in the last digest\n";
    if (g.deadline_unix() > 0) {
      const std::time_t d = static_cast<std::time_t>(g.deadline_unix());
      std::tm utc{};
      gmtime_r(&d, &utc);
      char when[64];
      std::strftime(when, sizeof when, "%a %d %b, %H:%M UTC", &utc);
      body += "  Time left: " + time_left_words(g.deadline_unix() - now) + " (answer by " + when + ")\n";
    } else {
      body += "  Untimed\n";
    }
    if (g.draw_offered_by() == (soviet ? game::GERMAN : game::SOVIET)) body += "  Your opponent offers a draw.\n";
    if (!since.lines.empty() || since.earlier) {
      body += "  Since you last looked:\n";
      if (since.earlier) body += "    (earlier events in the log)\n";
      for (const auto& line : since.lines) body += "    " + line + "\n";
      if (since.more > 0) body += "    ... and " + std::to_string(since.more) + " more\n";
    }
    body += "  " + command("play " + g.game_id()) + "\n";
  }
  body += "\nYou get this digest at most once every " + std::to_string(t.digest_hours) +
          (t.digest_hours == 1 ? " hour" : " hours") +
          ", when a game waits for you that the last one did not list (or it came back to you since)."
          " A mail per game instead: " + command("email --turns each") + "; none: " +
          command("email --turns off") + ".\n" + kFooter;
  const std::string subject = games.size() == 1 ? "Your move in game " + first.game_id()
                                                : "Your move in " + std::to_string(games.size()) + " games";
  storage_.write(
      [user_id, to, subject, body, now, listing = std::move(listing)](Db& db) {
        db.prepare("INSERT INTO outbox (user_id, to_address, subject, body, created_unix, next_attempt_unix) VALUES (?, ?, ?, ?, ?, ?)")
            .run(user_id, to, subject, body, now, now);
        db.prepare("UPDATE users SET digest_sent_unix = ? WHERE id = ?").run(now, user_id);
        db.prepare("DELETE FROM digest_listed WHERE user_id = ?").run(user_id);
        for (const auto& [game_id, state] : listing) {
          db.prepare("INSERT INTO digest_listed (user_id, game_id, state) VALUES (?, ?, ?)").run(user_id, game_id, state);
        }
      },
      stored("digest could not be stored in the outbox"));
  return true;
}

void Mailer::deadline_near(std::int64_t user_id, const wire::GameSummary& game, bool moved) {
  const std::string to = address_of(user_id);
  if (to.empty()) return;
  queue(user_id, to, "Your time runs out soon in game " + game.game_id(),
        opening(game, game.clock_seconds() > 0 ? "Your game clock is running out" : "Your time per move is running out") +
            how_to_answer(game, moved) + kFooter);
}

void Mailer::game_over(std::int64_t user_id, const wire::GameSummary& game, const std::string& reason) {
  const std::string to = address_of(user_id);
  if (to.empty()) return;
  const bool soviet = game.your_side() == "soviet";
  queue(user_id, to, "Game " + game.game_id() + " is over: " + game.result(),
        "Hello " + (soviet ? game.soviet() : game.german()) + ",\n\ngame " + game.game_id() + " against " +
            (soviet ? game.german() : game.soviet()) + " is over: " + game.result() + "." +
            (reason.empty() ? "" : " " + reason) + "\n\nIts whole log, with the dice seed revealed: " + command("export " + game.game_id()) + ".\n" + kFooter);
}

void Mailer::unloadable_game_over(std::int64_t user_id, const std::string& game_id, const std::string& player,
                                  const std::string& opponent, const std::string& result, const std::string& reason) {
  const std::string to = address_of(user_id);
  if (to.empty()) return;
  queue(user_id, to, "Game " + game_id + " is over: " + result,
        "Hello " + player + ",\n\ngame " + game_id + " against " + opponent + " is over: " + result + "." +
            (reason.empty() ? "" : " " + reason) +
            "\n\nThe server could not load this game from its stored record, so it was ended as it stood, and its log"
            " cannot be exported. The server's operator keeps the record: ask them about it.\n" + kFooter);
}

void Mailer::tournament_started(std::int64_t user_id, const std::string& player, const wire::Tournament& t,
                                const std::vector<wire::GameSummary>& your_move, bool deciding) {
  const std::string to = address_of(user_id);
  if (to.empty()) return;
  const int opponents = t.entrants() - 1;
  const std::string which = "the tournament \"" + t.name() + "\" (" + t.tournament_id() + ")";
  const std::string round = "round " + std::to_string(t.round()) + " of " + std::to_string(t.rounds());
  std::string body = "Hello " + player + ",\n\n";
  if (deciding) {
    body += "Your match in " + round + " of " + which + " is level after its two games: a deciding game follows, with" +
            " sides drawn by the server. Level after that too, the higher seed goes through.\n\n";
  } else if (t.rounds() == 0) {
    body += which + " has started: you play " + std::to_string(2 * opponents) + " games, one with each side against " +
            (opponents == 1 ? std::string("the other entrant") : "each of the other " + std::to_string(opponents) + " entrants") +
            ", " + time_words(t.move_seconds(), t.clock_seconds(), t.increment_seconds()) + ".\n\n";
  } else if (sits_out(t, player)) {
    body += (t.round() == 1 ? which + " has started with " + round : round + " of " + which + " has begun") +
            (t.knockout() ? ": you sit out this round and go through to the next."
                          : std::string(": you sit out this round, a bye that counts as two games won.") +
                                (t.round() < t.rounds() ? " The next round pairs you again." : "")) +
            "\n\n";
  } else {
    body += (t.round() == 1 ? which + " has started with " + round : round + " of " + which + " has begun") +
            ": you play two games against one other entrant, one with each side, " +
            time_words(t.move_seconds(), t.clock_seconds(), t.increment_seconds()) + "." +
            (t.knockout() ? " The one with more points goes through; when level, a deciding game follows, with sides"
                            " drawn (level after that too, the higher seed goes through)."
                          : "") +
            "\n\n";
  }
  if (!deciding && t.round() == 1 && !t.rounds_reason().empty()) body += t.rounds_reason() + "\n\n";
  if (!your_move.empty()) {
    body += "It is your move in these games now:\n";
    for (const auto& g : your_move) {
      const bool soviet = g.your_side() == "soviet";
      body += "  " + g.game_id() + " against " + (soviet ? g.german() : g.soviet()) + " (you play the " +
              (soviet ? "Soviet" : "German") + " side)\n";
    }
    body += "\n" + how_to_answer(your_move.front(), false);  // its games are new
  }
  body += "The standings: " + command("tournament show " + t.tournament_id()) + ".\n" + kFooter;
  queue(user_id, to,
        deciding                        ? "A deciding game in the tournament \"" + t.name() + "\""
        : t.rounds() > 0 && t.round() > 1 ? "Round " + std::to_string(t.round()) + " of the tournament \"" + t.name() + "\" has begun"
                                        : "The tournament \"" + t.name() + "\" has started",
        body);
}

void Mailer::tournament_finished(std::int64_t user_id, const std::string& player, const wire::Tournament& t) {
  const std::string to = address_of(user_id);
  if (to.empty()) return;
  std::string body = "Hello " + player + ",\n\nthe tournament \"" + t.name() + "\" (" + t.tournament_id() +
                     ") is over" + (t.end_reason().empty() ? std::string(": every game has been played.") : ". " + t.end_reason()) +
                     " The final standings:\n\n";
  for (const auto& s : t.standings()) {
    char points[16];
    std::snprintf(points, sizeof points, "%g", s.points());
    body += "  " + std::to_string(s.rank()) + ". " + s.player() + "  " + points + (s.points() == 1 ? " point" : " points") +
            (t.knockout() ? s.knocked_out() > 0 ? ", out in round " + std::to_string(s.knocked_out()) : ", the winner" : "") +
            (s.player() == player ? "  (you)" : "") + "\n";
  }
  body += "\nEvery game and the tie-break: " + command("tournament show " + t.tournament_id()) + ".\n" + kFooter;
  queue(user_id, to, "The tournament \"" + t.name() + "\" is over", body);
}

void Mailer::tournament_cancelled(std::int64_t user_id, const std::string& player, const wire::Tournament& t,
                                  const std::string& reason) {
  const std::string to = address_of(user_id);
  if (to.empty()) return;
  queue(user_id, to, "The tournament \"" + t.name() + "\" was cancelled",
        "Hello " + player + ",\n\nthe tournament \"" + t.name() + "\" (" + t.tournament_id() +
            ") was cancelled" +
            (t.started_unix() > 0 ? " under way: its games still in play are aborted, with no rating change. "
                                  : " before it started: none of its games will be played. ") +
            reason +
            "\n\nOpen tournaments to enter: " + command("tournament list") + ".\n" + kFooter);
}

// The terms of a game offered to one player, the optional rules in the words their `games` uses:
// "rated, private, in which you would play the Soviet side, <time>, options: limited_bonus".
static std::string offered_terms(const wire::GameSummary& g) {
  std::string terms = std::string(g.rated() ? "rated" : "casual") + (g.private_() ? ", private" : "") +
                      ", in which you would play the " + (g.your_side() == "soviet" ? "Soviet" : "German") + " side";
  if (auto time = time_words(g.move_seconds(), g.clock_seconds(), g.increment_seconds()); !time.empty()) terms += ", " + time;
  std::string options;
  for (const auto& o : g.options()) options += " " + o;
  if (!options.empty()) terms += ", options:" + options;
  return terms;
}

void Mailer::rematch_offered(std::int64_t user_id, const wire::RematchOffered& offer) {
  const std::string to = address_of(user_id);
  if (to.empty()) return;
  const auto& g = offer.game();
  const std::string& of = offer.of_game_id();
  queue(user_id, to, offer.by() + " offers you a rematch of game " + of,
        "Hello " + g.reserved_for() + ",\n\n" + offer.by() + " offers you a rematch of game " + of + ": game " +
            g.game_id() + ", " + offered_terms(g) + ".\n\nTo accept it, run " +
            command("rematch " + of) + "; to decline it, " + command("rematch " + of + " --decline") +
            ". In the counterattack shell: `rematch " + of + "` or `rematch " + of + " decline`.\n" + kFooter);
}

void Mailer::challenge_offered(std::int64_t user_id, const wire::ChallengeOffered& offer) {
  const std::string to = address_of(user_id);
  if (to.empty()) return;
  const auto& g = offer.game();
  const std::string& id = g.game_id();
  queue(user_id, to, offer.by() + " challenges you to a game",
        "Hello " + g.reserved_for() + ",\n\n" + offer.by() + " challenges you to a game of " + g.scenario() + ": game " + id +
            ", " + offered_terms(g) + ".\n\nTo accept it, run " +
            command("join " + id) + "; to decline it, " + command("decline " + id) +
            ". In the counterattack shell: `join " + id + "` or `decline " + id + "`.\n" + kFooter);
}

void Mailer::loop() {
  constexpr int kBatch = 16;
  std::unordered_set<std::int64_t> delivered;  // taken by the mail server; their removal from the outbox is not yet durable
  int outage = 0;                              // rounds in a row that found the mail server unreachable
  while (!stopping_) {
    std::vector<Row> due;
    std::int64_t next_due = 0;
    bool pause = false;  // the mail server cannot be reached, or the outbox cannot be written: wait, then try again
    try {
      storage_.read([&](Db& db) {
        auto& q = db.prepare(
            "SELECT id, to_address, subject, body, attempts FROM outbox WHERE next_attempt_unix <= ? ORDER BY id LIMIT ?");
        q.bind_all(unix_now(), kBatch);
        while (q.step()) due.push_back(Row{q.integer(0), q.text(1), q.text(2), q.text(3), static_cast<int>(q.integer(4))});
        auto& next = db.prepare("SELECT MIN(next_attempt_unix) FROM outbox");
        next.bind_all();
        while (next.step()) next_due = next.integer(0);
        return 0;
      });
    } catch (const std::exception& e) {
      log::error("outbox could not be read", {{"error", e.what()}});
      pause = true;
    }
    for (const auto& m : due) {
      if (stopping_) return;
      const std::string id = std::to_string(m.id);
      Sent sent = Sent::Taken;
      std::string error;
      if (!delivered.count(m.id)) sent = send(m.to, m.subject, m.body, error);
      if (stopping_ && sent != Sent::Taken) return;  // aborted: it stays as it was
      if (sent == Sent::Unreachable) {
        // Not the message's fault: nothing counts against it, and the whole outbox
        // waits. The message itself steps back too, so that one that always
        // breaks the conversation cannot hold up the others for ever.
        if (outage++ == 0) log::warn("mail server unreachable; the outbox waits", {{"id", id}, {"error", error}});
        const auto wait = backoff(config_.mail_retry_seconds, outage);
        write_and_wait(storage_, [mid = m.id, wait](Db& db) {
          db.prepare("UPDATE outbox SET next_attempt_unix = ? WHERE id = ?").run(unix_now() + wait, mid);
        }, stopping_);
        pause = true;
        break;
      }
      if (outage > 0) log::info("mail server reachable again");
      outage = 0;
      const int attempts = m.attempts + 1;
      const bool done = sent == Sent::Taken || attempts >= config_.mail_attempts;
      if (sent == Sent::Taken && delivered.insert(m.id).second) {
        log::info("mail sent", {{"id", id}});
      } else if (sent == Sent::Refused && done) {
        ++dropped_;
        log::error("mail dropped after its last attempt", {{"id", id}, {"attempts", attempts}, {"error", error}});
      } else if (sent == Sent::Refused) {
        log::warn("mail refused; tried again later", {{"id", id}, {"attempts", attempts}, {"error", error}});
      }
      const auto wait = backoff(config_.mail_retry_seconds, attempts);
      const auto stored = write_and_wait(storage_, [mid = m.id, done, attempts, wait](Db& db) {
        if (done) return db.prepare("DELETE FROM outbox WHERE id = ?").run(mid);
        db.prepare("UPDATE outbox SET attempts = ?, next_attempt_unix = ? WHERE id = ?").run(attempts, unix_now() + wait, mid);
      }, stopping_);
      if (!stored) return;  // stopping
      if (!*stored) {
        log::error("outbox could not be updated", {{"id", id}});
        pause = true;
        break;
      }
      delivered.erase(m.id);
    }
    if (!pause && static_cast<int>(due.size()) == kBatch) continue;
    // Until new mail is stored, the next one to try again is due, or the pause is over;
    // at most a minute, so that nothing waits on a wake-up that was missed.
    std::int64_t seconds = 60;
    if (pause) {
      seconds = backoff(config_.mail_retry_seconds, std::max(outage, 1));
    } else if (next_due > 0) {
      seconds = std::clamp<std::int64_t>(next_due - unix_now(), 1, 60);
    }
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(seconds), [&] { return (woken_ && !pause) || stopping_; });
    woken_ = false;
  }
}

Mailer::Sent Mailer::send(const std::string& to, const std::string& subject, const std::string& body, std::string& error) {
  CURL* curl = curl_easy_init();
  if (!curl) {
    error = "libcurl cannot start";
    return Sent::Unreachable;
  }
  unsigned char id[12];
  randombytes_buf(id, sizeof id);
  char id_hex[2 * sizeof id + 1];
  sodium_bin2hex(id_hex, sizeof id_hex, id, sizeof id);
  const auto at = config_.mail_from.rfind('@');
  const std::string domain = at == std::string::npos ? "localhost" : config_.mail_from.substr(at + 1);
  Upload upload;
  upload.data = crlf("Date: " + rfc5322_date() + "\nFrom: Counterattack <" + config_.mail_from + ">\nTo: <" + to +
                     ">\nSubject: " + subject + "\nMessage-ID: <" + id_hex + "@" + domain +
                     ">\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n"
                     "Auto-Submitted: auto-generated\n\n" + body);
  curl_slist* rcpt = curl_slist_append(nullptr, ("<" + to + ">").c_str());
  const std::string from = "<" + config_.mail_from + ">";
  curl_easy_setopt(curl, CURLOPT_URL, config_.smtp_url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  // Credentials never cross the wire in the clear: with a user, smtp:// must upgrade.
  curl_easy_setopt(curl, CURLOPT_USE_SSL, config_.smtp_user.empty() ? CURLUSESSL_TRY : CURLUSESSL_ALL);
  if (!config_.smtp_user.empty()) {
    curl_easy_setopt(curl, CURLOPT_USERNAME, config_.smtp_user.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, config_.smtp_password.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from.c_str());
  curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
  curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_upload);
  curl_easy_setopt(curl, CURLOPT_READDATA, &upload);
  curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 60L);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, abort_when_stopping);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &stopping_);
  char detail[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, detail);
  const CURLcode rc = curl_easy_perform(curl);
  long reply = 0;  // the mail server's last reply code (greeting, login and TLS included); 0 when it never answered
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply);
  curl_slist_free_all(rcpt);
  curl_easy_cleanup(curl);
  if (rc == CURLE_OK) return Sent::Taken;
  error = std::string(detail[0] ? detail : curl_easy_strerror(rc)) + (reply ? " (reply " + std::to_string(reply) + ")" : "");
  // Refused: the server said no to this message's sender or recipient ("MAIL
  // failed", "RCPT failed") or to its content (an odd reply after the data, which
  // libcurl gives no text). That counts against the message. No connection, a
  // refused greeting, login or TLS is the server's state: the outbox waits for it.
  const std::string_view said = detail;
  const bool about_the_message =
      said.starts_with("MAIL failed") || said.starts_with("RCPT failed") ||
      (rc == CURLE_WEIRD_SERVER_REPLY && reply >= 400 && !said.starts_with("Got unexpected smtp-server response"));
  return about_the_message ? Sent::Refused : Sent::Unreachable;
}

}  // namespace counterattack::server
