// Backups, for the operator: copies taken on a schedule while the server runs,
// the oldest dropped, readable by the server's user alone; a copy on demand from
// a second process; and a server started again on a copy.
#include <cstdlib>
#include <filesystem>
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

}  // namespace
}  // namespace counterattack::server::testing
