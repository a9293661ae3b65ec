// The PROXY protocol (versions 1 and 2): a TCP proxy that passes connections
// through untouched, TLS and all (HAProxy in `mode tcp`, nginx's stream module,
// cloud load balancers), sends this header before anything else to say which
// client the connection comes from.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace counterattack::server {

// No header is longer: version 1's are at most 107 bytes, and version 2's
// optional fields are a few dozen in practice.
constexpr std::size_t kProxyHeaderLimit = 4096;

struct ProxyHeader {
  enum class Status { Incomplete, Bad, Complete };
  Status status = Status::Incomplete;
  std::size_t length = 0;                          // the header's bytes, when complete
  std::optional<boost::asio::ip::address> client;  // none for the proxy's own checks (LOCAL, UNKNOWN)
  std::string error;                               // why, when bad
};

// Reads the header at the start of `bytes`: Incomplete while `bytes` could
// still become one, Bad once it cannot.
ProxyHeader parse_proxy_header(std::string_view bytes);

}  // namespace counterattack::server
