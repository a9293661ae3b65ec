#include "state.h"

#include <algorithm>

namespace counterattack {

const char* step_name(Step s) {
  switch (s) {
    case Step::Recovery: return "Recovery";
    case Step::UprisingSuppression: return "Uprising suppression";
    case Step::UprisingStepLoss: return "Uprising step loss";
    case Step::UprisingUnitsMoved: return "Uprising units moved";
    case Step::Magnuszew: return "Magnuszew withdrawal";
    case Step::ChooseCorps: return "Corps activation";
    case Step::Movement: return "Movement";
    case Step::Barrage: return "Barrage";
    case Step::Combat: return "Combat";
    case Step::Reserves: return "Reserves";
    case Step::GameOver: return "Game over";
  }
  return "?";
}

namespace {

constexpr std::uint32_t kFormatVersion = 2;

// The canonical encoding goes to a sink: a string, or straight into the hash,
// so that hashing a state builds no string.
struct StringSink {
  std::string out;
  void put(unsigned char c) { out.push_back(static_cast<char>(c)); }
};

struct Fnv1aSink {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void put(unsigned char c) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
};

template <typename Sink>
class Writer {
 public:
  explicit Writer(Sink& sink) : sink_(sink) {}
  void u(std::uint64_t v) {
    while (v >= 0x80) {
      sink_.put(static_cast<unsigned char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    sink_.put(static_cast<unsigned char>(v));
  }
  void i(std::int64_t v) { u((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63)); }
  void b(bool v) { u(v ? 1 : 0); }
  template <typename T>
  void vec(const std::vector<T>& v) {
    u(v.size());
    for (const auto& x : v) i(static_cast<std::int64_t>(x));
  }
  void raw(const std::string& bytes) {
    for (unsigned char c : bytes) sink_.put(c);
  }

 private:
  Sink& sink_;
};

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}
  std::uint64_t u() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= s_.size()) {
        ok = false;
        return 0;
      }
      const auto byte = static_cast<std::uint8_t>(s_[pos_++]);
      v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if (!(byte & 0x80)) return v;
    }
    ok = false;
    return 0;
  }
  std::int64_t i() {
    const std::uint64_t v = u();
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
  }
  bool b() { return u() != 0; }
  template <typename T>
  void vec(std::vector<T>& v, size_t max) {
    const auto n = u();
    if (n > max) {
      ok = false;
      return;
    }
    v.resize(n);
    for (auto& x : v) x = static_cast<T>(i());
  }
  std::string raw(size_t n) {
    if (s_.size() - pos_ < n) {
      ok = false;
      return {};
    }
    std::string out = s_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  bool done() const { return pos_ == s_.size(); }
  bool ok = true;

 private:
  const std::string& s_;
  size_t pos_ = 0;
};

template <typename Sink>
void write_state(Writer<Sink>& w, const GameState& s) {
  w.u(kFormatVersion);
  w.u(s.options);
  w.u(s.turn);
  w.u(static_cast<std::uint8_t>(s.step));
  w.u(s.activation);
  w.i(s.active_corps);
  w.i(s.extra_corps);
  w.u(s.corps_done);
  w.i(s.forty_seventh_phase);
  w.u(s.divisions_this_phase);
  w.i(s.extra_division_unit);
  w.b(s.no_break_contact);
  w.u(s.units.size());
  for (const auto& u : s.units) {
    w.i(u.loc);
    w.u(u.hits);
    w.u(u.flags);
    w.u(u.reserve);
    w.i(u.mp_used);
    w.u(u.stack_seq);
    w.i(u.bonus);
  }
  w.vec(s.mover);
  w.b(s.mover_stopped);
  w.i(s.pending_break.entered);
  w.vec(s.pending_break.eligible);
  const auto& c = s.combat;
  w.u(static_cast<std::uint8_t>(c.stage));
  w.b(c.overrun);
  w.vec(c.attackers);
  w.vec(c.defenders);
  w.i(c.target);
  w.i(c.attacker_support);
  w.i(c.defender_support);
  w.i(c.chit_drm);
  if (s.options & kClearerTexts) {
    w.i(c.attacker_chit);
    w.i(c.defender_chit);
  }
  w.b(c.no_elastic);
  w.i(c.column);
  w.i(c.die);
  w.i(c.modifier);
  w.u(c.attacker_steps);
  w.u(c.defender_steps);
  w.u(c.retreat);
  w.b(c.yellow);
  w.u(c.retreated);
  w.b(c.defender_gone);
  w.u(c.barrage_result);
  w.vec(s.attacked_hexes);
  w.vec(s.barraged_hexes);
  w.vec(s.stuka_hexes);
  w.b(s.model_noncontiguous);
  w.b(s.model_extra_division);
  w.vec(s.artillery);
  w.vec(s.stukas);
  for (const auto& side : s.sides) {
    w.vec(side.cup);
    w.vec(side.hand);
    w.u(side.events_this_phase);
  }
  w.u(static_cast<std::uint8_t>(s.uprising));
  w.i(s.uprising_box);
  w.i(s.bridge_extra_half);
  w.b(s.bridges_closed);
  w.u(s.uprising_pending);
  w.u(s.jozefow);
  w.u(s.soviet_bonus_vp);
  w.i(s.model_turn);
  w.b(s.model_used);
  w.u(s.next_seq);
  w.u(static_cast<std::uint8_t>(s.result));
  w.u(s.result_reason.size());
  w.raw(s.result_reason);
}

}  // namespace

std::string encode_state(const GameState& s) {
  StringSink sink;
  sink.out.reserve(1024);
  Writer w(sink);
  write_state(w, s);
  if (!s.takeback.empty()) {
    w.u(s.takeback.before.size());
    for (const auto& before : s.takeback.before) write_state(w, *before);
  }
  return std::move(sink.out);
}

namespace {

// One position; the caller checks that the bytes end where they should.
bool read_state(Reader& r, const Scenario& sc, GameState& s) {
  if (r.u() != kFormatVersion) return false;
  s.options = static_cast<std::uint32_t>(r.u());
  s.turn = static_cast<std::uint8_t>(r.u());
  const auto step = r.u();
  if (step > static_cast<std::uint64_t>(Step::GameOver)) return false;
  s.step = static_cast<Step>(step);
  s.activation = static_cast<std::uint8_t>(r.u());
  s.active_corps = static_cast<std::int8_t>(r.i());
  s.extra_corps = static_cast<std::int8_t>(r.i());
  s.corps_done = static_cast<std::uint32_t>(r.u());
  s.forty_seventh_phase = static_cast<std::int8_t>(r.i());
  s.divisions_this_phase = static_cast<std::uint32_t>(r.u());
  s.extra_division_unit = static_cast<std::int16_t>(r.i());
  s.no_break_contact = r.b();
  const auto n = r.u();
  if (n != sc.units.size()) return false;
  s.units.resize(n);
  for (auto& u : s.units) {
    u.loc = static_cast<Loc>(r.i());
    u.hits = static_cast<std::uint8_t>(r.u());
    u.flags = static_cast<std::uint16_t>(r.u());
    u.reserve = static_cast<std::uint8_t>(r.u());
    u.mp_used = static_cast<std::int16_t>(r.i());
    u.stack_seq = static_cast<std::uint32_t>(r.u());
    u.bonus = static_cast<std::int8_t>(r.i());
    if (u.loc < kWithdrawn || u.loc >= sc.location_count()) return false;
  }
  r.vec(s.mover, sc.units.size());
  s.mover_stopped = r.b();
  s.pending_break.entered = static_cast<Loc>(r.i());
  r.vec(s.pending_break.eligible, sc.units.size());
  auto& c = s.combat;
  const auto stage = r.u();
  if (stage > static_cast<std::uint64_t>(CombatStage::BarrageLoss)) return false;
  c.stage = static_cast<CombatStage>(stage);
  c.overrun = r.b();
  r.vec(c.attackers, sc.units.size());
  r.vec(c.defenders, sc.units.size());
  c.target = static_cast<Loc>(r.i());
  c.attacker_support = static_cast<std::int8_t>(r.i());
  c.defender_support = static_cast<std::int8_t>(r.i());
  c.chit_drm = static_cast<std::int8_t>(r.i());
  if (s.options & kClearerTexts) {
    for (std::int16_t* chit : {&c.attacker_chit, &c.defender_chit}) {
      const auto i = r.i();
      if (i < -1 || i >= static_cast<std::int64_t>(sc.events.size())) return false;
      *chit = static_cast<std::int16_t>(i);
    }
  }
  c.no_elastic = r.b();
  c.column = static_cast<std::int8_t>(r.i());
  c.die = static_cast<std::int8_t>(r.i());
  c.modifier = static_cast<std::int8_t>(r.i());
  c.attacker_steps = static_cast<std::uint8_t>(r.u());
  c.defender_steps = static_cast<std::uint8_t>(r.u());
  c.retreat = static_cast<std::uint8_t>(r.u());
  c.yellow = r.b();
  c.retreated = static_cast<std::uint8_t>(r.u());
  c.defender_gone = r.b();
  c.barrage_result = static_cast<std::uint8_t>(r.u());
  const size_t locs = static_cast<size_t>(sc.location_count());
  r.vec(s.attacked_hexes, locs);
  r.vec(s.barraged_hexes, locs);
  r.vec(s.stuka_hexes, locs);
  s.model_noncontiguous = r.b();
  s.model_extra_division = r.b();
  r.vec(s.artillery, sc.artillery.size());
  r.vec(s.stukas, sc.stukas.size());
  for (auto& side : s.sides) {
    r.vec(side.cup, sc.events.size());
    r.vec(side.hand, sc.events.size());
    side.events_this_phase = static_cast<std::uint8_t>(r.u());
  }
  s.uprising = static_cast<Uprising>(r.u());
  s.uprising_box = static_cast<std::int8_t>(r.i());
  s.bridge_extra_half = static_cast<std::int8_t>(r.i());
  s.bridges_closed = r.b();
  s.uprising_pending = static_cast<std::uint8_t>(r.u());
  s.jozefow = static_cast<std::uint8_t>(r.u());
  s.soviet_bonus_vp = static_cast<std::uint8_t>(r.u());
  s.model_turn = static_cast<std::int8_t>(r.i());
  s.model_used = r.b();
  s.next_seq = static_cast<std::uint32_t>(r.u());
  s.result = static_cast<Result>(r.u());
  const auto len = r.u();
  if (!r.ok || len > 4096) return false;
  s.result_reason = r.raw(static_cast<size_t>(len));
  if (!r.ok) return false;
  return s.result <= Result::Draw && s.uprising <= Uprising::Ongoing;
}

}  // namespace

bool decode_state(const Scenario& sc, const std::string& bytes, GameState& out) {
  Reader r(bytes);
  GameState s;
  if (!read_state(r, sc, s)) return false;
  if (!r.done()) {
    const auto n = r.u();
    if (!r.ok || n == 0 || n > kMaxTakebacks) return false;
    for (std::uint64_t k = 0; k < n; ++k) {
      auto before = std::make_shared<GameState>();
      if (!read_state(r, sc, *before)) return false;
      s.takeback.before.push_back(std::move(before));
    }
  }
  if (!r.ok || !r.done()) return false;
  if (encode_state(s) != bytes) return false;  // canonical: only our own encoding decodes
  out = std::move(s);
  return true;
}

bool operator==(const Takeback& a, const Takeback& b) {
  return std::equal(a.before.begin(), a.before.end(), b.before.begin(), b.before.end(),
                    [](const auto& x, const auto& y) { return *x == *y; });
}

std::uint64_t state_hash(const GameState& s) {
  Fnv1aSink sink;  // FNV-1a over the canonical encoding
  Writer w(sink);
  write_state(w, s);
  std::uint64_t h = sink.h;
  // Final avalanche so that nearby states spread over the whole range.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9a34e0ab5aull;
  h ^= h >> 33;
  return h;
}

}  // namespace counterattack
