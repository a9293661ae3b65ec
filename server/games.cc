// Versions, per-viewer delta streams, idempotent orders, chat and logs.
#include "games.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>

#include "log.h"
#include "text.h"

namespace counterattack::server {
namespace {

constexpr std::size_t kMaxOrderBytes = 4096;
// At most this much is given back to a player whose deadline passed while the game was not loaded.
constexpr std::int64_t kDeadlineGraceSeconds = 300;

std::string hash_hex(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

game::Side side_enum(int side) { return side == 0 ? game::SOVIET : game::GERMAN; }

// The idempotency key of an order a player's standing orders gave: its version
// behind a prefix that players' own keys may not have. The first answer of a run
// that no order of the opponent's started (standing orders set while the
// decision waits) is marked, so that a retry of the order before it, after a
// restart, is not told of a run it did not cause.
constexpr std::string_view kStandingKeyPrefix = "standing:";
constexpr std::string_view kOwnRunMark = "/set";
std::string standing_key(std::int64_t version, bool own_run = false) {
  return std::string(kStandingKeyPrefix) + std::to_string(version) + (own_run ? std::string(kOwnRunMark) : "");
}
bool is_standing_key(const std::string& key) { return key.starts_with(kStandingKeyPrefix); }
bool starts_own_run(const std::string& key) { return is_standing_key(key) && key.ends_with(kOwnRunMark); }

wire::ServerMessage answer_of(const std::string& game_id, const std::string& key, const Game::KeyRecord& r) {
  wire::ServerMessage m;
  if (r.accepted) {
    auto* a = m.mutable_order_accepted();
    a->set_game_id(game_id);
    a->set_idempotency_key(key);
    a->set_version(r.version);
    a->set_answered_to_version(r.answered_to);
  } else {
    auto* rj = m.mutable_order_rejected();
    rj->set_game_id(game_id);
    rj->set_idempotency_key(key);
    *rj->mutable_rejection() = r.rejection;
  }
  return m;
}

}  // namespace

void no_such_game(const Caller& c, const std::string& game_id) {
  c.error(wire::NOT_FOUND, "There is no game '" + as_given(game_id) + "'.");
}

int seat_of(const Caller& c, const Game& g, const std::string& game_id, const std::string& forbidden) {
  const int side = g.side_of(c.user_id);
  if (side >= 0) return side;
  if (!g.visible_to(c.user_id)) {
    no_such_game(c, game_id);
  } else {
    c.error(wire::FORBIDDEN, forbidden);
  }
  return -1;
}

std::string to_hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string seed_hex(const Game& g) {
  return to_hex(std::string_view(reinterpret_cast<const char*>(g.seed.data()), g.seed.size()));
}

wire::ServerMessage game_ended_message(const std::string& game_id, const std::string& result, const std::string& reason, bool rated,
                                       const std::string& unrated_reason) {
  wire::ServerMessage m;
  auto* e = m.mutable_game_ended();
  e->set_game_id(game_id);
  e->set_result(result);
  e->set_reason(reason);
  e->set_rated(rated);
  e->set_unrated_reason(unrated_reason);
  return m;
}

Frame game_ended_frame(const Game& g) {
  wire::ServerMessage m = game_ended_message(g.id, g.result, g.reason, g.rated, g.unrated_reason);
  auto* e = m.mutable_game_ended();
  e->set_seed_hex(seed_hex(g));
  e->set_soviet_rating_change(g.rating_change[0]);
  e->set_german_rating_change(g.rating_change[1]);
  e->set_rating_counted(g.rating_counted);
  return encode(m);
}

GameService::GameService(Storage& storage, Rulesets rulesets, const Config& config, Mailer& mailer, Ratings& ratings,
                         Vacations& vacations, std::function<void(std::function<void()>)> post)
    : storage_(storage),
      rulesets_(std::move(rulesets)),
      config_(config),
      mailer_(mailer),
      ratings_(ratings),
      vacations_(vacations),
      post_(std::move(post)),
      chat_by_user_(config.chat_messages_per_minute, std::chrono::minutes(1)),
      refusals_by_user_(config.refused_orders_per_minute, std::chrono::minutes(1)),
      standing_by_user_(kStandingChangesPerMinute, std::chrono::minutes(1)),
      rematch_offers_by_user_(kRematchOffersPerHour, std::chrono::hours(1)),
      challenges_by_user_(kChallengesPerHour, std::chrono::hours(1)),
      mutes_by_user_(kMuteChangesPerMinute, kMuteChangeWindow),
      reports_by_user_(kReportsPerHour, kReportWindow) {}

game::ViewerKind GameService::viewer_of(Seat s) {
  switch (s) {
    case Seat::Soviet: return game::VIEWER_SOVIET;
    case Seat::German: return game::VIEWER_GERMAN;
    case Seat::Spectator: return game::VIEWER_SPECTATOR;
    case Seat::Omniscient: return game::VIEWER_OMNISCIENT;
  }
  return game::VIEWER_SPECTATOR;
}

// ---------------------------------------------------------------------------
// Registry and loading
// ---------------------------------------------------------------------------

std::shared_ptr<Game> GameService::find(const std::string& id) {
  if (id.empty() || id.size() > 64) return nullptr;
  std::shared_ptr<Game> g;
  {
    std::lock_guard lock(mu_);
    if (auto it = games_.find(id); it != games_.end()) return it->second;
    g = load(id);  // under the registry lock: a game is loaded once
    if (!g) return nullptr;
    games_[id] = g;
    unloadable_.erase(id);  // mended since, by its operator
    if (g->status == Game::Status::Finished) {
      g->loaded_finished = true;
      ++finished_held_;
    }
  }
  // Read from the database for whatever request: a finished game rests with the
  // others at once, so that the oldest unwatched one is let go.
  maybe_unload(g);
  return g;
}

void GameService::forget(const std::shared_ptr<Game>& g) {
  std::lock_guard lock(mu_);
  if (auto it = games_.find(g->id); it != games_.end() && it->second == g) {
    games_.erase(it);
    if (g->loaded_finished) --finished_held_;
  }
  std::erase(resting_, g);
}

void GameService::preload() {
  const auto ids = storage_.read([](Db& db) {
    std::vector<std::string> out;
    auto& q = db.prepare("SELECT id FROM games WHERE status IN ('open', 'playing') ORDER BY created_unix");
    q.bind_all();
    while (q.step()) out.push_back(q.text(0));
    return out;
  });
  for (const auto& id : ids) find(id);
  log::info("games loaded", {{"games", ids.size()}});
}

std::shared_ptr<Game> GameService::load(const std::string& id) {
  struct OrderRow {
    std::int64_t version;
    int side;
    std::string key, entry;
    std::int64_t hash;
  };
  struct RejectionRow {
    int side;
    std::string key, order, rejection;
    std::int64_t at;
  };
  auto g = std::make_shared<Game>();
  g->id = id;
  std::string options, seed, status, snap_state, snap_dice;
  std::int64_t snap_version = 0;
  std::vector<OrderRow> orders;
  std::vector<RejectionRow> rejections;
  bool found = false;
  try {
    found = storage_.read_together([&](Db& db) {
      static const std::string sql =
          "SELECT g.scenario, g.options, g.seed, g.seed_commitment, g.creator_id, COALESCE(g.soviet_id, 0),"
          " COALESCE(g.german_id, 0), g.private, g.invite_code, g.status, g.result, g.result_reason, g.created_unix,"
          " COALESCE(s.name, ''), COALESCE(d.name, ''), g.move_seconds, g.deadline_unix,"
          " g.tournament_id, g.rated, g.held_until, " + std::string(kRatingChangeColumns) + ", g.tournament_round," +
          " g.clock_seconds, g.increment_seconds, g.soviet_left, g.german_left, g.rematch_of, g.reserved_for,"
          " COALESCE(r.name, ''), g.draw_offer, g.rules_revision, g.unrated_reason, g.offer_quiet,"
          " g.soviet_offered_turn, g.german_offered_turn"
          " FROM games g LEFT JOIN users s ON s.id = g.soviet_id LEFT JOIN users d ON d.id = g.german_id"
          " LEFT JOIN users r ON r.id = g.reserved_for WHERE g.id = ?";
      auto& q = db.prepare(sql.c_str());
      q.bind_all(id);
      bool any = false;
      while (q.step()) {
        any = true;
        g->scenario = q.text(0);
        options = q.text(1);
        seed = q.blob(2);
        g->commitment = q.text(3);
        g->creator = q.integer(4);
        g->user[0] = q.integer(5);
        g->user[1] = q.integer(6);
        g->is_private = q.integer(7) != 0;
        g->invite = q.text(8);
        status = q.text(9);
        g->result = q.text(10);
        g->reason = q.text(11);
        g->created_unix = q.integer(12);
        g->name[0] = q.text(13);
        g->name[1] = q.text(14);
        g->move_seconds = q.integer(15);
        g->deadline_unix = q.integer(16);
        g->tournament_id = q.text(17);
        g->rated = q.integer(18) != 0;
        g->held_until = q.integer(19);
        g->rating_change[0] = static_cast<int>(q.integer(20));
        g->rating_change[1] = static_cast<int>(q.integer(21));
        g->rating_counted = q.integer(22) != 0;
        g->tournament_round = static_cast<int>(q.integer(23));
        g->clock_seconds = q.integer(24);
        g->increment_seconds = q.integer(25);
        g->clock_left[0] = g->committed_clock_left[0] = q.integer(26);
        g->clock_left[1] = g->committed_clock_left[1] = q.integer(27);
        g->rematch_of = q.text(28);
        g->reserved_for = q.integer(29);
        g->reserved_name = q.text(30);
        g->draw_offer = g->committed_draw_offer = static_cast<int>(q.integer(31));
        g->rules_revision = static_cast<int>(q.integer(32));
        g->unrated_reason = q.text(33);
        if (const auto quiet = q.integer(34); quiet >= 0) g->quiet_offer = quiet == 1;
        g->offered_in_turn[0] = static_cast<int>(q.integer(35));
        g->offered_in_turn[1] = static_cast<int>(q.integer(36));
      }
      if (!any) return false;
      auto& s = db.prepare("SELECT version, state, dice FROM snapshots WHERE game_id = ? ORDER BY version DESC LIMIT 1");
      s.bind_all(id);
      while (s.step()) {
        snap_version = s.integer(0);
        snap_state = s.blob(1);
        snap_dice = s.blob(2);
      }
      auto& o = db.prepare(
          "SELECT version, side, idempotency_key, entry, state_hash FROM orders WHERE game_id = ? ORDER BY version");
      o.bind_all(id);
      while (o.step()) orders.push_back({o.integer(0), static_cast<int>(o.integer(1)), o.text(2), o.blob(3), o.integer(4)});
      if (g->is_private && !g->tournament_id.empty()) {
        auto& in = db.prepare(
            "SELECT user_id FROM tournament_entrants WHERE tournament_id = ?1"
            " UNION SELECT organiser_id FROM tournaments WHERE id = ?1");
        in.bind_all(g->tournament_id);
        while (in.step()) g->tournament_insiders.push_back(in.integer(0));
      }
            auto& so = db.prepare("SELECT side, orders FROM standing_orders WHERE game_id = ?");
      so.bind_all(id);
      while (so.step()) {
        const int seat = seat_of_side(so.integer(0));
        g->standing[seat].ParseFromString(so.blob(1));
        g->standing_set[seat] = g->standing[seat].ByteSizeLong() > 0;
      }
      auto& sn = db.prepare("SELECT side, version FROM seen WHERE game_id = ?");
      sn.bind_all(id);
      while (sn.step()) {
        auto& seen = g->seen[seat_of_side(sn.integer(0))];
        seen = std::max(seen, sn.integer(1));
      }
      auto& r = db.prepare("SELECT side, idempotency_key, order_bytes, rejection, at_version FROM rejections WHERE game_id = ?");
      r.bind_all(id);
      while (r.step()) rejections.push_back({static_cast<int>(r.integer(0)), r.text(1), r.blob(2), r.blob(3), r.integer(4)});
      auto& c = db.prepare(
          "SELECT c.channel, u.name, c.text, c.sent_unix, c.user_id FROM chat c JOIN users u ON u.id = c.user_id"
          " WHERE c.game_id = ? ORDER BY c.id DESC LIMIT ?");
      c.bind_all(id, config_.chat_history);
      while (c.step()) {
        Game::ChatLine line;
        line.message.set_game_id(id);
        line.message.set_channel(static_cast<wire::Channel>(c.integer(0)));
        line.message.set_from(c.text(1));
        line.message.set_text(c.text(2));
        line.message.set_sent_unix(c.integer(3));
        line.from_id = c.integer(4);
        g->chat.push_front(std::move(line));
      }
      return true;
    });
  } catch (const DbError& e) {
    log::error("game cannot be read", {{"game", id}, {"error", e.what()}});
    return nullptr;
  }
  if (!found) return nullptr;

  auto fail = [&](const std::string& why) -> std::shared_ptr<Game> {
    log::error("game cannot be loaded", {{"game", id}, {"error", why}});
    unloadable_.insert(id);  // under mu_, as find() holds it
    return nullptr;
  };
  auto rs = rulesets_.find(g->scenario);
  if (rs == rulesets_.end()) return fail("unknown scenario " + g->scenario);
  g->rules = rs->second;
  g->options = split_options(options);
  if (seed.size() != g->seed.size()) return fail("bad seed");
  std::copy(seed.begin(), seed.end(), g->seed.begin());
  g->status = status == "open" ? Game::Status::Open : status == "playing" ? Game::Status::Playing : Game::Status::Finished;

  // The log is the truth: the latest snapshot, then every later order again.
  std::vector<game::Event> setup;
  if (g->rules_revision < 1 || g->rules_revision > g->rules->latest_revision()) {
    return fail("rules revision " + std::to_string(g->rules_revision) + " is not this release's");
  }
  g->match = snap_state.empty() ? g->rules->create(g->options, g->seed, g->rules_revision, &setup)
                                : g->rules->restore(snap_state, snap_dice);
  if (!g->match) return fail("snapshot does not decode");
  std::int64_t version = snap_state.empty() ? 0 : snap_version;
  if (version == 0) {
    for (auto& e : setup) g->recent_events.emplace_back(0, std::move(e));
  }
  std::pair<int, std::string> last_key;  // the player's order a run of standing answers follows
  for (const auto& row : orders) {
    wire::LoggedOrder entry;
    if (!entry.ParseFromString(row.entry)) return fail("order " + std::to_string(row.version) + " does not decode");
    g->last_order_of[seat_of_side(row.side)] = row.version;
    if (!is_standing_key(row.key)) {  // a standing answer is no retry to recognise, nor the player's play
      last_key = {seat_of_side(row.side), row.key};
      g->keys[last_key] = Game::KeyRecord{entry.order().SerializeAsString(), true, row.version, {}, true};
      g->played[seat_of_side(row.side)] = true;
      auto& seen = g->seen[seat_of_side(row.side)];  // they saw the game up to their own order
      seen = std::max(seen, row.version);
    } else if (starts_own_run(row.key)) {
      last_key = {};  // this run and its answers follow no order
    } else if (auto r = g->keys.find(last_key); r != g->keys.end()) {
      r->second.answered_to = row.version;  // the run of answers after the player's order, as its retry says
    }
    if (row.version <= version) continue;
    if (row.version != version + 1) return fail("order " + std::to_string(version + 1) + " is missing");
    const Applied a = g->match->apply(entry.side(), entry.order());
    if (!a.accepted) return fail("order " + std::to_string(row.version) + " is rejected on replay: " + a.rejection.reason());
    version = row.version;
    if (static_cast<std::int64_t>(g->match->state_hash()) != row.hash) {
      return fail("state hash differs after order " + std::to_string(row.version));
    }
    for (const auto& e : entry.events()) g->recent_events.emplace_back(row.version, e);
    while (static_cast<int>(g->recent_events.size()) > config_.recent_events) g->recent_events.pop_front();
  }
  if (!orders.empty() && orders.back().version != version) return fail("the log ends before the snapshot");
  for (auto& r : rejections) {
    Game::KeyRecord rec;
    rec.order_bytes = std::move(r.order);
    rec.version = r.at;
    rec.rejection.ParseFromString(r.rejection);
    rec.committed = true;
    g->keys.emplace(std::make_pair(seat_of_side(r.side), r.key), std::move(rec));
  }
  g->head = g->committed = version;
  g->committed_decider = g->match->decider();
  g->committed_turn = g->match->turn();
  bool clock_moved = false;
  if (g->status == Game::Status::Playing && g->deadline_unix > 0 && g->deadline_unix <= unix_now()) {
    // It passed while the game was not loaded (the server was down, or the game
    // was being read again): that time is not the player's. A little is given
    // back, and stored, so that each later load does not give it again.
    g->deadline_unix = unix_now() + std::min<std::int64_t>(g->full_time(), kDeadlineGraceSeconds);
    clock_moved = true;
  }
  // A clock its player's vacation should hold and does not: one begun while
  // the game was out of memory, or a tournament's stored before it was held.
  if (hold_clock(*g)) clock_moved = true;
  g->committed_deadline = g->deadline_unix;
  // The syncer's callbacks build this game's summaries: its players' ratings are read now.
  for (int s = 0; s < 2; ++s) {
    if (g->user[s] != 0) ratings_.warm(g->user[s], g->scenario);
  }
  for (int s = 0; s < 2; ++s) g->views[s] = g->match->seat_view(viewer_of(static_cast<Seat>(s)));
  {
    // The writes below have callbacks that take the game's lock: held here, they
    // wait for a game built whole, and for a run of standing answers that a stop
    // cut short and that goes on now.
    std::lock_guard l(g->mu);
    if (clock_moved) store_clock(g);
    answer_standing(g, 0);
  }
  log::info("game loaded", {{"game", id},
                            {"version", version},
                            {"state_hash", hash_hex(g->match->state_hash())},
                            {"status", status}});
  return g;
}

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------

wire::GameSummary GameService::summary(const Game& g, int your_side) const {
  wire::GameSummary s;
  s.set_game_id(g.id);
  s.set_scenario(g.scenario);
  for (const auto& o : g.options) s.add_options(o);
  s.set_soviet(g.name[0]);
  s.set_german(g.name[1]);
  s.set_status(g.status == Game::Status::Open ? "open" : g.status == Game::Status::Playing ? "playing" : "finished");
  s.set_private_(g.is_private);
  s.set_version(g.committed);
  if (g.status == Game::Status::Playing) s.set_to_decide(g.committed_decider);
  s.set_result(g.result);
  if (g.status == Game::Status::Finished) s.set_result_reason(g.reason);
  s.set_seed_commitment(g.commitment);
  s.set_your_side(your_side == 0 ? "soviet" : your_side == 1 ? "german" : "");
  if (your_side == 0 || your_side == 1) s.set_your_seen_version(std::min(g.seen[your_side], g.committed));
  s.set_turn(g.committed_turn);
  s.set_move_seconds(g.move_seconds);
  if (g.status == Game::Status::Playing) s.set_deadline_unix(g.committed_deadline);
  if (g.clock_seconds > 0) {
    s.set_clock_seconds(g.clock_seconds);
    s.set_increment_seconds(g.increment_seconds);
    s.set_soviet_clock_left(g.committed_clock_left[0]);
    s.set_german_clock_left(g.committed_clock_left[1]);
  }
  s.set_tournament_id(g.tournament_id);
  s.set_tournament_round(g.tournament_round);
  s.set_rematch_of(g.rematch_of);
  if (g.status == Game::Status::Open) s.set_reserved_for(g.reserved_name);
  if (g.status == Game::Status::Open && g.tournament_id.empty() && config_.open_game_expiry_seconds > 0) {
    s.set_expires_unix(g.created_unix + config_.open_game_expiry_seconds);
  }
  if (g.status == Game::Status::Open && g.is_private && (your_side == 0 || your_side == 1) && g.user[your_side] == g.creator) {
    s.set_invite_code(g.invite);
  }
  add_ratings(s, g.scenario, g.user, g.rated, g.rating_change, g.rating_counted);
  if (g.status == Game::Status::Finished) s.set_unrated_reason(g.unrated_reason);
  if ((your_side == 0 || your_side == 1) && g.standing_set[your_side]) *s.mutable_standing_orders() = g.standing[your_side];
  if (g.status == Game::Status::Playing && (g.committed_draw_offer == 0 || g.committed_draw_offer == 1)) {
    s.set_draw_offered_by(g.committed_draw_offer == 0 ? game::SOVIET : game::GERMAN);
  }
  if (g.status == Game::Status::Playing) {
    s.set_soviet_vacation_until(vacations_.until(g.user[0]));
    s.set_german_vacation_until(vacations_.until(g.user[1]));
  }
  return s;
}

void GameService::record_seen(Game& g, int seat, std::int64_t version) {
  version = std::min(version, g.committed);
  if (seat < 0 || seat > 1 || version <= g.seen[seat]) return;
  g.seen[seat] = version;
  // Rare (a watch ends, a log is read) and off any order's write: lost in a
  // failed batch, the player is only told of a few versions again.
  storage_.write(
      [id = g.id, side = side_enum(seat), version](Db& db) {
        db.prepare(
              "INSERT INTO seen (game_id, side, version) VALUES (?, ?, ?)"
              " ON CONFLICT (game_id, side) DO UPDATE SET version = MAX(version, excluded.version)")
            .run(id, side, version);
      },
      nullptr);
}

void GameService::stop_watching(Game& g, std::uint64_t peer_id) {
  for (const auto& sub : g.subscribers) {
    if (sub.peer_id == peer_id) record_seen(g, g.side_of(sub.user), sub.sent);
  }
  g.unsubscribe(peer_id);
}

void GameService::add_ratings(wire::GameSummary& s, const std::string& scenario, const std::int64_t (&user)[2],
                              bool rated, const int (&change)[2], bool counted) const {
  s.set_rated(rated);
  s.set_rating_counted(counted);
  if (user[0] != 0) *s.mutable_soviet_rating() = ratings_.current(user[0], scenario);
  if (user[1] != 0) *s.mutable_german_rating() = ratings_.current(user[1], scenario);
  s.set_soviet_rating_change(change[0]);
  s.set_german_rating_change(change[1]);
}

void GameService::push_summary(Game& g) {
  for (const auto& sub : g.subscribers) {
    if (auto p = sub.peer.lock()) {
      wire::ServerMessage m;
      *m.mutable_game() = summary(g, g.side_of(sub.user));
      p->deliver(encode(m));
    }
  }
}

void GameService::follow_turns(const Caller& c) {
  {
    std::lock_guard lock(online_mu_);
    const auto pid = c.peer->peer_id();
    auto [it, end] = online_.equal_range(c.user_id);
    if (std::none_of(it, end, [&](const auto& e) { return e.second.first == pid; })) {
      online_.emplace(c.user_id, std::make_pair(pid, std::weak_ptr<Peer>(c.peer)));
    }
  }
  c.ok();
}

void GameService::unfollow_turns(std::int64_t user_id, std::uint64_t peer_id) {
  std::lock_guard lock(online_mu_);
  auto [it, end] = online_.equal_range(user_id);
  while (it != end) it = it->second.first == peer_id ? online_.erase(it) : std::next(it);
}

bool GameService::away(Game& g, int seat) {
  if (std::any_of(g.subscribers.begin(), g.subscribers.end(),
                  [&](const auto& sub) { return sub.seat == static_cast<Seat>(seat) && !sub.peer.expired(); })) {
    return false;
  }
  std::lock_guard lock(online_mu_);
  auto [it, end] = online_.equal_range(g.user[seat]);
  return std::none_of(it, end, [](const auto& e) { return !e.second.second.expired(); });
}

std::vector<std::pair<std::uint64_t, std::shared_ptr<Peer>>> GameService::followers(std::int64_t user_id) {
  std::vector<std::pair<std::uint64_t, std::shared_ptr<Peer>>> out;
  std::lock_guard lock(online_mu_);
  auto [it, end] = online_.equal_range(user_id);
  for (; it != end; ++it) {
    if (auto p = it->second.second.lock()) out.emplace_back(it->second.first, std::move(p));
  }
  return out;
}

std::vector<std::shared_ptr<Peer>> GameService::followers_elsewhere(Game& g, int seat) {
  const auto watching = [&](std::uint64_t pid) {
    return std::any_of(g.subscribers.begin(), g.subscribers.end(), [&](const auto& sub) { return sub.peer_id == pid; });
  };
  std::vector<std::shared_ptr<Peer>> to;
  for (auto& [pid, p] : followers(g.user[seat])) {
    if (!watching(pid)) to.push_back(std::move(p));
  }
  return to;
}

void GameService::tell_elsewhere(Game& g, int seat, const std::function<Frame()>& make) {
  const auto to = followers_elsewhere(g, seat);
  if (to.empty()) return;
  const Frame frame = make();
  for (const auto& p : to) p->deliver(frame);
}

void GameService::tell_game_over(Game& g, std::int64_t actor) {
  for (int seat = 0; seat < 2; ++seat) {
    const auto user = g.user[seat];
    if (user == 0 || user == actor) continue;
    if (away(g, seat)) {
      // A game that never had an opponent (a rematch declined) is not worth a mail.
      if (g.user[1 - seat] != 0 && mailer_.has_address(user)) mailer_.game_over(user, summary(g, seat), g.reason);
      continue;
    }
    tell_elsewhere(g, seat, [&] { return game_ended_frame(g); });
  }
}

void GameService::remind_if_late(Game& g) {
  if (g.status != Game::Status::Playing || g.reminded || g.pending > 0 || g.committed_deadline == 0) return;
  // With a quarter of the time per move (or of a game clock's) left, a player who is away is told once.
  if (4 * (g.committed_deadline - unix_now()) > g.full_time()) return;
  const game::Side decider = g.committed_decider;
  if (decider != game::SOVIET && decider != game::GERMAN) return;
  const int seat = seat_of_side(decider);
  if (!mailer_.has_address(g.user[seat]) || mailer_.turn_mail(g.user[seat]).mode == wire::TURN_MAIL_OFF || !away(g, seat)) return;
  g.reminded = true;
  mailer_.deadline_near(g.user[seat], summary(g, seat), g.played[seat]);
}

Mailer::SinceLooked GameService::since_looked(const Game& g, int seat, std::size_t most) const {
  Mailer::SinceLooked out;
  const std::int64_t seen = std::min(g.seen[seat], g.committed);
  if (seen >= g.committed) return out;
  // Held from the setup on, or from before the first version unseen: nothing is missing.
  out.earlier = g.recent_events.empty() || (g.recent_events.front().first > seen && g.recent_events.front().first > 0);
  std::vector<game::Event> events;
  for (const auto& [v, e] : g.recent_events) {
    if (v > seen && v <= g.committed) events.push_back(e);
  }
  for (const auto& e : g.rules->events_for(events, viewer_of(static_cast<Seat>(seat)))) {
    std::string text = e.text();
    if (e.kind() == game::Event::DIE_ROLLED && e.die() > 0 && text.find(std::to_string(e.die())) == std::string::npos) {
      text += " (die " + std::to_string(e.die()) + ")";  // as the client prints it
    }
    out.lines.push_back(std::move(text));
  }
  if (out.lines.size() > most) {
    // All held: the first, and how many follow; some not held: the latest, after a pointer to the rest.
    if (out.earlier) {
      out.lines.erase(out.lines.begin(), out.lines.end() - static_cast<std::ptrdiff_t>(most));
    } else {
      out.more = out.lines.size() - most;
      out.lines.resize(most);
    }
  }
  return out;
}

bool GameService::notify_turn(Game& g, game::Side was, bool mail) {
  const game::Side now = g.committed_decider;
  if (g.status != Game::Status::Playing || now == was || (now != game::SOVIET && now != game::GERMAN)) return false;
  const int seat = seat_of_side(now);
  if (away(g, seat)) {
    // One mail per game until the player looks at it again; none when they chose a digest, or none at all.
    if (!g.mailed[seat] && mailer_.has_address(g.user[seat]) && mailer_.turn_mail(g.user[seat]).mode == wire::TURN_MAIL_EACH) {
      g.mailed[seat] = true;
      if (mail) mailer_.your_turn(g.user[seat], summary(g, seat), since_looked(g, seat), g.played[seat]);
    }
    return true;
  }
  tell_elsewhere(g, seat, [&] {
    wire::ServerMessage m;
    *m.mutable_your_turn() = summary(g, seat);
    return encode(m);
  });
  return false;
}

void GameService::send_digests() {
  const std::int64_t now = unix_now();
  const auto due = mailer_.digests_due(now);
  if (due.empty()) return;
  const std::set<std::int64_t> wanted(due.begin(), due.end());
  std::vector<std::shared_ptr<Game>> all;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, g] : games_) all.push_back(g);
  }
  std::map<std::int64_t, std::vector<Mailer::Waiting>> waiting;
  for (const auto& g : all) {
    std::lock_guard lock(g->mu);
    const game::Side decider = g->committed_decider;
    if (g->status != Game::Status::Playing || (decider != game::SOVIET && decider != game::GERMAN)) continue;
    const int seat = seat_of_side(decider);
    const std::int64_t user = g->user[seat];
    // A game the player watches or follows is no news; one while they are on vacation waits with them.
    if (!wanted.count(user) || vacations_.running(user) || !away(*g, seat)) continue;
    constexpr std::size_t kDigestEvents = 5;  // one short block per game
    // When the decision came back to the player (the opponent's last order), and a draw offered
    // to them: a change of either is news to them; their own orders since are not.
    const std::int64_t state = 2 * g->last_order_of[1 - seat] + (g->committed_draw_offer == 1 - seat ? 1 : 0);
    waiting[user].push_back(Mailer::Waiting{summary(*g, seat), since_looked(*g, seat, kDigestEvents), state});
  }
  std::vector<std::int64_t> idle;
  for (const auto user : due) {
    if (!waiting.count(user)) idle.push_back(user);
  }
  for (auto& [user, games] : waiting) {
    std::sort(games.begin(), games.end(),
              [](const Mailer::Waiting& a, const Mailer::Waiting& b) { return a.game.game_id() < b.game.game_id(); });
    // Nothing new since the last digest: looked at again as a player for whom nothing waits.
    if (!mailer_.digest(user, games, now)) idle.push_back(user);
  }
  mailer_.nothing_waits(idle, now);
}

std::map<std::int64_t, std::vector<wire::GameSummary>> GameService::announce_started(const std::vector<std::string>& ids, bool each_game) {
  std::map<std::int64_t, std::vector<wire::GameSummary>> your_move;
  for (const auto& id : ids) {
    auto g = find(id);
    if (!g) continue;
    std::lock_guard lock(g->mu);
    if (hold_clock(*g)) store_clock(g);  // created with a clock from now, whoever decides first
    for (int seat = 0; each_game && seat < 2; ++seat) {
      tell_elsewhere(*g, seat, [&] {
        wire::ServerMessage started;
        *started.mutable_game_started() = summary(*g, seat);
        return encode(started);
      });
    }
    if (notify_turn(*g, game::SIDE_UNSPECIFIED, false)) {
      const int seat = seat_of_side(g->committed_decider);
      your_move[g->user[seat]].push_back(summary(*g, seat));
    }
  }
  return your_move;
}

bool GameService::tell_followers(std::int64_t user_id, const Frame& frame) {
  const auto to = followers(user_id);
  for (const auto& [id, p] : to) p->deliver(frame);
  return !to.empty();
}

void GameService::broadcast(Game& g, const Frame& frame) {
  for (const auto& sub : g.subscribers) {
    if (auto p = sub.peer.lock()) p->deliver(frame);
  }
}

bool GameService::may_read(const Game& g, Seat seat, wire::Channel channel) const {
  if (g.status == Game::Status::Finished) return true;
  const bool player = seat == Seat::Soviet || seat == Seat::German;
  return channel == wire::SPECTATORS ? !player : player;
}

// A new version: each live seat's view, its delta from the previous view, and
// the events that seat may read.
void GameService::compute_version(Game& g, const std::vector<game::Event>& events) {
  const bool spectators = std::any_of(g.subscribers.begin(), g.subscribers.end(),
                                      [](const Game::Subscriber& s) { return s.seat == Seat::Spectator; });
  if (!spectators && g.view_live[2]) {
    // Nobody watches as a spectator: stop the stream; the next one starts from a snapshot.
    g.view_live[2] = false;
    g.history[2].clear();
  }
  for (int s = 0; s < 3; ++s) {
    if (!g.view_live[s]) continue;
    const auto viewer = viewer_of(static_cast<Seat>(s));
    auto after = g.match->seat_view(viewer);
    wire::ServerMessage m;
    auto* d = m.mutable_delta();
    d->set_game_id(g.id);
    auto* delta = d->mutable_delta();
    *delta = g.rules->diff(*g.views[s], *after);
    delta->set_from_version(g.head - 1);
    delta->set_to_version(g.head);
    for (auto& e : g.rules->events_for(events, viewer)) *delta->add_events() = std::move(e);
    g.views[s] = std::move(after);
    auto& h = g.history[s];
    h.push_back({g.head, encode(m)});
    while (static_cast<int>(h.size()) > config_.delta_history && h.front().to_version <= g.committed) h.pop_front();
  }
  for (const auto& e : events) g.recent_events.emplace_back(g.head, e);
  while (static_cast<int>(g.recent_events.size()) > config_.recent_events) g.recent_events.pop_front();
}

// Sends each subscriber the deltas it lacks, up to the committed version.
void GameService::flush(Game& g) {
  bool dead = false;
  for (auto& sub : g.subscribers) {
    auto p = sub.peer.lock();
    if (!p) {
      dead = true;
      continue;
    }
    if (sub.seat == Seat::Omniscient || sub.sent >= g.committed) continue;
    const auto& h = g.history[static_cast<int>(sub.seat)];
    auto it = std::lower_bound(h.begin(), h.end(), sub.sent + 1,
                               [](const Game::StoredDelta& d, std::int64_t v) { return d.to_version < v; });
    if (it == h.end() || it->to_version != sub.sent + 1) {
      log::warn("delta stream gap", {{"game", g.id}, {"from", sub.sent}});
    }
    for (; it != h.end() && it->to_version <= g.committed; ++it) p->deliver(it->frame);
    sub.sent = g.committed;
  }
  if (dead) {
    for (const auto& sub : g.subscribers) {
      if (sub.peer.expired()) record_seen(g, g.side_of(sub.user), sub.sent);
    }
    std::erase_if(g.subscribers, [](const Game::Subscriber& s) { return s.peer.expired(); });
  }
}

void GameService::send_catch_up(Game& g, const Caller& c, Seat seat, Frame snapshot, bool tell_end) {
  c.peer->deliver(std::move(snapshot));
  for (const auto& line : g.chat) {
    if (!may_read(g, seat, line.message.channel()) || moderation_.muted(c.user_id, line.from_id)) continue;
    wire::ServerMessage out;
    *out.mutable_chat() = line.message;
    c.peer->deliver(encode(out));
  }
  wire::ServerMessage s;
  *s.mutable_game() = summary(g, g.side_of(c.user_id));  // a player's side, even as they see the whole board
  c.reply(std::move(s));
  if (tell_end) tell_if_over(g, c);
}

void GameService::tell_if_over(const Game& g, const Caller& c) {
  // An end adds no version: a watcher that comes back after it learns of it here.
  if (g.status == Game::Status::Finished && g.pending == 0) c.peer->deliver(game_ended_frame(g));
}

// ---------------------------------------------------------------------------
// Watching
// ---------------------------------------------------------------------------

bool GameService::watch(const Caller& c, const wire::Watch& req) {
  if (req.from_version() < 0) return c.error(wire::BAD_REQUEST, "from_version cannot be negative."), false;
  auto g = find(req.game_id());
  if (!g) return missing_game(c, req.game_id()), false;
  std::unique_lock lock(g->mu);
  const int side = g->side_of(c.user_id);
  if (!g->visible_to(c.user_id)) return no_such_game(c, req.game_id()), false;
  const Seat seat = g->seat_of_reader(c.user_id);
  const std::int64_t from = req.from_version();
  if (from > g->committed) {
    return c.error(wire::BAD_REQUEST, "from_version " + std::to_string(from) + " is ahead of the game (version " +
                                          std::to_string(g->committed) + ")."), false;
  }
  const auto pid = c.peer->peer_id();
  stop_watching(*g, pid);
  // Each finished game read back holds its whole match in memory: while too many
  // are held, a spectator gets this one's view once and it is not followed.
  const bool follow = side >= 0 || !g->loaded_finished || !g->subscribers.empty() || may_follow_finished(g);
  if (side >= 0) g->mailed[side] = false;  // looked at: the next turn away is mailed again
  Game::Subscriber sub{c.peer, pid, seat, 0, c.user_id};
  const int si = static_cast<int>(seat);

  // The missed deltas, when all are kept and they weigh less than a snapshot.
  if (seat != Seat::Omniscient && from > 0 && g->view_live[si]) {
    const auto& h = g->history[si];
    auto it = std::lower_bound(h.begin(), h.end(), from + 1,
                               [](const Game::StoredDelta& d, std::int64_t v) { return d.to_version < v; });
    const bool complete = from == g->committed || (it != h.end() && it->to_version == from + 1);
    std::size_t bytes = 0;
    for (auto j = it; complete && j != h.end() && j->to_version <= g->committed; ++j) bytes += j->frame->size();
    if (complete && bytes < g->views[si]->proto().ByteSizeLong()) {
      for (; it != h.end() && it->to_version <= g->committed; ++it) c.peer->deliver(it->frame);
      sub.sent = g->committed;
      g->subscribers.push_back(std::move(sub));
      wire::ServerMessage s;
      *s.mutable_game() = summary(*g, side);
      c.reply(std::move(s));
      tell_if_over(*g, c);
      return true;
    }
  }

  // A snapshot at the head version; sent once that version is durable.
  if (seat == Seat::Spectator && !g->view_live[2]) {
    g->views[2] = g->match->seat_view(game::VIEWER_SPECTATOR);
    g->view_live[2] = true;
    g->history[2].clear();
  }
  wire::ServerMessage m;
  m.set_request_id(c.request_id);
  auto* snap = m.mutable_snapshot();
  snap->set_game_id(g->id);
  snap->set_version(g->head);
  *snap->mutable_view() = seat == Seat::Omniscient ? g->match->view(game::VIEWER_OMNISCIENT) : g->views[si]->proto();
  std::vector<game::Event> events;
  for (const auto& [v, e] : g->recent_events) events.push_back(e);
  auto visible = g->rules->events_for(events, viewer_of(seat));
  const std::size_t keep = std::min<std::size_t>(visible.size(), static_cast<std::size_t>(config_.recent_events));
  for (auto it = visible.end() - static_cast<std::ptrdiff_t>(keep); it != visible.end(); ++it) *snap->add_recent_events() = *it;
  if (!follow) {
    snap->set_unfollowed(true);
    send_catch_up(*g, c, seat, encode(m));  // a game read back over has nothing pending
    lock.unlock();
    maybe_unload(g);
    return false;
  }
  Frame frame = encode(m);
  sub.sent = g->head;
  g->subscribers.push_back(std::move(sub));
  if (g->head == g->committed && g->pending == 0) {
    send_catch_up(*g, c, seat, std::move(frame));
    return true;
  }
  // An end being stored now reaches this subscriber by its broadcast: not told twice.
  const bool ending = g->status == Game::Status::Finished;
  storage_.write({}, [this, g, c, seat, frame, ending](bool) {
    std::lock_guard l(g->mu);
    if (g->broken) return c.error(wire::INTERNAL, "The game is being reloaded; Watch it again.");
    send_catch_up(*g, c, seat, frame, !ending);
  });
  return true;
}

void GameService::unwatch(const Caller& c, const wire::Unwatch& req) {
  std::shared_ptr<Game> g;
  {
    std::lock_guard lock(mu_);
    if (auto it = games_.find(req.game_id()); it != games_.end()) g = it->second;
  }
  if (g) {
    {
      std::lock_guard lock(g->mu);
      stop_watching(*g, c.peer->peer_id());
    }
    maybe_unload(g);
  }
  c.ok();
}

void GameService::drop_peer(std::uint64_t peer_id, const std::vector<std::string>& game_ids) {
  for (const auto& id : game_ids) {
    std::shared_ptr<Game> g;
    {
      std::lock_guard lock(mu_);
      if (auto it = games_.find(id); it != games_.end()) g = it->second;
    }
    if (!g) continue;
    {
      std::lock_guard lock(g->mu);
      stop_watching(*g, peer_id);
    }
    maybe_unload(g);
  }
}

void GameService::maybe_unload(const std::shared_ptr<Game>& g) {
  auto idle = [](const Game& x) { return x.status == Game::Status::Finished && x.pending == 0 && x.subscribers.empty(); };
  {
    std::lock_guard lock(g->mu);
    if (!idle(*g)) return;
  }
  std::shared_ptr<Game> oldest;
  {
    std::lock_guard lock(mu_);
    // Let go already, by another thread since it was found: it does not rest
    // again, or finished_held_ would count fewer games than rest.
    if (auto it = games_.find(g->id); it == games_.end() || it->second != g) return;
    if (std::find(resting_.begin(), resting_.end(), g) == resting_.end()) resting_.push_back(g);
    if (resting_.size() <= kRestingGames) return;
    oldest = std::move(resting_.front());
    resting_.pop_front();
  }
  std::lock_guard lock(oldest->mu);
  if (idle(*oldest)) forget(oldest);
}

bool GameService::may_follow_finished(const std::shared_ptr<Game>& g) {
  std::lock_guard lock(mu_);
  // Let go since it was found: it is read once.
  if (auto it = games_.find(g->id); it == games_.end() || it->second != g) return false;
  const auto resting = std::count_if(resting_.begin(), resting_.end(), [](const auto& x) { return x->loaded_finished; });
  const bool rests = std::find(resting_.begin(), resting_.end(), g) != resting_.end();
  const std::size_t others = finished_held_ - static_cast<std::size_t>(resting) - (rests ? 0 : 1);
  if (others >= static_cast<std::size_t>(config_.max_finished_games_held)) return false;
  std::erase(resting_, g);
  return true;
}

void GameService::missing_game(const Caller& c, const std::string& game_id) {
  bool unloadable = false;
  {
    std::lock_guard lock(mu_);
    unloadable = unloadable_.count(game_id) > 0;
  }
  // A private game's existence is for its players alone, loadable or not.
  const bool told = unloadable && storage_.read([&](Db& db) {
    auto& q = db.prepare("SELECT private = 0 OR soviet_id IS ? OR german_id IS ? FROM games WHERE id = ?");
    q.bind_all(c.user_id, c.user_id, game_id);
    bool visible = false;
    while (q.step()) visible = q.integer(0) != 0;
    return visible;
  });
  if (told) {
    return c.error(wire::INTERNAL, "Game '" + game_id +
                                       "' is stored but cannot be loaded by this server; its log says why, for the operator.");
  }
  no_such_game(c, game_id);
}

// ---------------------------------------------------------------------------
// Orders
// ---------------------------------------------------------------------------

void GameService::submit(const Caller& c, const wire::SubmitOrder& req) {
  const std::string& key = req.idempotency_key();
  if (key.empty() || key.size() > 128) {
    return c.error(wire::BAD_REQUEST, "An order needs an idempotency_key of 1 to 128 characters.");
  }
  if (is_standing_key(key)) {
    return c.error(wire::BAD_REQUEST, "Idempotency keys that begin with 'standing:' are the server's own.");
  }
  if (!req.has_order() || req.order().kind_case() == game::Order::KIND_NOT_SET) {
    return c.error(wire::BAD_REQUEST, "The order is empty.");
  }
  auto g = find(req.game_id());
  if (!g) return missing_game(c, req.game_id());
  std::unique_lock lock(g->mu);
  const int side = seat_of(c, *g, req.game_id(), "You are not a player in this game; only its players give orders.");
  if (side < 0) return;
  if (g->status == Game::Status::Open) {
    return c.error(wire::CONFLICT, "The game has not started: it waits for a second player.");
  }
  const std::string bytes = req.order().SerializeAsString();
  // Every order of the game fits in a few hundred bytes; a rejected one is
  // stored too (a retry gets the same answer), so its size is bounded.
  if (bytes.size() > kMaxOrderBytes) {
    return c.error(wire::BAD_REQUEST, "An order has at most " + std::to_string(kMaxOrderBytes) + " bytes.");
  }
  const auto k = std::make_pair(side, key);
  // One lookup serves both cases: a retry finds its record, a new key gets an
  // empty one, filled in below or taken back if the order goes no further.
  auto [slot, fresh] = g->keys.try_emplace(k);
  if (!fresh) {
    // A retry: the first answer again, never a second application.
    if (slot->second.order_bytes != bytes) {
      return c.error(wire::CONFLICT, "This idempotency key was already used for a different order.");
    }
    if (slot->second.committed) return c.reply(answer_of(g->id, key, slot->second));
    storage_.write({}, [g, c, k](bool) {
      std::lock_guard l(g->mu);
      auto r = g->keys.find(k);
      if (r == g->keys.end() || !r->second.committed) {
        return c.error(wire::INTERNAL, "The order could not be stored; send it again.");
      }
      c.reply(answer_of(g->id, k.second, r->second));
    });
    return;
  }
  if (g->status == Game::Status::Finished) {
    g->keys.erase(slot);
    return c.error(wire::CONFLICT, "The game is over.");
  }
  if (g->broken) {
    g->keys.erase(slot);
    return c.error(wire::INTERNAL, "The game is being reloaded; send the order again.");
  }
  if (overdue(*g)) {
    // Judged against the clock at its own head: an order before it that passed
    // the decision has already moved the deadline.
    g->keys.erase(slot);
    end_on_time(g, c.user_id);
    return c.error(wire::CONFLICT, "Too late: the time per move has run out, and the game ends on time.");
  }

  const game::Side who = side_enum(side);
  const game::Side deciding = g->match->decider();
  Applied a = g->match->apply(who, req.order());
  if (!a.accepted) {
    // A refusal was judged against every order applied so far: if one of those
    // could not be stored, it tells of a game that never was, and is not given.
    auto judged_on_stored_orders = [g](Db&) {
      if (g->broken) throw std::runtime_error("game " + g->id + " is being reloaded");
    };
    if (!refusals_by_user_.take(std::to_string(c.user_id))) {
      // Beyond the player's share a refusal is answered but neither stored nor
      // remembered, so that a flood of bad orders cannot fill the database: it
      // changed nothing, and a retry is judged again. The answer waits behind the
      // writes before it, as a stored one would.
      Game::KeyRecord rec{bytes, false, g->head, a.rejection, false};
      g->keys.erase(slot);
      storage_.write(judged_on_stored_orders, [c, answer = answer_of(g->id, key, rec)](bool ok) {
        if (!ok) return c.error(wire::INTERNAL, "The order could not be judged; send it again.");
        c.reply(wire::ServerMessage(answer));
      });
      return;
    }
    Game::KeyRecord& rec = slot->second;
    rec.order_bytes = bytes;
    rec.version = g->head;
    rec.rejection = a.rejection;
    ++g->pending;
    storage_.write(
        [g, side, key, bytes, rej = a.rejection.SerializeAsString(), at = g->head, judged_on_stored_orders](Db& db) {
          judged_on_stored_orders(db);
          db.prepare(
                "INSERT INTO rejections (game_id, side, idempotency_key, order_bytes, rejection, at_version, created_unix)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)")
              .run(g->id, side_enum(side), key, Blob{bytes}, Blob{rej}, at, unix_now());
        },
        [g, c, k](bool ok) {
          std::lock_guard l(g->mu);
          --g->pending;
          auto r = g->keys.find(k);
          if (r == g->keys.end()) return;
          if (!ok) {
            g->keys.erase(r);
            return c.error(wire::INTERNAL, "The order could not be stored; send it again.");
          }
          r->second.committed = true;
          c.reply(answer_of(g->id, k.second, r->second));
        });
    return;
  }

  slot->second = Game::KeyRecord{bytes, true, g->head + 1, {}, false};
  play(g, side, key, req.order(), std::move(a), deciding, c, c.user_id);
}

std::optional<game::Order> GameService::standing_answer(const Game& g) {
  // Most games have none: a flag each before asking the rules who decides.
  if ((!g.standing_set[0] && !g.standing_set[1]) || g.status != Game::Status::Playing || g.broken) return std::nullopt;
  const game::Side decider = g.match->decider();
  if (decider != game::SOVIET && decider != game::GERMAN) return std::nullopt;
  const int seat = seat_of_side(decider);
  if (!g.standing_set[seat]) return std::nullopt;
  return g.match->standing_answer(g.standing[seat]);
}

std::int64_t GameService::play(const std::shared_ptr<Game>& g, int side, const std::string& key, const game::Order& order,
                               Applied a, game::Side deciding, const std::optional<Caller>& c, std::int64_t actor) {
  // The acknowledgement names the last version the opponent's standing orders
  // answered after the order: known once the run ends, before any write of it
  // commits. Made only for a run: a lone order's is 0.
  std::shared_ptr<std::int64_t> answered_to;
  std::optional<Caller> caller = c;
  std::string k = key;
  const game::Order* given = &order;
  game::Order answer;  // the standing answer being played, once the run has one
  bool clocks_moved = false;  // by any order of the run so far
  bool offer_lapsed_in_run = false;  // a draw offer, by the caller's order that began the run
  const int caller_seat = side;
  for (;;) {
    const std::int64_t v = ++g->head;
    compute_version(*g, a.events);
    bool offer_lapsed = false;
    if (caller) {
      if (g->draw_offer == 1 - side) {  // answered by playing on
        g->draw_offer = -1;
        offer_lapsed = offer_lapsed_in_run = true;
      }
      g->mailed[side] = false;
      g->played[side] = true;
      g->seen[side] = v;  // their own order: stored with it, and read back as seen
    }
    const bool finished = g->match->over();
    if (finished) end_game(*g, g->match->result(), g->match->result_reason());
    wire::LoggedOrder entry;
    entry.set_version(v);
    entry.set_side(side_enum(side));
    *entry.mutable_order() = *given;
    for (auto& e : a.events) *entry.add_events() = std::move(e);
    const bool snapshot = finished || v % config_.snapshot_every == 0;
    struct Row {
      std::string entry, state, dice, result, reason;
      std::int64_t hash;
    };
    auto row = std::make_shared<Row>(Row{entry.SerializeAsString(), snapshot ? g->match->encode_state() : "",
                                         snapshot ? g->match->encode_dice() : "", g->result, g->reason,
                                         static_cast<std::int64_t>(g->match->state_hash())});
    const game::Side decider = g->match->decider();
    const int turn = g->match->turn();
    // The time per move starts afresh for a player each time the decision passes
    // to them; a game clock stops for the one who passed it, and runs on for the other.
    std::int64_t new_deadline = 0;
    if (g->timed() && decider != deciding && !finished) {
      if (g->clock_seconds > 0 && (deciding == game::SOVIET || deciding == game::GERMAN)) stop_clock(*g, seat_of_side(deciding));
      start_clock(*g, seat_of_side(decider));
      new_deadline = g->deadline_unix;
      clocks_moved = true;
    }
    const std::int64_t held_until = g->held_until;
    const std::array<std::int64_t, 2> clock_left{g->clock_left[0], g->clock_left[1]};
    const std::int64_t deadline_after = g->deadline_unix;
    // The next order of the run, when the decider's standing orders answer now.
    std::optional<game::Order> next = finished ? std::nullopt : standing_answer(*g);
    Applied answered;
    if (next) {
      answered = g->match->apply(decider, *next);
      if (!answered.accepted) {
        log::error("a standing answer was refused", {{"game", g->id}, {"reason", answered.rejection.reason()}});
        next.reset();
      }
    }
    const bool last = !next;
    if (!last && !answered_to) answered_to = std::make_shared<std::int64_t>(0);
    ++g->pending;
    auto rating = std::make_shared<Ratings::Outcome>();
    storage_.write(
        [g, v, side, k, row, snapshot, finished, turn, new_deadline, held_until, clock_left, rating, offer_lapsed](Db& db) {
          if (g->broken) throw std::runtime_error("game " + g->id + " is being reloaded");
          try {
            db.prepare(
                  "INSERT INTO orders (game_id, version, side, idempotency_key, entry, state_hash, created_unix)"
                  " VALUES (?, ?, ?, ?, ?, ?, ?)")
                .run(g->id, v, side_enum(side), k, Blob{row->entry}, row->hash, unix_now());
            if (snapshot) {
              db.prepare("INSERT OR REPLACE INTO snapshots (game_id, version, state, dice) VALUES (?, ?, ?, ?)")
                  .run(g->id, v, Blob{row->state}, Blob{row->dice});
            }
            if (finished) *rating = store_end(db, g->id, row->result, row->reason, turn);
            if (offer_lapsed) db.prepare("UPDATE games SET draw_offer = -1 WHERE id = ?").run(g->id);
            if (new_deadline > 0) {
              db.prepare("UPDATE games SET deadline_unix = ?, held_until = ?, soviet_left = ?, german_left = ? WHERE id = ?")
                  .run(new_deadline, held_until, clock_left[0], clock_left[1], g->id);
            }
          } catch (...) {
            g->broken = true;  // later orders of this game must not be stored after a gap
            throw;
          }
        },
        [this, g, caller = std::move(caller), k = std::make_pair(side, k), v, decider, turn, finished, deadline_after, clock_left, rating,
         last, clocks_moved, answered_to, actor, offer_lapsed, offer_lapsed_in_run, caller_seat](bool ok) {
          std::lock_guard l(g->mu);
          --g->pending;
          if (!ok) {
            g->broken = true;
            forget(g);
            log::error("order not stored; game will be reloaded", {{"game", g->id}, {"version", v}});
            // Every watcher, the sender's own connection too, follows a version that will
            // never be stored: their streams end, and each is told which game to watch again.
            wire::ServerMessage ended;
            ended.mutable_error()->set_code(wire::INTERNAL);
            ended.mutable_error()->set_game_id(g->id);
            ended.mutable_error()->set_message("Game " + g->id + " could not store an order and is read again from its log; Watch it again.");
            broadcast(*g, encode(ended));
            g->subscribers.clear();
            if (caller) caller->error(wire::INTERNAL, "The order could not be stored; nothing was applied. Watch the game again.");
            return;
          }
          // A run of standing answers tells the turn once, after its last order; until
          // then summaries keep the decider, turn and clocks from before it, together.
          const game::Side was = g->committed_decider;
          g->committed = v;
          g->last_order_of[k.first] = v;
          if (offer_lapsed) g->committed_draw_offer = -1;
          if (last) {
            g->committed_decider = decider;
            g->committed_turn = turn;
            if (g->committed_deadline != deadline_after) g->reminded = false;
            g->committed_deadline = deadline_after;
            g->committed_clock_left[0] = clock_left[0];
            g->committed_clock_left[1] = clock_left[1];
          }
          if (finished) ended_durably(*g, *rating);
          if (caller) {
            if (auto r = g->keys.find(k); r != g->keys.end()) {
              r->second.committed = true;
              r->second.answered_to = answered_to ? *answered_to : 0;
            }
            wire::ServerMessage ack;
            auto* oa = ack.mutable_order_accepted();
            oa->set_game_id(g->id);
            oa->set_idempotency_key(k.second);
            oa->set_version(v);
            oa->set_answered_to_version(answered_to ? *answered_to : 0);
            caller->reply(std::move(ack));
          }
          flush(*g);
          if (last) {
            if (offer_lapsed_in_run && !finished) {
              wire::ServerMessage lapsed;
              lapsed.mutable_draw_declined()->set_game_id(g->id);
              lapsed.mutable_draw_declined()->set_by(g->name[caller_seat]);
              lapsed.mutable_draw_declined()->set_played_on(true);
              broadcast(*g, encode(lapsed));
            }
            if ((clocks_moved || offer_lapsed_in_run) && !finished) push_summary(*g);  // the clocks and the offer, as they now stand
            notify_turn(*g, was);
          }
          if (finished) {
            broadcast(*g, game_ended_frame(*g));
            log::info("game finished", {{"game", g->id}, {"result", g->result}, {"version", v}});
            tell_game_over(*g, actor);
          }
        });
    if (last) {
      if (answered_to) *answered_to = v;
      return v;
    }
    side = seat_of_side(decider);
    deciding = decider;
    k = standing_key(v + 1);
    answer = std::move(*next);
    given = &answer;
    a = std::move(answered);
    caller.reset();
  }
}

void GameService::set_standing_orders(const Caller& c, const wire::SetStandingOrders& req) {
  auto g = find(req.game_id());
  if (!g) return missing_game(c, req.game_id());
  std::lock_guard lock(g->mu);
  const int side = seat_of(c, *g, req.game_id(), "You are not a player in this game; only its players give it standing orders.");
  if (side < 0) return;
  if (g->status == Game::Status::Finished) return c.error(wire::CONFLICT, "The game is over.");
  if (g->broken) return c.error(wire::INTERNAL, "The game is being reloaded; send the standing orders again.");
  game::StandingOrders orders = req.orders();
  orders.DiscardUnknownFields();  // what is kept and shown is what the rules read
  if (auto why = g->rules->check_standing_orders(side_enum(side), orders); !why.empty()) {
    return c.error(wire::BAD_REQUEST, why);
  }
  if (!standing_by_user_.take(std::to_string(c.user_id))) {
    return c.error(wire::RATE_LIMITED, "You are changing standing orders too often; wait a minute.");
  }
  auto before = std::make_shared<game::StandingOrders>(g->standing[side]);
  g->standing[side] = orders;
  g->standing_set[side] = orders.ByteSizeLong() > 0;
  ++g->pending;
  storage_.write(
      [g, side, bytes = orders.SerializeAsString()](Db& db) {
        db.prepare("INSERT OR REPLACE INTO standing_orders (game_id, side, orders) VALUES (?, ?, ?)")
            .run(g->id, side_enum(side), Blob{bytes});
      },
      [g, c, side, before, orders](bool ok) {
        std::lock_guard l(g->mu);
        --g->pending;
        if (ok) return c.ok();
        if (g->standing[side].SerializeAsString() == orders.SerializeAsString()) {  // not changed again meanwhile
          g->standing[side] = *before;
          g->standing_set[side] = before->ByteSizeLong() > 0;
        }
        c.error(wire::INTERNAL, "The standing orders could not be stored; send them again.");
      });
  // The decision now, when they cover it (the orders it makes are the player's whatever becomes of this write).
  answer_standing(g, c.user_id, true);
}

void GameService::answer_standing(const std::shared_ptr<Game>& g, std::int64_t actor, bool own_run) {
  if (overdue(*g)) return;
  auto next = standing_answer(*g);
  if (!next) return;
  const game::Side decider = g->match->decider();
  if (Applied a = g->match->apply(decider, *next); a.accepted) {
    play(g, seat_of_side(decider), standing_key(g->head + 1, own_run), *next, std::move(a), decider, std::nullopt, actor);
  }
}

// ---------------------------------------------------------------------------
// Chat and logs
// ---------------------------------------------------------------------------

void GameService::chat(const Caller& c, const wire::SendChat& req) {
  if (const auto ban = moderation_.ban_of(c.user_id)) return c.error(wire::FORBIDDEN, chat_ban_text(ban->until, ban->reason));
  const std::size_t n = code_points(req.text());  // protobuf has already checked the UTF-8
  if (n == 0 || n > 500) return c.error(wire::BAD_REQUEST, "A chat message has 1 to 500 characters.");
  // Others read it in their terminals: nothing that could steer one, or reorder what is around it.
  if (!one_plain_line(req.text())) {
    return c.error(wire::BAD_REQUEST, "A chat message is one line of text, without control characters or direction overrides.");
  }
  if (req.channel() != wire::CHANNEL_UNSPECIFIED && req.channel() != wire::PLAYERS && req.channel() != wire::SPECTATORS) {
    return c.error(wire::BAD_REQUEST, "Unknown chat channel.");
  }
  const wire::Channel channel = req.channel() == wire::SPECTATORS ? wire::SPECTATORS : wire::PLAYERS;
  auto g = find(req.game_id());
  if (!g) return missing_game(c, req.game_id());
  std::lock_guard lock(g->mu);
  const int side = g->side_of(c.user_id);
  if (!g->visible_to(c.user_id)) return no_such_game(c, req.game_id());
  const bool finished = g->status == Game::Status::Finished;
  if (channel == wire::PLAYERS && side < 0) {
    return c.error(wire::FORBIDDEN, "Only the players write in the players' channel; spectators write in the spectators' channel.");
  }
  if (channel == wire::SPECTATORS && side >= 0 && !finished) {
    return c.error(wire::FORBIDDEN, "Players join the spectators' channel when the game is over.");
  }
  if (!chat_by_user_.take(std::to_string(c.user_id))) {
    return c.error(wire::RATE_LIMITED, "You are writing too fast; wait a little before the next message.");
  }
  auto msg = std::make_shared<wire::ChatMessage>();
  msg->set_game_id(g->id);
  msg->set_channel(channel);
  msg->set_from(c.name);
  msg->set_text(req.text());
  msg->set_sent_unix(unix_now());
  storage_.write(
      [g, msg, uid = c.user_id](Db& db) {
        db.prepare("INSERT INTO chat (game_id, channel, user_id, text, sent_unix) VALUES (?, ?, ?, ?, ?)")
            .run(g->id, static_cast<int>(msg->channel()), uid, msg->text(), msg->sent_unix());
      },
      [this, g, c, msg](bool ok) {
        if (!ok) return c.error(wire::INTERNAL, "The message could not be stored.");
        std::lock_guard l(g->mu);
        g->chat.push_back(Game::ChatLine{*msg, c.user_id});
        while (static_cast<int>(g->chat.size()) > config_.chat_history) g->chat.pop_front();
        wire::ServerMessage out;
        *out.mutable_chat() = *msg;
        const Frame frame = encode(out);
        for (const auto& sub : g->subscribers) {
          if (!may_read(*g, sub.seat, msg->channel()) || moderation_.muted(sub.user, c.user_id)) continue;
          if (auto p = sub.peer.lock()) p->deliver(frame);
        }
        c.ok();
      });
}

void GameService::get_log(const Caller& c, const wire::GetLog& req) {
  auto g = find(req.game_id());
  if (!g) return missing_game(c, req.game_id());
  std::unique_lock lock(g->mu);
  if (!g->visible_to(c.user_id)) return no_such_game(c, req.game_id());
  if (req.as_seen()) {
    send_events_as_seen(g, c);
    lock.unlock();
    return maybe_unload(g);  // a finished game read back for this rests with the others
  }
  if (g->status != Game::Status::Finished) return log_closed(c);
  if (g->pending == 0) {
    send_log(*g, c);
    lock.unlock();
    return maybe_unload(g);  // read, not watched: it rests with the others
  }
  // The end is not durable yet: the log opens once it is, if it was stored.
  storage_.write({}, [this, g, c](bool) {
    std::lock_guard l(g->mu);
    if (g->broken || g->status != Game::Status::Finished) return log_closed(c);
    send_log(*g, c);
  });
}

void GameService::log_closed(const Caller& c) {
  c.error(wire::FORBIDDEN, "The log, the seed and the full view open when the game ends.");
}

// Called with g.mu held. Only what is durable: the orders up to the committed version.
void GameService::send_events_as_seen(const std::shared_ptr<Game>& g, const Caller& c) {
  const auto viewer = viewer_of(g->seat_of_reader(c.user_id));
  const int seat = g->side_of(c.user_id);
  const std::int64_t seen_before = seat >= 0 ? std::min(g->seen[seat], g->committed) : 0;
  post_([this, g, id = g->id, rules = g->rules, options = g->options, revision = g->rules_revision, seed = g->seed,
         created = g->created_unix, upto = g->committed, viewer, seat, seen_before, c] {
    try {
      wire::ServerMessage m;
      auto* lg = m.mutable_game_log();
      // Each event the viewer reads, with its order's version and time; none for those it hides.
      const auto add = [&](std::int64_t version, std::int64_t time, const std::vector<game::Event>& events) {
        for (auto& e : rules->events_for(events, viewer)) {
          *lg->add_events() = std::move(e);
          lg->add_event_versions(version);
          lg->add_event_times_unix(time);
        }
      };
      std::vector<game::Event> setup;
      rules->create(options, seed, revision, &setup);  // the setup's events, as the game began
      add(0, created, setup);
      storage_.read([&](Db& db) {
        auto& q = db.prepare(
            "SELECT version, entry, created_unix FROM orders WHERE game_id = ? AND version <= ? ORDER BY version");
        q.bind_all(id, upto);
        wire::LoggedOrder entry;
        while (q.step()) {
          if (!entry.ParseFromString(q.blob(1))) throw std::runtime_error("an order does not decode");
          add(q.integer(0), q.integer(2), {entry.events().begin(), entry.events().end()});
        }
        return 0;
      });
      lg->set_game_id(id);
      lg->set_created_unix(created);
      lg->set_version(upto);
      lg->set_seen_version(seen_before);
      {
        // Read to the end: the player has looked. Recorded before the answer, which a
        // client may follow at once with a question about it.
        std::lock_guard l(g->mu);
        record_seen(*g, seat, upto);
      }
      c.reply(std::move(m));
    } catch (const std::exception& e) {
      log::error("log cannot be read", {{"game", id}, {"error", e.what()}});
      c.error(wire::INTERNAL, "The log could not be read.");
    }
  });
}

// Called with g.mu held, once the end is durable; the orders are read off the caller's thread.
void GameService::send_log(Game& g, const Caller& c) {
  auto base = std::make_shared<wire::ServerMessage>();
  auto* lg = base->mutable_game_log();
  lg->set_game_id(g.id);
  lg->set_seed_hex(seed_hex(g));
  lg->set_rules_revision(g.rules_revision);
  for (const auto& o : g.options) lg->add_options(o);
  *lg->mutable_omniscient() = g.match->view(game::VIEWER_OMNISCIENT);
  lg->set_state_hash(hash_hex(g.match->state_hash()));
  lg->set_created_unix(g.created_unix);
  lg->set_result(g.result);
  lg->set_result_reason(g.reason);
  post_([this, id = g.id, base, c] {
    try {
      storage_.read([&](Db& db) {
        auto& q = db.prepare("SELECT entry, created_unix FROM orders WHERE game_id = ? ORDER BY version");
        q.bind_all(id);
        while (q.step()) {
          auto* entry = base->mutable_game_log()->add_orders();
          entry->ParseFromString(q.blob(0));
          entry->set_played_unix(q.integer(1));  // its row's, not stored in the entry
        }
        return 0;
      });
      c.reply(std::move(*base));
    } catch (const std::exception& e) {
      log::error("log cannot be read", {{"game", id}, {"error", e.what()}});
      c.error(wire::INTERNAL, "The log could not be read.");
    }
  });
}

}  // namespace counterattack::server
