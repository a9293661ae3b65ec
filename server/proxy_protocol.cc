#include "proxy_protocol.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include "proxies.h"

namespace counterattack::server {
namespace {

namespace ip = boost::asio::ip;
using Status = ProxyHeader::Status;

constexpr std::string_view kV1Prefix = "PROXY ";
constexpr std::size_t kV1Limit = 107;  // with its CRLF
constexpr std::string_view kV2Signature{"\r\n\r\n\0\r\nQUIT\n", 12};
constexpr std::size_t kV2Fixed = 16;  // the signature, version and command, family, length

ProxyHeader bad(std::string why) {
  ProxyHeader h;
  h.status = Status::Bad;
  h.error = std::move(why);
  return h;
}

ProxyHeader complete(std::size_t length, std::optional<ip::address> client) {
  ProxyHeader h;
  h.status = Status::Complete;
  h.length = length;
  if (client) h.client = unmapped(*client);
  return h;
}

// Whether `bytes` starts like `prefix` for as far as both go.
bool starts_like(std::string_view bytes, std::string_view prefix) {
  const std::size_t n = std::min(bytes.size(), prefix.size());
  return bytes.substr(0, n) == prefix.substr(0, n);
}

std::vector<std::string_view> split_spaces(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0;;) {
    const std::size_t sp = s.find(' ', at);
    out.push_back(s.substr(at, sp == std::string_view::npos ? std::string_view::npos : sp - at));
    if (sp == std::string_view::npos) return out;
    at = sp + 1;
  }
}

bool is_port(std::string_view s) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return !s.empty() && s.size() <= 5 && ec == std::errc() && end == s.data() + s.size() && value <= 65535;
}

// "PROXY TCP4 203.0.113.7 192.0.2.1 40112 443\r\n", or "PROXY UNKNOWN ...\r\n".
ProxyHeader parse_v1(std::string_view bytes) {
  if (!starts_like(bytes, kV1Prefix)) return bad("not a PROXY protocol header");
  const std::size_t crlf = bytes.substr(0, kV1Limit).find("\r\n");
  if (crlf == std::string_view::npos) {
    if (bytes.size() >= kV1Limit) return bad("a version 1 header longer than 107 bytes");
    return {};
  }
  const auto fields = split_spaces(bytes.substr(kV1Prefix.size(), crlf - kV1Prefix.size()));
  const std::size_t length = crlf + 2;
  if (fields[0] == "UNKNOWN") return complete(length, std::nullopt);
  if (fields[0] != "TCP4" && fields[0] != "TCP6") return bad("unknown protocol in a version 1 header");
  if (fields.size() != 5) return bad("a version 1 header needs two addresses and two ports");
  const bool v4 = fields[0] == "TCP4";
  boost::system::error_code ec_source, ec_destination;
  ip::address source, destination;
  if (v4) {
    source = ip::make_address_v4(std::string(fields[1]), ec_source);
    destination = ip::make_address_v4(std::string(fields[2]), ec_destination);
  } else {
    source = ip::make_address_v6(std::string(fields[1]), ec_source);
    destination = ip::make_address_v6(std::string(fields[2]), ec_destination);
  }
  if (ec_source || ec_destination) return bad(std::string("a bad ") + (v4 ? "IPv4" : "IPv6") + " address in a version 1 header");
  if (!is_port(fields[3]) || !is_port(fields[4])) return bad("a bad port in a version 1 header");
  return complete(length, source);
}

// Sixteen bytes (signature, version and command, family and transport, length
// of the rest), then the addresses and optional fields.
ProxyHeader parse_v2(std::string_view bytes) {
  if (!starts_like(bytes, kV2Signature)) return bad("not a PROXY protocol header");
  if (bytes.size() < kV2Fixed) return {};
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
  if (byte(12) >> 4 != 2) return bad("a version 2 signature with another version");
  const unsigned command = byte(12) & 0x0f;
  if (command > 1) return bad("an unknown command in a version 2 header");
  const std::size_t length = kV2Fixed + (std::size_t{byte(14)} << 8 | byte(15));
  if (length > kProxyHeaderLimit) return bad("a version 2 header longer than 4096 bytes");
  if (bytes.size() < length) return {};
  if (command == 0) return complete(length, std::nullopt);  // LOCAL: the proxy's own health check
  const std::size_t rest = length - kV2Fixed;
  switch (byte(13) >> 4) {
    case 0x0:  // AF_UNSPEC
    case 0x3:  // AF_UNIX
      return complete(length, std::nullopt);
    case 0x1: {  // AF_INET: source, destination, their ports
      if (rest < 12) return bad("a version 2 IPv4 header too short for its addresses");
      ip::address_v4::bytes_type a;
      std::copy_n(bytes.data() + kV2Fixed, a.size(), reinterpret_cast<char*>(a.data()));
      return complete(length, ip::address_v4(a));
    }
    case 0x2: {  // AF_INET6
      if (rest < 36) return bad("a version 2 IPv6 header too short for its addresses");
      ip::address_v6::bytes_type a;
      std::copy_n(bytes.data() + kV2Fixed, a.size(), reinterpret_cast<char*>(a.data()));
      return complete(length, ip::address_v6(a));
    }
    default:
      return bad("an unknown address family in a version 2 header");
  }
}

}  // namespace

ProxyHeader parse_proxy_header(std::string_view bytes) {
  if (bytes.empty()) return {};
  if (bytes[0] == 'P') return parse_v1(bytes);
  if (bytes[0] == '\r') return parse_v2(bytes);
  return bad("not a PROXY protocol header");
}

}  // namespace counterattack::server
