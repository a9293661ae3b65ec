// <utility> must come before any Asio header (Boost 1.74 with g++ 12 in C++20).
#include <utility>

#include "connection.h"

#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "config.h"
#include "terminal_text.h"

namespace counterattack::cli {

namespace net = boost::asio;
namespace ssl = net::ssl;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;
using Ws = websocket::stream<beast::ssl_stream<beast::tcp_stream>>;
using PlainWs = websocket::stream<beast::tcp_stream>;

std::string Endpoint::url() const {
  const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;  // IPv6
  return (tls ? "wss://" : "ws://") + h + ":" + port + (path == "/" ? "" : path);
}

std::string Endpoint::origin() const {
  const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return (tls ? "wss://" : "ws://") + h + ":" + port;
}

namespace {

bool is_loopback(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  boost::system::error_code ec;
  const auto a = net::ip::make_address(host, ec);
  return !ec && a.is_loopback();
}

}  // namespace

std::optional<Endpoint> parse_url(const std::string& url, std::string* error) {
  Endpoint ep;
  std::string rest;
  if (url.rfind("wss://", 0) == 0) {
    rest = url.substr(6);
  } else if (url.rfind("ws://", 0) == 0) {
    rest = url.substr(5);
    ep.tls = false;
  } else {
    if (error)
      *error = "The server URL must start with wss:// (for example wss://127.0.0.1:8443; ws:// for a --plain server on "
               "this machine), not '" + url + "'.";
    return std::nullopt;
  }
  const auto slash = rest.find('/');
  if (slash != std::string::npos) {
    ep.path = rest.substr(slash);
    rest = rest.substr(0, slash);
  }
  if (!rest.empty() && rest[0] == '[') {  // [::1]:8443
    const auto close = rest.find(']');
    if (close == std::string::npos) {
      if (error) *error = "Unclosed '[' in the server URL.";
      return std::nullopt;
    }
    ep.host = rest.substr(1, close - 1);
    rest = rest.substr(close + 1);
    if (!rest.empty() && rest[0] == ':') ep.port = rest.substr(1);
  } else {
    const auto colon = rest.rfind(':');
    ep.host = rest.substr(0, colon);
    if (colon != std::string::npos) ep.port = rest.substr(colon + 1);
  }
  if (ep.port.empty()) ep.port = ep.tls ? "443" : "80";
  if (ep.host.empty() || ep.port.find_first_not_of("0123456789") != std::string::npos) {
    if (error) *error = "The server URL '" + url + "' is not of the form " + (ep.tls ? "wss" : "ws") + "://host:port.";
    return std::nullopt;
  }
  // A password never crosses a network in the clear.
  if (!ep.tls && !is_loopback(ep.host)) {
    if (error)
      *error = "Plain ws:// is for a server on this machine only (127.0.0.1, ::1 or localhost); for " +
               ep.host + " use wss://.";
    return std::nullopt;
  }
  return ep;
}

struct Connection::Impl {
  // Declared first so it is destroyed last: everything below uses it.
  net::io_context ioc;
  ssl::context ctx{ssl::context::tls_client};
  std::unique_ptr<Ws> ws;             // one of these two
  std::unique_ptr<PlainWs> plain_ws;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::thread thread;
  beast::flat_buffer buffer;
  std::deque<std::string> outbox;  // I/O thread only

  mutable std::mutex mu;
  std::condition_variable cv;
  std::map<std::uint64_t, std::optional<wire::ServerMessage>> waiting;
  std::deque<wire::ServerMessage> pushes;
  bool open = false;
  std::string reason;
  std::string fingerprint;
  bool chain_trusted = true;  // no certificate above the server's failed the CAs' check
  std::uint64_t next_id = 1;
  int efd = -1;

  Impl() { efd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
  ~Impl() {
    if (efd >= 0) ::close(efd);
  }

  // Runs f on whichever stream this connection has.
  template <typename F>
  void on_ws(F&& f) {
    if (ws) {
      f(*ws);
    } else {
      f(*plain_ws);
    }
  }

  void signal() {
    if (efd < 0) return;
    const std::uint64_t one = 1;
    const ssize_t n = ::write(efd, &one, sizeof one);
    (void)n;  // a counter that cannot grow is already readable
  }

  void fail(const std::string& why) {
    {
      std::lock_guard lk(mu);
      if (open && reason.empty()) reason = why;
      open = false;
    }
    cv.notify_all();
    signal();
  }

  void do_read() {
    on_ws([this](auto& stream) { stream.async_read(buffer, [this](beast::error_code ec, std::size_t) { read_done(ec); }); });
  }

  void read_done(beast::error_code ec) {
    if (ec) {
      fail(ec == websocket::error::closed ? "the server closed the connection" : ec.message());
      return;
    }
    wire::ServerMessage msg;
    const auto data = buffer.data();
    const bool ok = msg.ParseFromArray(data.data(), static_cast<int>(data.size()));
    buffer.consume(buffer.size());
    if (ok && msg.has_bundle()) {
      for (auto& inner : *msg.mutable_bundle()->mutable_messages()) dispatch(std::move(inner));
    } else if (ok) {
      dispatch(std::move(msg));
    }
    do_read();
  }

  void dispatch(wire::ServerMessage msg) {
    {
      std::lock_guard lk(mu);
      auto it = msg.request_id() ? waiting.find(msg.request_id()) : waiting.end();
      if (it != waiting.end() && !it->second) {
        it->second = std::move(msg);
      } else {
        pushes.push_back(std::move(msg));
        signal();
      }
    }
    cv.notify_all();
  }

  void queue(std::string frame) {
    net::post(ioc, [this, frame = std::move(frame)]() mutable {
      outbox.push_back(std::move(frame));
      if (outbox.size() == 1) do_write();
    });
  }

  void do_write() {
    on_ws([this](auto& stream) {
      stream.binary(true);
      stream.async_write(net::buffer(outbox.front()), [this](beast::error_code ec, std::size_t) {
        if (ec) {
          fail(ec.message());
          return;
        }
        outbox.pop_front();
        if (!outbox.empty()) do_write();
      });
    });
  }

  // The WebSocket's own handshake, once the stream below it is ready.
  template <typename Stream, typename Finish>
  void websocket_handshake(Stream& stream, const Endpoint& ep, std::chrono::milliseconds timeout, Finish finish) {
    beast::get_lowest_layer(stream).expires_never();
    websocket::stream_base::timeout opt{};
    opt.handshake_timeout = timeout;
    opt.idle_timeout = std::chrono::seconds(30);  // pings find a dead link
    opt.keep_alive_pings = true;
    stream.set_option(opt);
    stream.set_option(websocket::stream_base::decorator(
        [](websocket::request_type& req) { req.set(beast::http::field::user_agent, "counterattack-cli"); }));
    stream.read_message_max(64u << 20);
    stream.async_handshake(ep.host + ":" + ep.port, ep.path, [this, finish](beast::error_code ec) {
      if (ec) return finish("WebSocket handshake: " + ec.message());
      {
        std::lock_guard lk(mu);
        open = true;
      }
      do_read();
      finish("");
    });
  }
};

Connection::Connection() : impl_(std::make_shared<Impl>()) {}

Connection::~Connection() {
  close();
}

bool Connection::connect(const Endpoint& ep, const TlsPolicy& tls,
                         std::chrono::milliseconds timeout, std::string* error) {
  Impl& im = *impl_;
  if (ep.tls) {
    im.ctx.set_default_verify_paths();
    im.ws = std::make_unique<Ws>(im.ioc, im.ctx);
    auto& ssl_stream = im.ws->next_layer();
    if (ep.host.find_first_not_of("0123456789.:") != std::string::npos) {
      SSL_set_tlsext_host_name(ssl_stream.native_handle(), ep.host.c_str());
    }
    ssl_stream.set_verify_mode(ssl::verify_peer);
    const std::string host = ep.host;
    ssl_stream.set_verify_callback([&im, tls, host](bool preverified, ssl::verify_context& vc) {
      X509_STORE_CTX* store = vc.native_handle();
      const int depth = X509_STORE_CTX_get_error_depth(store);
      if (depth == 0) {
        if (X509* cert = X509_STORE_CTX_get_current_cert(store)) {
          unsigned char md[EVP_MAX_MD_SIZE];
          unsigned int n = 0;
          if (X509_digest(cert, EVP_sha256(), md, &n)) {
            static const char* hex = "0123456789abcdef";
            std::string fp;
            for (unsigned i = 0; i < n; ++i) {
              fp += hex[md[i] >> 4];
              fp += hex[md[i] & 15];
            }
            std::lock_guard lk(im.mu);
            im.fingerprint = fp;
          }
        }
      }
      if (tls.insecure) return true;
      if (!tls.pin.empty()) {
        // The pinned certificate, or else a chain the CAs vouch for (a server
        // that moved to such a certificate is no stranger).
        if (depth > 0) {
          std::lock_guard lk(im.mu);
          im.chain_trusted = im.chain_trusted && preverified;
          return true;  // judged at the server's own certificate, below
        }
        bool chain_ok;
        {
          std::lock_guard lk(im.mu);
          if (im.fingerprint == tls.pin) return true;
          chain_ok = im.chain_trusted;
        }
        return chain_ok && ssl::host_name_verification(host)(preverified, vc);
      }
      return ssl::host_name_verification(host)(preverified, vc);
    });
  } else {
    im.plain_ws = std::make_unique<PlainWs>(im.ioc);
  }

  im.work.emplace(im.ioc.get_executor());
  im.thread = std::thread([&im] { im.ioc.run(); });

  auto done = std::make_shared<std::promise<std::string>>();
  auto result = done->get_future();
  auto resolver = std::make_shared<tcp::resolver>(im.ioc);
  auto finish = [done](const std::string& why) {
    try {
      done->set_value(why);
    } catch (const std::future_error&) {
    }
  };
  net::post(im.ioc, [&im, ep, timeout, resolver, finish] {
    resolver->async_resolve(
        ep.host, ep.port,
        [&im, ep, timeout, resolver, finish](beast::error_code ec, tcp::resolver::results_type res) {
          if (ec) return finish("cannot resolve " + ep.host + ": " + ec.message());
          im.on_ws([&](auto& stream) {
            auto& lowest = beast::get_lowest_layer(stream);
            lowest.expires_after(timeout);
            lowest.async_connect(res, [&im, ep, timeout, finish](beast::error_code ec2, const tcp::endpoint&) {
              if (ec2) return finish("cannot connect to " + ep.host + ":" + ep.port + ": " + ec2.message());
              if (!im.ws) return im.websocket_handshake(*im.plain_ws, ep, timeout, finish);
              beast::get_lowest_layer(*im.ws).expires_after(timeout);
              im.ws->next_layer().async_handshake(ssl::stream_base::client, [&im, ep, timeout, finish](beast::error_code ec3) {
                if (ec3) return finish("TLS: " + ec3.message());
                im.websocket_handshake(*im.ws, ep, timeout, finish);
              });
            });
          });
        });
  });

  std::string why;
  if (result.wait_for(timeout + std::chrono::seconds(1)) != std::future_status::ready) {
    why = "timed out connecting to " + ep.host + ":" + ep.port;
  } else {
    why = result.get();
  }
  if (why.empty()) return true;
  const std::string fp = peer_fingerprint();
  if (why.find("certificate verify failed") != std::string::npos && !fp.empty()) {
    if (tls.remembered) {
      why = "WARNING: THE SERVER'S CERTIFICATE HAS CHANGED. The certificate remembered for " + ep.origin() +
            " has SHA-256 " + display_fingerprint(tls.pin) + ", but the server now presents SHA-256 " +
            display_fingerprint(fp) +
            ". Someone may be intercepting the connection (a man-in-the-middle), or the server made a new "
            "certificate. Nothing was sent to it. Check the new fingerprint with the server's operator; "
            "to accept it, connect once with --insecure (or --pin " + fp + "), or forget the old one with "
            "`counterattack --server " + ep.origin() + " forget-certificate`.";
    } else if (!tls.pin.empty()) {
      why = "the server's certificate (SHA-256 " + display_fingerprint(fp) +
            ") does not match the pinned fingerprint " + display_fingerprint(tls.pin) +
            ". If the server changed its certificate, check the new fingerprint with its operator "
            "and pin it again.";
    } else {
      why = "the server's certificate is not trusted (SHA-256 " + display_fingerprint(fp) +
            "). If you trust this server, pass --insecure once (its certificate is then remembered for "
            "this server) or --pin " + fp + ".";
    }
  }
  if (error) *error = why;
  close();
  return false;
}

std::string Connection::peer_fingerprint() const {
  std::lock_guard lk(impl_->mu);
  return impl_->fingerprint;
}

std::uint64_t Connection::send(wire::ClientMessage msg) {
  Impl& im = *impl_;
  {
    std::lock_guard lk(im.mu);
    msg.set_request_id(im.next_id++);
  }
  im.queue(msg.SerializeAsString());
  return msg.request_id();
}

std::optional<wire::ServerMessage> Connection::request(wire::ClientMessage msg,
                                                       std::chrono::milliseconds timeout, Text text) {
  Impl& im = *impl_;
  std::uint64_t id;
  {
    std::lock_guard lk(im.mu);
    if (!im.open) return std::nullopt;
    id = im.next_id++;
    msg.set_request_id(id);
    im.waiting[id];
  }
  im.queue(msg.SerializeAsString());
  std::unique_lock lk(im.mu);
  im.cv.wait_for(lk, timeout, [&] { return im.waiting[id].has_value() || !im.open; });
  auto reply = std::move(im.waiting[id]);
  im.waiting.erase(id);
  lk.unlock();
  if (reply && (text == Text::shown || reply->has_error())) make_shown(*reply);
  return reply;
}

std::optional<wire::ServerMessage> Connection::next_push(std::chrono::milliseconds timeout) {
  Impl& im = *impl_;
  std::unique_lock lk(im.mu);
  im.cv.wait_for(lk, timeout, [&] { return !im.pushes.empty() || !im.open; });
  if (im.pushes.empty()) return std::nullopt;
  auto m = std::move(im.pushes.front());
  im.pushes.pop_front();
  lk.unlock();
  make_shown(m);
  return m;
}

int Connection::notify_fd() const {
  return impl_->efd;
}

void Connection::drain_notify() {
  std::uint64_t v;
  const ssize_t n = ::read(impl_->efd, &v, sizeof v);
  (void)n;  // nothing to read is fine: the fd is non-blocking
}

bool Connection::is_open() const {
  std::lock_guard lk(impl_->mu);
  return impl_->open;
}

std::string Connection::close_reason() const {
  std::lock_guard lk(impl_->mu);
  return impl_->reason.empty() ? "the connection closed" : impl_->reason;
}

void Connection::close() {
  Impl& im = *impl_;
  if (!im.thread.joinable()) return;
  bool was_open;
  {
    std::lock_guard lk(im.mu);
    was_open = im.open;
  }
  if (was_open) {
    // A polite close, but never wait long for it.
    net::post(im.ioc, [&im] {
      im.on_ws([&im](auto& stream) {
        stream.async_close(websocket::close_code::normal, [&im](beast::error_code) { im.fail("closed"); });
      });
    });
    std::unique_lock lk(im.mu);
    im.cv.wait_for(lk, std::chrono::milliseconds(500), [&] { return !im.open; });
  }
  im.work.reset();
  im.ioc.stop();
  im.thread.join();
  // Let the cancelled operations finish before the stream goes away.
  beast::error_code ec;
  im.on_ws([&ec](auto& stream) { beast::get_lowest_layer(stream).socket().close(ec); });
  im.ioc.restart();
  im.ioc.poll();
  {
    std::lock_guard lk(im.mu);
    im.open = false;
  }
}

}  // namespace counterattack::cli
