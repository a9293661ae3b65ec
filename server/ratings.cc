#include "ratings.h"

#include <algorithm>
#include <cmath>

#include "games.h"
#include "log.h"
#include "text.h"

namespace counterattack::server {
namespace {

// How fast the volatility may move: Glickman suggests 0.3 to 1.2; a wargame's
// results depend much on the side and the dice, so a middle value.
constexpr double kTau = 0.75;
// The deviation's bounds: a newcomer's, and the least, so that a rating long
// in use still moves with new results.
constexpr double kMaxDeviation = 350, kMinDeviation = 45;
// Above this deviation a rating is provisional (shown "1500?").
constexpr double kProvisional = 110;
// Time away counts as rating periods at this rate: a deviation of 60 grows to
// 110 in a year without rated games.
constexpr double kPeriodsPerDay = 0.21436;

// The side edge starts as if each scenario had this many rated games behind it
// at half a point each, so that a few early results move it little.
constexpr double kEdgePriorGames = 10;
// The edge never goes past this many rating points either way.
constexpr double kMaxEdge = 400;

int rounded(double x) { return static_cast<int>(std::lround(x)); }

// The rating now: the deviation grown by the time since the last rated game.
glicko2::Rating aged(const PlayerStanding& s, std::int64_t now) {
  if (s.updated_unix == 0 || now <= s.updated_unix) return s.rating;
  auto r = glicko2::idle(s.rating, static_cast<double>(now - s.updated_unix) / 86400 * kPeriodsPerDay);
  r.deviation = std::min(r.deviation, kMaxDeviation);
  return r;
}

void describe(const PlayerStanding& s, std::int64_t now, wire::PlayerRating* out) {
  *out->mutable_rating() = Ratings::to_wire(aged(s, now));
  out->set_games(s.games);
  out->set_wins(s.wins);
  out->set_draws(s.draws);
  out->set_losses(s.losses);
  out->set_last_game_unix(s.updated_unix);
}

}  // namespace

Ratings::Ratings(Storage& storage, Rulesets rulesets) : storage_(storage), rulesets_(std::move(rulesets)) {}

wire::Rating Ratings::to_wire(const glicko2::Rating& r) {
  wire::Rating w;
  w.set_rating(rounded(r.rating));
  w.set_deviation(rounded(r.deviation));
  w.set_provisional(r.deviation > kProvisional);
  return w;
}

PlayerStanding Ratings::read(Db& db, std::int64_t user_id, const std::string& scenario) {
  PlayerStanding s;
  auto& q = db.prepare(
      "SELECT rating, deviation, volatility, games, wins, draws, losses, updated_unix FROM ratings"
      " WHERE user_id = ? AND scenario = ?");
  q.bind_all(user_id, scenario);
  if (q.step()) {
    s.rating = {q.real(0), q.real(1), q.real(2)};
    s.games = static_cast<int>(q.integer(3));
    s.wins = static_cast<int>(q.integer(4));
    s.draws = static_cast<int>(q.integer(5));
    s.losses = static_cast<int>(q.integer(6));
    s.updated_unix = q.integer(7);
    q.reset();
  }
  return s;
}

Ratings::Outcome Ratings::record(Db& db, const std::string& game_id) {
  Outcome out;
  Change c;
  std::string result;
  {
    auto& q = db.prepare(
        "SELECT scenario, COALESCE(soviet_id, 0), COALESCE(german_id, 0), result FROM games"
        " WHERE id = ? AND rated != 0 AND status = 'finished'"
        " AND NOT EXISTS (SELECT 1 FROM rating_changes r WHERE r.game_id = games.id)");
    q.bind_all(game_id);
    if (!q.step()) return out;
    c.scenario = q.text(0);
    c.user[0] = q.integer(1);
    c.user[1] = q.integer(2);
    result = q.text(3);
    q.reset();
  }
  double score[2];
  if (result == "Soviet victory") {
    score[0] = 1, score[1] = 0;
  } else if (result == "German victory") {
    score[0] = 0, score[1] = 1;
  } else if (result == "Draw") {
    score[0] = score[1] = 0.5;
  } else {
    return out;  // withdrawn before anyone joined, or aborted
  }
  if (c.user[0] == 0 || c.user[1] == 0 || c.user[0] == c.user[1]) return out;
  // Rated only once each side has given an order of its own (a standing answer
  // is not one), as the abort of a game whose player never came counts it: else
  // two accounts could pass points to each other with an order and a resignation.
  bool moved[2];
  for (int s = 0; s < 2; ++s) {
    auto& q = db.prepare(
        "SELECT EXISTS (SELECT 1 FROM orders WHERE game_id = ? AND side = ? AND idempotency_key NOT GLOB 'standing:*')");
    q.bind_all(game_id, static_cast<std::int64_t>(s == 0 ? game::SOVIET : game::GERMAN));
    moved[s] = q.step() && q.integer(0) != 0;
    q.reset();
  }
  if (!moved[0] || !moved[1]) {
    out.unrated_reason = !moved[0] && !moved[1] ? "not rated: neither side ever moved"
                         : !moved[0]            ? "not rated: the Soviet side never moved"
                                                : "not rated: the German side never moved";
    db.prepare("UPDATE games SET unrated_reason = ? WHERE id = ?").run(out.unrated_reason, game_id);
    return out;
  }

  const std::int64_t now = unix_now();
  PlayerStanding before[2];
  glicko2::Rating start[2];
  for (int s = 0; s < 2; ++s) {
    before[s] = read(db, c.user[s], c.scenario);
    start[s] = aged(before[s], now);
  }
  // Each plays the other as rated, moved by what the side they play is worth:
  // a win with the side that wins less often moves a rating more.
  const double edge = side_edge(db, c.scenario).points;
  for (int s = 0; s < 2; ++s) {
    auto& a = c.after[s];
    a = before[s];
    glicko2::Rating opponent = start[1 - s];
    opponent.rating += s == 0 ? edge : -edge;
    a.rating = glicko2::rate(start[s], {{opponent, score[s]}}, kTau);
    a.rating.deviation = std::clamp(a.rating.deviation, kMinDeviation, kMaxDeviation);
    ++a.games;
    (score[s] == 1 ? a.wins : score[s] == 0 ? a.losses : a.draws) += 1;
    a.updated_unix = now;
    c.change[s] = rounded(a.rating.rating) - rounded(before[s].rating.rating);
    db.prepare(
          "INSERT INTO ratings (user_id, scenario, rating, deviation, volatility, games, wins, draws, losses, updated_unix)"
          " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, scenario) DO UPDATE SET"
          " rating = excluded.rating, deviation = excluded.deviation, volatility = excluded.volatility,"
          " games = excluded.games, wins = excluded.wins, draws = excluded.draws, losses = excluded.losses,"
          " updated_unix = excluded.updated_unix")
        .run(c.user[s], c.scenario, a.rating.rating, a.rating.deviation, a.rating.volatility, a.games, a.wins, a.draws,
             a.losses, a.updated_unix);
    db.prepare("INSERT INTO rating_changes (game_id, user_id, before, after) VALUES (?, ?, ?, ?)")
        .run(game_id, c.user[s], before[s].rating.rating, a.rating.rating);
  }
  db.prepare(
        "INSERT INTO side_records (scenario, games, soviet_points) VALUES (?, 1, ?) ON CONFLICT (scenario) DO UPDATE SET"
        " games = games + 1, soviet_points = soviet_points + excluded.soviet_points")
      .run(c.scenario, score[0]);
  out.change = std::move(c);
  return out;
}

void Ratings::committed(const Change& change) {
  std::lock_guard lock(mu_);
  for (int s = 0; s < 2; ++s) cache_[{change.user[s], change.scenario}] = change.after[s];
}

wire::Rating Ratings::current(std::int64_t user_id, const std::string& scenario) {
  const std::pair<std::int64_t, std::string> key{user_id, scenario};
  {
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end()) return to_wire(aged(it->second, unix_now()));
  }
  // Read without the lock; a commit's ratings that landed meanwhile are newer and stay.
  const auto s = storage_.read([&](Db& db) { return read(db, user_id, scenario); });
  std::lock_guard lock(mu_);
  return to_wire(aged(cache_.emplace(key, s).first->second, unix_now()));
}

void Ratings::warm(std::int64_t user_id, const std::string& scenario) { current(user_id, scenario); }

std::string Ratings::scenario_of(const Caller& c, const std::string& requested) const {
  std::string why;
  const std::string scenario = requested.empty() ? "counterattack" : requested;
  if (!ruleset_of(rulesets_, scenario, &why)) {
    c.error(wire::BAD_REQUEST, why);
    return "";
  }
  return scenario;
}

std::vector<Ratings::Rated> Ratings::everyone(Db& db, const std::string& scenario) {
  std::vector<Rated> out;
  auto& q = db.prepare(
      "SELECT u.name, r.rating, r.deviation, r.volatility, r.games, r.wins, r.draws, r.losses, r.updated_unix"
      " FROM ratings r JOIN users u ON u.id = r.user_id WHERE r.scenario = ? AND r.games > 0 AND u.closed_unix = 0"
      " ORDER BY r.rating DESC");
  q.bind_all(scenario);
  const std::int64_t now = unix_now();
  while (q.step()) {
    Rated p;
    p.name = q.text(0);
    p.standing.rating = {q.real(1), q.real(2), q.real(3)};
    p.standing.games = static_cast<int>(q.integer(4));
    p.standing.wins = static_cast<int>(q.integer(5));
    p.standing.draws = static_cast<int>(q.integer(6));
    p.standing.losses = static_cast<int>(q.integer(7));
    p.standing.updated_unix = q.integer(8);
    p.established = aged(p.standing, now).deviation <= kProvisional;
    out.push_back(std::move(p));
  }
  // Established ratings first, each group by rating.
  std::stable_partition(out.begin(), out.end(), [](const Rated& p) { return p.established; });
  return out;
}

std::vector<wire::RatedGame> Ratings::recent_games(Db& db, std::int64_t user, const std::string& scenario,
                                                  std::int64_t viewer, int limit) {
  std::vector<wire::RatedGame> out;
  auto& q = db.prepare(
      "SELECT g.id, g.soviet_id = rc.user_id, COALESCE(o.name, ''), g.result, rc.before, rc.after, g.updated_unix"
      " FROM rating_changes rc JOIN games g ON g.id = rc.game_id"
      " LEFT JOIN users o ON o.id = CASE WHEN g.soviet_id = rc.user_id THEN g.german_id ELSE g.soviet_id END"
      " WHERE rc.user_id = ? AND g.scenario = ? AND (g.private = 0 OR g.soviet_id = ? OR g.german_id = ?)"
      " ORDER BY g.updated_unix DESC, g.rowid DESC LIMIT ?");
  q.bind_all(user, scenario, viewer, viewer, std::int64_t{limit});
  while (q.step()) {
    wire::RatedGame g;
    g.set_game_id(q.text(0));
    const bool soviet = q.integer(1) != 0;
    g.set_side(soviet ? game::SOVIET : game::GERMAN);
    g.set_opponent(q.text(2));
    const std::string result = q.text(3);
    if (result == "Draw") {
      g.set_result("draw");
    } else {
      g.set_result((result == "Soviet victory") == soviet ? "win" : "loss");
    }
    g.set_rating_after(rounded(q.real(5)));
    g.set_change(rounded(q.real(5)) - rounded(q.real(4)));
    g.set_ended_unix(q.integer(6));
    out.push_back(std::move(g));
  }
  return out;
}

void Ratings::get(const Caller& c, const wire::GetRating& req) {
  if (req.recent_games() < 0 || req.recent_games() > kMostRecent) {
    return c.error(wire::BAD_REQUEST, "recent_games is from 1 to " + std::to_string(kMostRecent) + " (0: the last " +
                                          std::to_string(kRecent) + ").");
  }
  const int limit = req.recent_games() == 0 ? kRecent : req.recent_games();
  const std::string scenario = scenario_of(c, req.scenario());
  if (scenario.empty()) return;
  const std::string name = req.name().empty() ? c.name : req.name();
  struct Found {
    std::string name;  // empty: no such player
    PlayerStanding standing;
    int rank = 0;
    std::vector<wire::RatedGame> recent;
  };
  const auto f = storage_.read_together([&](Db& db) {
    Found out;
    auto& q = db.prepare("SELECT id, name FROM users WHERE name = ?");
    q.bind_all(name);
    if (!q.step()) return out;
    const std::int64_t user = q.integer(0);
    out.name = q.text(1);
    q.reset();
    out.standing = read(db, user, scenario);
    const auto all = everyone(db, scenario);
    for (std::size_t i = 0; i < all.size() && all[i].established; ++i) {
      if (all[i].name == out.name) out.rank = static_cast<int>(i) + 1;
    }
    out.recent = recent_games(db, user, scenario, c.user_id, limit);  // a private game's id and players are its own
    return out;
  });
  if (f.name.empty()) return c.error(wire::NOT_FOUND, "There is no player '" + as_given(name) + "'.");
  wire::ServerMessage m;
  auto* p = m.mutable_player_rating();
  p->set_name(f.name);
  p->set_scenario(scenario);
  describe(f.standing, unix_now(), p);
  p->set_rank(f.rank);
  for (const auto& g : f.recent) *p->add_recent() = g;
  c.reply(std::move(m));
}

Ratings::SideEdge Ratings::side_edge(Db& db, const std::string& scenario) {
  auto& q = db.prepare("SELECT games, soviet_points FROM side_records WHERE scenario = ?");
  q.bind_all(scenario);
  SideEdge e;
  double soviet_points = 0;
  if (q.step()) {
    e.games = static_cast<int>(q.integer(0));
    soviet_points = q.real(1);
    q.reset();
  }
  // The Soviet side's share of the points, and the rating difference at which
  // Glicko's expected score (400 points a factor of ten) is that share.
  const double share = (soviet_points + kEdgePriorGames / 2) / (e.games + kEdgePriorGames);
  e.points = std::clamp(400 * std::log10((1 - share) / share), -kMaxEdge, kMaxEdge);
  return e;
}

void Ratings::list(const Caller& c, const wire::ListRatings& req) {
  const std::string scenario = scenario_of(c, req.scenario());
  if (scenario.empty()) return;
  SideEdge edge;
  const auto all = storage_.read([&](Db& db) {
    edge = side_edge(db, scenario);
    return everyone(db, scenario);
  });
  wire::ServerMessage m;
  auto* list = m.mutable_rating_list();
  list->set_scenario(scenario);
  list->set_german_edge(rounded(edge.points));
  list->set_edge_games(edge.games);
  const std::int64_t now = unix_now();
  for (std::size_t i = 0; i < all.size() && i < kListed; ++i) {
    auto* p = list->add_players();
    p->set_name(all[i].name);
    p->set_scenario(scenario);
    describe(all[i].standing, now, p);
    if (all[i].established) p->set_rank(static_cast<int>(i) + 1);
  }
  c.reply(std::move(m));
}

}  // namespace counterattack::server
