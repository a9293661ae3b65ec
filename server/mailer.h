// Mail: the outbox in SQLite and the thread that hands it to an SMTP server
// (libcurl). A message is stored before anything else happens to it and stays
// until the SMTP server has taken it, so a restart or a mail server that is
// down delays a notice and does not lose it. Also keeps the confirmed address
// of each player who has one, so that a change of turn asks nothing of SQLite.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "config.h"
#include "storage.h"
#include "wire.pb.h"

namespace counterattack::server {

class Mailer {
 public:
  // Reads the confirmed addresses; sends nothing until start(). libcurl must be
  // initialised first (curl_global_init, in main before any thread starts).
  Mailer(Storage& storage, const Config& config);
  ~Mailer();

  bool enabled() const { return !config_.smtp_url.empty(); }
  void start();
  void stop();
  // Messages dropped after their last attempt since the start, for the operator's --status.
  std::int64_t dropped() const { return dropped_; }

  // "" when `address` may be mailed, else the sentence to show. Refuses what
  // could break out of a mail header: control characters, spaces, angle brackets.
  // `dotted`: the domain must have a dot, as a player's must; a sender may be name@localhost.
  static std::string check_address(const std::string& address, bool dotted = true);

  // Stores a message to `user_id`'s address in the outbox (durably, then the
  // sender is woken). Nothing when disabled.
  void queue(std::int64_t user_id, const std::string& to, const std::string& subject, const std::string& body);

  // A client command line to type: "counterattack --server URL WORDS", without --server
  // when the public URL is not set.
  std::string client_command(const std::string& words) const;

  // The address turn notices go to, kept in step with the users table.
  void confirmed(std::int64_t user_id, const std::string& address);
  void forget(std::int64_t user_id);
  bool has_address(std::int64_t user_id);

  // How a player's turn notices are mailed (users.turn_mail), kept in step with the table.
  struct TurnMail {
    wire::TurnMail mode = wire::TURN_MAIL_EACH;
    int digest_hours = 24;
    std::int64_t digest_sent = 0;  // when the last digest went (0: none yet)
  };
  TurnMail turn_mail(std::int64_t user_id);
  // After the change is stored; a later digest_sent already held is kept.
  void set_turn_mail(std::int64_t user_id, const TurnMail& t);
  static const char* mode_name(wire::TurnMail mode);
  // Players with a confirmed address whose digest's interval has passed at `now`.
  std::vector<std::int64_t> digests_due(std::int64_t now);
  // Due players for whom no game waits: not looked for again until a sixtieth of their
  // hour has passed, so that a quiet player does not cost a pass over every game each second.
  void nothing_waits(const std::vector<std::int64_t>& users, std::int64_t now);

  // Notices to a player who is away, when they have a confirmed address (`game`
  // as that player sees it): the decision has passed to them; a quarter of the
  // time per move is left; the game is over, with its reason.
  // What happened since a player last looked, as their own view reads it: the
  // first lines, how many more there are, and whether earlier ones are not listed.
  struct SinceLooked {
    std::vector<std::string> lines;
    std::size_t more = 0;
    bool earlier = false;
  };
  // `moved`: the player has given an order of their own in the game (else its time-out aborts it).
  void your_turn(std::int64_t user_id, const wire::GameSummary& game, const SinceLooked& since, bool moved);
  // The digest of the games that wait for the player (each as their view reads it,
  // `state` what it waits at: the version of the opponent's last order, which handed it
  // back to them, doubled, plus one while a draw is offered to them); `now` is stored as when it went, in the outbox's write, with the games it lists.
  // None, and false, when every game was listed by the last digest in the same state:
  // nothing is new to the player.
  struct Waiting {
    wire::GameSummary game;
    SinceLooked since;
    std::int64_t state = 0;
  };
  bool digest(std::int64_t user_id, const std::vector<Waiting>& games, std::int64_t now);
  void deadline_near(std::int64_t user_id, const wire::GameSummary& game, bool moved);
  void game_over(std::int64_t user_id, const wire::GameSummary& game, const std::string& reason);
  // The game's end when its stored log could not be loaded and the operator ended it in
  // its row alone: `player` and `opponent` by name; no log to offer, the operator to ask.
  void unloadable_game_over(std::int64_t user_id, const std::string& game_id, const std::string& player,
                            const std::string& opponent, const std::string& result, const std::string& reason);
  // The opponent of a finished game offers the player its rematch.
  void rematch_offered(std::int64_t user_id, const wire::RematchOffered& offer);
  // Another player challenges the player to a game kept for them.
  void challenge_offered(std::int64_t user_id, const wire::ChallengeOffered& offer);
  // A tournament the player entered has started (or a round of it has begun, or with
  // `deciding`, a knock-out match of theirs goes to a deciding game); `your_move`: its
  // games that wait for them.
  void tournament_started(std::int64_t user_id, const std::string& player, const wire::Tournament& t,
                          const std::vector<wire::GameSummary>& your_move, bool deciding = false);
  // A tournament the player entered or organises is over: its final standings.
  void tournament_finished(std::int64_t user_id, const std::string& player, const wire::Tournament& t);
  // A tournament the player entered or organises was cancelled (before it started, or
  // by the operator under way); `reason` is a sentence.
  void tournament_cancelled(std::int64_t user_id, const std::string& player, const wire::Tournament& t,
                            const std::string& reason);

 private:
  enum class Sent { Taken, Refused, Unreachable };
  std::string address_of(std::int64_t user_id);
  // "Hello NAME,\n\n" and the sentence naming the game, the opponent, the turn and the side.
  static std::string opening(const wire::GameSummary& game, const std::string& what);
  // A client command to type, in backquotes: with --server when the public URL is known.
  std::string command(const std::string& words) const;
  // `moved`: as for your_turn; the deadline's line says what its passing does.
  std::string how_to_answer(const wire::GameSummary& game, bool moved) const;
  void loop();
  // The completion of a write to the outbox: wakes the sender, or logs `failure`.
  std::function<void(bool)> stored(const char* failure);
  // One message to the SMTP server; the reason in `error` when it was not taken.
  Sent send(const std::string& to, const std::string& subject, const std::string& body, std::string& error);

  Storage& storage_;
  const Config& config_;
  std::mutex addresses_mu_;
  std::unordered_map<std::int64_t, std::string> addresses_;
  std::unordered_map<std::int64_t, TurnMail> turn_mail_;  // under addresses_mu_: only those not the default
  std::unordered_map<std::int64_t, std::int64_t> digest_look_again_;  // under addresses_mu_: see nothing_waits
  // Under addresses_mu_: by player, the games their last digest listed and the state of each (digest_listed).
  std::unordered_map<std::int64_t, std::map<std::string, std::int64_t>> digest_listed_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool woken_ = false;             // under mu_: new mail in the outbox
  std::atomic<bool> stopping_ = false;
  std::atomic<std::int64_t> dropped_ = 0;
  std::thread thread_;
};

}  // namespace counterattack::server
