// Vacations: the allowance, and the clocks that stand still meanwhile.
#include "vacations.h"

#include <algorithm>

#include "games.h"
#include "log.h"

namespace counterattack::server {

void Vacations::load() {
  const auto now = unix_now();
  auto rows = storage_.read([&](Db& db) {
    std::vector<std::pair<std::int64_t, Running>> out;
    auto& q = db.prepare("SELECT user_id, start_unix, end_unix FROM vacations WHERE end_unix > ?");
    q.bind_all(now);
    while (q.step()) out.emplace_back(q.integer(0), Running{q.integer(1), q.integer(2)});
    return out;
  });
  std::lock_guard lock(mu_);
  for (auto& [user, r] : rows) running_[user] = r;
}

std::optional<Vacations::Running> Vacations::running(std::int64_t user_id) const {
  std::lock_guard lock(mu_);
  auto it = running_.find(user_id);
  if (it == running_.end() || it->second.until <= unix_now()) return std::nullopt;
  return it->second;
}

std::int64_t Vacations::until(std::int64_t user_id) const {
  const auto r = running(user_id);
  return r ? r->until : 0;
}

void Vacations::set(std::int64_t user_id, Running r) {
  std::lock_guard lock(mu_);
  running_[user_id] = r;
}

void Vacations::clear(std::int64_t user_id) {
  std::lock_guard lock(mu_);
  running_.erase(user_id);
}

int Vacations::days_taken(Db& db, std::int64_t user_id, std::int64_t now) {
  auto& q = db.prepare("SELECT COALESCE(SUM(days), 0) FROM vacations WHERE user_id = ? AND start_unix > ?");
  q.bind_all(user_id, now - kYear);
  int days = 0;
  while (q.step()) days = static_cast<int>(q.integer(0));
  return days;
}

int Vacations::days_used(std::int64_t start, std::int64_t end) {
  return static_cast<int>(std::max<std::int64_t>(1, (end - start + kDay - 1) / kDay));
}

wire::Vacation Vacations::describe(std::int64_t user_id) const {
  wire::Vacation v;
  const auto now = unix_now();
  v.set_days_per_year(config_.vacation_days_per_year);
  const int taken = storage_.read([&](Db& db) { return days_taken(db, user_id, now); });
  v.set_days_left(std::max(0, config_.vacation_days_per_year - taken));
  if (const auto r = running(user_id)) {
    v.set_started_unix(r->start);
    v.set_until_unix(r->until);
  }
  return v;
}

// ---------------------------------------------------------------------------
// The clocks
// ---------------------------------------------------------------------------

void GameService::start_vacation(const Caller& c, const wire::StartVacation& req, std::function<void()> done) {
  const int allowance = config_.vacation_days_per_year;
  if (allowance == 0) return c.error(wire::UNAVAILABLE, "This server gives no vacation time.");
  if (req.days() < 1 || req.days() > allowance) {
    return c.error(wire::BAD_REQUEST, "A vacation is 1 to " + std::to_string(allowance) + " days.");
  }
  std::lock_guard op(vacation_mu_);
  const auto now = unix_now();
  if (const auto r = vacations_.running(c.user_id)) {
    return c.error(wire::CONFLICT, "You are on vacation until " + utc_minute(r->until) + " already; end it first.");
  }
  const auto too_many = [allowance](int left) {
    return (left <= 0 ? std::string("You have no vacation days left")
                      : "You have " + std::to_string(left) + " vacation day" + (left == 1 ? "" : "s") + " left") +
           " (" + std::to_string(allowance) + " in any 365 days).";
  };
  const int left = allowance - storage_.read([&](Db& db) { return Vacations::days_taken(db, c.user_id, now); });
  if (req.days() > left) return c.error(wire::CONFLICT, too_many(left));
  const Vacations::Running v{now, now + req.days() * Vacations::kDay};
  // Judged again where the writes are in order: a request sent before this one
  // was stored may have taken days meanwhile.
  auto left_then = std::make_shared<int>(left);
  change_vacation(
      c, [&] { vacations_.set(c.user_id, v); }, [this](Game& g) { return hold_clock(g); },
      [user = c.user_id, v, days = req.days(), allowance, left_then](Db& db) {
        *left_then = allowance - Vacations::days_taken(db, user, v.start);
        if (days > *left_then) throw std::runtime_error("vacation allowance used up");
        db.prepare("INSERT INTO vacations (user_id, start_unix, end_unix, days) VALUES (?, ?, ?, ?)")
            .run(user, v.start, v.until, days);
      },
      [this, user = c.user_id] { vacations_.clear(user); },
      [left_then, too_many, days = req.days()](const Caller& to) {
        if (days > *left_then) return to.error(wire::CONFLICT, too_many(*left_then));
        to.error(wire::INTERNAL, "The vacation could not be stored; try again.");
      },
      std::move(done));
}

void GameService::end_vacation(const Caller& c, std::function<void()> done) {
  std::lock_guard op(vacation_mu_);
  const auto now = unix_now();
  const auto r = vacations_.running(c.user_id);
  if (!r) return c.error(wire::CONFLICT, "You are not on vacation.");
  change_vacation(
      c, [&] { vacations_.clear(c.user_id); },
      [this, v = *r, now](Game& g) {
        // Only what this vacation added, and only its part not used.
        if (g.held_until != v.until) return false;
        g.deadline_unix = std::max(now, g.deadline_unix - (v.until - now));
        g.held_until = 0;
        return true;
      },
      [user = c.user_id, v = *r, now](Db& db) {
        db.prepare("UPDATE vacations SET end_unix = ?, days = ? WHERE user_id = ? AND start_unix = ? AND end_unix = ?")
            .run(now, Vacations::days_used(v.start, now), user, v.start, v.until);
      },
      [this, user = c.user_id, v = *r] { vacations_.set(user, v); },
      [](const Caller& to) { to.error(wire::INTERNAL, "The end of the vacation could not be stored; try again."); },
      std::move(done));
}

void GameService::change_vacation(const Caller& c, const std::function<void()>& begin,
                                  const std::function<bool(Game&)>& adjust, std::function<void(Db&)> store,
                                  std::function<void()> undo, std::function<void(const Caller&)> refused,
                                  std::function<void()> done) {
  // In memory first: from here on every clock that starts or is held sees the
  // change, so a game found below that already did is left as it is.
  begin();
  // The player's games: those stored as playing, and those in memory whose
  // start is not stored yet.
  auto ids = storage_.read([&](Db& db) {
    std::vector<std::string> out;
    auto& q = db.prepare(
        "SELECT id FROM games WHERE status = 'playing' AND move_seconds > 0 AND (soviet_id = ? OR german_id = ?)");
    q.bind_all(c.user_id, c.user_id);
    while (q.step()) out.push_back(q.text(0));
    return out;
  });
  std::vector<std::shared_ptr<Game>> all;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, g] : games_) all.push_back(g);
  }
  for (const auto& g : all) {
    if (g->move_seconds == 0) continue;  // fixed at creation
    std::lock_guard lock(g->mu);
    if (g->side_of(c.user_id) >= 0 && g->status == Game::Status::Playing) ids.push_back(g->id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::shared_ptr<Game>> games;
  for (const auto& id : ids) {
    if (auto g = find(id)) games.push_back(std::move(g));
  }
  // Every game held at once (in the order of their ids, as nothing else holds
  // two) while the write is queued: an order in one of them is stored before
  // the change or after it, never across it.
  std::vector<std::unique_lock<std::mutex>> held;
  for (auto& g : games) held.emplace_back(g->mu);
  struct Moved {
    std::shared_ptr<Game> g;
    std::int64_t deadline, held_until, was_deadline, was_held_until;
  };
  auto moved = std::make_shared<std::vector<Moved>>();
  for (auto& g : games) {
    const auto was_deadline = g->deadline_unix, was_held_until = g->held_until;
    if (g->status != Game::Status::Playing || g->broken || g->deadline_unix == 0 ||
        g->user[seat_of_side(g->match->decider())] != c.user_id || !adjust(*g)) {
      continue;
    }
    ++g->pending;
    moved->push_back({g, g->deadline_unix, g->held_until, was_deadline, was_held_until});
  }
  storage_.write(
      [store = std::move(store), moved](Db& db) {
        store(db);
        for (const auto& m : *moved) {
          // A game being reloaded reads its clock from its log's last stored state, and is held then.
          if (m.g->broken) continue;
          db.prepare("UPDATE games SET deadline_unix = ?, held_until = ? WHERE id = ? AND status = 'playing'")
              .run(m.deadline, m.held_until, m.g->id);
        }
      },
      [this, c, games, moved, undo = std::move(undo), refused = std::move(refused), done = std::move(done)](bool ok) {
        if (!ok) undo();
        for (const auto& m : *moved) {
          std::lock_guard lock(m.g->mu);
          --m.g->pending;
          if (!ok) {
            if (m.g->deadline_unix == m.deadline && m.g->held_until == m.held_until) {
              m.g->deadline_unix = m.was_deadline;
              m.g->held_until = m.was_held_until;
            }
            continue;
          }
          if (m.g->committed_deadline != m.deadline) m.g->reminded = false;
          m.g->committed_deadline = m.deadline;
        }
        if (!ok) return refused(c);
        // Every game of the player shows whether they are away.
        for (const auto& g : games) {
          std::lock_guard lock(g->mu);
          push_summary(*g);
        }
        log::info(std::string("vacation ") + (vacations_.running(c.user_id) ? "started" : "ended"),
                  {{"user_id", c.user_id}, {"clocks_moved", moved->size()}});
        // The answer reads the account: not on the thread that reports commits.
        post_(done);
      });
}

bool GameService::hold_clock(Game& g) {
  if (g.status != Game::Status::Playing || g.move_seconds == 0 || g.deadline_unix == 0 || g.broken) return false;
  const auto v = vacations_.running(g.user[seat_of_side(g.match->decider())]);
  if (!v || g.held_until == v->until) return false;
  const auto started = std::max(v->start, g.deadline_unix - g.move_seconds);
  g.deadline_unix += std::max<std::int64_t>(0, v->until - started);
  g.held_until = v->until;
  return true;
}

void GameService::stop_clock(Game& g, int seat) {
  g.clock_left[seat] = std::max<std::int64_t>(0, g.deadline_unix - unix_now()) + g.increment_seconds;
}

void GameService::store_clock(const std::shared_ptr<Game>& g) {
  ++g->pending;
  storage_.write(
      [id = g->id, d = g->deadline_unix, h = g->held_until](Db& db) {
        db.prepare("UPDATE games SET deadline_unix = ?, held_until = ? WHERE id = ? AND status = 'playing'").run(d, h, id);
      },
      [this, g, d = g->deadline_unix](bool ok) {
        std::lock_guard lock(g->mu);
        --g->pending;
        if (!ok) return;  // moved in memory all the same; the next load moves it again
        g->committed_deadline = d;
        push_summary(*g);
      });
}

void GameService::start_clock(Game& g, int seat) {
  if (g.clock_seconds > 0) {  // a game clock is not held by vacations: it is for play at one sitting
    g.held_until = 0;
    g.deadline_unix = unix_now() + g.clock_left[seat];
    return;
  }
  const auto v = vacations_.running(g.user[seat]);
  g.held_until = v ? v->until : 0;
  g.deadline_unix = std::max(unix_now(), g.held_until) + g.move_seconds;
}

}  // namespace counterattack::server
