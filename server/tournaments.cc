// Tournaments: entry, the start that creates every game of a round robin (or
// the first round of a Swiss or a knock-out) in one transaction, a Swiss's later
// rounds paired from the standings, a knock-out's from its bracket, and
// standings read from the games' results.
#include "tournaments.h"

#include <sodium.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "accounts.h"
#include "glicko2.h"
#include "log.h"
#include "ratings.h"
#include "moderation.h"
#include "text.h"

namespace counterattack::server {
namespace {

constexpr std::size_t kMinName = 3, kMaxName = 60;

// "" when a tournament name may be used. Printable ASCII only: it goes into
// mail subjects as it is, and every client can show it.
std::string check_name(const std::string& name) {
  if (name.size() < kMinName || name.size() > kMaxName) {
    return "A tournament's name has " + std::to_string(kMinName) + " to " + std::to_string(kMaxName) + " characters.";
  }
  if (!std::all_of(name.begin(), name.end(), [](char ch) { return ch >= 0x20 && ch <= 0x7e; })) {
    return "A tournament's name has letters, digits, spaces and punctuation of plain ASCII only.";
  }
  if (name.front() == ' ' || name.back() == ' ') return "A tournament's name does not begin or end with a space.";
  return "";
}

void no_such_tournament(const Caller& c, const std::string& id) {
  c.error(wire::NOT_FOUND, "There is no tournament '" + as_given(id) + "'.");
}

bool bad_id(const std::string& id) { return id.empty() || id.size() > 64; }

constexpr double kByePoints = 2.0;

// What every game of a tournament is made with.
struct GameTerms {
  std::string scenario, options;
  std::int64_t seconds = 0, organiser = 0, clock = 0, increment = 0;
  bool priv = false, knockout = false;
  int rounds = 0, revision = 1;
};

GameTerms terms_of(Db& db, const std::string& id) {
  GameTerms t;
  auto& q = db.prepare(
      "SELECT scenario, options, move_seconds, private, organiser_id, rounds, clock_seconds, increment_seconds,"
      " knockout, rules_revision FROM tournaments WHERE id = ?");
  q.bind_all(id);
  while (q.step()) {
    t.scenario = q.text(0);
    t.options = q.text(1);
    t.seconds = q.integer(2);
    t.priv = q.integer(3) != 0;
    t.organiser = q.integer(4);
    t.rounds = static_cast<int>(q.integer(5));
    t.clock = q.integer(6);
    t.increment = q.integer(7);
    t.knockout = q.integer(8) != 0;
    t.revision = static_cast<int>(q.integer(9));
  }
  return t;
}

// A tournament game, under way from now; its id.
std::string insert_game(Db& db, const std::string& id, const GameTerms& t, std::int64_t soviet, std::int64_t german,
                        int round) {
  Seed seed;
  randombytes_buf(seed.data(), seed.size());
  const std::string_view bytes(reinterpret_cast<const char*>(seed.data()), seed.size());
  const std::string game_id = random_code(10);
  const auto now = unix_now();
  db.prepare(
        "INSERT INTO games (id, scenario, options, seed, seed_commitment, creator_id, soviet_id, german_id, private,"
        " invite_code, status, created_unix, updated_unix, move_seconds, deadline_unix, tournament_id, rated,"
        " tournament_round, clock_seconds, increment_seconds, soviet_left, german_left, rules_revision)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', 'playing', ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)")
      .run(game_id, t.scenario, t.options, Blob{bytes}, Accounts::sha256_hex(bytes), t.organiser, soviet, german,
           t.priv ? 1 : 0, now, now, t.seconds, now + t.seconds + t.clock, id, round, t.clock, t.increment, t.clock,
           t.clock, t.revision);
  return game_id;
}

// A finished game's score for the Soviet player: 1, 0.5, 0; nothing for a result that is none of these.
std::optional<double> soviet_score(const wire::GameSummary& g) {
  if (g.status() != "finished") return std::nullopt;
  if (g.result() == "Soviet victory") return 1.0;
  if (g.result() == "German victory") return 0.0;
  if (g.result() == "Draw") return 0.5;
  return std::nullopt;
}

// A knock-out's standings: those still in (and the winner) first, then by the
// round they went out in, the later the better; on points within each.
void knockout_ranks(std::vector<wire::Standing>& out, const std::map<std::string, int>& out_in_round) {
  auto went_out = [&](const wire::Standing& s) {
    auto it = out_in_round.find(s.player());
    return it == out_in_round.end() || it->second == 0 ? INT32_MAX : it->second;
  };
  for (auto& s : out) {
    if (auto it = out_in_round.find(s.player()); it != out_in_round.end()) s.set_knocked_out(it->second);
  }
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return went_out(a) > went_out(b); });
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool level = i > 0 && went_out(out[i]) == went_out(out[i - 1]);
    out[i].set_rank(level ? out[i - 1].rank() : static_cast<int>(i + 1));
  }
}

}  // namespace

std::string swiss_rounds_reason(int rounds, int set, int entrants) {
  return "It plays " + std::to_string(rounds) + (rounds == 1 ? " round" : " rounds") + ", not the " + std::to_string(set) +
         " set: " + std::to_string(entrants) + " entrants cannot play more without meeting twice.";
}

std::string swiss_cut_reason(int round, int rounds) {
  return "It ended after round " + std::to_string(round) + " of " + std::to_string(rounds) +
         ": no further round could be paired, as fewer than two entrants who have not withdrawn are left.";
}

std::vector<wire::Standing> standings(const std::vector<std::string>& entrants,
                                      const std::vector<wire::GameSummary>& games,
                                      const std::map<std::string, int>& byes) {
  std::map<std::string, std::size_t> index;
  std::vector<wire::Standing> out(entrants.size());
  for (std::size_t i = 0; i < entrants.size(); ++i) {
    index[entrants[i]] = i;
    out[i].set_player(entrants[i]);
    // A bye is worth what a round's two games won are.
    if (auto b = byes.find(entrants[i]); b != byes.end()) {
      out[i].set_byes(b->second);
      out[i].set_points(kByePoints * b->second);
    }
  }
  struct Scored {
    std::size_t soviet, german;
    double soviet_score;
  };
  std::vector<Scored> scored;
  for (const auto& g : games) {
    auto s = index.find(g.soviet()), d = index.find(g.german());
    if (s == index.end() || d == index.end()) continue;
    auto& a = out[s->second];
    auto& b = out[d->second];
    const auto score = soviet_score(g);
    if (g.status() != "finished") {
      a.set_to_play(a.to_play() + 1);
      b.set_to_play(b.to_play() + 1);
    }
    if (!score) continue;
    scored.push_back({s->second, d->second, *score});
    auto tally = [](wire::Standing& x, double points) {
      x.set_points(x.points() + points);
      if (points == 1.0) x.set_won(x.won() + 1);
      if (points == 0.5) x.set_drawn(x.drawn() + 1);
      if (points == 0.0) x.set_lost(x.lost() + 1);
    };
    tally(a, *score);
    tally(b, 1.0 - *score);
  }
  // Sonneborn-Berger, from everyone's points so far.
  for (const auto& x : scored) {
    auto& a = out[x.soviet];
    auto& b = out[x.german];
    a.set_tiebreak(a.tiebreak() + x.soviet_score * out[x.german].points());
    b.set_tiebreak(b.tiebreak() + (1.0 - x.soviet_score) * out[x.soviet].points());
  }
  std::stable_sort(out.begin(), out.end(), [](const wire::Standing& a, const wire::Standing& b) {
    if (a.points() != b.points()) return a.points() > b.points();
    return a.tiebreak() > b.tiebreak();
  });
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool level = i > 0 && out[i].points() == out[i - 1].points() && out[i].tiebreak() == out[i - 1].tiebreak();
    out[i].set_rank(level ? out[i - 1].rank() : static_cast<int>(i + 1));
  }
  return out;
}

SwissRound first_swiss_round(int n) {
  SwissRound r;
  if (n % 2 == 1) r.bye = n - 1;
  const int half = n / 2;
  for (int i = 0; i < half; ++i) r.pairs.emplace_back(i, i + half);
  return r;
}

SwissRound swiss_round(int n, const std::set<std::pair<int, int>>& met, const std::set<int>& had_bye) {
  std::vector<int> byes{-1};
  if (n % 2 == 1) {
    byes.clear();
    for (int i = n - 1; i >= 0; --i) {
      if (!had_bye.count(i)) byes.push_back(i);
    }
    if (byes.empty()) byes.push_back(n - 1);
  }
  for (const bool rematches : {false, true}) {
    for (const int bye : byes) {
      SwissRound r;
      r.bye = bye;
      std::vector<bool> taken(static_cast<std::size_t>(n), false);
      if (bye >= 0) taken[static_cast<std::size_t>(bye)] = true;
      long budget = 100000;  // a search that long finds no pairing without rematches: allow them
      // The best placed unpaired entrant meets the next best placed they may meet, and so on down.
      std::function<bool()> pair_rest = [&]() -> bool {
        int i = 0;
        while (i < n && taken[static_cast<std::size_t>(i)]) ++i;
        if (i == n) return true;
        taken[static_cast<std::size_t>(i)] = true;
        for (int j = i + 1; j < n; ++j) {
          if (taken[static_cast<std::size_t>(j)] || (!rematches && met.count({i, j})) || --budget < 0) continue;
          taken[static_cast<std::size_t>(j)] = true;
          r.pairs.emplace_back(i, j);
          if (pair_rest()) return true;
          taken[static_cast<std::size_t>(j)] = false;
          r.pairs.pop_back();
        }
        taken[static_cast<std::size_t>(i)] = false;
        return false;
      };
      if (pair_rest()) return r;
    }
  }
  return {};  // not reached: with rematches allowed, neighbours always pair
}

int knockout_rounds(int n) {
  int rounds = 0;
  while ((1 << rounds) < n) ++rounds;
  return rounds;
}

KnockoutRound knockout_round(int n, const std::set<int>& in, int round) {
  // The bracket's places by seed: each doubling sets seed s against (places - 1 - s).
  const std::size_t places = std::size_t{1} << knockout_rounds(n);
  std::vector<int> bracket{0};
  while (bracket.size() < places) {
    std::vector<int> next;
    const int doubled = static_cast<int>(2 * bracket.size());
    for (const int seed : bracket) {
      next.push_back(seed);
      next.push_back(doubled - 1 - seed);
    }
    bracket = std::move(next);
  }
  // In round r each block of 2^r places holds at most one still in from each half.
  KnockoutRound r;
  const std::size_t block = std::size_t{1} << round;
  for (std::size_t start = 0; start < places; start += block) {
    std::vector<int> here;
    for (std::size_t i = start; i < start + block && i < places; ++i) {
      if (bracket[i] < n && in.count(bracket[i])) here.push_back(bracket[i]);
    }
    std::sort(here.begin(), here.end());
    if (here.size() == 2) r.pairs.emplace_back(here[0], here[1]);
    if (here.size() == 1) r.byes.push_back(here[0]);
  }
  std::sort(r.byes.begin(), r.byes.end());
  return r;
}

Tournaments::Tournaments(Storage& storage, Rulesets rulesets, const Config& config, Mailer& mailer,
                         GameService& games, std::function<void(std::function<void()>)> post)
    : storage_(storage),
      rulesets_(std::move(rulesets)),
      config_(config),
      mailer_(mailer),
      games_(games),
      post_(std::move(post)) {
  games_.on_tournament_game_end([this](const std::string& id) { game_ended(id); });
  // Games made but not announced (the server stopped in between): announced now.
  // Read before catch_up_ends, whose writes announce what they make themselves.
  struct Unannounced {
    std::vector<std::string> games;
    bool deciders = false;
  };
  // With 2 (deciding games) the round's other matches may still be in play: only its deciding
  // games are announced (the third game of their match), and of those only the ones nobody has
  // played an order in yet, as those were announced before.
  const auto unannounced = storage_.read([](Db& db) {
    std::map<std::string, Unannounced> out;
    auto& q = db.prepare(
        "SELECT t.id, g.id, t.unannounced FROM tournaments t JOIN games g ON g.tournament_id = t.id"
        " WHERE t.unannounced IN (1, 2) AND t.status = 'playing' AND g.tournament_round = t.round AND g.status = 'playing'"
        " AND (t.unannounced = 1 OR ((SELECT COUNT(*) FROM games h WHERE h.tournament_id = t.id"
        " AND h.tournament_round = t.round AND h.rowid < g.rowid AND h.soviet_id IN (g.soviet_id, g.german_id)"
        " AND h.german_id IN (g.soviet_id, g.german_id)) = 2"
        " AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.game_id = g.id)))"
        " ORDER BY g.rowid");
    q.bind_all();
    while (q.step()) {
      auto& u = out[q.text(0)];
      u.games.push_back(q.text(1));
      u.deciders = q.integer(2) == 2;
    }
    return out;
  });
  // Likewise ends stored but not told.
  const auto ended = storage_.read([](Db& db) {
    std::vector<std::string> out;
    auto& q = db.prepare("SELECT id FROM tournaments WHERE unannounced = 3 AND finished_unix != 0");
    q.bind_all();
    while (q.step()) out.push_back(q.text(0));
    return out;
  });
  catch_up_ends();
  for (const auto& [id, u] : unannounced) post_([this, id, u] { announce(id, u.games, u.deciders); });
  for (const auto& id : ended) post_([this, id] { announce_end(id); });
  // Likewise cancellations stored but not told.
  struct Cancelled {
    std::string id, reason;
    std::int64_t by;
  };
  const auto untold = storage_.read([](Db& db) {
    std::vector<Cancelled> out;
    auto& q = db.prepare("SELECT id, cancel_reason, cancelled_by FROM tournaments WHERE unannounced = 1 AND status = 'cancelled'");
    q.bind_all();
    while (q.step()) out.push_back({q.text(0), q.text(1), q.integer(2)});
    return out;
  });
  for (const auto& c : untold) post_([this, c] { announce_cancelled(c.id, c.reason, c.by); });
  next_start_ = earliest_start();
}

void Tournaments::catch_up_ends() {
  // Every game over, yet no next round nor end stored: the server stopped in between, or the write failed.
  // Likewise a knock-out's match may have ended level with its deciding game not yet made: game_ended
  // on a knock-out makes only what is missing, so each under way is looked at.
  const auto missed = storage_.read([](Db& db) {
    std::vector<std::string> out;
    auto& q = db.prepare(
        "SELECT id FROM tournaments t WHERE status = 'playing' AND finished_unix = 0 AND (knockout != 0"
        " OR NOT EXISTS (SELECT 1 FROM games g WHERE g.tournament_id = t.id AND g.status != 'finished'))");
    q.bind_all();
    while (q.step()) out.push_back(q.text(0));
    return out;
  });
  for (const auto& id : missed) game_ended(id);
}

std::int64_t Tournaments::earliest_start() {
  return storage_.read([](Db& db) {
    std::int64_t earliest = INT64_MAX;
    auto& q = db.prepare(
        "SELECT starts_unix FROM tournaments WHERE status = 'open' AND starts_unix > 0 ORDER BY starts_unix LIMIT 1");
    q.bind_all();
    while (q.step()) earliest = q.integer(0);
    return earliest;
  });
}

void Tournaments::start_due() {
  if (recheck_ends_.exchange(false)) catch_up_ends();
  const auto now = unix_now();
  std::vector<std::string> due;
  {
    std::lock_guard lock(start_mu_);
    if (next_start_ > now) return;
    due = storage_.read([now](Db& db) {
      std::vector<std::string> ids;
      auto& q = db.prepare("SELECT id FROM tournaments WHERE status = 'open' AND starts_unix > 0 AND starts_unix <= ?");
      q.bind_all(now);
      while (q.step()) ids.push_back(q.text(0));
      return ids;
    });
    // Still counting those just due: until their writes commit, the next tick looks again.
    next_start_ = earliest_start();
  }
  for (const auto& id : due) start_scheduled(id);
}

void Tournaments::start_scheduled(const std::string& id) {
  auto out = std::make_shared<Outcome>();
  auto cancelled = std::make_shared<bool>(false);
  storage_.write(
      [this, id, out, cancelled](Db& db) {
        std::string status;
        std::int64_t starts = 0, entrants = 0;
        auto& q = db.prepare(
            "SELECT status, starts_unix, (SELECT COUNT(*) FROM tournament_entrants e WHERE e.tournament_id = t.id)"
            " FROM tournaments t WHERE id = ?");
        q.bind_all(id);
        while (q.step()) {
          status = q.text(0);
          starts = q.integer(1);
          entrants = q.integer(2);
        }
        // Started when full or by its organiser meanwhile, or already handled by an earlier tick.
        if (status != "open" || starts == 0 || starts > unix_now()) return;
        if (entrants < 2) {
          mark_cancelled(db, id, "Fewer than two players had entered it by its set start.", 0);
          *cancelled = true;
          return;
        }
        start_in(db, id, *out);
      },
      [this, id, out, cancelled](bool ok) {
        if (!ok) return log::error("a tournament's set start could not be stored", {{"tournament", id}});
        if (*cancelled) {
          log::info("tournament cancelled at its set start: fewer than two entrants", {{"tournament", id}});
          return post_([this, id] { announce_cancelled(id, "Fewer than two players had entered it by its set start.", 0); });
        }
        if (out->started_games.empty()) return;
        post_([this, out] { announce(out->started_tournament, out->started_games); });
      });
}

void Tournaments::game_ended(const std::string& id) {
  auto over = std::make_shared<bool>(false);
  auto out = std::make_shared<Outcome>();
  storage_.write(
      [id, over, out](Db& db) {
        std::string status;
        std::int64_t rounds = 0, round = 0, finished = 0, unfinished = 0, knockout = 0;
        auto& q = db.prepare(
            "SELECT status, rounds, round, finished_unix,"
            " EXISTS (SELECT 1 FROM games WHERE tournament_id = t.id AND status != 'finished'), knockout"
            " FROM tournaments t WHERE id = ?");
        q.bind_all(id);
        while (q.step()) {
          status = q.text(0);
          rounds = q.integer(1);
          round = q.integer(2);
          finished = q.integer(3);
          unfinished = q.integer(4);
          knockout = q.integer(5);
        }
        if (status != "playing" || finished != 0) return;
        if (knockout != 0) {
          // Each end is looked at: a match may have ended level, and its deciding game is made at once.
          if (!knockout_next_in(db, id, static_cast<int>(round), *out)) return;
        } else if (unfinished != 0) {
          return;  // only the write that finds every game over moves on, so each round and the end come once
        } else if (round < rounds) {
          if (!next_round_in(db, id, static_cast<int>(round + 1), *out)) return;
          // Cut short: said with its end, so that nobody waits for the rounds it set.
          db.prepare("UPDATE tournaments SET end_reason = ? WHERE id = ?")
              .run(swiss_cut_reason(static_cast<int>(round), static_cast<int>(rounds)), id);
        }
        // 3: its end not yet told, so that a server stopped before telling it tells it at its next start.
        db.prepare("UPDATE tournaments SET finished_unix = ?, unannounced = 3 WHERE id = ?").run(unix_now(), id);
        *over = true;
      },
      [this, id, over, out](bool ok) {
        if (!ok) {
          // Tried again on a later tick: otherwise a Swiss would wait for its next round for ever.
          recheck_ends_ = true;
          return log::error("a tournament's next round or end could not be stored", {{"tournament", id}});
        }
        if (*over) post_([this, id] { announce_end(id); });
        if (!out->started_games.empty()) {
          post_([this, out] { announce(out->started_tournament, out->started_games, out->deciders); });
        }
      });
}

void Tournaments::announce_end(const std::string& id) {
  auto d = describe(id, false);
  if (!d) return;
  log::info("tournament finished", {{"tournament", id}, {"entrants", d->entrants.size()}});
  for (const auto& [user, name] : told_of(*d)) {
    wire::ServerMessage m;
    *m.mutable_tournament_finished() = as_seen_by(*d, user);
    if (!games_.tell_followers(user, encode(m))) mailer_.tournament_finished(user, name, m.tournament_finished());
  }
  storage_.write(
      [id](Db& db) { db.prepare("UPDATE tournaments SET unannounced = 0 WHERE id = ? AND unannounced = 3").run(id); },
      [](bool) {});  // not stored: told again at the next start, which is the lesser harm
}

void Tournaments::mark_cancelled(Db& db, const std::string& id, const std::string& reason, std::int64_t by) {
  db.prepare("UPDATE tournaments SET status = 'cancelled', unannounced = 1, cancel_reason = ?, cancelled_by = ? WHERE id = ?")
      .run(reason, by, id);
}

void Tournaments::announce_cancelled(const std::string& id, const std::string& reason, std::int64_t by) {
  auto d = describe(id, false);
  if (!d) return;
  for (const auto& [user, name] : told_of(*d)) {
    if (user == by) continue;
    wire::ServerMessage m;
    *m.mutable_tournament_cancelled()->mutable_tournament() = as_seen_by(*d, user);
    m.mutable_tournament_cancelled()->set_reason(reason);
    if (!games_.tell_followers(user, encode(m))) mailer_.tournament_cancelled(user, name, d->tournament, reason);
  }
  storage_.write(
      [id](Db& db) { db.prepare("UPDATE tournaments SET unannounced = 0 WHERE id = ? AND status = 'cancelled'").run(id); },
      [](bool) {});  // not stored: told again at the next start, which is the lesser harm
}

void Tournaments::change(const Caller& c, const std::string& what, std::function<void(Db&, Outcome&)> op,
                         std::function<void(const Caller&)> answer) {
  auto out = std::make_shared<Outcome>();
  storage_.write(
      [op = std::move(op), out](Db& db) {
        op(db, *out);
        // A refusal undoes whatever the op wrote before it.
        if (out->code != wire::ERROR_UNSPECIFIED) throw std::runtime_error(out->message);
      },
      [this, c, out, what, answer = std::move(answer)](bool ok) {
        if (out->code != wire::ERROR_UNSPECIFIED) return c.error(out->code, out->message);
        if (!ok) return c.error(wire::INTERNAL, "The " + what + " could not be stored; try again.");
        // Reads and loading games are not for the thread that reports commits.
        post_([this, c, out, answer] {
          if (out->started_games.empty()) return answer(c);
          announce(out->started_tournament, out->started_games);
          // The answer follows the clocks that the games' announcement held for entrants on vacation.
          storage_.write({}, [this, c, answer](bool) { post_([c, answer] { answer(c); }); });
        });
      });
}

void Tournaments::create(const Caller& c, const wire::CreateTournament& req) {
  if (auto why = check_name(req.name()); !why.empty()) return c.error(wire::BAD_REQUEST, why);
  const std::string scenario = req.scenario().empty() ? "counterattack" : req.scenario();
  std::string why;
  const auto rules = ruleset_of(rulesets_, scenario, &why);
  if (!rules) return c.error(wire::BAD_REQUEST, why);
  std::vector<std::string> options(req.options().begin(), req.options().end());
  if (why = rules->check_options(options); !why.empty()) return c.error(wire::BAD_REQUEST, why);
  if (req.move_seconds() == 0 && req.clock_seconds() == 0) {
    return c.error(wire::BAD_REQUEST, "A tournament's games have a time per move or a game clock.");
  }
  if (req.move_seconds() != 0 && (req.move_seconds() < config_.min_move_seconds || req.move_seconds() > config_.max_move_seconds)) {
    return c.error(wire::BAD_REQUEST, "A tournament's time per move is " + span_range(config_.min_move_seconds, config_.max_move_seconds) +
                                          " (untimed games are not for tournaments).");
  }
  if (auto problem = check_time_terms(config_, req.move_seconds(), req.clock_seconds(), req.increment_seconds());
      !problem.empty()) {
    return c.error(wire::BAD_REQUEST, problem);
  }
  if (req.max_players() < 2 || req.max_players() > config_.tournament_max_players) {
    return c.error(wire::BAD_REQUEST,
                   "A tournament has from 2 to " + std::to_string(config_.tournament_max_players) + " players.");
  }
  constexpr std::int64_t kYear = 366 * 86400;
  if (req.starts_unix() != 0 && (req.starts_unix() <= unix_now() || req.starts_unix() > unix_now() + kYear)) {
    return c.error(wire::BAD_REQUEST, "A tournament's set start is in the future, within a year.");
  }
  // Without rematches: an even number meets everyone in one round fewer than their number; an odd number, with a bye each round, in as many.
  if (req.knockout() && req.rounds() != 0) {
    return c.error(wire::BAD_REQUEST, "A knock-out's rounds follow from its number of entrants: it takes no number of rounds.");
  }
  if (req.rounds() < 0 || req.rounds() > (req.max_players() % 2 == 1 ? req.max_players() : req.max_players() - 1)) {
    return c.error(wire::BAD_REQUEST,
                   "A Swiss tournament has at least one round, and no more than its players can play without meeting twice: "
                   "one fewer than their number, or their number when it is odd.");
  }
  const std::string id = random_code(10);
  const std::string invite = req.private_() ? random_code(10) : "";
  const int limit = config_.open_tournaments_per_user;
  change(
      c, "tournament",
      [=, name = req.name(), opts = join_options(options), seconds = req.move_seconds(), max = req.max_players(),
       priv = req.private_(), enter = req.enter(), starts = req.starts_unix(), rounds = req.rounds(),
       clock = req.clock_seconds(), increment = req.increment_seconds(), knockout = req.knockout(),
       revision = rules->latest_revision(), user = c.user_id](Db& db, Outcome& out) {
        if (auto barred = Accounts::barred(db, user); !barred.empty()) return out.refuse(wire::UNAUTHENTICATED, barred);
        auto& q = db.prepare("SELECT COUNT(*) FROM tournaments WHERE organiser_id = ? AND status = 'open'");
        std::int64_t open = 0;
        q.bind_all(user);
        while (q.step()) open = q.integer(0);
        if (open >= limit) {
          return out.refuse(wire::CONFLICT, "You organise " + std::to_string(open) +
                                                " tournaments that have not started: start or cancel one first.");
        }
        const auto now = unix_now();
        db.prepare(
              "INSERT INTO tournaments (id, name, organiser_id, scenario, options, move_seconds, max_players, private,"
              " invite_code, status, created_unix, starts_unix, rounds, clock_seconds, increment_seconds, knockout,"
              " rules_revision)"
              " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?)")
            .run(id, name, user, scenario, opts, seconds, max, priv ? 1 : 0, invite, now, starts, rounds, clock, increment,
                 knockout ? 1 : 0, revision);
        if (enter) {
          db.prepare("INSERT INTO tournament_entrants (tournament_id, user_id, joined_unix) VALUES (?, ?, ?)")
              .run(id, user, now);
        }
      },
      [this, id, starts = req.starts_unix()](const Caller& to) {
        log::info("tournament created", {{"tournament", id}, {"by", to.name}});
        if (starts != 0) {
          std::lock_guard lock(start_mu_);
          next_start_ = std::min(next_start_, starts);
        }
        reply_with(to, id);
      });
}

void Tournaments::start_in(Db& db, const std::string& id, Outcome& out) {
  const GameTerms t = terms_of(db, id);
  std::vector<std::int64_t> entrants;
  auto& e = db.prepare("SELECT user_id FROM tournament_entrants WHERE tournament_id = ? ORDER BY joined_unix, user_id");
  e.bind_all(id);
  while (e.step()) entrants.push_back(e.integer(0));
  if (entrants.size() < 2) return out.refuse(wire::CONFLICT, "A tournament starts with at least two entrants.");

  if (t.rounds == 0 && !t.knockout) {
    for (std::size_t i = 0; i < entrants.size(); ++i) {
      for (std::size_t j = 0; j < entrants.size(); ++j) {
        if (i != j) out.started_games.push_back(insert_game(db, id, t, entrants[i], entrants[j], 0));
      }
    }
  } else {
    // A Swiss or a knock-out: entrants seeded by their rating in the scenario
    // (1500 without one), equal ratings in a random order.
    for (std::size_t i = entrants.size() - 1; i > 0; --i) {
      std::swap(entrants[i], entrants[randombytes_uniform(static_cast<std::uint32_t>(i + 1))]);
    }
    std::map<std::int64_t, double> rating;
    auto& r = db.prepare("SELECT rating FROM ratings WHERE user_id = ? AND scenario = ?");
    for (const auto user : entrants) {
      r.bind_all(user, t.scenario);
      rating[user] = r.step() ? r.real(0) : glicko2::Rating{}.rating;
      r.reset();
    }
    std::stable_sort(entrants.begin(), entrants.end(), [&](auto a, auto b) { return rating[a] > rating[b]; });
    for (std::size_t i = 0; i < entrants.size(); ++i) {
      db.prepare("UPDATE tournament_entrants SET draw = ? WHERE tournament_id = ? AND user_id = ?")
          .run(static_cast<std::int64_t>(i), id, entrants[i]);
    }
    const int n = static_cast<int>(entrants.size());
    if (t.knockout) {
      db.prepare("UPDATE tournaments SET rounds = ? WHERE id = ?").run(knockout_rounds(n), id);
      std::set<int> all;
      for (int i = 0; i < n; ++i) all.insert(i);
      const auto first = knockout_round(n, all, 1);
      make_round(db, id, 1, entrants, first.pairs, first.byes, out);
    } else {
      // No more rounds than there are others to meet.
      const int most = n % 2 == 1 ? n : n - 1;
      if (t.rounds > most) {
        // Said with its start and shown with it, so that nobody waits for the rounds it set.
        db.prepare("UPDATE tournaments SET rounds = ?, rounds_reason = ? WHERE id = ?")
            .run(most, swiss_rounds_reason(most, t.rounds, n), id);
      }
      const auto first = first_swiss_round(n);
      make_round(db, id, 1, entrants, first.pairs, first.bye >= 0 ? std::vector<int>{first.bye} : std::vector<int>{}, out);
    }
  }
  db.prepare("UPDATE tournaments SET status = 'playing', started_unix = ?, unannounced = 1 WHERE id = ?").run(unix_now(), id);
  out.started_tournament = id;
}

void Tournaments::make_round(Db& db, const std::string& id, int round, const std::vector<std::int64_t>& users,
                             const std::vector<std::pair<int, int>>& pairs, const std::vector<int>& byes, Outcome& out) {
  const GameTerms t = terms_of(db, id);
  for (const auto& [a, b] : pairs) {
    const auto x = users[static_cast<std::size_t>(a)], y = users[static_cast<std::size_t>(b)];
    out.started_games.push_back(insert_game(db, id, t, x, y, round));
    out.started_games.push_back(insert_game(db, id, t, y, x, round));
  }
  for (const int bye : byes) {
    db.prepare("INSERT INTO tournament_byes (tournament_id, round, user_id) VALUES (?, ?, ?)")
        .run(id, round, users[static_cast<std::size_t>(bye)]);
  }
  db.prepare("UPDATE tournaments SET round = ?, unannounced = 1 WHERE id = ?").run(round, id);
  out.started_tournament = id;
}

bool Tournaments::next_round_in(Db& db, const std::string& id, int round, Outcome& out) {
  // The standings so far, by user id; level entrants in the order of their seeds.
  std::vector<std::string> entrants;
  auto& e = db.prepare("SELECT user_id FROM tournament_entrants WHERE tournament_id = ? ORDER BY draw, joined_unix, user_id");
  e.bind_all(id);
  while (e.step()) entrants.push_back(std::to_string(e.integer(0)));
  std::vector<wire::GameSummary> games;
  auto& g = db.prepare("SELECT soviet_id, german_id, status, result FROM games WHERE tournament_id = ?");
  g.bind_all(id);
  while (g.step()) {
    auto& x = games.emplace_back();
    x.set_soviet(std::to_string(g.integer(0)));
    x.set_german(std::to_string(g.integer(1)));
    x.set_status(g.text(2));
    x.set_result(g.text(3));
  }
  std::map<std::string, int> byes;
  auto& b = db.prepare("SELECT user_id, COUNT(*) FROM tournament_byes WHERE tournament_id = ? GROUP BY user_id");
  b.bind_all(id);
  while (b.step()) byes[std::to_string(b.integer(0))] = static_cast<int>(b.integer(1));

  // An entrant suspended until reinstated would resign each game at once, or take a
  // bye's points: the round is made without them, while two others are left to play.
  std::set<std::string> away;
  auto& a = db.prepare(
      "SELECT e.user_id FROM tournament_entrants e JOIN users u ON u.id = e.user_id"
      " WHERE e.tournament_id = ? AND u.suspended_until >= ?");
  a.bind_all(id, kSuspendedIndefinitely);
  while (a.step()) away.insert(std::to_string(a.integer(0)));
  // Entrants who withdrew are never paired again.
  std::set<std::string> withdrawn;
  auto& w = db.prepare("SELECT user_id FROM tournament_entrants WHERE tournament_id = ? AND withdrawn_unix <> 0");
  w.bind_all(id);
  while (w.step()) withdrawn.insert(std::to_string(w.integer(0)));
  if (entrants.size() < withdrawn.size() + 2) return true;  // nobody left to pair: it is over
  if (entrants.size() < away.size() + withdrawn.size() + 2) away.clear();
  std::vector<std::int64_t> ranked;
  std::map<std::string, int> place;
  for (const auto& s : standings(entrants, games, byes)) {
    if (away.count(s.player()) || withdrawn.count(s.player())) continue;
    place[s.player()] = static_cast<int>(ranked.size());
    ranked.push_back(std::stoll(s.player()));
  }
  std::set<std::pair<int, int>> met;
  for (const auto& x : games) {
    if (!place.count(x.soviet()) || !place.count(x.german())) continue;
    const int p = place[x.soviet()], q = place[x.german()];
    met.emplace(std::min(p, q), std::max(p, q));
  }
  std::set<int> had_bye;
  for (const auto& [user, count] : byes) {
    if (place.count(user)) had_bye.insert(place[user]);
  }
  const auto r = swiss_round(static_cast<int>(ranked.size()), met, had_bye);
  make_round(db, id, round, ranked, r.pairs, r.bye >= 0 ? std::vector<int>{r.bye} : std::vector<int>{}, out);
  return false;
}

bool Tournaments::knockout_next_in(Db& db, const std::string& id, int round, Outcome& out) {
  std::map<std::int64_t, int> seed;
  std::set<std::int64_t> in;
  std::set<std::int64_t> withdrawn;
  auto& e = db.prepare("SELECT user_id, draw, out_in_round, withdrawn_unix FROM tournament_entrants WHERE tournament_id = ?");
  e.bind_all(id);
  while (e.step()) {
    seed[e.integer(0)] = static_cast<int>(e.integer(1));
    if (e.integer(2) == 0) in.insert(e.integer(0));
    if (e.integer(3) != 0) withdrawn.insert(e.integer(0));
  }
  // Each match of the round by its players, the higher seed first: their points, its games and how many are over.
  struct Tally {
    double higher = 0, lower = 0;
    int games = 0, over = 0;
  };
  std::map<std::pair<std::int64_t, std::int64_t>, Tally> matches;
  auto& g = db.prepare("SELECT soviet_id, german_id, status, result FROM games WHERE tournament_id = ? AND tournament_round = ?");
  g.bind_all(id, round);
  while (g.step()) {
    const auto soviet = g.integer(0), german = g.integer(1);
    const bool soviet_higher = seed[soviet] < seed[german];
    auto& m = matches[soviet_higher ? std::pair{soviet, german} : std::pair{german, soviet}];
    ++m.games;
    wire::GameSummary x;
    x.set_status(g.text(2));
    x.set_result(g.text(3));
    if (x.status() == "finished") ++m.over;
    if (const auto score = soviet_score(x)) {
      m.higher += soviet_higher ? *score : 1.0 - *score;
      m.lower += soviet_higher ? 1.0 - *score : *score;
    }
  }
  // Each match on its own: one level after its two games gets its deciding game now, whatever the
  // other matches' games are at (once made, the match has three games and never gets another);
  // one decided knocks its loser out (again, harmlessly, at each later look).
  const GameTerms t = terms_of(db, id);
  std::vector<std::string> deciders;
  bool undecided = false;
  for (const auto& [players, m] : matches) {
    const auto [higher, lower] = players;
    if (m.over < m.games) {  // a game of it is still in play (its deciding game, perhaps)
      undecided = true;
    } else if (withdrawn.count(higher) != withdrawn.count(lower)) {
      // One withdrew: the other goes through, whatever the score, as by a walk-over.
      const auto gone = withdrawn.count(higher) ? higher : lower, stays = gone == higher ? lower : higher;
      db.prepare("UPDATE tournament_entrants SET out_in_round = ? WHERE tournament_id = ? AND user_id = ?").run(round, id, gone);
      db.prepare("UPDATE tournament_entrants SET out_in_round = 0 WHERE tournament_id = ? AND user_id = ?").run(id, stays);
      in.erase(gone);
      in.insert(stays);
    } else if (m.games == 2 && m.higher == m.lower && !withdrawn.count(higher)) {  // level: a deciding game, sides drawn
      const bool swap = randombytes_uniform(2) == 1;
      deciders.push_back(insert_game(db, id, t, swap ? lower : higher, swap ? higher : lower, round));
      undecided = true;
    } else {
      // Level after the deciding game too: the higher seed goes through.
      const auto loser = m.higher >= m.lower ? lower : higher;
      db.prepare("UPDATE tournament_entrants SET out_in_round = ? WHERE tournament_id = ? AND user_id = ?").run(round, id, loser);
      in.erase(loser);
    }
  }
  if (!deciders.empty()) {
    db.prepare("UPDATE tournaments SET unannounced = 2 WHERE id = ?").run(id);
    out.started_tournament = id;
    out.started_games = std::move(deciders);
    out.deciders = true;
  }
  // The next round waits for every match of this one, deciding games included.
  if (undecided) return false;
  if (in.size() <= 1) return true;
  const int n = static_cast<int>(seed.size());
  std::vector<std::int64_t> by_seed(seed.size());
  std::set<int> in_seeds;
  for (const auto& [user, s] : seed) {
    if (s < 0 || s >= n) throw std::runtime_error("a knock-out entrant without a seed");
    by_seed[static_cast<std::size_t>(s)] = user;
    if (in.count(user)) in_seeds.insert(s);
  }
  const auto next = knockout_round(n, in_seeds, round + 1);
  make_round(db, id, round + 1, by_seed, next.pairs, next.byes, out);
  return false;
}

void Tournaments::join(const Caller& c, const wire::JoinTournament& req) {
  const std::string id = req.tournament_id();
  if (bad_id(id)) return no_such_tournament(c, id);
  change(
      c, "entry",
      [this, id, code = typed_code(req.invite_code()), user = c.user_id](Db& db, Outcome& out) {
        std::string status, invite;
        bool found = false, priv = false;
        std::int64_t max = 0, count = 0, organiser = 0;
        auto& q = db.prepare(
            "SELECT status, private, invite_code, max_players, organiser_id,"
            " (SELECT COUNT(*) FROM tournament_entrants e WHERE e.tournament_id = t.id), finished_unix FROM tournaments t WHERE id = ?");
        q.bind_all(id);
        while (q.step()) {
          found = true;
          status = q.integer(6) != 0 ? "finished" : q.text(0);
          priv = q.integer(1) != 0;
          invite = q.text(2);
          max = q.integer(3);
          organiser = q.integer(4);
          count = q.integer(5);
        }
        if (!found) return out.refuse(wire::NOT_FOUND, "There is no tournament '" + as_given(id) + "'.");
        if (auto barred = Accounts::barred(db, user); !barred.empty()) return out.refuse(wire::UNAUTHENTICATED, barred);
        auto& mine = db.prepare("SELECT COUNT(*) FROM tournament_entrants WHERE tournament_id = ? AND user_id = ?");
        std::int64_t entered = 0;
        mine.bind_all(id, user);
        while (mine.step()) entered = mine.integer(0);
        if (priv && entered == 0 && user != organiser && code != invite) {
          return out.refuse(wire::FORBIDDEN, code.empty() ? "This tournament is private: entering it needs its invite code."
                                                          : "That is not this private tournament's invite code.");
        }
        if (status == "cancelled") return out.refuse(wire::CONFLICT, "The tournament was cancelled.");
        if (status == "finished") return out.refuse(wire::CONFLICT, "The tournament is over.");
        if (entered > 0) return out.refuse(wire::CONFLICT, "You have already entered this tournament.");
        if (status != "open") return out.refuse(wire::CONFLICT, "The tournament has already started.");
        auto& struck = db.prepare("SELECT reason FROM tournament_struck_off WHERE tournament_id = ? AND user_id = ?");
        struck.bind_all(id, user);
        std::optional<std::string> struck_why;
        while (struck.step()) struck_why = struck.text(0);
        if (struck_why) return out.refuse(wire::FORBIDDEN, "The organiser struck you off this tournament: " + *struck_why);
        if (count >= max) return out.refuse(wire::CONFLICT, "The tournament is full.");
        db.prepare("INSERT INTO tournament_entrants (tournament_id, user_id, joined_unix) VALUES (?, ?, ?)")
            .run(id, user, unix_now());
        if (count + 1 == max) start_in(db, id, out);  // full: it starts at once
      },
      [this, id](const Caller& to) { reply_with(to, id); });
}

void Tournaments::leave(const Caller& c, const wire::LeaveTournament& req) { withdraw(c, req.tournament_id(), "", ""); }

void Tournaments::withdraw_entrant(const Caller& c, const wire::WithdrawEntrant& req) {
  if (req.player().empty()) return c.error(wire::BAD_REQUEST, "Name the entrant to withdraw.");
  // Said to them and to their opponents: one line of text, not blank.
  const std::string& reason = req.reason();
  if (!one_plain_line(reason) || reason.size() > 300 || reason.find_first_not_of(' ') == std::string::npos) {
    return c.error(wire::BAD_REQUEST,
                   "Say why " + as_given(req.player()) + " is withdrawn, in one line of at most 300 bytes: they and their opponents are told.");
  }
  withdraw(c, req.tournament_id(), req.player(), reason);
}

void Tournaments::adjudicate(const Caller& c, const wire::AdjudicateGame& req) {
  const std::string& id = req.game_id();
  const std::string& r = req.result();
  const std::string result = r == "soviet" ? "Soviet victory" : r == "german" ? "German victory" : r == "draw" ? "Draw" : "";
  if (result.empty()) return c.error(wire::BAD_REQUEST, "Decide the game as soviet, german or draw.");
  const std::string& reason = req.reason();
  if (!one_plain_line(reason) || reason.size() > 300 || reason.find_first_not_of(' ') == std::string::npos) {
    return c.error(wire::BAD_REQUEST, "Say why you decide the game, in one line of at most 300 bytes: both players are told.");
  }
  struct Found {
    bool found = false, priv = false, insider = false;
    std::string tournament, name;
    std::int64_t organiser = 0, soviet = 0, german = 0;
  };
  const auto f = bad_id(id) ? Found{} : storage_.read([&](Db& db) {
    Found x;
    auto& q = db.prepare(
        "SELECT g.tournament_id, g.private, COALESCE(g.soviet_id, 0), COALESCE(g.german_id, 0), COALESCE(t.organiser_id, 0),"
        " COALESCE(t.name, ''), EXISTS (SELECT 1 FROM tournament_entrants e WHERE e.tournament_id = g.tournament_id"
        " AND e.user_id = ?) FROM games g LEFT JOIN tournaments t ON t.id = g.tournament_id WHERE g.id = ?");
    q.bind_all(c.user_id, id);
    while (q.step()) {
      x.found = true;
      x.tournament = q.text(0);
      x.priv = q.integer(1) != 0;
      x.soviet = q.integer(2);
      x.german = q.integer(3);
      x.organiser = q.integer(4);
      x.name = q.text(5);
      x.insider = q.integer(6) != 0;
    }
    return x;
  });
  // A private game is not there for whoever neither plays it nor is inside its tournament.
  const bool seen = f.found && (!f.priv || f.insider || f.organiser == c.user_id || f.soviet == c.user_id || f.german == c.user_id);
  if (!seen) return c.error(wire::NOT_FOUND, "There is no game '" + as_given(id) + "'.");
  if (f.tournament.empty() || f.organiser != c.user_id) {
    return c.error(wire::FORBIDDEN, "Only the organiser of a game's tournament may decide it.");
  }
  if (f.soviet == c.user_id || f.german == c.user_id) {
    return c.error(wire::FORBIDDEN, "You play in this game: an organiser does not decide their own games.");
  }
  // Logged as any end is, with the reason that names the organiser.
  games_.adjudicate(c, id, result,
                    "Decided by " + c.name + ", the organiser of the tournament \"" + f.name + "\": " + result +
                        ", without being played out (no rating changes). " + reason);
}

void Tournaments::withdraw(const Caller& c, const std::string& id, const std::string& player, const std::string& reason) {
  if (bad_id(id)) return no_such_tournament(c, id);
  const bool by_organiser = !player.empty();
  auto withdrew = std::make_shared<bool>(false);
  auto whom = std::make_shared<std::string>(by_organiser ? player : c.name);
  change(
      c, "withdrawal",
      [id, caller = c.user_id, by_organiser, reason, whom, withdrew](Db& db, Outcome& out) {
        std::int64_t user = caller;
        if (by_organiser) {
          std::int64_t organiser = 0;
          bool found = false, priv = false, entered = false;
          auto& t = db.prepare(
              "SELECT organiser_id, private, EXISTS (SELECT 1 FROM tournament_entrants e WHERE e.tournament_id = t.id"
              " AND e.user_id = ?) FROM tournaments t WHERE id = ?");
          t.bind_all(caller, id);
          while (t.step()) found = true, organiser = t.integer(0), priv = t.integer(1) != 0, entered = t.integer(2) != 0;
          // A private tournament is not there for whoever neither organises nor entered it.
          if (!found || (priv && organiser != caller && !entered)) return out.refuse(wire::NOT_FOUND, "There is no tournament '" + as_given(id) + "'.");
          if (organiser != caller) return out.refuse(wire::FORBIDDEN, "Only the tournament's organiser may withdraw another entrant.");
          user = 0;
          auto& u = db.prepare("SELECT id FROM users WHERE name = ?");
          u.bind_all(*whom);
          while (u.step()) user = u.integer(0);
        }
        const std::string who = by_organiser ? *whom + " has" : "You have";
        std::string status;
        bool knockout = false;
        std::int64_t finished = 0, withdrawn = 0;
        int round = 0, out_in = 0;
        auto& q = db.prepare(
            "SELECT t.status, t.knockout, t.round, t.finished_unix, e.out_in_round, e.withdrawn_unix FROM tournaments t"
            " JOIN tournament_entrants e ON e.tournament_id = t.id WHERE t.id = ? AND e.user_id = ?");
        q.bind_all(id, user);
        while (q.step()) {
          status = q.text(0);
          knockout = q.integer(1) != 0;
          round = static_cast<int>(q.integer(2));
          finished = q.integer(3);
          out_in = static_cast<int>(q.integer(4));
          withdrawn = q.integer(5);
        }
        if (status.empty()) return out.refuse(wire::NOT_FOUND, as_given(who) + " not entered a tournament '" + as_given(id) + "'.");
        if (status == "cancelled") return out.refuse(wire::CONFLICT, "The tournament was cancelled.");
        if (status == "open") {
          db.prepare("DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ?").run(id, user);
          // Struck off by the organiser, they do not enter again.
          if (by_organiser) {
            db.prepare("INSERT OR REPLACE INTO tournament_struck_off (tournament_id, user_id, reason) VALUES (?, ?, ?)").run(id, user, reason);
          }
          return;
        }
        // Under way: a withdrawal. The server's poll resigns the games in play, and no later round pairs them.
        if (status != "playing" || finished != 0) return out.refuse(wire::CONFLICT, "The tournament is over.");
        if (withdrawn != 0) return out.refuse(wire::CONFLICT, who + " already withdrawn from this tournament.");
        if (knockout && out_in != 0) {
          return out.refuse(wire::CONFLICT, (by_organiser ? *whom + " is" : std::string("You are")) + " already out of this knock-out (in round " +
                                                std::to_string(out_in) + ").");
        }
        db.prepare("UPDATE tournament_entrants SET withdrawn_unix = ?, withdrawn_reason = ? WHERE tournament_id = ? AND user_id = ?")
            .run(unix_now(), by_organiser ? reason : std::string(), id, user);
        if (knockout) {
          db.prepare("UPDATE tournament_entrants SET out_in_round = ? WHERE tournament_id = ? AND user_id = ?").run(round, id, user);
        }
        *withdrew = true;
      },
      [this, id, withdrew, by_organiser, whom, reason](const Caller& to) {
        if (!*withdrew && !by_organiser) return to.ok();
        if (by_organiser) {
          log::info(*withdrew ? "tournament entrant withdrawn by the organiser" : "tournament entrant struck off by the organiser",
                    {{"tournament", id}, {"entrant", *whom}, {"organiser", to.name}, {"reason", reason}});
        } else {
          log::info("tournament entrant withdrew", {{"tournament", id}, {"user", to.name}});
        }
        if (!*withdrew) return reply_with(to, id);
        // Their games in play resigned now, not at the next poll: the answer, and any list read
        // after it, show them over. (One whose move is being stored is left to the poll.)
        for (const auto& g : games_of_withdrawn()) {
          if (games_.set_aside(g.game_id, g.user_id, g.why, true)) {
            log::info("game of a withdrawn entrant resigned", {{"game", g.game_id}, {"reason", g.why}});
          }
        }
        // Answered once those ends are stored: writes commit in order.
        storage_.write({}, [this, to, id](bool) { post_([this, to, id] { reply_with(to, id); }); });
      });
}

std::vector<Tournaments::WithdrawnGame> Tournaments::games_of_withdrawn() {
  return storage_.read([](Db& db) {
    std::vector<WithdrawnGame> out;
    // CROSS JOIN keeps the few withdrawn entrants (a partial index) outermost, then
    // their tournaments under way, then their games in play by seat (partial indexes).
    auto& q = db.prepare(
        "SELECT g.id, e.user_id, u.name, t.name, e.withdrawn_reason FROM tournament_entrants e"
        " CROSS JOIN tournaments t ON t.id = e.tournament_id AND t.status = 'playing' AND t.finished_unix = 0"
        " CROSS JOIN games g ON g.soviet_id = e.user_id AND g.status = 'playing' AND g.tournament_id = e.tournament_id"
        " JOIN users u ON u.id = e.user_id WHERE e.withdrawn_unix <> 0"
        " UNION ALL SELECT g.id, e.user_id, u.name, t.name, e.withdrawn_reason FROM tournament_entrants e"
        " CROSS JOIN tournaments t ON t.id = e.tournament_id AND t.status = 'playing' AND t.finished_unix = 0"
        " CROSS JOIN games g ON g.german_id = e.user_id AND g.status = 'playing' AND g.tournament_id = e.tournament_id"
        " JOIN users u ON u.id = e.user_id WHERE e.withdrawn_unix <> 0");
    q.bind_all();
    while (q.step()) {
      const std::string by = q.text(4);
      out.push_back(WithdrawnGame{q.text(0), q.integer(1),
                                  by.empty() ? q.text(2) + " withdrew from the tournament \"" + q.text(3) + "\"."
                                             : q.text(2) + " was withdrawn from the tournament \"" + q.text(3) +
                                                   "\" by its organiser: " + by});
    }
    return out;
  });
}

bool Tournaments::organiser_of_open(Db& db, const std::string& id, std::int64_t user, const std::string& act,
                                    Outcome& out) {
  std::string status;
  std::int64_t organiser = 0;
  bool priv = false, entered = false;
  auto& q = db.prepare(
      "SELECT status, organiser_id, private, EXISTS (SELECT 1 FROM tournament_entrants e WHERE e.tournament_id = t.id"
      " AND e.user_id = ?) FROM tournaments t WHERE id = ?");
  q.bind_all(user, id);
  while (q.step()) {
    status = q.text(0);
    organiser = q.integer(1);
    priv = q.integer(2) != 0;
    entered = q.integer(3) != 0;
  }
  if (status.empty() || (priv && organiser != user && !entered)) {
    out.refuse(wire::NOT_FOUND, "There is no tournament '" + as_given(id) + "'.");
  } else if (organiser != user) {
    out.refuse(wire::FORBIDDEN, "Only the tournament's organiser can " + act + " it.");
  } else if (status != "open") {
    out.refuse(wire::CONFLICT, status == "cancelled" ? "The tournament was cancelled."
                               : act == "cancel"     ? "The tournament has already started: now only the server's operator can cancel it."
                                                     : "The tournament has already started.");
  } else {
    return true;
  }
  return false;
}

void Tournaments::start(const Caller& c, const wire::StartTournament& req) {
  const std::string id = req.tournament_id();
  if (bad_id(id)) return no_such_tournament(c, id);
  change(
      c, "start",
      [this, id, user = c.user_id](Db& db, Outcome& out) {
        if (!organiser_of_open(db, id, user, "start", out)) return;
        start_in(db, id, out);
      },
      [this, id](const Caller& to) { reply_with(to, id); });
}

void Tournaments::cancel(const Caller& c, const wire::CancelTournament& req) {
  const std::string id = req.tournament_id();
  if (bad_id(id)) return no_such_tournament(c, id);
  change(
      c, "cancellation",
      [id, user = c.user_id, reason = "Its organiser " + c.name + " cancelled it."](Db& db, Outcome& out) {
        if (!organiser_of_open(db, id, user, "cancel", out)) return;
        mark_cancelled(db, id, reason, user);
      },
      [this, id](const Caller& to) {
        log::info("tournament cancelled", {{"tournament", id}, {"by", to.name}});
        to.ok();
        announce_cancelled(id, "Its organiser " + to.name + " cancelled it.", to.user_id);
      });
}

void Tournaments::announce(const std::string& id, const std::vector<std::string>& game_ids, bool deciders) {
  auto d = describe(id, false);
  if (!d) return;
  log::info(deciders ? "tournament deciding games started" : d->tournament.round() > 1 ? "tournament round started" : "tournament started",
            {{"tournament", id},
             {"round", d->tournament.round()},
             {"entrants", d->entrants.size()},
             {"games", game_ids.size()}});
  // The tournament first, then each game's turn notice; one mail to each
  // entrant who was away when a game of theirs was announced, and to one away
  // who sits out the round.
  std::set<std::int64_t> told;
  for (const auto& [user, name] : told_of(*d)) {  // an organiser who does not play follows it too
    if (deciders) break;  // no new round: the deciding games' turn notices say it
    wire::ServerMessage m;
    *m.mutable_tournament_started() = as_seen_by(*d, user);
    if (games_.tell_followers(user, encode(m))) told.insert(user);
  }
  const auto away = games_.announce_started(game_ids, deciders);
  for (const auto& [user, name] : d->entrants) {
    if (auto it = away.find(user); it != away.end()) {
      mailer_.tournament_started(user, name, d->tournament, it->second, deciders);
    } else if (!deciders && d->sitting_out.count(name) && !told.count(user)) {
      mailer_.tournament_started(user, name, d->tournament, {});
    }
  }
  // Not while a game made after these waits for its own announcement (another match's deciding
  // game, made meanwhile): that announcement marks it done.
  storage_.write(
      [id, round = d->tournament.round(), last = game_ids.empty() ? std::string() : game_ids.back()](Db& db) {
        db.prepare(
              "UPDATE tournaments SET unannounced = 0 WHERE id = ? AND round = ? AND unannounced IN (1, 2)"
              " AND NOT EXISTS (SELECT 1 FROM games g WHERE g.tournament_id = tournaments.id"
              " AND g.rowid > (SELECT rowid FROM games WHERE id = ?))")
            .run(id, round, last);
      },
      [](bool) {});  // not stored: announced again at the next start, which is the lesser harm
}

std::optional<Tournaments::Described> Tournaments::describe(const std::string& id, bool details) {
  // The tournament, its entrants and its games, seen at the same commit.
  return storage_.read_together([&](Db& db) -> std::optional<Described> {
    Described d;
    auto& t = d.tournament;
    bool found = false;
    std::int64_t finished_unix = 0;
    auto& q = db.prepare(
        "SELECT t.name, u.name, t.scenario, t.options, t.move_seconds, t.max_players, t.private, t.invite_code, t.status,"
        " t.created_unix, t.started_unix, t.organiser_id, t.starts_unix, t.rounds, t.round, t.clock_seconds,"
        " t.increment_seconds, t.knockout, t.finished_unix, t.cancel_reason, t.end_reason, t.rounds_reason FROM tournaments t"
        " JOIN users u ON u.id = t.organiser_id"
        " WHERE t.id = ?");
    q.bind_all(id);
    while (q.step()) {
      found = true;
      t.set_tournament_id(id);
      t.set_name(q.text(0));
      t.set_organiser(q.text(1));
      t.set_scenario(q.text(2));
      for (const auto& o : split_options(q.text(3))) t.add_options(o);
      t.set_move_seconds(q.integer(4));
      t.set_max_players(static_cast<int>(q.integer(5)));
      t.set_private_(q.integer(6) != 0);
      d.invite = q.text(7);
      t.set_status(q.text(8));
      t.set_created_unix(q.integer(9));
      t.set_started_unix(q.integer(10));
      d.organiser = q.integer(11);
      t.set_starts_unix(q.integer(12));
      t.set_rounds(static_cast<int>(q.integer(13)));
      t.set_round(static_cast<int>(q.integer(14)));
      t.set_clock_seconds(q.integer(15));
      t.set_increment_seconds(q.integer(16));
      t.set_knockout(q.integer(17) != 0);
      finished_unix = q.integer(18);
      if (t.status() == "cancelled") t.set_cancel_reason(q.text(19));
      t.set_end_reason(q.text(20));
      t.set_rounds_reason(q.text(21));
    }
    if (!found) return std::nullopt;
    std::map<std::string, int> out_in_round;
    std::set<std::string> withdrawn;
    auto& e = db.prepare(
        // In seed order (the draw, set at a Swiss's or knock-out's start; 0 before it), as the
        // rounds pair them: level entrants are listed as they are paired.
        "SELECT e.user_id, u.name, e.out_in_round, e.withdrawn_unix FROM tournament_entrants e JOIN users u ON u.id = e.user_id"
        " WHERE e.tournament_id = ? ORDER BY e.draw, e.joined_unix, e.user_id");
    e.bind_all(id);
    while (e.step()) {
      d.entrants.emplace_back(e.integer(0), e.text(1));
      out_in_round[e.text(1)] = static_cast<int>(e.integer(2));
      if (e.integer(3) != 0) withdrawn.insert(e.text(1));
    }
    t.set_entrants(static_cast<int>(d.entrants.size()));
    // Cancelled under way (by the operator), its standings and games stay on show.
    if (t.status() == "open" || (t.status() == "cancelled" && t.started_unix() == 0)) {
      for (const auto& [user, name] : d.entrants) t.add_standings()->set_player(name);
      return d;
    }
    std::vector<wire::GameSummary> games;
    static const std::string sql =
        std::string("SELECT g.id, COALESCE(s.name, ''), COALESCE(d.name, ''), g.status, g.result, g.move_seconds, g.deadline_unix,"
        " g.private, (SELECT COALESCE(MAX(version), 0) FROM orders o WHERE o.game_id = g.id), g.tournament_round,"
        " g.rated, g.result_reason, ") + kRatingChangeColumns +
        ", g.unrated_reason FROM games g LEFT JOIN users s ON s.id = g.soviet_id LEFT JOIN users d ON d.id = g.german_id"
        " WHERE g.tournament_id = ? ORDER BY g.rowid";
    auto& g = db.prepare(sql.c_str());
    g.bind_all(id);
    while (g.step()) {
      wire::GameSummary s;
      s.set_game_id(g.text(0));
      s.set_scenario(t.scenario());
      *s.mutable_options() = t.options();
      s.set_soviet(g.text(1));
      s.set_german(g.text(2));
      s.set_status(g.text(3));
      s.set_result(g.text(4));
      s.set_move_seconds(g.integer(5));
      s.set_clock_seconds(t.clock_seconds());
      s.set_increment_seconds(t.increment_seconds());
      if (s.status() == "playing") s.set_deadline_unix(g.integer(6));
      s.set_private_(g.integer(7) != 0);
      s.set_version(g.integer(8));
      s.set_tournament_id(id);
      s.set_tournament_round(static_cast<int>(g.integer(9)));
      s.set_rated(g.integer(10) != 0);
      if (s.status() == "finished") s.set_result_reason(g.text(11));
      s.set_soviet_rating_change(static_cast<int>(g.integer(12)));
      s.set_german_rating_change(static_cast<int>(g.integer(13)));
      s.set_rating_counted(g.integer(14) != 0);
      s.set_unrated_reason(g.text(15));
      if (t.rounds() > 0 && s.tournament_round() == t.round()) {
        d.opponent_in_round[s.soviet()] = s.german();
        d.opponent_in_round[s.german()] = s.soviet();
      }
      games.push_back(std::move(s));
    }
    // A knock-out's last round may yet need a deciding game: it is over once that is stored.
    if (t.status() == "playing" &&
        (finished_unix != 0 ||
         (!t.knockout() && !games.empty() && t.round() >= t.rounds() &&
          std::all_of(games.begin(), games.end(), [](const auto& x) { return x.status() == "finished"; })))) {
      t.set_status("finished");
    }
    std::map<std::string, int> byes;
    std::map<std::string, std::vector<int>> bye_rounds;  // for the cross-table
    auto& b = db.prepare(
        "SELECT u.name, b.round FROM tournament_byes b JOIN users u ON u.id = b.user_id WHERE b.tournament_id = ?"
        " ORDER BY b.round");
    b.bind_all(id);
    while (b.step()) {
      ++byes[b.text(0)];
      bye_rounds[b.text(0)].push_back(static_cast<int>(b.integer(1)));
    }
    auto& out = db.prepare(
        "SELECT u.name FROM tournament_byes b JOIN users u ON u.id = b.user_id WHERE b.tournament_id = ? AND b.round = ?");
    out.bind_all(id, t.round());
    while (out.step()) {
      t.set_sits_out(t.sits_out() + (t.sits_out().empty() ? "" : ", ") + out.text(0));
      d.sitting_out.insert(out.text(0));
    }
    std::vector<std::string> names;
    for (const auto& [user, name] : d.entrants) names.push_back(name);
    // A knock-out's byes are no points: its standings go by who went out when.
    auto ranked = standings(names, games, t.knockout() ? std::map<std::string, int>{} : byes);
    if (t.knockout()) knockout_ranks(ranked, out_in_round);
    for (auto& s : ranked) {
      s.set_withdrawn(withdrawn.count(s.player()) > 0);
      if (!t.knockout()) {
        for (const int r : bye_rounds[s.player()]) s.add_bye_rounds(r);
      }
      *t.add_standings() = std::move(s);
    }
    if (details) {
      for (auto& s : games) *t.add_games() = std::move(s);
    }
    return d;
  });
}

std::vector<std::pair<std::int64_t, std::string>> Tournaments::told_of(const Described& d) {
  auto told = d.entrants;
  if (std::none_of(told.begin(), told.end(), [&](const auto& e) { return e.first == d.organiser; })) {
    told.emplace_back(d.organiser, d.tournament.organiser());
  }
  return told;
}

bool Tournaments::visible(const Described& d, std::int64_t user) {
  if (!d.tournament.private_() || d.organiser == user) return true;
  return std::any_of(d.entrants.begin(), d.entrants.end(), [&](const auto& e) { return e.first == user; });
}

wire::Tournament Tournaments::as_seen_by(const Described& d, std::int64_t user) {
  wire::Tournament t = d.tournament;
  const auto me = std::find_if(d.entrants.begin(), d.entrants.end(), [&](const auto& e) { return e.first == user; });
  t.set_entered(me != d.entrants.end());
  if (d.organiser == user) t.set_invite_code(d.invite);
  if (me != d.entrants.end() && t.status() == "playing") {
    if (auto o = d.opponent_in_round.find(me->second); o != d.opponent_in_round.end()) t.set_your_opponent(o->second);
  }
  return t;
}

void Tournaments::reply_with(const Caller& c, const std::string& id) {
  auto d = describe(id, true);
  if (!d || !visible(*d, c.user_id)) return no_such_tournament(c, id);
  wire::ServerMessage m;
  *m.mutable_tournament() = as_seen_by(*d, c.user_id);
  c.reply(std::move(m));
}

void Tournaments::get(const Caller& c, const wire::GetTournament& req) {
  if (bad_id(req.tournament_id())) return no_such_tournament(c, req.tournament_id());
  reply_with(c, req.tournament_id());
}

void Tournaments::list(const Caller& c) {
  const auto ids = storage_.read([&](Db& db) {
    std::vector<std::string> out;
    auto& q = db.prepare(
        // Those over are not shown to others: they take no place of the 100.
        "SELECT id, created_unix FROM tournaments WHERE status IN ('open', 'playing') AND private = 0 AND finished_unix = 0"
        " UNION SELECT id, created_unix FROM tournaments WHERE organiser_id = ?"
        " UNION SELECT t.id, t.created_unix FROM tournament_entrants e JOIN tournaments t ON t.id = e.tournament_id"
        " WHERE e.user_id = ? ORDER BY 2 DESC LIMIT 100");
    q.bind_all(c.user_id, c.user_id);
    while (q.step()) out.push_back(q.text(0));
    return out;
  });
  wire::ServerMessage m;
  auto* list = m.mutable_tournament_list();
  for (const auto& id : ids) {
    auto d = describe(id, false);
    if (!d || !visible(*d, c.user_id)) continue;
    auto t = as_seen_by(*d, c.user_id);
    // Finished public tournaments are listed to their own players and organiser only.
    if (t.status() == "finished" && !t.entered() && d->organiser != c.user_id) continue;
    t.clear_standings();
    *list->add_tournaments() = std::move(t);
  }
  c.reply(std::move(m));
}

}  // namespace counterattack::server
