#include "notation.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "hexgrid.h"

namespace counterattack::cli {
namespace {

struct Usage {
  const char* word;
  const char* usage;
};

// The order words with their usage; the first line of every parse error.
const std::vector<Usage>& usages() {
  static const std::vector<Usage> u = {
      {"move",
       "move UNIT... HEX... (units first, then every location entered: move 3TC/50 4742 4642)"},
      {"done", "done (end the step, or pass)"},
      {"corps",
       "corps CORPS [+47] (corps 3TC, or corps 3TC +47 to activate the 47th Army with it)"},
      {"pd", "pd UNIT... (build a prepared defense)"},
      {"lift", "lift UNIT... (lift a prepared defense)"},
      {"reserve", "reserve UNIT... (place a reserve marker on units in one location)"},
      {"unreserve", "unreserve UNIT... (take a reserve marker off)"},
      {"break", "break UNIT HEX [UNIT HEX...] (break contact: each unit moves one hex away)"},
      {"stand", "stand (stand fast: do not break contact)"},
      {"play", "play CHIT [UNIT...] [corps CORPS] [at HEX] (play an event chit)"},
      {"recover", "recover UNIT [HEX|WARSAW] (recover a step; a location for an eliminated unit)"},
      {"suppress", "suppress UNIT... (units in Warsaw deployed against the uprising)"},
      {"choose", "choose UNIT|MARKER... (the units or markers a track asks for)"},
      {"overrun", "overrun UNIT... HEX (the moving units attack an adjacent hex)"},
      {"barrage", "barrage MARKER HEX (artillery or Stuka fires at a hex: barrage ART-73ID 4542)"},
      {"attack",
       "attack UNIT... HEX [with MARKER] [chit CHIT] (coordinated combat against one hex)"},
      {"support",
       "support MARKER [chit CHIT] | support chit CHIT (the defender's tactical support)"},
      {"nosupport", "nosupport (no defensive support)"},
      {"losses", "losses [elastic N | desperate N] UNIT... (one unit per step still lost, in order; elastic N alone when it takes every step)"},
      {"retreat", "retreat UNIT HEX... [UNIT HEX...] (the retreat path of each unit)"},
      {"advance", "advance [UNIT... HEX...] (advance after combat; nothing: stay)"},
      {"model", "model reactivate UNIT... | model noncontiguous | model division | model reroll | model noreroll"},
      {"reroll", "reroll (FM Model re-rolls this combat's die; also: model reroll)"},
      {"noreroll", "noreroll (keep the die; also: model noreroll)"},
      {"undo", "undo (take back your last order, while it revealed nothing)"},
  };
  return u;
}

class Parser {
 public:
  Parser(const Scenario& sc, std::vector<std::string> words) : sc_(sc), w_(std::move(words)) {}

  ParseResult run() {
    ParseResult r;
    if (w_.empty()) {
      r.error = "Type an order, for example: move 3TC/50 4742 4642, or done.";
      return r;
    }
    word_ = lower(w_[0]);
    pos_ = 1;
    game::Order o;
    bool ok = false;
    if (word_ == "move")
      ok = move(*o.mutable_move());
    else if (word_ == "done") {
      o.mutable_done();
      ok = end();
    } else if (word_ == "corps")
      ok = corps(*o.mutable_activate_corps());
    else if (word_ == "pd")
      ok = units_only(*o.mutable_prepared_defense()->mutable_units());
    else if (word_ == "lift")
      ok = units_only(*o.mutable_lift_prepared_defense()->mutable_units());
    else if (word_ == "reserve")
      ok = units_only(*o.mutable_place_reserve()->mutable_units());
    else if (word_ == "unreserve")
      ok = units_only(*o.mutable_remove_reserve()->mutable_units());
    else if (word_ == "break")
      ok = brk(*o.mutable_break_contact());
    else if (word_ == "stand") {
      o.mutable_break_contact();
      ok = end();
    } else if (word_ == "play")
      ok = play(*o.mutable_play_event());
    else if (word_ == "recover")
      ok = recover(*o.mutable_recover());
    else if (word_ == "suppress")
      ok = units_only(*o.mutable_suppress_uprising()->mutable_units());
    else if (word_ == "choose")
      ok = choose(*o.mutable_choose_units());
    else if (word_ == "overrun")
      ok = overrun(*o.mutable_overrun());
    else if (word_ == "barrage")
      ok = barrage(*o.mutable_barrage());
    else if (word_ == "attack")
      ok = attack(*o.mutable_attack());
    else if (word_ == "support")
      ok = support(*o.mutable_defensive_support());
    else if (word_ == "nosupport") {
      o.mutable_defensive_support();
      ok = end();
    } else if (word_ == "losses")
      ok = losses(*o.mutable_take_losses());
    else if (word_ == "retreat")
      ok = retreat(*o.mutable_retreat());
    else if (word_ == "advance")
      ok = advance(*o.mutable_advance());
    else if (word_ == "model")
      ok = model(o);
    else if (word_ == "reroll" || word_ == "noreroll") {
      o.mutable_reroll()->set_reroll(word_ == "reroll");
      ok = end();
    } else if (word_ == "undo") {
      o.mutable_undo();
      ok = end();
    } else {
      r.error = "'" + w_[0] + "' is not an order. Orders: ";
      for (size_t i = 0; i < usages().size(); ++i)
        r.error += (i ? ", " : "") + std::string(usages()[i].word);
      r.error += ".";
      if (const auto best = nearest_word(word_, {&order_words()}); !best.empty()) r.error += " Did you mean `" + best + "`?";
      return r;
    }
    if (!ok) {
      r.error = error_;
      return r;
    }
    r.order = std::move(o);
    return r;
  }

 private:
  bool at_end() const { return pos_ >= w_.size(); }
  const std::string& peek() const { return w_[pos_]; }

  bool fail(const std::string& why) {
    error_ = why + " Usage: " + order_usage(word_);
    return false;
  }
  bool end() {
    if (!at_end()) return fail("Unexpected '" + peek() + "'.");
    return true;
  }

  // A location as the engine names it, or nothing.
  std::optional<std::string> location(const std::string& t) const {
    // Any hex inside the map's frame: whether units may go there is the server's to say.
    if (auto hex = parse_hex(t)) {
      const HexCoord c = coord_of(*hex);
      if (c.col > sc_.columns || c.row > sc_.rows) return std::nullopt;
      return format_hex(*hex);
    }
    auto l = sc_.parse_location(t);
    if (!l) return std::nullopt;
    return sc_.location_name(*l);
  }
  bool looks_like_hex(const std::string& t) const {
    return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
  }
  std::optional<std::string> unit(const std::string& t) const { return find_id(sc_.units, t); }
  std::optional<std::string> marker(const std::string& t) const {
    if (auto a = find_id(sc_.artillery, t)) return a;
    return find_id(sc_.stukas, t);
  }
  std::optional<std::string> chit(const std::string& t) const { return find_id(sc_.events, t); }
  std::optional<std::string> formation(const std::string& t) const { return find_id(sc_.formations, t); }

 public:
  // The scenario's own spelling of an id typed in any case.
  template <typename Items>
  static std::optional<std::string> find_id(const Items& items, const std::string& typed) {
    const std::string k = lower(typed);
    for (const auto& item : items) {
      if (lower(item.id) == k) return item.id;
    }
    return std::nullopt;
  }

 private:
  // The ids of `items` that begin with `prefix` (without case), joined with commas.
  template <typename Items>
  static std::string ids_starting(const Items& items, const std::string& prefix) {
    const std::string p = lower(prefix);
    std::string out;
    for (const auto& item : items) {
      if (lower(item.id).rfind(p, 0) == 0) out += (out.empty() ? "" : ", ") + item.id;
    }
    return out;
  }
  // The error for a token that should have been a unit.
  bool not_a_unit(const std::string& t) {
    if (looks_like_hex(t)) return fail(t + " is not a hex of the map.");
    // Well formed, but no such unit: the units of that formation, when it is one.
    if (const auto slash = t.find('/'); slash != std::string::npos) {
      const std::string same = ids_starting(sc_.units, t.substr(0, slash + 1));
      if (!same.empty()) return fail("There is no unit " + t + ": the units of " + t.substr(0, slash) + " are " + same + ".");
    }
    return fail("'" + t + "' is not a unit (units are written like 3TC/50 or HG/I-1).");
  }
  bool not_a_chit(const std::string& t) {
    // The chits of the side the name begins with (SOV-, GER-), or all of them.
    const auto dash = t.find('-');
    std::string same = dash == std::string::npos ? "" : ids_starting(sc_.events, t.substr(0, dash + 1));
    if (same.empty()) same = ids_starting(sc_.events, "");
    return fail("'" + t + "' is not an event chit; the chits are " + same + " (`hand` shows yours).");
  }
  bool not_a_location(const std::string& t) {
    if (looks_like_hex(t))
      return fail(t + " is not a hex of the map: its edges are irregular (`show --at HEX` shows the hexes around one).");
    return fail("'" + t + "' is not a location (a hex like 3546, WARSAW, or an entry point such as S3).");
  }

  // UNIT... up to the first location (or keyword); at least one.
  template <typename Field>
  bool unit_list(Field& out, bool stop_at_location) {
    while (!at_end()) {
      const std::string& t = peek();
      if (auto u = unit(t)) {
        out.Add(std::string(*u));
        ++pos_;
        continue;
      }
      if (stop_at_location && location(t)) break;
      if (stop_at_location && looks_like_hex(t)) return not_a_location(t);
      if (is_keyword(t)) break;
      return not_a_unit(t);
    }
    if (out.empty()) {
      if (at_end()) return fail("Name at least one unit.");
      return fail("Expected a unit before '" + peek() + "'.");
    }
    return true;
  }
  bool is_keyword(const std::string& t) const {
    static const std::vector<std::string> k = {"corps", "at",      "with",
                                               "chit",  "elastic", "desperate"};
    return std::find(k.begin(), k.end(), lower(t)) != k.end();
  }
  template <typename Field>
  bool location_list(Field& out, bool at_least_one) {
    while (!at_end()) {
      auto l = location(peek());
      if (!l) {
        if (unit(peek())) break;
        return not_a_location(peek());
      }
      out.Add(std::string(*l));
      ++pos_;
    }
    if (at_least_one && out.empty())
      return fail(at_end() ? "Expected a hex after the units."
                           : "Expected a hex, not '" + peek() + "'.");
    return true;
  }
  bool one_location(std::string* out) {
    if (at_end()) return fail("Expected a hex.");
    auto l = location(peek());
    if (!l) return not_a_location(peek());
    *out = *l;
    ++pos_;
    return true;
  }
  bool number(int* out) {
    if (at_end()) return fail("Expected a number after '" + w_[pos_ - 1] + "'.");
    const std::string& t = peek();
    if (t.empty() || t.size() > 2 || !std::all_of(t.begin(), t.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        })) {
      return fail("Expected a number, not '" + t + "'.");
    }
    *out = std::stoi(t);
    ++pos_;
    return true;
  }

  bool move(game::Move& m) {
    if (!unit_list(*m.mutable_units(), true)) return false;
    if (!location_list(*m.mutable_path(), true)) return false;
    if (!at_end())
      return fail("Units come before the hexes of the path; '" + peek() + "' is out of place.");
    return true;
  }
  bool corps(game::ActivateCorps& a) {
    if (at_end()) return fail("Name the corps.");
    auto f = formation(peek());
    if (!f) return fail("'" + peek() + "' is not a corps (3TC, 8GTC, 16TC).");
    a.set_corps(*f);
    ++pos_;
    if (!at_end()) {
      const std::string t = lower(peek());
      if (t == "+47" || t == "+47a" || t == "47" || t == "47a" || t == "+") {
        a.set_with_47th(true);
        ++pos_;
      } else {
        return fail("Expected +47 or nothing after the corps, not '" + peek() + "'.");
      }
    }
    return end();
  }
  template <typename Field>
  bool units_only(Field& out) {
    if (!unit_list(out, false)) return false;
    return end();
  }
  bool brk(game::BreakContact& b) {
    if (at_end()) return fail("Name each unit and the hex it moves to (or type stand).");
    while (!at_end()) {
      auto u = unit(peek());
      if (!u) return not_a_unit(peek());
      ++pos_;
      auto* step = b.add_moves();
      step->set_unit(*u);
      if (!one_location(step->mutable_to())) return false;
    }
    return true;
  }
  bool play(game::PlayEvent& p) {
    if (at_end()) return fail("Name the chit.");
    auto c = chit(peek());
    if (!c)
      return not_a_chit(peek());
    p.set_chit(*c);
    ++pos_;
    while (!at_end()) {
      const std::string t = lower(peek());
      if (t == "corps") {
        ++pos_;
        if (at_end()) return fail("Name the corps after 'corps'.");
        auto f = formation(peek());
        if (!f) return fail("'" + peek() + "' is not a corps.");
        p.set_corps(*f);
        ++pos_;
      } else if (t == "at") {
        ++pos_;
        if (!one_location(p.mutable_location())) return false;
      } else if (auto u = unit(peek())) {
        p.add_units(*u);
        ++pos_;
      } else if (location(peek())) {
        return fail("Write 'at " + peek() + "' for the location.");
      } else {
        return not_a_unit(peek());
      }
    }
    return true;
  }
  bool recover(game::Recover& r) {
    if (at_end()) return fail("Name the unit.");
    auto u = unit(peek());
    if (!u) return not_a_unit(peek());
    r.set_unit(*u);
    ++pos_;
    if (!at_end() && !one_location(r.mutable_location())) return false;
    return end();
  }
  bool choose(game::ChooseUnits& c) {
    if (at_end()) return fail("Name the units or markers.");
    while (!at_end()) {
      if (auto u = unit(peek()))
        c.add_units(*u);
      else if (auto m = marker(peek()))
        c.add_units(*m);
      else
        return fail("'" + peek() + "' is neither a unit nor an artillery or Stuka marker.");
      ++pos_;
    }
    return true;
  }
  bool overrun(game::Overrun& o) {
    if (!unit_list(*o.mutable_units(), true)) return false;
    if (!one_location(o.mutable_target())) return false;
    return end();
  }
  bool barrage(game::Barrage& b) {
    if (at_end()) return fail("Name the artillery or Stuka marker.");
    auto m = marker(peek());
    if (!m) return fail("'" + peek() + "' is not an artillery or Stuka marker (ART-HG, Stuka-1).");
    b.set_marker(*m);
    ++pos_;
    if (!one_location(b.mutable_target())) return false;
    return end();
  }
  bool attack(game::Attack& a) {
    if (!unit_list(*a.mutable_units(), true)) return false;
    if (!one_location(a.mutable_target())) return false;
    while (!at_end()) {
      const std::string t = lower(peek());
      ++pos_;
      if (t == "with") {
        if (at_end()) return fail("Name the support marker after 'with'.");
        auto m = marker(peek());
        if (!m) return fail("'" + peek() + "' is not an artillery or Stuka marker.");
        a.set_support(*m);
        ++pos_;
      } else if (t == "chit") {
        if (!chit_after(a.mutable_chit())) return false;
      } else {
        return fail("Expected 'with MARKER', 'chit CHIT' or nothing after the target, not '" +
                    w_[pos_ - 1] + "'.");
      }
    }
    return true;
  }
  bool chit_after(std::string* out) {
    if (at_end()) return fail("Name the event chit after 'chit'.");
    auto c = chit(peek());
    if (!c)
      return not_a_chit(peek());
    *out = *c;
    ++pos_;
    return true;
  }
  bool support(game::DefensiveSupport& d) {
    if (at_end()) return fail("Name the marker (or type nosupport).");
    if (lower(peek()) != "chit") {
      auto m = marker(peek());
      if (!m) return fail("'" + peek() + "' is not an artillery or Stuka marker.");
      d.set_marker(*m);
      ++pos_;
    }
    if (!at_end()) {
      if (lower(peek()) != "chit")
        return fail("Expected 'chit CHIT' or nothing, not '" + peek() + "'.");
      ++pos_;
      if (!chit_after(d.mutable_chit())) return false;
    }
    return end();
  }
  bool losses(game::TakeLosses& l) {
    while (!at_end()) {
      const std::string t = lower(peek());
      int n = 0;
      if (t == "elastic" || t == "desperate") {
        ++pos_;
        if (!number(&n)) return false;
        if (t == "elastic")
          l.set_elastic(n);
        else
          l.set_desperate(n);
      } else if (auto u = unit(peek())) {
        l.add_steps(*u);
        ++pos_;
      } else {
        return not_a_unit(peek());
      }
    }
    if (l.steps().empty() && l.elastic() == 0 && l.desperate() == 0)
      return fail("Name the units that lose the steps.");
    return true;
  }
  bool retreat(game::Retreat& r) {
    if (at_end()) return fail("Name the unit and its retreat path.");
    while (!at_end()) {
      auto u = unit(peek());
      if (!u) return not_a_unit(peek());
      ++pos_;
      auto* p = r.add_paths();
      p->set_unit(*u);
      if (!location_list(*p->mutable_path(), true)) return false;
    }
    return true;
  }
  bool advance(game::Advance& a) {
    if (at_end()) return true;  // no advance
    if (!unit_list(*a.mutable_units(), true)) return false;
    if (!location_list(*a.mutable_path(), true)) return false;
    return end();
  }
  // The re-roll is answered at its own decision: `model reroll` and `model noreroll` are that
  // answer, not a UseModel order (which the rules refuse for the re-roll).
  bool model(game::Order& o) {
    if (at_end()) return fail("Name the effect.");
    const std::string t = lower(peek());
    ++pos_;
    if (t == "reroll" || t == "noreroll") {
      o.mutable_reroll()->set_reroll(t == "reroll");
      return end();
    }
    auto& m = *o.mutable_use_model();
    if (t == "noncontiguous") {
      m.set_effect(game::UseModel::NON_ADJACENT_ATTACK);
      return end();
    }
    if (t == "division") {
      m.set_effect(game::UseModel::EXTRA_DIVISION);
      return end();
    }
    if (t == "reactivate") {
      m.set_effect(game::UseModel::REACTIVATE);
      return units_only(*m.mutable_units());
    }
    return fail("'" + w_[pos_ - 1] + "' is not one of FM Model's effects.");
  }

  const Scenario& sc_;
  std::vector<std::string> w_;
  size_t pos_ = 0;
  std::string word_, error_;
};

}  // namespace

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: a swap of two adjacent letters ('mvoe') is one edit, as typists make it.
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string nearest_word(const std::string& typed, std::initializer_list<const std::vector<std::string>*> candidates) {
  std::string best;
  std::size_t best_distance = 3;  // two edits at most
  for (const auto* list : candidates) {
    for (const auto& w : *list) {
      if (const auto d = edit_distance(typed, w); d < best_distance) {
        best_distance = d;
        best = w;
      }
    }
  }
  return best;
}

std::optional<std::string> chit_named(const std::string& typed, const Scenario& sc) {
  return Parser::find_id(sc.events, typed);
}

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

ParseResult parse_order(const std::string& line, const Scenario& sc) {
  return Parser(sc, split_words(line)).run();
}

const std::vector<std::string>& order_words() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> w;
    for (const auto& u : usages()) w.push_back(u.word);
    return w;
  }();
  return words;
}

std::string order_usage(const std::string& word) {
  for (const auto& u : usages()) {
    if (word == u.word) return u.usage;
  }
  return {};
}

std::string format_order(const game::Order& o) {
  std::string s;
  auto add = [&](const std::string& w) {
    if (!w.empty()) s += (s.empty() ? "" : " ") + w;
  };
  auto all = [&](const auto& list) {
    for (const auto& x : list) add(x);
  };
  switch (o.kind_case()) {
    case game::Order::kActivateCorps:
      add("corps");
      add(o.activate_corps().corps());
      if (o.activate_corps().with_47th()) add("+47");
      break;
    case game::Order::kMove:
      add("move");
      all(o.move().units());
      all(o.move().path());
      break;
    case game::Order::kPreparedDefense:
      add("pd");
      all(o.prepared_defense().units());
      break;
    case game::Order::kLiftPreparedDefense:
      add("lift");
      all(o.lift_prepared_defense().units());
      break;
    case game::Order::kPlaceReserve:
      add("reserve");
      all(o.place_reserve().units());
      break;
    case game::Order::kRemoveReserve:
      add("unreserve");
      all(o.remove_reserve().units());
      break;
    case game::Order::kBreakContact:
      if (o.break_contact().moves().empty()) {
        add("stand");
        break;
      }
      add("break");
      for (const auto& m : o.break_contact().moves()) {
        add(m.unit());
        add(m.to());
      }
      break;
    case game::Order::kPlayEvent:
      add("play");
      add(o.play_event().chit());
      all(o.play_event().units());
      if (!o.play_event().corps().empty()) add("corps " + o.play_event().corps());
      if (!o.play_event().location().empty()) add("at " + o.play_event().location());
      break;
    case game::Order::kRecover:
      add("recover");
      add(o.recover().unit());
      add(o.recover().location());
      break;
    case game::Order::kSuppressUprising:
      add("suppress");
      all(o.suppress_uprising().units());
      break;
    case game::Order::kChooseUnits:
      add("choose");
      all(o.choose_units().units());
      break;
    case game::Order::kDone:
      add("done");
      break;
    case game::Order::kUndo:
      add("undo");
      break;
    case game::Order::kOverrun:
      add("overrun");
      all(o.overrun().units());
      add(o.overrun().target());
      break;
    case game::Order::kBarrage:
      add("barrage");
      add(o.barrage().marker());
      add(o.barrage().target());
      break;
    case game::Order::kAttack:
      add("attack");
      all(o.attack().units());
      add(o.attack().target());
      if (!o.attack().support().empty()) add("with " + o.attack().support());
      if (!o.attack().chit().empty()) add("chit " + o.attack().chit());
      break;
    case game::Order::kDefensiveSupport:
      if (o.defensive_support().marker().empty() && o.defensive_support().chit().empty()) {
        add("nosupport");
        break;
      }
      add("support");
      add(o.defensive_support().marker());
      if (!o.defensive_support().chit().empty()) add("chit " + o.defensive_support().chit());
      break;
    case game::Order::kReroll:
      add(o.reroll().reroll() ? "reroll" : "noreroll");
      break;
    case game::Order::kTakeLosses:
      add("losses");
      all(o.take_losses().steps());
      if (o.take_losses().elastic()) add("elastic " + std::to_string(o.take_losses().elastic()));
      if (o.take_losses().desperate())
        add("desperate " + std::to_string(o.take_losses().desperate()));
      break;
    case game::Order::kRetreat:
      add("retreat");
      for (const auto& p : o.retreat().paths()) {
        add(p.unit());
        all(p.path());
      }
      break;
    case game::Order::kAdvance:
      add("advance");
      all(o.advance().units());
      all(o.advance().path());
      break;
    case game::Order::kUseModel:
      add("model");
      switch (o.use_model().effect()) {
        case game::UseModel::REROLL:
          add("reroll");
          break;
        case game::UseModel::REACTIVATE:
          add("reactivate");
          break;
        case game::UseModel::NON_ADJACENT_ATTACK:
          add("noncontiguous");
          break;
        case game::UseModel::EXTRA_DIVISION:
          add("division");
          break;
        default:
          break;
      }
      all(o.use_model().units());
      break;
    case game::Order::KIND_NOT_SET:
      break;
  }
  return s;
}

std::string path_start_hint(const game::Order& order, const std::string& units_at) {
  if (!order.has_move() || order.move().path().empty() || units_at.empty()) return "";
  if (order.move().path(0) != units_at || parse_hex(units_at)) return "";
  return units_at + " is named where the units already are: a path lists only the locations entered.";
}

std::string location_in_view(const game::View& view, const std::string& unit) {
  for (const auto& st : view.stacks()) {
    for (const auto& u : st.units()) {
      if (u.id() == unit) return st.location();
    }
  }
  return "";
}

}  // namespace counterattack::cli
