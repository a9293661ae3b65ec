#include "moderation.h"
#include "chat_moderation.h"
#include "text.h"

#include <sodium.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>

namespace counterattack::server {

namespace {

constexpr int kSchemaWithSuspensions = 25;
constexpr int kSchemaWithOperatorViews = 27;
constexpr int kSchemaWithChatModeration = 33;
constexpr std::size_t kMostReasonBytes = 300;

}  // namespace

std::unique_ptr<Db> open_for_moderation(const std::string& db_path, std::string& error, int needs) {
  std::error_code ec;
  if (!std::filesystem::exists(db_path, ec)) {
    error = "there is no database " + db_path;
    return nullptr;
  }
  auto db = std::make_unique<Db>(db_path, false, error);
  if (!db->ok()) return nullptr;
  int version = 0;
  try {
    auto& v = db->prepare("PRAGMA user_version");
    while (v.step()) version = static_cast<int>(v.integer(0));
  } catch (const DbError& e) {
    error = db_path + " cannot be read as a database (" + e.what() + ")";
    return nullptr;
  }
  if (version < needs) {
    error = "the database is at schema " + std::to_string(version) + ": start this counterattackd on it once, to upgrade it";
    return nullptr;
  }
  if (version > latest_schema()) {
    error = "the database is at schema " + std::to_string(version) + ", made by a newer counterattackd: use that release";
    return nullptr;
  }
  return db;
}

namespace {

// Runs `body` in one write transaction; "" or why it failed.
template <typename Body>
std::string in_transaction(Db& db, Body body) {
  try {
    db.exec("BEGIN IMMEDIATE");
    std::string why;
    try {
      why = body();
    } catch (...) {
      db.exec("ROLLBACK");
      throw;
    }
    db.exec(why.empty() ? "COMMIT" : "ROLLBACK");
    return why;
  } catch (const DbError& e) {
    return std::string("the database: ") + e.what();
  }
}

// An operator's change: the database opened at schema `needs` or later, and
// `body(db)` run in one write transaction; "" or why nothing changed.
template <typename Body>
std::string operator_change(const std::string& db_path, int needs, Body body) {
  std::string error;
  auto db = open_for_moderation(db_path, error, needs);
  if (!db) return error;
  return in_transaction(*db, [&]() -> std::string { return body(*db); });
}

// A player by name (without case), as stored; id 0 when there is none.
struct Player {
  std::int64_t id = 0;
  std::string name;
  std::int64_t closed_unix = 0, suspended_until = 0;
};

// Why a reason `who` (the player, the players) are told cannot be stored; "" when it can.
std::string reason_refused(const std::string& reason, const std::string& who) {
  if (reason.size() > kMostReasonBytes) return "the reason is longer than " + std::to_string(kMostReasonBytes) + " bytes";
  if (!valid_utf8(reason)) return "the reason is not UTF-8 text";
  if (!one_plain_line(reason)) return "the reason must be one line of text, without tabs or other control characters";
  if (blank(reason)) return "say why with --reason: " + who + " told it";
  return "";
}

Player player_named(Db& db, const std::string& name) {
  auto& q = db.prepare("SELECT id, name, closed_unix, suspended_until FROM users WHERE name = ?");
  q.bind_all(name);
  Player p;
  while (q.step()) p = Player{q.integer(0), q.text(1), q.integer(2), q.integer(3)};
  return p;
}

}  // namespace

std::string operator_end_text(bool waiting_for_opponent, const std::string& reason) {
  return (waiting_for_opponent ? "Cancelled by the server's operator: " : "Aborted by the server's operator, and no rating changes: ") +
         reason;
}

std::string operator_withdrawal_text(const std::string& reason) { return "cancelled by the server's operator: " + reason; }

std::string suspension_text(std::int64_t until_unix, const std::string& reason) {
  const std::string when = until_unix >= kSuspendedIndefinitely ? "" : " until " + utc_minute(until_unix);
  return "This account is suspended" + when + " by the server's operator: " + reason;
}

std::string suspend_account(const std::string& db_path, const std::string& name, int days, const std::string& reason,
                            std::string& said) {
  if (days < 0 || days > 3650) return "--days must be between 1 and 3650 (none: until reinstated)";
  if (auto why = reason_refused(reason, "the player is"); !why.empty()) return why;
  return operator_change(db_path, kSchemaWithSuspensions, [&](Db& db) -> std::string {
    const Player p = player_named(db, name);
    const std::int64_t id = p.id;
    const std::string& stored_name = p.name;
    if (id == 0) return "there is no player '" + name + "'";
    if (p.closed_unix != 0) return stored_name + " has closed their account";
    const std::int64_t until = days == 0 ? kSuspendedIndefinitely : unix_now() + std::int64_t{days} * 86400;
    db.prepare("UPDATE users SET suspended_until = ?, suspended_reason = ? WHERE id = ?").run(until, reason, id);
    db.prepare("DELETE FROM sessions WHERE user_id = ?").run(id);
    const auto sessions = db.changes();
    // Suspended until reinstated, an organiser's tournaments not yet started are
    // cancelled, and left for the server to tell (as a cancellation stored but not told).
    std::int64_t cancelled = 0;
    if (days == 0) {
      db.prepare(
            "UPDATE tournaments SET status = 'cancelled', unannounced = 1, cancel_reason = ?, cancelled_by = ?"
            " WHERE organiser_id = ? AND status = 'open'")
          .run("Its organiser " + stored_name + "'s account is suspended.", id, id);
      cancelled = db.changes();
    }
    // Tournament entries are the database's alone: a tournament not yet started
    // loses the player here, and its start pairs the others.
    db.prepare(
          "DELETE FROM tournament_entrants WHERE user_id = ?"
          " AND tournament_id IN (SELECT id FROM tournaments WHERE status = 'open')")
        .run(id);
    const auto entries = db.changes();
    said = "Suspended " + stored_name + (days == 0 ? " until reinstated" : " until " + utc_minute(until)) + "; " +
           std::to_string(sessions) + (sessions == 1 ? " session" : " sessions") + " ended, " + std::to_string(entries) +
           (entries == 1 ? " tournament entry" : " tournament entries") + " withdrawn" +
           (cancelled > 0 ? ", " + std::to_string(cancelled) + (cancelled == 1 ? " tournament" : " tournaments") +
                                " they organise cancelled"
                          : "") +
           ". They are told: " + suspension_text(until, reason);
    return "";
  });
}

std::string reinstate_account(const std::string& db_path, const std::string& name, std::string& said) {
  return operator_change(db_path, kSchemaWithSuspensions, [&](Db& db) -> std::string {
    const Player p = player_named(db, name);
    if (p.id == 0) return "there is no player '" + name + "'";
    if (p.suspended_until <= unix_now()) return p.name + " is not suspended";
    db.prepare("UPDATE users SET suspended_until = 0, suspended_reason = '' WHERE id = ?").run(p.id);
    said = "Reinstated " + p.name + ": they may log in again.";
    return "";
  });
}

std::string list_suspended(const std::string& db_path, std::string& said) {
  std::string error;
  auto db = open_for_moderation(db_path, error, kSchemaWithSuspensions);
  if (!db) return error;
  try {
    auto& q = db->prepare(
        "SELECT name, suspended_until, suspended_reason FROM users WHERE suspended_until <> 0 AND suspended_until > ?"
        " ORDER BY name COLLATE NOCASE");
    q.bind_all(unix_now());
    said.clear();
    while (q.step()) {
      const auto until = q.integer(1);
      said += q.text(0) + "\t" + (until >= kSuspendedIndefinitely ? "until reinstated" : "until " + utc_minute(until)) + "\t" +
              q.text(2) + "\n";
    }
    if (said.empty()) said = "No account is suspended.\n";
    return "";
  } catch (const DbError& e) {
    return std::string("the database: ") + e.what();
  }
}

std::string ban_from_chat(const std::string& db_path, const std::string& name, int days, const std::string& reason,
                          std::string& said) {
  if (days < 0 || days > 3650) return "--days must be between 1 and 3650 (none: until lifted)";
  if (auto why = reason_refused(reason, "the player is"); !why.empty()) return why;
  return operator_change(db_path, kSchemaWithChatModeration, [&](Db& db) -> std::string {
    const Player p = player_named(db, name);
    if (p.id == 0) return "there is no player '" + name + "'";
    if (p.closed_unix != 0) return p.name + " has closed their account";
    const std::int64_t until = days == 0 ? kChatBannedUntilLifted : unix_now() + std::int64_t{days} * 86400;
    db.prepare("UPDATE users SET chat_banned_until = ?, chat_ban_reason = ? WHERE id = ?").run(until, reason, p.id);
    said = "Barred " + p.name + " from chat " + (days == 0 ? "until lifted" : "until " + utc_minute(until)) +
           ", within two seconds if the server runs. Each message they write is refused with: " + chat_ban_text(until, reason);
    return "";
  });
}

std::string lift_chat_ban_of(const std::string& db_path, const std::string& name, std::string& said) {
  return operator_change(db_path, kSchemaWithChatModeration, [&](Db& db) -> std::string {
    const Player p = player_named(db, name);
    if (p.id == 0) return "there is no player '" + name + "'";
    auto& q = db.prepare("SELECT chat_banned_until FROM users WHERE id = ?");
    q.bind_all(p.id);
    std::int64_t until = 0;
    while (q.step()) until = q.integer(0);
    if (until <= unix_now()) return p.name + " is not barred from chat";
    db.prepare("UPDATE users SET chat_banned_until = 0, chat_ban_reason = '' WHERE id = ?").run(p.id);
    said = "Lifted the chat ban of " + p.name + ": they may chat again within two seconds.";
    return "";
  });
}

std::string list_chat_reports(const std::string& db_path, bool all, std::string& said) {
  std::string error;
  auto db = open_for_moderation(db_path, error, kSchemaWithChatModeration);
  if (!db) return error;
  try {
    auto& q = db->prepare(
        "SELECT r.id, r.created_unix, r.game_id, a.name, b.name, r.reason, r.evidence, r.handled_unix"
        " FROM chat_reports r JOIN users a ON a.id = r.reporter_id JOIN users b ON b.id = r.reported_id"
        " WHERE ?1 OR r.handled_unix = 0 ORDER BY r.id DESC LIMIT 500");
    q.bind_all(all ? 1 : 0);
    std::string rows;
    int reports = 0;
    while (q.step()) {
      ++reports;
      const auto handled = q.integer(7);
      rows += "report " + std::to_string(q.integer(0)) + "\t" + utc_minute(q.integer(1)) + "\tgame " + q.text(2) + "\t" +
              q.text(3) + " reports " + q.text(4) + (handled != 0 ? "\thandled " + utc_minute(handled) : "") + "\n" +
              "  reason: " + q.text(5) + "\n";
      // One reported line a line, each a plain line as the server took it.
      const std::string evidence = q.text(6);
      for (std::size_t start = 0; start < evidence.size();) {
        auto end = evidence.find('\n', start);
        if (end == std::string::npos) end = evidence.size();
        rows += "  | " + evidence.substr(start, end - start) + "\n";
        start = end + 1;
      }
    }
    if (reports == 0) {
      said = all ? "No report of chat has been made.\n" : "No report of chat waits to be handled.\n";
      return "";
    }
    said = std::to_string(reports) + (reports == 1 ? " report" : " reports") + (all ? "" : " not yet handled") +
           (reports == 500 ? " (the latest 500)" : "") + "; --handle-report ID marks one handled\n" + rows;
    return "";
  } catch (const DbError& e) {
    return std::string("the database: ") + e.what();
  }
}

std::string mark_report_handled(const std::string& db_path, const std::string& id, std::string& said) {
  std::int64_t number = 0;
  if (id.empty() || id.size() > 18 || !std::all_of(id.begin(), id.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    return "a report's id is its number, as --reports lists it";
  }
  number = std::stoll(id);
  return operator_change(db_path, kSchemaWithChatModeration, [&](Db& db) -> std::string {
    auto& q = db.prepare("SELECT handled_unix FROM chat_reports WHERE id = ?");
    q.bind_all(number);
    std::int64_t handled = -1;
    while (q.step()) handled = q.integer(0);
    if (handled < 0) return "there is no report " + id;
    if (handled > 0) return "report " + id + " was handled already, " + utc_minute(handled);
    db.prepare("UPDATE chat_reports SET handled_unix = ? WHERE id = ?").run(unix_now(), number);
    said = "Report " + id + " is marked handled.";
    return "";
  });
}

std::string reset_password(const std::string& db_path, const std::string& name, unsigned long long opslimit,
                           std::size_t memlimit_bytes, std::string& said) {
  if (sodium_init() < 0) return "libsodium cannot initialise";
  std::string error;
  auto db = open_for_moderation(db_path, error, kSchemaWithSuspensions);
  if (!db) return error;
  // Twenty letters and digits without look-alikes, in groups of five: about 100 bits.
  static const char* kAlphabet = "abcdefghjkmnpqrstuvwxyz23456789";
  std::string password;
  for (int i = 0; i < 20; ++i) {
    if (i && i % 5 == 0) password += '-';
    password += kAlphabet[randombytes_uniform(31)];
  }
  char hash[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str(hash, password.c_str(), password.size(), opslimit, memlimit_bytes) != 0) {
    return "the password could not be hashed";
  }
  return in_transaction(*db, [&]() -> std::string {
    const Player p = player_named(*db, name);
    if (p.id == 0) return "there is no player '" + name + "'";
    if (p.closed_unix != 0) return p.name + " closed their account";
    db->prepare("UPDATE users SET password_hash = ? WHERE id = ?").run(std::string(hash), p.id);
    db->prepare("DELETE FROM sessions WHERE user_id = ?").run(p.id);
    said = "The new password of " + p.name + ":\n  " + password +
           "\nPass it on privately, and have them change it (counterattack password). Their sessions have ended.";
    return "";
  });
}

std::string list_players(const std::string& db_path, std::string& said) {
  std::string error;
  auto db = open_for_moderation(db_path, error, kSchemaWithChatModeration);
  if (!db) return error;
  try {
    // Games per player, in play and finished, counted once over both seats.
    auto& q = db->prepare(
        "SELECT u.name, u.online, u.last_seen_unix, u.created_unix, u.closed_unix, u.suspended_until,"
        " (SELECT count(*) FROM games g WHERE g.status = 'playing' AND (g.soviet_id = u.id OR g.german_id = u.id)),"
        " (SELECT count(*) FROM games g WHERE g.status = 'finished' AND g.soviet_id IS NOT NULL AND g.german_id IS NOT NULL"
        "  AND g.result NOT IN ('Cancelled', 'Declined', 'Aborted') AND (g.soviet_id = u.id OR g.german_id = u.id)),"
        " (SELECT count(*) FROM games g WHERE g.status = 'open' AND g.creator_id = u.id), u.chat_banned_until"
        " FROM users u ORDER BY u.online = 0, u.name COLLATE NOCASE");
    q.bind_all();
    const auto now = unix_now();
    std::string rows;
    int players = 0, online = 0;
    while (q.step()) {
      ++players;
      const auto connections = q.integer(1), seen = q.integer(2), closed = q.integer(4), suspended = q.integer(5);
      if (connections > 0) ++online;
      const std::string presence = connections > 0 ? "online" + (connections > 1 ? " (" + std::to_string(connections) + " connections)" : "")
                                   : seen > 0      ? "last seen " + utc_minute(seen)
                                                   : "never logged in";
      const std::string account = closed != 0         ? "closed " + utc_minute(closed)
                                  : suspended > now    ? (suspended >= kSuspendedIndefinitely ? "suspended until reinstated"
                                                                                              : "suspended until " + utc_minute(suspended))
                                                       : "active";
      const auto waiting = q.integer(8), chat_banned = q.integer(9);
      const std::string chat = closed != 0 || chat_banned <= now ? ""
                               : chat_banned >= kChatBannedUntilLifted ? ", barred from chat until lifted"
                                                                       : ", barred from chat until " + utc_minute(chat_banned);
      rows += q.text(0) + "\t" + presence + "\t" + std::to_string(q.integer(6)) + " in play, " + std::to_string(q.integer(7)) +
              " finished" + (waiting > 0 ? ", " + std::to_string(waiting) + " waiting for an opponent" : "") + "\t" + account + chat +
              "\tjoined " + utc_minute(q.integer(3)) + "\n";
    }
    said = std::to_string(players) + (players == 1 ? " player, " : " players, ") + std::to_string(online) + " online now" +
           " (as the running server last stored it)\n" + rows;
    return "";
  } catch (const DbError& e) {
    return std::string("the database: ") + e.what();
  }
}

std::string list_games(const std::string& db_path, const std::string& name, std::string& said) {
  std::string error;
  auto db = open_for_moderation(db_path, error, kSchemaWithOperatorViews);
  if (!db) return error;
  try {
    if (!name.empty()) {
      auto& u = db->prepare("SELECT 1 FROM users WHERE name = ? COLLATE NOCASE");
      u.bind_all(name);
      if (!u.step()) return "there is no player '" + name + "'";
      u.reset();
    }
    auto& q = db->prepare(
        "SELECT g.id, g.status, COALESCE(s.name, ''), COALESCE(d.name, ''), g.created_unix, g.tournament_id,"
        " (SELECT COALESCE(MAX(o.version), 0) FROM orders o WHERE o.game_id = g.id),"
        " (SELECT COALESCE(MAX(o.created_unix), 0) FROM orders o WHERE o.game_id = g.id) AS last"
        " FROM games g LEFT JOIN users s ON s.id = g.soviet_id LEFT JOIN users d ON d.id = g.german_id"
        " WHERE g.status IN ('open', 'playing')"
        " AND (?1 = '' OR s.name = ?1 COLLATE NOCASE OR d.name = ?1 COLLATE NOCASE)"
        " ORDER BY MAX(last, g.created_unix) DESC LIMIT 500");
    q.bind_all(name);
    std::string rows;
    int games = 0;
    while (q.step()) {
      ++games;
      const auto orders = q.integer(6), last = q.integer(7);
      rows += q.text(0) + "\t" + (q.text(1) == "open" ? "waiting" : "playing") + "\tSoviet: " +
              (q.text(2).empty() ? "(open)" : q.text(2)) + "\tGerman: " + (q.text(3).empty() ? "(open)" : q.text(3)) + "\t" +
              (orders > 0 ? std::to_string(orders) + (orders == 1 ? " order, the last " : " orders, the last ") + utc_minute(last)
                          : "no order yet, made " + utc_minute(q.integer(4))) +
              (q.text(5).empty() ? "" : "\ttournament " + q.text(5)) + "\n";
    }
    said = std::to_string(games) + (games == 1 ? " game" : " games") + " waiting or in play" +
           (name.empty() ? "" : " of " + name) + (games == 500 ? " (the latest 500)" : "") + "\n" + rows;
    return "";
  } catch (const DbError& e) {
    return std::string("the database: ") + e.what();
  }
}

std::string end_game_by_operator(const std::string& db_path, const std::string& game_id, const std::string& reason,
                                 std::string& said) {
  if (auto why = reason_refused(reason, "the players are"); !why.empty()) return why;
  return operator_change(db_path, kSchemaWithOperatorViews, [&](Db& db) -> std::string {
    auto& q = db.prepare("SELECT status FROM games WHERE id = ?");
    q.bind_all(game_id);
    std::string status;
    while (q.step()) status = q.text(0);
    if (status.empty()) return "there is no game '" + game_id + "'";
    if (status == "finished") return "game " + game_id + " is already over";
    auto& asked = db.prepare("SELECT reason FROM operator_game_ends WHERE game_id = ?");
    asked.bind_all(game_id);
    std::string earlier;
    bool pending = false;
    while (asked.step()) pending = true, earlier = asked.text(0);
    if (pending) return "the end of game " + game_id + " is already asked for (\"" + earlier + "\")";
    db.prepare("INSERT OR REPLACE INTO operator_game_ends (game_id, reason, asked_unix) VALUES (?, ?, ?)")
        .run(game_id, reason, unix_now());
    said = "Game " + game_id +
           (status == "open" ? " (waiting for an opponent) will be cancelled" : " will be aborted, with no rating change,") +
           " within two seconds if the server runs, else at its next start, unless it ends first. Its players will be told: " +
           operator_end_text(status == "open", reason);
    return "";
  });
}

std::string cancel_tournament_by_operator(const std::string& db_path, const std::string& id, const std::string& reason,
                                          std::string& said) {
  if (auto why = reason_refused(reason, "the players are"); !why.empty()) return why;
  return operator_change(db_path, kSchemaWithOperatorViews, [&](Db& db) -> std::string {
    auto& q = db.prepare("SELECT status, name, finished_unix FROM tournaments WHERE id = ?");
    q.bind_all(id);
    std::string status, name;
    while (q.step()) status = q.integer(2) != 0 ? "finished" : q.text(0), name = q.text(1);
    if (status.empty()) return "there is no tournament '" + id + "'";
    if (status != "open" && status != "playing") return "tournament " + id + " is already " + status;
    const std::string told = "The server's operator cancelled it: " + reason;
    // Left for the server's poll to tell (kOperatorCancelled), and its games still under
    // way for the same poll to abort: neither waits for anything else.
    db.prepare("UPDATE tournaments SET status = 'cancelled', unannounced = ?, cancel_reason = ?, cancelled_by = 0 WHERE id = ?")
        .run(kOperatorCancelled, told, id);
    db.prepare(
          "INSERT OR REPLACE INTO operator_game_ends (game_id, reason, asked_unix)"
          " SELECT id, ?, ? FROM games WHERE tournament_id = ? AND status <> 'finished'")
        .run("its tournament is cancelled. " + reason, unix_now(), id);
    const auto games = db.changes();
    said = "Tournament " + id + " (\"" + name + "\") is cancelled" +
           (games > 0 ? "; its " + std::to_string(games) + (games == 1 ? " game" : " games") + " under way will be aborted" : "") +
           " and its entrants told, within two seconds if the server runs, else at its next start: " + told;
    return "";
  });
}

std::vector<OperatorCancellation> operator_cancellations(Storage& storage) {
  return storage.read([](Db& db) {
    std::vector<OperatorCancellation> out;
    auto& q = db.prepare("SELECT id, cancel_reason FROM tournaments WHERE status = 'cancelled' AND unannounced = ?");
    q.bind_all(kOperatorCancelled);
    while (q.step()) out.push_back(OperatorCancellation{q.text(0), q.text(1)});
    return out;
  });
}

std::vector<OperatorEnd> operator_ends(Storage& storage) {
  auto [asked, done] = storage.read([](Db& db) {
    std::vector<OperatorEnd> out;
    std::size_t finished = 0;
    auto& q = db.prepare(
        "SELECT r.game_id, r.reason, g.status FROM operator_game_ends r JOIN games g ON g.id = r.game_id ORDER BY r.asked_unix");
    q.bind_all();
    while (q.step()) {
      if (q.text(2) == "finished") {
        ++finished;
      } else {
        out.push_back(OperatorEnd{q.text(0), q.text(1)});
      }
    }
    return std::make_pair(std::move(out), finished);
  });
  if (done > 0) {
    // Ended, by this request or otherwise: nothing more to do for it.
    storage.write(
        [](Db& db) {
          db.prepare(
                "DELETE FROM operator_game_ends WHERE EXISTS"
                " (SELECT 1 FROM games g WHERE g.id = operator_game_ends.game_id AND g.status = 'finished')")
              .run();
        },
        [](bool) {});
  }
  return asked;
}

SuspensionWatch::Poll SuspensionWatch::poll(Storage& storage) {
  constexpr int kSignOuts = 3;
  struct Row {
    std::int64_t until;
    std::string name, reason;
  };
  struct Game {
    std::string id;
    std::int64_t user;
  };
  // The partial indexes hold only accounts with a suspension (current or run out)
  // and the games waiting or in play: a poll reads those alone.
  std::vector<Cancelled> untold;
  const auto [users, games] = storage.read([&untold](Db& db) {
    std::map<std::int64_t, Row> rows;
    const auto now = unix_now();
    auto& q = db.prepare("SELECT id, name, suspended_until, suspended_reason FROM users WHERE suspended_until <> 0 AND suspended_until > ?");
    q.bind_all(now);
    while (q.step()) rows[q.integer(0)] = Row{q.integer(2), q.text(1), q.text(3)};
    std::vector<Game> found;
    if (!rows.empty()) {
      // CROSS JOIN keeps the suspended players outermost: without statistics the
      // planner would otherwise read every game waiting or in play.
      auto& g = db.prepare(
          "SELECT g.id, u.id FROM users u CROSS JOIN games g ON g.creator_id = u.id AND g.status = 'open'"
          " WHERE u.suspended_until <> 0 AND u.suspended_until > ?1"
          " UNION ALL SELECT g.id, u.id FROM users u CROSS JOIN games g ON g.reserved_for = u.id AND g.status = 'open'"
          " WHERE u.suspended_until <> 0 AND u.suspended_until > ?1"
          " UNION ALL SELECT g.id, u.id FROM users u CROSS JOIN games g ON g.soviet_id = u.id AND g.status = 'playing'"
          " WHERE u.suspended_until <> 0 AND u.suspended_until >= ?2"
          " UNION ALL SELECT g.id, u.id FROM users u CROSS JOIN games g ON g.german_id = u.id AND g.status = 'playing'"
          " WHERE u.suspended_until <> 0 AND u.suspended_until >= ?2");
      g.bind_all(now, kSuspendedIndefinitely);
      while (g.step()) found.push_back(Game{g.text(0), g.integer(1)});
      auto& t = db.prepare(
          "SELECT t.id, t.cancel_reason, t.cancelled_by FROM users u CROSS JOIN tournaments t ON t.organiser_id = u.id"
          " WHERE u.suspended_until <> 0 AND u.suspended_until >= ? AND t.status = 'cancelled' AND t.unannounced = 1");
      t.bind_all(kSuspendedIndefinitely);
      while (t.step()) untold.push_back(Cancelled{t.text(0), t.text(1), t.integer(2)});
    }
    return std::make_pair(std::move(rows), std::move(found));
  });
  Poll out;
  out.cancelled = std::move(untold);
  std::map<std::int64_t, Known> next;
  for (const auto& [id, row] : users) {
    Known k{row.until, row.reason, kSignOuts};
    if (auto was = known_.find(id); was != known_.end() && was->second.until == row.until && was->second.reason == row.reason) {
      k.sign_outs_left = was->second.sign_outs_left;
    } else {
      out.seen.push_back(Poll::Seen{row.name, row.until >= kSuspendedIndefinitely ? "reinstated" : utc_minute(row.until), row.reason});
    }
    if (k.sign_outs_left > 0) {
      --k.sign_outs_left;
      out.sign_out.push_back(SignOut{id, suspension_text(row.until, row.reason)});
    }
    next[id] = k;
  }
  known_ = std::move(next);
  for (const auto& g : games) {
    if (auto u = users.find(g.user); u != users.end()) out.games.push_back(SetAside{g.id, g.user, u->second.name + "'s account is suspended."});
  }
  return out;
}

}  // namespace counterattack::server
