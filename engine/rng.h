// Dice are derived from raw generator bits here, never from library
// distributions, so that a seed and an order log replay the same rolls on any
// machine.
#pragma once

#include <sodium/crypto_stream_chacha20.h>

#include <array>
#include <cstdint>

namespace counterattack {

// Two generators, both fully specified, with a 32-byte state:
// - ChaCha20, what games play with: every die is public, and a generator whose
//   outputs give its state away would let a player work out the dice to come and
//   the chits the other side draws. Each output is one ChaCha20 keystream block
//   (zero nonce) keyed by the state: its first 32 bytes are the next state, the
//   next 8 (little-endian) the output.
// - xoshiro256**: small and fast, for simulations and tests, and for games begun
//   before the first revision of the rules (see revision_bits), whose logs replay with it.
class Prng {
 public:
  using State = std::array<std::uint64_t, 4>;
  enum class Kind : std::uint8_t { Xoshiro256, ChaCha20 };

  explicit Prng(const State& s, Kind kind = Kind::Xoshiro256) : s_(s), kind_(kind) {}
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
    if (kind_ == Kind::ChaCha20) return next_chacha();
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
  Kind kind() const { return kind_; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint64_t next_chacha() {
    unsigned char key[crypto_stream_chacha20_KEYBYTES];
    for (size_t w = 0; w < 4; ++w) {
      for (size_t b = 0; b < 8; ++b) key[w * 8 + b] = static_cast<unsigned char>(s_[w] >> (8 * b));
    }
    const unsigned char nonce[crypto_stream_chacha20_NONCEBYTES] = {};
    unsigned char block[40];
    crypto_stream_chacha20(block, sizeof block, nonce, key);
    auto word = [&](size_t at) {
      std::uint64_t x = 0;
      for (size_t b = 0; b < 8; ++b) x |= static_cast<std::uint64_t>(block[at + b]) << (8 * b);
      return x;
    };
    for (size_t w = 0; w < 4; ++w) s_[w] = word(w * 8);
    return word(32);
  }

  State s_;
  Kind kind_;
};

}  // namespace counterattack
