// Accepts connections and starts a session for each (TLS unless plain).
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp needs std::exchange

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>
#include <string>

#include "session.h"

namespace counterattack::server {

// Opens `acceptor` on `endpoint` and binds it (and, with `listen`, listens): "" or why not.
std::string bind_acceptor(boost::asio::ip::tcp::acceptor& acceptor, const boost::asio::ip::tcp::endpoint& endpoint, bool listen);

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  // `tls` null: plain WebSocket.
  Listener(boost::asio::io_context& ioc, boost::asio::ssl::context* tls, Hub& hub);
  bool open(const boost::asio::ip::tcp::endpoint& endpoint, std::string& error);
  boost::asio::ip::tcp::endpoint local_endpoint() const;
  void run();
  void stop();

 private:
  void do_accept();
  void on_accept(boost::system::error_code ec, ConnectionSocket socket);

  boost::asio::io_context& ioc_;
  boost::asio::ssl::context* tls_;
  Hub& hub_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_;
};

}  // namespace counterattack::server
