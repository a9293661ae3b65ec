#include "recent_attempts.h"

#include <algorithm>

namespace counterattack::server {

bool RecentAttempts::begin(const std::string& key) {
  std::lock_guard lock(mu_);
  auto& e = entries_[key];
  const auto horizon = Clock::now() - window_;
  while (!e.counted.empty() && e.counted.front() < horizon) e.counted.pop_front();
  if (static_cast<int>(e.counted.size()) + e.under_way >= limit_) return false;
  ++e.under_way;
  return true;
}

void RecentAttempts::end(const std::string& key, bool counted) {
  std::lock_guard lock(mu_);
  const auto now = Clock::now();
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  auto& e = it->second;
  --e.under_way;
  if (counted) e.counted.push_back(now);
  if (e.under_way == 0 && e.counted.empty()) entries_.erase(it);
  if (entries_.size() > kPruneAbove) {
    const auto horizon = now - window_;
    std::erase_if(entries_, [&](const auto& kv) {
      return kv.second.under_way == 0 && (kv.second.counted.empty() || kv.second.counted.back() < horizon);
    });
  }
}

void RecentAttempts::counted_before(const std::string& key, std::chrono::seconds ago) {
  if (ago >= window_) return;
  const auto at = Clock::now() - std::max(ago, std::chrono::seconds(0));
  std::lock_guard lock(mu_);
  auto& counted = entries_[key].counted;
  counted.insert(std::upper_bound(counted.begin(), counted.end(), at), at);
}

}  // namespace counterattack::server
