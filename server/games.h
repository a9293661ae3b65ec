// Games in play: the registry, versions, per-viewer delta streams, idempotent
// orders, chat, and the lobby (lobby.cc). Knows the rules only through
// ruleset.h, and the network only through Peer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "chat_moderation.h"
#include "config.h"
#include "mailer.h"
#include "peer.h"
#include "ratings.h"
#include "recent_attempts.h"
#include "ruleset.h"
#include "storage.h"
#include "vacations.h"
#include "wire.pb.h"

namespace counterattack::server {

// Who looks at a game: a player's side, a spectator, or (after the end) everything.
enum class Seat : int { Soviet = 0, German = 1, Spectator = 2, Omniscient = 3 };

struct Game {
  enum class Status { Open, Playing, Finished };

  std::mutex mu;
  // Fixed at creation.
  std::string id, scenario;
  std::vector<std::string> options;
  int rules_revision = 1;  // the ruleset's revision the game began with
  Seed seed{};
  std::string commitment;
  bool is_private = false;
  std::string invite;
  std::int64_t creator = 0;
  std::shared_ptr<const Ruleset> rules;
  std::int64_t created_unix = 0;
  std::int64_t move_seconds = 0;  // time per move; 0: untimed, or a game clock
  // A game clock instead (live play): each player's time for the whole game,
  // and what they get back each time the decision passes from them.
  std::int64_t clock_seconds = 0, increment_seconds = 0;
  std::string tournament_id;      // empty unless a tournament's game
  // A private tournament's game: its organiser and entrants, who may watch it as spectators.
  std::vector<std::int64_t> tournament_insiders;
  int tournament_round = 0;       // a Swiss's game: its round
  bool rated = false;             // its end moves the players' ratings
  std::string rematch_of;         // a rematch: the finished game it follows
  std::int64_t reserved_for = 0;  // a rematch or a challenge: the only user who may join it (0: anyone)
  std::string reserved_name;
  // A challenge not told to its player (they muted its maker), whose withdrawal goes
  // untold too. Unset for one stored before this was (schema 40): the mutes decide then.
  std::optional<bool> quiet_offer;
  bool loaded_finished = false;   // read from the database already over: held only for readers

  // Seats: [0] Soviet, [1] German; 0 while open.
  std::int64_t user[2] = {0, 0};
  std::string name[2];
  Status status = Status::Open;
  std::string result, reason;
  int rating_change[2] = {0, 0};  // a finished rated game's, once durable
  bool rating_counted = false;    // its end moved the ratings, once durable
  std::string unrated_reason;     // a rated result that moved none: why, once durable
  // When the player to decide loses by time, at `head` (enforced) and at
  // `committed` (what players are told); 0 when untimed or not playing.
  std::int64_t deadline_unix = 0, committed_deadline = 0;
  // At `head`: the end of the decider's vacation that holds their clock (0: not held).
  std::int64_t held_until = 0;
  // A game clock's time left for each player when their clock last stopped, at
  // `head` and at `committed`; the decider's runs until deadline_unix.
  std::int64_t clock_left[2] = {0, 0}, committed_clock_left[2] = {0, 0};

  bool timed() const { return move_seconds > 0 || clock_seconds > 0; }
  // The time a clock starts from, against which "a quarter left" is judged.
  std::int64_t full_time() const { return move_seconds > 0 ? move_seconds : clock_seconds; }

  // Play. `head` counts orders applied in memory; `committed` those durable,
  // which is all any client has been told about.
  std::unique_ptr<Match> match;
  std::int64_t head = 0, committed = 0;
  game::Side committed_decider = game::SIDE_UNSPECIFIED;
  int committed_turn = 0;
  // Each seat's latest committed order (a standing answer counts as its side's): the other
  // side's tells when the decision last came back to a player, what a digest counts as news.
  std::int64_t last_order_of[2] = {0, 0};
  int pending = 0;  // writes queued and not yet committed
  std::atomic<bool> broken{false};  // a write failed: the game must be reloaded from the log

  // The latest view of each live seat (Soviet, German, Spectator), at `head`.
  std::unique_ptr<SeatView> views[3];
  bool view_live[3] = {true, true, false};
  struct StoredDelta {
    std::int64_t to_version;
    Frame frame;  // ServerMessage{delta}, shared by every subscriber of the seat
  };
  std::deque<StoredDelta> history[3];
  std::deque<std::pair<std::int64_t, game::Event>> recent_events;  // every audience

  struct KeyRecord {
    std::string order_bytes;
    bool accepted = false;
    std::int64_t version = 0;
    game::Rejection rejection;
    bool committed = false;
    std::int64_t answered_to = 0;  // the last version the opponent's standing orders answered after it
  };
  struct KeyHash {
    std::size_t operator()(const std::pair<int, std::string>& k) const {
      return std::hash<std::string>{}(k.second) ^ static_cast<std::size_t>(k.first);
    }
  };
  std::unordered_map<std::pair<int, std::string>, KeyRecord, KeyHash> keys;  // (side, idempotency key)

  struct Subscriber {
    std::weak_ptr<Peer> peer;
    std::uint64_t peer_id = 0;
    Seat seat = Seat::Spectator;
    std::int64_t sent = 0;  // the version this subscriber has
    std::int64_t user = 0;  // who watches (0: nobody logged in)
  };
  std::vector<Subscriber> subscribers;
  void unsubscribe(std::uint64_t peer_id) {
    std::erase_if(subscribers, [&](const Subscriber& s) { return s.peer_id == peer_id; });
  }

  struct ChatLine {
    wire::ChatMessage message;
    std::int64_t from_id = 0;  // whom a muting reader does not read
  };
  std::deque<ChatLine> chat;
  int draw_offer = -1;  // the side that offered a draw, -1 when none
  int committed_draw_offer = -1;  // the same, as stored: what summaries show and what may be accepted
  int offered_in_turn[2] = {-1, -1};  // the game turn of each side's last draw offer (stored with it): one a turn
  // A player was mailed that the decision is theirs, and has not looked at the
  // game or played in it since: no further mail until they do.
  bool mailed[2] = {false, false};
  bool reminded = false;  // the player to decide was mailed that the deadline is near
  bool played[2] = {false, false};  // each player has given an order (at `head`)
  // Each seated player's highest version shown, as recorded: a row of `seen`
  // (written when a connection stops watching, or the log is read) or their own
  // latest order, whichever is later. May pass `committed` for a moment: an order
  // being stored.
  std::int64_t seen[2] = {0, 0};
  // Each player's standing orders (SetStandingOrders), and whether any is set.
  game::StandingOrders standing[2];
  bool standing_set[2] = {false, false};

  // The seat a user reads the game from: everything once the end is durable (an end
  // that cannot be stored is taken back, and the game goes on), else their side or
  // the spectators'.
  Seat seat_of_reader(std::int64_t user_id) const {
    const int side = side_of(user_id);
    if (status == Status::Finished && pending == 0) return Seat::Omniscient;
    return side >= 0 ? static_cast<Seat>(side) : Seat::Spectator;
  }
  int side_of(std::int64_t user_id) const {
    if (user_id == 0) return -1;
    return user[0] == user_id ? 0 : user[1] == user_id ? 1 : -1;
  }
  // A game made for one named player (CreateGame.opponent), not a rematch.
  bool challenge() const { return reserved_for != 0 && rematch_of.empty(); }
  // Whether the user may know of it and watch it: anyone, unless it is private,
  // or a challenge that never started (open, declined, withdrawn, lapsed), which
  // is its maker's and the challenged player's alone.
  bool visible_to(std::int64_t user_id) const {
    if (challenge() && (user[0] == 0 || user[1] == 0)) return user_id != 0 && (side_of(user_id) >= 0 || user_id == reserved_for);
    return !is_private || side_of(user_id) >= 0 ||
           (user_id != 0 && std::find(tournament_insiders.begin(), tournament_insiders.end(), user_id) != tournament_insiders.end());
  }
};

// "" when a time per move (0: untimed), or a game clock (0: none) with its
// increment, is within the server's bounds; else the sentence that says why not.
std::string check_time_terms(const Config& config, std::int64_t move_seconds, std::int64_t clock, std::int64_t increment);
// "from 1 hour to 30 days (3600 to 2592000 seconds)": words for players, seconds for programs.
std::string span_range(std::int64_t from, std::int64_t to);

class GameService {
 public:
  // `post` runs a job on a network thread (reads that must not hold the writer).
  GameService(Storage& storage, Rulesets rulesets, const Config& config, Mailer& mailer, Ratings& ratings,
              Vacations& vacations, std::function<void(std::function<void()>)> post);

  // At start, before any game is loaded: each running game clock and time per move
  // gets back the time the server was down (since it was last alive; a clock at most
  // its whole time).
  void resume_clocks();
  // At shutdown: the server notes that it is alive, so that a restart gives the
  // time it was down back to the timed games (expire_overdue notes it while they run).
  void beat();
  // The connections open now, stored with each alive mark for the operator's --status;
  // set before the clocks' tick starts.
  void count_connections_with(std::function<std::size_t()> open_now) { connections_ = std::move(open_now); }

  // Lobby (lobby.cc)
  void create(const Caller& c, const wire::CreateGame& req);
  // A finished game's rematch: offered, or, when the opponent has offered it, joined or declined.
  void rematch(const Caller& c, const wire::Rematch& req);
  // The player a challenge (or rematch) is kept for turns it down: it ends "Declined".
  void decline_challenge(const Caller& c, const wire::DeclineChallenge& req);
  // A player closed their account: the rematches offered to them end "Declined", so
  // that they no longer count against those who offered them; `why` is the reason
  // they end with. Safe on any thread.
  void set_aside_games(std::int64_t user_id, const std::string& why);
  // A game of a player who can no longer play it ends with `why`: waiting for an
  // opponent, it is withdrawn ("Cancelled"); a rematch kept for them is declined, or,
  // `suspended`, withdrawn; in play (`suspended` until reinstated), they resign it.
  // Not while a write of the game is under way, nor a game that cannot be loaded.
  // Whether it is ending (durably, or not at all, soon after). On a network thread.
  bool set_aside(const std::string& game_id, std::int64_t user_id, const std::string& why, bool suspended);
  // The operator's end of a game not yet over (see end_game_by_operator), for the
  // reason `why`: Ended; Later when there is nothing to end, or not now (a write of it is
  // under way); Unloadable when its stored log cannot be read: it is ended in its row
  // alone, told as any other end (nobody watches it), with its log kept as stored.
  enum class OperatorEndOutcome { Ended, Later, Unloadable };
  OperatorEndOutcome end_by_operator(const std::string& game_id, const std::string& why);
  // A tournament organiser's decision of a game in play (the caller's right to it
  // checked by Tournaments): it ends with `result`, told with `reason`, unrated. A game
  // not in play is refused. Answers `c`.
  void adjudicate(const Caller& c, const std::string& game_id, const std::string& result, const std::string& reason);
  // Public games open, in play or finished, newest first, a page at a time, filtered (ListGames).
  void list_games(const Caller& c, const wire::ListGames& req);
  void join(const Caller& c, const wire::JoinGame& req);
  void my_games(const Caller& c);
  void resign(const Caller& c, const wire::Resign& req);
  void offer_draw(const Caller& c, const wire::OfferDraw& req);
  void answer_draw(const Caller& c, const wire::AnswerDraw& req);

  // Play (games.cc)
  // True when the connection now watches the game (its answer may still be on its way).
  bool watch(const Caller& c, const wire::Watch& req);
  void unwatch(const Caller& c, const wire::Unwatch& req);
  void submit(const Caller& c, const wire::SubmitOrder& req);
  // A player's standing orders: stored, then the decision now answered if they cover it.
  void set_standing_orders(const Caller& c, const wire::SetStandingOrders& req);
  void chat(const Caller& c, const wire::SendChat& req);
  // Chat moderation (chat_moderation.cc): the players the caller does not read, and
  // reports of a player's chat in a game, stored with the lines the caller could read.
  void mute(const Caller& c, const wire::Mute& req);
  void unmute(const Caller& c, const wire::Unmute& req);
  void list_muted(const Caller& c);
  void report_chat(const Caller& c, const wire::ReportChat& req);
  ChatModeration& chat_moderation() { return moderation_; }
  // The mutes, unmutes and reports stored within their limits' windows, read at the
  // start: a restart does not give a player their limits afresh.
  void load_moderation_limits();
  void get_log(const Caller& c, const wire::GetLog& req);
  // A scenario's data, to anyone, logged in or not: it is printed on every copy of the game.
  void get_scenario(const Caller& c, const wire::GetScenario& req);
  // Forgets a closed connection's subscriptions.
  void drop_peer(std::uint64_t peer_id, const std::vector<std::string>& game_ids);

  // Vacations (vacations.cc): the player's clocks stand still from now for
  // req.days, or start again now. Refusals answer `c`; `done` runs once the
  // change is durable, to answer it.
  void start_vacation(const Caller& c, const wire::StartVacation& req, std::function<void()> done);
  void end_vacation(const Caller& c, std::function<void()> done);

  // Loads every game not finished (each load logs its version and state hash).
  void preload();

  // Ends the games whose player to decide has let the time per move (or game
  // clock) run out, withdraws the open games nobody joined within
  // open_game_expiry_seconds, and while a game clock runs notes that the server
  // is alive; called every second. Every `sweep`th call also looks in the database for
  // overdue games not in memory (one being reloaded after a failed write).
  void expire_overdue(bool sweep);

  // Mails each player whose digest is due (Mailer::digests_due) the games in play
  // that wait for them while they are away, unless they are on vacation; called every second.
  void send_digests();

  // Games a tournament has just created, stored as playing: loads them, and
  // tells each player to decide on the connections that follow turns. A player
  // who is away is not mailed for each game: returns, by such user, the games
  // that wait for them, for the tournament's one mail to name.
  // With `each_game`, games that no tournament notice announces (a knock-out's deciding
  // games): both players are told of each game (game_started) before the turn.
  std::map<std::int64_t, std::vector<wire::GameSummary>> announce_started(const std::vector<std::string>& ids, bool each_game = false);
  // Delivers a frame to each connection of the user that follows turns; false when there is none.
  bool tell_followers(std::int64_t user_id, const Frame& frame);

  // Called, with the game's id of its tournament, once a tournament game's end is durable.
  void on_tournament_game_end(std::function<void(const std::string& tournament_id)> f) { tournament_game_end_ = std::move(f); }

  // The caller's connection is told of turns in the user's games that it does not watch.
  void follow_turns(const Caller& c);
  // Ends that, when the connection logs out or closes.
  void unfollow_turns(std::int64_t user_id, std::uint64_t peer_id);

 private:
  std::shared_ptr<Game> find(const std::string& id);
  std::shared_ptr<Game> load(const std::string& id);
  void forget(const std::shared_ptr<Game>& g);
  // The opponent a rematch or a challenge is kept for, and the finished game a
  // rematch follows (empty for a challenge); all empty for other games.
  struct Reservation {
    std::string rematch_of;
    std::int64_t user = 0;
    std::string name;
    // A challenge from a player the challenged one muted: stored, never pushed or
    // mailed, so that the challenger learns nothing of the mute.
    bool quiet = false;
  };
  // False when refused before anything is stored.
  bool make_game(const Caller& c, const wire::CreateGame& req, const Reservation& r);
  // The opponent turns down the rematch of finished game `of` kept for them: it ends "Declined".
  void decline_rematch(const Caller& c, const std::string& of);
  // A rematch accepted, declined or withdrawn leaves rematches_: the database answers for it
  // alike from then on. Called with g.mu held, once the change is stored.
  void forget_rematch(const Game& g);
  // Stores the time now as the last moment the server was alive (see resume_clocks).
  void note_alive();
  // Unloads a finished game nobody watches; it loads again from its final snapshot.
  void maybe_unload(const std::shared_ptr<Game>& g);
  // Under g->mu: whether a spectator may follow this finished game read back, which
  // no one watches; if so it no longer rests.
  bool may_follow_finished(const std::shared_ptr<Game>& g);
  // A game asked for that find() did not give: NOT_FOUND, or INTERNAL when it is
  // stored but its log does not replay (a player must not be told it is gone).
  void missing_game(const Caller& c, const std::string& game_id);

  // With g.mu held: the player of `seat` (none: nothing) has been shown the game up
  // to `version` (at most the committed one); a small write when that is news.
  void record_seen(Game& g, int seat, std::int64_t version);
  // With g.mu held: the connection stops watching the game; what it was shown is recorded.
  void stop_watching(Game& g, std::uint64_t peer_id);
  // Called with g->mu held.
  wire::GameSummary summary(const Game& g, int your_side) const;
  // The players' ratings now (user 0: an open seat), and a finished rated game's changes.
  void add_ratings(wire::GameSummary& s, const std::string& scenario, const std::int64_t (&user)[2], bool rated,
                   const int (&change)[2], bool counted) const;
  // A game as its stored row has it: what a summary of a game not held in memory says.
  struct StoredGame {
    std::string id, scenario, options, soviet, german, result, reason, commitment, tournament_id, unrated_reason;
    std::int64_t version, user[2], move_seconds, clock_seconds, increment_seconds;
    int round, change[2];
    bool rated, counted;
    int turn;  // a finished game's last turn; 0: not known (ended before it was stored)
  };
  void add_stored(wire::GameSummary& s, const StoredGame& r) const;
  void push_summary(Game& g);
  void flush(Game& g);
  void broadcast(Game& g, const Frame& frame);
  // When the decision has passed to a player since `was`: a your_turn notice to
  // that player's connections that follow turns and do not watch the game, or,
  // when no connection of the player follows turns or watches it, a mail.
  // `mail` false: a player away is marked as mailed instead (a mail of its own names the game).
  // True when the player to decide was away.
  bool notify_turn(Game& g, game::Side was, bool mail = true);
  // With g.mu held: the committed events since the player of `seat` last looked, as
  // their view reads them, from those held in memory (a turn mail's).
  // At most `most` lines: a mail to read at a glance.
  Mailer::SinceLooked since_looked(const Game& g, int seat, std::size_t most = 15) const;
  // The player of a seat has no connection watching the game or following turns.
  bool away(Game& g, int seat);
  // The user's live connections that follow turns, with their peer ids.
  std::vector<std::pair<std::uint64_t, std::shared_ptr<Peer>>> followers(std::int64_t user_id);
  // The seat's connections that follow turns and do not watch the game.
  std::vector<std::shared_ptr<Peer>> followers_elsewhere(Game& g, int seat);
  // Sends those connections the frame `make` builds, built only when there is one.
  void tell_elsewhere(Game& g, int seat, const std::function<Frame()>& make);
  // Each player but `actor` who does not watch the game is told it is over: on
  // the connections that follow turns, or by mail when away.
  void tell_game_over(Game& g, std::int64_t actor);
  // A mail to the player to decide, if away, when a quarter of the time per move is left.
  void remind_if_late(Game& g);
  void end_game(Game& g, const std::string& result, const std::string& reason);
  // The operator's end of a game whose log cannot be read: in its row alone.
  OperatorEndOutcome end_unloadable(const std::string& game_id, const std::string& why);
  // Within a write: stores the game's end on `turn` (0: not known), and its players' new ratings when it is rated.
  static Ratings::Outcome store_end(Db& db, const std::string& id, const std::string& result, const std::string& reason,
                                    int turn);
  // Once that write is durable: the new ratings are read from now on, the
  // game shows its changes, and its tournament, if any, looks whether it is over.
  void ended_durably(Game& g, const Ratings::Outcome& rating);
  // With g->mu held: the player to decide has let the time per move run out.
  static bool overdue(const Game& g);
  // With g->mu held: an open game nobody has joined in open_game_expiry_seconds.
  bool expired(const Game& g) const;
  // Ends an overdue game on time, once nothing is left to store before it;
  // `actor` (0: nobody) is the player whose late order revealed it.
  void end_on_time(const std::shared_ptr<Game>& g, std::int64_t actor);
  // Ends a game for a reason outside the rules; `c`, when given, is answered.
  // `actor` ended it (0: nobody): everyone else is told.
  // `unrated`, when not empty: why the game is stored as no longer rated (its unrated_reason), so that its end moves no rating.
  // `withdrawn`: an open game kept for a player, withdrawn or lapsed: they are told so in these words.
  void finish(const std::shared_ptr<Game>& g, const std::optional<Caller>& c, std::int64_t actor,
              const std::string& result, const std::string& reason, const std::string& what, const std::string& unrated = "",
              const std::string& withdrawn = "");
  // An open game kept for a player, as its withdrawal tells them of it.
  struct WithdrawnOffer {
    std::string game_id, by, of_game_id;  // `by`: its maker's name; `of_game_id`: a rematch's finished game
    std::int64_t maker = 0, kept_for = 0;  // kept for nobody: 0
    std::optional<bool> quiet;             // as Game::quiet_offer
  };
  // Pushes ChallengeWithdrawn to the player a challenge or rematch was kept for, when its offer was told.
  void tell_withdrawn(const Game& g, const std::string& why);
  void tell_withdrawn(const WithdrawnOffer& o, const std::string& why);
  // Stores a draw offer made or declined (`before`: the offer it replaced); `tell` runs once it is durable.
  void store_draw_offer(const std::shared_ptr<Game>& g, const Caller& c, int before, std::function<void(bool stored)> tell);
  // A vacation starting or ending: `begin` puts it in memory; then each of the
  // caller's timed games in play is held while `adjust` moves its clock (true:
  // moved), and `store` writes the vacation with the moved clocks. When that
  // fails, `undo` takes `begin` back and the clocks move back.
  void change_vacation(const Caller& c, const std::function<void()>& begin, const std::function<bool(Game&)>& adjust,
                       std::function<void(Db&)> store, std::function<void()> undo,
                       std::function<void(const Caller&)> refused, std::function<void()> done);
  // With g.mu held: the decider's clock waits for the end of their running
  // vacation, if it does not yet: the time it had when the vacation began (or
  // all of it, if it started later) runs from then. True when it moved.
  bool hold_clock(Game& g);
  // Stores a clock moved outside an order or a vacation's own change (a game
  // just made by a tournament and held, or loaded and held or given time back).
  void store_clock(const std::shared_ptr<Game>& g);
  // With g.mu held: the clock of the player of `seat` starts now: their time per
  // move, from the end of their vacation if one runs, or what their game clock has
  // left. Sets deadline_unix and held_until.
  void start_clock(Game& g, int seat);
  // With g.mu held: a game clock stops for the player of `seat`, who decided
  // until now: they keep what was left, with the increment.
  static void stop_clock(Game& g, int seat);
  void compute_version(Game& g, const std::vector<game::Event>& events);
  // With g->mu held, once g->match has accepted `order` from the player of
  // `seat`: the order becomes the game's next version, which is stored, then
  // sent to every viewer. `c`, the player who gave it, is answered with its
  // acknowledgement (a standing answer has none); `actor` started the run of
  // orders (0: nobody). Then each decision the decider's standing orders cover
  // is answered in turn, and the turn told only after the last. Returns the last
  // version made.
  std::int64_t play(const std::shared_ptr<Game>& g, int seat, const std::string& key, const game::Order& order,
                    Applied applied, game::Side deciding, const std::optional<Caller>& c, std::int64_t actor);
  // With g->mu held: the order the decider's standing orders give now, if any.
  static std::optional<game::Order> standing_answer(const Game& g);
  // With g->mu held: when the decider's standing orders answer the decision now,
  // that answer and the run that follows it are played; `actor` as for play().
  // own_run: set by the player now, not following an order of the opponent's.
  void answer_standing(const std::shared_ptr<Game>& g, std::int64_t actor, bool own_run = false);
  void send_catch_up(Game& g, const Caller& c, Seat seat, Frame snapshot, bool tell_end = true);
  // After a Watch's answer: GameEnded, when the game is over and its end stored.
  void tell_if_over(const Game& g, const Caller& c);
  // GetLog.as_seen: every event so far as the caller's view reads them, read off the caller's thread.
  // A seated player's reading (`seat`, else -1) is recorded as seen once answered,
  // and tells the version seen before it.
  void send_events_as_seen(const std::shared_ptr<Game>& g, const Caller& c);
  void send_log(Game& g, const Caller& c);
  static void log_closed(const Caller& c);
  bool may_read(const Game& g, Seat seat, wire::Channel channel) const;
  static game::ViewerKind viewer_of(Seat s);

  Storage& storage_;
  Rulesets rulesets_;
  const Config& config_;
  Mailer& mailer_;
  Ratings& ratings_;
  Vacations& vacations_;
  std::mutex vacation_mu_;  // one vacation change at a time; taken before any game's mu
  std::function<void(std::function<void()>)> post_;
  std::function<void(const std::string&)> tournament_game_end_;
  std::function<std::size_t()> connections_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Game>> games_;
  // Finished games nobody watches, kept for a while: watching one again, or
  // reading its log, does not replay it from the database each time; the
  // oldest is let go beyond kRestingGames. Under mu_.
  std::deque<std::shared_ptr<Game>> resting_;
  // Games that could not be loaded: the sweep for overdue clocks does not try them
  // again, and requests for them say so. Under mu_.
  std::set<std::string> unloadable_;
  // Finished game -> its rematch ("" while one is being made) while that rematch is
  // open; guarded by mu_. Filled from the database when asked for and not here.
  std::map<std::string, std::string> rematches_;
  static constexpr std::size_t kRestingGames = 64;
  // Games held that were read from the database already over, watched or
  // resting; those watched are bounded by config_.max_finished_games_held. Under mu_.
  std::size_t finished_held_ = 0;
  // Each chat message and refused order is stored: a sender's share of them is bounded.
  RecentAttempts chat_by_user_, refusals_by_user_;
  // Each change of standing orders is a write and may play orders: a player's are bounded.
  RecentAttempts standing_by_user_;
  static constexpr int kStandingChangesPerMinute = 30;
  // Each rematch offered is a game stored, and a notice or a mail to the opponent.
  RecentAttempts rematch_offers_by_user_;
  static constexpr int kRematchOffersPerHour = 10;
  // Open games wait in memory and in the lobby on their maker's word alone.
  static constexpr int kOpenGamesPerUser = 20;
  // Challenges are among those, each a notice or a mail to another player: fewer may
  // wait, leaving room for open games, and their making is bounded as rematches' is.
  static constexpr int kChallengesWaiting = 10;
  // After a decline, the same player is not challenged again for this long.
  static constexpr std::int64_t kChallengeAgainAfterDeclineSeconds = 86400;
  static constexpr int kChallengesPerHour = 30;
  RecentAttempts challenges_by_user_;
  ChatModeration moderation_;
  // A player by the name given (any case), as registered; id 0 when none.
  struct NamedPlayer {
    std::int64_t id = 0;
    std::string name;
    bool closed = false;
  };
  NamedPlayer player_named(const std::string& name);
  // Answers MutedPlayers: the caller's muted players as stored, and `named`, the one
  // just muted or unmuted as registered ("" for a list).
  void answer_muted(const Caller& c, const std::string& named = "");
  // Each mute, unmute and report is a write; a report is the operator's reading too.
  RecentAttempts mutes_by_user_, reports_by_user_;
  static constexpr int kMuteChangesPerMinute = 30;
  static constexpr int kReportsPerHour = 10;
  static constexpr std::chrono::seconds kMuteChangeWindow{60}, kReportWindow{3600};
  // Connections that follow their user's turns, by user. Taken after a game's mu, never before.
  std::mutex online_mu_;
  std::unordered_multimap<std::int64_t, std::pair<std::uint64_t, std::weak_ptr<Peer>>> online_;
};

// The rules of a scenario; nullptr, with a sentence naming the known ones in `why`, when unknown.
std::shared_ptr<const Ruleset> ruleset_of(const Rulesets& rulesets, const std::string& scenario, std::string* why);
// NOT_FOUND for a game that does not exist, or that the caller may not know of.
void no_such_game(const Caller& c, const std::string& game_id);
// The caller's side (0 Soviet, 1 German) in g; otherwise answers NOT_FOUND
// (a private game) or FORBIDDEN with `forbidden`, and returns -1.
int seat_of(const Caller& c, const Game& g, const std::string& game_id, const std::string& forbidden);
// The seat (0 Soviet, 1 German) of a side (game::Side, or as the log stores it).
inline int seat_of_side(std::int64_t side) { return side == game::SOVIET ? 0 : 1; }
// Ids and invite codes people can read aloud: no 0/o, 1/l.
std::string random_code(std::size_t n);
// An invite code as typed, in the case random_code() makes it: one typed in capitals is the same code.
std::string typed_code(std::string code);
// Optional rule keys as the games table stores them: comma-separated.
std::string join_options(const std::vector<std::string>& options);
std::vector<std::string> split_options(const std::string& joined);
// Hex of bytes, lower case.
std::string to_hex(std::string_view bytes);
std::string seed_hex(const Game& g);
// A game's end as its players and watchers are told it: what every end says, then (game_ended_frame)
// a loaded game's dice seed and rating changes.
wire::ServerMessage game_ended_message(const std::string& game_id, const std::string& result, const std::string& reason, bool rated,
                                       const std::string& unrated_reason);
Frame game_ended_frame(const Game& g);

}  // namespace counterattack::server
