// Suspending accounts: the operator's commands, run as a second process beside
// the server (as a backup is), and the server's watch for suspensions, which
// signs a suspended player out and sets aside their games still waiting.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "storage.h"

namespace counterattack::server {

// The database at `db_path` for an operator's command, once it is at schema
// `needs` or later; else null, and `error` says why: to start this counterattackd
// on it once, to upgrade it, or that a newer release made it.
std::unique_ptr<Db> open_for_moderation(const std::string& db_path, std::string& error, int needs);

// The end of a suspension that lasts until the operator lifts it: 9999-12-31 23:59:59 UTC.
constexpr std::int64_t kSuspendedIndefinitely = 253402300799;

// What a suspended player is told, at login and as they are signed out.
std::string suspension_text(std::int64_t until_unix, const std::string& reason);

// The operator's commands on the database at `db_path`, whether the server runs or not.
// Each returns "" and says what it did in `said`; else it changes nothing and says why.
// `days` 0: until reinstated. Suspending ends the player's sessions and their entries
// in tournaments not yet started (and, until reinstated, cancels the tournaments not
// yet started that they organise); the server, within seconds, signs them out and
// withdraws their games waiting for an opponent (and, suspended until reinstated,
// resigns their games in play).
std::string suspend_account(const std::string& db_path, const std::string& name, int days, const std::string& reason,
                            std::string& said);
std::string reinstate_account(const std::string& db_path, const std::string& name, std::string& said);
std::string list_suspended(const std::string& db_path, std::string& said);
// Chat bans: for `days` (0: until lifted), the player's chat messages are refused
// with `reason`, their account otherwise as it was; the server reads the bans
// every two seconds.
std::string ban_from_chat(const std::string& db_path, const std::string& name, int days, const std::string& reason,
                          std::string& said);
std::string lift_chat_ban_of(const std::string& db_path, const std::string& name, std::string& said);
// The players' reports of chat not yet handled (`all`: every one), newest first,
// each with the lines reported as they were copied then.
std::string list_chat_reports(const std::string& db_path, bool all, std::string& said);
std::string mark_report_handled(const std::string& db_path, const std::string& id, std::string& said);
// A new random password for a player who lost theirs while the server sends no
// mail: hashed with the server's Argon2id settings, every session of theirs ended,
// and the password in `said`, for the operator to pass on.
std::string reset_password(const std::string& db_path, const std::string& name, unsigned long long opslimit,
                           std::size_t memlimit_bytes, std::string& said);
// Every player: online now or when last seen, games in play and finished, and
// whether the account is active, suspended or closed.
std::string list_players(const std::string& db_path, std::string& said);
// The games waiting for an opponent or in play (of the player `name` alone, when
// not empty), the latest played first: their ids, for --end-game. "" or why not.
std::string list_games(const std::string& db_path, const std::string& name, std::string& said);
// Asks the server to end a game not yet over: one waiting for an opponent is
// cancelled, one in play aborted (no rating changes, and in a tournament no
// points to either player). Its players are told the reason.
std::string end_game_by_operator(const std::string& db_path, const std::string& game_id, const std::string& reason,
                                 std::string& said);

// What the players of a game the operator ends are told: a game waiting for an
// opponent is cancelled, one in play aborted.
std::string operator_end_text(bool waiting_for_opponent, const std::string& reason);
// What the player a challenge or rematch the operator cancels waited for is told
// (ChallengeWithdrawn's reason): the operator's words, checked as they were stored.
std::string operator_withdrawal_text(const std::string& reason);

// The server's side: the games the operator asked to end that are not over
// yet, read on each poll; the requests of games now over are cleared.
struct OperatorEnd {
  std::string game_id, reason;
};
std::vector<OperatorEnd> operator_ends(Storage& storage);

// A tournament the operator cancels, not yet started or under way: its games
// under way are aborted (as by end_game_by_operator) and its entrants told why.
std::string cancel_tournament_by_operator(const std::string& db_path, const std::string& id, const std::string& reason,
                                          std::string& said);
// tournaments.unannounced of a tournament the operator cancelled and the server has not yet told.
constexpr int kOperatorCancelled = 3;
struct OperatorCancellation {
  std::string tournament_id, reason;
};
// The server's side, read on each poll: the cancellations to tell.
std::vector<OperatorCancellation> operator_cancellations(Storage& storage);

// The server's side: what the accounts suspended now ask of it, read again on
// each poll (every two seconds).
class SuspensionWatch {
 public:
  struct SignOut {
    std::int64_t user_id = 0;
    std::string text;  // what their connections are told
  };
  struct SetAside {
    std::string game_id;
    std::int64_t user_id = 0;
    std::string why;  // the reason the game ends with
  };
  struct Cancelled {
    std::string tournament_id, reason;
    std::int64_t by = 0;
  };
  struct Poll {
    // Suspended (or suspended anew) within the last few polls: a login that was
    // completing as the suspension came is caught by the next.
    std::vector<SignOut> sign_out;
    // Their games waiting for an opponent and rematches kept for them, and, suspended
    // until reinstated, their games in play: again on each poll until they have ended,
    // so that a game busy with a write, or a tournament's next round, is not missed.
    std::vector<SetAside> games;
    // Tournaments not yet started of organisers suspended until reinstated, which
    // the command cancelled: to be told to their entrants.
    std::vector<Cancelled> cancelled;
    // Suspensions this server has not seen before (new, or changed): for its log,
    // since the command that made them ran in another process.
    struct Seen {
      std::string name, until, reason;
    };
    std::vector<Seen> seen;
  };
  Poll poll(Storage& storage);

 private:
  struct Known {
    std::int64_t until = 0;
    std::string reason;
    int sign_outs_left = 0;
  };
  std::map<std::int64_t, Known> known_;  // by user id
};

}  // namespace counterattack::server
