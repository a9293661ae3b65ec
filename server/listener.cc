#include "listener.h"

#include <algorithm>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>

#include "log.h"

namespace counterattack::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

ConnectionCaps::ConnectionCaps(int max_total, int max_per_address)
    : max_total_(max_total), max_per_address_(max_per_address) {}

// The key an address is counted under: empty for loopback (not counted). An
// IPv4 client on an IPv6 listener is counted as IPv4, and an IPv6 client by its
// /64, the block one subscriber is given.
std::string ConnectionCaps::key_of(const net::ip::address& from) {
  auto a = from;
  if (a.is_v6() && a.to_v6().is_v4_mapped()) a = net::ip::make_address_v4(net::ip::v4_mapped, a.to_v6());
  if (a.is_loopback()) return {};
  if (a.is_v4()) return a.to_string();
  auto bytes = a.to_v6().to_bytes();
  std::fill(bytes.begin() + 8, bytes.end(), 0);
  return net::ip::address_v6(bytes).to_string() + "/64";
}

std::shared_ptr<void> ConnectionCaps::admit(const net::ip::address& from) {
  const std::string key = key_of(from);
  {
    std::lock_guard lock(counts_->mu);
    if (counts_->total >= max_total_) return nullptr;
    if (!key.empty()) {
      int& n = counts_->by_address[key];
      if (n >= max_per_address_) return nullptr;
      ++n;
    }
    ++counts_->total;
  }
  return std::make_shared<Place>(counts_, key);
}

ConnectionCaps::Place::~Place() {
  std::lock_guard lock(counts->mu);
  --counts->total;
  if (key.empty()) return;
  if (auto it = counts->by_address.find(key); it != counts->by_address.end() && --it->second == 0) {
    counts->by_address.erase(it);
  }
}

int ConnectionCaps::open() const {
  std::lock_guard lock(counts_->mu);
  return counts_->total;
}

Listener::Listener(net::io_context& ioc, net::ssl::context* tls, Hub& hub)
    : ioc_(ioc),
      tls_(tls),
      hub_(hub),
      acceptor_(net::make_strand(ioc)),
      retry_(acceptor_.get_executor()),
      caps_(hub.config.max_connections, hub.config.max_connections_per_address) {}

bool Listener::open(const tcp::endpoint& endpoint, std::string& error) {
  boost::system::error_code ec;
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    error = "cannot listen on " + endpoint.address().to_string() + ":" + std::to_string(endpoint.port()) + ": " + ec.message();
    return false;
  }
  return true;
}

tcp::endpoint Listener::local_endpoint() const {
  boost::system::error_code ec;
  return acceptor_.local_endpoint(ec);
}

void Listener::run() { do_accept(); }

void Listener::stop() {
  net::post(acceptor_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ec;
    self->acceptor_.close(ec);
  });
}

void Listener::do_accept() {
  // Each connection gets its own strand.
  acceptor_.async_accept(net::make_strand(ioc_), boost::beast::bind_front_handler(&Listener::on_accept, shared_from_this()));
}

void Listener::on_accept(boost::system::error_code ec, ConnectionSocket socket) {
  if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
  if (ec) {
    // Out of descriptors, most likely: retry shortly instead of spinning.
    log::warn("accept failed", {{"error", ec.message()}});
    retry_.expires_after(std::chrono::milliseconds(100));
    retry_.async_wait([self = shared_from_this()](boost::system::error_code e) {
      if (!e) self->do_accept();
    });
    return;
  }
  const auto peer = socket.remote_endpoint(ec);
  auto slot = ec ? nullptr : caps_.admit(peer.address());
  if (!slot) {
    // Closed before any handshake: a flood of connections costs no TLS. Logged
    // at most once a second, so that the flood does not fill the log.
    if (!ec && std::chrono::steady_clock::now() - last_refusal_log_ > std::chrono::seconds(1)) {
      last_refusal_log_ = std::chrono::steady_clock::now();
      log::warn("connection refused: too many open",
                {{"peer", peer.address().to_string()}, {"open", std::to_string(caps_.open())}});
    }
    socket.close(ec);
  } else {
    socket.set_option(tcp::no_delay(true), ec);
    start_session(std::move(socket), tls_, hub_, std::move(slot));
  }
  do_accept();
}

}  // namespace counterattack::server
