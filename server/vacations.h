// Vacations, for games played over days: whole days in which a player's clocks
// stand still in every timed game, within an allowance per 365 days. This
// keeps who is away until when; GameService moves the clocks (vacations.cc).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "config.h"
#include "storage.h"
#include "wire.pb.h"

namespace counterattack::server {

class Vacations {
 public:
  static constexpr std::int64_t kDay = 86400;
  static constexpr std::int64_t kYear = 365 * kDay;

  struct Running {
    std::int64_t start = 0, until = 0;
  };

  Vacations(Storage& storage, const Config& config) : storage_(storage), config_(config) {}
  // The vacations running now, read once at start.
  void load();

  // The player's vacation running now, if any. Its lock is a leaf: safe under any other.
  std::optional<Running> running(std::int64_t user_id) const;
  // When the player's running vacation ends; 0 when there is none.
  std::int64_t until(std::int64_t user_id) const;
  void set(std::int64_t user_id, Running r);
  void clear(std::int64_t user_id);

  // The player's vacation and allowance, as Account shows them (reads the database).
  wire::Vacation describe(std::int64_t user_id) const;
  // Days charged by the vacations begun within the 365 days up to `now`.
  static int days_taken(Db& db, std::int64_t user_id, std::int64_t now);
  // Whole days from `start` to `end`, a part counted whole and at least one.
  static int days_used(std::int64_t start, std::int64_t end);

 private:
  Storage& storage_;
  const Config& config_;
  mutable std::mutex mu_;
  std::unordered_map<std::int64_t, Running> running_;  // may hold vacations already over
};

}  // namespace counterattack::server
