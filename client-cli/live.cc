#include "live.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <set>
#include <thread>

#include <editline/readline.h>

#include "charts.h"
#include "notation.h"
#include "replay.h"
#include "terminal_text.h"
#include "view_delta.h"

namespace counterattack::cli {

// ---------------------------------------------------------------------------
// LiveGame
// ---------------------------------------------------------------------------

bool LiveGame::subscribe(std::string* error) {
  wire::ClientMessage m;
  m.mutable_watch()->set_game_id(id_);
  m.mutable_watch()->set_from_version(has_view_ ? version_ : 0);
  resync_ = false;
  std::string why;
  auto reply = s_.call(m, &why);
  if (!reply && has_view_ && s_.last_error() == wire::BAD_REQUEST && why.find("ahead of the game") != std::string::npos) {
    // The game is behind what was seen: a server put back to a backup. Its view as it now is.
    add_notice("The game is back at an earlier version than this client had seen (the server was restored from a "
                       "backup); shown as it now is.");
    has_view_ = false;
    m.mutable_watch()->set_from_version(0);
    reply = s_.call(m, &why);
  }
  if (!reply) {
    if (error) *error = why;
    return false;
  }
  handle(*reply);
  // The full view may follow the acknowledgement as a pushed message, or come
  // first, as the answer, with the game's summary (its clocks) just behind it.
  if (!has_view_ || !summary_) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((!has_view_ || !summary_) && std::chrono::steady_clock::now() < until) {
      auto push = s_.conn().next_push(std::chrono::milliseconds(200));
      if (push)
        handle(*push);
      else if (!s_.conn().is_open())
        break;
    }
    if (!has_view_) {
      if (error) *error = "The server sent no view of game " + id_ + ".";
      return false;
    }
  }
  return true;
}

void LiveGame::show_over() {
  if (!has_view_ || over_result_.empty()) return;
  if (view_.decision().kind() == game::Decision::GAME_OVER && !over_shown_) return;  // the rules ended it: their words
  over_shown_ = true;
  view_.mutable_decision()->Clear();
  view_.mutable_decision()->set_kind(game::Decision::GAME_OVER);
  view_.mutable_header()->set_result(over_result_);
  view_.mutable_header()->set_result_reason(over_reason_);
}

bool LiveGame::handle(const wire::ServerMessage& m) {
  switch (m.body_case()) {
    case wire::ServerMessage::kSnapshot: {
      if (!m.snapshot().game_id().empty() && m.snapshot().game_id() != id_) return false;
      std::vector<game::Event> log(m.snapshot().recent_events().begin(), m.snapshot().recent_events().end());
      // Again after a reconnect, or after a stream that broke off: what was shown
      // already is not shown twice (the first snapshot finds nothing shown).
      shown_events_ = events_already_shown(log_, shown_events_, log);
      view_ = m.snapshot().view();
      version_ = m.snapshot().version();
      has_view_ = true;
      restarted_ = true;
      own_draw_ = wire::ServerMessage::BODY_NOT_SET;  // an answer not yet come was lost with the stream
      log_ = std::move(log);
      show_over();
      if (m.snapshot().unfollowed())
        add_notice("The server is busy with other finished games: this one is shown as it is, and "
                           "new chat in it will not appear here.");
      return true;
    }
    case wire::ServerMessage::kDelta: {
      const auto& d = m.delta().delta();
      if (!m.delta().game_id().empty() && m.delta().game_id() != id_) return false;
      if (!has_view_) return false;
      if (d.to_version() <= version_) return false;  // seen already
      if (d.from_version() != version_) {
        resync_ = true;  // a gap: ask for what was missed
        return false;
      }
      if (!apply_delta(view_, d)) {
        has_view_ = false;  // does not fit: start again from a full view
        resync_ = true;
        return false;
      }
      version_ = d.to_version();
      log_.insert(log_.end(), d.events().begin(), d.events().end());
      return true;
    }
    case wire::ServerMessage::kGame: {
      if (m.game().game_id() != id_) return false;
      // Its creator watches it from the start, so no turn notice tells them it began.
      if (summary_ && summary_->status() == "open" && m.game().status() == "playing") {
        const auto& g = m.game();
        const std::string& opponent = g.your_side() == "soviet" ? g.german() : g.soviet();
        if (!g.your_side().empty() && !opponent.empty())
          add_notice(opponent + " joined game " + id_ + ": it has started, you play " +
                             g.your_side() + ".");
      }
      const bool offer_changed = !summary_ || summary_->draw_offered_by() != m.game().draw_offered_by();
      summary_ = m.game();
      if (summary_->status() == "finished" && over_result_.empty()) {
        over_result_ = summary_->result();
        over_reason_ = summary_->result_reason();  // why, for a player who was away when it ended
        show_over();
        return true;
      }
      // Redrawn when the time shown or a draw offer changed.
      return offer_changed || summary_->clock_seconds() > 0 || summary_->move_seconds() > 0;
    }
    case wire::ServerMessage::kChallengeWithdrawn: {
      // Its end, told first (a server that sent them the other way round), said it already.
      if (m.challenge_withdrawn().game_id() != id_ || ended_) return false;
      withdrawn_ = ended_ = true;
      over_result_ = "Cancelled";
      over_reason_ = challenge_withdrawn_notice(m.challenge_withdrawn());
      show_over();
      return true;
    }
    case wire::ServerMessage::kGameEnded: {
      if (m.game_ended().game_id() != id_) return false;
      if (withdrawn_) return false;  // told as its withdrawal
      ended_ = true;
      over_result_ = m.game_ended().result();
      over_reason_ = m.game_ended().reason();
      show_over();
      // One line: the end, then what it adds to an end a view shows already (the ratings, the dice seed).
      const std::string end = "The game is over. " + result_with_reason(m.game_ended().result(), m.game_ended().reason());
      std::string adds = rating_changes_text(m.game_ended());
      if (!m.game_ended().seed_hex().empty())
        adds = (adds.empty() ? "" : end_sentence(adds) + " ") + "Dice seed: " + m.game_ended().seed_hex() + " (`" +
               (in_shell_ ? "verify" : "counterattack verify " + id_) + "` checks every die).";
      notices_.push_back({adds.empty() ? end : end_sentence(end) + " " + adds, true, Notice::Kind::end, adds});
      return true;
    }
    case wire::ServerMessage::kChat: {
      const auto& c = m.chat();
      if (c.game_id() != id_) return false;
      add_notice("[" +
                         std::string(c.channel() == wire::SPECTATORS ? "spectators" : "chat") +
                         "] " + c.from() + ": " + c.text());
      return false;
    }
    case wire::ServerMessage::kDrawOffered:
      if (m.draw_offered().game_id() != id_) return false;
      take_own_draw(wire::ServerMessage::kDrawDeclined);  // a new offer: any decline of this client's is behind it
      // The player's own offer is not one to answer: the command that made it here said so; one
      // made from another client of the player is told once.
      if (const std::string me = my_name(); !me.empty() && m.draw_offered().by() == me) {
        if (!take_own_draw(wire::ServerMessage::kDrawOffered)) add_notice("You offered a draw (from another client).");
        return false;
      }
      notices_.push_back({m.draw_offered().by() + " offers a draw.", true, Notice::Kind::draw_offer});
      return false;
    case wire::ServerMessage::kYourTurn:  // another game of yours: this one streams its own deltas
      // One sent before this game was watched (a rematch just accepted) tells nothing new.
      if (m.your_turn().game_id() == id_) return false;
      notices_.push_back({describe_turn(m.your_turn()), false, Notice::Kind::plain, {}, m.your_turn().game_id()});
      return false;
    case wire::ServerMessage::kDrawDeclined: {
      if (m.draw_declined().game_id() != id_) return false;
      // Declined here: the command that declined it said so. One from another client of this
      // player (a one-shot `draw GAME decline`, another shell) is told.
      const std::string me = my_name();
      if (!m.draw_declined().played_on() && !me.empty() && m.draw_declined().by() == me &&
          take_own_draw(wire::ServerMessage::kDrawDeclined))
        return false;
      add_notice(m.draw_declined().played_on() ? m.draw_declined().by() + " played on: the draw offer lapsed."
                                                       : m.draw_declined().by() + " declines the draw.");
      return false;
    }
    case wire::ServerMessage::kError:
      add_notice("Server: " + describe_error(m.error()), m.error().game_id() == id_);
      if (!m.error().game_id().empty() && m.error().game_id() == id_) {
        has_view_ = false;  // the stream of this game ended: start again from a full view
        resync_ = true;
      }
      return false;
    default:
      return false;
  }
}

bool reconnect_session(Session& s, const std::function<void(const std::string&)>& say, int max_seconds,
                       const std::function<bool(std::string*)>& then) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(max_seconds);
  int wait_ms = 250;
  while (std::chrono::steady_clock::now() < until) {
    std::string why;
    // Not logged in: a spectator of a public game, who needs no session.
    if (s.connect_as_known(&why)) {
      if (!then || then(&why)) return true;
      s.disconnect();  // logged in already: the next try resumes on a connection of its own
    }
    if (s.session_ended()) {
      say(why);
      return false;  // retrying will not help
    }
    say("Reconnecting (" + why + ")...");
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    wait_ms = std::min(wait_ms * 2, 5000);
  }
  return false;
}

bool LiveGame::reconnect(const std::function<void(const std::string&)>& say, int max_seconds) {
  if (!reconnect_session(s_, say, max_seconds, [this](std::string* why) { return subscribe(why); })) return false;
  say("Reconnected; at version " + std::to_string(version_) + ".");
  return true;
}

std::vector<game::Event> LiveGame::whole_log(std::ptrdiff_t* new_from, std::vector<std::int64_t>* versions,
                                             std::vector<std::int64_t>* times) {
  if (new_from) *new_from = -1;
  if (versions) versions->clear();
  if (times) times->clear();
  wire::ClientMessage m;
  m.mutable_get_log()->set_game_id(id_);
  m.mutable_get_log()->set_as_seen(true);
  auto reply = s_.call(m, nullptr);
  // One behind the view would lack its latest events: the recent ones are the truer then.
  if (!reply || !reply->has_game_log() || reply->game_log().version() < version_) return log_;
  const auto& gl = reply->game_log();
  // A seated player's: the first event after the version they had seen (a server
  // that sends no versions: none marked).
  if (new_from && summary_ && !summary_->your_side().empty() && gl.event_versions_size() == gl.events_size()) {
    for (int i = 0; i < gl.events_size(); ++i) {
      if (gl.event_versions(i) > gl.seen_version()) {
        *new_from = i;
        break;
      }
    }
  }
  // A server from before the times sends none: the log is shown without them.
  if (gl.event_versions_size() == gl.events_size() && gl.event_times_unix_size() == gl.events_size()) {
    if (versions) versions->assign(gl.event_versions().begin(), gl.event_versions().end());
    if (times) times->assign(gl.event_times_unix().begin(), gl.event_times_unix().end());
  }
  return {gl.events().begin(), gl.events().end()};
}

std::vector<LiveGame::Notice> LiveGame::take_notices() {
  auto n = std::move(notices_);
  notices_.clear();
  return n;
}

// How many of a new snapshot's recent events were shown before. Events carry no
// version, so the last ones shown are found in it by content, latest first.
std::size_t events_already_shown(const std::vector<game::Event>& before, std::size_t shown_before,
                                 const std::vector<game::Event>& log) {
  const std::size_t shown = std::min(shown_before, before.size());
  if (shown == 0) return 0;
  auto same = [](const game::Event& a, const game::Event& b) { return a.SerializeAsString() == b.SerializeAsString(); };
  for (std::size_t end = log.size(); end > 0; --end) {
    const std::size_t need = std::min({end, shown, std::size_t{8}});
    std::size_t run = 0;
    while (run < need && same(log[end - 1 - run], before[shown - 1 - run])) ++run;
    if (run == need) return end;
  }
  return 0;  // all it holds came after what was shown
}

std::vector<game::Event> LiveGame::take_new_events() {
  std::vector<game::Event> out(
      log_.begin() + static_cast<long>(std::min(shown_events_, log_.size())), log_.end());
  shown_events_ = log_.size();
  return out;
}

OrderOutcome submit_order(Session& s, const std::string& game_id, const game::Order& order,
                          const std::string& key) {
  OrderOutcome out;
  wire::ClientMessage m;
  auto* so = m.mutable_submit_order();
  so->set_game_id(game_id);
  so->set_idempotency_key(key);
  *so->mutable_order() = order;
  if (!s.connected()) return out;
  auto reply = s.conn().request(m, std::chrono::seconds(15));
  if (!reply) return out;
  out.answered = true;
  if (reply->has_order_accepted()) {
    out.accepted = true;
    out.version = reply->order_accepted().version();
    out.answered_to = reply->order_accepted().answered_to_version();
  } else if (reply->has_order_rejected()) {
    out.code = game::RejectCode_Name(reply->order_rejected().rejection().code());
    out.by_rules = true;
    out.reason = reply->order_rejected().rejection().reason();
  } else if (reply->has_error()) {
    out.code = wire::ErrorCode_Name(reply->error().code());
    out.reason = reply->error().message();
  } else {
    out.code = "UNEXPECTED";
    out.reason = "The server answered the order with something else.";
  }
  return out;
}

std::vector<VersionEvents> order_events(Session& s, const std::string& game_id, std::int64_t version) {
  std::vector<VersionEvents> out;
  wire::ClientMessage m;
  m.mutable_watch()->set_game_id(game_id);
  m.mutable_watch()->set_from_version(version - 1);
  // The missed deltas come before the answer; a snapshot answers instead when they were not kept.
  if (auto reply = s.call(m, nullptr); reply && !reply->has_snapshot()) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (std::chrono::steady_clock::now() < until) {
      // Once the order's own delta is in, the rest of the catch-up is already queued.
      const auto wait = out.empty() ? std::chrono::milliseconds(200) : std::chrono::milliseconds(20);
      auto push = s.conn().next_push(wait);
      if (!push) {
        if (!out.empty() || !s.conn().is_open()) break;
        continue;
      }
      if (push->has_snapshot() && push->snapshot().game_id() == game_id) break;
      if (!push->has_delta() || push->delta().game_id() != game_id) continue;
      const auto& d = push->delta().delta();
      if (d.to_version() < version || (out.empty() && d.from_version() != version - 1)) continue;
      out.push_back({d.to_version(), {d.events().begin(), d.events().end()}});
    }
    if (!out.empty()) return out;
  }
  wire::ClientMessage log;
  log.mutable_get_log()->set_game_id(game_id);
  log.mutable_get_log()->set_as_seen(true);
  const auto reply = s.call(log, nullptr);
  if (!reply || !reply->has_game_log()) return out;
  const auto& gl = reply->game_log();
  if (gl.event_versions_size() != gl.events_size()) return out;  // a server that does not say which order made them
  for (int i = 0; i < gl.events_size(); ++i) {
    const std::int64_t v = gl.event_versions(i);
    if (v < version) continue;
    if (out.empty() || out.back().version != v) out.push_back({v, {}});
    out.back().events.push_back(gl.events(i));
  }
  return out;
}

// ---------------------------------------------------------------------------
// watch
// ---------------------------------------------------------------------------

namespace {

std::string clear_screen(bool colour) {
  return colour ? "\033[H\033[2J" : "\n";
}

void say_err(const std::string& s) {
  std::cerr << s << std::endl;
}

// Whether a notice of kind `kind` is the end of the game the view `v` shows over: then only what it adds is told.
bool is_end_notice(const game::View& v, LiveGame::Notice::Kind kind) {
  return kind == LiveGame::Notice::Kind::end && v.decision().kind() == game::Decision::GAME_OVER;
}

}  // namespace

std::string time_line(const LiveGame& g, std::int64_t now_unix) {
  if (!g.summary() || g.summary()->status() != "playing" || g.ended()) return "";
  const std::string clock = describe_clock(*g.summary(), now_unix);
  return clock.empty() ? "" : "Time: " + clock + "\n";
}

std::string opening_line(const LiveGame& g) {
  const auto& sm = g.summary();
  if (!sm || sm->status() != "open") return "";
  if (const std::string& kept = sm->reserved_for(); !kept.empty()) {
    // A challenge or a rematch offer: its reader may be the one it waits for.
    if (sm->your_side().empty() && kept == g.reader()) {
      const std::string maker = sm->soviet().empty() ? sm->german() : sm->soviet();
      return "Not started: " + maker +
             (sm->rematch_of().empty() ? " challenges you to this game" : " offers you this rematch of game " + sm->rematch_of()) +
             ". `join " + sm->game_id() + "` accepts it.\n";
    }
    return "Not started: the game is kept for " + kept + ", and takes orders once they join it.\n";
  }
  return "Not started: the game waits for a second player to join it, and takes orders once one has.\n";
}

std::string draw_offer_line(const LiveGame& g) {
  if (!g.summary() || g.summary()->status() != "playing" || g.ended()) return "";
  const auto& s = *g.summary();
  if (s.draw_offered_by() != game::SOVIET && s.draw_offered_by() != game::GERMAN) return "";
  const bool by_soviet = s.draw_offered_by() == game::SOVIET;
  const std::string by = by_soviet ? s.soviet() : s.german();
  const std::string to = by_soviet ? s.german() : s.soviet();
  if (s.your_side() == (by_soviet ? "soviet" : "german")) return "You offered a draw; it waits for " + to + "'s answer.\n";
  if (s.your_side().empty()) return by + " offers a draw.\n";
  return by + " offers a draw: accept or decline it (an order you send declines it too).\n";
}

std::string game_lines(const LiveGame& g) { return opening_line(g) + draw_offer_line(g) + standing_line(g); }

std::string standing_line(const LiveGame& g) {
  if (!g.summary() || g.summary()->status() == "finished" || g.ended()) return "";
  const std::string set = standing_words(g.summary()->standing_orders());
  return set.empty() ? "" : "Standing orders: " + set + " (answered for you at once; `standing` to change)\n";
}

std::optional<Audit> audit_finished(Session& s, const std::shared_ptr<const Scenario>& sc, const std::string& game_id,
                                    const std::string& commitment, std::string* why) {
  wire::ClientMessage m;
  m.mutable_get_log()->set_game_id(game_id);
  // As the server sent it: the audit compares it byte for byte, and prints what differs escaped.
  auto reply = s.call(m, why, std::chrono::seconds(60), Connection::Text::as_sent);
  if (!reply) return std::nullopt;
  if (!reply->has_game_log()) {
    *why = "The server sent no log.";
    return std::nullopt;
  }
  return audit_game(sc, reply->game_log(), commitment);
}

game::Side player_side(const LiveGame& g) {
  if (const game::Side s = viewer_side(g.view()); s != game::SIDE_UNSPECIFIED) return s;
  const std::string mine = g.summary() ? g.summary()->your_side() : "";
  return mine == "soviet" ? game::SOVIET : mine == "german" ? game::GERMAN : game::SIDE_UNSPECIFIED;
}

game::ViewerKind log_reader(const LiveGame& g) {
  const game::Side s = player_side(g);
  return s == game::SOVIET ? game::VIEWER_SOVIET : s == game::GERMAN ? game::VIEWER_GERMAN : game::VIEWER_SPECTATOR;
}

std::string retime(const std::string& shown, const std::string& now) {
  if (shown.empty() || now.empty() || shown == now) return "";
  return "\033[1A\r\033[2K" + now;  // up a line, to its start, cleared
}

int run_watch(Session& s, const Scenario& sc, const std::string& game_id, const RenderOptions& ro,
              bool json) {
  std::string why;
  // Anyone may watch a public game: without an account, without a session.
  if (!s.connect_as_known(&why)) {
    say_err(why);
    return kFailed;
  }
  LiveGame g(s, game_id);
  if (!g.subscribe(&why)) {
    say_err(why);
    return kFailed;
  }
  // The running clock ticks on a terminal: its line, while it is the last printed, is rewritten.
  const bool ticks = !json && ro.colour && ::isatty(STDOUT_FILENO);
  std::string shown_time, shown_screen;
  auto draw = [&] {
    if (json) return;
    // The same screen is not drawn twice: an end comes as a summary and as GameEnded.
    RenderOptions read = ro;
    read.reader = log_reader(g);
    const std::string screen = render_screen(sc, g.view(), g.log(), read) + game_lines(g);
    const std::string now = time_line(g);
    if (screen == shown_screen && now == shown_time) return;
    shown_screen = screen;
    shown_time = now;
    std::cout << clear_screen(ro.colour) << screen << shown_time << std::flush;
  };
  auto notices = [&] {
    for (const auto& notice : g.take_notices()) {
      // The end the screen shows already: only what it adds (ratings, the dice seed).
      const bool end_shown = !json && is_end_notice(g.view(), notice.kind);
      const std::string& n = end_shown ? notice.adds : notice.text;
      if (end_shown && n.empty()) continue;
      shown_time.clear();
      if (json)
        std::cerr << n << std::endl;
      else
        std::cout << n << std::endl;
    }
  };
  if (json) {
    wire::ServerMessage first;
    first.mutable_snapshot()->set_game_id(game_id);
    first.mutable_snapshot()->set_version(g.version());
    *first.mutable_snapshot()->mutable_view() = g.view();
    std::cout << to_json(first) << std::endl;
  }
  draw();
  notices();  // the chat kept while the reader was away came with the view
  while (!g.ended()) {
    auto m = s.conn().next_push(std::chrono::milliseconds(500));
    if (m) {
      if (json) std::cout << to_json(*m) << std::endl;
      if (g.handle(*m)) draw();
      notices();
      if (g.needs_resync() && !g.subscribe(&why)) {
        say_err(why);
        shown_time.clear();
      }
      continue;
    }
    if (ticks) {
      const std::string now = time_line(g);
      if (const auto rewrite = retime(shown_time, now); !rewrite.empty()) {
        std::cout << rewrite << std::flush;
        shown_time = now;
      }
    }
    if (!s.conn().is_open()) {
      say_err("Lost the connection: " + s.conn().close_reason() + ". Reconnecting...");
      if (!g.reconnect(say_err, 600)) {
        say_err("Could not reconnect; giving up.");
        return kFailed;
      }
      if (json) {
        std::cerr << "resumed at version " << g.version() << std::endl;
      }
      draw();
    }
  }
  // The last delta may come just after the end of the game is announced.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < until) {
    auto m = s.conn().next_push(std::chrono::milliseconds(300));
    if (!m) {
      if (g.view().decision().kind() == game::Decision::GAME_OVER) break;
      continue;
    }
    if (json) std::cout << to_json(*m) << std::endl;
    g.handle(*m);
  }
  draw();
  notices();
  if (json) {
    std::cout << "{\"final_version\":" << g.version() << ",\"final_view\":" << to_json(g.view())
              << "}" << std::endl;
  }
  return kOk;
}

// ---------------------------------------------------------------------------
// The interactive shell
// ---------------------------------------------------------------------------

namespace {

const std::vector<std::string>& shell_words() {
  static const std::vector<std::string> w = {
      "help",     "show", "map",   "at",   "full", "stack", "log",    "hand",    "units", "unit", "chart",
      "decision", "chat", "mute", "unmute", "muted", "report", "games", "open", "join", "new",   "decline", "rematch", "resign", "draw", "standing", "email", "vacation", "tournament", "rating", "ratings", "refresh", "replay", "verify", "quit"};
  return w;
}

class Shell;
Shell* g_shell = nullptr;  // libedit's callbacks are plain functions

class Shell {
 public:
  Shell(Session& s, const Scenario& sc, RenderOptions ro)
      : s_(s), sc_(sc), ro_(ro), tty_(::isatty(STDIN_FILENO)) {}

  int run(const std::string& game_id) {
    std::string why;
    s_.follow_turns(true);  // the shell tells of turns in the player's other games
    if (!s_.connect_and_resume(&why)) {
      say_err(why);
      return kFailed;
    }
    notice("Connected to " + s_.url() + " as " + s_.user() +
        ". Type help for the commands, quit to leave.");
    if (!game_id.empty()) {
      // Not on a terminal (a script), a game that cannot be opened fails the command, as the
      // one-shot commands fail: the lines that follow would be orders for no game.
      std::string failed;
      if (!open_game(game_id, tty_ ? nullptr : &failed)) {
        if (!tty_) {
          std::cerr << failed << std::endl;  // as a one-shot command says it
          return kFailed;
        }
      }
    } else {
      list_games();
    }
    if (tty_) {
      g_shell = this;
      rl_readline_name = "counterattack";
      rl_attempted_completion_function = &Shell::complete;
      history_path_ = Config::dir() + "/history";
      using_history();
      read_history(history_path_.c_str());
      rl_callback_handler_install(prompt().c_str(), &Shell::on_line);
      rl_bind_key('\t', rl_complete);
    }
    while (running_) {
      pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0},
                       {s_.connected() ? s_.conn().notify_fd() : -1, POLLIN, 0}};
      const int n = ::poll(fds, 2, 1000);
      if (n < 0 && errno != EINTR) break;
      if (fds[1].revents & POLLIN) {
        s_.conn().drain_notify();
        pump();
      }
      if (fds[0].revents & (POLLIN | POLLHUP)) {
        if (tty_) {
          rl_callback_read_char();
          if (line_taken_ && running_) {
            // The editor keeps a taken line on show until the next key: started afresh,
            // so that later output and the clock's ticks redraw an empty line.
            line_taken_ = false;
            rl_callback_handler_remove();
            rl_callback_handler_install(prompt().c_str(), &Shell::on_line);
          }
        } else
          read_lines();
      }
      if (!s_.connected()) {
        pump();
        recover_connection();
      }
      tick_clock();
    }
    if (tty_) {
      rl_callback_handler_remove();
      write_history(history_path_.c_str());
      g_shell = nullptr;
      std::cout << std::endl;
    }
    return kOk;
  }

 private:
  // --- output that keeps the input line intact ---
  // What is said: a command's output, or a notice.
  enum class Said { output, notice };
  struct Held {
    std::string text;
    Said kind;
    std::string game;  // a notice's game ("": of none, as another game's turn or the connection)
    LiveGame::Notice::Kind notice_kind = LiveGame::Notice::Kind::plain;
    std::string adds = {};  // of the open game's end: what it adds to the end drawn (see LiveGame::Notice)
    std::string about = {};  // the game it tells of, if any: opened, joined or its offer answered, it is out of date
    int times = 1;           // in the notice area: how many times the same notice came
    std::string about_too = {};  // a rematch offer's new game: opened or joined, it answers the offer too
  };

  // A command's output; on a terminal kept, for a redraw the opponent brings to repaint.
  void out(const std::string& text) {
    if (hold_) {
      held_.push_back({text, Said::output, {}});
      return;
    }
    print(text);
    if (tty_) last_output_ += text.empty() || text.back() == '\n' ? text : text + "\n";
  }
  // A notice (chat, a draw offer, another game's turn, the connection...); on a terminal
  // kept in the notice area that each redraw repaints under the game.
  void notice(const std::string& text, const std::string& game = {}) { notice(Held{text, Said::notice, game}); }
  // A notice of no game open that tells of game `about` (another game's turn, a challenge...).
  // `about_too`: a second game it tells of (a rematch offer's new game).
  void notice_about(const std::string& text, const std::string& about, const std::string& about_too = {}) {
    notice(Held{text, Said::notice, {}, LiveGame::Notice::Kind::plain, {}, about, 1, about_too});
  }
  void notice(const Held& n) {
    if (hold_) {
      held_.push_back(n);
      return;
    }
    print(n.text);
    remember(n);
  }
  void remember(Held n) {
    if (!tty_ || n.text.empty()) return;
    // The same notice again at once (a retried reconnection) is kept once, with how often it came;
    // an older one stays where it is, so a conversation keeps its order.
    n.kind = Said::notice;
    n.times = 1;
    if (!notices_.empty() && notices_.back().text == n.text && notices_.back().game == n.game) {
      n.times += notices_.back().times;
      notices_.pop_back();
    }
    notices_.push_back(std::move(n));
    while (notices_.size() > kNoticeArea) notices_.pop_front();
  }
  // Game `id` opened, joined, or its offer answered here: the notices that tell of it (its turn, its
  // offer) are out of date.
  void drop_notices_about(const std::string& id) {
    if (id.empty()) return;
    drop_notices_if([&](const Held& n) { return n.about == id || n.about_too == id; });
  }
  // The draw offered in game `id` answered (here, elsewhere, or by the game's end): its notice is out of date.
  void drop_draw_offer_notices(const std::string& id) {
    drop_notices_if([&](const Held& n) { return n.notice_kind == LiveGame::Notice::Kind::draw_offer && n.game == id; });
  }
  void drop_notices_if(const std::function<bool(const Held&)>& out_of_date) {
    std::erase_if(notices_, out_of_date);
    // Off a terminal each notice is printed once, in order, however soon it is out of date.
    if (tty_) std::erase_if(held_, [&](const Held& n) { return n.kind == Said::notice && out_of_date(n); });
  }
  // A game opened or watched from its start again (its kept chat comes again), or a replay
  // started: the area starts afresh, but for the notices of no game and the last `keep_last`.
  void forget_game_notices(std::size_t keep_last = 0) {
    const auto end = notices_.end() - static_cast<std::ptrdiff_t>(std::min(keep_last, notices_.size()));
    notices_.erase(std::remove_if(notices_.begin(), end, [](const Held& n) { return !n.game.empty(); }), end);
    std::erase_if(held_, [](const Held& n) { return n.kind == Said::notice && !n.game.empty(); });
  }
  // A full view of the open game came (watched from its start: opened, `refresh`, or again on
  // reconnecting): its kept chat comes again with it, so the game's older notices go, but the last `keep_last`.
  void forget_if_restarted(std::size_t keep_last = 0) {
    if (game_->take_restarted()) forget_game_notices(keep_last);
  }
  // The open game's notices, each of its game or of none (another game's turn); told, or
  // only said (while messages are handled). After a full view its kept chat comes again.
  void take_game_notices(bool told) {
    forget_if_restarted();
    for (auto& n : game_->take_notices()) {
      Held h{std::move(n.text), Said::notice, n.of_this_game ? game_->id() : "", n.kind, std::move(n.adds), std::move(n.about)};
      if (told)
        tell(h);
      else
        notice(h);
    }
  }
  // Reconnects the open game: what it says is of the game. Its kept chat comes again with a
  // full view: the game's older notices go, each line shown once.
  bool reconnect_game(int max_seconds) {
    std::size_t said = 0;  // the area's entries it takes: the same line again at once is one
    std::string last;
    const std::string id = game_->id();
    const bool ok = game_->reconnect(
        [&](const std::string& t) {
          notice(t, id);
          if (t != last) ++said;
          last = t;
        },
        max_seconds);
    forget_if_restarted(said);
    return ok;
  }

  void print(const std::string& text) {
    if (tty_ && g_shell) {
      std::cout << "\r\033[K" << text;
      if (!text.empty() && text.back() != '\n') std::cout << "\n";
      std::cout << std::flush;
      if (!in_line_) rl_forced_update_display();
    } else {
      std::cout << text;
      if (!text.empty() && text.back() != '\n') std::cout << "\n";
      std::cout << std::flush;
    }
  }
  void say_err(const std::string& text) { out(text); }

  // A notice: of the open game's end, when shown already, only what it adds (the ratings,
  // the dice seed), so that the end is told once; the area keeps only that, as the redraw shows the end.
  void tell(const Held& n) {
    if (!game_ || !is_end_notice(game_->view(), n.notice_kind)) return notice(n);
    const bool shown = end_shown_;
    end_shown_ = true;
    if (!shown) {
      print(n.text);
      remember(Held{n.adds, Said::notice, n.game});
    } else if (!n.adds.empty()) {
      notice(n.adds, n.game);
    }
  }
  // Of the notices held, how many the area gains once they are told under a redraw (of the
  // end shown, only what it adds).
  std::size_t told_count(const std::vector<Held>& said) const {
    return static_cast<std::size_t>(std::count_if(said.begin(), said.end(), [&](const Held& h) {
      if (h.kind == Said::output) return false;
      if (game_ && game_->has_view() && is_end_notice(game_->view(), h.notice_kind)) return !h.adds.empty();
      return !h.text.empty();
    }));
  }

  // The notice area as a redraw paints it: the last notices, oldest first, but room left
  // for `coming` more, told under it at once.
  std::string notice_area(std::size_t coming) const {
    std::string t;
    const std::size_t skip = notices_.size() - std::min(notices_.size(), kNoticeArea - std::min(coming, kNoticeArea));
    for (std::size_t i = skip; i < notices_.size(); ++i) {
      std::string line = notices_[i].text;
      if (!line.empty() && line.back() == '\n') line.pop_back();
      t += line + (notices_[i].times > 1 ? " (" + std::to_string(notices_[i].times) + " times)" : "") + "\n";
    }
    return t;
  }

  // The output of the last command, as a redraw brought by the opponent repaints it: whole when it
  // takes at most half the terminal's height, its long lines wrapped as the terminal wraps them (the
  // bottom of the game and the notices stay in sight), else a line that names the command that shows it.
  std::string kept_output() const {
    if (last_output_.empty()) return "";
    winsize ws{};
    const bool known = ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0;
    const std::size_t room = known && ws.ws_row > 0 ? ws.ws_row / 2u : kKeptOutputLines;
    if (terminal_rows(last_output_, known ? ws.ws_col : 0) <= room) return last_output_;
    // Only a command that shows the same again is named: typed twice, an order would be sent twice.
    if (!last_reads_) return "(The output of your last command was cleared by the redraw.)\n";
    const std::string cmd = shown(last_command_);  // as typed, but no control reaches the terminal
    return "(The output of `" + cmd + "` was cleared by the redraw: `" + cmd + "` shows it again.)\n";
  }

  std::string prompt() const {
    if (replay_) return replay_prompt(*replay_, cursor_);
    if (!game_ || !game_->has_view()) return "counterattack> ";
    const auto& v = game_->view();
    const auto& h = v.header();
    std::string p = game_->id() + " T" + std::to_string(h.turn()) + " " + h.phase();
    if (!h.step().empty()) p += "/" + h.step();
    if (v.decision().kind() == game::Decision::GAME_OVER)
      p += " (over)";
    else if (v.decision().side() == viewer_side(v))
      p += " (you)";
    if (const auto& g = game_->summary(); g && g->clock_seconds() > 0 && !game_->ended()) {
      // The game clock, the running side's marked; it ticks with the prompt.
      const auto left = clock_left(*g);
      p += " [S " + clock_face(left.soviet) + (left.soviet_runs ? "*" : "") + " G " + clock_face(left.german) +
           (left.german_runs ? "*" : "") + "]";
    }
    return p + "> ";
  }
  void update_prompt() {
    if (tty_ && g_shell) rl_set_prompt(prompt().c_str());
  }

  // A running game clock shown in the prompt is redrawn as its seconds pass.
  void tick_clock() {
    if (!tty_ || !g_shell || !game_ || !game_->summary() || game_->summary()->clock_seconds() == 0) return;
    const std::string p = prompt();
    if (p == shown_prompt_) return;
    shown_prompt_ = p;
    // Rewritten as out() does, prompt and typed text together: the library's own
    // redisplay appends a second prompt on some terminals.
    std::cout << "\r\033[K" << std::flush;
    rl_set_prompt(p.c_str());
    rl_forced_update_display();
  }

  // The open game drawn; on a terminal the notice area under it, and, when the opponent's
  // changes bring the redraw (`incoming`), the last command's output under that. `coming`:
  // the notices about to be told under the redraw (then the caller shows the output after them).
  void draw(bool incoming = false, std::size_t coming = 0) {
    if (!game_ || !game_->has_view()) return;
    RenderOptions ro = ro_;
    ro.center_hex = center_;
    ro.full = full_;
    ro.reader = log_reader(*game_);
    game_->take_new_events();
    const std::string screen = render_screen(sc_, game_->view(), game_->log(), ro) + game_lines(*game_) + time_line(*game_);
    if (tty_) {
      std::string drawn = screen;
      if (!drawn.empty() && drawn.back() != '\n') drawn += "\n";
      drawn += notice_area(coming);
      if (!incoming) last_output_.clear();  // what the player asked for is this
      print(clear_screen(ro.colour) + drawn + (coming == 0 ? kept_output() : ""));
    } else {
      print(screen);
    }
    last_decision_ = game_->view().decision().SerializeAsString();
    end_shown_ = game_->view().decision().kind() == game::Decision::GAME_OVER;
  }

  // What changed, in a few lines (for scripts reading standard output); `said`,
  // the notices to follow them.
  void report_changes(const std::vector<Held>& said) {
    if (!game_ || !game_->has_view()) return;
    for (const auto& e : game_->take_new_events()) out("  " + e.text());
    const std::string d = game_->view().decision().SerializeAsString();
    if (d != last_decision_) {
      last_decision_ = d;
      const auto& v = game_->view();
      // The end's notice to follow says it all: the end, the ratings, the dice seed.
      if (std::any_of(said.begin(), said.end(), [&](const Held& h) { return is_end_notice(v, h.notice_kind); })) return;
      out(render_decision(v, ro_));
      end_shown_ = v.decision().kind() == game::Decision::GAME_OVER;
    }
  }

  void changed(const std::vector<Held>& said = {}) {
    update_prompt();
    if (replay_) return;  // the open game is drawn again when the replay is left
    if (tty_) {
      draw(true, told_count(said));
    } else {
      report_changes(said);
    }
  }

  // Handles every message waiting. What it says is held until the changes are shown:
  // on a terminal the redraw clears the screen, which would take the notices with it.
  void pump() {
    const bool was_over = shows_over();
    bool any = false;
    {
      const Holding holding(hold_);
      any = handle_waiting();
      any = await_end(was_over) || any;
    }
    show_changes(any);
  }

  bool shows_over() const {
    return game_ && game_->has_view() && game_->view().decision().kind() == game::Decision::GAME_OVER;
  }
  // A game the rules just ended (it was not over before, `was_over`): its end's notice (the
  // ratings, the dice seed) comes just behind the last delta, and is waited for a moment so
  // that the end is told as one. True when the open game changed meanwhile.
  bool await_end(bool was_over) {
    if (was_over || !shows_over()) return false;
    return handle_until([this] { return !game_ || game_->end_heard(); }, 1);
  }

  // Handles the messages that come until `done` holds, for `seconds` at most; true when the open game changed.
  bool handle_until(const std::function<bool()>& done, int seconds) {
    bool any = false;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!done() && s_.connected() && std::chrono::steady_clock::now() < until) {
      pollfd fd = {s_.conn().notify_fd(), POLLIN, 0};
      if (::poll(&fd, 1, 100) > 0) s_.conn().drain_notify();
      any = handle_waiting() || any;
    }
    return any;
  }

  // Handles every message waiting; true when the open game changed. What it says is held
  // (callers hold it with Holding) until show_changes().
  bool handle_waiting() {
    bool any = false;
    // What came before a close is read too: a server that ends the session says why first.
    while (s_.has_connection()) {
      auto m = s_.conn().next_push(std::chrono::milliseconds(0));
      if (!m) break;
      if (game_ && game_->handle(*m)) any = true;
      if (!game_ && m->has_your_turn()) notice_about(describe_turn(m->your_turn()), m->your_turn().game_id());
      if (!game_ && m->has_error()) notice("Server: " + describe_error(m->error()));  // a suspension's words, say
      if (m->has_game_started()) notice_about(describe_start(m->game_started()), m->game_started().game_id());
      // A rematch offer is answered by the game it follows (`rematch GAME`), or the new game opened.
      if (m->has_rematch_offered()) {
        const auto& r = m->rematch_offered();
        notice_about(rematch_offer_notice(r), r.of_game_id(), r.game().game_id());
      }
      if (m->has_challenge_offered())
        notice_about(challenge_offer_notice(m->challenge_offered()), m->challenge_offered().game().game_id());
      if (m->has_challenge_withdrawn() && !(game_ && m->challenge_withdrawn().game_id() == game_->id())) {
        // The offer it withdraws, and what told of the game, are out of date.
        const auto& w = m->challenge_withdrawn();
        drop_notices_about(w.game_id());
        drop_notices_about(w.of_game_id());
        notice(challenge_withdrawn_notice(w));  // the open game's is shown as its end
      }
      if (m->has_tournament_started()) notice(tournament_start_notice(m->tournament_started(), s_.user()));
      if (m->has_tournament_finished()) notice(tournament_end_notice(m->tournament_finished()));
      if (m->has_tournament_cancelled()) notice(tournament_cancelled_notice(m->tournament_cancelled()));
      // The open game's draw offer answered: declined (here or elsewhere), or accepted (its end).
      if (game_ && m->has_draw_declined() && m->draw_declined().game_id() == game_->id()) drop_draw_offer_notices(game_->id());
      if (game_ && m->has_game_ended() && m->game_ended().game_id() == game_->id()) drop_draw_offer_notices(game_->id());
      if (m->has_game_ended() && !(game_ && m->game_ended().game_id() == game_->id())) {
        // Another game of yours, ended while you were elsewhere: what told of its turn is out of date.
        drop_notices_about(m->game_ended().game_id());
        notice(other_game_ended_notice(m->game_ended()));
      }
      if (game_) {
        take_game_notices(false);
        if (game_->needs_resync() && s_.connected()) {  // closed: the reconnection resumes it
          std::string why;
          if (!game_->subscribe(&why)) notice(why, game_->id());
          any = true;
        }
      }
    }
    return any;
  }

  // The changes handled (`any`: the open game's), then what was held to follow them.
  void show_changes(bool any) {
    const std::vector<Held> said = std::move(held_);
    held_.clear();
    // Under a redraw the new notices come first, then the last command's output, then what is new of it.
    const std::size_t coming = any && tty_ && !replay_ && game_ && game_->has_view() ? told_count(said) : 0;
    if (any) changed(said);
    if (coming > 0) {
      for (const auto& h : said) {
        if (h.kind == Said::notice) tell(h);
      }
      if (const auto kept = kept_output(); !kept.empty()) print(kept);
    }
    for (const auto& h : said) {
      if (h.kind == Said::output)
        out(h.text);
      else if (coming == 0)
        tell(h);
    }
  }

  void recover_connection() {
    notice("Lost the connection: " + s_.conn().close_reason() + ". Reconnecting...");
    if (game_) {
      if (!reconnect_game(600)) {
        notice("Could not reconnect; leaving.");
        running_ = false;
        return;
      }
      changed();
      take_game_notices(true);  // the kept chat, when a full view came
    } else if (reconnect_session(s_, [this](const std::string& t) { notice(t); }, 600)) {
      notice("Reconnected.");  // and following turns again, for the notices of every game
    } else {
      notice("Could not reconnect; leaving.");
      running_ = false;
    }
  }

  void read_lines() {
    char buf[4096];
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n <= 0) {
      if (!pending_.empty()) execute(pending_);
      running_ = false;
      return;
    }
    pending_.append(buf, static_cast<size_t>(n));
    for (size_t nl; running_ && (nl = pending_.find('\n')) != std::string::npos;) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      execute(line);
    }
  }

  static void on_line(char* line) {
    Shell* sh = g_shell;
    if (!line) {
      sh->running_ = false;
      return;
    }
    std::string text(line);
    std::free(line);
    if (!split_words(text).empty()) add_history(text.c_str());
    std::cout << std::flush;
    sh->in_line_ = true;  // the editor still holds the line taken: out() does not redraw it
    sh->execute(text);
    sh->in_line_ = false;
    sh->line_taken_ = true;
    if (sh->running_) sh->update_prompt();
  }

  // --- completion ---
  static char* generate(const char* text, int state) {
    static std::vector<std::string> matches;
    static size_t next = 0;
    if (state == 0) {
      matches.clear();
      next = 0;
      if (g_shell) {
        std::string lower_text(text);
        std::transform(lower_text.begin(), lower_text.end(), lower_text.begin(), ::tolower);
        for (const auto& w : g_shell->completion_words()) {
          std::string lw = w;
          std::transform(lw.begin(), lw.end(), lw.begin(), ::tolower);
          if (lw.rfind(lower_text, 0) == 0) matches.push_back(w);
        }
      }
    }
    if (next >= matches.size()) return nullptr;
    return strdup(matches[next++].c_str());
  }
  static char** complete(const char* text, int start, int) {
    if (g_shell)
      g_shell->completing_first_ =
          start == 0 ||
          split_words(std::string(rl_line_buffer, static_cast<size_t>(start))).empty();
    rl_attempted_completion_over = 1;
    return rl_completion_matches(text, &Shell::generate);
  }
  std::vector<std::string> completion_words() const {
    if (replay_) return replay_words();
    std::vector<std::string> w;
    if (completing_first_) {
      w = order_words();
      w.insert(w.end(), shell_words().begin(), shell_words().end());
      return w;
    }
    std::set<std::string> set;
    if (game_ && game_->has_view()) {
      const auto& v = game_->view();
      for (const auto& u : own_units(v)) set.insert(u);
      for (const auto& c : v.decision().candidates()) set.insert(c);
      for (const auto& st : v.stacks()) set.insert(st.location());
      for (const auto& h : v.hands()) {
        if (h.side() == viewer_side(v)) set.insert(h.chits().begin(), h.chits().end());
      }
      for (const auto& m : v.artillery()) set.insert(m.id());
      for (const auto& m : v.stukas()) set.insert(m.id());
      RenderOptions ro = ro_;
      ro.center_hex = center_;
      const Window win = map_window(sc_, v, ro);
      for (const auto& h : sc_.hexes) {
        if (win.contains(h.id)) set.insert(format_hex(h.id));
      }
    }
    for (const auto& f : sc_.formations) set.insert(f.id);
    for (const char* k : {"WARSAW", "with", "at", "corps", "elastic", "desperate", "+47", "reroll",
                          "reactivate", "noncontiguous", "division", "playing", "finished", "more", "player"})
      set.insert(k);
    return {set.begin(), set.end()};
  }

  // --- commands ---
  void execute(const std::string& line) {
    const auto w = split_words(line);
    if (replay_) return replay_line(w);
    if (w.empty()) return;
    last_command_ = line.substr(line.find_first_not_of(" \t"));
    last_command_.erase(last_command_.find_last_not_of(" \t") + 1);
    last_output_.clear();
    last_reads_ = false;
    std::string cmd = w[0];
    std::transform(cmd.begin(), cmd.end(), cmd.begin(), ::tolower);
    auto rest = [&](size_t from) {
      std::string r;
      for (size_t i = from; i < w.size(); ++i) r += (i > from ? " " : "") + w[i];
      return r;
    };
    if (cmd == "counterattack" || cmd == "order") return out(one_shot_in_shell(w));
    if (cmd == "quit" || cmd == "exit" || cmd == "q") {
      running_ = false;
    } else if (cmd == "help" || cmd == "h") {
      last_reads_ = true;
      help(w.size() > 1 ? w[1] : "");
    } else if (cmd == "show" || cmd == "map" || cmd == "at") {
      if (w.size() > 1) {
        const auto hex = parse_map_hex(sc_, w[1]);
        if (!hex) {
          out(w[1] + " is not a hex of the map.");
          return;
        }
        center_ = *hex;
      }
      full_ = false;
      if (need_game()) draw();
    } else if (cmd == "full") {
      full_ = true;
      if (need_game()) draw();
      full_ = false;
    } else if (cmd == "stack") {
      if (w.size() < 2) {
        out("stack HEX: what is at a location.");
        return;
      }
      last_reads_ = true;
      if (need_game()) stack(w[1]);
    } else if (cmd == "log") {
      if (!need_game()) return;
      RenderOptions ro = ro_;
      ro.log_lines = w.size() > 1 ? std::max(1, std::atoi(w[1].c_str())) : 0;
      ro.reader = log_reader(*game_);
      // The whole log, whose events carry their versions: the place the player last looked is marked.
      const auto events = game_->whole_log(&ro.new_from, &ro.event_versions, &ro.event_times);
      out(render_events(events, ro));
    } else if (cmd == "hand") {
      last_reads_ = true;
      if (need_game()) out(render_hands(sc_, game_->view(), ro_));
    } else if (cmd == "units") {
      last_reads_ = true;
      if (need_game()) units();
    } else if (cmd == "unit") {
      // The counter sheet is the scenario's: no game needs to be open.
      last_reads_ = true;
      if (w.size() < 2) return out("unit UNIT: a counter's values, e.g. unit 19Pz/I-27.");
      const auto card = render_unit_card(sc_, w[1]);
      out(card ? *card : "No unit '" + w[1] + "' in the scenario (`units` lists yours).");
    } else if (cmd == "chart") {
      last_reads_ = true;
      const auto chart = w.size() < 2 ? std::nullopt : render_chart(sc_, w[1]);
      out(chart ? *chart : (w.size() < 2 ? "" : "No chart '" + w[1] + "'.\n") + chart_list());
    } else if (cmd == "decision" || cmd == "?") {
      last_reads_ = true;
      if (need_game()) out(render_decision(game_->view(), ro_));
    } else if (cmd == "chat" || cmd == "say") {
      if (need_game()) chat(rest(1));
    } else if (cmd == "games" && w.size() > 1) {
      // `games more` moves the listing on: typed again, it shows the next page.
      last_reads_ = std::none_of(w.begin() + 1, w.end(), [](std::string x) {
        std::transform(x.begin(), x.end(), x.begin(), ::tolower);
        return x == "more";
      });
      list_open_games(std::vector<std::string>(w.begin() + 1, w.end()));
    } else if (cmd == "games") {
      last_reads_ = true;
      list_games();
    } else if (cmd == "play" && game_ && w.size() > 1 && chit_named(w[1], sc_)) {
      order(line);  // `play CHIT ...` is the order; `play GAME` opens a game
    } else if (cmd == "open" || cmd == "play" || cmd == "watch") {
      if (w.size() < 2)
        out(cmd + " GAME");
      else
        open_game(w[1]);
    } else if (cmd == "rematch") {
      const bool decline = !w.empty() && w.back() == "decline";
      const std::size_t words = w.size() - (decline ? 1 : 0);
      if ((words < 2 && !game_) || words > 2)
        out("rematch [GAME] [decline]");
      else
        rematch(words > 1 ? w[1] : game_->id(), decline);
    } else if (cmd == "decline") {
      if (w.size() != 2)
        out("decline GAME   (a challenge kept for you; `join GAME` accepts it)");
      else
        decline(w[1]);
    } else if (cmd == "join") {
      if (w.size() < 2)
        out("join GAME [INVITE]");
      else
        join(w[1], w.size() > 2 ? w[2] : "");
    } else if (cmd == "new") {
      create(w);
    } else if (cmd == "resign") {
      if (!need_game()) return;
      if (w.size() < 2 || w[1] != "yes")
        out("Type `resign yes` to resign game " + game_->id() + ".");
      else
        resign();
    } else if (cmd == "draw") {
      if (!need_game()) return;
      if (w.size() < 2 || (w[1] != "offer" && w[1] != "accept" && w[1] != "decline"))
        out("draw offer | draw accept | draw decline");
      else
        answer_draw(w[1]);
    } else if (cmd == "email") {
      std::string why;
      auto m = email_request({w.begin() + 1, w.end()}, &why);
      if (!m) return out(why);
      auto reply = s_.call(*m, &why);
      out(reply ? describe_account(reply->account(), m->has_set_turn_mail(), "", m->has_set_email()) : why);
    } else if (cmd == "standing") {
      if (!game_) return out("Open a game first: standing orders are a game's.");
      std::string why;
      if (w.size() == 1) {
        const auto set = my_standing_orders(s_, game_->id(), &why);
        return out(set ? describe_standing(*set) : why);
      }
      auto m = standing_request(game_->id(), {w.begin() + 1, w.end()}, &why);
      if (!m) return out(why);
      if (!s_.call(*m, &why)) return out(why);
      game_->note_standing(m->set_standing_orders().orders());
      out(describe_standing(m->set_standing_orders().orders()));
    } else if (cmd == "mute" || cmd == "unmute" || cmd == "muted" || cmd == "report") {
      last_reads_ = cmd == "muted";
      std::string why;
      auto m = chat_moderation_request(cmd, {w.begin() + 1, w.end()}, game_ ? game_->id() : "", &why);
      if (!m) return out(cmd == "report" && !game_ ? why + "   (--game GAME, or open the game first)" : why);
      auto reply = s_.call(*m, &why);
      if (!reply) return out(why);
      out(m->has_report_chat() ? reported_text(m->report_chat(), reply->chat_reported())
                               : describe_muted(*m, reply->muted_players()));
    } else if (cmd == "vacation") {
      std::string why;
      auto m = vacation_request({w.begin() + 1, w.end()}, &why);
      if (!m) return out(why);
      auto reply = s_.call(*m, &why);
      out(reply ? describe_vacation(reply->account().vacation()) : why);
    } else if (cmd == "tournament" || cmd == "tournaments") {
      std::string why;
      auto m = tournament_request({w.begin() + 1, w.end()}, &why);
      if (!m) return out(why);
      auto reply = s_.call(*m, &why);
      if (!reply) return out(why);
      if (m->has_withdraw_entrant() && reply->has_tournament()) {
        return out(removed_from_tournament_text(m->withdraw_entrant().player(), *reply));
      }
      if (m->has_leave_tournament()) return out(left_tournament_text(*reply, "", s_.user()));
      if (m->has_adjudicate_game() && reply->has_ok()) return out(adjudicated_text(m->adjudicate_game()));
      if (reply->has_tournament()) return out(describe_tournament(reply->tournament(), "", s_.user()));
      if (!reply->has_tournament_list()) return out("Done.");
      const std::string text = tournament_list_text(s_, reply->tournament_list());
      out(text.empty() ? "No tournaments: `tournament new NAME --players 4 --time 3d` creates one." : text);
    } else if (cmd == "rating" || cmd == "ratings") {
      last_reads_ = true;
      std::string why;
      const std::vector<std::string> words(w.begin() + 1, w.end());
      auto m = cmd == "rating" ? rating_request(words, &why) : ratings_request(words, &why);
      if (!m) return out(why);
      auto reply = s_.call(*m, &why);
      if (!reply) return out(why);
      if (reply->has_player_rating()) return out(describe_rating(reply->player_rating()));
      out(reply->has_rating_list() ? ratings_table(reply->rating_list()) : "The server answered with something other than ratings.");
    } else if (cmd == "replay") {
      if (w.size() != 2)
        out("replay GAME: step through a finished game.");
      else
        start_replay(w[1]);
    } else if (cmd == "verify") {
      last_reads_ = true;
      if (w.size() > 1 && !(game_ && w[1] == game_->id()))
        out("verify audits the game open: `open " + w[1] + "`, then `verify`.");
      else if (need_game())
        verify();
    } else if (cmd == "refresh") {
      if (need_game()) {
        std::string why;
        game_ = std::make_unique<LiveGame>(s_, game_->id(), true);
        if (!game_->subscribe(&why)) {
          out(why);
        } else {
          forget_if_restarted();  // watched from the start: the game's kept chat comes again
          draw();
          caught_up();
        }
      }
    } else {
      order(line);
    }
  }

  bool need_game() {
    if (game_ && game_->has_view()) return true;
    out("No game open: `games` lists yours, `open GAME` opens one.");
    return false;
  }

  void help(const std::string& word) {
    if (!word.empty()) {
      const std::string u = order_usage(word);
      out(u.empty() ? "No order '" + word + "'." : u);
      return;
    }
    std::string t = "Orders (sent to the server for the open game):\n";
    for (const auto& o : order_words()) t += "  " + order_usage(o) + "\n";
    t += "Commands:\n"
         "  show [HEX] | map [HEX] | at HEX   draw the game, the map window centred on HEX\n"
         "  full                             the whole map, small\n"
         "  stack HEX                        what is at a hex (or WARSAW, an entry point)\n"
         "  log [N]                          the game log (the last N events), marked where you last looked\n"
         "  hand | units | decision          your event chits, your units, what is asked now\n"
         "  unit UNIT | chart [NAME]         a counter's values; the game's charts (crt, terrain, calendar, ...)\n"
         "  chat TEXT                        a message to your opponent (watching others' game: to its spectators)\n"
         "  mute NAME | unmute NAME | muted   stop (or start again) reading a player's chat; the players muted\n"
         "  report NAME [--game GAME] REASON...   report a player's chat in the open game (or GAME) to the operator\n"
         "  games | open GAME | join GAME [INVITE] | new soviet|german|random [private] [casual] [time 3d | clock 15m+10s]\n"
         "    [OPTION...]                    optional rules by key; 3d or 15m+10s alone does for time or clock\n"
         "  games open [scenario NAME] [rated|casual] [untimed|per-move|clock] [min-rating N] [max-rating N]\n"
         "    [player NAME] [page N] [per-page N] | games more   the open games waiting for an opponent, newest first, a page at a time\n"
         "  games playing|finished [scenario NAME] [rated|casual] [untimed|per-move|clock] [player NAME] [page N] [per-page N]\n"
         "                                   anyone's public games in play (watch GAME) or finished (replay GAME), newest first\n"
         "  games player NAME [FILTERS]      a player's public games: open, in play and finished (games more: more finished)\n"
         "  new ... opponent NAME | decline GAME   challenge a player to the game (they `join` or `decline` it)\n"
         "  rematch [GAME] [decline]         after a game: another with the sides swapped, or accept (or decline) one offered\n"
         "  draw offer|accept|decline | resign yes | refresh | quit\n"
         "  replay GAME                      step through a finished game, the full map after each order: next (or\n"
         "                                   ENTER), prev, goto N, first, last; quit leaves the replay\n"
         "  verify                           once the open game is over: check its dice seed, every die and event\n"
         "  standing [none | ORDER...]       decisions answered for you at once: stand-fast no-support keep-die\n"
         "                                   take-losses retreat (nothing: the ones set)\n"
         "  email [ADDRESS | confirm CODE | off]   turn notices by mail while you are away\n"
         "  email --turns each|digest|off [--digest-hours N]   a mail per game, one digest of them, or none\n"
         "  vacation [start DAYS | end]      your time per move stands still while you are away (a game clock runs on)\n"
         "  tournament [list] | tournament new NAME [--players N] [--swiss ROUNDS | --knockout]\n"
         "    [--time 3d | --clock 15m+10s] [--starts WHEN] [--private] [--organise-only] [--option KEY]\n"
         "    | tournament show|join|leave|start|cancel ID [INVITE] | tournament remove ID NAME REASON...   (WHEN: 2h or 3d from now, or 2026-12-01T18:00 UTC)\n"
         "    | tournament adjudicate GAME soviet|german|draw REASON...   (the organiser decides a game in play)\n"
         "  rating [NAME] [games N] | ratings   a player's rating (yours without NAME), with their last N\n"
         "                                    rated games (10 unless given); the rated players\n"
         "Tab completes commands, unit ids, hexes and chits; up and down arrows recall earlier "
         "lines.\n"
         "On a terminal each redraw of the game shows the last " + std::to_string(kNoticeArea) +
         " notices under it (chat, draw offers, other games, the connection); opening a game or `refresh` drops the "
         "notices of the game open before. A redraw the opponent brings shows your last command's output under them "
         "again when it takes at most half the terminal, else a line naming the command when it only reads, or saying "
         "it was cleared.";
    out(t);
  }

  // The shell's scenario for what takes it shared; not owned, as the shell outlives them.
  std::shared_ptr<const Scenario> shared_scenario() const {
    return std::shared_ptr<const Scenario>(std::shared_ptr<const Scenario>(), &sc_);
  }

  // `verify`: the open game's audit, as `counterattack verify` gives it.
  void verify() {
    const auto& g = game_->summary();
    if (!g) return out("The server sent no summary of game " + game_->id() + ", so its dice seed's commitment is unknown.");
    if (!game_->ended() && g->status() != "finished") {
      return out("Game " + game_->id() + " is not over: a game is verified once it is over, when the server reveals its log "
                 "and its dice seed.");
    }
    std::string why;
    const auto audit = audit_finished(s_, shared_scenario(), game_->id(), g->seed_commitment(), &why);
    out(audit ? describe_audit(*audit) : why);
  }

  // `replay GAME`: the shell steps through it, from the setup, until quit.
  void start_replay(const std::string& id) {
    std::string why;
    auto r = Replay::fetch(s_, shared_scenario(), id, &why, true);
    if (!r) return out(why);
    replay_ = std::make_unique<Replay>(std::move(*r));
    cursor_ = {};
    cursor_.drew = true;
    const std::string screen = render_replay(sc_, *replay_, 0, ro_, replay_hint());
    forget_game_notices();
    last_output_.clear();
    print(tty_ ? clear_screen(ro_.colour) + screen + notice_area(0) : screen);
  }

  // A line typed in a replay (none: ENTER, the next version).
  void replay_line(const std::vector<std::string>& w) {
    const std::string text = replay_step(sc_, *replay_, cursor_, w, ro_);
    if (tty_ && cursor_.drew)
      print(clear_screen(ro_.colour) + text + (text.empty() || text.back() == '\n' ? "" : "\n") + notice_area(0));
    else
      out(text);
    if (!cursor_.done) return;
    replay_.reset();
    if (tty_ && game_ && game_->has_view()) draw();  // back to the game open before
  }

  void stack(const std::string& where) {
    const auto text = render_stack_at(sc_, game_->view(), where, ro_);
    out(text ? *text : "'" + where + "' is not a location.");
  }

  void units() { out(render_units(sc_, game_->view(), player_side(*game_))); }

  void chat(const std::string& text) {
    if (text.empty()) {
      out("chat TEXT");
      return;
    }
    wire::ClientMessage m;
    m.mutable_send_chat()->set_game_id(game_->id());
    // A spectator writes in the spectators' channel: the players' is the two players' alone.
    m.mutable_send_chat()->set_channel(player_side(*game_) == game::SIDE_UNSPECIFIED ? wire::SPECTATORS : wire::PLAYERS);
    m.mutable_send_chat()->set_text(text);
    std::string why;
    if (!s_.call(m, &why)) out(why);
  }

  void list_games() {
    wire::ClientMessage m;
    m.mutable_my_games();
    std::string why;
    auto reply = s_.call(m, &why);
    if (!reply) {
      out(why);
      return;
    }
    std::string t = "Your games:\n";
    if (reply->game_list().games().empty())
      t += "  none (new soviet|german|random creates one; join GAME joins one)\n";
    for (const auto& g : reply->game_list().games()) t += "  " + game_line(g) + "\n";
    out(t);
  }

  // `games open|playing|finished [FILTERS] [page N]`: a page of the open games, the
  // public games in play or the finished ones; `games more`: the page after the last shown.
  void list_open_games(const std::vector<std::string>& words) {
    std::string why;
    OpenGamesQuery query;
    if (words[0] == "more") {
      if (words.size() > 1) return out("games more: the next page of the games last listed.");
      if (open_next_.empty()) {
        const auto kind = open_filter_.kind();
        return out("No more " + listed_games_name(kind) + ": games " +
                   (kind == wire::GAMES_IN_PLAY ? "playing" : kind == wire::FINISHED_GAMES ? "finished" : "open") +
                   " lists them from the newest again.");
      }
      query.filter = open_filter_;
      query.filter.set_after(open_next_);
    } else if (words[0] == "open" || words[0] == "playing" || words[0] == "finished") {
      const auto kind = words[0] == "open" ? wire::OPEN_GAMES : words[0] == "playing" ? wire::GAMES_IN_PLAY : wire::FINISHED_GAMES;
      auto q = open_games_query(std::vector<std::string>(words.begin() + 1, words.end()), &why, kind);
      if (!q) return out(why);
      query = *q;
    } else if (words[0] == "player") {
      return list_player_games(words);
    } else {
      return out("games | games open|playing|finished [FILTERS] | games player NAME [FILTERS] | games more");
    }
    auto page = open_games_page(s_, query.filter, query.page, &why);
    if (!page) return out(why);
    query.filter.clear_after();
    open_filter_ = query.filter;
    open_next_ = page->next_after();
    // The filters as the shell's words: "casual clock min-rating 1400".
    std::string filters;
    for (const auto& word : split_words(open_games_flags(query.filter))) {
      if (word != "--timing") filters += (filters.empty() ? "" : " ") + (word.starts_with("--") ? word.substr(2) : word);
    }
    const auto kind = query.filter.kind();
    std::string t = (kind == wire::GAMES_IN_PLAY    ? "Games in play"
                     : kind == wire::FINISHED_GAMES ? "Finished games, newest ended first"
                                                    : "Open games") +
                    (filters.empty() ? std::string() : " (" + filters + ")") + ":\n";
    if (page->games().empty()) {
      t += kind == wire::OPEN_GAMES ? "  none here (new soviet|german|random creates one)\n" : "  none here\n";
    }
    for (const auto& g : page->games()) t += "  " + (kind == wire::OPEN_GAMES ? game_line(g) : listed_game_line(g, "")) + "\n";
    t += open_next_.empty() ? "No more." : "More: games more";
    out(t);
  }

  // `games player NAME [FILTERS]`: that player's public games, open, in play and
  // finished; `games more` goes on with the finished ones.
  void list_player_games(const std::vector<std::string>& words) {
    std::string why;
    const std::string usage =
        "games player NAME [scenario NAME] [rated|casual] [untimed|per-move|clock] [per-page N]: a player's public games, "
        "open, in play and finished";
    for (const auto& w : words) {
      if (w == "page" || w == "--page") return out("games player shows the first page of each list. " + usage);
    }
    auto q = open_games_query(words, &why, wire::GAMES_IN_PLAY);
    if (!q) return out(why.substr(0, why.find("games playing [")) + usage);  // its reason, with this usage
    const auto found = player_games(s_, q->filter, &why);
    if (!found) return out(why);
    open_filter_ = found->filter;
    open_filter_.set_kind(wire::FINISHED_GAMES);
    open_next_ = found->finished.next_after();
    // The filters as the shell's words, the player's apart: "casual clock".
    auto others = found->filter;
    others.clear_player();
    std::string filters, all;
    for (const auto& word : split_words(open_games_flags(others))) {
      if (word != "--timing") filters += (filters.empty() ? "" : " ") + (word.starts_with("--") ? word.substr(2) : word);
    }
    for (const auto& word : split_words(open_games_flags(found->filter))) {
      if (word != "--timing") all += " " + (word.starts_with("--") ? word.substr(2) : word);
    }
    auto t = player_games_text(*found, filters, "", [&](wire::GameListKind kind, const std::string&) {
      return kind == wire::FINISHED_GAMES ? std::string("More: games more")
                                          : "More: games " + std::string(kind == wire::OPEN_GAMES ? "open" : "playing") + all +
                                                " page 2";
    });
    if (!t.empty() && t.back() == '\n') t.pop_back();
    out(t);
  }

  // False when it cannot be: why is said, or left in `failed` when given.
  bool open_game(const std::string& id, std::string* failed = nullptr) {
    auto g = std::make_unique<LiveGame>(s_, id, true);
    std::string why;
    if (!g->subscribe(&why)) {
      if (failed) *failed = why;
      else out(why);
      return false;
    }
    if (game_) {
      wire::ClientMessage m;
      m.mutable_unwatch()->set_game_id(game_->id());
      s_.conn().send(m);
    }
    game_ = std::move(g);
    forget_if_restarted();  // watched from the start: the game's kept chat comes again
    drop_notices_about(id);  // its turn, its offer: answered by opening it
    center_ = 0;
    update_prompt();
    draw();
    // Back after a while: how far the game has moved since, and where to read it.
    if (const auto& s = game_->summary(); s && s->status() == "playing" && !s->your_side().empty()) {
      if (const auto unseen = s->version() - s->your_seen_version(); unseen > 0) {
        notice(std::to_string(unseen) + (unseen == 1 ? " new order" : " new orders") +
                   " since you last looked: log shows them, marked.",
               game_->id());
      }
    }
    caught_up();
    return true;
  }

  // The chat kept while the player was away arrives with the view; what came
  // behind it is still queued, and no new message may come to wake the shell.
  void caught_up() {
    take_game_notices(true);
    pump();
  }

  // Opens game `id` after a command that made or joined it, and says `said`: on a terminal under
  // the game drawn (the redraw would clear it) and kept as the command's output; else before it.
  void open_with(const std::string& id, const std::string& said) {
    if (!tty_) {
      out(said);
      open_game(id);
      return;
    }
    open_game(id);
    out(said);
  }

  void join(const std::string& id, const std::string& invite) {
    wire::ClientMessage m;
    m.mutable_join_game()->set_game_id(id);
    m.mutable_join_game()->set_invite_code(invite);
    std::string why;
    auto reply = s_.call(m, &why);
    if (!reply) {
      out(why);
      return;
    }
    open_with(id, "Joined game " + id +
                      (reply->has_game() && !reply->game().your_side().empty()
                           ? " as the " + reply->game().your_side() + " player."
                           : "."));
  }

  void rematch(const std::string& id, bool decline) {
    wire::ClientMessage m;
    m.mutable_rematch()->set_game_id(id);
    m.mutable_rematch()->set_decline(decline);
    std::string why;
    auto reply = s_.call(m, &why);
    if (!reply) {
      out(why);
      return;
    }
    drop_notices_about(id);  // its offer, answered
    if (decline) return out("Declined the rematch of game " + id + ".");
    if (!reply->has_game()) return out(rematch_answer(*reply));
    // Accepted: it is under way, and opened here; nothing to tell of opening it.
    const auto& g = reply->game();
    open_with(g.game_id(), "Rematch accepted: game " + g.game_id() + " has started, you play " + g.your_side() + ".");
  }

  void decline(const std::string& id) {
    wire::ClientMessage m;
    m.mutable_decline_challenge()->set_game_id(id);
    std::string why;
    if (!s_.call(m, &why)) return out(why);
    drop_notices_about(id);  // its offer, answered
    out("Declined the challenge of game " + id + ".");
  }

  void create(const std::vector<std::string>& w) {
    static const std::string usage =
        "new [soviet|german|random] [private] [casual] [time 3d|12h|90m | clock 15m+10s] [opponent NAME] [OPTION...]";
    std::string why;
    auto m = new_game_request({w.begin() + 1, w.end()}, &why);
    if (!m) {
      out(why + "\n" + usage);
      return;
    }
    auto reply = s_.call(*m, &why);
    if (!reply) {
      // A word new does not know went as an optional rule: the server lists those, this the rest.
      const bool unknown_word = m->create_game().options_size() > 0 && why.find("optional rule") != std::string::npos;
      out(unknown_word ? why + "\n" + usage : why);
      return;
    }
    const auto& gc = reply->game_created();
    if (!gc.game().reserved_for().empty()) {
      open_with(gc.game().game_id(), challenge_made_text(gc.game(), false));
      return;
    }
    open_with(gc.game().game_id(),
              "Created game " + gc.game().game_id() + (gc.game().your_side().empty() ? "" : "; you play " + gc.game().your_side()) +
                  (gc.invite_code().empty() ? "" : " (invite code " + gc.invite_code() + ")") +
                  ". Your opponent joins with: counterattack join " + gc.game().game_id() +
                  (gc.invite_code().empty() ? "" : " --invite " + gc.invite_code()));
  }

  void resign() {
    const auto before = game_->summary();
    wire::ClientMessage m;
    m.mutable_resign()->set_game_id(game_->id());
    std::string why;
    if (!s_.call(m, &why)) return out(why);
    // A game nobody has joined is withdrawn, not resigned: said as the one-shot resign says it.
    out(resign_outcome(s_, game_->id(), before, "You resigned."));
  }

  // The one-shot form (`counterattack order GAME move ...`) typed in the shell: nothing is sent, the
  // player is shown the line the shell takes.
  static std::string one_shot_in_shell(const std::vector<std::string>& w) {
    std::size_t i = 0;
    if (i < w.size() && lower(w[i]) == "counterattack") ++i;
    const bool is_order = i < w.size() && lower(w[i]) == "order";
    if (is_order) {
      ++i;
      const auto& words = order_words();
      // The game's id, unless the word after `order` is an order already.
      if (i < w.size() && std::find(words.begin(), words.end(), lower(w[i])) == words.end()) ++i;
    }
    std::string rest;
    for (; i < w.size(); ++i) rest += (rest.empty() ? "" : " ") + w[i];
    if (is_order)
      return rest.empty() ? "In the shell, type the order alone, e.g.: move 3TC/50 4742 4642 (nothing was sent)."
                          : "In the shell, type the order alone: " + rest + " (nothing was sent).";
    if (rest.empty()) return "This is the counterattack shell already: `help` lists its commands.";
    return "In the shell, type the command alone: " + rest + " (nothing was sent).";
  }

  void answer_draw(const std::string& what) {
    std::string why;
    // Its DrawDeclined or DrawOffered is this command's, told below.
    game_->expect_own_draw(what == "decline" ? wire::ServerMessage::kDrawDeclined
                           : what == "offer" ? wire::ServerMessage::kDrawOffered
                                             : wire::ServerMessage::BODY_NOT_SET);
    if (!s_.call(draw_request(game_->id(), what), &why)) {
      game_->expect_own_draw(wire::ServerMessage::BODY_NOT_SET);
      return out(why);
    }
    if (what != "offer") drop_draw_offer_notices(game_->id());  // answered
    out(what == "offer" ? "You offered a draw." : what == "accept" ? "You accepted the draw." : "You declined the draw.");
  }

  void order(const std::string& line) {
    auto parsed = parse_order(line, sc_);
    if (!parsed.ok()) {
      // A first word that is neither an order nor a command may be a command mistyped:
      // the nearest of both is named, a command before an order as near.
      if (parsed.error.find("' is not an order.") == std::string::npos) return out(parsed.error);
      std::string error = parsed.error;
      if (const auto at = error.find(" Did you mean `"); at != std::string::npos) error.erase(at);
      const auto words = split_words(line);
      std::string typed = words.empty() ? "" : words.front();
      for (auto& ch : typed) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      const std::string best = nearest_word(typed, {&shell_words(), &order_words()});
      return out(error + (best.empty() ? "" : " Did you mean `" + best + "`?") + " `help` lists the shell's commands.");
    }
    if (!need_game()) return;
    if (const auto& o = *parsed.order; o.has_move() && o.move().units_size() > 0) {
      const auto hint = path_start_hint(o, location_in_view(game_->view(), o.move().units(0)));
      if (!hint.empty()) return out(hint + " (not sent)");
    }
    const std::string key = new_idempotency_key();
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto r = submit_order(s_, game_->id(), *parsed.order, key);
      if (r.answered) {
        if (!r.accepted) {
          out("Rejected: " + r.reason + (r.code.empty() ? "" : " [" + r.code + "]"));
          pump();
          return;
        }
        // On a terminal the order's delta, sent just behind the answer, redraws the screen, and
        // so do those of the opponent's standing answers to it: the line waits for the last of
        // them (a moment at most), to be shown under the redraw.
        bool any = false;
        {
          Holding holding(hold_, tty_);
          out("Accepted: " + format_order(*parsed.order) + " (version " + std::to_string(r.version) + ").");
          holding.start();
          const bool was_over = shows_over();
          any = handle_waiting();
          const auto last = std::max(r.version, r.answered_to);
          if (tty_) any = handle_until([&] { return !game_ || game_->version() >= last; }, 2) || any;
          any = await_end(was_over) || any;
        }
        show_changes(any);
        return;
      }
      // No answer: reconnect and send the same order again; its key keeps it from being applied
      // twice.
      if (!reconnect_game(60)) break;
    }
    out("The order got no answer; check with `show` whether it was applied.");
  }

  Session& s_;
  const Scenario& sc_;
  RenderOptions ro_;
  bool tty_;
  bool running_ = true;
  bool completing_first_ = true;
  bool full_ = false;
  int center_ = 0;
  std::unique_ptr<LiveGame> game_;
  // A finished game stepped through (replay GAME), and where.
  std::unique_ptr<Replay> replay_;
  ReplayCursor cursor_;
  // The games last listed (open, in play or finished): their filters, and where the next page starts ("": no more).
  wire::ListGames open_filter_;
  std::string open_next_;
  std::string pending_, last_decision_, history_path_, shown_prompt_;
  bool in_line_ = false, line_taken_ = false;
  // What is said while server messages are handled, held to follow the changes they make.
  bool hold_ = false;
  std::vector<Held> held_;
  // Holds what is said while it lives, and stops holding at its end, however that comes.
  class Holding {
   public:
    explicit Holding(bool& flag, bool now = true) : flag_(flag), before_(flag) { flag_ = now; }
    ~Holding() { flag_ = before_; }
    Holding(const Holding&) = delete;
    Holding& operator=(const Holding&) = delete;
    void start() { flag_ = true; }

   private:
    bool& flag_;
    const bool before_;  // as it was: a holding within another keeps holding after it
  };
  // On a terminal: the notice area (its last notices, oldest first), and the last command typed and its output.
  static constexpr std::size_t kNoticeArea = 5;
  static constexpr std::size_t kKeptOutputLines = 20;  // the most output repainted when the terminal's height is unknown
  std::deque<Held> notices_;
  std::string last_command_, last_output_;
  // The last command only reads: typed again, it shows the same (see execute()).
  bool last_reads_ = false;
  // The open game's end has been printed (drawn, or its decision or notice told).
  bool end_shown_ = false;
};

}  // namespace

int run_play(Session& s, const Scenario& sc, const std::string& game_id, const RenderOptions& ro) {
  Shell sh(s, sc, ro);
  return sh.run(game_id);
}

}  // namespace counterattack::cli
