#include "verify.h"

#include <google/protobuf/util/message_differencer.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>

#include "engine.h"
#include "notation.h"
#include "state.h"
#include "terminal_text.h"

namespace counterattack::cli {
namespace {

std::string hex_of(const unsigned char* bytes, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

std::optional<std::string> bytes_of_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int value = 0;
    for (std::size_t k = i; k < i + 2; ++k) {
      const int c = std::tolower(static_cast<unsigned char>(hex[k]));
      const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (digit < 0) return std::nullopt;
      value = value * 16 + digit;
    }
    out += static_cast<char>(value);
  }
  return out;
}

// The seed's 32 bytes are the generator's four words, little-endian (protocol/README.md).
Prng::State generator_state(const std::string& seed) {
  Prng::State s{};
  for (std::size_t w = 0; w < 4; ++w) {
    for (std::size_t b = 0; b < 8; ++b) {
      s[w] |= static_cast<std::uint64_t>(static_cast<unsigned char>(seed[w * 8 + b])) << (8 * b);
    }
  }
  return s;
}

std::string hash_hex(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

bool same(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

// An event as the log reads it, for a mismatch: its text, and its die.
std::string event_words(const game::Event& e) {
  std::string s = "\"" + shown(e.text()) + "\"";
  if (e.die() > 0) s += " (die " + std::to_string(e.die()) + ")";
  return s;
}

// Where two lists of events part, in a sentence; empty when they are the same.
std::string events_differ(const google::protobuf::RepeatedPtrField<game::Event>& logged,
                          const std::vector<game::Event>& replayed) {
  const std::size_t n = std::min(static_cast<std::size_t>(logged.size()), replayed.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto& l = logged[static_cast<int>(i)];
    const auto& r = replayed[i];
    if (same(l, r)) continue;
    const std::string which = "its event " + std::to_string(i + 1);
    if (l.die() != r.die()) {
      return which + " has a die of " + std::to_string(l.die()) + " in the log, where the seed rolls " +
             std::to_string(r.die()) + ": " + event_words(l) + " against " + event_words(r);
    }
    return which + " reads " + event_words(l) + " in the log, where the rules give " + event_words(r);
  }
  if (static_cast<std::size_t>(logged.size()) > n) {
    return "the log has " + std::to_string(logged.size()) + " events for it, the rules " + std::to_string(replayed.size()) +
           "; the first the rules do not give: " + event_words(logged[static_cast<int>(n)]);
  }
  if (replayed.size() > n) {
    return "the log has " + std::to_string(logged.size()) + " events for it, the rules " + std::to_string(replayed.size()) +
           "; the first the log lacks: " + event_words(replayed[n]);
  }
  return "";
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), md);
  return hex_of(md, sizeof md);
}

namespace {

// The audit, and the replay: `commitment` null for a replay, which checks no commitment.
Audit replay(const std::shared_ptr<const Scenario>& sc, const wire::GameLog& log, const std::string* commitment,
             const OnVersion& each) {
  Audit a;
  auto refuse = [&](const std::string& why) {
    a.mismatch = why;
    return a;
  };
  // A server from before revisions named none: its games all played revision 1.
  a.revision = log.rules_revision() == 0 ? 1 : log.rules_revision();
  if (a.revision < 1 || a.revision > kLatestRevision) {
    return refuse("the game was played by revision " + std::to_string(a.revision) +
                  " of the rules, which this client does not know (it knows 1 to " + std::to_string(kLatestRevision) +
                  "): a newer client can check it.");
  }
  std::uint32_t bits = revision_bits(a.revision);
  for (const auto& key : log.options()) {
    const std::uint32_t bit = option_bit(key);
    if (bit == 0) return refuse("the game has an optional rule this client does not know: " + shown(key) + ".");
    bits |= bit;
  }
  a.dice_kind = dice_kind(bits) == Prng::Kind::ChaCha20 ? "ChaCha20" : "xoshiro256**";

  const auto seed = bytes_of_hex(log.seed_hex());
  if (log.seed_hex().empty()) return refuse("the server's log reveals no dice seed.");
  if (!seed || seed->size() != 32) return refuse("the dice seed in the log is not 32 bytes in hex: " + shown(log.seed_hex()) + ".");
  if (commitment) {
    if (commitment->empty()) return refuse("the server's summary of the game holds no seed commitment to check the seed against.");
    a.seed_matches = sha256_hex(*seed) == lower(*commitment);
    if (!a.seed_matches) {
      return refuse("the seed revealed, " + lower(log.seed_hex()) + ", has the SHA-256 " + sha256_hex(*seed) +
                    ", not the commitment published at the start, " + shown(*commitment) + ".");
    }
  }

  const Engine engine(sc);
  Prng dice(generator_state(*seed), dice_kind(bits));
  std::vector<game::Event> setup;
  GameState state = engine.new_game(bits, dice, each ? &setup : nullptr);
  if (each) each(0, state, setup);
  for (const auto& entry : log.orders()) {
    const std::string name = "order " + std::to_string(a.orders + 1) + " (" +
                             (entry.side() == game::SOVIET ? "Soviet" : entry.side() == game::GERMAN ? "German" : "no side") +
                             ", `" + shown(format_order(entry.order())) + "`)";
    if (entry.version() != a.orders + 1) {
      return refuse(name + " is logged as version " + std::to_string(entry.version()) + ": the log has a gap or a repeat.");
    }
    if (entry.side() != game::SOVIET && entry.side() != game::GERMAN) return refuse(name + " names no side.");
    Order order;
    Rejection why;
    if (!engine.from_proto(entry.order(), order, why)) return refuse(name + " is not an order of this game: " + shown(why.reason));
    Outcome out;
    try {
      out = engine.apply(state, entry.side() == game::SOVIET ? Side::Soviet : Side::German, order, dice);
    } catch (const std::exception& e) {
      return refuse(name + " could not be replayed: " + shown(e.what()));
    }
    if (!out.accepted) return refuse("the rules refuse " + name + ": " + shown(out.rejection.reason));
    if (const auto differ = events_differ(entry.events(), out.events); !differ.empty()) {
      return refuse(name + ": " + differ + ".");
    }
    for (const auto& e : entry.events()) a.dice += e.die() > 0 ? 1 : 0;
    ++a.orders;
    if (each) each(a.orders, state, out.events);
  }
  a.state_hash = hash_hex(state_hash(state));
  if (a.state_hash != lower(log.state_hash())) {
    return refuse("after the last order the rules reach the position with hash " + a.state_hash + ", the server's log " +
                  shown(log.state_hash()) + ".");
  }
  if (!same(engine.view(state, Viewer::Omniscient), log.omniscient())) {
    return refuse("after the last order the full view of the position differs from the one the server's log gives.");
  }
  a.verified = true;
  return a;
}

}  // namespace

Audit audit_game(const std::shared_ptr<const Scenario>& sc, const wire::GameLog& log, const std::string& commitment) {
  return replay(sc, log, &commitment, {});
}

Audit replay_log(const std::shared_ptr<const Scenario>& sc, const wire::GameLog& log, const OnVersion& each) {
  return replay(sc, log, nullptr, each);
}

std::string describe_audit(const Audit& a) {
  if (!a.verified) {
    std::string s = "Not verified: " + a.mismatch;
    if (a.orders > 0) s += " (the " + std::to_string(a.orders) + (a.orders == 1 ? " order" : " orders") + " before it agree.)";
    return s;
  }
  return "Verified: " + std::to_string(a.orders) + (a.orders == 1 ? " order, " : " orders, ") + std::to_string(a.dice) +
         (a.dice == 1 ? " die" : " dice") +
         ", the seed matches the commitment published at the start, and the final position's hash is " + a.state_hash +
         "; revision " + std::to_string(a.revision) + " (" + a.dice_kind + " dice).";
}

}  // namespace counterattack::cli
