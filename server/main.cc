// counterattackd: the authoritative play-by-server for Model's Counterattack.
// With no arguments it serves wss://127.0.0.1:8443 with its data in ./data.
#include <utility>  // before Asio: Boost 1.74's awaitable.hpp needs std::exchange

#include <google/protobuf/stubs/logging.h>
#include <curl/curl.h>
#include <nlohmann/json.hpp>
#include <sodium.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include "accounts.h"
#include "backups.h"
#include "config.h"
#include "games.h"
#include "listener.h"
#include "log.h"
#include "moderation.h"
#include "status.h"
#include "ruleset.h"
#include "storage.h"
#include "tls.h"

namespace net = boost::asio;
using namespace counterattack::server;

namespace {

void protobuf_log(google::protobuf::LogLevel level, const char*, int, const std::string& message) {
  // Malformed client frames make protobuf complain; that is the client's problem, not ours.
  if (level >= google::protobuf::LOGLEVEL_FATAL) log::error("protobuf", {{"detail", message}});
  else log::debug("protobuf", {{"detail", message}});
}

// Each connection holds a descriptor, and Debian's default soft limit is 1024:
// take all the system allows, and say so when max_connections cannot be reached.
void raise_open_file_limit(int max_connections) {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0) return;
  if (files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
    ::getrlimit(RLIMIT_NOFILE, &files);
  }
  const rlim_t needed = static_cast<rlim_t>(max_connections) + 64;  // the database, its WAL, the listener
  if (files.rlim_cur != RLIM_INFINITY && files.rlim_cur < needed) {
    log::warn("the open-file limit is below max_connections; connections beyond it wait until one closes",
              {{"open_files", files.rlim_cur}, {"max_connections", max_connections}});
  }
}

// One server to a database: a second one would play its games from a stale
// memory. The lock is the kernel's, so it goes with the process however that
// ends; the file's last word says whether the run before ended cleanly.
class ServingLock {
 public:
  // "" when taken, else why not. `doing` is the holder's word while it holds it:
  // "running" for a server, "restoring" for the operator's restore.
  std::string take(const std::string& path, const std::string& doing = "running") {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) return "cannot open " + path + ": " + std::strerror(errno);
    char before[64] = {};
    const ssize_t n = ::pread(fd_, before, sizeof before - 1, 0);
    const std::string said = n > 0 ? std::string(before, static_cast<size_t>(n)) : "";
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const auto pid = said.substr(0, said.find(' '));
      const std::string who = pid.empty() ? "" : " (pid " + pid + ")";
      if (said.find("restoring") != std::string::npos) return "a restore" + who + " is under way on this database; wait for it to end";
      return "another counterattackd" + who + " serves this database; stop it first";
    }
    taken_ = true;
    unclean_ = said.find("running") != std::string::npos;
    found_ = said;
    leave_ = doing == "running" ? word("stopped") : said;  // what else takes it leaves the run before's word
    write(word(doing));
    return "";
  }
  bool unclean() const { return unclean_; }
  // What the file says once this one lets go: "restored", after a restore.
  void leave_as(const std::string& state) { leave_ = word(state); }
  // A start that goes no further leaves the run before's word as it found it.
  void leave_as_found() { leave_ = found_; }
  // Reached by every return; a kill or a crash never gets here.
  ~ServingLock() {
    if (fd_ < 0) return;
    if (taken_) write(leave_);
    ::close(fd_);
  }

 private:
  static std::string word(const std::string& state) { return std::to_string(::getpid()) + " " + state + "\n"; }
  void write(const std::string& text) {
    if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, text.data(), text.size(), 0) < 0) return;  // a note only
  }

  int fd_ = -1;
  bool taken_ = false, unclean_ = false;
  std::string leave_, found_;
};

void schedule_purge(net::steady_timer& timer, Accounts& accounts) {
  timer.expires_after(std::chrono::hours(1));
  timer.async_wait([&timer, &accounts](boost::system::error_code ec) {
    if (ec) return;
    accounts.purge_expired();
    schedule_purge(timer, accounts);
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"counterattackd: the play-by-server for Model's Counterattack"};
  std::string config_path, listen, data_dir, backup_to, restore_from, suspend, reinstate, reason, reset, end_game, cancel_tournament, games_of;
  std::string chat_ban, lift_chat_ban, reports_of, handle_report;
  int days = 0;
  bool plain = false, list_suspensions = false, list_all_players = false, status = false, as_json = false;
  app.add_option("--config", config_path, "Config file: 'key = value' lines, or a JSON object");
  app.add_option("--listen", listen, "ADDR:PORT to listen on (default 127.0.0.1:8443; port 0 picks a free one)");
  app.add_option("--data-dir", data_dir, "Directory of the database and the generated certificate (default ./data)");
  app.add_flag("--plain", plain, "Plain WebSocket without TLS, on a loopback address only");
  std::string open_game_expiry;
  app.add_option("--open-game-expiry-seconds", open_game_expiry,
                 "Withdraw an open game nobody has joined after this many seconds (0: never; default 1209600, 14 days); "
                 "overrides the config file's open_game_expiry_seconds");
  app.add_option("--backup", backup_to,
                 "Write a consistent copy of the database to FILE and exit; the server may be running meanwhile");
  app.add_option("--restore", restore_from,
                 "Put a copy of the backup FILE in place of the database and exit, keeping the database it replaces; "
                 "the server must be stopped");
  auto* suspending = app.add_option("--suspend", suspend,
                                    "Suspend the player NAME and exit: their sessions end and they cannot log in; the server may be running");
  app.add_option("--reason", reason,
                 "With --suspend, --chat-ban, --end-game or --cancel-tournament: why, as the players are told it");
  app.add_option("--days", days, "With --suspend or --chat-ban: for this many days (default: until lifted)")
      ->check(CLI::Range(1, 3650));
  app.add_option("--reinstate", reinstate, "Lift the suspension of the player NAME and exit")->excludes(suspending);
  app.add_option("--chat-ban", chat_ban,
                 "Bar the player NAME from chat and exit: their messages are refused with the reason, and their account is"
                 " otherwise as it was; the server may be running");
  app.add_option("--lift-chat-ban", lift_chat_ban, "Lift the chat ban of the player NAME and exit");
  app.add_option("--reports", reports_of,
                 "List the players' reports of chat not yet handled, with the lines reported, and exit (--reports all:"
                 " the handled ones too)")
      ->expected(0, 1);
  app.add_option("--handle-report", handle_report, "Mark the report ID handled and exit");
  app.add_flag("--suspended", list_suspensions, "List the suspended players and exit");
  app.add_option("--reset-password", reset,
                 "Give the player NAME a new random password, end their sessions, print it and exit (for servers that send no mail)");
  app.add_flag("--players", list_all_players, "List the players, who is online and their games, and exit");
  app.add_option("--games", games_of, "List the games waiting or in play (of the player NAME, if given), with their ids, and exit")
      ->expected(0, 1);
  app.add_flag("--status", status,
               "Say whether the server runs and how it fares (games, players, storage and backups, mail, reports), and exit:"
               " 0 when running and nothing is overdue, 1 when not running, 2 when running with a warning, 3 when the"
               " database cannot be read");
  app.add_flag("--json", as_json, "With --status: as one JSON object");
  app.add_option("--end-game", end_game,
                 "End the game ID and exit: cancelled if it waits for an opponent, else aborted with no rating change; "
                 "the server may be running");
  app.add_option("--cancel-tournament", cancel_tournament,
                 "Cancel the tournament ID, not yet started or under way, and exit: its games under way are aborted; "
                 "the server may be running");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help exits 0; a command line not understood exits 2, as a refused configuration does.
    return app.exit(e) == 0 ? 0 : 2;
  }
  // An empty value (a script's unset variable) must not fall through to serving.
  for (const auto& [one_shot, value] : {std::pair<const char*, const std::string*>{"--backup", &backup_to},
                                        {"--restore", &restore_from}, {"--suspend", &suspend}, {"--reinstate", &reinstate}, {"--reset-password", &reset},
                                        {"--end-game", &end_game}, {"--cancel-tournament", &cancel_tournament},
                                        {"--chat-ban", &chat_ban}, {"--lift-chat-ban", &lift_chat_ban}, {"--handle-report", &handle_report}}) {
    if (app.count(one_shot) > 0 && value->empty()) {
      std::cerr << "counterattackd: " << one_shot << " needs a value\n";
      return 2;
    }
  }
  // One operator's action a run: each exits when done, and a second would be left undone unsaid.
  {
    std::string actions;
    int n = 0;
    for (const char* action : {"--backup", "--restore", "--suspend", "--reinstate", "--suspended", "--reset-password", "--players",
                               "--games", "--end-game", "--cancel-tournament", "--chat-ban", "--lift-chat-ban", "--reports",
                               "--handle-report", "--status"}) {
      if (app.count(action) == 0) continue;
      actions += (n++ ? " and " : "") + std::string(action);
    }
    if (n > 1) {
      std::cerr << "counterattackd: one action at a time: " << actions << " are run one by one\n";
      return 2;
    }
  }
  if (app.count("--reason") > 0 && app.count("--suspend") == 0 && app.count("--chat-ban") == 0 && app.count("--end-game") == 0 &&
      app.count("--cancel-tournament") == 0) {
    std::cerr << "counterattackd: --reason goes with --suspend, --chat-ban, --end-game or --cancel-tournament\n";
    return 2;
  }
  if (app.count("--days") > 0 && app.count("--suspend") == 0 && app.count("--chat-ban") == 0) {
    std::cerr << "counterattackd: --days goes with --suspend or --chat-ban\n";
    return 2;
  }
  if (as_json && !status) {
    std::cerr << "counterattackd: --json goes with --status\n";
    return 2;
  }
  if (!reports_of.empty() && reports_of != "all") {
    std::cerr << "counterattackd: --reports takes nothing, or 'all'\n";
    return 2;
  }
  // The database, its backups and the TLS key hold password hashes, addresses
  // and secrets: what the server makes is its own user's alone.
  ::umask(077);

  Config cfg;
  std::string error;
  if (!config_path.empty() && !load_config_file(config_path, cfg, error)) {
    std::cerr << "counterattackd: " << error << "\n";
    return 2;
  }
  if (app.count("--open-game-expiry-seconds") > 0 &&
      !set_config_value(cfg, "open_game_expiry_seconds", open_game_expiry, error)) {
    std::cerr << "counterattackd: --open-game-expiry-seconds: " << error << "\n";
    return 2;
  }
  if (!listen.empty()) cfg.listen = listen;
  if (!data_dir.empty()) cfg.data_dir = data_dir;
  if (plain) cfg.plain = true;
  const bool generated_tls = cfg.tls_cert.empty() && cfg.tls_key.empty();
  cfg.resolve();
  if (!backup_to.empty()) {
    if (auto why = backup_database(cfg.database, backup_to); !why.empty()) {
      std::cerr << "counterattackd: " << why << "\n";
      return 1;
    }
    std::cout << "Backed up " << cfg.database << " to " << backup_to << ".\n";
    return 0;
  }
  if (!restore_from.empty()) {
    // Never beside a server: it would go on with the database it has open.
    // On a new machine the directory is made, and unmade again when the restore is refused.
    namespace fs = std::filesystem;
    std::error_code dir_ec;
    const auto db_dir = fs::absolute(cfg.database, dir_ec).parent_path();
    const bool made = !fs::exists(db_dir, dir_ec);
    fs::create_directories(db_dir, dir_ec);
    std::string said;
    std::string why;
    {
      ServingLock held;
      why = held.take(cfg.database + ".lock", "restoring");
      // Run as root, a lock file it made is the directory owner's, refused or not: the server opens it.
      if (struct stat dir{}; why.empty() && ::geteuid() == 0 && ::stat(db_dir.c_str(), &dir) == 0) {
        if (::chown((cfg.database + ".lock").c_str(), dir.st_uid, dir.st_gid) != 0) {
          std::cerr << "counterattackd: the lock file could not be given to the data directory's owner: " << std::strerror(errno) << "\n";
        }
      }
      if (why.empty()) why = restore_database(cfg.database, restore_from, said);
      if (why.empty()) held.leave_as("restored");  // the next start is not told of an unclean end: the database is the backup
    }
    if (!why.empty()) {
      if (made) {
        fs::remove(cfg.database + ".lock", dir_ec);
        fs::remove(db_dir, dir_ec);  // only while empty
      }
      std::cerr << "counterattackd: " << why << "\n";
      return 1;
    }
    if (made) said = "Made the directory " + db_dir.string() + ".\n" + said;
    // Run as root, the files go to the database's owner; with none but root, the operator is told.
    if (struct stat owner{}; ::geteuid() == 0 && ::stat(cfg.database.c_str(), &owner) == 0) {
      if (owner.st_uid != 0) {
        if (::chown((cfg.database + ".lock").c_str(), owner.st_uid, owner.st_gid) != 0) {
          said += "\nThe lock file " + cfg.database + ".lock could not be given to the database's owner: " + std::strerror(errno) + ".";
        }
      } else {
        said += "\nThe database belongs to root: a server run as another user needs the directory given to it first (chown -R USER " +
                db_dir.string() + ").";
      }
    }
    // A generated certificate that is not there is made anew at the start, and every player pins again.
    if (generated_tls && !std::filesystem::exists(cfg.tls_cert, dir_ec)) {
      said += "\nThere is no certificate at " + cfg.tls_cert + ": the server makes a new one at its start, and every player must"
              " accept it again. To keep the old one, copy the old data directory's tls/ here first.";
    }
    std::cout << said << "\n";
    return 0;
  }
  if (status) {
    std::string said;
    const int exit_status = server_status(cfg, as_json, said);
    if (exit_status == kStatusUnreadable) {
      std::cerr << "counterattackd: " << said << "\n";
      // A monitoring script reading JSON gets JSON whatever happens.
      if (as_json) std::cout << nlohmann::ordered_json{{"error", said}, {"exit_status", exit_status}}.dump(2) << "\n";
    } else {
      std::cout << said;
    }
    return exit_status;
  }
  const bool list_all_games = app.count("--games") > 0, list_reports = app.count("--reports") > 0;
  if (!suspend.empty() || !reinstate.empty() || list_suspensions || !reset.empty() || list_all_players || list_all_games ||
      !end_game.empty() || !cancel_tournament.empty() || !chat_ban.empty() || !lift_chat_ban.empty() || list_reports ||
      !handle_report.empty()) {
    std::string said;
    const std::string why =
        !suspend.empty()     ? suspend_account(cfg.database, suspend, days, reason, said)
        : !chat_ban.empty()  ? ban_from_chat(cfg.database, chat_ban, days, reason, said)
        : !lift_chat_ban.empty() ? lift_chat_ban_of(cfg.database, lift_chat_ban, said)
        : list_reports       ? list_chat_reports(cfg.database, reports_of == "all", said)
        : !handle_report.empty() ? mark_report_handled(cfg.database, handle_report, said)
        : !reinstate.empty() ? reinstate_account(cfg.database, reinstate, said)
        : !end_game.empty()  ? end_game_by_operator(cfg.database, end_game, reason, said)
        : !cancel_tournament.empty() ? cancel_tournament_by_operator(cfg.database, cancel_tournament, reason, said)
        : list_all_players   ? list_players(cfg.database, said)
        : list_all_games     ? list_games(cfg.database, games_of, said)
        : !reset.empty()     ? reset_password(cfg.database, reset, static_cast<unsigned long long>(cfg.argon2_opslimit),
                                              static_cast<std::size_t>(cfg.argon2_memlimit_kib) * 1024, said)
                             : list_suspended(cfg.database, said);
    if (!why.empty()) {
      std::cerr << "counterattackd: " << why << "\n";
      return 1;
    }
    std::cout << said << (said.ends_with('\n') ? "" : "\n");
    return 0;
  }
  log::init(cfg.log_format, cfg.log_level);
  google::protobuf::SetLogHandler(&protobuf_log);
  std::signal(SIGPIPE, SIG_IGN);
  raise_open_file_limit(cfg.max_connections);
  auto die = [](const std::string& why) {
    log::error("cannot start", {{"error", why}});
    return 2;
  };
  if (sodium_init() < 0) return die("libsodium cannot initialise");
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return die("libcurl cannot initialise");
  struct CurlCleanup {
    ~CurlCleanup() { curl_global_cleanup(); }
  } curl_cleanup;

  std::string host;
  unsigned short port = 0;
  if (!split_listen(cfg.listen, host, port, error)) return die(error);
  if (host == "localhost") host = "127.0.0.1";
  boost::system::error_code ec;
  const auto address = net::ip::make_address(host, ec);
  if (ec) return die("bad listen address '" + host + "': " + ec.message());
  if (cfg.plain && !address.is_loopback()) {
    return die("plain WebSocket (no TLS) is allowed only on a loopback address, not " + host);
  }
  if (cfg.min_move_seconds > cfg.max_move_seconds) return die("min_move_seconds is above max_move_seconds");
  if (cfg.min_clock_seconds > cfg.max_move_seconds) return die("min_clock_seconds is above max_move_seconds");
  if (cfg.proxy_protocol && cfg.trusted_proxies.empty()) {
    return die("proxy_protocol is on, but trusted_proxies names no proxy to expect its header from");
  }
  // A port taken by another program is found before anything is made on disk (after
  // the lock, where there is one: a second server on this database is named as such);
  // the listener itself opens later, once the database is ready.
  auto port_taken = [&] {
    net::io_context probe_io;
    net::ip::tcp::acceptor probe(probe_io);
    return bind_acceptor(probe, {address, port}, false);
  };
  std::error_code fs_ec;
  const bool data_existed = std::filesystem::exists(cfg.data_dir, fs_ec);
  if (!data_existed) {
    if (auto why = port_taken(); !why.empty()) return die(why);
  }
  std::filesystem::create_directories(cfg.data_dir, fs_ec);
  if (fs_ec) return die("cannot create data directory " + cfg.data_dir + ": " + fs_ec.message());
  ServingLock serving;
  if (auto why = serving.take(cfg.database + ".lock"); !why.empty()) return die(why);
  if (data_existed) {
    if (auto why = port_taken(); !why.empty()) {
      serving.leave_as_found();
      return die(why);
    }
  }
  remove_unfinished_restores(cfg.database);
  if (serving.unclean()) {
    log::warn("the last run did not stop cleanly (killed, or the machine went down): every game resumes from its log",
              {{"database", cfg.database}});
  }

  net::ssl::context tls(net::ssl::context::tls_server);
  if (!cfg.plain) {
    namespace fs = std::filesystem;
    if (generated_tls && !fs::exists(cfg.tls_cert) && !fs::exists(cfg.tls_key)) {
      if (!write_self_signed(cfg.tls_cert, cfg.tls_key, error)) return die(error);
      log::info("self-signed certificate created for localhost", {{"cert", cfg.tls_cert}, {"key", cfg.tls_key}});
    }
    if (!init_tls_context(tls, cfg.tls_cert, cfg.tls_key, error)) return die(error);
  }

  {
    // A newer release's migrations change the database for good: first a copy of it as it was.
    std::string taken;
    if (auto why = backup_before_upgrade(cfg.database, cfg.backup_dir, taken); !why.empty()) {
      return die("no backup could be taken before upgrading the database, so it is left as it was: " + why);
    }
    if (!taken.empty()) log::info("backup taken before the upgrade", {{"file", taken}});
  }
  auto storage = Storage::open(cfg.database, cfg.synchronous, error);
  if (!storage) return die(error);
  Rulesets rulesets;
  auto ca = make_counterattack_ruleset();
  rulesets[ca->name()] = ca;

  net::io_context ioc(cfg.threads);
  // Taken before anything says the server listens: a stop asked for from then on
  // is a graceful one, never the default action that kills the process.
  net::signal_set hangups(ioc, SIGHUP);
  net::signal_set signals(ioc, SIGINT, SIGTERM);
  Mailer mailer(*storage, cfg);
  Vacations vacations(*storage, cfg);
  vacations.load();
  Accounts accounts(*storage, cfg, mailer, vacations);
  Ratings ratings(*storage, rulesets);
  GameService games(*storage, rulesets, cfg, mailer, ratings, vacations, [&ioc](std::function<void()> job) { net::post(ioc, std::move(job)); });
  games.resume_clocks();
  games.preload();
  games.chat_moderation().load(*storage);
  games.load_moderation_limits();
  Tournaments tournaments(*storage, rulesets, cfg, mailer, games,
                          [&ioc](std::function<void()> job) { net::post(ioc, std::move(job)); });
  accounts.purge_expired();
  SessionRegistry sessions;
  ConnectionCaps caps(cfg.max_connections, cfg.max_connections_per_address, cfg.trusted_proxies);
  Hub hub{cfg, accounts, games, tournaments, ratings, sessions, caps};

  auto listener = std::make_shared<Listener>(ioc, cfg.plain ? nullptr : &tls, hub);
  if (!listener->open({address, port}, error)) return die(error);
  const auto bound = listener->local_endpoint();
  const std::string where =
      (bound.address().is_v6() ? "[" + bound.address().to_string() + "]" : bound.address().to_string()) + ":" +
      std::to_string(bound.port());
  games.count_connections_with([&sessions] { return sessions.size(); });
  {
    // Stored before the server says it listens: a --status from then on reads this run.
    std::error_code dir_ec;
    record_start(*storage, ServerStart{CA_VERSION, where, std::filesystem::absolute(cfg.backup_dir, dir_ec).string(), mailer.enabled(),
                                       cfg.backup_every_seconds});
  }
  log::info("listening on " + where, {{"address", where},
                                      {"scheme", cfg.plain ? "ws" : "wss"},
                                      {"data_dir", cfg.data_dir},
                                      {"threads", cfg.threads},
                                      {"trusted_proxies", cfg.trusted_proxies.text()},
                                      {"proxy_protocol", cfg.proxy_protocol ? "on" : "off"},
                                      {"mail", cfg.smtp_url.empty() ? "off" : "on"},
                                      {"fingerprint", cfg.plain ? "" : certificate_fingerprint(tls)},
                                      {"schema", storage->schema_version()}});
  listener->run();
  mailer.start();
  Backups backups(cfg, *storage);
  backups.start();

  net::steady_timer purge(ioc), drain(ioc);
  schedule_purge(purge, accounts);
  // The clocks of timed games, checked every second on a strand of their own, so
  // that the shutdown's cancel never meets a re-arming timer on another thread.
  auto clock_strand = net::make_strand(ioc);
  net::steady_timer clocks(clock_strand);
  std::atomic<bool> clocks_stopped = false;
  int ticks = 0;
  // Suspensions come from the operator's command in another process: read every two seconds.
  SuspensionWatch suspensions;
  std::function<void()> tick = [&] {
    clocks.expires_after(std::chrono::seconds(1));
    clocks.async_wait([&](boost::system::error_code e) {
      if (e || clocks_stopped) return;
      try {
        games.expire_overdue(++ticks % 30 == 0);
        tournaments.start_due();
        games.send_digests();
      } catch (const std::exception& x) {
        log::error("clocks could not be checked", {{"error", x.what()}});
      }
      if (ticks % 2 == 1) {
        try {
          const auto found = suspensions.poll(*storage);
          for (const auto& s : found.seen) {
            log::info("suspension in force", {{"user", s.name}, {"until", s.until}, {"reason", s.reason}});
          }
          for (const auto& s : found.sign_out) sessions.sign_out(s.user_id, "", s.text);
          for (const auto& t : found.cancelled) {
            log::info("tournament of a suspended organiser cancelled", {{"tournament", t.tournament_id}});
            tournaments.announce_cancelled(t.tournament_id, t.reason, t.by);
          }
          for (const auto& g : found.games) {
            if (games.set_aside(g.game_id, g.user_id, g.why, true)) {
              log::info("game of a suspended player set aside", {{"game", g.game_id}, {"reason", g.why}});
            }
          }
        } catch (const std::exception& x) {
          log::error("suspensions could not be read", {{"error", x.what()}});
        }
        try {
          for (const auto& b : games.chat_moderation().poll_bans(*storage)) {
            log::info("chat ban in force", {{"user", b.name}, {"until", b.until}, {"reason", b.reason}});
          }
        } catch (const std::exception& x) {
          log::error("chat bans could not be read", {{"error", x.what()}});
        }
        try {
          for (const auto& g : tournaments.games_of_withdrawn()) {
            if (games.set_aside(g.game_id, g.user_id, g.why, true)) {
              log::info("game of a withdrawn entrant resigned", {{"game", g.game_id}, {"reason", g.why}});
            }
          }
        } catch (const std::exception& x) {
          log::error("withdrawn entrants' games could not be read", {{"error", x.what()}});
        }
        try {
          for (const auto& t : operator_cancellations(*storage)) {
            log::info("tournament cancelled by the operator", {{"tournament", t.tournament_id}, {"reason", t.reason}});
            tournaments.announce_cancelled(t.tournament_id, t.reason, 0);
          }
          for (const auto& asked : operator_ends(*storage)) {
            const auto outcome = games.end_by_operator(asked.game_id, asked.reason);
            if (outcome == GameService::OperatorEndOutcome::Ended) {
              log::info("game ended by the operator", {{"game", asked.game_id}, {"reason", asked.reason}});
            } else if (outcome == GameService::OperatorEndOutcome::Unloadable) {
              log::warn("game ended by the operator in its row alone: its stored log cannot be read, and stays as it is",
                        {{"game", asked.game_id}, {"reason", asked.reason}});
            }
          }
        } catch (const std::exception& x) {
          log::error("the operator's requests could not be read", {{"error", x.what()}});
        }
      }
      tick();
    });
  };
  tick();
  // A hangup (a closed terminal, or a habit of asking daemons to reload) does not stop the games.
  std::function<void()> on_hangup = [&] {
    hangups.async_wait([&](boost::system::error_code e, int) {
      if (e) return;
      log::info("hangup ignored: the settings and the certificate are read at start; restart to change them");
      on_hangup();
    });
  };
  on_hangup();
  const auto deadline = std::make_shared<std::chrono::steady_clock::time_point>();
  std::function<void()> wait_drained = [&] {
    drain.expires_after(std::chrono::milliseconds(50));
    drain.async_wait([&](boost::system::error_code e) {
      if (e) return;
      if (sessions.size() == 0 || std::chrono::steady_clock::now() > *deadline) return ioc.stop();
      wait_drained();
    });
  };
  signals.async_wait([&](boost::system::error_code e, int sig) {
    if (e) return;
    log::info("shutting down", {{"signal", sig}, {"connections", sessions.size()}});
    hangups.cancel();
    listener->stop();
    purge.cancel();
    clocks_stopped = true;
    games.beat();  // the last moment alive: a restart gives back the time from here
    net::post(clock_strand, [&] { clocks.cancel(); });
    sessions.shutdown_all();
    *deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    wait_drained();
  });

  // The main thread only waits: it keeps the process's name, which pidof,
  // pkill and top show, while the network threads are named for top -H.
  std::vector<std::thread> threads;
  for (int i = 0; i < cfg.threads; ++i) {
    threads.emplace_back([&ioc] {
      log::name_thread("ca-net");
      ioc.run();
    });
  }
  for (auto& t : threads) t.join();
  backups.stop();
  accounts.all_left();  // connections still open at the drain's end are not counted on
  accounts.stop();
  mailer.stop();  // before the storage: it waits for its outbox writes
  storage->stop();  // commits whatever is still queued
  log::info("stopped", {{"batches", storage->batches()}, {"writes", storage->writes()},
                       {"syncs", storage->syncs()}});
  return 0;
}
