// Dice are derived from raw generator bits here, never from library
// distributions, so that a seed and an order log replay the same rolls on any
// machine.
#pragma once

#include <array>
#include <cstdint>

namespace counterattack {

// xoshiro256**: small, fast and fully specified.
class Prng {
 public:
  using State = std::array<std::uint64_t, 4>;

  explicit Prng(const State& s) : s_(s) {}
  // Expands a 64-bit seed with SplitMix64 (for simulations and tests).
  static Prng from_seed(std::uint64_t seed) {
    State s{};
    for (auto& word : s) {
      seed += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      word = z ^ (z >> 31);
    }
    return Prng(s);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n) by rejection, so no value is favoured.
  std::uint32_t below(std::uint32_t n) {
    const std::uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
    std::uint64_t x;
    do {
      x = next();
    } while (x >= limit);
    return static_cast<std::uint32_t>(x % n);
  }

  int d6() { return static_cast<int>(below(6)) + 1; }

  const State& state() const { return s_; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  State s_;
};

}  // namespace counterattack
