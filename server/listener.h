// Accepts connections and starts a session for each (TLS unless plain).
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp needs std::exchange

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "session.h"

namespace counterattack::server {

// How many connections are open, in total and per remote address (an IPv6
// client by its /64), against the config's caps. A connection from loopback
// counts only towards the total: a reverse proxy on the same machine brings
// everyone's connections from there.
class ConnectionCaps {
 public:
  ConnectionCaps(int max_total, int max_per_address);
  // A place for a new connection from `from`, given back when the last copy is
  // dropped; null when a cap is reached.
  std::shared_ptr<void> admit(const boost::asio::ip::address& from);
  int open() const;
  static std::string key_of(const boost::asio::ip::address& from);

 private:
  struct Counts {
    std::mutex mu;
    int total = 0;
    std::unordered_map<std::string, int> by_address;
  };
  struct Place {  // given back when destroyed
    Place(std::shared_ptr<Counts> c, std::string k) : counts(std::move(c)), key(std::move(k)) {}
    ~Place();
    std::shared_ptr<Counts> counts;
    std::string key;  // empty for loopback
  };
  const int max_total_, max_per_address_;
  std::shared_ptr<Counts> counts_ = std::make_shared<Counts>();  // outlives the caps while places are held
};

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
  ConnectionCaps caps_;
  std::chrono::steady_clock::time_point last_refusal_log_{};
};

}  // namespace counterattack::server
