// Test helpers: a real WebSocket (TLS or plain) client written with Beast, and
// the real counterattackd binary run as a subprocess on 127.0.0.1.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wire.pb.h"

namespace counterattack::server::testing {

using namespace std::chrono_literals;
using Millis = std::chrono::milliseconds;

// A fresh directory under the system temp directory.
std::string make_temp_dir(const std::string& tag);

// Settings for tests: cheap password hashing, otherwise the defaults.
std::string test_config();

class ServerProcess {
 public:
  // Starts counterattackd on 127.0.0.1:0 with `data_dir`; waits for its "listening on" line.
  explicit ServerProcess(std::string data_dir, std::vector<std::string> extra_args = {},
                         const std::string& config_text = test_config());
  ~ServerProcess();
  bool started() const { return port_ > 0; }
  int port() const { return port_; }
  int pid() const { return pid_; }
  const std::string& data_dir() const { return data_dir_; }
  std::string log() const;
  bool alive();
  void kill9();
  // SIGTERM; the exit status (-1 if it had to be killed).
  int terminate(Millis grace = 10s);
  // Waits for the process to exit on its own (for refused configurations).
  std::optional<int> wait_exit(Millis timeout);

 private:
  std::string data_dir_, log_path_;
  int pid_ = -1;
  int port_ = 0;
};

class Client {
 public:
  // Connects to address:port (wss, any certificate accepted, unless plain); null on failure.
  static std::unique_ptr<Client> connect(int port, bool tls = true, const std::string& address = "127.0.0.1");
  // Connects over TLS with these headers added to the upgrade request.
  using Headers = std::vector<std::pair<std::string, std::string>>;
  static std::unique_ptr<Client> connect_with(int port, const Headers& headers);
  // Connects over TLS after writing `first_bytes` (a PROXY protocol header) on the bare connection.
  static std::unique_ptr<Client> connect_after(int port, const std::string& first_bytes, const Headers& headers = {});
  ~Client();

  // Sends an envelope; a zero request_id gets the next one. Returns the id.
  std::uint64_t send(wire::ClientMessage m);
  void send_raw(const std::string& bytes, bool binary = true);
  // The next message received, in order.
  std::optional<wire::ServerMessage> next(Millis timeout = 10s);
  // Sends and returns the answer to this request (messages before it stay queued).
  wire::ServerMessage request(wire::ClientMessage m, Millis timeout = 10s);
  // The first queued or incoming message matching `pred`; others stay queued.
  std::optional<wire::ServerMessage> wait_for(const std::function<bool(const wire::ServerMessage&)>& pred,
                                              Millis timeout = 10s);
  // Drops every queued message that matches.
  std::vector<wire::ServerMessage> take_all(const std::function<bool(const wire::ServerMessage&)>& pred);
  bool closed() const;

  // Conveniences; each returns the server's answer.
  wire::ServerMessage register_user(const std::string& name, const std::string& password = "correct horse");
  wire::ServerMessage login(const std::string& name, const std::string& password = "correct horse");
  wire::ServerMessage resume(const std::string& token);
  wire::ServerMessage create_game(wire::SideChoice side, bool is_private = false, std::vector<std::string> options = {});
  wire::ServerMessage join(const std::string& game_id, const std::string& invite = "");
  wire::ServerMessage watch(const std::string& game_id, std::int64_t from_version = 0);
  wire::ServerMessage submit(const std::string& game_id, const std::string& key, const game::Order& order);
  wire::ServerMessage ping(std::uint64_t nonce = 1);
  // Turn notices, and tournaments' and rematches' news, on this connection.
  wire::ServerMessage follow_turns();

  struct Impl;

 private:
  explicit Client(std::unique_ptr<Impl> impl);
  static std::unique_ptr<Client> start(std::unique_ptr<Impl> impl);  // null stays null
  std::unique_ptr<Impl> impl_;
  std::uint64_t next_id_ = 1;
};

game::Order done_order();

// The HTTP status a TLS upgrade request with these added headers gets: 101
// when it is let in, 0 when there is no answer.
int upgrade_status(int port, const Client::Headers& headers);

}  // namespace counterattack::server::testing
