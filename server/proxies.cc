#include "proxies.h"

#include <algorithm>
#include <charconv>

namespace counterattack::server {

namespace ip = boost::asio::ip;

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<ip::address> parse_address(std::string_view text) {
  boost::system::error_code ec;
  const auto a = ip::make_address(std::string(text), ec);
  if (ec) return std::nullopt;
  return unmapped(a);
}

// An X-Forwarded-For entry: an address, maybe with a port ("192.0.2.7:4711",
// "[2001:db8::7]:4711"), as some proxies write it.
std::optional<ip::address> parse_forwarded(std::string_view e) {
  e = trim(e);
  if (e.starts_with('[')) {
    const auto close = e.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    return parse_address(e.substr(1, close - 1));
  }
  if (std::count(e.begin(), e.end(), ':') == 1) e = e.substr(0, e.find(':'));
  return parse_address(e);
}

ip::address_v6::bytes_type bytes_of(const ip::address& a) {
  return a.is_v4() ? ip::make_address_v6(ip::v4_mapped, a.to_v4()).to_bytes() : a.to_v6().to_bytes();
}

}  // namespace

ip::address unmapped(const ip::address& a) {
  if (a.is_v6() && a.to_v6().is_v4_mapped()) return ip::make_address_v4(ip::v4_mapped, a.to_v6());
  return a;
}

std::optional<TrustedProxies> TrustedProxies::parse(std::string_view text, std::string& error) {
  TrustedProxies t;
  t.text_ = text;
  std::string entry;
  auto take = [&]() -> bool {
    if (entry.empty()) return true;
    std::string_view e = entry;
    const auto slash = e.find('/');
    const auto a = parse_address(e.substr(0, slash));
    const unsigned width = a && a->is_v4() ? 32 : 128;
    unsigned prefix = width;
    bool prefix_ok = true;
    if (slash != std::string_view::npos) {
      const auto bits = e.substr(slash + 1);
      const auto r = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
      prefix_ok = r.ec == std::errc() && r.ptr == bits.data() + bits.size() && prefix <= width;
    }
    if (a && prefix_ok && prefix == 0) {
      error = "'" + entry + "' would trust everyone";
      return false;
    }
    if (!a || !prefix_ok) {
      error = "'" + entry + "' is not an address or a block such as 10.0.0.0/8 or fd00::/8";
      return false;
    }
    // An IPv4 block is kept as its v4-mapped IPv6 block, so one test serves both
    // (and an IPv6 block that covers ::ffff:0:0/96 covers IPv4 as well).
    t.blocks_.push_back({bytes_of(*a), static_cast<int>(prefix + (a->is_v4() ? 96 : 0))});
    entry.clear();
    return true;
  };
  for (const char c : text) {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!take()) return std::nullopt;
    } else {
      entry.push_back(c);
    }
  }
  if (!take()) return std::nullopt;
  return t;
}

bool TrustedProxies::trusts(const ip::address& a) const {
  const auto b = bytes_of(unmapped(a));
  return std::any_of(blocks_.begin(), blocks_.end(), [&](const Block& k) {
    for (int bit = 0; bit < k.prefix; ++bit) {
      const int byte = bit / 8, mask = 0x80 >> (bit % 8);
      if ((b[static_cast<size_t>(byte)] & mask) != (k.bytes[static_cast<size_t>(byte)] & mask)) return false;
    }
    return true;
  });
}

std::optional<ip::address> TrustedProxies::client_of(const ip::address& peer, std::string_view x_forwarded_for) const {
  if (!trusts(peer)) return std::nullopt;
  std::string_view rest = x_forwarded_for;
  while (!trim(rest).empty()) {
    const auto comma = rest.rfind(',');
    const auto entry = comma == std::string_view::npos ? rest : rest.substr(comma + 1);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(0, comma);
    const auto a = parse_forwarded(entry);
    if (!a) return std::nullopt;
    if (!trusts(*a)) return a;
  }
  return std::nullopt;
}

}  // namespace counterattack::server
