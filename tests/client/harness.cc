#include "harness.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "scenario.h"

extern char** environ;

namespace counterattack::cli::testing {

namespace fs = std::filesystem;

namespace {

// A null-ended vector of the strings of `a` for execve, which `a` must outlive.
std::vector<char*> argv_of(std::vector<std::string>& a) {
  std::vector<char*> argv;
  for (auto& s : a) argv.push_back(s.data());
  argv.push_back(nullptr);
  return argv;
}

std::vector<char*> make_env(const std::map<std::string, std::string>& extra,
                            std::vector<std::string>& store) {
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    const std::string key = kv.substr(0, kv.find('='));
    if (!extra.count(key)) store.push_back(kv);
  }
  for (const auto& [k, v] : extra) store.push_back(k + "=" + v);
  return argv_of(store);
}

}  // namespace

std::string server_bin() {
  const char* env = std::getenv("CA_SERVER_BIN");
  return env && *env ? env : CA_SERVER_BIN;
}

std::string temp_dir(const std::string& tag) {
  std::string t = (fs::temp_directory_path() / ("ca-e2e-" + tag + "-XXXXXX")).string();
  if (!::mkdtemp(t.data())) return {};
  return t;
}

Result run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
           const std::string& input, int timeout_s) {
  ::signal(SIGPIPE, SIG_IGN);  // a child that exits early must not take the test with it
  int in[2], out[2], err[2];
  if (::pipe(in) || ::pipe(out) || ::pipe(err)) return {};
  std::vector<std::string> store;
  auto envp = make_env(env, store);
  std::vector<std::string> a = args;
  auto argv = argv_of(a);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (!input.empty()) {
    const ssize_t n = ::write(in[1], input.data(), input.size());
    (void)n;  // a child that stops reading early fails its own way
  }
  ::close(in[1]);
  Result r;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  bool out_open = true, err_open = true;
  while ((out_open || err_open) && std::chrono::steady_clock::now() < until) {
    pollfd fds[2] = {{out_open ? out[0] : -1, POLLIN, 0}, {err_open ? err[0] : -1, POLLIN, 0}};
    ::poll(fds, 2, 200);
    char buf[65536];
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0)
        (i == 0 ? out_open : err_open) = false;
      else
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
    }
  }
  if (out_open || err_open) ::kill(pid, SIGKILL);
  ::close(out[0]);
  ::close(err[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

void Background::start(const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& env, const std::string& log_path,
                       bool piped_input) {
  log = log_path;
  std::vector<std::string> store;
  auto envp = make_env(env, store);
  std::vector<std::string> a = args;
  auto argv = argv_of(a);
  // Close-on-exec, so that no other child holds this input open after close_input.
  int in[2] = {-1, -1};
  if (piped_input) {
    ::signal(SIGPIPE, SIG_IGN);  // a child that exits early must not take the test with it
    if (::pipe2(in, O_CLOEXEC)) return;
  }
  pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int stdin_fd = piped_input ? in[0] : ::open("/dev/null", O_RDONLY);
    ::dup2(stdin_fd, 0);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  if (piped_input) {
    ::close(in[0]);
    input = in[1];
  }
}

std::string Background::output() const {
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Background::send(const std::string& text) {
  return input >= 0 &&
         ::write(input, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

void Background::close_input() {
  if (input >= 0) ::close(input);
  input = -1;
}

int Background::wait(int timeout_s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (std::chrono::steady_clock::now() < until) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      pid = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  stop(SIGKILL);
  return -1;
}

void Background::stop(int sig) {
  close_input();
  if (pid <= 0) return;
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  pid = -1;
}

Background::~Background() {
  stop(SIGKILL);
}

std::string start_server(Background& server, const std::string& data_dir,
                         const std::string& listen, const std::vector<std::string>& extra) {
  // The log is appended to: only what this start writes counts.
  const size_t from =
      fs::exists(data_dir + "/server.log") ? fs::file_size(data_dir + "/server.log") : 0;
  std::vector<std::string> args{server_bin(), "--listen", listen, "--data-dir", data_dir};
  args.insert(args.end(), extra.begin(), extra.end());
  server.start(args, {}, data_dir + "/server.log");
  const std::regex re("listening on ([0-9.]+):([0-9]+)");
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < until) {
    std::smatch m;
    const std::string all = server.output();
    const std::string log = all.size() > from ? all.substr(from) : std::string();
    if (std::regex_search(log, m, re)) return m[1].str() + ":" + m[2].str();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return {};
}

void TwoPlayers::SetUp() {
  if (!fs::exists(server_bin())) GTEST_SKIP() << server_bin() << " is not built";
  data_ = temp_dir("data");
  alice_ = {"alice", temp_dir("alice"), ""};
  bob_ = {"bob", temp_dir("bob"), ""};
  addr_ = start_server(server_, data_, "127.0.0.1:0");
  ASSERT_FALSE(addr_.empty()) << "the server did not say where it listens:\n" << server_.output();
}

void TwoPlayers::TearDown() {
  server_.stop();
  if (HasFailure()) std::cerr << "server log:\n" << server_.output().substr(0, 20000) << std::endl;
  if (std::getenv("CA_E2E_KEEP")) return;  // to look into a failure
  for (const auto& d : {data_, alice_.config, bob_.config}) {
    std::error_code ec;
    if (!d.empty()) fs::remove_all(d, ec);
  }
}

std::string TwoPlayers::started_game(const std::string& time) {
  EXPECT_EQ(cli(alice_, {"register", "alice"}, "password-of-alice\n").code, 0);
  EXPECT_EQ(cli(bob_, {"register", "bob"}, "password-of-bob\n").code, 0);
  auto created = cli(alice_, {"--json", "new", "--side", "soviet", "--time", time});
  EXPECT_EQ(created.code, 0) << created.err;
  const std::string game = created.code == 0 ? json::parse(created.out).value("game_id", "") : "";
  EXPECT_EQ(cli(bob_, {"join", game}).code, 0);
  return game;
}

void TwoPlayers::bring_8gtc_to_attack_3546(const std::string& game) {
  EXPECT_EQ(cli(bob_, {"standing", game, "no-support", "take-losses", "retreat"}).code, 0);
  const std::vector<std::vector<std::string>> orders = {
      {"corps", "8GTC"},
      {"move", "8GTC/58G", "4153", "4152", "4051", "3951", "3950", "3849", "3848", "3748", "3647", "3548", "3447", "3446"},
      {"move", "8GTC/59G", "4153", "4152", "4051", "3951", "3950", "3849", "3848", "3748", "3647", "3547"},
      {"move", "8GTC/60G", "4153", "4152", "4051", "3951", "3950", "3849", "3848", "3847", "3846", "3845", "3844", "3745", "3645"},
      {"move", "8GTC/1817", "4153", "4152", "4051", "3951", "3950", "3849", "3848", "3748", "3647", "3646"},
      {"done"},  // to the barrage step
      {"done"},  // to the combat step
  };
  for (const auto& o : orders) {
    std::vector<std::string> args{"order", game};
    args.insert(args.end(), o.begin(), o.end());
    const auto r = cli(alice_, args);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
  }
}

std::vector<std::string> TwoPlayers::resigned_games(int n) {
  std::vector<std::string> ended;
  for (int i = 0; i < n; ++i) {
    const auto made = cli(alice_, {"--json", "new", "--side", "soviet"});
    EXPECT_EQ(made.code, 0) << made.err;
    if (made.code != 0) break;
    ended.push_back(json::parse(made.out).value("game_id", ""));
    EXPECT_EQ(cli(bob_, {"join", ended.back()}).code, 0);
    EXPECT_EQ(cli(bob_, {"resign", ended.back(), "--yes"}).code, 0);
  }
  return ended;
}

std::map<std::string, std::string> TwoPlayers::env(const Player& p) const {
  return {{"XDG_CONFIG_HOME", p.config}, {"NO_COLOR", "1"}};
}

std::vector<std::string> TwoPlayers::command(const std::vector<std::string>& args) const {
  std::vector<std::string> a = {CA_CLIENT_BIN, "--server", url(), "--insecure"};
  a.insert(a.end(), args.begin(), args.end());
  return a;
}

Result TwoPlayers::cli(const Player& p, std::vector<std::string> args, const std::string& input) {
  return run(command(args), env(p), input);
}

json TwoPlayers::view_of(const Player& p, const std::string& game) {
  auto r = cli(p, {"show", game, "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  try {
    return json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "show --json printed no JSON: " << r.out << r.err;
    return json::object();
  }
}

std::vector<std::string> candidates(const json& view) {
  std::vector<std::string> c;
  if (view.contains("decision") && view["decision"].contains("candidates")) {
    for (const auto& x : view["decision"]["candidates"]) c.push_back(x.get<std::string>());
  }
  return c;
}

std::vector<std::string> move_tries(const json& view, const std::string& side) {
  const auto& sc = *default_scenario();
  std::set<std::string> occupied;
  for (const auto& st : view.value("stacks", json::array()))
    occupied.insert(st.value("location", ""));
  std::vector<std::string> tries;
  for (const auto& st : view.value("stacks", json::array())) {
    if (st.value("side", "") != side) continue;
    for (const auto& u : st.value("units", json::array())) {
      if (u.value("moved", false) || u.value("id", "").empty()) continue;
      const std::string id = u["id"];
      auto loc = sc.parse_location(st.value("location", ""));
      if (!loc) continue;
      std::vector<Loc> next;
      if (sc.is_hex(*loc)) {
        for (Loc nb : sc.hexes[static_cast<size_t>(*loc)].nb) next.push_back(nb);
      } else if (sc.is_entry(*loc)) {
        next = sc.entry_points[static_cast<size_t>(sc.entry_index(*loc))].hexes;
      }
      for (Loc n : next) {
        if (n < 0 || !sc.is_hex(n)) continue;
        const std::string name = sc.location_name(n);
        if (!occupied.count(name)) tries.push_back("move " + id + " " + name);
      }
      if (tries.size() > 6) return tries;
    }
  }
  return tries;
}

}  // namespace counterattack::cli::testing
