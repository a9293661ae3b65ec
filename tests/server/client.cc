#include "client.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp needs std::exchange

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

namespace counterattack::server::testing {

namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
namespace fs = std::filesystem;

std::string make_temp_dir(const std::string& tag) {
  std::string t = (fs::temp_directory_path() / ("ca-server-" + tag + "-XXXXXX")).string();
  if (!::mkdtemp(t.data())) return {};
  return t;
}

std::string test_config() {
  return "# counterattackd settings for tests\n"
         "argon2_opslimit = 1\n"
         "argon2_memlimit_kib = 8\n"
         "threads = 2\n"
         "messages_per_second = 5000\n"  // bots answer at once
         "message_burst = 5000\n";
}

game::Order done_order() {
  game::Order o;
  o.mutable_done();
  return o;
}

// ---------------------------------------------------------------------------
// The server process
// ---------------------------------------------------------------------------

ServerProcess::ServerProcess(std::string data_dir, std::vector<std::string> extra_args, const std::string& config_text)
    : data_dir_(std::move(data_dir)), log_path_(data_dir_ + ".log") {
  const std::string conf = data_dir_ + ".conf";
  std::ofstream(conf) << config_text;
  std::uintmax_t start = 0;
  std::error_code ec;
  if (fs::exists(log_path_)) start = fs::file_size(log_path_, ec);
  std::vector<std::string> args = {COUNTERATTACKD, "--data-dir", data_dir_, "--config", conf};
  if (std::find(extra_args.begin(), extra_args.end(), "--listen") == extra_args.end()) {
    args.insert(args.end(), {"--listen", "127.0.0.1:0"});
  }
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ == 0) {
    const int fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const std::regex listening("listening on [0-9.]+:([0-9]+)");
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string text = log();
    const std::string fresh = text.size() > start ? text.substr(start) : "";
    std::smatch m;
    if (std::regex_search(fresh, m, listening)) {
      port_ = std::stoi(m[1]);
      return;
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(20ms);
  }
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) kill9();
}

std::string ServerProcess::log() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool ServerProcess::alive() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

void ServerProcess::kill9() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  port_ = 0;
}

std::optional<int> ServerProcess::wait_exit(Millis timeout) {
  if (pid_ <= 0) return std::nullopt;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      port_ = 0;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(10ms);
  }
  return std::nullopt;
}

int ServerProcess::terminate(Millis grace) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  if (auto code = wait_exit(grace)) return *code;
  kill9();
  return -1;
}

// ---------------------------------------------------------------------------
// The client: one io thread drives every socket operation.
// ---------------------------------------------------------------------------

struct Client::Impl {
  net::io_context ioc;
  net::executor_work_guard<net::io_context::executor_type> work{ioc.get_executor()};
  ssl::context ctx{ssl::context::tls_client};
  std::unique_ptr<websocket::stream<beast::ssl_stream<beast::tcp_stream>>> tls;
  std::unique_ptr<websocket::stream<beast::tcp_stream>> plain;
  beast::flat_buffer buffer;
  std::thread thread;

  std::mutex mu;
  std::condition_variable cv;
  std::deque<wire::ServerMessage> inbox;
  bool closed = false;

  struct Out {
    std::string bytes;
    bool binary;
  };
  std::deque<Out> writes;  // io thread only
  bool writing = false;

  template <typename F>
  void with_ws(F&& f) {
    if (tls) f(*tls);
    else f(*plain);
  }

  void mark_closed() {
    std::lock_guard lock(mu);
    closed = true;
    cv.notify_all();
  }

  void read() {
    with_ws([this](auto& ws) {
      ws.async_read(buffer, [this](beast::error_code ec, std::size_t n) {
        if (ec) return mark_closed();
        wire::ServerMessage m;
        if (!m.ParseFromArray(buffer.cdata().data(), static_cast<int>(n))) {
          // Kept visible: a frame the client cannot read is a server bug.
          m.Clear();
          m.mutable_error()->set_code(wire::INTERNAL);
          m.mutable_error()->set_message("client: unreadable frame of " + std::to_string(n) + " bytes");
        }
        buffer.consume(buffer.size());
        {
          std::lock_guard lock(mu);
          if (m.has_bundle()) {
            for (auto& inner : *m.mutable_bundle()->mutable_messages()) inbox.push_back(std::move(inner));
          } else {
            inbox.push_back(std::move(m));
          }
          cv.notify_all();
        }
        read();
      });
    });
  }

  void write_next() {
    writing = true;
    with_ws([this](auto& ws) {
      ws.binary(writes.front().binary);
      ws.async_write(net::buffer(writes.front().bytes), [this](beast::error_code ec, std::size_t) {
        writing = false;
        if (ec) return mark_closed();
        writes.pop_front();
        if (!writes.empty()) write_next();
      });
    });
  }

  void post_write(std::string bytes, bool binary) {
    net::post(ioc, [this, b = std::move(bytes), binary]() mutable {
      writes.push_back(Out{std::move(b), binary});
      if (!writing) write_next();
    });
  }

  ~Impl() {
    if (thread.joinable()) {
      net::post(ioc, [this] {
        with_ws([](auto& ws) { ws.async_close(websocket::close_code::normal, [](beast::error_code) {}); });
      });
      {
        std::unique_lock lock(mu);
        cv.wait_for(lock, 2s, [&] { return closed; });
      }
      work.reset();
      ioc.stop();
      thread.join();
    }
  }
};

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

namespace {

// `first_bytes` go out on the bare TCP connection before anything else, as a
// proxy's PROXY protocol header does.
std::unique_ptr<Client::Impl> open_impl(int port, bool use_tls, const std::string& address, const Client::Headers& headers,
                                        const std::string& first_bytes = {}) {
  auto impl = std::make_unique<Client::Impl>();
  const tcp::endpoint ep(net::ip::make_address(address), static_cast<unsigned short>(port));
  const std::string host = address + ":" + std::to_string(port);
  auto decorate = [&headers] {
    return websocket::stream_base::decorator([headers](websocket::request_type& req) {
      for (const auto& [name, value] : headers) req.insert(name, value);
    });
  };
  try {
    if (use_tls) {
      impl->ctx.set_verify_mode(ssl::verify_none);  // the server's certificate is self-signed
      impl->tls = std::make_unique<websocket::stream<beast::ssl_stream<beast::tcp_stream>>>(impl->ioc, impl->ctx);
      beast::get_lowest_layer(*impl->tls).connect(ep);
      net::write(beast::get_lowest_layer(*impl->tls), net::buffer(first_bytes));
      impl->tls->next_layer().handshake(ssl::stream_base::client);
      impl->tls->set_option(decorate());
      impl->tls->handshake(host, "/");
    } else {
      impl->plain = std::make_unique<websocket::stream<beast::tcp_stream>>(impl->ioc);
      beast::get_lowest_layer(*impl->plain).connect(ep);
      net::write(beast::get_lowest_layer(*impl->plain), net::buffer(first_bytes));
      impl->plain->set_option(decorate());
      impl->plain->handshake(host, "/");
    }
  } catch (const std::exception&) {
    return nullptr;
  }
  return impl;
}

}  // namespace

std::unique_ptr<Client> Client::connect(int port, bool use_tls, const std::string& address) {
  return start(open_impl(port, use_tls, address, {}));
}

std::unique_ptr<Client> Client::connect_with(int port, const Headers& headers) {
  return start(open_impl(port, true, "127.0.0.1", headers));
}

std::unique_ptr<Client> Client::connect_after(int port, const std::string& first_bytes, const Headers& headers) {
  return start(open_impl(port, true, "127.0.0.1", headers, first_bytes));
}

std::unique_ptr<Client> Client::start(std::unique_ptr<Impl> impl) {
  if (!impl) return nullptr;
  impl->read();
  impl->thread = std::thread([p = impl.get()] { p->ioc.run(); });
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

// Beast's client handshake keeps a refusal's response to itself: this one
// writes the upgrade request by hand and reads whatever answer comes.
int upgrade_status(int port, const Client::Headers& headers) {
  net::io_context ioc;
  ssl::context ctx(ssl::context::tls_client);
  ctx.set_verify_mode(ssl::verify_none);
  beast::ssl_stream<beast::tcp_stream> stream(ioc, ctx);
  try {
    beast::get_lowest_layer(stream).expires_after(10s);
    beast::get_lowest_layer(stream).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
    stream.handshake(ssl::stream_base::client);
    beast::http::request<beast::http::empty_body> req(beast::http::verb::get, "/", 11);
    req.set(beast::http::field::host, "127.0.0.1:" + std::to_string(port));
    req.set(beast::http::field::upgrade, "websocket");
    req.set(beast::http::field::connection, "Upgrade");
    req.set(beast::http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
    req.set(beast::http::field::sec_websocket_version, "13");
    for (const auto& [name, value] : headers) req.insert(name, value);
    beast::http::write(stream, req);
    beast::flat_buffer buffer;
    beast::http::response<beast::http::string_body> res;
    beast::http::read(stream, buffer, res);
    return static_cast<int>(res.result_int());
  } catch (const std::exception&) {
    return 0;
  }
}

std::uint64_t Client::send(wire::ClientMessage m) {
  if (m.request_id() == 0) m.set_request_id(next_id_++);
  impl_->post_write(m.SerializeAsString(), true);
  return m.request_id();
}

void Client::send_raw(const std::string& bytes, bool binary) { impl_->post_write(bytes, binary); }

bool Client::closed() const {
  std::lock_guard lock(impl_->mu);
  return impl_->closed;
}

std::optional<wire::ServerMessage> Client::wait_for(const std::function<bool(const wire::ServerMessage&)>& pred,
                                                    Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lock(impl_->mu);
  std::size_t scanned = 0;
  for (;;) {
    auto& box = impl_->inbox;
    for (; scanned < box.size(); ++scanned) {
      if (pred(box[scanned])) {
        wire::ServerMessage m = std::move(box[scanned]);
        box.erase(box.begin() + static_cast<std::ptrdiff_t>(scanned));
        return m;
      }
    }
    if (impl_->closed) return std::nullopt;
    if (impl_->cv.wait_until(lock, deadline) == std::cv_status::timeout && scanned == box.size()) return std::nullopt;
  }
}

std::optional<wire::ServerMessage> Client::next(Millis timeout) {
  return wait_for([](const wire::ServerMessage&) { return true; }, timeout);
}

std::vector<wire::ServerMessage> Client::take_all(const std::function<bool(const wire::ServerMessage&)>& pred) {
  std::lock_guard lock(impl_->mu);
  std::vector<wire::ServerMessage> out;
  auto& box = impl_->inbox;
  for (auto it = box.begin(); it != box.end();) {
    if (pred(*it)) {
      out.push_back(std::move(*it));
      it = box.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

wire::ServerMessage Client::request(wire::ClientMessage m, Millis timeout) {
  const auto id = send(std::move(m));
  auto r = wait_for([id](const wire::ServerMessage& s) { return s.request_id() == id; }, timeout);
  if (!r) {
    wire::ServerMessage none;
    none.mutable_error()->set_message("no answer (timeout or closed)");
    return none;
  }
  return *r;
}

wire::ServerMessage Client::register_user(const std::string& name, const std::string& password) {
  wire::ClientMessage m;
  m.mutable_register_()->set_name(name);
  m.mutable_register_()->set_password(password);
  return request(std::move(m));
}

wire::ServerMessage Client::login(const std::string& name, const std::string& password) {
  wire::ClientMessage m;
  m.mutable_login()->set_name(name);
  m.mutable_login()->set_password(password);
  return request(std::move(m));
}

wire::ServerMessage Client::resume(const std::string& token) {
  wire::ClientMessage m;
  m.mutable_resume()->set_token(token);
  return request(std::move(m));
}

wire::ServerMessage Client::create_game(wire::SideChoice side, bool is_private, std::vector<std::string> options) {
  wire::ClientMessage m;
  auto* c = m.mutable_create_game();
  c->set_side(side);
  c->set_private_(is_private);
  for (auto& o : options) c->add_options(o);
  return request(std::move(m));
}

wire::ServerMessage Client::join(const std::string& game_id, const std::string& invite) {
  wire::ClientMessage m;
  m.mutable_join_game()->set_game_id(game_id);
  m.mutable_join_game()->set_invite_code(invite);
  return request(std::move(m));
}

wire::ServerMessage Client::follow_turns() {
  wire::ClientMessage m;
  m.mutable_follow_turns();
  return request(std::move(m));
}

wire::ServerMessage Client::watch(const std::string& game_id, std::int64_t from_version) {
  wire::ClientMessage m;
  m.mutable_watch()->set_game_id(game_id);
  m.mutable_watch()->set_from_version(from_version);
  const auto id = send(std::move(m));
  // The catch-up (a Snapshot or Deltas) stays queued; the summary or an error ends it.
  auto r = wait_for([id](const wire::ServerMessage& s) { return s.request_id() == id && (s.has_game() || s.has_error()); });
  if (!r) {
    wire::ServerMessage none;
    none.mutable_error()->set_message("no answer (timeout or closed)");
    return none;
  }
  return *r;
}

wire::ServerMessage Client::submit(const std::string& game_id, const std::string& key, const game::Order& order) {
  wire::ClientMessage m;
  auto* s = m.mutable_submit_order();
  s->set_game_id(game_id);
  s->set_idempotency_key(key);
  *s->mutable_order() = order;
  return request(std::move(m));
}

wire::ServerMessage Client::ping(std::uint64_t nonce) {
  wire::ClientMessage m;
  m.mutable_ping()->set_nonce(nonce);
  return request(std::move(m));
}

}  // namespace counterattack::server::testing
