// Live mode: a game followed as it is played (watch), and the interactive
// player's shell (play). Both apply the server's deltas to the last view and
// reconnect and resume by themselves.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client.h"
#include "game.pb.h"
#include "render.h"
#include "scenario.h"
#include "verify.h"
#include "wire.pb.h"

namespace counterattack::cli {

// Of a new snapshot's recent events `log`, how many were among the first
// `shown_before` of the events held before it (`before`): shown already.
std::size_t events_already_shown(const std::vector<game::Event>& before, std::size_t shown_before,
                                 const std::vector<game::Event>& log);

// Connects again and resumes the session, then `then` (empty: nothing more), retrying
// with a growing pause for up to max_seconds; `say` tells each try. False when the
// time ran out or the session has ended (retrying would not help).
bool reconnect_session(Session& s, const std::function<void(const std::string&)>& say, int max_seconds,
                       const std::function<bool(std::string*)>& then = {});

class LiveGame {
 public:
  // `in_shell`: its notices name the shell's commands, else the one-shot ones.
  LiveGame(Session& s, std::string game_id, bool in_shell = false) : s_(s), id_(std::move(game_id)), in_shell_(in_shell) {}

  // Watch from the last version applied (0 at first: a full view).
  bool subscribe(std::string* error);
  // Applies one message from the server; true when what the player sees changed.
  bool handle(const wire::ServerMessage& m);
  // Reconnects, resumes and subscribes again, retrying for up to max_seconds.
  bool reconnect(const std::function<void(const std::string&)>& say, int max_seconds);

  const std::string& id() const { return id_; }
  std::string reader() const { return s_.user(); }  // the logged-in player reading it; empty when none
  bool has_view() const { return has_view_; }
  const game::View& view() const { return view_; }
  std::int64_t version() const { return version_; }
  const std::vector<game::Event>& log() const { return log_; }  // the recent events, as the view came with them
  // Every event of the game so far as this view reads it, asked of the server; the
  // recent ones alone (log()) when it cannot give them all. `new_from`, when given:
  // for a seated player, the index of the first event after the version they had last
  // seen (-1: none, or not known). `versions` and `times`, when given: each event's
  // order's version and time, parallel to the events (empty when the server sends none).
  // Reading it records the game as seen.
  std::vector<game::Event> whole_log(std::ptrdiff_t* new_from = nullptr, std::vector<std::int64_t>* versions = nullptr,
                                     std::vector<std::int64_t>* times = nullptr);
  // The game's summary as last sent (the answer to Watch, and each change of a game clock).
  const std::optional<wire::GameSummary>& summary() const { return summary_; }
  // Your standing orders in it as you just set them (the server pushes no summary for that).
  void note_standing(const game::StandingOrders& orders) {
    if (summary_) *summary_->mutable_standing_orders() = orders;
  }
  bool ended() const {
    return ended_ || (has_view_ && view_.decision().kind() == game::Decision::GAME_OVER);
  }
  bool needs_resync() const { return resync_; }
  // The server has told the end (GameEnded, or the offer's withdrawal), not only the view.
  bool end_heard() const { return ended_; }
  // A line to show once (chat, a draw offer, the end of the game).
  struct Notice {
    enum class Kind { plain, end, draw_offer };
    std::string text;
    bool of_this_game = true;  // not another game's turn, nor a server error about something else
    Kind kind = Kind::plain;   // end: the game's end ("The game is over. ..."), told once; draw_offer: out of date once answered
    std::string adds = {};     // of the end's: what it adds to the end a view shows (ratings, dice seed); may be empty
    std::string about = {};    // of another game's: that game (its turn), out of date once it is opened
  };
  // This client's own `draw offer` or `draw decline` is on its way: the DrawOffered or DrawDeclined
  // (`answer`) that follows is the command's, which the command tells; BODY_NOT_SET when the command
  // failed. The same message from another client of the player is still told.
  void expect_own_draw(wire::ServerMessage::BodyCase answer) { own_draw_ = answer; }
  // The notices since the last call, oldest first.
  std::vector<Notice> take_notices();
  // A full view came since the last call: the kept chat follows it again.
  bool take_restarted() { return std::exchange(restarted_, false); }
  // Events received since the last call.
  std::vector<game::Event> take_new_events();

 private:
  Session& s_;
  std::string id_;
  bool in_shell_ = false;
  game::View view_;
  bool has_view_ = false;
  std::int64_t version_ = 0;
  std::vector<game::Event> log_;
  std::optional<wire::GameSummary> summary_;
  size_t shown_events_ = 0;
  bool ended_ = false;
  bool resync_ = false;
  // An end that adds no version (a resignation, a draw agreed, time, the operator)
  // leaves the view's decision as it was: the view is shown over once the end is known.
  std::string over_result_, over_reason_;
  bool over_shown_ = false;
  // An offer kept for this player, withdrawn: its end, which follows, is told in the withdrawal's words alone.
  bool withdrawn_ = false;
  bool restarted_ = false;
  wire::ServerMessage::BodyCase own_draw_ = wire::ServerMessage::BODY_NOT_SET;
  // The mark of this client's own draw message, cleared when that message is the one received.
  bool take_own_draw(wire::ServerMessage::BodyCase received) {
    if (own_draw_ != received) return false;
    own_draw_ = wire::ServerMessage::BODY_NOT_SET;
    return true;
  }
  // The player's name in this game; empty for a spectator.
  std::string my_name() const {
    if (!summary_) return "";
    return summary_->your_side() == "soviet" ? summary_->soviet() : summary_->your_side() == "german" ? summary_->german() : "";
  }
  void show_over();
  void add_notice(std::string text, bool of_this_game = true) { notices_.push_back({std::move(text), of_this_game}); }
  std::vector<Notice> notices_;
};

// The audit of finished game `game_id` (see verify.h), its log asked of the server:
// nothing, with why, when the server sends none.
std::optional<Audit> audit_finished(Session& s, const std::shared_ptr<const Scenario>& sc, const std::string& game_id,
                                    const std::string& commitment, std::string* why);

// The side the reader plays: their view's, or once the game is over (whose full
// view names no side) the one its summary gives; SIDE_UNSPECIFIED for a spectator.
game::Side player_side(const LiveGame& g);
// The reader of the game's log, for RenderOptions::reader: the player's side, or a spectator.
game::ViewerKind log_reader(const LiveGame& g);

// "Time: 3d per move, 1d 2h left" or "Time: clock 15m+10s: Soviet 12:47 (running), German 15:00",
// with a newline, for a timed game in play, as of `now_unix` (0: now); empty otherwise.
std::string time_line(const LiveGame& g, std::int64_t now_unix = 0);
// "Standing orders: no-support, retreat (...)" with a newline when you have any in the game; empty otherwise.
std::string standing_line(const LiveGame& g);
// Under a game no one has joined yet: that the decision shown waits for them.
std::string opening_line(const LiveGame& g);
// A draw offer waiting for its answer: who made it, and how the other answers.
std::string draw_offer_line(const LiveGame& g);
// The lines under the map that do not tick: the opening, a draw offer, standing orders.
std::string game_lines(const LiveGame& g);
// What rewrites `shown`, the time line last printed on a terminal, to `now` in
// place (the cursor is on the line below it); empty when there is nothing to change.
std::string retime(const std::string& shown, const std::string& now);

// `watch GAME`: draws the game after every change until it ends. With json,
// prints every server message as one JSON line, then the final view.
int run_watch(Session& s, const Scenario& sc, const std::string& game_id, const RenderOptions& ro,
              bool json);

// `play [GAME]` or no command: the interactive shell.
int run_play(Session& s, const Scenario& sc, const std::string& game_id, const RenderOptions& ro);

// Waits for the reply to an order and says what became of it.
struct OrderOutcome {
  bool answered = false;
  bool accepted = false;
  std::int64_t version = 0;
  std::int64_t answered_to = 0;  // the last version the opponent's standing answers made at once (0: none)
  std::string code, reason;  // rejection, or error
  bool by_rules = false;      // an OrderRejected, not an Error before the rules
};
OrderOutcome submit_order(Session& s, const std::string& game_id, const game::Order& order,
                          const std::string& key);
// The events of the accepted order that made `version` and of every version after
// it the server holds (the opponent's standing answers, say), as the player's view
// reads them: from the deltas the server sends a watcher from the version before
// (as the shell prints them), else from the log as read. Reading either marks the
// game seen to its last version, so none of those versions goes unprinted.
struct VersionEvents {
  std::int64_t version = 0;
  std::vector<game::Event> events;
};
std::vector<VersionEvents> order_events(Session& s, const std::string& game_id, std::int64_t version);

}  // namespace counterattack::cli
