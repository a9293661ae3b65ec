// One WebSocket connection (plain or TLS): reads envelopes, enforces limits,
// dispatches requests, and writes frames in order. Layout after Beast's
// "advanced server flex" example: one session template for both streams.
#pragma once

#include <atomic>

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp needs std::exchange

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>
#include <map>
#include <memory>
#include <mutex>

#include "accounts.h"
#include "ratings.h"
#include "config.h"
#include "connection_caps.h"
#include "games.h"
#include "peer.h"
#include "tournaments.h"

namespace counterattack::server {

class Connection : public Peer {
 public:
  // Says SHUTTING_DOWN and closes (going away); any thread.
  virtual void shutdown() = 0;
  // When logged in as `user_id` with a session other than `keep` (a token's
  // hash; empty: none kept): says UNAUTHENTICATED with `why`, and closes; any thread.
  virtual void sign_out(std::int64_t user_id, const std::string& keep, const std::string& why) = 0;
  // When logged in with the session `token_hash`: the same, for a session that ended.
  virtual void end_session(const std::string& token_hash, const std::string& why) = 0;
};

// Live connections, for a graceful shutdown.
class SessionRegistry {
 public:
  void add(std::uint64_t id, std::weak_ptr<Connection> c);
  void remove(std::uint64_t id);
  std::size_t size();
  void shutdown_all();
  // Ends every connection logged in as `user_id` but those of session `keep` (see Connection).
  void sign_out(std::int64_t user_id, const std::string& keep, const std::string& why);
  // Ends every connection logged in with session `token_hash` (see Connection).
  void end_session(const std::string& token_hash, const std::string& why);

 private:
  std::mutex mu_;
  std::map<std::uint64_t, std::weak_ptr<Connection>> all_;
};

// What every session shares.
struct Hub {
  const Config& config;
  Accounts& accounts;
  GameService& games;
  Tournaments& tournaments;
  Ratings& ratings;
  SessionRegistry& sessions;
  ConnectionCaps& caps;
  std::atomic<std::size_t> queued_bytes{0};  // unread by all connections, against max_queued_bytes_total
};

// A connection runs on its own strand of the network threads' io_context. The
// concrete executor type (not Asio's type-erased default) keeps every handler
// call a direct one.
using ConnectionExecutor = boost::asio::strand<boost::asio::io_context::executor_type>;
using ConnectionSocket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, ConnectionExecutor>;

// Starts a session on an accepted socket from `peer`: TLS when `tls` is set,
// else plain. `slot` is held as long as the session lives (see ConnectionCaps).
void start_session(ConnectionSocket&& socket, const boost::asio::ip::tcp::endpoint& peer, boost::asio::ssl::context* tls,
                   Hub& hub, std::shared_ptr<void> slot);

}  // namespace counterattack::server
