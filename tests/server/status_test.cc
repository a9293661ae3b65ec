// The operator's --status, run beside the server as a monitoring script would:
// whether it runs, the counts an operator checks, the warnings, the exit statuses
// and the JSON a script reads.
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "fixture.h"
#include "smtp_sink.h"
#include "storage.h"

namespace counterattack::server::testing {
namespace {

class ServerStatus : public ServerTest {
 protected:
  // Mail set up, to a mail server that cannot be reached: what is queued waits.
  static std::string unreachable_mail() { return "smtp_url = smtp://127.0.0.1:1\nmail_retry_seconds = 3600\n"; }

  // The line of `said` that starts with `key` ("Games:"), or "".
  static std::string line(const std::string& said, const std::string& key) {
    const auto at = said.rfind(key, 0) == 0 ? 0 : said.find("\n" + key);
    if (at == std::string::npos) return "";
    const auto from = at == 0 ? 0 : at + 1;
    return said.substr(from, said.find('\n', from) - from);
  }
  void db_exec(const std::string& sql) {
    std::string err;
    Db db(server_->data_dir() + "/counterattack.db", false, err);
    ASSERT_TRUE(db.ok()) << err;
    db.exec(sql);
  }
  // A game on a game clock of `seconds`, made by `soviet` and joined by `german`.
  std::string start_clocked(Client& soviet, Client& german, std::int64_t seconds) {
    wire::ClientMessage m;
    m.mutable_create_game()->set_side(wire::CHOOSE_SOVIET);
    m.mutable_create_game()->set_clock_seconds(seconds);
    const auto made = soviet.request(m);
    EXPECT_TRUE(made.has_game_created()) << made.DebugString();
    const auto id = made.game_created().game().game_id();
    EXPECT_TRUE(german.join(id).has_game());
    return id;
  }
  // A running server with three players (bob barred from chat, carol on vacation),
  // a game on a clock, one untimed, one open, one finished with an order played in
  // each of the last two, a chat report and a mail waiting.
  void populate() {
    restart({}, unreachable_mail());
    alice_ = user("alice"), bob_ = user("bob"), carol_ = user("carol");
    start_clocked(*alice_, *bob_, 3600);
    const auto untimed = start_game(*carol_, *alice_);
    play_opening(*carol_, *alice_, untimed);
    const auto ended = start_game(*alice_, *carol_);
    play_opening(*alice_, *carol_, ended);
    wire::ClientMessage resign;
    resign.mutable_resign()->set_game_id(ended);
    ASSERT_TRUE(carol_->request(resign).has_ok());
    ASSERT_TRUE(bob_->create_game(wire::CHOOSE_GERMAN).has_game_created());
    wire::ClientMessage kept;  // a challenge, and a private game: open, but not to anyone
    kept.mutable_create_game()->set_opponent("bob");
    ASSERT_TRUE(carol_->request(kept).has_game_created());
    ASSERT_TRUE(alice_->create_game(wire::CHOOSE_SOVIET, true).has_game_created());
    wire::ClientMessage chat;
    chat.mutable_send_chat()->set_game_id(untimed);
    chat.mutable_send_chat()->set_channel(wire::PLAYERS);
    chat.mutable_send_chat()->set_text("a rude line");
    ASSERT_TRUE(carol_->request(chat).has_ok());
    wire::ClientMessage report;
    report.mutable_report_chat()->set_name("carol");
    report.mutable_report_chat()->set_game_id(untimed);
    report.mutable_report_chat()->set_reason("Insults.");
    ASSERT_TRUE(alice_->request(report).has_chat_reported());
    wire::ClientMessage vacation;
    vacation.mutable_start_vacation()->set_days(2);
    const auto away = carol_->request(vacation);
    ASSERT_FALSE(away.has_error()) << away.DebugString();
    wire::ClientMessage email;
    email.mutable_set_email()->set_address("alice@club.test");
    ASSERT_TRUE(alice_->request(email).has_account());
    ASSERT_EQ(operator_command("--chat-ban bob --reason 'Spam in the lobby.'").status, 0);
  }

  std::unique_ptr<Client> alice_, bob_, carol_;
};

TEST_F(ServerStatus, ARunningServersStatusCountsItsGamesPlayersMailAndReports) {
  populate();
  // The connections are stored with the alive mark, every second while a game clock runs.
  CommandOutcome status;
  ASSERT_TRUE(eventually([&] {
    status = operator_command("--status");
    return line(status.said, "Server:").find("3 connections open") != std::string::npos;
  })) << status.said;
  EXPECT_EQ(status.status, 0) << status.said;
  const auto server = line(status.said, "Server:");
  EXPECT_EQ(server.rfind("Server: running since ", 0), 0u) << server;
  EXPECT_NE(server.find("(pid " + std::to_string(server_->pid()) + ", counterattackd "), std::string::npos) << server;
  EXPECT_NE(server.find(", listening on 127.0.0.1:" + std::to_string(server_->port()) + "), last seen "), std::string::npos) << server;
  EXPECT_NE(server.find("3 connections open, 3 players online (3 logged in), "), std::string::npos) << server;
  EXPECT_EQ(line(status.said, "Games:"),
            "Games: 3 open (1 kept for a player, 1 private), 2 in play (0 with a time per move, 1 on a clock, 1 untimed); finished: 1 in the last day, 1 in the"
            " last week; orders: 2 in the last hour, 2 in the last day");
  EXPECT_EQ(line(status.said, "Players:"),
            "Players: 3 accounts, 3 active in the last 7 days, 1 on vacation, 0 suspended, 1 barred from chat");
  const auto storage = line(status.said, "Storage:");
  EXPECT_NE(storage.find(", schema " + std::to_string(latest_schema()) + "; no backup yet (one every 24 h into "), std::string::npos)
      << storage;
  EXPECT_EQ(storage.find("overdue"), std::string::npos) << storage;
  EXPECT_EQ(line(status.said, "Mail:").rfind("Mail: set up; 1 waiting, the oldest for ", 0), 0u) << status.said;
  EXPECT_EQ(line(status.said, "Moderation:"), "Moderation: 1 chat report waiting (--reports lists them)");
  EXPECT_EQ(status.said.find("Warning"), std::string::npos) << status.said;
  // Counts alone: no player, game, address or reason is named.
  for (const char* hidden : {"alice", "bob", "carol", "club.test", "Insults", "rude"}) {
    EXPECT_EQ(status.said.find(hidden), std::string::npos) << hidden << " in " << status.said;
  }

  // Suspended, carol counts as such; the server signs her out within seconds.
  ASSERT_EQ(operator_command("--suspend carol --days 3 --reason 'Cooling off.'").status, 0);
  EXPECT_NE(operator_command("--status").said.find(", 1 on vacation, 1 suspended, 1 barred from chat"), std::string::npos);
}

TEST_F(ServerStatus, AStoppedServerIsReportedNotRunningWithExitOneAndHowItEnded) {
  restart({}, unreachable_mail());
  auto alice = user("alice");
  ASSERT_EQ(operator_command("--status").status, 0);
  alice.reset();
  ASSERT_EQ(server_->terminate(), 0);
  auto stopped = operator_command("--status");
  EXPECT_EQ(stopped.status, 1) << stopped.said;
  const auto server = line(stopped.said, "Server:");
  EXPECT_EQ(server.rfind("Server: not running (last seen ", 0), 0u) << stopped.said;
  EXPECT_NE(server.find(" ago; it stopped cleanly)"), std::string::npos) << server;
  EXPECT_NE(line(stopped.said, "Players:").find("1 account, 1 active in the last 7 days"), std::string::npos) << stopped.said;

  restart({}, unreachable_mail());
  ASSERT_EQ(operator_command("--status").status, 0);
  server_->kill9();
  const auto killed = operator_command("--status");
  EXPECT_EQ(killed.status, 1) << killed.said;
  EXPECT_NE(line(killed.said, "Server:").find("; it did not stop cleanly: killed, or the machine went down)"), std::string::npos)
      << killed.said;
}

// A killed server's pid may be another program's by the time --status is run: a lock
// file that names a live process other than counterattackd, with no lock held on it,
// is a server that is not running.
TEST_F(ServerStatus, AKilledServersPidTakenByAnotherProgramIsNotTakenForTheServer) {
  server_->kill9();
  {
    // The test's own process: alive, and not a counterattackd.
    std::ofstream lock(server_->data_dir() + "/counterattack.db.lock", std::ios::trunc);
    lock << ::getpid() << " running\n";
  }
  const auto said = operator_command("--status");
  EXPECT_EQ(said.status, 1) << said.said;
  const auto server = line(said.said, "Server:");
  EXPECT_EQ(server.rfind("Server: not running (last seen ", 0), 0u) << said.said;
  EXPECT_EQ(server.find(std::to_string(::getpid())), std::string::npos) << "no pid of a server: " << server;
  const auto as_json = operator_command("--status --json");
  EXPECT_EQ(as_json.status, 1) << as_json.said;
  const auto j = nlohmann::json::parse(as_json.said);
  EXPECT_EQ(j["server"]["state"], "not running") << as_json.said;
  EXPECT_TRUE(j["server"]["pid"].is_null()) << as_json.said;
}

TEST_F(ServerStatus, MailStuckForOverAnHourIsAWarningWithExitTwo) {
  restart({}, unreachable_mail());
  auto alice = user("alice");
  wire::ClientMessage email;
  email.mutable_set_email()->set_address("alice@club.test");
  ASSERT_TRUE(alice->request(email).has_account());
  const auto fresh = operator_command("--status");
  EXPECT_EQ(fresh.status, 0) << "a mail a moment old is not stuck: " << fresh.said;

  db_exec("UPDATE outbox SET created_unix = created_unix - 7200");
  const auto stuck = operator_command("--status");
  EXPECT_EQ(stuck.status, 2) << stuck.said;
  EXPECT_NE(stuck.said.find("\nWarning: mail is stuck: the oldest message has waited 2 h for the mail server"), std::string::npos)
      << stuck.said;
  EXPECT_EQ(stuck.said.find("Server: running"), 0u) << stuck.said;
}

// A message the mail server refuses is counted while it waits to be tried again,
// and once dropped after its last attempt.
TEST_F(ServerStatus, MailTheMailServerRefusesIsCountedWaitingThenDropped) {
  SmtpSink sink;
  ASSERT_GT(sink.port(), 0);
  sink.refuse_recipients();
  restart({}, "smtp_url = " + sink.url() + "\nmail_attempts = 2\nmail_retry_seconds = 4\n");
  auto alice = user("alice"), bob = user("bob");
  start_clocked(*alice, *bob, 3600);  // an alive mark, with the count of mail dropped, every second
  wire::ClientMessage email;
  email.mutable_set_email()->set_address("alice@club.test");
  ASSERT_TRUE(alice->request(email).has_account());
  CommandOutcome status;
  EXPECT_TRUE(eventually([&] {
    status = operator_command("--status");
    return line(status.said, "Mail:").find(", 1 refused by the mail server and to be tried again,") != std::string::npos;
  })) << status.said;
  EXPECT_EQ(status.status, 0) << "refused once is not stuck: " << status.said;
  EXPECT_TRUE(eventually([&] {
    status = operator_command("--status");
    return line(status.said, "Mail:") ==
           "Mail: set up; 0 waiting, 0 refused by the mail server and to be tried again, 1 dropped after the last attempt since the start";
  })) << status.said;
}

TEST_F(ServerStatus, ABackupPastItsIntervalIsOverdue) {
  const auto dir = server_->data_dir() + "/backups";
  std::filesystem::create_directories(dir);
  ASSERT_EQ(server_->terminate(), 0);
  const auto old = dir + "/counterattack-20200101-000000.db";
  std::ofstream(old) << "not read";
  std::filesystem::last_write_time(old, std::filesystem::file_time_type::clock::now() - 50h);
  const auto said = operator_command("--status");
  EXPECT_EQ(said.status, 1) << "not running comes first: " << said.said;
  EXPECT_NE(line(said.said, "Storage:").find("last backup counterattack-20200101-000000.db, 2 days ago (one every 24 h into "),
            std::string::npos)
      << said.said;
  EXPECT_NE(line(said.said, "Storage:").find("): overdue"), std::string::npos) << said.said;
  EXPECT_NE(said.said.find("\nWarning: the backup is overdue: the last was taken 2 days ago, and one is due every 24 h"), std::string::npos)
      << said.said;
  // A fresh one is not.
  std::filesystem::last_write_time(old, std::filesystem::file_time_type::clock::now() - 2h);
  EXPECT_EQ(operator_command("--status").said.find("overdue"), std::string::npos);
}

// A backup restored into another data dir: --status there tells of this dir's own
// settings and backups, not of the server the backup was taken from.
TEST_F(ServerStatus, ADatabaseRestoredIntoAnotherDataDirIsDescribedByItsOwnSettings) {
  restart({}, unreachable_mail());
  auto alice = user("alice");
  const auto old_backups = server_->data_dir() + "/backups";
  std::filesystem::create_directories(old_backups);
  std::ofstream(old_backups + "/counterattack-20200101-000000.db") << "not read";
  const std::string copy = dir_ + "/copy.db";
  ASSERT_EQ(operator_command("--backup '" + copy + "'").status, 0);
  ASSERT_TRUE(line(operator_command("--status").said, "Mail:").starts_with("Mail: set up;"));
  alice.reset();
  ASSERT_EQ(server_->terminate(), 0);

  const std::string fresh = dir_ + "/elsewhere";
  auto run = [&](const std::string& args) {
    const std::string command = std::string(COUNTERATTACKD) + " --data-dir '" + fresh + "' " + args + " 2>&1";
    std::string said;
    FILE* p = ::popen(command.c_str(), "r");
    if (!p) return said;
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, p)) said += buffer;
    ::pclose(p);
    return said;
  };
  const auto restored = run("--restore '" + copy + "'");
  ASSERT_NE(restored.find("1 player"), std::string::npos) << restored;
  const auto said = run("--status");
  EXPECT_NE(line(said, "Players:").find("1 account"), std::string::npos) << "the backup's data: " << said;
  const auto storage = line(said, "Storage:");
  EXPECT_NE(storage.find("no backup yet (one every 24 h into " + std::filesystem::absolute(fresh).string() + "/backups)"),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find(old_backups), std::string::npos) << "the old server's folder: " << said;
  EXPECT_TRUE(line(said, "Mail:").starts_with("Mail: not set up (no smtp_url);")) << said;
}

TEST_F(ServerStatus, JsonGivesEveryFigureUnderItsSectionAndTheExitStatus) {
  populate();
  CommandOutcome out;
  nlohmann::json j;
  ASSERT_TRUE(eventually([&] {
    out = operator_command("--status --json");
    j = nlohmann::json::parse(out.said, nullptr, false);
    return !j.is_discarded() && j["server"]["connections"] == 3;
  })) << out.said;
  EXPECT_EQ(out.status, 0);
  EXPECT_EQ(j["exit_status"], 0);
  EXPECT_EQ(j["server"]["state"], "running");
  EXPECT_EQ(j["server"]["pid"], server_->pid());
  EXPECT_EQ(j["server"]["listen"], "127.0.0.1:" + std::to_string(server_->port()));
  EXPECT_TRUE(j["server"]["since_unix"].is_number_integer());
  EXPECT_LE(j["server"]["last_seen_seconds_ago"].get<std::int64_t>(), 5);
  EXPECT_EQ(j["server"]["players_online"], 3);
  EXPECT_TRUE(j["server"]["stopped_cleanly"].is_null()) << "running";
  EXPECT_EQ(j["games"], nlohmann::json::parse(R"({"open": 3, "open_kept_for_a_player": 1, "open_private": 1, "in_play": 2, "time_per_move": 0, "clock": 1, "untimed": 1,
      "finished_last_day": 1, "finished_last_week": 1, "orders_last_hour": 2, "orders_last_day": 2})"));
  EXPECT_EQ(j["players"], nlohmann::json::parse(R"({"accounts": 3, "closed": 0, "active_last_7_days": 3, "on_vacation": 1,
      "suspended": 0, "chat_banned": 1})"));
  EXPECT_GT(j["storage"]["database_bytes"].get<std::int64_t>(), 0);
  EXPECT_TRUE(j["storage"]["wal_bytes"].is_number_integer());
  EXPECT_EQ(j["storage"]["schema"], latest_schema());
  EXPECT_EQ(j["storage"]["backup_every_seconds"], 86400);
  EXPECT_TRUE(j["storage"]["last_backup"].is_null());
  EXPECT_EQ(j["storage"]["backup_overdue"], false);
  EXPECT_EQ(j["mail"]["enabled"], true);
  EXPECT_EQ(j["mail"]["waiting"], 1);
  EXPECT_TRUE(j["mail"]["oldest_waiting_seconds"].is_number_integer());
  EXPECT_EQ(j["mail"]["refused_waiting"], 0);
  EXPECT_EQ(j["mail"]["dropped_since_start"], 0);
  EXPECT_EQ(j["mail"]["stuck"], false);
  EXPECT_EQ(j["moderation"]["chat_reports_waiting"], 1);
  EXPECT_EQ(j["warnings"], nlohmann::json::array());

  alice_.reset(), bob_.reset(), carol_.reset();
  ASSERT_EQ(server_->terminate(), 0);
  out = operator_command("--status --json");
  EXPECT_EQ(out.status, 1);
  j = nlohmann::json::parse(out.said, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out.said;
  EXPECT_EQ(j["server"]["state"], "not running");
  EXPECT_EQ(j["server"]["stopped_cleanly"], true);
  EXPECT_TRUE(j["server"]["connections"].is_null()) << "only a running server's";
  EXPECT_EQ(j["exit_status"], 1);
}

TEST_F(ServerStatus, ADatabaseOfAnOlderSchemaIsToldToBeStartedOnceWithExitThree) {
  ASSERT_EQ(server_->terminate(), 0);
  db_exec("PRAGMA user_version=36");
  const auto old = operator_command("--status");
  EXPECT_EQ(old.status, 3) << old.said;
  EXPECT_NE(old.said.find("the database is at schema 36: start this counterattackd on it once, to upgrade it"), std::string::npos)
      << old.said;
  const auto lone_json = operator_command("--json");
  EXPECT_EQ(lone_json.status, 2) << lone_json.said;
  EXPECT_NE(lone_json.said.find("--json goes with --status"), std::string::npos) << lone_json.said;
  EXPECT_EQ(operator_command("--status --players").status, 2) << "one action at a time";
}

TEST_F(ServerStatus, AFileThatIsNotADatabaseIsToldWithExitThreeAndJsonStillGivesJson) {
  ASSERT_EQ(server_->terminate(), 0);
  const std::string db = server_->data_dir() + "/counterattack.db";
  for (const char* end : {"", "-wal", "-shm"}) std::filesystem::remove(db + end);
  std::ofstream(db) << "not a database, but some other file put here by mistake\n";
  const auto out = operator_command("--status");
  EXPECT_EQ(out.status, 3) << out.said;
  EXPECT_NE(out.said.find("cannot be read as a database"), std::string::npos) << out.said;
  const auto as_json = operator_command("--status --json");
  EXPECT_EQ(as_json.status, 3) << as_json.said;
  const auto j = nlohmann::json::parse(as_json.said.substr(std::min(as_json.said.find('{'), as_json.said.size())), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << as_json.said;
  EXPECT_EQ(j["exit_status"], 3);
  EXPECT_NE(j["error"].get<std::string>().find("cannot be read as a database"), std::string::npos);
  EXPECT_EQ(operator_command("--players").status, 1) << "the other operator commands refuse it too, without a crash";
}

}  // namespace
}  // namespace counterattack::server::testing
