// The lobby: creating, listing and joining games, rematches, resignation and
// draws, and the clocks of timed games.
#include <sodium.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <future>
#include <limits>

#include "accounts.h"
#include "games.h"
#include "log.h"
#include "moderation.h"
#include "text.h"

namespace counterattack::server {
std::string random_code(std::size_t n) {
  static const char* alphabet = "abcdefghijkmnpqrstuvwxyz23456789";
  std::string out(n, 'a');
  for (auto& ch : out) ch = alphabet[randombytes_uniform(32)];
  return out;
}

std::string typed_code(std::string code) {
  for (auto& ch : code) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return code;
}

std::string join_options(const std::vector<std::string>& options) {
  std::string out;
  for (const auto& o : options) out += (out.empty() ? "" : ",") + o;
  return out;
}

std::vector<std::string> split_options(const std::string& joined) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start < joined.size();) {
    auto comma = joined.find(',', start);
    if (comma == std::string::npos) comma = joined.size();
    if (comma > start) out.push_back(joined.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// The open games a player made: all of them, or only their challenges.
static std::int64_t open_games_of(Db& db, std::int64_t creator, bool challenges_only) {
  auto& q = db.prepare(
      "SELECT COUNT(*) FROM games WHERE status = 'open' AND creator_id = ?1"
      " AND (?2 = 0 OR (reserved_for <> 0 AND rematch_of = ''))");
  q.bind_all(creator, challenges_only ? 1 : 0);
  std::int64_t n = 0;
  while (q.step()) n = q.integer(0);
  return n;
}

std::shared_ptr<const Ruleset> ruleset_of(const Rulesets& rulesets, const std::string& scenario, std::string* why) {
  if (auto it = rulesets.find(scenario); it != rulesets.end()) return it->second;
  std::string known;
  for (const auto& [name, r] : rulesets) known += (known.empty() ? "" : ", ") + name;
  *why = "Unknown scenario '" + scenario + "' (known: " + known + ").";
  return nullptr;
}

void GameService::create(const Caller& c, const wire::CreateGame& req) {
  if (req.opponent().empty()) {
    make_game(c, req, {});
    return;
  }
  const auto opponent = player_named(req.opponent());
  if (opponent.id == 0) return c.error(wire::NOT_FOUND, "There is no player '" + as_given(req.opponent()) + "'.");
  if (opponent.id == c.user_id) return c.error(wire::BAD_REQUEST, "You cannot challenge yourself.");
  // Only a challenge made counts: a place is held now and given back if it is refused (make_game's answer).
  const auto key = std::to_string(c.user_id);
  if (!challenges_by_user_.begin(key)) {
    return c.error(wire::RATE_LIMITED, "You have challenged players too often; wait an hour.");
  }
  // Made as any other, so that the challenger cannot tell that they are muted.
  if (!make_game(c, req, {"", opponent.id, opponent.name, moderation_.muted(opponent.id, c.user_id)})) {
    challenges_by_user_.end(key, false);
  }
}

void GameService::add_stored(wire::GameSummary& s, const StoredGame& r) const {
  s.set_game_id(r.id);
  s.set_scenario(r.scenario);
  for (const auto& o : split_options(r.options)) s.add_options(o);
  s.set_soviet(r.soviet);
  s.set_german(r.german);
  s.set_version(r.version);
  s.set_result(r.result);
  s.set_result_reason(r.reason);
  s.set_seed_commitment(r.commitment);
  s.set_move_seconds(r.move_seconds);
  s.set_clock_seconds(r.clock_seconds);
  s.set_increment_seconds(r.increment_seconds);
  s.set_tournament_id(r.tournament_id);
  s.set_tournament_round(r.round);
  add_ratings(s, r.scenario, r.user, r.rated, r.change, r.counted);
  s.set_unrated_reason(r.unrated_reason);
  s.set_turn(r.turn);
}

void GameService::get_scenario(const Caller& c, const wire::GetScenario& req) {
  std::string why;
  const auto rules = ruleset_of(rulesets_, req.name().empty() ? "counterattack" : req.name(), &why);
  if (!rules) return c.error(wire::NOT_FOUND, why);
  const auto data = rules->scenario_data();
  if (!data) return c.error(wire::INTERNAL, "The scenario's data cannot be read.");
  wire::ServerMessage m;
  *m.mutable_scenario_data() = *data;
  c.reply(std::move(m));
}

bool GameService::make_game(const Caller& c, const wire::CreateGame& req, const Reservation& r) {
  const std::string scenario = req.scenario().empty() ? "counterattack" : req.scenario();
  std::string why;
  const auto rules = ruleset_of(rulesets_, scenario, &why);
  if (!rules) return c.error(wire::BAD_REQUEST, why), false;
  std::vector<std::string> options(req.options().begin(), req.options().end());
  if (why = rules->check_options(options); !why.empty()) return c.error(wire::BAD_REQUEST, why), false;
  int side = 0;
  switch (req.side()) {
    case wire::CHOOSE_SOVIET: side = 0; break;
    case wire::CHOOSE_GERMAN: side = 1; break;
    case wire::CHOOSE_RANDOM:
    case wire::SIDE_CHOICE_UNSPECIFIED: side = static_cast<int>(randombytes_uniform(2)); break;
    default: return c.error(wire::BAD_REQUEST, "Unknown side choice."), false;
  }

  const std::int64_t move_seconds = req.move_seconds();
  const std::int64_t clock = req.clock_seconds(), increment = req.increment_seconds();
  if (why = check_time_terms(config_, move_seconds, clock, increment); !why.empty()) {
    return c.error(wire::BAD_REQUEST, why), false;
  }

  ratings_.warm(c.user_id, scenario);  // here, not in the syncer's callback that answers
  auto g = std::make_shared<Game>();
  g->scenario = scenario;
  g->move_seconds = move_seconds;
  g->clock_seconds = clock;
  g->increment_seconds = increment;
  g->clock_left[0] = g->clock_left[1] = g->committed_clock_left[0] = g->committed_clock_left[1] = clock;
  g->options = options;
  g->rules = rules;
  g->rules_revision = rules->latest_revision();
  g->rated = !req.casual();
  g->rematch_of = r.rematch_of;
  g->reserved_for = r.user;
  g->reserved_name = r.name;
  g->quiet_offer = r.quiet;
  randombytes_buf(g->seed.data(), g->seed.size());
  g->commitment = Accounts::sha256_hex(std::string_view(reinterpret_cast<const char*>(g->seed.data()), g->seed.size()));
  g->is_private = req.private_();
  if (g->is_private) g->invite = random_code(10);
  g->creator = c.user_id;
  g->user[side] = c.user_id;
  g->name[side] = c.name;
  g->created_unix = unix_now();
  std::vector<game::Event> setup;
  g->match = g->rules->create(options, g->seed, g->rules_revision, &setup);
  for (auto& e : setup) g->recent_events.emplace_back(0, std::move(e));
  for (int s = 0; s < 2; ++s) g->views[s] = g->match->seat_view(s == 0 ? game::VIEWER_SOVIET : game::VIEWER_GERMAN);
  g->committed_decider = g->match->decider();
  g->committed_turn = g->match->turn();
  {
    std::lock_guard lock(mu_);
    do g->id = random_code(10);
    while (games_.count(g->id));
    games_[g->id] = g;
  }
  std::lock_guard lock(g->mu);
  ++g->pending;
  // Why the write refused the game, when it did: told to the player as it is.
  auto refusal = std::make_shared<std::pair<wire::ErrorCode, std::string>>(wire::ERROR_UNSPECIFIED, "");
  storage_.write(
      [g, opts = join_options(options), refusal](Db& db) {
        auto refuse = [&](wire::ErrorCode code, std::string sentence) {
          *refusal = {code, std::move(sentence)};
          throw std::runtime_error(refusal->second);
        };
        // Checked in the write: an account closed or suspended a moment ago, on another
        // connection or by the operator, starts nothing.
        if (auto barred = Accounts::barred(db, g->creator); !barred.empty()) refuse(wire::UNAUTHENTICATED, barred);
        if (g->reserved_for != 0) {
          const auto standing = Accounts::standing(db, g->reserved_for);
          if (standing != Accounts::Standing::Active) {
            refuse(wire::CONFLICT, g->reserved_name +
                                       (standing == Accounts::Standing::Closed ? " has closed their account" : "'s account is suspended") +
                                       (g->challenge() ? ": they cannot be challenged." : ": no rematch can be offered."));
          }
        }
        if (g->challenge()) {
          if (open_games_of(db, g->creator, true) >= kChallengesWaiting) {
            refuse(wire::CONFLICT, "You have " + std::to_string(kChallengesWaiting) +
                                       " challenges waiting for an answer: withdraw one (Resign) first.");
          }
          // One challenge at a time to a player, and none for a day after they declined one.
          auto& earlier = db.prepare(
              "SELECT id, status, updated_unix FROM games WHERE creator_id = ? AND reserved_for = ? AND rematch_of = ''"
              " AND (status = 'open' OR (result = 'Declined' AND updated_unix > ?)) ORDER BY status = 'open' DESC LIMIT 1");
          earlier.bind_all(g->creator, g->reserved_for, g->created_unix - kChallengeAgainAfterDeclineSeconds);
          std::string earlier_id, earlier_status;
          std::int64_t declined_unix = 0;
          while (earlier.step()) {
            earlier_id = earlier.text(0);
            earlier_status = earlier.text(1);
            declined_unix = earlier.integer(2);
          }
          if (earlier_status == "open") {
            refuse(wire::CONFLICT, "Your challenge to " + g->reserved_name + " (" + earlier_id + ") is still waiting for an answer.");
          } else if (!earlier_id.empty()) {
            refuse(wire::CONFLICT, g->reserved_name + " declined your challenge less than a day ago: you may challenge them again from " +
                                       utc_minute(declined_unix + kChallengeAgainAfterDeclineSeconds) + ".");
          }
        }
        if (open_games_of(db, g->creator, false) >= kOpenGamesPerUser) {
          refuse(wire::CONFLICT, "You have " + std::to_string(kOpenGamesPerUser) +
                                     " games waiting for an opponent: withdraw one (Resign) first.");
        }
        db.prepare(
              "INSERT INTO games (id, scenario, options, seed, seed_commitment, creator_id, soviet_id, german_id, private,"
              " invite_code, status, created_unix, updated_unix, move_seconds, rated, clock_seconds, increment_seconds,"
              " soviet_left, german_left, rematch_of, reserved_for, rules_revision, offer_quiet)"
              " VALUES (?, ?, ?, ?, ?, ?, NULLIF(?, 0), NULLIF(?, 0), ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            .run(g->id, g->scenario, opts, Blob{std::string_view(reinterpret_cast<const char*>(g->seed.data()), g->seed.size())},
                 g->commitment, g->creator, g->user[0], g->user[1], g->is_private ? 1 : 0, g->invite, g->created_unix,
                 g->created_unix, g->move_seconds, g->rated ? 1 : 0, g->clock_seconds, g->increment_seconds,
                 g->clock_seconds, g->clock_seconds, g->rematch_of, g->reserved_for, g->rules_revision,
                 g->quiet_offer.value_or(false) ? 1 : 0);
      },
      [this, g, c, side, refusal](bool ok) {
        std::lock_guard l(g->mu);
        --g->pending;
        if (g->challenge()) challenges_by_user_.end(std::to_string(g->creator), ok);
        if (!ok) {
          forget(g);
          if (!g->rematch_of.empty()) {
            std::lock_guard map_lock(mu_);
            rematches_.erase(g->rematch_of);
          }
          if (refusal->first != wire::ERROR_UNSPECIFIED) return c.error(refusal->first, refusal->second);
          return c.error(wire::INTERNAL, "The game could not be stored.");
        }
        log::info("game created", {{"game", g->id}, {"by", c.name}, {"private", g->is_private ? "yes" : "no"},
                                   {"rematch_of", g->rematch_of}});
        if (!g->rematch_of.empty()) {  // found by the next Rematch, which may follow the answer at once
          std::lock_guard map_lock(mu_);
          rematches_[g->rematch_of] = g->id;
        }
        wire::ServerMessage m;
        auto* gc = m.mutable_game_created();
        *gc->mutable_game() = summary(*g, side);
        gc->set_invite_code(g->invite);
        c.reply(std::move(m));
        if (g->challenge() && !g->quiet_offer.value_or(false)) {
          wire::ServerMessage offer;
          auto* o = offer.mutable_challenge_offered();
          *o->mutable_game() = summary(*g, 1 - side);
          o->set_by(c.name);
          // Challenges come from anyone: a player who turned turn mail off is not mailed them.
          if (!tell_followers(g->reserved_for, encode(offer)) &&
              mailer_.turn_mail(g->reserved_for).mode != wire::TURN_MAIL_OFF) {
            mailer_.challenge_offered(g->reserved_for, *o);
          }
        } else if (!g->challenge() && g->reserved_for != 0) {
          wire::ServerMessage offer;
          auto* o = offer.mutable_rematch_offered();
          *o->mutable_game() = summary(*g, 1 - side);
          o->set_of_game_id(g->rematch_of);
          o->set_by(c.name);
          if (!tell_followers(g->reserved_for, encode(offer))) mailer_.rematch_offered(g->reserved_for, *o);
        }
      });
  return true;
}

namespace {
// A span of time as people say it, in its largest whole unit: "1 hour", "30 days", "90 seconds".
std::string span_words(std::int64_t seconds) {
  const std::pair<std::int64_t, const char*> units[] = {{86400, "day"}, {3600, "hour"}, {60, "minute"}, {1, "second"}};
  for (const auto& [size, name] : units) {
    if (seconds >= size && seconds % size == 0) {
      const auto n = seconds / size;
      return std::to_string(n) + " " + name + (n == 1 ? "" : "s");
    }
  }
  return std::to_string(seconds) + " seconds";
}

}  // namespace

std::string span_range(std::int64_t from, std::int64_t to) {
  return "from " + span_words(from) + " to " + span_words(to) + " (" + std::to_string(from) + " to " + std::to_string(to) +
         " seconds)";
}

std::string check_time_terms(const Config& config, std::int64_t move_seconds, std::int64_t clock, std::int64_t increment) {
  if (move_seconds != 0 && (move_seconds < config.min_move_seconds || move_seconds > config.max_move_seconds)) {
    return "The time per move is " + span_range(config.min_move_seconds, config.max_move_seconds) + ", or none (untimed).";
  }
  if (clock != 0 && move_seconds != 0) return "A game has a time per move or a game clock, not both.";
  if (clock != 0 && (clock < config.min_clock_seconds || clock > config.max_move_seconds)) {
    return "A game clock has " + span_range(config.min_clock_seconds, config.max_move_seconds) + " for each player.";
  }
  if (increment != 0 && (clock == 0 || increment < 0 || increment > config.max_move_seconds)) {
    return clock == 0 ? "An increment goes with a game clock."
                      : "An increment is from none to " + span_words(config.max_move_seconds) + ".";
  }
  return "";
}

void GameService::rematch(const Caller& c, const wire::Rematch& req) {
  auto old = find(req.game_id());
  if (!old) return no_such_game(c, req.game_id());
  // Finished games read to answer rest with the others afterwards, as if watched and left.
  struct Rest {
    GameService& service;
    std::vector<std::shared_ptr<Game>> games;
    ~Rest() {
      for (const auto& g : games) service.maybe_unload(g);
    }
  } rest{*this, {old}};
  wire::CreateGame terms;
  Reservation r;
  {
    std::lock_guard lock(old->mu);
    const int seat = old->side_of(c.user_id);
    if (seat < 0) {
      if (old->is_private) return no_such_game(c, req.game_id());
      return c.error(wire::FORBIDDEN, "Only a player of the game can ask for its rematch.");
    }
    if (old->status != Game::Status::Finished || old->pending > 0) {
      return c.error(wire::CONFLICT, "A rematch follows a finished game; this one is not over.");
    }
    if (!old->tournament_id.empty()) return c.error(wire::CONFLICT, "A tournament's game has no rematch.");
    if (old->user[1 - seat] == 0) return c.error(wire::CONFLICT, "This game had no opponent.");
    terms.set_scenario(old->scenario);
    for (const auto& o : old->options) terms.add_options(o);
    terms.set_side(seat == 0 ? wire::CHOOSE_GERMAN : wire::CHOOSE_SOVIET);  // the sides swapped
    terms.set_private_(old->is_private);
    terms.set_move_seconds(old->move_seconds);
    terms.set_clock_seconds(old->clock_seconds);
    terms.set_increment_seconds(old->increment_seconds);
    terms.set_casual(!old->rated);
    r = {old->id, old->user[1 - seat], old->name[1 - seat]};
  }
  if (req.decline()) return decline_rematch(c, r.rematch_of);
  // One rematch per game: an offer made already, by either player, is answered.
  std::optional<std::string> made;
  {
    std::lock_guard lock(mu_);
    if (auto it = rematches_.find(r.rematch_of); it != rematches_.end()) made = it->second;
  }
  if (!made) {
    auto stored = storage_.read([&](Db& db) {
      std::string id;
      auto& q = db.prepare(
          "SELECT id FROM games WHERE rematch_of = ? AND rematch_of <> '' AND NOT (status = 'finished' AND result = 'Cancelled')"
          " ORDER BY created_unix DESC LIMIT 1");
      q.bind_all(r.rematch_of);
      while (q.step()) id = q.text(0);
      return id;
    });
    std::lock_guard lock(mu_);
    auto [it, fresh] = rematches_.emplace(r.rematch_of, stored);
    if (!fresh || !stored.empty()) made = it->second;  // found, or asked for meanwhile
  }
  if (made && !made->empty()) {
    auto g = find(*made);
    if (g) {
      rest.games.push_back(g);
      std::unique_lock lock(g->mu);
      if (g->status == Game::Status::Open && g->reserved_for == c.user_id) {
        lock.unlock();
        wire::JoinGame accept;
        accept.set_game_id(g->id);
        accept.set_invite_code(g->invite);
        return join(c, accept);
      }
      if (g->status == Game::Status::Open) {
        return c.error(wire::CONFLICT, "You have offered a rematch already: game " + g->id + ", waiting for " +
                                           g->reserved_name + ".");
      }
      if (g->status == Game::Status::Finished && g->result == "Declined") {
        return c.error(wire::CONFLICT, "The rematch of this game, game " + g->id + ", was declined.");
      }
      const bool withdrawn = g->status == Game::Status::Finished && g->result == "Cancelled";
      if (!withdrawn) return c.error(wire::CONFLICT, "The rematch of this game is game " + g->id + ".");
    }
    // Withdrawn by the one who offered it (or not to be found): a new one may be offered.
    // No entry: forgotten once the withdrawal was stored, and nobody is making one.
    std::lock_guard lock(mu_);
    auto [entry, fresh] = rematches_.emplace(r.rematch_of, "");
    if (!fresh && entry->second != *made) return c.error(wire::CONFLICT, "A rematch of this game is being made; try again.");
    entry->second = "";
  } else if (made) {
    return c.error(wire::CONFLICT, "A rematch of this game is being made; try again.");
  }
  const bool allowed = rematch_offers_by_user_.take(std::to_string(c.user_id));
  if (!allowed || !make_game(c, terms, r)) {
    // Refused before anything was stored (too many offers, or the server's bounds have changed since): not being made.
    {
      std::lock_guard lock(mu_);
      if (auto it = rematches_.find(r.rematch_of); it != rematches_.end() && it->second.empty()) rematches_.erase(it);
    }
    if (!allowed) c.error(wire::RATE_LIMITED, "You have offered rematches too often; wait an hour.");
  }
}

void GameService::set_aside_games(std::int64_t user_id, const std::string& why) {
  // Reads and loading games are not for the thread that reports commits.
  post_([this, user_id, why] {
    const auto ids = storage_.read([&](Db& db) {
      std::vector<std::string> found;
      auto& q = db.prepare("SELECT id FROM games WHERE status = 'open' AND reserved_for = ?");
      q.bind_all(user_id);
      while (q.step()) found.push_back(q.text(0));
      return found;
    });
    for (const auto& id : ids) set_aside(id, user_id, why, false);
  });
}

bool GameService::set_aside(const std::string& game_id, std::int64_t user_id, const std::string& why, bool suspended) {
  {
    std::lock_guard lock(mu_);
    if (unloadable_.count(game_id)) return false;  // stays as stored, as every other write to it does
  }
  auto g = find(game_id);
  if (!g) return false;
  std::lock_guard lock(g->mu);
  if (g->pending > 0) return false;  // a write of it is under way: the suspension's next poll comes back to it
  if (g->status == Game::Status::Open && g->reserved_for == user_id) {
    // A closed account never answers: its rematch is declined for good. A suspended
    // player may come back, and the rematch may then be offered again.
    finish(g, std::nullopt, user_id, suspended ? "Cancelled" : "Declined", why, "decline");
  } else if (g->status == Game::Status::Open && g->creator == user_id && suspended) {
    // (An account is closed only once no game it made waits.)
    finish(g, std::nullopt, user_id, "Cancelled", why, "withdrawal", "", "its maker's account is suspended");
  } else if (g->status == Game::Status::Playing && suspended && g->side_of(user_id) >= 0) {
    finish(g, std::nullopt, user_id, g->side_of(user_id) == 0 ? "German victory" : "Soviet victory", why, "resignation");
  } else {
    return false;
  }
  return true;
}

GameService::OperatorEndOutcome GameService::end_by_operator(const std::string& game_id, const std::string& why) {
  auto unloadable = [&] {
    std::lock_guard lock(mu_);
    return unloadable_.count(game_id) > 0;
  };
  if (unloadable()) return end_unloadable(game_id, why);
  auto g = find(game_id);
  if (!g) return unloadable() ? end_unloadable(game_id, why) : OperatorEndOutcome::Later;
  std::lock_guard lock(g->mu);
  if (g->pending > 0 || g->broken) return OperatorEndOutcome::Later;  // the next poll comes back to it
  if (g->status == Game::Status::Open) {
    finish(g, std::nullopt, 0, "Cancelled", operator_end_text(true, why), "cancellation", "",
           operator_withdrawal_text(why));
  } else if (g->status == Game::Status::Playing) {
    finish(g, std::nullopt, 0, "Aborted", operator_end_text(false, why), "abort");
  } else {
    return OperatorEndOutcome::Later;
  }
  return OperatorEndOutcome::Ended;
}

void GameService::adjudicate(const Caller& c, const std::string& game_id, const std::string& result, const std::string& reason) {
  const std::string not_in_play = "Game " + game_id + " is not in play: only a game still being played may be decided.";
  {
    std::lock_guard lock(mu_);
    if (unloadable_.count(game_id)) return c.error(wire::CONFLICT, "Game " + game_id + " cannot be loaded; the operator looks into it.");
  }
  auto g = find(game_id);
  if (!g) return c.error(wire::CONFLICT, not_in_play);
  std::lock_guard lock(g->mu);
  if (g->status != Game::Status::Playing || g->broken) return c.error(wire::CONFLICT, not_in_play);
  if (g->pending > 0) return c.error(wire::CONFLICT, "A move of game " + game_id + " is being stored; try again.");
  // Not played out: as with the operator's abort, no rating moves.
  finish(g, c, c.user_id, result, reason, "decision", "not rated: decided by the organiser without being played out");
}

GameService::OperatorEndOutcome GameService::end_unloadable(const std::string& game_id, const std::string& why) {
  // Nothing is replayed: the row alone says it is over, and its log stays as stored for
  // the operator. An abort moves no rating and scores nothing in a tournament. Read and
  // ended in one write, so that a repeat, or a game that moved on meanwhile, ends nothing.
  // Told as when loaded: the player a challenge or rematch waited for, then its players.
  auto ended_in = std::make_shared<std::optional<std::string>>();  // once ended: its tournament ("": none)
  auto offer = std::make_shared<WithdrawnOffer>();
  auto ended = std::make_shared<wire::ServerMessage>();
  auto players = std::make_shared<std::array<std::int64_t, 2>>();
  auto names = std::make_shared<std::array<std::string, 2>>();
  storage_.write(
      [game_id, why, ended_in, offer, ended, players, names](Db& db) {
        auto& q = db.prepare(
            "SELECT g.status, g.tournament_id, g.reserved_for, g.creator_id, COALESCE(u.name, ''), g.rematch_of, g.offer_quiet,"
            " COALESCE(g.soviet_id, 0), COALESCE(g.german_id, 0), g.rated, COALESCE(s.name, ''), COALESCE(d.name, '')"
            " FROM games g LEFT JOIN users u ON u.id = g.creator_id LEFT JOIN users s ON s.id = g.soviet_id"
            " LEFT JOIN users d ON d.id = g.german_id WHERE g.id = ?");
        q.bind_all(game_id);
        std::string status, tournament_id;
        bool rated = false;
        while (q.step()) {
          status = q.text(0);
          tournament_id = q.text(1);
          *offer = WithdrawnOffer{game_id, q.text(4), q.text(5), q.integer(3), q.integer(2), std::nullopt};
          if (const auto quiet = q.integer(6); quiet >= 0) offer->quiet = quiet == 1;
          *players = {q.integer(7), q.integer(8)};
          rated = q.integer(9) != 0;
          *names = {q.text(10), q.text(11)};
        }
        if (status != "open" && status != "playing") return;
        const bool open = status == "open";
        if (!open) offer->kept_for = 0;  // begun: nothing waits to be withdrawn
        const std::string result = open ? "Cancelled" : "Aborted", reason = operator_end_text(open, why);
        const auto rating = store_end(db, game_id, result, reason, 0);  // its turn unread
        // As a loaded game's end says it, but with no seed: the log it would reveal cannot be read.
        *ended = game_ended_message(game_id, result, reason, rated, rating.unrated_reason);
        *ended_in = tournament_id;
      },
      [this, game_id, ended_in, offer, why, ended, players, names](bool ok) {
        if (!ok || !*ended_in) return;
        if (!(*ended_in)->empty() && tournament_game_end_) tournament_game_end_(**ended_in);
        tell_withdrawn(*offer, operator_withdrawal_text(why));
        // Nobody can watch it: each player's connections that follow turns are told, and a player
        // away is mailed, as for any game that ends, with why its log cannot be offered.
        const Frame frame = encode(*ended);
        const auto& [soviet, german] = *players;
        for (int seat = 0; seat < 2; ++seat) {
          const auto user = (*players)[static_cast<std::size_t>(seat)];
          if (user == 0 || (seat == 1 && user == soviet)) continue;
          if (!tell_followers(user, frame) && soviet != 0 && german != 0 && mailer_.has_address(user)) {
            // A game that never had an opponent is not worth a mail, as in tell_game_over.
            const auto& e = ended->game_ended();
            mailer_.unloadable_game_over(user, game_id, (*names)[static_cast<std::size_t>(seat)],
                                         (*names)[static_cast<std::size_t>(1 - seat)], e.result(), e.reason());
          }
        }
      });
  return OperatorEndOutcome::Unloadable;
}

void GameService::forget_rematch(const Game& g) {
  if (g.rematch_of.empty()) return;
  std::lock_guard lock(mu_);
  if (auto it = rematches_.find(g.rematch_of); it != rematches_.end() && it->second == g.id) rematches_.erase(it);
}

void GameService::decline_rematch(const Caller& c, const std::string& of) {
  const auto id = storage_.read([&](Db& db) {
    std::string found;
    auto& q = db.prepare("SELECT id FROM games WHERE rematch_of = ? AND rematch_of <> '' AND status = 'open' AND reserved_for = ?");
    q.bind_all(of, c.user_id);
    while (q.step()) found = q.text(0);
    return found;
  });
  auto g = id.empty() ? nullptr : find(id);
  if (!g) return c.error(wire::CONFLICT, "No rematch of game " + of + " waits for you.");
  std::lock_guard lock(g->mu);
  if (g->status != Game::Status::Open || g->reserved_for != c.user_id) {
    return c.error(wire::CONFLICT, "No rematch of game " + of + " waits for you.");
  }
  if (g->pending > 0) return c.error(wire::CONFLICT, "The game is not ready yet; try again.");
  finish(g, c, c.user_id, "Declined", c.name + " declined the rematch.", "decline");
}

void GameService::decline_challenge(const Caller& c, const wire::DeclineChallenge& req) {
  auto g = find(req.game_id());
  if (!g) return missing_game(c, req.game_id());
  std::lock_guard lock(g->mu);
  if (!g->visible_to(c.user_id) && g->reserved_for != c.user_id) return no_such_game(c, req.game_id());
  if (g->status != Game::Status::Open || g->reserved_for != c.user_id) {
    return c.error(wire::CONFLICT, "No challenge waits for you in game " + g->id + ".");
  }
  if (g->pending > 0) return c.error(wire::CONFLICT, "The game is not ready yet; try again.");
  finish(g, c, c.user_id, "Declined", c.name + (g->challenge() ? " declined the challenge." : " declined the rematch."), "decline");
}

namespace {
// The most games a page lists, and what an empty request gets, as before paging.
constexpr int kGamesPage = 200;
// Ratings a filter bounds: wider than any a player reaches.
constexpr int kMaxRatingBound = 9999;

// The list a cursor must come from, as a refusal names it.
std::string list_name(wire::GameListKind kind) {
  switch (kind) {
    case wire::GAMES_IN_PLAY: return "the list of games in play";
    case wire::FINISHED_GAMES: return "the finished games' list";
    default: return "the open games' list";
  }
}

// A page of the games in play or the finished ones, newest first by `order`
// (then by rowid), after the cursor (?1, ?2), filtered by scenario (?3), rated
// (?4) and timing (?5), at most ?6 rows; `where` chooses the games. Only games two
// players began: no private game, and no private tournament's (whose games are
// private too: checked again, as no list may ever show one).
std::string listed_games_sql(const std::string& columns, const std::string& where, const std::string& order) {
  return "SELECT " + columns +
         " FROM games g LEFT JOIN users s ON s.id = g.soviet_id LEFT JOIN users d ON d.id = g.german_id WHERE " + where +
         " AND g.soviet_id IS NOT NULL AND g.german_id IS NOT NULL"
         " AND (g.tournament_id = '' OR NOT EXISTS (SELECT 1 FROM tournaments t WHERE t.id = g.tournament_id AND t.private <> 0))"
         " AND (" + order + ", g.rowid) < (?1, ?2)"
         " AND (?3 = '' OR g.scenario = ?3)"
         " AND (?4 < 0 OR g.rated = ?4)"
         " AND (?5 = 0 OR (?5 = 1 AND g.move_seconds = 0 AND g.clock_seconds = 0) OR (?5 = 2 AND g.move_seconds > 0)"
         " OR (?5 = 3 AND g.clock_seconds > 0))"
         " ORDER BY " + order + " DESC, g.rowid DESC LIMIT ?6";
}

// What a finished game's row says of it to anyone: what a spectator's Watch shows, less what needs its replay.
constexpr const char* kFinishedColumns =
    "g.id, g.scenario, g.options, COALESCE(s.name, ''), COALESCE(d.name, ''), g.result, g.result_reason,"
    " g.seed_commitment, (SELECT COALESCE(MAX(version), 0) FROM orders o WHERE o.game_id = g.id), g.tournament_id,"
    " g.tournament_round, g.rated, g.soviet_id, g.german_id, g.move_seconds, g.clock_seconds, g.increment_seconds,"
    " g.unrated_reason, g.rematch_of, ";
}  // namespace

void GameService::list_games(const Caller& c, const wire::ListGames& req) {
  const int page = req.page_size() == 0 ? kGamesPage : req.page_size();
  if (page < 1 || page > kGamesPage) {
    return c.error(wire::BAD_REQUEST, "A page lists 1 to " + std::to_string(kGamesPage) + " games (0: " +
                                          std::to_string(kGamesPage) + ").");
  }
  if (!wire::GameListKind_IsValid(req.kind())) {
    return c.error(wire::BAD_REQUEST, "Unknown kind of list: open games, games in play or finished games.");
  }
  const auto kind = req.kind();
  std::string why;
  if (!req.scenario().empty() && !ruleset_of(rulesets_, req.scenario(), &why)) return c.error(wire::BAD_REQUEST, why);
  if (!wire::RatedChoice_IsValid(req.rated())) return c.error(wire::BAD_REQUEST, "Unknown choice of rated or casual games.");
  if (!wire::TimingChoice_IsValid(req.timing())) {
    return c.error(wire::BAD_REQUEST, "Unknown choice of timing (untimed, time per move or game clock).");
  }
  for (const int bound : {req.min_rating(), req.max_rating()}) {
    if (bound < 0 || bound > kMaxRatingBound) {
      return c.error(wire::BAD_REQUEST, "A rating bound is from 1 to " + std::to_string(kMaxRatingBound) + " (0: none), not " +
                                            std::to_string(bound) + ".");
    }
  }
  if (req.min_rating() > 0 && req.max_rating() > 0 && req.min_rating() > req.max_rating()) {
    return c.error(wire::BAD_REQUEST, "The least rating asked for (" + std::to_string(req.min_rating()) +
                                          ") is above the most (" + std::to_string(req.max_rating()) + ").");
  }
  if (kind != wire::OPEN_GAMES && (req.min_rating() > 0 || req.max_rating() > 0)) {
    return c.error(wire::BAD_REQUEST,
                   "Rating bounds choose among open games by their maker's rating, not among games in play or finished.");
  }
  if (!req.player().empty() && !Accounts::check_name(req.player()).empty()) {
    return c.error(wire::BAD_REQUEST, "'" + as_given(req.player()) +
                                          "' is not a player's name: a name has 3 to 24 letters, digits, '_' or '-'.");
  }
  const int rated = req.rated() == wire::ONLY_RATED ? 1 : req.rated() == wire::ONLY_CASUAL ? 0 : -1;
  const int timing = static_cast<int>(req.timing());
  const bool rating_bounded = req.min_rating() > 0 || req.max_rating() > 0;
  const int max_rating = req.max_rating() > 0 ? req.max_rating() : kMaxRatingBound;
  // A finished game is summarised from its row: replaying it to list it would cost too much.
  struct FinishedRow : StoredGame {
    std::string rematch_of;
  };
  struct Found {
    bool player_known = true, cursor_known = true;
    std::vector<std::string> ids;  // one more than the page: whether another follows
    std::vector<FinishedRow> finished;
  };
  const auto found = storage_.read([&](Db& db) {
    Found out;
    std::int64_t player = 0;
    if (!req.player().empty()) {
      auto& named = db.prepare("SELECT id FROM users WHERE name = ?");
      named.bind_all(req.player());
      while (named.step()) player = named.integer(0);
      out.player_known = player != 0;
      if (!out.player_known) return out;
    }
    // The cursor: a game that was on this list (joined, ended or not since). Its
    // place in the order stays; the first page starts after every game.
    std::int64_t after_key = std::numeric_limits<std::int64_t>::max(), after_row = std::numeric_limits<std::int64_t>::max();
    if (!req.after().empty()) {
      auto& at = db.prepare(
          kind == wire::OPEN_GAMES
              ? "SELECT created_unix, rowid FROM games WHERE id = ? AND private = 0 AND reserved_for = 0 AND tournament_id = ''"
          : kind == wire::GAMES_IN_PLAY
              ? "SELECT created_unix, rowid FROM games WHERE id = ? AND status <> 'open' AND private = 0"
                " AND soviet_id IS NOT NULL AND german_id IS NOT NULL"
              : "SELECT updated_unix, rowid FROM games WHERE id = ? AND status = 'finished' AND private = 0"
                " AND soviet_id IS NOT NULL AND german_id IS NOT NULL");
      at.bind_all(req.after());
      out.cursor_known = false;
      while (at.step()) {
        after_key = at.integer(0);
        after_row = at.integer(1);
        out.cursor_known = true;
      }
      if (!out.cursor_known) return out;
    }
    if (kind == wire::OPEN_GAMES) {
      // A creator without rated games in the scenario has the starting rating, as the summary shows.
      static const std::string sql =
          "SELECT g.id FROM games g WHERE g.status = 'open' AND g.private = 0 AND g.reserved_for = 0"
          " AND (g.created_unix, g.rowid) < (?1, ?2)"
          " AND (?3 = '' OR g.scenario = ?3)"
          " AND (?4 < 0 OR g.rated = ?4)"
          " AND (?5 = 0 OR (?5 = 1 AND g.move_seconds = 0 AND g.clock_seconds = 0) OR (?5 = 2 AND g.move_seconds > 0)"
          " OR (?5 = 3 AND g.clock_seconds > 0))"
          " AND (?6 = 0 OR COALESCE((SELECT ROUND(r.rating) FROM ratings r WHERE r.user_id = g.creator_id"
          " AND r.scenario = g.scenario), 1500) BETWEEN ?7 AND ?8)"
          " AND (?10 = 0 OR g.soviet_id = ?10 OR g.german_id = ?10)"
          " ORDER BY g.created_unix DESC, g.rowid DESC LIMIT ?9";
      auto& q = db.prepare(sql.c_str());
      q.bind_all(after_key, after_row, req.scenario(), rated, timing, rating_bounded ? 1 : 0, req.min_rating(), max_rating,
                 page + 1, player);
      while (q.step()) out.ids.push_back(q.text(0));
      return out;
    }
    // With a player, their games found by seat (the indexes on them) rather than
    // every game in the order scanned for theirs: "+" keeps the order's index out.
    static const std::string in_play = listed_games_sql("g.id", "g.status = 'playing' AND g.private = 0", "g.created_unix");
    static const std::string in_play_of = listed_games_sql(
        "g.id", "+g.status = 'playing' AND +g.private = 0 AND (g.soviet_id = ?7 OR g.german_id = ?7)", "g.created_unix");
    static const std::string finished = listed_games_sql(std::string(kFinishedColumns) + kRatingChangeColumns + ", g.end_turn",
                                                         "g.status = 'finished' AND g.private = 0", "g.updated_unix");
    static const std::string finished_of = listed_games_sql(
        std::string(kFinishedColumns) + kRatingChangeColumns + ", g.end_turn",
        "+g.status = 'finished' AND +g.private = 0 AND (g.soviet_id = ?7 OR g.german_id = ?7)", "g.updated_unix");
    const bool over = kind == wire::FINISHED_GAMES;
    auto& q = db.prepare((over ? (player ? finished_of : finished) : (player ? in_play_of : in_play)).c_str());
    if (player) {
      q.bind_all(after_key, after_row, req.scenario(), rated, timing, page + 1, player);
    } else {
      q.bind_all(after_key, after_row, req.scenario(), rated, timing, page + 1);
    }
    while (q.step()) {
      out.ids.push_back(q.text(0));
      if (!over) continue;
      out.finished.push_back(FinishedRow{
          {q.text(0), q.text(1), q.text(2), q.text(3), q.text(4), q.text(5), q.text(6), q.text(7), q.text(9), q.text(17),
           q.integer(8), {q.integer(12), q.integer(13)}, q.integer(14), q.integer(15), q.integer(16),
           static_cast<int>(q.integer(10)), {static_cast<int>(q.integer(19)), static_cast<int>(q.integer(20))},
           q.integer(11) != 0, q.integer(21) != 0, static_cast<int>(q.integer(22))},
          q.text(18)});
    }
    return out;
  });
  if (!found.player_known) return c.error(wire::NOT_FOUND, "There is no player '" + req.player() + "'.");
  if (!found.cursor_known) {
    return c.error(wire::BAD_REQUEST, "'" + as_given(req.after()) + "' is not a game of " + list_name(kind) +
                                          ": give the next_after of the page before.");
  }
  wire::ServerMessage m;
  auto* list = m.mutable_game_list();
  const std::size_t shown = std::min(found.ids.size(), static_cast<std::size_t>(page));
  for (std::size_t i = 0; i < shown; ++i) {
    if (kind == wire::FINISHED_GAMES) {
      const auto& r = found.finished[i];
      auto* s = list->add_games();
      add_stored(*s, r);
      s->set_status("finished");
      s->set_rematch_of(r.rematch_of);
      continue;
    }
    std::shared_ptr<Game> g;
    {
      std::lock_guard lock(mu_);
      if (auto it = games_.find(found.ids[i]); it != games_.end()) g = it->second;
      else if (unloadable_.count(found.ids[i])) continue;  // nobody can watch it either
    }
    if (!g) g = find(found.ids[i]);
    if (!g) continue;
    std::lock_guard lock(g->mu);
    // Joined, ended or withdrawn since it was read: not listed, and the next page still starts after it.
    if (kind == wire::OPEN_GAMES) {
      if (g->status == Game::Status::Open && !g->is_private && g->reserved_for == 0) {
        *list->add_games() = summary(*g, g->side_of(c.user_id));
      }
    } else if (g->status == Game::Status::Playing && !g->is_private) {
      *list->add_games() = summary(*g, -1);  // as a spectator sees it, even to its own player
    }
  }
  if (found.ids.size() > shown) list->set_next_after(found.ids[shown - 1]);
  c.reply(std::move(m));
}

void GameService::my_games(const Caller& c) {
  struct Row : StoredGame {
    std::string status;
    bool is_private;
    int side;
    std::int64_t seen;
  };
  const auto rows = storage_.read([&](Db& db) {
    std::vector<Row> out;
    static const std::string sql =
        "SELECT g.id, g.scenario, g.options, COALESCE(s.name, ''), COALESCE(d.name, ''), g.status, g.result,"
        " g.seed_commitment, g.private, (SELECT COALESCE(MAX(version), 0) FROM orders o WHERE o.game_id = g.id),"
        " CASE WHEN g.soviet_id = ?1 THEN 0 ELSE 1 END, g.tournament_id, g.rated, COALESCE(g.soviet_id, 0),"
        " COALESCE(g.german_id, 0), " + std::string(kRatingChangeColumns) + ", g.tournament_round," +
        " g.result_reason, g.move_seconds, g.clock_seconds, g.increment_seconds,"
        // What the caller was shown: recorded, or their own latest order (not a standing answer).
        " MAX(COALESCE((SELECT version FROM seen n WHERE n.game_id = g.id AND n.side = (CASE WHEN g.soviet_id = ?1"
        " THEN " + std::to_string(game::SOVIET) + " ELSE " + std::to_string(game::GERMAN) + " END)), 0),"
        // Read from the latest back, by the primary key: only the orders since the caller's last.
        " COALESCE((SELECT o.version FROM orders o WHERE o.game_id = g.id AND +o.side = (CASE WHEN g.soviet_id = ?1"
        " THEN " + std::to_string(game::SOVIET) + " ELSE " + std::to_string(game::GERMAN) + " END)"
        " AND o.idempotency_key NOT GLOB 'standing:*' ORDER BY o.version DESC LIMIT 1), 0)),"
        " g.unrated_reason, g.end_turn FROM games g LEFT JOIN users s ON s.id = g.soviet_id LEFT JOIN users d ON d.id = g.german_id"
        " WHERE g.soviet_id = ?1 OR g.german_id = ?1 OR (g.reserved_for = ?1 AND g.status = 'open')"
        // The games in play first, so that the newest 200 never crowd out one that waits for a move.
        " ORDER BY CASE g.status WHEN 'playing' THEN 0 WHEN 'open' THEN 1 ELSE 2 END, g.updated_unix DESC LIMIT 200";
    auto& q = db.prepare(sql.c_str());
    q.bind_all(c.user_id);
    while (q.step()) {
      out.push_back(Row{{q.text(0), q.text(1), q.text(2), q.text(3), q.text(4), q.text(6), q.text(19), q.text(7), q.text(11),
                         q.text(24), q.integer(9), {q.integer(13), q.integer(14)}, q.integer(20), q.integer(21), q.integer(22),
                         static_cast<int>(q.integer(18)), {static_cast<int>(q.integer(15)), static_cast<int>(q.integer(16))},
                         q.integer(12) != 0, q.integer(17) != 0, static_cast<int>(q.integer(25))},
                        q.text(5), q.integer(8) != 0, static_cast<int>(q.integer(10)), q.integer(23)});
    }
    return out;
  });
  wire::ServerMessage m;
  auto* list = m.mutable_game_list();
  for (const auto& r : rows) {
    std::shared_ptr<Game> g;
    {
      std::lock_guard lock(mu_);
      if (auto it = games_.find(r.id); it != games_.end()) g = it->second;
    }
    if (!g && r.status != "finished") g = find(r.id);
    if (g) {
      std::lock_guard lock(g->mu);
      int side = g->side_of(c.user_id);
      if (side < 0 && g->status == Game::Status::Open && g->reserved_for == c.user_id) side = g->user[0] == 0 ? 0 : 1;
      *list->add_games() = summary(*g, side);  // a rematch kept for you: the side you would play
      continue;
    }
    // A finished game not in memory: its row says enough.
    auto* s = list->add_games();
    add_stored(*s, r);
    s->set_status(r.status);
    s->set_private_(r.is_private);
    s->set_your_side(r.side == 0 ? "soviet" : "german");
    s->set_your_seen_version(std::min(r.seen, r.version));
  }
  c.reply(std::move(m));
}

void GameService::join(const Caller& c, const wire::JoinGame& req) {
  auto g = find(req.game_id());
  if (!g) return missing_game(c, req.game_id());
  ratings_.warm(c.user_id, g->scenario);  // here, not in the syncer's callback that answers
  std::lock_guard lock(g->mu);
  if (g->side_of(c.user_id) >= 0) return c.error(wire::CONFLICT, "You are already in this game.");
  // A challenge that never started is the two players' business: to others there is no such game.
  if (!g->visible_to(c.user_id) && g->challenge()) return no_such_game(c, req.game_id());
  // Before the reservation: whom a private game is kept for is for those with its code.
  // A private tournament's games have no code: no one joins them.
  if (g->is_private && (g->invite.empty() || typed_code(req.invite_code()) != g->invite) && g->reserved_for != c.user_id) {
    return c.error(wire::FORBIDDEN, req.invite_code().empty() || g->invite.empty()
                                        ? "This game is private: joining it needs its invite code."
                                        : "That is not this game's invite code; ask its maker, who can see it in their games.");
  }
  // A rematch accepted is begun like any other: its reservation speaks only while it is open.
  if (g->status == Game::Status::Playing) return c.error(wire::CONFLICT, "The game has already started: it can be watched, not joined.");
  if (g->status == Game::Status::Finished) return c.error(wire::CONFLICT, "The game is over.");
  if (!g->challenge() && g->reserved_for != 0 && g->reserved_for != c.user_id) {
    return c.error(wire::FORBIDDEN, "This game is a rematch kept for " + g->reserved_name + ".");
  }
  if (g->pending > 0) return c.error(wire::CONFLICT, "The game is not ready yet; try again.");
  const int seat = g->user[0] == 0 ? 0 : 1;
  // A spectator's stream on this connection, or another of the player's, would go on
  // showing the spectators' view and chat to a player: it ends, and a Watch now gives the player's seat.
  std::erase_if(g->subscribers, [&](const Game::Subscriber& s) {
    return s.peer_id == c.peer->peer_id() || s.user == c.user_id;
  });
  g->user[seat] = c.user_id;
  g->name[seat] = c.name;
  g->status = Game::Status::Playing;
  if (g->timed()) start_clock(*g, seat_of_side(g->match->decider()));  // the first player's
  ++g->pending;
  auto barred = std::make_shared<std::pair<wire::ErrorCode, std::string>>(wire::ERROR_UNSPECIFIED, "");
  storage_.write(
      [g, seat, uid = c.user_id, maker = g->user[1 - seat], deadline = g->deadline_unix, held = g->held_until, barred](Db& db) {
        // Checked in the write: an account closed or suspended a moment ago joins
        // nothing, and nobody joins the game of a maker suspended meanwhile.
        if (auto why = Accounts::barred(db, uid); !why.empty()) *barred = {wire::UNAUTHENTICATED, why};
        else if (maker != 0 && !Accounts::barred(db, maker).empty()) *barred = {wire::CONFLICT, "The game's maker can no longer play it."};
        if (!barred->second.empty()) throw std::runtime_error(barred->second);
        db.prepare(seat == 0 ? "UPDATE games SET soviet_id = ?, status = 'playing', deadline_unix = ?, held_until = ?, updated_unix = ? WHERE id = ? AND status = 'open'"
                             : "UPDATE games SET german_id = ?, status = 'playing', deadline_unix = ?, held_until = ?, updated_unix = ? WHERE id = ? AND status = 'open'")
            .run(uid, deadline, held, unix_now(), g->id);
        if (db.changes() != 1) throw std::runtime_error("game is not open");
      },
      [this, g, c, seat, barred](bool ok) {
        std::lock_guard l(g->mu);
        --g->pending;
        if (!ok) {
          g->user[seat] = 0;
          g->name[seat].clear();
          g->status = Game::Status::Open;
          g->deadline_unix = g->held_until = 0;
          g->draw_offer = g->committed_draw_offer = -1;  // one made meanwhile was not stored either
          if (!barred->second.empty()) return c.error(barred->first, barred->second);
          return c.error(wire::INTERNAL, "Joining could not be stored; try again.");
        }
        g->committed_deadline = g->deadline_unix;
        forget_rematch(*g);
        log::info("game started", {{"game", g->id}, {"soviet", g->name[0]}, {"german", g->name[1]}});
        wire::ServerMessage m;
        *m.mutable_game() = summary(*g, seat);
        c.reply(std::move(m));
        push_summary(*g);
        // The maker may be waiting in the lobby, or in another game.
        tell_elsewhere(*g, 1 - seat, [&] {
          wire::ServerMessage started;
          *started.mutable_game_started() = summary(*g, 1 - seat);
          return encode(started);
        });
        notify_turn(*g, game::SIDE_UNSPECIFIED);
      });
}

void GameService::end_game(Game& g, const std::string& result, const std::string& reason) {
  g.status = Game::Status::Finished;
  g.result = result;
  g.reason = reason;
  g.draw_offer = -1;
}

void GameService::resign(const Caller& c, const wire::Resign& req) {
  auto g = find(req.game_id());
  if (!g) return missing_game(c, req.game_id());
  std::lock_guard lock(g->mu);
  const int side = seat_of(c, *g, req.game_id(), "Only a player of this game can resign it.");
  if (side < 0) return;
  if (g->status == Game::Status::Finished) return c.error(wire::CONFLICT, "The game is over.");
  if (g->status == Game::Status::Open) {
    finish(g, c, c.user_id, "Cancelled", "The game was withdrawn before anyone joined.", "resignation", "",
           "withdrawn by its maker");
  } else {
    finish(g, c, c.user_id, side == 0 ? "German victory" : "Soviet victory",
                      side == 0 ? "The Soviet player resigned." : "The German player resigned.", "resignation");
  }
}

// Called with g->mu held. The end is announced once it is durable; if it cannot
// be stored, the game goes on as it was.
void GameService::finish(const std::shared_ptr<Game>& g, const std::optional<Caller>& c, std::int64_t actor,
                         const std::string& result, const std::string& reason, const std::string& what, const std::string& unrated,
                         const std::string& withdrawn) {
  const auto before = g->status;
  const int offer = g->draw_offer;
  const bool was_rated = g->rated;
  // Made unrated by its end (`unrated` says why): stored with the end, as a rated game's reason is.
  if (!unrated.empty()) g->rated = false;
  end_game(*g, result, reason);
  ++g->pending;
  auto rating = std::make_shared<Ratings::Outcome>();
  storage_.write(
      [g, result, reason, rating, unrated, turn = before == Game::Status::Open ? 0 : g->match->turn()](Db& db) {  // never begun: no turn
        if (!unrated.empty()) db.prepare("UPDATE games SET rated = 0, unrated_reason = ? WHERE id = ?").run(unrated, g->id);
        *rating = store_end(db, g->id, result, reason, turn);
        if (!unrated.empty()) rating->unrated_reason = unrated;
      },
      [this, g, c, actor, before, offer, what, rating, was_rated, withdrawn](bool ok) {
        std::lock_guard l(g->mu);
        --g->pending;
        if (!ok) {
          g->rated = was_rated;
          g->status = before;
          g->draw_offer = offer;
          g->result.clear();
          g->reason.clear();
          if (c) c->error(wire::INTERNAL, "The " + what + " could not be stored; try again.");
          return;
        }
        ended_durably(*g, *rating);
        forget_rematch(*g);
        log::info("game finished", {{"game", g->id}, {"result", g->result}, {"reason", g->reason}});
        if (c) c->ok();
        // Before its end: a client that has the offer open tells the two as one, in the withdrawal's words.
        if (!withdrawn.empty() && before == Game::Status::Open) tell_withdrawn(*g, withdrawn);
        tell_game_over(*g, actor);
        broadcast(*g, game_ended_frame(*g));
      });
}

void GameService::tell_withdrawn(const Game& g, const std::string& why) {
  const int seat = g.side_of(g.creator);
  tell_withdrawn(WithdrawnOffer{g.id, seat >= 0 ? g.name[seat] : "", g.rematch_of, g.creator, g.reserved_for, g.quiet_offer}, why);
}

void GameService::tell_withdrawn(const WithdrawnOffer& o, const std::string& why) {
  if (o.kept_for == 0) return;
  // A challenge from a player its player muted was never told; its end is not either.
  if (o.of_game_id.empty() && o.quiet.value_or(moderation_.muted(o.kept_for, o.maker))) return;
  wire::ServerMessage m;
  auto* w = m.mutable_challenge_withdrawn();
  w->set_game_id(o.game_id);
  w->set_by(o.by);
  w->set_reason(why);
  w->set_of_game_id(o.of_game_id);
  tell_followers(o.kept_for, encode(m));  // no mail: nothing waits for them any more
}

Ratings::Outcome GameService::store_end(Db& db, const std::string& id, const std::string& result,
                                        const std::string& reason, int turn) {
  db.prepare("UPDATE games SET status = 'finished', result = ?, result_reason = ?, end_turn = ?, deadline_unix = 0,"
             " draw_offer = -1, updated_unix = ? WHERE id = ?")
      .run(result, reason, turn, unix_now(), id);
  return Ratings::record(db, id);
}

void GameService::ended_durably(Game& g, const Ratings::Outcome& rating) {
  if (const auto& change = rating.change) {
    ratings_.committed(*change);
    g.rating_change[0] = change->change[0];
    g.rating_change[1] = change->change[1];
    g.rating_counted = true;
  }
  g.unrated_reason = rating.unrated_reason;
  if (!g.tournament_id.empty() && tournament_game_end_) tournament_game_end_(g.tournament_id);
}

bool GameService::overdue(const Game& g) {
  return g.status == Game::Status::Playing && !g.broken && g.deadline_unix > 0 && unix_now() >= g.deadline_unix;
}

void GameService::end_on_time(const std::shared_ptr<Game>& g, std::int64_t actor) {
  if (g->pending > 0) return;  // the clock looks again in a second
  const game::Side late = g->match->decider();
  if (late != game::SOVIET && late != game::GERMAN) return;
  const bool soviet = late == game::SOVIET;
  if (!g->played[seat_of_side(late)] && g->tournament_id.empty()) {
    // A game whose player never came to it: aborted, as if never played, not lost.
    // (A tournament's game counts: its standings need a result.)
    finish(g, std::nullopt, actor, "Aborted",
           std::string(soviet ? "The Soviet" : "The German") +
               " player made no first move before their time ran out: the game is aborted, and no rating changes.",
           "abort");
    return;
  }
  finish(g, std::nullopt, actor, soviet ? "German victory" : "Soviet victory",
         soviet ? "The Soviet player ran out of time." : "The German player ran out of time.", "time-out");
}

void GameService::resume_clocks() {
  std::promise<std::pair<std::int64_t, std::int64_t>> done;  // seconds down, clocks moved
  auto given = std::make_shared<std::pair<std::int64_t, std::int64_t>>(0, 0);
  storage_.write(
      [given](Db& db) {
        const auto now = unix_now();
        auto& q = db.prepare("SELECT alive_unix FROM server_state WHERE id = 1");
        q.bind_all();
        std::int64_t alive = 0;
        while (q.step()) alive = q.integer(0);
        if (alive > 0 && now > alive) {
          // What ran of each clock while the server was down: not while a vacation held it,
          // nor, for a time per move, before the deadline was set. A game clock gets back
          // at most what it holds, a time per move all of it, as a game played over days
          // must not be lost to a night the server was down.
          db.prepare(
                "UPDATE games SET deadline_unix = deadline_unix + CASE WHEN clock_seconds > 0"
                " THEN MIN(?2 - MAX(?1, held_until), clock_seconds)"
                " ELSE ?2 - MAX(?1, held_until, deadline_unix - move_seconds) END"
                " WHERE status = 'playing' AND (clock_seconds > 0 OR move_seconds > 0) AND deadline_unix > 0"
                " AND ?2 > CASE WHEN clock_seconds > 0 THEN MAX(?1, held_until)"
                " ELSE MAX(?1, held_until, deadline_unix - move_seconds) END")
              .run(alive, now);
          *given = {now - alive, db.changes()};
        }
        db.prepare("UPDATE server_state SET alive_unix = ? WHERE id = 1").run(now);
      },
      [&done, given](bool ok) { done.set_value(ok ? *given : std::make_pair(std::int64_t{0}, std::int64_t{0})); });
  const auto [down, moved] = done.get_future().get();
  if (moved > 0) {
    log::info("game clocks and times per move given back the time the server was down",
              {{"seconds", down}, {"clocks", moved}});
  }
}

void GameService::beat() { note_alive(); }

void GameService::note_alive() {
  const auto connections = static_cast<std::int64_t>(connections_ ? connections_() : 0);
  std::int64_t held = 0;
  {
    std::lock_guard lock(mu_);
    held = static_cast<std::int64_t>(games_.size());
  }
  storage_.write(
      [now = unix_now(), connections, held, dropped = mailer_.dropped()](Db& db) {
        db.prepare("UPDATE server_state SET alive_unix = ?, connections = ?, games_in_memory = ?, mail_dropped = ? WHERE id = 1")
            .run(now, connections, held, dropped);
      },
      [](bool) {});
}

bool GameService::expired(const Game& g) const {
  const auto expiry = config_.open_game_expiry_seconds;
  return expiry > 0 && g.status == Game::Status::Open && g.tournament_id.empty() && unix_now() >= g.created_unix + expiry;
}

void GameService::expire_overdue(bool sweep) {
  std::vector<std::shared_ptr<Game>> timed, old_enough;
  const auto expiry = config_.open_game_expiry_seconds;
  const auto now = unix_now();
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, g] : games_) {
      // Both fixed at creation (or loading): read without the game's lock.
      if (g->timed()) timed.push_back(g);
      if (expiry > 0 && g->created_unix + expiry <= now) old_enough.push_back(g);
    }
  }
  // Every open game is in memory (loaded at the start, kept until it ends).
  for (const auto& g : old_enough) {
    std::lock_guard lock(g->mu);
    if (!expired(*g) || g->pending > 0 || g->broken) continue;  // a join being stored: the next second judges it
    // Withdrawn as its maker withdraws it; its maker reads why in their games, and is sent nothing.
    const std::string within = span_words(expiry);
    finish(g, std::nullopt, g->creator, "Cancelled",
           g->challenge()         ? g->reserved_name + " did not answer the challenge within " + within + ": the server withdrew it."
           : g->reserved_for != 0 ? g->reserved_name + " did not take up the rematch within " + within + ": the server withdrew it."
                                  : "Nobody joined within " + within + ": the server withdrew the game.",
           "withdrawal", "", "lapsed unanswered");
  }
  if (sweep) {
    const auto overdue = storage_.read([](Db& db) {
      std::vector<std::string> ids;
      auto& q = db.prepare("SELECT id FROM games WHERE status = 'playing' AND deadline_unix BETWEEN 1 AND ?");
      q.bind_all(unix_now());
      while (q.step()) ids.push_back(q.text(0));
      return ids;
    });
    for (const auto& id : overdue) {
      std::lock_guard lock(mu_);
      if (games_.count(id) || unloadable_.count(id)) continue;
      post_([this, id] {  // loaded on a network thread; the next call judges it
        if (find(id)) return;
        std::lock_guard l(mu_);
        unloadable_.insert(id);
      });
    }
  }
  // Noted each second while a timed game in memory is played, and at each sweep for
  // those out of memory: a restart gives back the time from the last note.
  bool clock_runs = sweep;
  for (const auto& g : timed) {
    std::lock_guard lock(g->mu);
    clock_runs = clock_runs || g->status == Game::Status::Playing;
    if (overdue(*g)) {
      end_on_time(g, 0);
    } else {
      remind_if_late(*g);
    }
  }
  if (clock_runs) note_alive();
}

void GameService::offer_draw(const Caller& c, const wire::OfferDraw& req) {
  auto g = find(req.game_id());
  if (!g) return missing_game(c, req.game_id());
  std::lock_guard lock(g->mu);
  const int side = seat_of(c, *g, req.game_id(), "Only a player of this game can offer a draw.");
  if (side < 0) return;
  if (g->status != Game::Status::Playing) return c.error(wire::CONFLICT, "Draws are offered while the game is played.");
  if (g->broken) return c.error(wire::INTERNAL, "The game is being read again; try again.");
  if (g->draw_offer == side) return c.error(wire::CONFLICT, "You have already offered a draw.");
  if (g->draw_offer == 1 - side) return c.error(wire::CONFLICT, "Your opponent has offered a draw: answer it.");
  const int turn = g->match->turn();
  if (g->offered_in_turn[side] == turn) {
    return c.error(wire::CONFLICT, "You have offered a draw this turn already; offer again from turn " +
                                       std::to_string(turn + 1) + ".");
  }
  const int offered_before = g->offered_in_turn[side];
  g->offered_in_turn[side] = turn;
  g->draw_offer = side;
  store_draw_offer(g, c, -1, [this, g, side, offered_before](bool stored) {
    if (!stored) {
      g->offered_in_turn[side] = offered_before;  // not made: it may be made again
      return;
    }
    wire::ServerMessage m;
    m.mutable_draw_offered()->set_game_id(g->id);
    m.mutable_draw_offered()->set_by(g->name[side]);
    broadcast(*g, encode(m));
  });
}

// Called with g->mu held, the offer already changed from `before`. The change is
// told, and answered, once it is durable; if it cannot be stored, it is undone.
void GameService::store_draw_offer(const std::shared_ptr<Game>& g, const Caller& c, int before,
                                   std::function<void(bool stored)> tell) {
  const int now = g->draw_offer;
  // The turns of the last offers go with it, so that one a turn holds over a restart.
  const int offered_soviet = g->offered_in_turn[0], offered_german = g->offered_in_turn[1];
  ++g->pending;
  storage_.write(
      [g, now, offered_soviet, offered_german](Db& db) {
        // Not over a lost order, nor on a game whose start (a join) did not store.
        if (g->broken) throw std::runtime_error("game " + g->id + " is being reloaded");
        db.prepare("UPDATE games SET draw_offer = ?, soviet_offered_turn = ?, german_offered_turn = ?"
                   " WHERE id = ? AND status = 'playing'")
            .run(now, offered_soviet, offered_german, g->id);
        if (db.changes() != 1) throw std::runtime_error("game " + g->id + " is not being played");
      },
      [this, g, c, before, now, tell = std::move(tell)](bool ok) {
        std::lock_guard l(g->mu);
        --g->pending;
        if (!ok) {
          if (g->draw_offer == now) g->draw_offer = before;
          tell(false);
          return c.error(wire::INTERNAL, "The draw offer could not be stored; try again.");
        }
        g->committed_draw_offer = now;
        tell(true);
        push_summary(*g);  // a watcher who missed the push sees the offer in the summary
        c.ok();
      });
}

void GameService::answer_draw(const Caller& c, const wire::AnswerDraw& req) {
  auto g = find(req.game_id());
  if (!g) return missing_game(c, req.game_id());
  std::lock_guard lock(g->mu);
  const int side = seat_of(c, *g, req.game_id(), "Only a player of this game can answer a draw offer.");
  if (side < 0) return;
  // Only an offer stored and told can be answered.
  if (g->status != Game::Status::Playing || g->draw_offer != 1 - side || g->committed_draw_offer != 1 - side) {
    return c.error(wire::CONFLICT, "No draw is offered to you.");
  }
  if (g->broken) return c.error(wire::INTERNAL, "The game is being read again; try again.");
  if (!req.accept()) {
    const int offer = g->draw_offer;
    g->draw_offer = -1;
    return store_draw_offer(g, c, offer, [this, g, side](bool stored) {
      if (!stored) return;
      wire::ServerMessage m;
      m.mutable_draw_declined()->set_game_id(g->id);
      m.mutable_draw_declined()->set_by(g->name[side]);
      broadcast(*g, encode(m));
    });
  }
  finish(g, c, c.user_id, "Draw", "The players agreed a draw.", "draw");
}

}  // namespace counterattack::server
