// Per-key limits over a sliding window: failed logins per name or address,
// registrations per address, chat messages and stored refused orders per player.
#pragma once

#include <chrono>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

namespace counterattack::server {

// At most `limit` counted attempts per key within `window`. Attempts under way
// hold a place too, so that many sent at once cannot all be let through before
// the first of them is counted.
class RecentAttempts {
 public:
  using Clock = std::chrono::steady_clock;

  RecentAttempts(int limit, std::chrono::seconds window) : limit_(limit), window_(window) {}

  // A place for one attempt; false when the key's counted and under-way attempts reach the limit.
  bool begin(const std::string& key);
  // Gives the place back; a counted attempt stays against the key for the window.
  void end(const std::string& key, bool counted);
  // begin and end at once: false, and nothing counted, when the key is at its limit.
  bool take(const std::string& key) {
    if (!begin(key)) return false;
    end(key, true);
    return true;
  }
  // An attempt counted `ago` before now, as stored before a restart: it holds its place
  // for the rest of the window.
  void counted_before(const std::string& key, std::chrono::seconds ago);

 private:
  struct Entry {
    std::deque<Clock::time_point> counted;  // within the window, oldest first
    int under_way = 0;
  };

  // Keys whose window has passed go once there are many: each counted attempt
  // costs its sender something, so the live ones stay few.
  static constexpr std::size_t kPruneAbove = 10000;

  const int limit_;
  const std::chrono::seconds window_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace counterattack::server
