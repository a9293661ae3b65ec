// Chat moderation: mutes and chat bans in memory, and the players' requests.
#include "chat_moderation.h"

#include "games.h"
#include "text.h"

namespace counterattack::server {

namespace {

// At most this many of the reported player's lines go with a report.
constexpr int kEvidenceLines = 20;
constexpr std::size_t kMostReportReason = 200;

// A mute or unmute stored for its limit; those past the limit's window go.
void note_mute_change(Db& db, std::int64_t user_id, std::chrono::seconds window) {
  const std::int64_t now = unix_now();
  db.prepare("DELETE FROM mute_changes WHERE changed_unix <= ?").run(now - window.count());
  db.prepare("INSERT INTO mute_changes (user_id, changed_unix) VALUES (?, ?)").run(user_id, now);
}

}  // namespace

std::string chat_ban_text(std::int64_t until_unix, const std::string& reason) {
  const std::string when = until_unix >= kChatBannedUntilLifted ? "until they lift it" : "until " + utc_minute(until_unix);
  return "The server's operator has barred you from chat " + when + ": " + reason;
}

void ChatModeration::load(Storage& storage) {
  auto mutes = storage.read([](Db& db) {
    std::map<std::int64_t, std::set<std::int64_t>> out;
    auto& q = db.prepare("SELECT user_id, muted_id FROM mutes");
    q.bind_all();
    while (q.step()) out[q.integer(0)].insert(q.integer(1));
    return out;
  });
  {
    std::lock_guard lock(mu_);
    mutes_ = std::move(mutes);
  }
  poll_bans(storage);
}

void GameService::load_moderation_limits() {
  const std::int64_t now = unix_now();
  struct Counted {
    std::vector<std::pair<std::int64_t, std::int64_t>> mutes, reports;  // user, when
  };
  const auto counted = storage_.read([&](Db& db) {
    Counted out;
    auto& m = db.prepare("SELECT user_id, changed_unix FROM mute_changes WHERE changed_unix > ?");
    m.bind_all(now - kMuteChangeWindow.count());
    while (m.step()) out.mutes.emplace_back(m.integer(0), m.integer(1));
    auto& r = db.prepare("SELECT reporter_id, created_unix FROM chat_reports WHERE created_unix > ?");
    r.bind_all(now - kReportWindow.count());
    while (r.step()) out.reports.emplace_back(r.integer(0), r.integer(1));
    return out;
  });
  for (const auto& [user, at] : counted.mutes) mutes_by_user_.counted_before(std::to_string(user), std::chrono::seconds(now - at));
  for (const auto& [user, at] : counted.reports) {
    reports_by_user_.counted_before(std::to_string(user), std::chrono::seconds(now - at));
  }
}

bool ChatModeration::muted(std::int64_t reader, std::int64_t writer) const {
  if (reader == 0) return false;
  std::lock_guard lock(mu_);
  const auto it = mutes_.find(reader);
  return it != mutes_.end() && it->second.contains(writer);
}

bool ChatModeration::add_mute(std::int64_t reader, std::int64_t writer) {
  std::lock_guard lock(mu_);
  auto& of = mutes_[reader];
  if (of.size() >= kMostMuted && !of.contains(writer)) return false;
  of.insert(writer);
  return true;
}

void ChatModeration::remove_mute(std::int64_t reader, std::int64_t writer) {
  std::lock_guard lock(mu_);
  if (auto it = mutes_.find(reader); it != mutes_.end()) {
    it->second.erase(writer);
    if (it->second.empty()) mutes_.erase(it);
  }
}

std::optional<ChatModeration::Ban> ChatModeration::ban_of(std::int64_t user) const {
  std::lock_guard lock(mu_);
  const auto it = bans_.find(user);
  // A ban that has run out is over at once, not at the next poll.
  if (it == bans_.end() || it->second.until <= unix_now()) return std::nullopt;
  return it->second;
}

std::vector<ChatModeration::Seen> ChatModeration::poll_bans(Storage& storage) {
  struct Row {
    std::string name;
    Ban ban;
  };
  auto rows = storage.read([](Db& db) {
    std::map<std::int64_t, Row> out;
    auto& q = db.prepare(
        "SELECT id, name, chat_banned_until, chat_ban_reason FROM users WHERE chat_banned_until <> 0 AND chat_banned_until > ?");
    q.bind_all(unix_now());
    while (q.step()) out[q.integer(0)] = Row{q.text(1), Ban{q.integer(2), q.text(3)}};
    return out;
  });
  std::vector<Seen> seen;
  std::map<std::int64_t, Ban> next;
  std::lock_guard lock(mu_);
  for (auto& [id, row] : rows) {
    const auto was = bans_.find(id);
    if (was == bans_.end() || was->second.until != row.ban.until || was->second.reason != row.ban.reason) {
      seen.push_back(Seen{row.name, row.ban.until >= kChatBannedUntilLifted ? "indefinite" : utc_minute(row.ban.until), row.ban.reason});
    }
    next[id] = std::move(row.ban);
  }
  bans_ = std::move(next);
  return seen;
}

// ---------------------------------------------------------------------------
// The players' requests
// ---------------------------------------------------------------------------

GameService::NamedPlayer GameService::player_named(const std::string& name) {
  return storage_.read([&name](Db& db) {
    auto& q = db.prepare("SELECT id, name, closed_unix FROM users WHERE name = ?");
    q.bind_all(name);
    NamedPlayer found;
    while (q.step()) found = NamedPlayer{q.integer(0), q.text(1), q.integer(2) != 0};
    return found;
  });
}

void GameService::answer_muted(const Caller& c, const std::string& named) {
  auto names = storage_.read([uid = c.user_id](Db& db) {
    std::vector<std::string> out;
    auto& q = db.prepare(
        "SELECT u.name FROM mutes m JOIN users u ON u.id = m.muted_id WHERE m.user_id = ? ORDER BY u.name COLLATE NOCASE");
    q.bind_all(uid);
    while (q.step()) out.push_back(q.text(0));
    return out;
  });
  wire::ServerMessage m;
  auto* muted = m.mutable_muted_players();
  for (auto& n : names) muted->add_names(std::move(n));
  muted->set_name(named);
  c.reply(std::move(m));
}

void GameService::list_muted(const Caller& c) { answer_muted(c); }

void GameService::mute(const Caller& c, const wire::Mute& req) {
  if (req.name().empty()) return c.error(wire::BAD_REQUEST, "Name the player to mute.");
  const auto player = player_named(req.name());
  const std::int64_t id = player.id;
  if (id == 0) return c.error(wire::NOT_FOUND, "There is no player '" + as_given(req.name()) + "'.");
  if (id == c.user_id) return c.error(wire::BAD_REQUEST, "You cannot mute yourself.");
  // A closed account writes no more chat: a mute of it would only fill the list.
  if (player.closed) return c.error(wire::CONFLICT, player.name + " closed their account: they write no more chat.");
  if (moderation_.muted(c.user_id, id)) return answer_muted(c, player.name);
  if (!mutes_by_user_.take(std::to_string(c.user_id))) {
    return c.error(wire::RATE_LIMITED, "You are muting and unmuting too fast; wait a minute.");
  }
  if (!moderation_.add_mute(c.user_id, id)) {
    return c.error(wire::BAD_REQUEST, "You have muted " + std::to_string(ChatModeration::kMostMuted) +
                                          " players, the most there may be: unmute one first.");
  }
  storage_.write(
      [uid = c.user_id, id](Db& db) {
        db.prepare("INSERT OR IGNORE INTO mutes (user_id, muted_id, created_unix) VALUES (?, ?, ?)").run(uid, id, unix_now());
        note_mute_change(db, uid, kMuteChangeWindow);
      },
      [this, c, id, name = player.name](bool ok) {
        if (!ok) {
          moderation_.remove_mute(c.user_id, id);
          return c.error(wire::INTERNAL, "The mute could not be stored.");
        }
        post_([this, c, name] { answer_muted(c, name); });  // a read: not on the thread that reports commits
      });
}

void GameService::unmute(const Caller& c, const wire::Unmute& req) {
  if (req.name().empty()) return c.error(wire::BAD_REQUEST, "Name the player to unmute.");
  // A closed account muted before it closed is unmuted as any other.
  const auto player = player_named(req.name());
  const std::int64_t id = player.id;
  if (id == 0 || !moderation_.muted(c.user_id, id)) {
    return c.error(wire::NOT_FOUND, "You have not muted '" + (id == 0 ? as_given(req.name()) : player.name) + "'.");
  }
  if (!mutes_by_user_.take(std::to_string(c.user_id))) {
    return c.error(wire::RATE_LIMITED, "You are muting and unmuting too fast; wait a minute.");
  }
  moderation_.remove_mute(c.user_id, id);
  storage_.write(
      [uid = c.user_id, id](Db& db) {
        db.prepare("DELETE FROM mutes WHERE user_id = ? AND muted_id = ?").run(uid, id);
        note_mute_change(db, uid, kMuteChangeWindow);
      },
      [this, c, id, name = player.name](bool ok) {
        if (!ok) {
          moderation_.add_mute(c.user_id, id);
          return c.error(wire::INTERNAL, "The unmute could not be stored.");
        }
        post_([this, c, name] { answer_muted(c, name); });  // a read: not on the thread that reports commits
      });
}

void GameService::report_chat(const Caller& c, const wire::ReportChat& req) {
  const std::string& reason = req.reason();
  if (reason.empty() || code_points(reason) > kMostReportReason || blank(reason)) {
    return c.error(wire::BAD_REQUEST, "A report's reason has 1 to 200 characters: say what was wrong.");
  }
  if (!one_plain_line(reason)) {
    return c.error(wire::BAD_REQUEST, "A report's reason is one line of text, without control characters or direction overrides.");
  }
  auto g = find(req.game_id());
  if (!g) return missing_game(c, req.game_id());
  // The channels the reporter reads now: the evidence is what they could have read.
  int players = -1, spectators = -1;
  {
    std::lock_guard lock(g->mu);
    if (!g->visible_to(c.user_id)) return no_such_game(c, req.game_id());
    const Seat seat = g->seat_of_reader(c.user_id);
    if (may_read(*g, seat, wire::PLAYERS)) players = wire::PLAYERS;
    if (may_read(*g, seat, wire::SPECTATORS)) spectators = wire::SPECTATORS;
  }
  maybe_unload(g);  // a finished game read back for this rests with the others
  if (req.name().empty()) return c.error(wire::BAD_REQUEST, "Name the player to report.");
  const auto found = player_named(req.name());
  const std::int64_t id = found.id;
  const std::string& name = found.name;
  if (id == 0) return c.error(wire::NOT_FOUND, "There is no player '" + as_given(req.name()) + "'.");
  if (id == c.user_id) return c.error(wire::BAD_REQUEST, "You cannot report yourself.");
  // The operator could do nothing about it: a closed account writes no more chat.
  if (found.closed) return c.error(wire::CONFLICT, name + " closed their account: they write no more chat.");
  const std::string game_id = g->id;
  auto [evidence, reported_before] = storage_.read([&](Db& db) {
    std::vector<std::string> lines;
    auto& q = db.prepare(
        "SELECT channel, text, sent_unix FROM chat WHERE game_id = ? AND user_id = ? AND (channel = ? OR channel = ?)"
        " ORDER BY id DESC LIMIT ?");
    q.bind_all(game_id, id, players, spectators, kEvidenceLines);
    while (q.step()) {
      lines.push_back(utc_minute(q.integer(2)) + " " + (q.integer(0) == wire::SPECTATORS ? "spectators" : "players") + ": " +
                      q.text(1));
    }
    auto& d = db.prepare(
        "SELECT 1 FROM chat_reports WHERE reporter_id = ? AND reported_id = ? AND game_id = ? AND handled_unix = 0");
    d.bind_all(c.user_id, id, game_id);
    bool before = false;
    while (d.step()) before = true;
    return std::make_pair(std::move(lines), before);
  });
  if (evidence.empty()) return c.error(wire::BAD_REQUEST, name + " has written nothing you can read in game " + game_id + ".");
  if (reported_before) {
    return c.error(wire::CONFLICT, "You have reported " + name + " in game " + game_id +
                                       " already, and the server's operator has not yet handled it.");
  }
  if (!reports_by_user_.take(std::to_string(c.user_id))) {
    return c.error(wire::RATE_LIMITED, "You have made " + std::to_string(kReportsPerHour) +
                                           " reports in the last hour; wait before the next.");
  }
  std::string text;
  for (auto it = evidence.rbegin(); it != evidence.rend(); ++it) text += (text.empty() ? "" : "\n") + *it;
  // The index of waiting reports keeps a second one out, should two arrive together.
  auto stored = std::make_shared<bool>(false);
  storage_.write(
      [uid = c.user_id, id, game_id, reason, text, stored](Db& db) {
        db.prepare(
              "INSERT OR IGNORE INTO chat_reports (reporter_id, reported_id, game_id, reason, evidence, created_unix)"
              " VALUES (?, ?, ?, ?, ?, ?)")
            .run(uid, id, game_id, reason, text, unix_now());
        *stored = db.changes() > 0;
      },
      [c, stored, name, game_id](bool ok) {
        if (!ok) return c.error(wire::INTERNAL, "The report could not be stored.");
        if (!*stored) {
          return c.error(wire::CONFLICT, "You have reported " + name + " in game " + game_id +
                                             " already, and the server's operator has not yet handled it.");
        }
        wire::ServerMessage m;
        m.mutable_chat_reported()->set_name(name);
        m.mutable_chat_reported()->set_game_id(game_id);
        c.reply(std::move(m));
      });
}

}  // namespace counterattack::server
