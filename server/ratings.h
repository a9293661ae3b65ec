// Ratings: a Glicko-2 rating per player and scenario. Each rated game is one
// rating period for both players, and its end moves both ratings in the
// transaction that stores the end. Between games the deviation grows with the
// time away, so a rating unused for long is trusted less. The sides of a
// scenario are unequal: each player is rated against the opponent's rating
// moved by what the opponent's side is worth, as the scenario's rated games show it.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glicko2.h"
#include "peer.h"
#include "ruleset.h"
#include "storage.h"
#include "wire.pb.h"

namespace counterattack::server {

// A player's standing in one scenario.
struct PlayerStanding {
  glicko2::Rating rating;
  int games = 0, wins = 0, draws = 0, losses = 0;
  std::int64_t updated_unix = 0;  // the last rated game's end; 0: none yet
};

class Ratings {
 public:
  Ratings(Storage& storage, Rulesets rulesets);

  // What a rated game's end changed.
  struct Change {
    std::string scenario;
    std::int64_t user[2] = {0, 0};  // Soviet, German
    PlayerStanding after[2];
    int change[2] = {0, 0};  // rounded rating after minus rounded rating before
  };
  // What a game's end did to the ratings.
  struct Outcome {
    std::optional<Change> change;  // set when it moved them
    // A rated game whose result moved none because a side never gave an
    // order of its own: why, as its players are told ("" otherwise).
    std::string unrated_reason;
  };
  // Within the write that stores a game's end (its row already says
  // finished): when the game is rated, was played between two players and
  // each side gave an order, rates both and records what changed; when only
  // the orders are missing, stores why it moved nothing; otherwise nothing.
  static Outcome record(Db& db, const std::string& game_id);
  // Once that write is durable: later reads see the new ratings.
  void committed(const Change& change);

  // A player's rating now, as the wire shows it. Reads the database the first
  // time only: warm() it from a network thread for a player whose game's
  // summaries the syncer's callbacks will build.
  wire::Rating current(std::int64_t user_id, const std::string& scenario);
  void warm(std::int64_t user_id, const std::string& scenario);

  void get(const Caller& c, const wire::GetRating& req);
  void list(const Caller& c, const wire::ListRatings& req);

  // Rounded, with provisional marked.
  static wire::Rating to_wire(const glicko2::Rating& r);

  // What the German side is worth over the Soviet in a scenario, in rating
  // points (negative: the Soviet side is the stronger), from the rated games
  // that have moved ratings so far (`games` of them).
  struct SideEdge {
    double points = 0;
    int games = 0;
  };
  static SideEdge side_edge(Db& db, const std::string& scenario);

 private:
  // The scenario a request names ("counterattack" when empty); empty when unknown (and answered).
  std::string scenario_of(const Caller& c, const std::string& requested) const;
  // A standing read from the database: none yet gives the starting rating.
  static PlayerStanding read(Db& db, std::int64_t user_id, const std::string& scenario);
  // Every player with rated games in the scenario: those whose rating is
  // established now first, by rating (their place is their rank), then the provisional.
  struct Rated {
    std::string name;
    PlayerStanding standing;
    bool established = false;
  };
  static std::vector<Rated> everyone(Db& db, const std::string& scenario);
  static constexpr std::size_t kListed = 100;
  // A player's last rated games in the scenario, newest first: private games
  // only when `viewer` played in them (0: nobody logged in).
  static std::vector<wire::RatedGame> recent_games(Db& db, std::int64_t user, const std::string& scenario,
                                                   std::int64_t viewer, int limit);
  static constexpr int kRecent = 10, kMostRecent = 500;

  Storage& storage_;
  Rulesets rulesets_;
  // Read through, by (user, scenario). A commit's new ratings replace what is
  // here; a miss's read never does, so no older read can land after them.
  std::mutex mu_;
  std::map<std::pair<std::int64_t, std::string>, PlayerStanding> cache_;
};

// Three columns for a query on `games g`: the rounded rating changes of its
// Soviet and German players, 0 when the game changed none, and whether its end
// moved the ratings at all.
inline constexpr const char* kRatingChangeColumns =
    "COALESCE((SELECT ROUND(r.after) - ROUND(r.before) FROM rating_changes r"
    " WHERE r.game_id = g.id AND r.user_id = g.soviet_id), 0),"
    " COALESCE((SELECT ROUND(r.after) - ROUND(r.before) FROM rating_changes r"
    " WHERE r.game_id = g.id AND r.user_id = g.german_id), 0),"
    " EXISTS (SELECT 1 FROM rating_changes r WHERE r.game_id = g.id)";

}  // namespace counterattack::server
