#include "replay.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <nlohmann/json.hpp>

#include "notation.h"
#include "terminal_text.h"
#include "verify.h"
#include "view_delta.h"

namespace counterattack::cli {
namespace {

std::string bold(const std::string& text, bool colour) { return colour ? "\033[1m" + text + "\033[0m" : text; }

std::string side_name(game::Side s) {
  return s == game::SOVIET ? "Soviet" : s == game::GERMAN ? "German" : "no side's";
}

// A version as typed: digits only.
std::optional<std::int64_t> parse_version(const std::string& text) {
  if (text.empty() || text.size() > 15 || !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  return std::stoll(text);
}

}  // namespace

std::optional<Replay> Replay::fetch(Session& s, const std::shared_ptr<const Scenario>& sc, const std::string& game_id,
                                    std::string* why, bool in_shell) {
  wire::ClientMessage m;
  m.mutable_get_log()->set_game_id(game_id);
  // As the server sent it: the replay compares each order's events with the rules' byte for byte.
  auto reply = s.call(m, why, std::chrono::seconds(60), Connection::Text::as_sent);
  if (!reply) {
    if (s.last_error() == wire::FORBIDDEN) {
      *why = "Game " + shown(game_id) +
             " is not over: its whole log opens when it ends, and a replay steps through a finished game. " +
             (in_shell ? "`open " + shown(game_id) + "`, then `log`, shows the log as you may read it now."
              : s.logged_in()
                  ? "`counterattack show " + shown(game_id) + " --log 0` shows the log as you may read it now."
                  // `show` needs a session.
                  : "Once logged in (`counterattack login NAME`), `counterattack show " + shown(game_id) +
                        " --log 0` shows the log as you may read it.");
    }
    return std::nullopt;
  }
  if (!reply->has_game_log()) {
    *why = "The server sent no log of game " + shown(game_id) + ".";
    return std::nullopt;
  }
  if (reply->game_log().game_id().empty()) reply->mutable_game_log()->set_game_id(game_id);
  return of(sc, reply->game_log(), why);
}

std::optional<Replay> Replay::of(const std::shared_ptr<const Scenario>& sc, const wire::GameLog& log, std::string* why) {
  Replay r;
  r.engine_ = std::make_shared<const Engine>(sc);
  r.log_ = log;
  std::vector<std::int64_t> kept;  // the versions whose orders an undo may still take back, oldest first
  const Audit a = replay_log(sc, log, [&](std::int64_t v, const GameState& state, const std::vector<game::Event>& made) {
    r.states_.push_back(state);
    // The full view's reader: each event once, in the wording that hides nothing.
    r.events_.push_back(events_for(made, Viewer::Omniscient));
    r.taken_back_by_.push_back(0);
    r.takes_back_.push_back(0);
    if (v < 1) return;
    if (log.orders(static_cast<int>(v - 1)).order().has_undo()) {
      if (kept.empty()) return;
      r.taken_back_by_[static_cast<std::size_t>(kept.back())] = v;
      r.takes_back_[static_cast<std::size_t>(v)] = kept.back();
      kept.pop_back();
    } else if (state.takeback.empty()) {
      kept.clear();  // an order that fixes everything before it
    } else {
      kept.push_back(v);
      while (kept.size() > state.takeback.before.size()) kept.erase(kept.begin());  // the oldest beyond the rules' limit
    }
  });
  if (!a.verified) {
    *why = "The log of game " + shown(log.game_id()) + " does not replay with the rules here: " + a.mismatch;
    return std::nullopt;
  }
  return r;
}

bool Replay::has(std::int64_t version, std::string* why) const {
  if (version >= 0 && version <= last()) return true;
  if (why) {
    *why = "Game " + shown(game_id()) + " has versions 0 (the setup) to " + std::to_string(last()) + ": " +
           std::to_string(version) + " is not one of them.";
  }
  return false;
}

game::View Replay::view(std::int64_t version) const {
  return engine_->view(states_[static_cast<std::size_t>(version)], Viewer::Omniscient);
}

std::int64_t Replay::time(std::int64_t version) const {
  const wire::LoggedOrder* o = order(version);
  return o ? o->played_unix() : log_.created_unix();
}

const wire::LoggedOrder* Replay::order(std::int64_t version) const {
  if (version < 1 || version > log_.orders_size()) return nullptr;
  return &log_.orders(static_cast<int>(version - 1));
}

std::string Replay::json(std::int64_t version) const {
  nlohmann::json j{{"game_id", game_id()}, {"version", version}, {"last_version", last()}, {"time_unix", time(version)}};
  if (const auto* o = order(version)) {
    j["side"] = game::Side_Name(o->side());
    j["order"] = format_order(o->order());
  }
  j["events"] = nlohmann::json::array();
  for (const auto& e : events(version)) j["events"].push_back(nlohmann::json::parse(to_json(e)));
  if (taken_back_by(version) > 0) j["taken_back_by_version"] = taken_back_by(version);
  if (takes_back(version) > 0) j["takes_back_version"] = takes_back(version);
  if (version == last() && !result().empty()) {
    j["result"] = result();
    j["result_reason"] = result_reason();
  }
  j["view"] = nlohmann::json::parse(to_json(view(version)));
  return json_shown(j.dump());
}

std::string render_replay(const Scenario& sc, const Replay& r, std::int64_t version, const RenderOptions& ro,
                          const std::string& hint) {
  const game::View v = r.view(version);
  std::string out = bold("Replay of game " + shown(r.game_id()) + ": version " + std::to_string(version) + " of " +
                             std::to_string(r.last()) + (version == r.last() ? ", the last" : ""),
                         ro.colour) +
                    "\n";
  const std::int64_t t = r.time(version);
  const std::string when = t > 0 ? utc_minute(t) + " UTC" : "At a time the server did not say";
  if (const auto* o = r.order(version)) {
    out += when + ", the " + side_name(o->side()) + " player's order: " + shown(format_order(o->order())) + "\n";
  } else {
    out += when + ": the setup, as the game was made\n";
  }
  if (!hint.empty()) out += hint + "\n";
  out += render_tracks(sc, v, ro) + "\n";
  out += ro.full ? render_full_map(sc, v, ro) : render_map(sc, v, ro);
  out += render_stacks(sc, v, ro);
  out += render_hands(sc, v, ro);
  out += bold(version == 0 ? "The setup's events:" : "The events of this order:", ro.colour) + "\n";
  RenderOptions all = ro;
  all.log_lines = 0;
  all.new_from = -1;
  all.event_versions.clear();
  all.event_times.clear();
  // The one event the rules word for its owner ("You draw the event X."), named for a reader of both sides.
  std::vector<game::Event> events = r.events(version);
  for (auto& e : events) {
    const bool own = e.audience() == game::AUDIENCE_SOVIET || e.audience() == game::AUDIENCE_GERMAN;
    if (own && e.text().rfind("You draw ", 0) == 0) {
      e.set_text(side_name(e.audience() == game::AUDIENCE_SOVIET ? game::SOVIET : game::GERMAN) + " draws " + e.text().substr(9));
    }
  }
  out += events.empty() ? "  none\n" : render_events(events, all);
  // What an undo did, and which order one later took back: the position went back before it.
  if (const std::int64_t back = r.takes_back(version); back > 0) {
    out += "This undo takes back the order of version " + std::to_string(back) + " (" +
           shown(format_order(r.order(back)->order())) + "): the position is again the one before it.\n";
  }
  if (const std::int64_t by = r.taken_back_by(version); by > 0) {
    out += "The " + side_name(r.order(version)->side()) + " player took this order back at version " + std::to_string(by) + ".\n";
  }
  const auto& d = v.decision();
  if (d.kind() == game::Decision::GAME_OVER) {
    out += render_decision(v, ro);
  } else if (version == r.last() && !r.result().empty()) {
    // The log is kept as the server sent it: the operator's reason is escaped here.
    out += bold("The log ends here, and the game ended without another order. " + shown(end_sentence(result_with_reason(r.result(), r.result_reason()))),
                ro.colour) +
           "\n";
  } else if (version == r.last()) {
    out += "The log ends here: the game ended without another order (a resignation, a draw agreed, the time or the operator).\n";
  } else {
    out += "Next, the " + side_name(d.side()) + " player decides: " + d.prompt() + "\n";
  }
  return out;
}

const std::vector<std::string>& replay_words() {
  static const std::vector<std::string> w = {"next", "prev", "goto", "first", "last", "show", "at", "full", "help", "quit"};
  return w;
}

std::string replay_hint() { return "Step: next (or ENTER), prev, goto N, first, last; at HEX, full; quit leaves the replay."; }

std::string replay_step(const Scenario& sc, const Replay& r, ReplayCursor& c, const std::vector<std::string>& words,
                        const RenderOptions& ro) {
  const std::string cmd = words.empty() ? "next" : lower(words[0]);
  bool full = false;
  c.drew = false;
  auto screen = [&] {
    c.drew = true;
    RenderOptions o = ro;
    o.center_hex = c.center_hex;
    o.full = full;
    return render_replay(sc, r, c.at, o, replay_hint());
  };
  const std::string last = std::to_string(r.last());
  if (cmd == "next" || cmd == "n") {
    if (c.at >= r.last()) return "That is the last version, " + last + ": prev steps back, first goes to the setup, quit leaves the replay.";
    ++c.at;
    return screen();
  }
  if (cmd == "prev" || cmd == "p") {
    if (c.at <= 0) return "That is the setup, version 0: next steps on, last goes to the end, quit leaves the replay.";
    --c.at;
    return screen();
  }
  if (cmd == "goto" || cmd == "g") {
    const auto v = words.size() == 2 ? parse_version(words[1]) : std::nullopt;
    if (!v) return "goto N: a version from 0 (the setup) to " + last + ".";
    std::string why;
    if (!r.has(*v, &why)) return why;
    c.at = *v;
    return screen();
  }
  if (cmd == "first" || cmd == "last") {
    c.at = cmd == "first" ? 0 : r.last();
    return screen();
  }
  if (cmd == "show" || cmd == "map" || cmd == "at" || cmd == "full") {
    if (cmd == "full") {
      full = true;
    } else if (words.size() > 1) {
      const auto hex = parse_map_hex(sc, words[1]);
      if (!hex) return shown(words[1]) + " is not a hex of the map.";
      c.center_hex = *hex;
    }
    return screen();
  }
  if (cmd == "quit" || cmd == "q" || cmd == "exit") {
    c.done = true;
    return "Left the replay of game " + shown(r.game_id()) + ".";
  }
  if (cmd == "help" || cmd == "h") {
    return "In the replay of game " + shown(r.game_id()) + " (versions 0 to " + last +
           "):\n"
           "  next | n | ENTER   the next version\n"
           "  prev | p           the one before\n"
           "  goto N             version N (0: the setup)\n"
           "  first | last       the setup, the end\n"
           "  show [HEX] | at HEX | full   draw it again, the map window centred on HEX, or the whole map\n"
           "  quit               leave the replay";
  }
  return "'" + shown(words[0]) + "' is not a replay command. " + replay_hint();
}

std::string replay_prompt(const Replay& r, const ReplayCursor& c) {
  return "replay " + shown(r.game_id()) + " " + std::to_string(c.at) + "/" + std::to_string(r.last()) + "> ";
}

int run_replay(const Scenario& sc, const Replay& r, const RenderOptions& ro) {
  const bool tty = ::isatty(STDIN_FILENO) && ::isatty(STDOUT_FILENO);
  ReplayCursor c;
  auto print = [&](const std::string& text) {
    if (tty && c.drew && ro.colour) std::cout << "\033[H\033[2J";  // a version's screen replaces the last
    std::cout << text << (!text.empty() && text.back() != '\n' ? "\n" : "") << std::flush;
  };
  c.drew = true;
  print(render_replay(sc, r, c.at, ro, replay_hint()));
  for (std::string line; !c.done;) {
    if (tty) std::cout << replay_prompt(r, c) << std::flush;
    if (!std::getline(std::cin, line)) break;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    print(replay_step(sc, r, c, split_words(line), ro));
  }
  return kOk;
}

}  // namespace counterattack::cli
