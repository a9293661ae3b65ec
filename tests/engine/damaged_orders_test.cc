// Damaged orders over random complete games: whatever a faulty or hostile
// client sends is either rejected with a code and a reason, changing nothing,
// or is a legal order after all and the game goes on from it (5).
#include <gtest/gtest.h>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "playout.h"

namespace counterattack {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

template <typename T>
const T& pick(const std::vector<T>& v, Prng& rng) {
  return v[rng.below(static_cast<std::uint32_t>(v.size()))];
}

// Games on the real map, with and without the optional rules.
const std::vector<std::pair<std::uint64_t, std::uint32_t>> kGames = {
    {1, 0},
    {2, kLimitedGermanActivation},
    {3, kRedArmyFlexibility | kRedArmyElasticDefense},
    {4, kLimitedGermanActivation | kRedArmyFlexibility | kLimitedBonus | kRedArmyElasticDefense},
    {5, 0},
};
constexpr long kMaxDecisions = 20000;  // a game that runs longer is a failure

// ---------------------------------------------------------------------------
// Wire orders, damaged field by field through reflection, so that all 21 kinds
// share one set of damages.
// ---------------------------------------------------------------------------

// What a string field names, read from its name; the damage fits the field.
enum class Role { Unit, Location, Marker, Chit, Corps };

Role role_of(const FieldDescriptor* f) {
  const std::string& n = f->name();
  if (n == "units" || n == "unit" || n == "steps") return Role::Unit;
  if (n == "marker" || n == "support") return Role::Marker;
  if (n == "chit") return Role::Chit;
  if (n == "corps") return Role::Corps;
  return Role::Location;  // path, target, location, to
}

struct Field {
  Message* msg;
  const FieldDescriptor* f;
};

// The fields of the order's kind, nested ones (break contact steps, retreat
// paths) included; lists are the repeated ones.
void fields_of(Message& m, std::vector<Field>& leaves, std::vector<Field>& lists) {
  const auto* r = m.GetReflection();
  const auto* d = m.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->is_repeated()) lists.push_back({&m, f});
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      leaves.push_back({&m, f});
    } else if (f->is_repeated()) {
      for (int k = 0; k < r->FieldSize(m, f); ++k) fields_of(*r->MutableRepeatedMessage(&m, f, k), leaves, lists);
    } else if (r->HasField(m, f)) {
      fields_of(*r->MutableMessage(&m, f), leaves, lists);
    }
  }
}

// The strings and numbers of an order, by role, to refill another kind with.
struct Bag {
  std::map<Role, std::vector<std::string>> strings;
  std::map<std::string, std::int64_t> numbers;  // by field name
};

void collect(const Message& m, Bag& bag) {
  const auto* r = m.GetReflection();
  const auto* d = m.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_MESSAGE:
        if (f->is_repeated()) {
          for (int k = 0; k < r->FieldSize(m, f); ++k) collect(r->GetRepeatedMessage(m, f, k), bag);
        } else if (r->HasField(m, f)) {
          collect(r->GetMessage(m, f), bag);
        }
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        if (f->is_repeated()) {
          for (int k = 0; k < r->FieldSize(m, f); ++k) bag.strings[role_of(f)].push_back(r->GetRepeatedString(m, f, k));
        } else if (!r->GetString(m, f).empty()) {
          bag.strings[role_of(f)].push_back(r->GetString(m, f));
        }
        break;
      case FieldDescriptor::CPPTYPE_INT32: bag.numbers[f->name()] = r->GetInt32(m, f); break;
      case FieldDescriptor::CPPTYPE_ENUM: bag.numbers[f->name()] = r->GetEnumValue(m, f); break;
      case FieldDescriptor::CPPTYPE_BOOL: bag.numbers[f->name()] = r->GetBool(m, f); break;
      default: break;
    }
  }
}

// Fills a message from a bag: lists take every string of their role, single
// fields the k-th; a list of steps or paths gets one entry per unit.
void fill(Message& m, const Bag& bag, size_t k) {
  const auto* r = m.GetReflection();
  const auto* d = m.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (!f->is_repeated()) continue;
      const auto units = bag.strings.find(Role::Unit);
      const size_t n = units == bag.strings.end() ? 1 : std::max<size_t>(1, units->second.size());
      for (size_t j = 0; j < n; ++j) fill(*r->AddMessage(&m, f), bag, j);
      continue;
    }
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      const auto it = bag.strings.find(role_of(f));
      if (it == bag.strings.end() || it->second.empty()) continue;
      if (f->is_repeated()) {
        for (const auto& v : it->second) r->AddString(&m, f, v);
      } else {
        r->SetString(&m, f, it->second[k % it->second.size()]);
      }
      continue;
    }
    const auto it = bag.numbers.find(f->name());
    if (it == bag.numbers.end()) continue;
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_INT32) r->SetInt32(&m, f, static_cast<std::int32_t>(it->second));
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) r->SetEnumValue(&m, f, static_cast<int>(it->second));
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_BOOL) r->SetBool(&m, f, it->second != 0);
  }
}

class WireDamage {
 public:
  WireDamage(const Engine& engine, Prng& rng) : e_(engine), sc_(engine.scenario()), rng_(rng) {}

  // A damaged copy of `base`, an order the decider could give in `s`.
  game::Order damage(const GameState& s, const game::Order& base) {
    s_ = &s;
    game::Order o = base;
    switch (rng_.below(12)) {
      case 0: o = switch_kind(o); break;
      case 1: o = from_scratch(); break;
      case 2: o.Clear(); break;  // no kind at all
      case 3:
        if (!damage_bytes(o)) damage_leaf(o);
        break;
      case 4:
      case 5:
      case 6: damage_leaf(o); break;
      case 7:
      case 8: damage_list(o); break;
      case 9:
        damage_list(o);
        damage_leaf(o);
        break;
      default:
        damage_leaf(o);
        damage_leaf(o);
        break;
    }
    // Damage that happens to change nothing is not damage: try again.
    for (int i = 0; i < 4 && o.SerializeAsString() == base.SerializeAsString(); ++i) {
      if (i % 2) {
        damage_list(o);
      } else {
        damage_leaf(o);
      }
    }
    return o;
  }

  std::string unit() {
    switch (rng_.below(8)) {
      case 0: return "";
      case 1: return pick(std::vector<std::string>{"nobody", "3TC/99", "PzA", "unit", "0", "-1"}, rng_);
      case 2: {
        std::string id = pick(sc_.units, rng_).id;
        for (auto& ch : id) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return id;
      }
      case 3: return pick(sc_.units, rng_).id + " ";
      default: return pick(sc_.units, rng_).id;  // another real unit
    }
  }

  std::string location(const std::string& now) {
    const auto at = sc_.parse_location(now);
    switch (rng_.below(12)) {
      case 0: return "";
      case 1: return "9999";
      case 2: return "0000";
      case 3: return pick(std::vector<std::string>{"eliminated", "Magnuszew", "calendar", "WARSAW", "waw", "x"}, rng_);
      case 4: {  // an off-map entry point
        const auto entries = static_cast<std::uint32_t>(sc_.entry_points.size());
        return sc_.location_name(sc_.entry_loc(static_cast<int>(rng_.below(entries))));
      }
      case 5: return now + "0";
      case 6:
        return pick(std::vector<std::string>{"-1", "17 08", "1708x", "0101", "4040", "12345678901234567890"}, rng_);
      case 7:
      case 8:
        return sc_.location_name(static_cast<Loc>(rng_.below(static_cast<std::uint32_t>(sc_.hex_count()))));  // far
      default:
        if (at && sc_.is_hex(*at)) {
          const Loc nb = sc_.hexes[static_cast<size_t>(*at)].nb[rng_.below(kDirs)];
          if (nb >= 0) return sc_.location_name(nb);
        }
        return sc_.location_name(static_cast<Loc>(rng_.below(static_cast<std::uint32_t>(sc_.hex_count()))));
    }
  }

  std::string marker() {
    switch (rng_.below(5)) {
      case 0: return "";
      case 1: return pick(std::vector<std::string>{"ART-XX", "Stuka-99", "art", "none"}, rng_);
      case 2: return pick(sc_.units, rng_).id;
      default: return rng_.below(2) || sc_.stukas.empty() ? pick(sc_.artillery, rng_).id : pick(sc_.stukas, rng_).id;
    }
  }

  // Chits held by the decider, held by the other side, still in a cup, or none.
  std::string chit() {
    const Side me = e_.decision(*s_).side;
    const auto& mine = s_->sides[static_cast<int>(me)];
    const auto& theirs = s_->sides[static_cast<int>(enemy_of(me))];
    switch (rng_.below(7)) {
      case 0: return "";
      case 1: return pick(std::vector<std::string>{"NO-SUCH-CHIT", "chit", "0"}, rng_);
      case 2:
        if (!mine.hand.empty()) return sc_.events[pick(mine.hand, rng_)].id;
        break;
      case 3:
        if (!theirs.hand.empty()) return sc_.events[pick(theirs.hand, rng_)].id;
        break;
      case 4:
        if (!mine.cup.empty()) return sc_.events[pick(mine.cup, rng_)].id;
        break;
      default: break;
    }
    return pick(sc_.events, rng_).id;
  }

  std::string corps() {
    switch (rng_.below(4)) {
      case 0: return "";
      case 1: return pick(std::vector<std::string>{"99TC", "corps", "3tc"}, rng_);
      default: return pick(sc_.formations, rng_).id;  // corps or not
    }
  }

  std::string value(Role role, const std::string& now) {
    switch (role) {
      case Role::Unit: return unit();
      case Role::Location: return location(now);
      case Role::Marker: return marker();
      case Role::Chit: return chit();
      case Role::Corps: return corps();
    }
    return "";
  }

  std::int32_t number() {
    return pick(std::vector<std::int32_t>{-1, -100, 1, 2, 3, 4, 9, 10, 100, INT32_MAX, INT32_MIN}, rng_);
  }

  // One field changed: another name, garbage, another number (often out of range).
  void damage_leaf(game::Order& o) {
    std::vector<Field> leaves, lists;
    fields_of(o, leaves, lists);
    if (leaves.empty()) {
      o = switch_kind(o);  // Done and an empty order have no fields
      return;
    }
    const auto [m, f] = pick(leaves, rng_);
    const auto* r = m->GetReflection();
    const int n = f->is_repeated() ? r->FieldSize(*m, f) : 0;
    const int k = n > 0 ? static_cast<int>(rng_.below(static_cast<std::uint32_t>(n))) : -1;
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING:
        if (!f->is_repeated()) {
          r->SetString(m, f, value(role_of(f), r->GetString(*m, f)));
        } else if (k >= 0) {
          r->SetRepeatedString(m, f, k, value(role_of(f), r->GetRepeatedString(*m, f, k)));
        } else {
          r->AddString(m, f, value(role_of(f), ""));
        }
        break;
      case FieldDescriptor::CPPTYPE_INT32: r->SetInt32(m, f, number()); break;
      case FieldDescriptor::CPPTYPE_ENUM: r->SetEnumValue(m, f, static_cast<int>(rng_.below(12)) - 3); break;
      case FieldDescriptor::CPPTYPE_BOOL: r->SetBool(m, f, !r->GetBool(*m, f)); break;
      default: break;
    }
  }

  // One list changed: an entry dropped, doubled, moved or added; cut short; emptied.
  void damage_list(game::Order& o) {
    std::vector<Field> leaves, lists;
    fields_of(o, leaves, lists);
    if (lists.empty()) {
      damage_leaf(o);
      return;
    }
    const auto [m, f] = pick(lists, rng_);
    const auto* r = m->GetReflection();
    const int n = r->FieldSize(*m, f);
    const bool text = f->cpp_type() == FieldDescriptor::CPPTYPE_STRING;
    const int k = n > 0 ? static_cast<int>(rng_.below(static_cast<std::uint32_t>(n))) : 0;
    switch (n == 0 ? 3 : rng_.below(6)) {
      case 0:  // drop one, keeping the order of the rest
        for (int i = k; i + 1 < n; ++i) r->SwapElements(m, f, i, i + 1);
        r->RemoveLast(m, f);
        break;
      case 1:  // name one twice
        if (text) {
          r->AddString(m, f, r->GetRepeatedString(*m, f, k));
        } else {
          r->AddMessage(m, f)->CopyFrom(r->GetRepeatedMessage(*m, f, k));
        }
        break;
      case 2:  // cut short
        for (int i = static_cast<int>(rng_.below(static_cast<std::uint32_t>(n))); i < n; ++i) r->RemoveLast(m, f);
        break;
      case 3:  // one more: the next hex on, another unit
        if (text) {
          r->AddString(m, f, value(role_of(f), n > 0 ? r->GetRepeatedString(*m, f, n - 1) : ""));
        } else {
          Message* added = r->AddMessage(m, f);
          if (n > 0) added->CopyFrom(r->GetRepeatedMessage(*m, f, k));
        }
        break;
      case 4: r->ClearField(m, f); break;
      default: r->SwapElements(m, f, k, static_cast<int>(rng_.below(static_cast<std::uint32_t>(n)))); break;
    }
  }

  // The same names and numbers under another kind (or none).
  game::Order switch_kind(const game::Order& from) {
    Bag bag;
    collect(from, bag);
    return of_kind(bag, static_cast<int>(rng_.below(23)));
  }

  // An order of any kind made from random names.
  game::Order from_scratch() {
    Bag bag;
    const Side me = e_.decision(*s_).side;
    std::vector<std::string> mine;
    for (size_t u = 0; u < sc_.units.size(); ++u) {
      if (sc_.units[u].side == me && sc_.on_board(s_->units[u].loc)) mine.push_back(sc_.units[u].id);
    }
    for (std::uint32_t i = rng_.below(4); i > 0; --i) {
      bag.strings[Role::Unit].push_back(rng_.below(3) && !mine.empty() ? pick(mine, rng_) : unit());
    }
    std::string at = bag.strings[Role::Unit].empty() ? "" : bag.strings[Role::Unit][0];
    if (auto u = sc_.unit_index(at)) at = sc_.location_name(s_->units[static_cast<size_t>(*u)].loc);
    for (std::uint32_t i = rng_.below(5); i > 0; --i) {
      at = location(at);
      bag.strings[Role::Location].push_back(at);
    }
    if (rng_.below(2)) bag.strings[Role::Marker].push_back(marker());
    if (rng_.below(2)) bag.strings[Role::Chit].push_back(chit());
    if (rng_.below(2)) bag.strings[Role::Corps].push_back(corps());
    for (const char* name : {"with_47th", "elastic", "desperate", "effect", "reroll"}) {
      if (rng_.below(2)) bag.numbers[name] = rng_.below(3) ? static_cast<std::int64_t>(rng_.below(6)) : number();
    }
    return of_kind(bag, static_cast<int>(rng_.below(23)));
  }

  // Kind 0 is an order without a kind; 1..22 are the oneof's fields.
  static game::Order of_kind(const Bag& bag, int kind) {
    game::Order o;
    if (kind == 0) return o;
    const FieldDescriptor* f = game::Order::descriptor()->FindFieldByNumber(kind);
    fill(*o.GetReflection()->MutableMessage(&o, f), bag, 0);
    return o;
  }

  // Bits flipped, bytes cut or added in the encoded order; false when the
  // result no longer parses (a server never gets that far).
  bool damage_bytes(game::Order& o) {
    std::string b = o.SerializeAsString();
    if (b.empty()) return false;
    const size_t at = rng_.below(static_cast<std::uint32_t>(b.size()));
    switch (rng_.below(4)) {
      case 0: b[at] = static_cast<char>(b[at] ^ (1 << rng_.below(8))); break;
      case 1: b.resize(at); break;
      case 2: b.insert(at, 1, static_cast<char>(rng_.below(256))); break;
      default: b[at] = static_cast<char>(rng_.below(256)); break;
    }
    game::Order parsed;
    const google::protobuf::LogSilencer quiet;  // broken UTF-8 is logged, then refused
    if (!parsed.ParseFromString(b)) return false;
    o = parsed;
    return true;
  }

 private:
  const Engine& e_;
  const Scenario& sc_;
  Prng& rng_;
  const GameState* s_ = nullptr;
};

// ---------------------------------------------------------------------------
// Engine orders, as code (a bot, a tool) may build them: numbers out of range.
// ---------------------------------------------------------------------------

class EngineDamage {
 public:
  EngineDamage(const Engine& engine, Prng& rng) : e_(engine), sc_(engine.scenario()), rng_(rng) {}

  // Damages a field the order's kind reads (a field it ignores is no damage),
  // or the kind itself.
  Order damage(const GameState& s, Order o) {
    using K = Order::Kind;
    const int units = static_cast<int>(sc_.units.size()), locs = sc_.location_count();
    const int formations = static_cast<int>(sc_.formations.size()), events = static_cast<int>(sc_.events.size());
    const int markers = static_cast<int>(sc_.artillery.size() + sc_.stukas.size());
    enum Part { Units, Path, Paths, Corps, Chit, Markers, Exchange, Effect };
    static const std::map<K, std::vector<Part>> reads = {
        {K::ActivateCorps, {Corps}},
        {K::Move, {Units, Path}},
        {K::PreparedDefense, {Units}},
        {K::LiftPreparedDefense, {Units}},
        {K::PlaceReserve, {Units}},
        {K::RemoveReserve, {Units}},
        {K::BreakContact, {Units, Path}},
        {K::PlayEvent, {Chit, Units, Corps, Path}},
        {K::Recover, {Units, Path}},
        {K::SuppressUprising, {Units}},
        {K::ChooseUnits, {Units, Markers}},
        {K::Done, {}},
        {K::Overrun, {Units, Path}},
        {K::Barrage, {Markers, Path}},
        {K::Attack, {Units, Path, Markers, Chit}},
        {K::DefensiveSupport, {Markers, Chit}},
        {K::TakeLosses, {Units, Exchange}},
        {K::Retreat, {Units, Paths}},
        {K::Advance, {Units, Path}},
        {K::UseModel, {Effect, Units}},
        {K::Reroll, {}},
        {K::Undo, {}},
    };
    const auto& fields = reads.at(o.kind);
    const std::uint32_t pick_kind = rng_.below(10);
    out_of_range = !(fields.empty() || pick_kind < 3);
    if (!out_of_range) {
      if (pick_kind == 0) {
        o.kind = static_cast<K>(22 + rng_.below(234));  // no such kind
      } else {
        o.kind = static_cast<K>(rng_.below(22));  // another kind, same fields
      }
      return o;
    }
    switch (pick(fields, rng_)) {
      case Units: put(o.units, {-1, -100, units, units + 1, 9999, INT16_MAX, INT16_MIN}); break;
      case Path:
        put(o.path, {kNotArrived, kEliminated, kWithdrawn, -4, locs, locs + 1, 9999, INT16_MAX, INT16_MIN});
        break;
      case Paths:
        if (o.paths.empty() || rng_.below(3) == 0) o.paths.emplace_back();
        put(o.paths[rng_.below(static_cast<std::uint32_t>(o.paths.size()))],
            {kNotArrived, kEliminated, kWithdrawn, locs, 9999, INT16_MAX, INT16_MIN});
        break;
      case Corps:
        o.corps = number({-2, -100, formations, 31, 32, 9999, INT16_MAX, INT16_MIN});
        // Only the second corps activation reads the corps of an event.
        if (o.kind == K::PlayEvent) {
          out_of_range = sc_.events[static_cast<size_t>(o.chit)].effect == data::EXTRA_CORPS_ACTIVATION;
        }
        break;
      case Chit: {
        // Any negative chit means none. 256 + a held chit reads as that chit
        // where chits are kept in bytes.
        const auto& hand = s.sides[static_cast<int>(e_.decision(s).side)].hand;
        if (!hand.empty() && rng_.below(2)) {
          o.chit = static_cast<std::int16_t>(256 + pick(hand, rng_));
        } else {
          o.chit = number({events, events + 1, 255, 256, 9999, INT16_MAX});
        }
        break;
      }
      case Markers: put(o.markers, {-1, -2, markers, markers + 1, 256, 9999, INT16_MAX, INT16_MIN}); break;
      case Exchange: {
        auto& n = rng_.below(2) ? o.elastic : o.desperate;
        n = static_cast<std::int8_t>(pick(std::vector<int>{-128, -1, 10, 100, 127}, rng_));
        break;
      }
      case Effect: o.effect = static_cast<std::int8_t>(pick(std::vector<int>{-128, -1, 5, 100, 127}, rng_)); break;
    }
    return o;
  }

  bool out_of_range = false;  // the last damage put a number out of range (not a kind)

 private:
  std::int16_t number(const std::vector<int>& from) { return static_cast<std::int16_t>(pick(from, rng_)); }
  // Replaces an entry, or adds one.
  void put(std::vector<std::int16_t>& v, const std::vector<int>& from) {
    if (v.empty() || rng_.below(3) == 0) {
      v.push_back(number(from));
    } else {
      v[rng_.below(static_cast<std::uint32_t>(v.size()))] = number(from);
    }
  }

  const Engine& e_;
  const Scenario& sc_;
  Prng& rng_;
};

// Raw numbers: to_proto would index with them.
std::string describe(const Order& o) {
  auto list = [](const auto& v) {
    std::string out = "[";
    for (auto x : v) out += (out.size() > 1 ? " " : "") + std::to_string(x);
    return out + "]";
  };
  std::string paths;
  for (const auto& p : o.paths) paths += list(p);
  return "kind " + std::to_string(static_cast<int>(o.kind)) + " units " + list(o.units) + " path " + list(o.path) +
         " paths [" + paths + "] corps " + std::to_string(o.corps) + " with_47th " + std::to_string(o.with_47th) +
         " chit " + std::to_string(o.chit) + " markers " + list(o.markers) + " elastic " + std::to_string(o.elastic) +
         " desperate " + std::to_string(o.desperate) + " effect " + std::to_string(o.effect) + " yes " +
         std::to_string(o.yes);
}

// ---------------------------------------------------------------------------
// The referee: sends an order, checks the answer, keeps the counts.
// ---------------------------------------------------------------------------

struct Tally {
  long tried = 0, rejected = 0, accepted = 0;
};

// Wire kinds: 0 is an order without a kind, 1..22 the oneof's fields; engine
// kinds are in the same order, one lower.
std::string kind_name(int wire_kind) {
  if (wire_kind == 0) return "(no kind)";
  if (wire_kind > 22) return "(kind out of range)";
  return game::Order::descriptor()->FindFieldByNumber(wire_kind)->name();
}
std::string kind_name(Order::Kind k) {
  return kind_name(static_cast<int>(k) + 1);
}

class Referee {
 public:
  explicit Referee(const Engine& engine) : e_(engine) {}

  void fail(const std::string& what) {
    if (++problems <= 10) ADD_FAILURE() << what;
  }

  // The codec refused the order: a code and a reason are owed all the same.
  void refused(const std::string& kind, const Rejection& why, const std::function<std::string()>& what) {
    Tally& t = by_kind[kind];
    t.tried++;
    t.rejected++;
    by_code[why.code]++;
    if (auto p = problem(why); !p.empty()) fail(what() + p);
  }

  // True when the order was accepted and the game moved on.
  bool send(GameState& s, Prng& dice, Side decider, Side who, const Order& o, const std::string& kind,
            const std::function<std::string()>& what) {
    Tally& t = by_kind[kind];
    t.tried++;
    const GameState before = s;
    const std::uint64_t hash = state_hash(s);
    const Prng::State dice_before = dice.state();
    const Outcome out = e_.apply(s, who, o, dice);
    if (!out.accepted) {
      t.rejected++;
      by_code[out.rejection.code]++;
      if (auto p = problem(out.rejection); !p.empty()) fail(what() + p);
      if (!(s == before) || state_hash(s) != hash) fail(what() + "rejected, but the state changed");
      if (dice.state() != dice_before) fail(what() + "rejected, but the dice were rolled");
      if (!out.events.empty()) fail(what() + "rejected, but events were logged");
      s = before;  // go on from the game as it was
      dice = Prng(dice_before);
      return false;
    }
    t.accepted++;
    if (who != decider) fail(what() + "accepted from the side that does not decide");
    std::vector<std::string> broken;
    check_state(e_, s, broken);
    for (const auto& b : broken) fail(what() + "accepted, and then: " + b);
    return true;
  }

  // Not vacuous: each wire kind from `first` to `last` was sent often enough,
  // and nearly all orders were refused.
  void expect_coverage(int first, int last, int min_each, int min_rejected_percent) {
    long tried = 0, rejected = 0;
    for (int kind = first; kind <= last; ++kind) {
      const std::string k = kind_name(kind);
      const Tally& t = by_kind[k];
      EXPECT_GE(t.tried, min_each) << k;
      ::testing::Test::RecordProperty(k, std::to_string(t.tried) + " tried, " + std::to_string(t.rejected) +
                                             " rejected, " + std::to_string(t.accepted) + " accepted");
    }
    for (const auto& [k, t] : by_kind) {
      tried += t.tried;
      rejected += t.rejected;
    }
    for (const auto& [code, n] : by_code) {
      ::testing::Test::RecordProperty(game::RejectCode_Name(code), std::to_string(n));
    }
    EXPECT_EQ(problems, 0);
    EXPECT_GT(tried, 10000);
    EXPECT_GE(rejected * 100, tried * min_rejected_percent)
        << rejected << " of " << tried << " damaged orders rejected";
  }

  std::map<std::string, Tally> by_kind;
  std::map<game::RejectCode, long> by_code;
  long problems = 0;

 private:
  static std::string problem(const Rejection& why) {
    if (why.code == game::REJECT_UNSPECIFIED) return "rejected without a code: '" + why.reason + "'";
    if (why.reason.empty()) return std::string("rejected with ") + game::RejectCode_Name(why.code) + " but no reason";
    return "";
  }

  const Engine& e_;
};

// Plays the games with the playouts' random players. At each decision
// `probe(s, decision, legal, dice, rng, where)` sends damaged orders, and
// returns true when one was accepted: the game then goes on from there.
template <typename Probe>
void play_games(const Engine& engine, Referee& ref, Probe probe) {
  for (const auto& [seed, options] : kGames) {
    Prng dice = Prng::from_seed(seed);
    Prng choices = Prng::from_seed(seed ^ 0x5DEECE66Dull);
    Prng rng = Prng::from_seed(seed * 0x9E3779B97F4A7C15ull);
    GameState s = engine.new_game(options, dice);
    long decision = 0;
    while (s.step != Step::GameOver && decision < kMaxDecisions) {
      ++decision;
      const Decision d = engine.decision(s);
      // The orders to damage. Listing every move of every unit is slow: in
      // movement, a few random legal orders and the overruns stand for them.
      const bool moving = d.kind == game::Decision::MOVEMENT || d.kind == game::Decision::RESERVES;
      std::vector<Order> legal = moving ? engine.legal_overruns(s) : engine.legal_orders(s);
      for (int i = 0; moving && i < 3; ++i) legal.push_back(random_order(engine, s, rng));
      if (legal.empty()) legal.push_back(Order::done());
      const std::string where = "seed " + std::to_string(seed) + " decision " + std::to_string(decision) + " (turn " +
                                std::to_string(s.turn) + " " + engine.phase_name(s) + " " + step_name(s.step) + "): ";
      // Combat answers and administrative choices are rare: damage them more.
      const bool common = moving || d.kind == game::Decision::BARRAGE || d.kind == game::Decision::COMBAT;
      bool moved_on = false;
      for (int attempt = 0; attempt < (common ? 4 : 30) && !moved_on; ++attempt) {
        moved_on = probe(s, d, legal, dice, rng, where);
      }
      if (moved_on) continue;
      const Order o = random_order(engine, s, choices);
      const Outcome out = engine.apply(s, d.side, o, dice);
      if (!out.accepted) {
        ref.fail(where + "a legal order was rejected: " + engine.to_proto(o).ShortDebugString() + ": " +
                 out.rejection.reason);
        break;
      }
      std::vector<std::string> broken;
      check_state(engine, s, broken);
      if (decision % 25 == 0) check_views(engine, s, choices, broken);
      for (const auto& b : broken) ref.fail(where + b);
    }
    EXPECT_EQ(s.step, Step::GameOver) << "seed " << seed << " did not finish in " << kMaxDecisions << " decisions";
  }
}

// Property: over random complete games, at every decision, wire orders damaged
// from the legal ones (and made from random names) are rejected with a code and
// a reason and leave the state, its hash and the dice exactly as they were; the
// few that are legal after all are played, and the invariants still hold.
TEST(DamagedOrders, Rule5_DamagedOrdersAreRejectedAndChangeNothing) {
  const Engine engine(default_scenario());
  Referee ref(engine);
  auto probe = [&](GameState& s, const Decision& d, const std::vector<Order>& legal, Prng& dice, Prng& rng,
                   const std::string& where) {
    WireDamage damage(engine, rng);
    const game::Order base = engine.to_proto(pick(legal, rng));
    // Now and then the order, damaged or not, comes from the side that does not decide.
    const bool wrong_side = rng.below(8) == 0;
    const game::Order bad = wrong_side && rng.below(2) ? base : damage.damage(s, base);
    const Side who = wrong_side ? enemy_of(d.side) : d.side;
    const std::string kind = kind_name(static_cast<int>(bad.kind_case()));
    auto what = [&] { return where + side_name(who) + " sends {" + bad.ShortDebugString() + "}: "; };
    Order o;
    Rejection why;
    if (!engine.from_proto(bad, o, why)) {
      ref.refused(kind, why, what);
      return false;
    }
    return ref.send(s, dice, d.side, who, o, kind, what);
  };
  play_games(engine, ref, probe);
  ref.expect_coverage(0, 22, 100, 90);
}

// A hex number of the map's range that is not on the map (its edges are
// irregular) is named as such; a name that is no location says what one is.
TEST(DamagedOrders, Rule5_ALocationNotOnTheMapIsNamedAsSuch) {
  const Engine engine(default_scenario());
  game::Order wire;
  auto* m = wire.mutable_move();
  m->add_units("3TC/50");
  m->add_path("1708");
  Order o;
  Rejection why;
  ASSERT_FALSE(engine.from_proto(wire, o, why));
  EXPECT_EQ(why.code, game::UNKNOWN_LOCATION);
  EXPECT_EQ(why.reason, "There is no hex 1708 on the map: its edges are irregular.");
  m->set_path(0, "4501");  // a gap in the top row: its neighbours on the map are named
  ASSERT_FALSE(engine.from_proto(wire, o, why));
  EXPECT_EQ(why.reason, "There is no hex 4501 on the map: its edges are irregular; next to it on the map: 4601, 4502, 4401.");
  m->set_path(0, "PARIS");
  ASSERT_FALSE(engine.from_proto(wire, o, why));
  EXPECT_EQ(why.reason, "There is no location 'PARIS' (a hex like 3546, WARSAW, or an entry point such as S3).");
  m->set_path(0, "4742");
  EXPECT_TRUE(engine.from_proto(wire, o, why)) << why.reason;
}

// Property: the same for engine orders with numbers out of range: unit and
// location indices, corps, chits, markers, exchanges, Model's effects and the
// kind itself. Apply checks an order in full, whoever built it.
TEST(DamagedOrders, Rule5_EngineOrdersWithNumbersOutOfRangeAreRejected) {
  const Engine engine(default_scenario());
  Referee ref(engine);
  auto probe = [&](GameState& s, const Decision& d, const std::vector<Order>& legal, Prng& dice, Prng& rng,
                   const std::string& where) {
    EngineDamage damage(engine, rng);
    const Order bad = damage.damage(s, pick(legal, rng));
    const std::string kind = kind_name(bad.kind);  // a kind past the last is "(kind out of range)"
    auto what = [&] { return where + "order {" + describe(bad) + "}: "; };
    const bool accepted = ref.send(s, dice, d.side, d.side, bad, kind, what);
    if (accepted && damage.out_of_range) ref.fail(what() + "accepted with a number out of range");
    return accepted;
  };
  play_games(engine, ref, probe);
  ref.expect_coverage(1, 23, 100, 90);
}

// ---------------------------------------------------------------------------
// Damaged saved states
// ---------------------------------------------------------------------------

// Random bytes, and real encoded states cut short, bit-flipped or spliced,
// either decode to a state that encodes back to the same bytes, or are refused
// leaving the target alone; the decoder never crashes.
TEST(DamagedStates, RandomAndDamagedBytesDecodeOrAreRefusedNeverCrash) {
  const Engine engine(default_scenario());
  const Scenario& sc = engine.scenario();
  Prng dice = Prng::from_seed(31), choices = Prng::from_seed(32), rng = Prng::from_seed(33);
  // Real states from every stage of a game.
  std::vector<std::string> real;
  GameState s = engine.new_game(kLimitedGermanActivation, dice);
  for (int n = 0; s.step != Step::GameOver && n < 20000; ++n) {
    if (n % 25 == 0) real.push_back(encode_state(s));
    ASSERT_TRUE(engine.apply(s, engine.decision(s).side, random_order(engine, s, choices), dice).accepted);
  }
  real.push_back(encode_state(s));
  ASSERT_GT(real.size(), 10u);

  GameState untouched = engine.new_game(0, dice);
  untouched.result_reason = "untouched";
  long decoded = 0, refused = 0;
  auto probe = [&](const std::string& bytes, bool must_refuse) {
    GameState out = untouched;
    if (decode_state(sc, bytes, out)) {
      ++decoded;
      EXPECT_FALSE(must_refuse) << "a truncated state decoded";
      EXPECT_EQ(encode_state(out), bytes) << "a decoded state does not encode back to its bytes";
    } else {
      ++refused;
      EXPECT_TRUE(out == untouched) << "a refused decode changed its target";
    }
  };
  auto random_bytes = [&](size_t n) {
    std::string b(n, '\0');
    for (auto& ch : b) ch = static_cast<char>(rng.below(256));
    return b;
  };
  for (const auto& r : real) probe(r, false);
  EXPECT_EQ(decoded, static_cast<long>(real.size()));
  for (int i = 0; i < 2000; ++i) probe(random_bytes(rng.below(2) ? rng.below(16) : rng.below(2000)), false);
  for (int i = 0; i < 20000; ++i) {
    std::string b = pick(real, rng);
    const size_t at = rng.below(static_cast<std::uint32_t>(b.size()));
    switch (rng.below(6)) {
      case 0:
        b.resize(at);
        probe(b, true);
        continue;
      case 1:
        for (std::uint32_t k = 1 + rng.below(3); k > 0; --k) {
          const size_t bit = rng.below(static_cast<std::uint32_t>(b.size() * 8));
          b[bit / 8] = static_cast<char>(b[bit / 8] ^ (1 << (bit % 8)));
        }
        break;
      case 2: b[at] = static_cast<char>(rng.below(256)); break;
      case 3: b.insert(at, random_bytes(1 + rng.below(8))); break;
      case 4: b.erase(at, 1 + rng.below(8)); break;
      default: b = b.substr(0, at) + random_bytes(rng.below(64)); break;  // a real start, then noise
    }
    probe(b, false);
  }
  ::testing::Test::RecordProperty("decoded", std::to_string(decoded));
  ::testing::Test::RecordProperty("refused", std::to_string(refused));
  EXPECT_GT(refused, 10000);
}

}  // namespace
}  // namespace counterattack
