#include "listener.h"

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>

#include "log.h"

namespace counterattack::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

Listener::Listener(net::io_context& ioc, net::ssl::context* tls, Hub& hub)
    : ioc_(ioc), tls_(tls), hub_(hub), acceptor_(net::make_strand(ioc)), retry_(acceptor_.get_executor()) {}

std::string bind_acceptor(tcp::acceptor& acceptor, const tcp::endpoint& endpoint, bool listen) {
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec && listen) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (!ec) return "";
  return "cannot listen on " + endpoint.address().to_string() + ":" + std::to_string(endpoint.port()) + ": " + ec.message();
}

bool Listener::open(const tcp::endpoint& endpoint, std::string& error) {
  error = bind_acceptor(acceptor_, endpoint, true);
  return error.empty();
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
  ConnectionCaps::Cap reached{};
  auto slot = ec ? nullptr : hub_.caps.admit(peer.address(), &reached);
  if (!slot) {
    // Closed before any handshake: a flood of connections costs no TLS.
    if (!ec) hub_.caps.note_refusal(peer.address().to_string(), reached);
    socket.close(ec);
  } else {
    socket.set_option(tcp::no_delay(true), ec);
    start_session(std::move(socket), peer, tls_, hub_, std::move(slot));
  }
  do_accept();
}

}  // namespace counterattack::server
