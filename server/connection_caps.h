// How many connections are open, in total and per client address, against the
// config's caps.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "proxies.h"

namespace counterattack::server {

// An IPv6 client is counted by its /64. A connection from loopback or from a
// trusted proxy counts only towards the total: a reverse proxy brings everyone's
// connections from there, and the client it forwards is counted on its own once
// the upgrade request names it.
class ConnectionCaps {
 public:
  enum class Cap { Total, PerAddress };

  ConnectionCaps(int max_total, int max_per_address, TrustedProxies proxies = {});
  // A place for a new connection from `from`, given back when the last copy is
  // dropped; null when a cap is reached, and which one in `reached`.
  std::shared_ptr<void> admit(const boost::asio::ip::address& from, Cap* reached = nullptr);
  // A place for a client a trusted proxy forwards, counted by its address only:
  // the proxy's connection already holds its place in the total.
  std::shared_ptr<void> admit_forwarded(const boost::asio::ip::address& client);
  const TrustedProxies& proxies() const { return proxies_; }
  // Logs a refusal at most once a second, with how many there were since the
  // last such line: a flood does not fill the log, but its size shows.
  void note_refusal(const std::string& peer, Cap reached);
  int open() const;
  static std::string key_of(const boost::asio::ip::address& from);  // empty for loopback
  // What a client at `from` is counted by: key_of, or empty for a trusted proxy,
  // whose clients are counted once it names them.
  std::string address_key(const boost::asio::ip::address& from) const;

 private:
  struct Counts {
    std::mutex mu;
    int total = 0;
    std::unordered_map<std::string, int> by_address;
    std::chrono::steady_clock::time_point last_refusal_log{};
    long refused_since_log = 0;
  };
  struct Place {  // given back when destroyed
    Place(std::shared_ptr<Counts> c, std::string k, bool t) : counts(std::move(c)), key(std::move(k)), in_total(t) {}
    ~Place();
    std::shared_ptr<Counts> counts;
    std::string key;  // empty: not counted by address
    bool in_total;
  };
  std::shared_ptr<void> take(const std::string& key, bool in_total, Cap* reached);

  const int max_total_, max_per_address_;
  const TrustedProxies proxies_;
  std::shared_ptr<Counts> counts_ = std::make_shared<Counts>();  // outlives the caps while places are held
};

}  // namespace counterattack::server
