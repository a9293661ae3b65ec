// Tournaments: a round robin in which every pair of entrants plays two games,
// one with each side, a Swiss in which each round pairs entrants near each
// other in the standings for two such games, or a knock-out whose matches are
// two such games (and a deciding one when level). Entry while open; a start (when
// full, at a set time, or by the organiser) that creates the games in one
// transaction (a Swiss's next round when its last is over); standings read
// from the games' results. The games themselves are GameService's.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "config.h"
#include "games.h"
#include "mailer.h"
#include "peer.h"
#include "ruleset.h"
#include "storage.h"
#include "wire.pb.h"

namespace counterattack::server {

// One round of a Swiss: who meets whom, as places in the standings, and who sits out (-1: nobody).
struct SwissRound {
  std::vector<std::pair<int, int>> pairs;
  int bye = -1;
};

// One round of a knock-out, by seed: who meets whom (the higher seed first), and
// who goes through without playing.
struct KnockoutRound {
  std::vector<std::pair<int, int>> pairs;
  std::vector<int> byes;
};

class Tournaments {
 public:
  // `post` runs a job on a network thread (reads, and loading the games a start created).
  Tournaments(Storage& storage, Rulesets rulesets, const Config& config, Mailer& mailer, GameService& games,
              std::function<void(std::function<void()>)> post);

  void create(const Caller& c, const wire::CreateTournament& req);
  void list(const Caller& c);
  void get(const Caller& c, const wire::GetTournament& req);
  void join(const Caller& c, const wire::JoinTournament& req);
  void leave(const Caller& c, const wire::LeaveTournament& req);
  // The organiser withdraws an entrant, saying why.
  void withdraw_entrant(const Caller& c, const wire::WithdrawEntrant& req);
  // The organiser decides a game of their tournament still in play (see AdjudicateGame).
  void adjudicate(const Caller& c, const wire::AdjudicateGame& req);
  void start(const Caller& c, const wire::StartTournament& req);
  void cancel(const Caller& c, const wire::CancelTournament& req);
  // Called every second: starts each open tournament whose set time has come,
  // or cancels it when fewer than two have entered.
  void start_due();
  // Tells the entrants and the organiser, but not `by` (who cancelled it, 0:
  // nobody), that the tournament was cancelled and why: as announce_end does.
  // Then marks it told. Also for a cancellation another process stored (the
  // operator's suspension of an organiser). On a network thread.
  void announce_cancelled(const std::string& id, const std::string& reason, std::int64_t by);
  // The games in play of entrants who withdrew from a tournament under way, for
  // the caller to resign: polled, so that a restart or a write under way at the
  // withdrawal leaves none behind.
  struct WithdrawnGame {
    std::string game_id;
    std::int64_t user_id = 0;
    std::string why;  // as the game's end tells it
  };
  std::vector<WithdrawnGame> games_of_withdrawn();

 private:
  // What a write decided, read by its done callback: a refusal, or the games a start created.
  struct Outcome {
    wire::ErrorCode code = wire::ERROR_UNSPECIFIED;
    std::string message;
    std::string started_tournament;
    std::vector<std::string> started_games;
    bool deciders = false;  // started_games are a knock-out's deciding games
    void refuse(wire::ErrorCode c, std::string m) {
      code = c;
      message = std::move(m);
    }
  };
  // Runs `op` in the writer's transaction; then answers the caller: the refusal
  // the op recorded, INTERNAL when the write failed, else `answer` (on a network thread).
  void change(const Caller& c, const std::string& what, std::function<void(Db&, Outcome&)> op,
              std::function<void(const Caller&)> answer);
  // A withdrawal: the caller's own (`player` empty), or by the organiser of another entrant.
  void withdraw(const Caller& c, const std::string& id, const std::string& player, const std::string& reason);
  // Within a write: true when `user` organises the tournament and it is open, else the refusal is in `out`.
  static bool organiser_of_open(Db& db, const std::string& id, std::int64_t user, const std::string& act, Outcome& out);
  // Within a write: creates the games of every pair of entrants (a Swiss: of
  // its first round) and marks the tournament playing.
  void start_in(Db& db, const std::string& id, Outcome& out);
  // Within a write: the next round of a Swiss, paired from the standings; true,
  // pairing nobody, when fewer than two are left who have not withdrawn: it is over.
  static bool next_round_in(Db& db, const std::string& id, int round, Outcome& out);
  // Within a write, after a game of a knock-out's round has ended: makes the
  // deciding game of each match level after its two games (at once, while other
  // matches are still played), knocks out the loser of each match decided, and,
  // once every match of the round is decided (deciding games included), makes the
  // next round. True when one is left in: the tournament is over.
  static bool knockout_next_in(Db& db, const std::string& id, int round, Outcome& out);
  // Within a write: a round's two games for each pair (`users` by the pairing's
  // indices), its byes, and the tournament's round moved on.
  static void make_round(Db& db, const std::string& id, int round, const std::vector<std::int64_t>& users,
                         const std::vector<std::pair<int, int>>& pairs, const std::vector<int>& byes, Outcome& out);
  // After a start is durable: loads its games and tells the entrants. `deciders`:
  // the games are a knock-out's deciding games, not a new round (nobody sits out anew).
  void announce(const std::string& id, const std::vector<std::string>& game_ids, bool deciders = false);
  // A game of the tournament has ended: when it was the last of a Swiss's round
  // and more rounds are to come, makes the next; a knock-out's, see
  // knockout_next_in; when it was the last of all, marks the end. Then announces
  // what it made or the end.
  void game_ended(const std::string& id);
  // Tells the entrants and the organiser that the tournament is over: on the
  // connections that follow turns, or by mail when they have none. Then marks it told.
  void announce_end(const std::string& id);
  // Stores the cancellation, why, and by whom, as not yet told.
  static void mark_cancelled(Db& db, const std::string& id, const std::string& reason, std::int64_t by);
  // A tournament as stored, with its standings (and its games when `details`);
  // nothing when there is no such tournament.
  struct Described {
    wire::Tournament tournament;  // as nobody in particular sees it
    std::int64_t organiser = 0;
    std::string invite;
    std::vector<std::pair<std::int64_t, std::string>> entrants;  // user id, name; in order of entry
    std::set<std::string> sitting_out;                            // the round's byes, by name
    std::map<std::string, std::string> opponent_in_round;         // Swiss or knock-out: who plays whom in the round, by name
  };
  std::optional<Described> describe(const std::string& id, bool details);
  // The entrants, and the organiser when not one of them: who hears of the tournament's end.
  static std::vector<std::pair<std::int64_t, std::string>> told_of(const Described& d);
  // Private tournaments are seen by their organiser and entrants only.
  static bool visible(const Described& d, std::int64_t user);
  // With `entered`, and the invite code for its organiser.
  static wire::Tournament as_seen_by(const Described& d, std::int64_t user);
  void reply_with(const Caller& c, const std::string& id);
  // Starts (or cancels) one tournament whose set time has come, in a write of its own.
  void start_scheduled(const std::string& id);
  // The earliest set start among open tournaments, from the database.
  std::int64_t earliest_start();
  // Tournaments whose games are all over with no next round or end stored, and
  // knock-outs under way (a match may wait for its deciding game): moves them on.
  void catch_up_ends();

  Storage& storage_;
  Rulesets rulesets_;
  const Config& config_;
  Mailer& mailer_;
  GameService& games_;
  std::function<void(std::function<void()>)> post_;
  // The earliest set start of an open tournament (INT64_MAX: none), so that the
  // tick reads the database only when one is due. A start stored later lowers it.
  std::mutex start_mu_;
  std::int64_t next_start_ = INT64_MAX;
  // A write that was to move a tournament on failed: the tick tries again.
  std::atomic<bool> recheck_ends_ = false;
};

// The standings from the entrants (in order of entry) and the games; a game's
// result counts only once it is finished. `byes`: rounds a Swiss entrant sat out, by name.
std::vector<wire::Standing> standings(const std::vector<std::string>& entrants,
                                      const std::vector<wire::GameSummary>& games,
                                      const std::map<std::string, int>& byes = {});

// Why a Swiss plays `rounds`, not the `set` its organiser chose: its `entrants`
// at the start cannot play more without meeting twice.
std::string swiss_rounds_reason(int rounds, int set, int entrants);

// Why a Swiss ended after `round` of its `rounds`: too few left to pair.
std::string swiss_cut_reason(int round, int rounds);

// One round of a Swiss. Entrants 0..n-1 are in order of standing, best first;
// `met` holds the pairs (lower first) who have played each other, `had_bye`
// those who have sat out a round. Neighbours in the standings meet, nobody twice
// while that can be avoided; with an odd number the lowest placed who has not
// sat out yet does (when all have, the lowest placed).
SwissRound swiss_round(int n, const std::set<std::pair<int, int>>& met, const std::set<int>& had_bye);
// The first round of a Swiss among n seeded entrants (0 the highest): the top
// half meets the bottom half in order, 0 against n/2 and so on; with an odd
// number the lowest seeded sits out.
SwissRound first_swiss_round(int n);

// The rounds of a knock-out among n entrants: enough to halve them down to one.
int knockout_rounds(int n);
// Round `round` (1 the first) of a knock-out among n seeded entrants (0 the
// highest), of whom the seeds in `in` are still in. The bracket is that of the
// next power of two, laid out so that seeds 0 and 1 can meet only in the final,
// 0 to 3 only from the semi-finals on; one whose place in the bracket has no
// opponent (a seed beyond n) sits out the round.
KnockoutRound knockout_round(int n, const std::set<int>& in, int round);

}  // namespace counterattack::server
