#include "connection_caps.h"

#include <algorithm>
#include <utility>

#include "log.h"

namespace counterattack::server {

namespace net = boost::asio;

ConnectionCaps::ConnectionCaps(int max_total, int max_per_address, TrustedProxies proxies)
    : max_total_(max_total), max_per_address_(max_per_address), proxies_(std::move(proxies)) {}

// An IPv4 client on an IPv6 listener is counted as IPv4, and an IPv6 client by
// its /64, the block one subscriber is given.
std::string ConnectionCaps::key_of(const net::ip::address& from) {
  const auto a = unmapped(from);
  if (a.is_loopback()) return {};
  if (a.is_v4()) return a.to_string();
  auto bytes = a.to_v6().to_bytes();
  std::fill(bytes.begin() + 8, bytes.end(), 0);
  return net::ip::address_v6(bytes).to_string() + "/64";
}

std::string ConnectionCaps::address_key(const net::ip::address& from) const {
  return proxies_.trusts(from) ? std::string() : key_of(from);
}

std::shared_ptr<void> ConnectionCaps::admit(const net::ip::address& from, Cap* reached) {
  return take(address_key(from), true, reached);
}

std::shared_ptr<void> ConnectionCaps::admit_forwarded(const net::ip::address& client) {
  return take(key_of(client), false, nullptr);
}

std::shared_ptr<void> ConnectionCaps::take(const std::string& key, bool in_total, Cap* reached) {
  {
    std::lock_guard lock(counts_->mu);
    if (in_total && counts_->total >= max_total_) {
      if (reached) *reached = Cap::Total;
      return nullptr;
    }
    if (!key.empty()) {
      int& n = counts_->by_address[key];
      if (n >= max_per_address_) {
        if (reached) *reached = Cap::PerAddress;
        return nullptr;
      }
      ++n;
    }
    if (in_total) ++counts_->total;
  }
  return std::make_shared<Place>(counts_, key, in_total);
}

ConnectionCaps::Place::~Place() {
  std::lock_guard lock(counts->mu);
  if (in_total) --counts->total;
  if (key.empty()) return;
  if (auto it = counts->by_address.find(key); it != counts->by_address.end() && --it->second == 0) {
    counts->by_address.erase(it);
  }
}

void ConnectionCaps::note_refusal(const std::string& peer, Cap reached) {
  const auto now = std::chrono::steady_clock::now();
  long refused = 0;
  int open = 0;
  {
    std::lock_guard lock(counts_->mu);
    ++counts_->refused_since_log;
    if (now - counts_->last_refusal_log < std::chrono::seconds(1)) return;
    counts_->last_refusal_log = now;
    refused = std::exchange(counts_->refused_since_log, 0);
    open = counts_->total;
  }
  log::warn(reached == Cap::Total ? "connection refused: too many open" : "connection refused: too many from one address",
            {{"peer", peer}, {"open", open}, {"refused", refused}});
}

int ConnectionCaps::open() const {
  std::lock_guard lock(counts_->mu);
  return counts_->total;
}

}  // namespace counterattack::server
