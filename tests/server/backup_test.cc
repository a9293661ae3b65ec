// Backups, for the operator: copies taken on a schedule while the server runs,
// the oldest dropped, readable by the server's user alone; a copy on demand from
// a second process; and a server started again on a copy, by hand or with
// `--restore`, which keeps the database it replaces and never reads its WAL
// with the copy.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "backups.h"
#include "fixture.h"
#include "storage.h"

namespace counterattack::server::testing {
namespace {

namespace fs = std::filesystem;

class ServerBackup : public ServerTest {};

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The number of games with this id in the database at `path`.
std::int64_t games_with_id(const std::string& path, const std::string& id) {
  std::string err;
  Db db(path, false, err);
  EXPECT_TRUE(db.ok()) << err;
  if (!db.ok()) return -1;
  auto& q = db.prepare("SELECT COUNT(*) FROM games WHERE id = ?");
  q.bind_all(id);
  return q.step() ? q.integer(0) : -1;
}

// Readable and writable by the server's own user alone: the files hold password hashes and addresses.
bool owners_alone(const std::string& path) {
  const auto p = fs::status(path).permissions();
  return (p & (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none;
}

TEST(ServerUnit, OnlyTheNewestBackupsAreKept) {
  const std::vector<std::string> names{"counterattack-20261125-120000.db", "counterattack-20261124-120000.db",
                                       "counterattack-20261126-120000.db"};
  EXPECT_EQ(backups_beyond(names, 2), (std::vector<std::string>{"counterattack-20261124-120000.db"}));
  EXPECT_TRUE(backups_beyond(names, 3).empty());
  EXPECT_EQ(backups_beyond(names, 1).size(), 2u);
}

TEST_F(ServerBackup, CopiesAreTakenWhilePlayGoesOnTheOldestDroppedAndAServerStartsAgainOnOne) {
  auto alice = user("alice"), bob = user("bob");
  const std::string game = start_game(*alice, *bob);
  restart({}, "backup_every_seconds = 1\nbackup_keep = 2\n");
  alice = login_as("alice");
  const std::string dir = server_->data_dir() + "/backups";
  std::set<std::string> seen;
  for (int i = 0; i < 300 && seen.size() < 3; ++i) {
    std::this_thread::sleep_for(50ms);
    for (const auto& name : files_in(dir)) {
      if (name.ends_with(".db")) seen.insert(name);
    }
  }
  ASSERT_GE(seen.size(), 3u) << "one a second";
  auto kept = files_in(dir);
  for (int i = 0; i < 100 && kept.size() > 2; ++i) {
    std::this_thread::sleep_for(20ms);
    kept = files_in(dir);
  }
  EXPECT_EQ(kept.size(), 2u) << "the newest two kept";
  EXPECT_EQ(games_with_id(dir + "/" + kept.back(), game), 1);
  EXPECT_TRUE(owners_alone(dir + "/" + kept.back()));
  EXPECT_TRUE(owners_alone(server_->data_dir() + "/counterattack.db"));

  // On demand, from another process, while this one serves.
  const std::string copy = dir_ + "/copy.db";
  const std::string command = std::string(COUNTERATTACKD) + " --data-dir '" + server_->data_dir() + "' --backup '" + copy + "'";
  ASSERT_EQ(std::system((command + " > /dev/null").c_str()), 0);
  EXPECT_EQ(games_with_id(copy, game), 1);
  EXPECT_TRUE(owners_alone(copy));
  EXPECT_NE(std::system((command + " 2> /dev/null").c_str()), 0) << "a backup is not written over a file";
  ASSERT_TRUE(alice->ping().has_pong()) << "the server went on serving";

  // A server started on the copy has the players and the game.
  server_->kill9();
  const std::string db = server_->data_dir() + "/counterattack.db";
  for (const char* extra : {"-wal", "-shm"}) fs::remove(db + extra);
  fs::copy_file(copy, db, fs::copy_options::overwrite_existing);
  restart();
  auto again = login_as("alice");
  wire::ClientMessage mine;
  mine.mutable_my_games();
  const auto list = again->request(mine);
  ASSERT_TRUE(list.has_game_list()) << list.DebugString();
  bool found = false;
  for (const auto& g : list.game_list().games()) found = found || g.game_id() == game;
  EXPECT_TRUE(found) << list.DebugString();
}

// The ids of the caller's games, as the server lists them.
std::set<std::string> my_game_ids(Client& c) {
  wire::ClientMessage mine;
  mine.mutable_my_games();
  const auto list = c.request(mine);
  EXPECT_TRUE(list.has_game_list()) << list.DebugString();
  std::set<std::string> ids;
  for (const auto& g : list.game_list().games()) ids.insert(g.game_id());
  return ids;
}

TEST_F(ServerBackup, ARestoreIsRefusedWhileServingChecksTheBackupAndKeepsTheDatabaseItReplaces) {
  auto alice = user("alice"), bob = user("bob");
  const std::string before = start_game(*alice, *bob);
  const std::string copy = dir_ + "/copy.db";
  ASSERT_EQ(operator_command("--backup '" + copy + "'").status, 0);
  const std::string after = start_game(*alice, *bob);  // in the database, not in the backup

  auto refused = operator_command("--restore '" + copy + "'");
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.said.find("serves this database; stop it first"), std::string::npos) << refused.said;
  ASSERT_TRUE(alice->ping().has_pong()) << "the server went on serving";
  EXPECT_EQ(my_game_ids(*alice), (std::set<std::string>{before, after}));

  // Killed, the server leaves the later game in its WAL: read with the backup, it would damage it.
  server_->kill9();
  const std::string db = server_->data_dir() + "/counterattack.db";
  ASSERT_GT(fs::file_size(db + "-wal"), 0u);
  // The database copied with its WAL, as a file-level snapshot takes it.
  const std::string raw = dir_ + "/raw.db";
  fs::copy_file(db, raw);
  fs::copy_file(db + "-wal", raw + "-wal");
  std::ofstream(db + ".restoring-99999") << "left by a restore killed midway";
  const std::string junk = dir_ + "/junk.db";
  {
    std::ofstream(junk) << "not a database";
  }
  const std::map<std::string, std::string> refusals{
      {junk, "is not a counterattackd database to restore: it is not an SQLite database"},
      {dir_ + "/missing.db", "there is no backup"},
      {dir_, "is a directory: name the backup file in it"},
      {db, "is the database itself"}};
  for (const auto& [bad, said] : refusals) {
    auto no = operator_command("--restore '" + bad + "'");
    EXPECT_EQ(no.status, 1) << bad;
    EXPECT_NE(no.said.find(said), std::string::npos) << no.said;
  }
  {
    // Read on a copy: a connection to the database itself would fold its WAL in as it closes.
    const std::string look = dir_ + "/look.db";
    fs::copy_file(db, look);
    fs::copy_file(db + "-wal", look + "-wal");
    EXPECT_EQ(games_with_id(look, after), 1) << "a refused restore changes nothing";
  }
  ASSERT_GT(fs::file_size(db + "-wal"), 0u) << "the later game still in the WAL as the restore begins";
  // A backup readable by anyone, as a careless copy leaves it: the database made of it is not.
  fs::permissions(copy, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read,
                  fs::perm_options::replace);

  auto done = operator_command("--restore '" + copy + "'");
  ASSERT_EQ(done.status, 0) << done.said;
  EXPECT_NE(done.said.find("(schema "), std::string::npos) << done.said;
  EXPECT_NE(done.said.find(", 1 game, 2 players)"), std::string::npos) << done.said;
  const auto at = done.said.find("kept as ");
  ASSERT_NE(at, std::string::npos) << done.said;
  const std::string kept = done.said.substr(at + 8, done.said.find(" (delete it", at) - at - 8);
  EXPECT_EQ(games_with_id(kept, after), 1) << "the database replaced is kept whole: " << kept;
  EXPECT_TRUE(owners_alone(db));
  EXPECT_FALSE(fs::exists(db + "-wal")) << "no WAL of the replaced database is left to be read with the copy";
  EXPECT_TRUE(fs::exists(copy)) << "the backup itself is left as it was";
  EXPECT_FALSE(fs::exists(db + ".restoring-99999")) << "what a restore killed midway left is cleared";
  {
    std::ifstream lock(db + ".lock");
    std::string word;
    std::getline(lock, word);
    EXPECT_NE(word.find(" restored"), std::string::npos) << "the next start is not told of an unclean end: " << word;
  }

  restart();
  auto again = login_as("alice");
  EXPECT_EQ(my_game_ids(*again), std::set<std::string>{before}) << "games as they were at the backup";

  // A copy taken with its WAL beside it is restored with what that WAL held.
  server_->kill9();
  {
    // A WAL left at the database's name without the database belongs to no backup: refused.
    fs::rename(db, dir_ + "/moved.db");
    std::ofstream(db + "-wal") << "a stale WAL";
    auto stale = operator_command("--restore '" + raw + "'");
    EXPECT_EQ(stale.status, 1);
    EXPECT_NE(stale.said.find("-wal without its database: move it away first"), std::string::npos) << stale.said;
    fs::remove(db + "-wal");
    fs::rename(dir_ + "/moved.db", db);
  }
  auto with_wal = operator_command("--restore '" + raw + "'");
  ASSERT_EQ(with_wal.status, 0) << with_wal.said;
  EXPECT_NE(with_wal.said.find("(with the WAL beside it)"), std::string::npos) << with_wal.said;
  restart();
  auto later = login_as("alice");
  EXPECT_EQ(my_game_ids(*later), (std::set<std::string>{before, after}));
}

}  // namespace
}  // namespace counterattack::server::testing
