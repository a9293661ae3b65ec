#include "client.h"

#include <google/protobuf/util/json_util.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include "notation.h"
#include "render.h"
#include "terminal_text.h"

namespace counterattack::cli {

Session::Session(GlobalOptions g) : g_(std::move(g)) {}

bool Session::init(std::string* error) {
  if (!cfg_.load(error)) return false;
  std::string raw = !g_.server.empty()     ? g_.server
                    : !cfg_.server.empty() ? cfg_.server
                                           : kDefaultServer;
  auto ep = parse_url(raw, error);
  if (!ep) return false;
  ep_ = *ep;
  url_ = ep_.url();
  if (!g_.pin.empty() && normalize_fingerprint(g_.pin).empty()) {
    if (error)
      *error =
          "--pin wants the SHA-256 fingerprint of the server's certificate: 64 hex digits (colons "
          "allowed).";
    return false;
  }
  return true;
}

bool Session::logged_in() const {
  auto it = cfg_.sessions.find(url_);
  return it != cfg_.sessions.end() && !it->second.token.empty();
}

std::string Session::user() const {
  auto it = cfg_.sessions.find(url_);
  return it == cfg_.sessions.end() ? std::string() : it->second.name;
}

std::string Session::remembered_certificate() const {
  auto it = cfg_.pins.find(ep_.origin());
  if (it == cfg_.pins.end()) it = cfg_.pins.find(url_);  // kept under the whole URL before
  return it == cfg_.pins.end() ? std::string() : it->second;
}

bool Session::connect(std::string* error) {
  TlsPolicy tls;
  tls.insecure = g_.insecure && accepted_insecurely_.empty();
  tls.pin = accepted_insecurely_.empty() ? normalize_fingerprint(g_.pin) : accepted_insecurely_;
  tls.remembered = !accepted_insecurely_.empty();
  if (tls.pin.empty() && !tls.insecure) {
    tls.pin = remembered_certificate();
    tls.remembered = !tls.pin.empty();
  }
  conn_ = std::make_unique<Connection>();
  std::string why;
  if (!conn_->connect(ep_, tls, std::chrono::seconds(10), &why)) {
    // A changed certificate is a warning first, not a server out of reach.
    if (error) *error = tls.remembered && why.rfind("WARNING", 0) == 0 ? why : "Cannot reach " + url_ + ": " + why;
    return false;
  }
  if (!ep_.tls) return true;
  if (tls.insecure) accepted_insecurely_ = conn_->peer_fingerprint();
  // Trust on first use: the certificate accepted with --insecure, or an
  // explicit --pin that worked, is the one later connections accept.
  const std::string before = remembered_certificate();
  std::string now;
  if (g_.insecure && remember_insecure_) {
    now = conn_->peer_fingerprint();
  } else if (!g_.pin.empty() && conn_->peer_fingerprint() == tls.pin) {
    now = tls.pin;
  }
  if (!now.empty() && now != before) {
    cfg_.pins.erase(url_);
    cfg_.pins[ep_.origin()] = now;
    std::string why_not;
    if (!cfg_.save(&why_not)) {
      std::cerr << "The server's certificate could not be remembered: " << why_not << std::endl;
    } else if (g_.insecure) {
      std::cerr << (before.empty() ? "Remembered" : "Replaced the certificate remembered before (SHA-256 " +
                                                        display_fingerprint(before) + ") with") +
                       std::string(" the certificate of ") + ep_.origin() + ", SHA-256 " + display_fingerprint(now) +
                       ": later connections to it need no --insecure while it presents this one."
                << std::endl;
    }
  }
  return true;
}

bool Session::forget_certificate(std::string* forgotten, std::string* error) {
  *forgotten = remembered_certificate();
  if (forgotten->empty()) return true;
  cfg_.pins.erase(ep_.origin());
  cfg_.pins.erase(url_);
  return cfg_.save(error);
}

bool Session::connect_and_resume(std::string* error) {
  session_ended_ = false;
  auto it = cfg_.sessions.find(url_);
  if (it == cfg_.sessions.end() || it->second.token.empty()) {
    if (error)
      *error = "You are not logged in to " + url_ +
               ": run `counterattack register NAME` or `counterattack login NAME` first.";
    return false;
  }
  if (!connected() && !connect(error)) return false;
  wire::ClientMessage m;
  m.mutable_resume()->set_token(it->second.token);
  std::string why;
  auto reply = call(m, &why);
  session_ended_ = !reply && (last_error_ == wire::UNAUTHENTICATED || last_error_ == wire::BAD_CREDENTIALS);
  if (!reply) {
    if (error)
      *error = session_ended_ ? "Your session on " + url_ + " has ended (" + why + "); log in again with `counterattack login " +
                                    it->second.name + "`."
                              : why;
    return false;
  }
  if (follow_turns_) {
    wire::ClientMessage follow;
    follow.mutable_follow_turns();
    call(follow, nullptr);  // a server without turn notices answers BAD_REQUEST: play on without them
  }
  return true;
}

std::optional<wire::ServerMessage> Session::call(const wire::ClientMessage& msg, std::string* error,
                                                 std::chrono::milliseconds timeout, Connection::Text text) {
  last_error_ = wire::ERROR_UNSPECIFIED;
  if (!connected()) {
    if (error) *error = "Not connected to " + url_ + ".";
    return std::nullopt;
  }
  auto reply = conn_->request(msg, timeout, text);
  if (!reply) {
    if (error)
      *error = conn_->is_open()
                   ? "The server did not answer in time."
                   : "Lost the connection to " + url_ + ": " + conn_->close_reason() + ".";
    return std::nullopt;
  }
  if (reply->has_error()) {
    last_error_ = reply->error().code();
    if (error) *error = describe_error(reply->error());
    return std::nullopt;
  }
  return reply;
}

bool Session::save_session(const wire::Session& s, bool make_default_server, std::string* error) {
  SessionEntry e;
  e.name = s.name();
  e.token = s.token();
  e.expires_unix = s.expires_unix();
  cfg_.sessions[url_] = e;
  if (make_default_server) cfg_.server = url_;
  return cfg_.save(error);
}

bool Session::forget_session(std::string* error) {
  cfg_.sessions.erase(url_);
  return cfg_.save(error);
}

std::string to_json(const google::protobuf::Message& m, bool pretty) {
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  o.always_print_primitive_fields = true;
  o.add_whitespace = pretty;
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  if (!pretty && !out.empty() && out.back() == '\n') out.pop_back();
  return json_shown(out);  // the encoder escapes C0 controls; C1 and bidi controls too, the same JSON once parsed
}

std::string describe_error(const wire::Error& e) {
  return (e.message().empty() ? std::string("The server refused") : e.message()) + " (" +
         wire::ErrorCode_Name(e.code()) + ")";
}

std::string describe_turn(const wire::GameSummary& g) {
  std::string text = "Your move in game " + g.game_id() + " (turn " + std::to_string(g.turn());
  if (!g.your_side().empty()) text += ", " + std::string(g.your_side() == "soviet" ? "Soviet" : "German");
  if (const auto clock = describe_clock(g); !clock.empty()) text += ", " + clock;
  return text + "): `open " + g.game_id() + "` in the shell to answer.";
}

std::string describe_start(const wire::GameSummary& g) {
  const std::string& opponent = g.your_side() == "soviet" ? g.german() : g.soviet();
  const std::string follow = ". `open " + g.game_id() + "` in the shell to follow it.";
  if (!g.tournament_id().empty()) {  // made by the tournament: a knock-out's deciding game
    return "Your deciding game " + g.game_id() + " against " + opponent + " in tournament " + g.tournament_id() +
           " has started: you play " + g.your_side() + follow;
  }
  return (opponent.empty() ? std::string("Someone") : opponent) + " joined your game " + g.game_id() +
         ": it has started, you play " + g.your_side() + follow;
}

std::string new_idempotency_key() {
  std::random_device rd;
  static const char* hex = "0123456789abcdef";
  std::string k;
  for (int i = 0; i < 32; ++i) k += hex[rd() & 15];
  return k;
}

bool use_colour(const GlobalOptions& g) {
  if (g.colour >= 0) return g.colour == 1;
  if (std::getenv("NO_COLOR")) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string(term) == "dumb") return false;
  return ::isatty(STDOUT_FILENO);
}

void terminal_size(int* columns, int* lines) {
  *columns = 120;
  *lines = 40;
  winsize ws{};
  if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    *columns = ws.ws_col;
    *lines = ws.ws_row;
  }
}

wire::ClientMessage draw_request(const std::string& game_id, const std::string& answer) {
  wire::ClientMessage m;
  if (answer == "offer") {
    m.mutable_offer_draw()->set_game_id(game_id);
  } else {
    m.mutable_answer_draw()->set_game_id(game_id);
    m.mutable_answer_draw()->set_accept(answer == "accept");
  }
  return m;
}

std::optional<std::int64_t> parse_duration(const std::string& text) {
  if (text.size() < 2) return std::nullopt;
  const char unit = static_cast<char>(std::tolower(static_cast<unsigned char>(text.back())));
  const std::int64_t scale = unit == 'd' ? 86400 : unit == 'h' ? 3600 : unit == 'm' ? 60 : unit == 's' ? 1 : 0;
  if (scale == 0) return std::nullopt;
  std::int64_t n = 0;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])) || n > 1000000) return std::nullopt;
    n = n * 10 + (text[i] - '0');
  }
  return n * scale;
}

std::optional<std::int64_t> parse_utc(const std::string& typed) {
  // ISO 8601 as people paste it: seconds and a closing Z (the time is UTC in any case) are allowed.
  const std::string text = typed.ends_with('Z') || typed.ends_with('z') ? typed.substr(0, typed.size() - 1) : typed;
  for (const char* format : {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d"}) {
    std::tm tm{};
    const char* end = ::strptime(text.c_str(), format, &tm);
    if (end != nullptr && *end == '\0') return static_cast<std::int64_t>(::timegm(&tm));
  }
  return std::nullopt;
}

std::string format_duration(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  const std::int64_t d = seconds / 86400, h = seconds % 86400 / 3600, m = seconds % 3600 / 60, s = seconds % 60;
  auto part = [](std::int64_t n, const char* unit) { return std::to_string(n) + unit; };
  if (d > 0) return part(d, "d") + (h > 0 ? " " + part(h, "h") : "");
  if (h > 0) return part(h, "h") + (m > 0 ? " " + part(m, "m") : "");
  if (m > 0) return part(m, "m");
  return part(s, "s");
}

namespace {
// A whole number written as digits alone: "30", not "30x" or "+30".
bool parse_int(const std::string& s, int& out) {
  const char* end = s.data() + s.size();
  return !s.empty() && std::isdigit(static_cast<unsigned char>(s[0])) && std::from_chars(s.data(), end, out).ptr == end;
}

// A moment in UTC, so that every player reads the same: "%Y-%m-%d" for a day.
std::string utc_text(std::int64_t unix, const char* format) {
  const std::time_t t = static_cast<std::time_t>(unix);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}
std::string utc_date(std::int64_t unix) { return utc_text(unix, "%Y-%m-%d"); }
std::string utc_time(std::int64_t unix) { return utc_text(unix, "%Y-%m-%d %H:%M UTC"); }
}  // namespace

std::optional<std::pair<std::int64_t, std::int64_t>> parse_game_clock(const std::string& text) {
  const auto plus = text.find('+');
  const std::string base = text.substr(0, plus), extra = plus == std::string::npos ? "" : text.substr(plus + 1);
  auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 6 && std::all_of(t.begin(), t.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; });
  };
  if (plus != std::string::npos && digits(base) && digits(extra)) {
    if (std::stoll(base) == 0) return std::nullopt;
    return std::make_pair(std::stoll(base) * 60, std::stoll(extra));  // "15+10"
  }
  const auto clock = parse_duration(base);
  if (!clock || *clock == 0) return std::nullopt;
  if (plus == std::string::npos) return std::make_pair(*clock, std::int64_t{0});
  if (digits(extra)) return std::make_pair(*clock, std::stoll(extra));  // "1m+0", "15m+10": seconds, as in "15+10"
  const auto increment = parse_duration(extra);
  if (!increment) return std::nullopt;
  return std::make_pair(*clock, *increment);
}

std::string clock_face(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  if (seconds >= 86400) return format_duration(seconds);
  char buf[32];
  if (seconds >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(seconds / 3600),
                  static_cast<long long>(seconds % 3600 / 60), static_cast<long long>(seconds % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(seconds / 60), static_cast<long long>(seconds % 60));
  }
  return buf;
}

ClockLeft clock_left(const wire::GameSummary& g, std::int64_t now_unix) {
  ClockLeft left{g.soviet_clock_left(), g.german_clock_left()};
  if (g.status() != "playing" || g.deadline_unix() == 0) return left;
  if (g.to_decide() != game::SOVIET && g.to_decide() != game::GERMAN) return left;
  if (now_unix == 0) now_unix = static_cast<std::int64_t>(std::time(nullptr));
  const std::int64_t running = std::max<std::int64_t>(0, g.deadline_unix() - now_unix);
  if (g.to_decide() == game::GERMAN) {
    left.german = running;
    left.german_runs = true;
  } else {
    left.soviet = running;
    left.soviet_runs = true;
  }
  return left;
}

std::string clock_terms(std::int64_t clock_seconds, std::int64_t increment_seconds) {
  // The terms as typed, to the second: 90s stays 90s.
  auto exact = [](std::int64_t t) {
    for (const auto& [unit, name] : {std::pair<std::int64_t, const char*>{86400, "d"}, {3600, "h"}, {60, "m"}}) {
      if (t % unit == 0) return std::to_string(t / unit) + name;
    }
    return std::to_string(t) + "s";
  };
  return "clock " + exact(clock_seconds) + (increment_seconds > 0 ? "+" + exact(increment_seconds) : "");
}

std::string describe_clock(const wire::GameSummary& g, std::int64_t now_unix) {
  if (g.clock_seconds() > 0) {
    std::string text = clock_terms(g.clock_seconds(), g.increment_seconds());
    if (g.status() != "playing") return text;
    if (now_unix == 0) now_unix = static_cast<std::int64_t>(std::time(nullptr));
    const auto left = clock_left(g, now_unix);
    // A game clock is for play at one sitting: a vacation does not hold it, and its player's is said to run on.
    const auto running = [&](bool soviet) {
      const std::int64_t away = soviet ? g.soviet_vacation_until() : g.german_vacation_until();
      if (away <= now_unix) return std::string(" (running)");
      return " (running: a game clock is not held while " + (soviet ? g.soviet() : g.german()) + " is on vacation)";
    };
    return text + ": Soviet " + clock_face(left.soviet) + (left.soviet_runs ? running(true) : "") + ", German " +
           clock_face(left.german) + (left.german_runs ? running(false) : "");
  }
  if (g.move_seconds() <= 0) return "";
  std::string text = format_duration(g.move_seconds()) + " per move";
  if (g.deadline_unix() > 0) {
    if (now_unix == 0) now_unix = static_cast<std::int64_t>(std::time(nullptr));
    // The one to decide away: their time per move stands still until they are back, and the time
    // left runs to the end of the vacation and a whole time per move after it.
    const bool soviet = g.to_decide() == game::SOVIET, german = g.to_decide() == game::GERMAN;
    const std::int64_t away = soviet ? g.soviet_vacation_until() : german ? g.german_vacation_until() : 0;
    if (g.status() == "playing" && away > now_unix) {
      return text + ", held while " + (soviet ? g.soviet() : g.german()) + " is on vacation until " + utc_date(away) + ": " +
             format_duration(g.deadline_unix() - now_unix) + " left (the vacation included)";
    }
    text += ", " + format_duration(g.deadline_unix() - now_unix) + " left";
  }
  return text;
}

std::string rematch_answer(const wire::ServerMessage& reply) {
  if (reply.has_game_created()) {
    const auto& g = reply.game_created().game();
    std::string terms = describe_clock(g);
    return "Offered a rematch: game " + g.game_id() + ", you play " + g.your_side() + (terms.empty() ? "" : ", " + terms) +
           ". It waits for " + g.reserved_for() + ", who accepts with `counterattack rematch " + g.rematch_of() +
           "` (or `rematch` in the shell); `counterattack resign " + g.game_id() + "` withdraws it.";
  }
  const auto& g = reply.game();
  return "Rematch accepted: game " + g.game_id() + " has started, you play " + g.your_side() + ". `counterattack play " +
         g.game_id() + "` (or `open " + g.game_id() + "` in the shell).";
}

// "options: limited_bonus red_army_flexibility", as games shows them; empty without any.
static std::string options_text(const wire::GameSummary& g) {
  std::string options;
  for (const auto& o : g.options()) options += " " + o;
  return options.empty() ? "" : "options:" + options;
}

// The terms of a game offered to one player, as games shows them:
// "rated, private, you would play soviet, clock 15m+10s, options: limited_bonus".
static std::string offered_terms(const wire::GameSummary& g) {
  std::string terms = std::string(g.rated() ? "rated" : "casual") + (g.private_() ? ", private" : "") +
                      ", you would play " + g.your_side();
  if (auto clock = describe_clock(g); !clock.empty()) {
    terms += ", " + clock;
  } else {
    terms += ", untimed";
  }
  if (auto options = options_text(g); !options.empty()) terms += ", " + options;
  return terms;
}

std::string rematch_offer_notice(const wire::RematchOffered& o) {
  const auto& g = o.game();
  return o.by() + " offers a rematch of game " + o.of_game_id() + ": game " + g.game_id() + ", " + offered_terms(g) +
         ". `rematch " + o.of_game_id() + "` accepts it, `rematch " + o.of_game_id() +
         " decline` declines it (`counterattack rematch " + o.of_game_id() + " [--decline]`).";
}

// The game's terms as a line of games shows them: its tournament, casual, its clock, its options.
static std::vector<std::string> terms_of(const wire::GameSummary& g) {
  std::vector<std::string> out;
  if (!g.tournament_id().empty()) {
    out.push_back("tournament " + g.tournament_id() +
                  (g.tournament_round() > 0 ? ", round " + std::to_string(g.tournament_round()) : ""));
  }
  // A game made unrated by its end (a tournament game its organiser decided) says why, not
  // "casual", which reads as made so. A server that sends no ratings has no rated games either.
  if (!g.rated() && !g.unrated_reason().empty()) out.push_back(g.unrated_reason());
  else if (!g.rated() && (g.has_soviet_rating() || g.has_german_rating())) out.push_back("casual");
  if (auto clock = describe_clock(g); !clock.empty()) out.push_back(std::move(clock));
  if (auto options = options_text(g); !options.empty()) out.push_back(std::move(options));
  return out;
}

std::string challenge_made_text(const wire::GameSummary& g, bool cli) {
  // Every term the challenged player is shown, so that the maker sees what they offered.
  std::string terms = "you play " + g.your_side();
  if (g.rated()) terms += ", rated";
  if (g.move_seconds() <= 0 && g.clock_seconds() <= 0) terms += ", untimed";
  if (g.private_()) terms += ", private";
  for (const auto& t : terms_of(g)) terms += ", " + t;
  const std::string run = cli ? "counterattack " : "";
  return "Challenged " + g.reserved_for() + ": game " + g.game_id() + ", " + terms + ". It waits for " + g.reserved_for() +
         ", who accepts with `" + run + "join " + g.game_id() + "` or declines with `" + run + "decline " + g.game_id() +
         "`; `" + run + "resign " + g.game_id() + "` withdraws it.";
}

std::string challenge_offer_notice(const wire::ChallengeOffered& o) {
  const auto& g = o.game();
  return o.by() + " challenges you: game " + g.game_id() + ", " + offered_terms(g) + ". `join " + g.game_id() + "` accepts it, `decline " + g.game_id() + "` declines it (`counterattack join|decline " +
         g.game_id() + "`).";
}

std::string challenge_withdrawn_notice(const wire::ChallengeWithdrawn& w) {
  const std::string what = w.of_game_id().empty() ? "The challenge from " + w.by()
                                                  : "The rematch of game " + w.of_game_id() + " offered by " + w.by();
  std::string why = w.reason();
  // The operator's words may end a sentence already; one stop is dropped, so that an ellipsis stays whole.
  if (!why.empty() && why.back() == '.') why.pop_back();
  return what + " (game " + w.game_id() + ") no longer waits for you: " + why + ".";
}

std::string withdrawn_text(const wire::GameSummary& g) {
  if (!g.reserved_for().empty()) {
    return "You withdrew your " + std::string(g.rematch_of().empty() ? "challenge" : "rematch offer") + " to " +
           g.reserved_for() + " (game " + g.game_id() + ").";
  }
  return "You withdrew game " + g.game_id() + ": no one had joined it.";
}

std::optional<wire::GameSummary> my_game(Session& s, const std::string& game_id) {
  wire::ClientMessage mine;
  mine.mutable_my_games();
  std::string why;
  if (const auto list = s.call(mine, &why); list && list->has_game_list()) {
    for (const auto& g : list->game_list().games()) {
      if (g.game_id() == game_id) return g;
    }
  }
  return std::nullopt;
}

std::optional<wire::GameSummary> withdrawn_game(Session& s, const std::string& game_id,
                                                const std::optional<wire::GameSummary>& before) {
  const auto now = my_game(s, game_id);
  if (!now || now->result() != "Cancelled") return std::nullopt;
  return before ? *before : *now;  // once over, the server no longer says whom it waited for
}

std::string resign_outcome(Session& s, const std::string& game_id, const std::optional<wire::GameSummary>& before,
                           const std::string& resigned) {
  const auto withdrawn = withdrawn_game(s, game_id, before);
  return withdrawn ? withdrawn_text(*withdrawn) : resigned;
}

std::optional<wire::ClientMessage> email_request(const std::vector<std::string>& words, std::string* why) {
  static const char* kUsage =
      "email | email ADDRESS | email confirm CODE | email off | email --turns each|digest|off [--digest-hours N] | "
      "email --digest-hours N";
  wire::ClientMessage m;
  if (words.size() == 2 && words[0] == "--digest-hours") {
    // An interval alone is a digest's: it implies one.
    return email_request({"--turns", "digest", "--digest-hours", words[1]}, why);
  }
  if (words.empty()) {
    m.mutable_get_account();
  } else if (words[0] == "--turns") {
    auto* t = m.mutable_set_turn_mail();
    const bool hours = words.size() == 4 && words[2] == "--digest-hours";
    if (words.size() < 2 || (words.size() != 2 && !hours)) {
      if (why) *why = kUsage;
      return std::nullopt;
    }
    if (words[1] == "each") {
      t->set_mode(wire::TURN_MAIL_EACH);
    } else if (words[1] == "digest") {
      t->set_mode(wire::TURN_MAIL_DIGEST);
    } else if (words[1] == "off") {
      t->set_mode(wire::TURN_MAIL_OFF);
    } else {
      if (why) *why = "Turn notices are mailed each (one per game), as a digest, or off: --turns each|digest|off.";
      return std::nullopt;
    }
    if (hours) {
      const std::string& n = words[3];
      const bool digits = !n.empty() && n.size() <= 4 && std::all_of(n.begin(), n.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
      if (t->mode() != wire::TURN_MAIL_DIGEST) {
        if (why) *why = "--digest-hours goes with --turns digest alone: each and off send no digest.";
        return std::nullopt;
      }
      if (!digits || std::stoi(n) < 1 || std::stoi(n) > 168) {
        if (why) *why = "A digest comes every 1 to 168 hours: --digest-hours 1..168.";
        return std::nullopt;
      }
      t->set_digest_hours(std::stoi(n));
    }
  } else if (words.size() == 1 && words[0] == "off") {
    m.mutable_set_email();  // no address: removed
  } else if (words.size() == 2 && words[0] == "confirm") {
    m.mutable_confirm_email()->set_code(words[1]);
  } else if (words.size() == 1 && words[0].find('@') != std::string::npos) {
    m.mutable_set_email()->set_address(words[0]);
  } else {
    if (why) *why = kUsage;
    return std::nullopt;
  }
  return m;
}

std::string describe_account(const wire::Account& a, bool turn_mail_set, const std::string& command, bool address_set) {
  if (!a.mail_enabled()) return "This server sends no e-mail: turn notices reach you only while you are connected.";
  const std::string hours = std::to_string(a.digest_hours()) + (a.digest_hours() == 1 ? " hour" : " hours");
  if (a.email().empty() || !a.email_confirmed()) {
    // The choice is kept without a confirmed address: say what it will be.
    const std::string mode = a.turn_mail() == wire::TURN_MAIL_DIGEST ? "a digest, at most one every " + hours
                             : a.turn_mail() == wire::TURN_MAIL_OFF  ? "off (other mail still comes)"
                                                                     : "a mail per game";
    const std::string address = a.email().empty()
                                    ? "No e-mail address: `" + command + "email ADDRESS` sets one for turn notices while you are away."
                                    : address_set ? "A code was mailed to " + a.email() + " just now: `" + command +
                                                        "email confirm CODE` confirms it within an hour."
                                                  : a.email() + " is not confirmed yet: the code mailed to it when it was set "
                                                        "confirms it (`" + command + "email confirm CODE`, for an hour after); `" +
                                                        command + "email " + a.email() + "` again mails a new one.";
    if (turn_mail_set) return "Stored; it applies once an address is confirmed. Turn notices: " + mode + ". " + address;
    return address + " Turn notices, once it is confirmed: " + mode + ".";
  }
  switch (a.turn_mail()) {
    case wire::TURN_MAIL_DIGEST:
      return "Turn notices go to " + a.email() + " as a digest, at most one every " + hours +
             ", of the games that wait for you while you are away (`" + command + "email --turns each` for a mail per game).";
    case wire::TURN_MAIL_OFF:
      return "No turn notices are mailed to " + a.email() +
             "; other mail still goes there (`" + command + "email --turns each` starts the notices again, `" + command +
             "email off` removes the address).";
    default:
      return "Turn notices go to " + a.email() + " while you are away, a mail per game (`" + command + "email --turns digest` for one"
             " digest a day, `" + command + "email off` stops them).";
  }
}

std::optional<wire::ClientMessage> vacation_request(const std::vector<std::string>& words, std::string* why) {
  wire::ClientMessage m;
  if (words.empty()) {
    m.mutable_get_account();
    return m;
  }
  if (words.size() == 1 && words[0] == "end") {
    m.mutable_end_vacation();
    return m;
  }
  if (words.size() == 2 && words[0] == "start") {
    // "7" or "7d": whole days.
    std::string n = words[1];
    if (!n.empty() && (n.back() == 'd' || n.back() == 'D')) n.pop_back();
    if (!n.empty() && n.size() <= 3 && std::all_of(n.begin(), n.end(), [](unsigned char ch) { return std::isdigit(ch); })) {
      m.mutable_start_vacation()->set_days(std::stoi(n));
      return m;
    }
  }
  if (why) *why = "vacation | vacation start DAYS | vacation end";
  return std::nullopt;
}

std::optional<wire::ClientMessage> chat_moderation_request(const std::string& command, const std::vector<std::string>& words,
                                                           const std::string& open_game, std::string* why) {
  wire::ClientMessage m;
  if (command == "muted" && words.empty()) {
    m.mutable_list_muted();
    return m;
  }
  if ((command == "mute" || command == "unmute") && words.size() == 1) {
    if (command == "mute")
      m.mutable_mute()->set_name(words[0]);
    else
      m.mutable_unmute()->set_name(words[0]);
    return m;
  }
  if (command == "report" && !words.empty()) {
    std::string game = open_game, reason;
    for (std::size_t i = 1; i < words.size(); ++i) {
      if (words[i] == "--game" && i + 1 < words.size()) {
        game = words[++i];
      } else {
        reason += (reason.empty() ? "" : " ") + words[i];
      }
    }
    if (!game.empty() && !reason.empty()) {
      m.mutable_report_chat()->set_name(words[0]);
      m.mutable_report_chat()->set_game_id(game);
      m.mutable_report_chat()->set_reason(reason);
      return m;
    }
  }
  if (why) {
    *why = command == "report" ? "report NAME --game GAME REASON...   (a reason of 1 to 200 characters)"
           : command == "muted" ? "muted"
                                : command + " NAME";
  }
  return std::nullopt;
}

std::string describe_muted(const wire::ClientMessage& asked, const wire::MutedPlayers& m) {
  // The name as typed only from a server that does not send it back.
  const std::string& name = !m.name().empty() ? m.name() : asked.has_mute() ? asked.mute().name() : asked.unmute().name();
  std::string text = asked.has_mute()     ? "Muted " + name + ": you no longer read their chat. "
                     : asked.has_unmute() ? "Unmuted " + name + ": you read their chat again. "
                                          : "";
  if (m.names().empty()) return text + "You have muted nobody.";
  text += "Muted (" + std::to_string(m.names_size()) + "):";
  for (const auto& n : m.names()) text += " " + n;
  return text;
}

std::string reported_text(const wire::ReportChat& r, const wire::ChatReported& done) {
  return "Reported " + (done.name().empty() ? r.name() : done.name()) + "'s chat in game " + r.game_id() +
         " to the server's operator, with their latest lines in that game (muted or not) in the chat open to you there.";
}

namespace {

// The words of the standing orders, in the order they are listed, with what each answers.
struct StandingWord {
  const char* word;
  bool (game::StandingOrders::*get)() const;
  void (game::StandingOrders::*set)(bool);
  const char* meaning;
};
const StandingWord kStandingWords[] = {
    {"stand-fast", &game::StandingOrders::stand_fast, &game::StandingOrders::set_stand_fast,
     "never break contact when enemy units enter your ZOC (6)"},
    {"no-support", &game::StandingOrders::no_support, &game::StandingOrders::set_no_support,
     "when attacked, commit no tactical support and play no chit (10)"},
    {"keep-die", &game::StandingOrders::keep_die, &game::StandingOrders::set_keep_die,
     "German: never re-roll a combat's die with FM Model (12)"},
    {"take-losses", &game::StandingOrders::take_losses, &game::StandingOrders::set_take_losses,
     "defending, lose the steps the result names, one a unit in turn, no elastic or desperate defense (9, 10)"},
    {"retreat", &game::StandingOrders::retreat, &game::StandingOrders::set_retreat,
     "retreat each unit by the first path that leaves room where it ends (9)"},
};

}  // namespace

std::optional<wire::ClientMessage> standing_request(const std::string& game_id, const std::vector<std::string>& words,
                                                    std::string* why) {
  wire::ClientMessage m;
  auto* req = m.mutable_set_standing_orders();
  req->set_game_id(game_id);
  const bool none = words.size() == 1 && lower(words[0]) == "none";
  for (const auto& w : words) {
    if (none) break;
    const auto it = std::find_if(std::begin(kStandingWords), std::end(kStandingWords),
                                 [&](const StandingWord& s) { return lower(w) == s.word; });
    if (it == std::end(kStandingWords)) {
      if (why) {
        *why = "Unknown standing order '" + w + "'. standing GAME [none | ORDER...], each ORDER one of:\n";
        for (const auto& s : kStandingWords) *why += std::string("  ") + s.word + ": " + s.meaning + "\n";
        why->pop_back();
      }
      return std::nullopt;
    }
    (req->mutable_orders()->*(it->set))(true);
  }
  return m;
}

std::optional<game::StandingOrders> my_standing_orders(Session& s, const std::string& game_id, std::string* why) {
  wire::ClientMessage m;
  m.mutable_my_games();
  auto reply = s.call(m, why);
  if (!reply) return std::nullopt;
  for (const auto& game : reply->game_list().games()) {
    if (game.game_id() == game_id) return game.standing_orders();
  }
  if (why) *why = "You play no game " + game_id + ".";
  return std::nullopt;
}

std::string standing_words(const game::StandingOrders& s) {
  std::string set;
  for (const auto& w : kStandingWords) {
    if ((s.*(w.get))()) set += std::string(set.empty() ? "" : ", ") + w.word;
  }
  return set;
}

std::string describe_standing(const game::StandingOrders& s) {
  std::string set;
  for (const auto& w : kStandingWords) {
    if ((s.*(w.get))()) set += std::string("\n  ") + w.word + ": " + w.meaning;
  }
  if (set.empty()) return "No standing orders: every decision is asked of you.";
  return "Standing orders (the server answers these decisions for you at once):" + set;
}

std::string describe_vacation(const wire::Vacation& v, std::int64_t now_unix, const std::string& command) {
  if (v.days_per_year() <= 0) return "This server gives no vacation time.";
  if (now_unix == 0) now_unix = static_cast<std::int64_t>(std::time(nullptr));
  const std::string left = std::to_string(v.days_left()) + " of " + std::to_string(v.days_per_year()) +
                           " vacation days left (in any 365 days)";
  if (v.until_unix() > now_unix) {
    return "On vacation until " + utc_time(v.until_unix()) + " (" + format_duration(v.until_unix() - now_unix) +
           " from now): your clocks in games with a time per move stand still. " + left + "; `" + command + "vacation end` ends it now.";
  }
  return "Not on vacation; " + left + ". `" + command + "vacation start DAYS` holds your clocks in games with a time per move.";
}

std::optional<wire::ClientMessage> tournament_request(const std::vector<std::string>& words, std::string* why) {
  static const char* kUsage =
      "tournament [list] | tournament new NAME [--players N] [--swiss ROUNDS | --knockout] [--time 3d | --clock 15m+10s]\n"
      "  [--starts WHEN]"
      " [--private] [--organise-only] [--option KEY]   (WHEN: 2h or 3d from now, or a UTC date and time: 2026-12-01T18:00)\n"
      "tournament show|start|cancel|leave ID | tournament join ID [INVITE] | tournament remove ID NAME REASON...\n"
      "tournament adjudicate GAME soviet|german|draw REASON...   (the organiser decides a game in play)";
  auto usage = [&](const std::string& first) -> std::optional<wire::ClientMessage> {
    if (why) *why = first.empty() ? kUsage : first + "\n" + kUsage;
    return std::nullopt;
  };
  wire::ClientMessage m;
  const std::string verb = words.empty() ? "list" : words[0];
  if (verb == "list" && words.size() <= 1) {
    m.mutable_list_tournaments();
    return m;
  }
  if (verb == "new") {
    auto* c = m.mutable_create_tournament();
    c->set_max_players(4);
    c->set_move_seconds(3 * 86400);
    c->set_enter(true);
    std::string name;
    bool timed = false;  // --time given, which --clock may not override
    for (std::size_t i = 1; i < words.size(); ++i) {
      const std::string& w = words[i];
      const bool has_value = i + 1 < words.size();
      if (w == "--players" && has_value) {
        const std::string& n = words[++i];
        if (n.empty() || n.size() > 3 || !std::all_of(n.begin(), n.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; })) return usage("--players takes a number.");
        c->set_max_players(std::stoi(n));
      } else if (w == "--swiss" && has_value) {
        const std::string& n = words[++i];
        if (n.empty() || n.size() > 2 || !std::all_of(n.begin(), n.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; }) ||
            std::stoi(n) == 0) {
          return usage("--swiss takes the number of rounds: 3, say.");
        }
        c->set_rounds(std::stoi(n));
      } else if (w == "--knockout" || w == "--knock-out") {
        c->set_knockout(true);
      } else if (w == "--time" && has_value) {
        const auto seconds = parse_duration(words[++i]);
        if (!seconds) return usage("--time takes a number and a unit: 3d, 12h or 90m.");
        if (c->clock_seconds() > 0) return usage("A tournament's games have a time per move or a game clock, not both.");
        c->set_move_seconds(*seconds);
        timed = true;
      } else if (w == "--clock" && has_value) {
        const auto clock = parse_game_clock(words[++i]);
        if (!clock) return usage("--clock takes the time for each player and the increment: 15m+10s, 1h or 15+10.");
        if (timed) return usage("A tournament's games have a time per move or a game clock, not both.");
        c->set_move_seconds(0);
        c->set_clock_seconds(clock->first);
        c->set_increment_seconds(clock->second);
      } else if (w == "--starts" && has_value) {
        // A time from now (2h, 3d), or a UTC date and time: 2026-12-01T18:00 or 2026-12-01 18:00.
        std::string when = words[++i];
        if (i + 1 < words.size() && words[i + 1].size() == 5 && words[i + 1][2] == ':') when += "T" + words[++i];
        std::int64_t at = 0;
        if (const auto after = parse_duration(when)) {
          at = static_cast<std::int64_t>(std::time(nullptr)) + *after;
        } else if (const auto utc = parse_utc(when)) {
          at = *utc;
        } else {
          return usage("--starts takes a time from now (2h, 3d) or a UTC date and time (2026-12-01T18:00).");
        }
        c->set_starts_unix(at);
      } else if (w == "--option" && has_value) {
        c->add_options(words[++i]);
      } else if (w == "--private") {
        c->set_private_(true);
      } else if (w == "--organise-only" || w == "--organize-only") {
        c->set_enter(false);
      } else if (w.rfind("--", 0) == 0) {
        return usage("Unknown or incomplete " + w + ".");
      } else {
        name += (name.empty() ? "" : " ") + w;
      }
    }
    if (name.empty()) return usage("Name the tournament.");
    c->set_name(name);
    return m;
  }
  if (words.size() < 2) return usage("");
  const std::string& id = words[1];
  if (verb == "join" && words.size() <= 3) {
    m.mutable_join_tournament()->set_tournament_id(id);
    if (words.size() == 3) m.mutable_join_tournament()->set_invite_code(words[2]);
    return m;
  }
  if (verb == "remove") {
    // The organiser withdraws an entrant, saying why: their opponents are told.
    if (words.size() < 4) return usage("tournament remove ID NAME REASON...: the entrant, and why (they and their opponents are told).");
    auto* l = m.mutable_withdraw_entrant();
    l->set_tournament_id(id);
    l->set_player(words[2]);
    std::string reason;
    for (std::size_t i = 3; i < words.size(); ++i) {
      if (words[i].rfind("--", 0) == 0) return usage("tournament remove takes no options: " + words[i] + ".");
      reason += (reason.empty() ? "" : " ") + words[i];
    }
    l->set_reason(reason);
    return m;
  }
  if (verb == "adjudicate") {
    // The organiser decides a game of their tournament still in play: both players are told why.
    if (words.size() < 4 || (words[2] != "soviet" && words[2] != "german" && words[2] != "draw")) {
      return usage("tournament adjudicate GAME soviet|german|draw REASON...: the game, the side that wins (or a draw), and why.");
    }
    auto* a = m.mutable_adjudicate_game();
    a->set_game_id(id);
    a->set_result(words[2]);
    std::string reason;
    for (std::size_t i = 3; i < words.size(); ++i) {
      if (words[i].rfind("--", 0) == 0) return usage("tournament adjudicate takes no options: " + words[i] + ".");
      reason += (reason.empty() ? "" : " ") + words[i];
    }
    a->set_reason(reason);
    return m;
  }
  if (words.size() != 2) return usage("");
  if (verb == "show") {
    m.mutable_get_tournament()->set_tournament_id(id);
  } else if (verb == "leave") {
    m.mutable_leave_tournament()->set_tournament_id(id);
  } else if (verb == "start") {
    m.mutable_start_tournament()->set_tournament_id(id);
  } else if (verb == "cancel") {
    m.mutable_cancel_tournament()->set_tournament_id(id);
  } else {
    return usage("");
  }
  return m;
}

namespace {
// 3.5 as "3.5", 2 as "2".
std::string points_text(double p) {
  const int halves = static_cast<int>(p * 2 + 0.5);
  return std::to_string(halves / 2) + (halves % 2 ? ".5" : "");
}

// `s` padded with spaces to `width` characters (a UTF-8 character counted once), on the right or the left.
std::string padded(const std::string& s, std::size_t width, bool right = false) {
  std::size_t chars = 0;
  for (const unsigned char ch : s) chars += (ch & 0xc0) != 0x80;
  const std::string fill(chars < width ? width - chars : 0, ' ');
  return right ? fill + s : s + fill;
}

// One game's result for `player`: 1 won, = drawn, 0 lost, * in play, x none (aborted or cancelled).
char result_mark(const wire::GameSummary& g, const std::string& player) {
  if (g.status() != "finished") return '*';
  const bool soviet = g.soviet() == player;
  if (g.result() == "Draw") return '=';
  if (g.result() == "Soviet victory") return soviet ? '1' : '0';
  if (g.result() == "German victory") return soviet ? '0' : '1';
  return 'x';
}

// A finished game's points for `player`, 0 for any other.
double result_points(const wire::GameSummary& g, const std::string& player) {
  const char m = result_mark(g, player);
  return m == '1' ? 1.0 : m == '=' ? 0.5 : 0.0;
}

constexpr const char* kMarks = "1 won, = drawn, 0 lost, * in play, x no result (aborted)";

// A round robin's grid: each entrant's two games against each other, as Soviet then as German.
std::string round_robin_table(const wire::Tournament& t) {
  const auto& rows = t.standings();
  std::size_t name_width = 6;
  for (const auto& e : rows) name_width = std::max(name_width, e.player().size());
  std::string s = "Cross-table (row's results against each column's number, as Soviet then as German: " + std::string(kMarks) + "):\n";
  s += " no  rank  " + padded("player", name_width);
  for (int j = 0; j < rows.size(); ++j) s += padded(std::to_string(j + 1), 4, true);
  s += "  points  tie-break\n";
  for (int i = 0; i < rows.size(); ++i) {
    const std::string& me = rows[i].player();
    char head[32];
    std::snprintf(head, sizeof head, "%3d  %4d  ", i + 1, rows[i].rank());
    s += head + padded(me, name_width);
    for (int j = 0; j < rows.size(); ++j) {
      const std::string& them = rows[j].player();
      std::string cell = "--";
      if (i != j) {
        cell = "..";  // a game not made (a withdrawal)
        for (const auto& g : t.games()) {
          if (g.soviet() == me && g.german() == them) cell[0] = result_mark(g, me);
          if (g.german() == me && g.soviet() == them) cell[1] = result_mark(g, me);
        }
      }
      s += padded(cell, 4, true);
    }
    char tail[48];
    std::snprintf(tail, sizeof tail, "  %6s  %9.2f", points_text(rows[i].points()).c_str(), rows[i].tiebreak());
    s += tail;
    if (rows[i].withdrawn()) s += "  withdrew";
    s += "\n";
  }
  return s;
}

// A Swiss: each entrant's opponent and results round by round.
std::string swiss_table(const wire::Tournament& t) {
  const auto& rows = t.standings();
  // Each entrant's number stays theirs for the whole tournament (their names' order, as every
  // reader sees them), so an opponent's number in the round columns means the same after every
  // result; the rows follow the standings.
  std::vector<std::string> names;
  std::size_t name_width = 6;
  for (const auto& e : rows) {
    names.push_back(e.player());
    name_width = std::max(name_width, e.player().size());
  }
  std::sort(names.begin(), names.end());
  std::map<std::string, int> number;
  for (std::size_t i = 0; i < names.size(); ++i) number[names[i]] = static_cast<int>(i) + 1;
  const int rounds = std::max(t.round(), 1);
  std::string s = "Cross-table (no: each entrant's number for the whole tournament, in the order of their names; rows in "
                  "the order of the standings; each round: the opponent's number, then the results as Soviet and as German: " +
                  std::string(kMarks) + "; bye: sat out, 2 points; - not paired):\n";
  s += " no  rank  " + padded("player", name_width);
  for (int r = 1; r <= rounds; ++r) s += padded("R" + std::to_string(r), 7, true);
  s += "  points  Sonneborn-Berger\n";
  for (int i = 0; i < rows.size(); ++i) {
    const std::string& me = rows[i].player();
    char head[32];
    std::snprintf(head, sizeof head, "%3d  %4d  ", number[me], rows[i].rank());
    s += head + padded(me, name_width);
    for (int r = 1; r <= rounds; ++r) {
      std::string opponent;
      std::string marks = "..";
      for (const auto& g : t.games()) {
        if (g.tournament_round() != r || (g.soviet() != me && g.german() != me)) continue;
        opponent = g.soviet() == me ? g.german() : g.soviet();
        marks[g.soviet() == me ? 0 : 1] = result_mark(g, me);
      }
      std::string cell = "-";
      if (!opponent.empty()) {
        cell = (number.count(opponent) ? std::to_string(number[opponent]) : std::string("?")) + " " + marks;
      } else if (std::find(rows[i].bye_rounds().begin(), rows[i].bye_rounds().end(), r) != rows[i].bye_rounds().end()) {
        cell = "bye";
      }
      s += padded(cell, 7, true);
    }
    char tail[48];
    std::snprintf(tail, sizeof tail, "  %6s  %16.2f", points_text(rows[i].points()).c_str(), rows[i].tiebreak());
    s += tail;
    if (rows[i].withdrawn()) s += "  withdrew";
    s += "\n";
  }
  return s;
}

// A knock-out's bracket: each round's matches, their games' points, and who went through.
std::string knockout_table(const wire::Tournament& t) {
  std::map<std::string, int> out_in;
  for (const auto& e : t.standings()) out_in[e.player()] = e.knocked_out();
  std::string s = "Bracket (each match: the points of its games, a win 1 and a draw 1/2; the games' results for the first named, "
                  "as Soviet or German in turn: " + std::string(kMarks) + "):\n";
  for (int r = 1; r <= t.round(); ++r) {
    s += "Round " + std::to_string(r) + (r == t.rounds() ? " (the final)" : "") + ":\n";
    std::vector<std::pair<std::string, std::string>> matches;
    std::set<std::string> playing;
    for (const auto& g : t.games()) {
      if (g.tournament_round() != r) continue;
      playing.insert(g.soviet());
      playing.insert(g.german());
      const bool known = std::any_of(matches.begin(), matches.end(), [&](const auto& m) {
        return (m.first == g.soviet() && m.second == g.german()) || (m.first == g.german() && m.second == g.soviet());
      });
      if (!known) matches.emplace_back(g.soviet(), g.german());
    }
    for (const auto& [a, b] : matches) {
      double pa = 0, pb = 0;
      std::string marks;
      bool unfinished = false;
      for (const auto& g : t.games()) {
        if (g.tournament_round() != r || !((g.soviet() == a && g.german() == b) || (g.soviet() == b && g.german() == a))) continue;
        pa += result_points(g, a);
        pb += result_points(g, b);
        marks += result_mark(g, a);
        unfinished = unfinished || g.status() != "finished";
      }
      s += "  " + a + " " + points_text(pa) + " - " + points_text(pb) + " " + b + "  (" + marks + ")";
      if (out_in[a] == r && out_in[b] != r) {
        s += "  " + b + " goes through";
      } else if (out_in[b] == r && out_in[a] != r) {
        s += "  " + a + " goes through";
      } else if (unfinished) {
        s += "  in play";
      }
      s += "\n";
    }
    // Still in at this round but in no match of it: through without playing.
    for (const auto& e : t.standings()) {
      const int o = e.knocked_out();
      if (playing.count(e.player()) || (o > 0 && o < r)) continue;
      if (o == r) {
        s += "  " + e.player() + " went out without playing (withdrew)\n";
      } else {
        s += "  " + e.player() + " goes through without playing\n";
      }
    }
  }
  return s;
}

// The cross-table that suits the tournament's kind; "" before its start.
std::string cross_table(const wire::Tournament& t) {
  if (t.standings().empty() || (t.games().empty() && t.round() == 0)) return "";
  if (t.knockout()) return knockout_table(t);
  if (t.rounds() > 0) return swiss_table(t);
  return round_robin_table(t);
}
}  // namespace

std::string tournament_line(const wire::Tournament& t, bool withdrew) {
  std::string s = t.tournament_id() + "  " + t.status() + "  \"" + t.name() + "\"  organiser: " + t.organiser() + "  " +
                  std::to_string(t.entrants()) + "/" + std::to_string(t.max_players()) + " players  " +
                  (t.clock_seconds() > 0 ? clock_terms(t.clock_seconds(), t.increment_seconds())
                                         : format_duration(t.move_seconds()) + " per move");
  if (t.knockout()) {
    s += "  knock-out" + (t.round() > 0 ? ", round " + std::to_string(t.round()) + " of " + std::to_string(t.rounds()) : std::string());
  } else if (t.rounds() > 0) {
    s += "  Swiss, " + (t.round() > 0 ? "round " + std::to_string(t.round()) + " of " : std::string()) +
         std::to_string(t.rounds()) + (t.rounds() == 1 ? " round" : " rounds");
  }
  if (t.status() == "open" && t.starts_unix() > 0) s += "  starts " + utc_time(t.starts_unix());
  if (t.private_()) s += "  private";
  if (t.entered()) s += withdrew ? "  you withdrew" : "  you play";
  if (!t.invite_code().empty()) s += "  invite: " + t.invite_code();
  return s;
}

std::string tournament_list_text(Session& s, const wire::TournamentList& list) {
  std::string out;
  for (const auto& t : list.tournaments()) {
    // The list carries no standings: whether the reader withdrew is asked of the tournament, only
    // where it can be so (entered, and begun: leaving an open one is no withdrawal).
    bool withdrew = false;
    if (t.entered() && t.status() != "open") {
      wire::ClientMessage m;
      m.mutable_get_tournament()->set_tournament_id(t.tournament_id());
      if (const auto reply = s.call(m, nullptr); reply && reply->has_tournament()) {
        const auto& rows = reply->tournament().standings();
        withdrew = std::any_of(rows.begin(), rows.end(), [&](const wire::Standing& e) { return e.player() == s.user() && e.withdrawn(); });
      }
    }
    out += tournament_line(t, withdrew) + "\n";
  }
  return out;
}

std::string removed_from_tournament_text(const std::string& player, const wire::ServerMessage& reply,
                                         const std::string& command) {
  const auto& t = reply.tournament();
  const bool under_way = t.started_unix() > 0;
  return (under_way ? player + " is withdrawn from the tournament: their games in it under way are resigned, and no later round pairs them.\n"
                    : player + " is struck off the tournament's entrants.\n") +
         describe_tournament(t, command);
}

std::string adjudicated_text(const wire::AdjudicateGame& a) {
  const std::string& r = a.result();
  return "Game " + a.game_id() + " is decided: " +
         (r == "draw" ? std::string("a draw") : r == "soviet" ? std::string("the Soviet side wins") : std::string("the German side wins")) +
         ". Both players are told why; it counts in the standings and moves no rating.\n";
}

std::string left_tournament_text(const wire::ServerMessage& reply, const std::string& command, const std::string& me) {
  if (!reply.has_tournament()) return "You have left the tournament.\n";
  return "You have withdrawn from the tournament: your games in it under way are resigned, and no later round pairs you.\n" +
         describe_tournament(reply.tournament(), command, me);
}

std::string describe_tournament(const wire::Tournament& t, const std::string& command, const std::string& me) {
  // A withdrawn entrant plays no more: neither the header nor a pairing says they do.
  const bool withdrew = !me.empty() && std::any_of(t.standings().begin(), t.standings().end(),
                                                   [&](const wire::Standing& e) { return e.player() == me && e.withdrawn(); });
  std::string s = tournament_line(t, withdrew) + "\n";
  if (t.options_size()) {
    s += "Optional rules:";
    for (const auto& o : t.options()) s += " " + o;
    s += "\n";
  }
  if (t.status() == "cancelled") s += "Cancelled." + (t.cancel_reason().empty() ? std::string() : " " + t.cancel_reason()) + "\n";
  if (!t.rounds_reason().empty()) s += t.rounds_reason() + "\n";  // fewer rounds than set, since its start
  const bool started = t.status() == "playing" || t.status() == "finished" || (t.status() == "cancelled" && t.started_unix() > 0);
  if (!started) {
    s += "Entrants:";
    if (t.standings().empty()) s += " none yet";
    for (const auto& e : t.standings()) s += " " + e.player();
    s += "\n";
    if (t.status() == "open") {
      s += t.knockout()
               ? "Entrants are seeded by rating into a bracket; each match is two games, one with each side, and the one"
                 " with more points goes through (level: a deciding game, sides drawn; level again: the higher seed)."
                 " It starts when full"
           : t.rounds() > 0 ? "In each round every entrant plays two games, one with each side, against an entrant near them"
                            " in the standings whom they have not met; with an odd number one sits out, for 2 points."
                            " It starts when full"
                          : "Every pair of entrants plays two games, one with each side; it starts when full";
      if (t.starts_unix() > 0) {
        s += " or at " + utc_time(t.starts_unix()) + ", when it is cancelled if fewer than two have entered.\n";
      } else {
        s += " or when the organiser starts it (`" + command + "tournament start " + t.tournament_id() + "`).\n";
      }
    }
    return s;
  }
  char row[160];
  const bool swiss = t.rounds() > 0 && !t.knockout();
  std::snprintf(row, sizeof row, "%4s  %-24s %6s %4s %5s %4s %7s %9s%s\n", "#", "player", "points", "won", "drawn", "lost",
                "to play", "tie-break", swiss ? "  byes" : t.knockout() ? "  out" : "");
  s += row;
  for (const auto& e : t.standings()) {
    std::snprintf(row, sizeof row, "%4d  %-24s %6s %4d %5d %4d %7d %9.2f", e.rank(), e.player().c_str(),
                  points_text(e.points()).c_str(), e.won(), e.drawn(), e.lost(), e.to_play(), e.tiebreak());
    s += row;
    if (swiss) {
      char byes[16];
      std::snprintf(byes, sizeof byes, "  %4d", e.byes());
      s += byes;
    }
    if (t.knockout() && e.knocked_out() > 0) s += "  in round " + std::to_string(e.knocked_out());
    if (e.withdrawn()) s += "  withdrew";
    s += "\n";
  }
  if (t.status() == "finished" && !t.standings().empty()) {
    std::string winners;
    for (const auto& e : t.standings()) {
      if (e.rank() == 1) winners += (winners.empty() ? "" : " and ") + e.player();
    }
    s += "Won by " + winners + ".\n";
  }
  if (!t.end_reason().empty()) s += "Cut short: " + t.end_reason() + "\n";
  if (t.games_size()) s += cross_table(t);
  if (t.status() == "playing" && !t.sits_out().empty()) {
    // The reader among those who sit out is told so as "You".
    std::vector<std::string> others;
    bool mine = false;
    for (std::size_t at = 0; at <= t.sits_out().size();) {
      const auto end = std::min(t.sits_out().find(", ", at), t.sits_out().size());
      const std::string name = t.sits_out().substr(at, end - at);
      if (!me.empty() && name == me) mine = true;
      else others.push_back(name);
      at = end + 2;
    }
    std::string rest;
    for (std::size_t i = 0; i < others.size(); ++i) rest += (i > 0 ? ", " : "") + others[i];
    const std::string round = " out round " + std::to_string(t.round());
    if (!mine) s += rest + (others.size() == 1 ? " sits" : " sit") + round + ".\n";
    else s += "You sit" + round + (others.empty() ? "" : " (so " + std::string(others.size() == 1 ? "does " : "do ") + rest + ")") + ".\n";
  }
  if (t.status() == "playing" && !t.your_opponent().empty() && !withdrew) {
    s += "In round " + std::to_string(t.round()) + " you play " + t.your_opponent() + ".\n";
  }
  if (t.games_size()) s += "Games:\n";
  std::map<std::string, int> match_games;  // a knock-out's: each round's pair, its games so far
  for (const auto& g : t.games()) {
    s += "  " + g.game_id() + "  ";
    if (g.tournament_round() > 0) {
      s += "round " + std::to_string(g.tournament_round());
      // A match's third game is its deciding game (made when the two ended level).
      const std::string pair = std::to_string(g.tournament_round()) + " " + std::min(g.soviet(), g.german()) + " " + std::max(g.soviet(), g.german());
      if (t.knockout() && ++match_games[pair] == 3) s += ", deciding game";
      s += "  ";
    }
    s += g.soviet() + " (Soviet) against " + g.german() + " (German)  ";
    s += g.status() == "finished" ? g.result() : std::to_string(g.version()) + (g.version() == 1 ? " order played" : " orders played");
    s += "\n";
  }
  return s;
}

std::string tournament_end_notice(const wire::Tournament& t) {
  std::vector<std::string> first;
  for (const auto& s : t.standings()) {
    if (s.rank() == 1) first.push_back(s.player());
  }
  std::string winners;
  for (std::size_t i = 0; i < first.size(); ++i) {
    winners += (i == 0 ? "" : i + 1 == first.size() ? " and " : ", ") + first[i];
  }
  return "The tournament \"" + t.name() + "\" is over: " +
         (first.size() == 1 ? winners + " won" : winners + " share the first place") + "." +
         (t.end_reason().empty() ? "" : " " + t.end_reason()) +
         " The final standings: `tournament show " + t.tournament_id() + "`.";
}

std::string tournament_start_notice(const wire::Tournament& t, const std::string& me) {
  // The reader among those who sit out is told so as "You", the others by name.
  std::string others;
  int named = 0;
  bool mine = false;
  for (std::size_t at = 0; at < t.sits_out().size();) {
    const auto end = std::min(t.sits_out().find(", ", at), t.sits_out().size());
    const std::string name = t.sits_out().substr(at, end - at);
    if (!me.empty() && name == me) {
      mine = true;
    } else {
      others += (named++ > 0 ? ", " : "") + name;
    }
    at = end + 2;
  }
  const std::string show = (others.empty() ? "" : " (" + others + (named > 1 ? " sit" : " sits") + " out this round)") +
                           ": `tournament show " + t.tournament_id() + "`." +
                           (t.your_opponent().empty() ? "" : " You play " + t.your_opponent() + ", a game with each side.") +
                           (!mine ? "" : t.knockout() ? " You sit out this round and go through to the next."
                                                      : " You sit out this round, for 2 points.");
  if (t.rounds() > 0 && t.round() > 1) {
    // A knock-out's entrant who went out is told so, not only that the others play on.
    std::string out;
    for (const auto& e : t.standings()) {
      if (t.knockout() && e.player() == me && e.knocked_out() > 0 && !e.withdrawn()) {
        out = " You went out in round " + std::to_string(e.knocked_out()) + ", and play no more in it.";
      }
    }
    return "Round " + std::to_string(t.round()) + " of " + std::to_string(t.rounds()) + " of the tournament \"" + t.name() +
           "\" has begun" + show + out;
  }
  return "The tournament \"" + t.name() + "\" has started" + show + (t.rounds_reason().empty() ? "" : " " + t.rounds_reason());
}

std::string tournament_cancelled_notice(const wire::TournamentCancelled& c) {
  const bool started = c.tournament().started_unix() > 0;
  return "The tournament \"" + c.tournament().name() + "\" (" + c.tournament().tournament_id() + ") was cancelled" +
         (started ? " under way: its games still in play are aborted, with no rating change. "
                  : " before it started: none of its games will be played. ") +
         c.reason();
}

std::optional<wire::ClientMessage> new_game_request(const std::vector<std::string>& words, std::string* why) {
  auto refuse = [&](const std::string& text) -> std::optional<wire::ClientMessage> {
    if (why) *why = text;
    return std::nullopt;
  };
  auto side_of = [](const std::string& w) -> std::optional<wire::SideChoice> {
    if (w == "soviet") return wire::CHOOSE_SOVIET;
    if (w == "german") return wire::CHOOSE_GERMAN;
    if (w == "random") return wire::CHOOSE_RANDOM;
    return std::nullopt;
  };
  wire::ClientMessage m;
  auto* c = m.mutable_create_game();
  c->set_side(wire::CHOOSE_RANDOM);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    const bool has_value = i + 1 < words.size();
    if (w == "--side" && has_value) {
      const auto side = side_of(words[++i]);
      if (!side) return refuse("--side takes soviet, german or random.");
      c->set_side(*side);
    } else if ((w == "--time" && has_value) || w == "time") {
      // The shell's words are the flags without their dashes, as for opponent.
      const auto seconds = has_value ? parse_duration(words[++i]) : std::nullopt;
      if (!seconds) return refuse(w + " takes a number and a unit: 3d, 12h, 90m or 45s.");
      c->set_move_seconds(*seconds);
    } else if ((w == "--clock" && has_value) || w == "clock") {
      const auto clock = has_value ? parse_game_clock(words[++i]) : std::nullopt;
      if (!clock) return refuse(w + " takes the time for each player and the increment: 15m+10s, 1h or 15+10.");
      c->set_clock_seconds(clock->first);
      c->set_increment_seconds(clock->second);
    } else if (w == "--option" && has_value) {
      c->add_options(words[++i]);
    } else if (w == "opponent" || w == "--opponent") {
      if (!has_value || words[i + 1].empty()) return refuse(w + " takes the name of the player you challenge.");
      c->set_opponent(words[++i]);
    } else if (w == "private" || w == "--private") {
      c->set_private_(true);
    } else if (w == "casual" || w == "--casual") {
      c->set_casual(true);
    } else if (const auto side = side_of(w)) {
      c->set_side(*side);
    } else if (const auto seconds = parse_duration(w)) {
      c->set_move_seconds(*seconds);
    } else if (const auto clock = w.find('+') != std::string::npos ? parse_game_clock(w) : std::nullopt) {
      // 15m+10s alone is a game clock: a time per move has no increment.
      c->set_clock_seconds(clock->first);
      c->set_increment_seconds(clock->second);
    } else if (w.rfind("--", 0) == 0) {
      return refuse("Unknown or incomplete " + w + ".");
    } else {
      c->add_options(w);  // the server knows the optional rules and refuses the others
    }
  }
  return m;
}

std::string rating_text(const wire::Rating& r) {
  return std::to_string(r.rating()) + (r.provisional() ? "?" : "");
}

// "Cancelled (Cancelled by the operator: ...)" says the result twice: a reason that opens with it stands alone.
std::string result_and_reason(const std::string& result, const std::string& reason) {
  if (reason.empty()) return result;
  if (!result.empty() && reason.rfind(result + " ", 0) == 0) return reason;
  return result + " (" + reason + ")";
}

std::string seat_text(const wire::GameSummary& g, bool soviet) {
  const std::string& name = soviet ? g.soviet() : g.german();
  if (name.empty()) return g.status() == "open" ? "(open)" : "(nobody)";  // a game ended before anyone joined
  if (!(soviet ? g.has_soviet_rating() : g.has_german_rating())) return name;  // a server without ratings
  if (g.status() == "finished") {
    // What the game changed; the rating beside it would be today's, not the game's.
    // A game that moved no rating (ended before each side moved, withdrawn, casual) shows none.
    // (A server from before rating_counted: a change other than 0 moved a rating.)
    if (!g.rating_counted() && g.soviet_rating_change() == 0 && g.german_rating_change() == 0) return name;
    const int change = soviet ? g.soviet_rating_change() : g.german_rating_change();
    return name + " (" + (change >= 0 ? "+" : "") + std::to_string(change) + ")";
  }
  std::string s = name + " (" + rating_text(soviet ? g.soviet_rating() : g.german_rating());
  if (const auto away = soviet ? g.soviet_vacation_until() : g.german_vacation_until(); away > 0) {
    s += ", on vacation until " + utc_date(away);
  }
  return s + ")";
}

std::string rating_changes_text(const wire::GameEnded& e) {
  if (!e.rating_counted() && e.soviet_rating_change() == 0 && e.german_rating_change() == 0) {
    std::string why = e.unrated_reason();  // "not rated: ...", begun here as a sentence
    if (!why.empty() && why[0] >= 'a' && why[0] <= 'z') why[0] = static_cast<char>(why[0] - 'a' + 'A');
    return why;
  }
  const auto signed_text = [](int x) { return (x >= 0 ? "+" : "") + std::to_string(x); };
  return "Ratings: Soviet " + signed_text(e.soviet_rating_change()) + ", German " + signed_text(e.german_rating_change());
}

std::string other_game_ended_notice(const wire::GameEnded& e) {
  std::string text = "Game " + e.game_id() + " is over: " + end_sentence(result_with_reason(e.result(), e.reason()));
  if (const auto changes = rating_changes_text(e); !changes.empty()) text += " " + changes + ".";
  return text;
}

bool waits_for_you(const wire::GameSummary& g) {
  return g.status() == "playing" && !g.your_side().empty() &&
         g.to_decide() == (g.your_side() == "soviet" ? game::SOVIET : game::GERMAN);
}

static std::string terms_text(const wire::GameSummary& g) {
  std::string s;
  for (const auto& t : terms_of(g)) s += "  " + t;
  return s;
}

std::string game_line(const wire::GameSummary& g, const std::string& command) {
  std::string s = g.game_id() + "  " + g.status();
  // Your game in play: whether it waits for you, and what has happened since you last looked.
  if (g.status() == "playing" && !g.your_side().empty()) {
    if (waits_for_you(g)) s += "  YOUR MOVE";
    if (const auto unseen = g.version() - g.your_seen_version(); unseen > 0) {
      s += "  " + std::to_string(unseen) + (unseen == 1 ? " new order" : " new orders");
    }
  }
  s += "  Soviet: " + seat_text(g, true);
  s += "  German: " + seat_text(g, false);
  if (g.turn() > 0) s += "  turn " + std::to_string(g.turn());
  if (!g.your_side().empty()) s += "  you: " + g.your_side();
  if (g.status() == "playing" && g.to_decide() != game::SIDE_UNSPECIFIED) {
    s += "  to decide: " + std::string(g.to_decide() == game::SOVIET ? "soviet" : "german");
  }
  if (g.status() == "playing" && (g.draw_offered_by() == game::SOVIET || g.draw_offered_by() == game::GERMAN)) {
    s += "  draw offered by " + (g.draw_offered_by() == game::SOVIET ? g.soviet() : g.german());
  }
  if (g.private_()) s += g.invite_code().empty() ? "  private" : "  private, invite code " + g.invite_code();
  if (!g.reserved_for().empty() && !g.rematch_of().empty()) {
    s += "  rematch of " + g.rematch_of() + ", kept for " + g.reserved_for();
  } else if (!g.reserved_for().empty()) {
    // Your own seat empty: the challenge is made to you, by the one seated.
    const bool to_you = !g.your_side().empty() && (g.your_side() == "soviet" ? g.soviet() : g.german()).empty();
    if (to_you) {
      s += "  challenge from " + (g.soviet().empty() ? g.german() : g.soviet()) + ": " + command + "join " + g.game_id() +
           " to accept it, or decline it with " + command + "decline " + g.game_id();
    } else {
      s += "  challenge to " + g.reserved_for();
    }
  }
  s += terms_text(g);
  if (g.status() == "open" && g.expires_unix() > 0) s += "  open until " + utc_time(g.expires_unix());
  // Every end says why: the rules' end, a resignation, the time, a withdrawal, a decline, an abort.
  if (!g.result().empty()) s += "  " + result_and_reason(g.result(), g.result_reason());
  if (g.rated() && !g.unrated_reason().empty()) s += "  " + g.unrated_reason();  // rated, yet a side never moved
  return s;
}

std::optional<wire::ClientMessage> rating_request(const std::vector<std::string>& words, std::string* why) {
  wire::ClientMessage m;
  auto* r = m.mutable_get_rating();
  const std::string usage = "rating [NAME] [games N]: a player's rating, yours without NAME, with their last N rated games (10 unless given, at most 500)";
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "--games" || words[i] == "games") {
      int n = 0;
      if (i + 1 >= words.size() || !parse_int(words[i + 1], n) || n < 1 || n > 500) {
        if (why) *why = usage;
        return std::nullopt;
      }
      r->set_recent_games(n);
      ++i;
    } else if (words[i].rfind("-", 0) == 0 || !r->name().empty()) {
      if (why) *why = usage;
      return std::nullopt;
    } else {
      r->set_name(words[i]);
    }
  }
  return m;
}

std::string listed_game_line(const wire::GameSummary& g, const std::string& command) {
  std::string s = g.game_id() + "  Soviet: " + seat_text(g, true) + "  German: " + seat_text(g, false);
  s += "  " + (g.scenario().empty() ? std::string("counterattack") : g.scenario());
  if (g.status() == "finished") {
    s += "  " + result_and_reason(g.result(), g.result_reason());
    // The turn it ended on; none for a game that ended before the server stored it.
    s += (g.turn() > 0 ? ", turn " + std::to_string(g.turn()) : "") + ", version " + std::to_string(g.version());
  } else {
    s += "  " + (g.turn() > 0 ? "turn " + std::to_string(g.turn()) + ", " : "") + "version " + std::to_string(g.version());
    if (g.to_decide() == game::SOVIET || g.to_decide() == game::GERMAN) {
      s += "  to decide: " + std::string(g.to_decide() == game::SOVIET ? "soviet" : "german");
    }
    if (g.draw_offered_by() == game::SOVIET || g.draw_offered_by() == game::GERMAN) {
      s += "  draw offered by " + (g.draw_offered_by() == game::SOVIET ? g.soviet() : g.german());
    }
  }
  s += terms_text(g);
  if (g.rated() && !g.unrated_reason().empty()) s += "  " + g.unrated_reason();  // an unrated one's is in its terms
  if (g.status() == "finished") return s + "  replay: " + command + "replay " + g.game_id();
  return s + "  watch: " + command + "watch " + g.game_id();
}

std::string listed_games_name(wire::GameListKind kind) {
  return kind == wire::GAMES_IN_PLAY ? "games in play" : kind == wire::FINISHED_GAMES ? "finished games" : "open games";
}

std::optional<OpenGamesQuery> open_games_query(const std::vector<std::string>& words, std::string* why,
                                               wire::GameListKind kind) {
  OpenGamesQuery q;
  auto& f = q.filter;
  f.set_kind(kind);
  const bool open = kind == wire::OPEN_GAMES;
  const std::string usage =
      open ? "games open [scenario NAME] [rated|casual] [untimed|per-move|clock] [min-rating N] [max-rating N] "
             "[player NAME] [page N] [per-page N]: the open games waiting for an opponent, newest first"
      : kind == wire::GAMES_IN_PLAY
          ? "games playing [scenario NAME] [rated|casual] [untimed|per-move|clock] [player NAME] [page N] [per-page N]: "
            "the public games in play, newest first"
          : "games finished [scenario NAME] [rated|casual] [untimed|per-move|clock] [player NAME] [page N] [per-page N]: "
            "the public finished games, newest ended first";
  auto refuse = [&](const std::string& what) {
    if (why) *why = what.empty() ? usage : what + " " + usage;
    return std::nullopt;
  };
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string w = words[i];
    if (w.rfind("--", 0) == 0) w = w.substr(2);
    const bool has_value = i + 1 < words.size();
    int n = 0;
    if (w == "scenario") {
      if (!has_value) return refuse("A scenario needs its name.");
      f.set_scenario(words[++i]);
    } else if (w == "player") {
      if (!has_value) return refuse("A player needs their name.");
      f.set_player(words[++i]);
    } else if (!open && (w == "min-rating" || w == "max-rating")) {
      return refuse("Rating bounds choose among open games by their maker's rating.");
    } else if (w == "rated" || w == "casual") {
      const auto choice = w == "rated" ? wire::ONLY_RATED : wire::ONLY_CASUAL;
      if (f.rated() != wire::RATED_OR_CASUAL && f.rated() != choice) return refuse("Rated or casual, not both.");
      f.set_rated(choice);
    } else if (w == "untimed" || w == "per-move" || w == "clock" || w == "timing") {
      if (w == "timing") {
        if (!has_value) return refuse("A timing is untimed, per-move or clock.");
        w = words[++i];
      }
      const auto choice = w == "untimed" ? wire::ONLY_UNTIMED
                          : w == "per-move" ? wire::ONLY_TIME_PER_MOVE
                          : w == "clock"    ? wire::ONLY_GAME_CLOCK
                                            : wire::ANY_TIMING;
      if (choice == wire::ANY_TIMING) return refuse("A timing is untimed, per-move or clock, not '" + w + "'.");
      if (f.timing() != wire::ANY_TIMING && f.timing() != choice) return refuse("One timing at a time.");
      f.set_timing(choice);
    } else if (w == "min-rating" || w == "max-rating" || w == "page" || w == "per-page") {
      if (!has_value || !parse_int(words[i + 1], n) || n < (w == "page" || w == "per-page" ? 1 : 0)) {
        return refuse(w == "page" ? "A page is a number from 1." : w == "per-page" ? "A page holds 1 to 200 games."
                                                                                  : "A rating bound is a whole number.");
      }
      ++i;
      if (w == "min-rating") f.set_min_rating(n);
      else if (w == "max-rating") f.set_max_rating(n);
      else if (w == "per-page") f.set_page_size(n);
      else q.page = n;
    } else {
      return refuse("");
    }
  }
  return q;
}

std::optional<wire::GameList> open_games_page(Session& s, wire::ListGames filter, int page, std::string* why) {
  for (int n = 1;; ++n) {
    wire::ClientMessage m;
    *m.mutable_list_games() = filter;
    auto reply = s.call(m, why);
    if (!reply) return std::nullopt;
    if (n == page) return reply->game_list();
    if (reply->game_list().next_after().empty()) {
      if (why) {
        *why = (n == 1 ? "There is 1 page" : "There are " + std::to_string(n) + " pages") + " of " +
               listed_games_name(filter.kind()) + ", not " + std::to_string(page) + ".";
      }
      return std::nullopt;
    }
    filter.set_after(reply->game_list().next_after());
  }
}

std::string open_games_flags(const wire::ListGames& f) {
  std::string s;
  if (!f.player().empty()) s += " --player " + f.player();
  if (!f.scenario().empty()) s += " --scenario " + f.scenario();
  if (f.rated() == wire::ONLY_RATED) s += " --rated";
  if (f.rated() == wire::ONLY_CASUAL) s += " --casual";
  if (f.timing() == wire::ONLY_UNTIMED) s += " --timing untimed";
  if (f.timing() == wire::ONLY_TIME_PER_MOVE) s += " --timing per-move";
  if (f.timing() == wire::ONLY_GAME_CLOCK) s += " --timing clock";
  if (f.min_rating() > 0) s += " --min-rating " + std::to_string(f.min_rating());
  if (f.max_rating() > 0) s += " --max-rating " + std::to_string(f.max_rating());
  if (f.page_size() > 0) s += " --per-page " + std::to_string(f.page_size());
  return s;
}

std::optional<PlayerGames> player_games(Session& s, const wire::ListGames& filter, std::string* why) {
  PlayerGames out;
  out.filter = filter;
  out.filter.clear_kind();
  out.filter.clear_after();
  // Asked in the order a game moves on (open, in play, finished): one that moves on
  // between the requests may be in two lists, never in none; it is kept in the later.
  for (auto* list : {&out.open, &out.playing, &out.finished}) {
    auto asked = out.filter;
    asked.set_kind(list == &out.open ? wire::OPEN_GAMES : list == &out.playing ? wire::GAMES_IN_PLAY : wire::FINISHED_GAMES);
    auto page = open_games_page(s, asked, 1, why);
    if (!page) return std::nullopt;
    *list = std::move(*page);
  }
  std::set<std::string> later;
  for (auto* list : {&out.finished, &out.playing, &out.open}) {
    auto* games = list->mutable_games();
    games->erase(std::remove_if(games->begin(), games->end(), [&](const auto& g) { return later.count(g.game_id()) > 0; }),
                 games->end());
    for (const auto& g : list->games()) later.insert(g.game_id());
  }
  return out;
}

std::string player_games_text(const PlayerGames& games, const std::string& filters, const std::string& command,
                              const std::function<std::string(wire::GameListKind, const std::string&)>& more) {
  const std::string& name = games.filter.player();
  const std::string shown = filters.empty() ? "" : " (" + filters + ")";
  std::string t;
  for (const auto kind : {wire::OPEN_GAMES, wire::GAMES_IN_PLAY, wire::FINISHED_GAMES}) {
    const auto& list = kind == wire::OPEN_GAMES ? games.open : kind == wire::GAMES_IN_PLAY ? games.playing : games.finished;
    t += kind == wire::OPEN_GAMES     ? "Open games of " + name + shown + ":\n"
         : kind == wire::GAMES_IN_PLAY ? "Games in play of " + name + shown + ":\n"
                                       : "Finished games of " + name + shown + ", newest ended first:\n";
    if (list.games().empty()) t += filters.empty() ? "  none\n" : "  none such\n";
    for (const auto& g : list.games()) t += "  " + (kind == wire::OPEN_GAMES ? game_line(g) : listed_game_line(g, command)) + "\n";
    if (!list.next_after().empty()) t += more(kind, list.next_after()) + "\n";
  }
  return t;
}

std::optional<wire::ClientMessage> ratings_request(const std::vector<std::string>& words, std::string* why) {
  if (!words.empty()) {
    if (why) *why = "ratings: the rated players, best first";
    return std::nullopt;
  }
  wire::ClientMessage m;
  m.mutable_list_ratings();
  return m;
}


std::string describe_rating(const wire::PlayerRating& p) {
  const auto& r = p.rating();
  std::string s = p.name() + ": " + std::to_string(r.rating()) + " ±" + std::to_string(r.deviation()) +
                  (r.provisional() ? " (provisional)" : "") + "\n";
  if (p.games() == 0) return s + "No rated games yet.\n";
  s += "Rated games: " + std::to_string(p.games()) + " (" + std::to_string(p.wins()) + " won, " +
       std::to_string(p.draws()) + " drawn, " + std::to_string(p.losses()) + " lost)\n";
  if (p.rank() > 0)
    s += "Rank: " + std::to_string(p.rank()) + "\n";
  else if (r.provisional())
    s += "Rank: none while provisional\n";
  if (p.last_game_unix() > 0) s += "Last rated game: " + utc_date(p.last_game_unix()) + "\n";
  if (!p.recent().empty()) s += "Recent rated games, newest first:\n";
  for (const auto& g : p.recent()) {
    const std::string did = g.result() == "win" ? "won" : g.result() == "draw" ? "drew" : "lost";
    const std::string change = (g.change() >= 0 ? "+" : "") + std::to_string(g.change());
    s += "  " + utc_date(g.ended_unix()) + "  " + did + " as " + (g.side() == game::GERMAN ? "German" : "Soviet") +
         " against " + (g.opponent().empty() ? "(nobody)" : g.opponent()) + ": " + std::to_string(g.rating_after()) + " (" +
         change + "), game " + g.game_id() + "\n";
  }
  return s;
}

std::string ratings_table(const wire::RatingList& l) {
  if (l.players().empty()) return "Nobody has a rating yet: players are listed once a rated game of theirs has ended.\n";
  char row[160];
  // printf pads by bytes: "±", two bytes in one column, gets a width of 6 for 5 columns.
  std::snprintf(row, sizeof row, "%4s  %-24s %6s  %6s %6s  %s\n", "#", "player", "rating", "±", "games", "W/D/L");
  std::string s = row;
  for (const auto& p : l.players()) {
    const std::string rank = p.rank() > 0 ? std::to_string(p.rank()) : "-";
    const std::string wdl = std::to_string(p.wins()) + "/" + std::to_string(p.draws()) + "/" + std::to_string(p.losses());
    // The "?" of a provisional rating hangs after the digits, which stay in line.
    std::snprintf(row, sizeof row, "%4s  %-24s %6d%c %5d %6d  %s\n", rank.c_str(), p.name().c_str(), p.rating().rating(),
                  p.rating().provisional() ? '?' : ' ', p.rating().deviation(), p.games(), wdl.c_str());
    s += row;
  }
  return s + side_edge_text(l);
}

std::string side_edge_text(const wire::RatingList& l) {
  const std::string from =
      " (from " + std::to_string(l.edge_games()) + " rated game" + (l.edge_games() == 1 ? "" : "s") + ")";
  if (l.german_edge() == 0) return "Sides: neither is worth more than the other" + from + ".\n";
  const bool german = l.german_edge() > 0;
  return std::string("Sides: the ") + (german ? "German" : "Soviet") + " side is worth " +
         std::to_string(std::abs(l.german_edge())) + " rating points over the " + (german ? "Soviet" : "German") + from +
         "; a win with the " + (german ? "Soviet" : "German") + " side counts for more.\n";
}

}  // namespace counterattack::cli
