// Reverse proxies whose word on the client's address is believed. Behind a
// proxy every connection comes from the proxy; the client's own address is in
// the X-Forwarded-For header the proxy adds to the WebSocket upgrade request.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace counterattack::server {

class TrustedProxies {
 public:
  // "127.0.0.1, ::1, 10.0.0.0/8": addresses and CIDR blocks, separated by
  // commas or spaces; empty trusts none. Nothing, with a sentence in `error`,
  // for a bad entry.
  static std::optional<TrustedProxies> parse(std::string_view text, std::string& error);

  bool empty() const { return blocks_.empty(); }
  const std::string& text() const { return text_; }  // as configured
  bool trusts(const boost::asio::ip::address& a) const;

  // The client behind `peer` when `peer` is trusted: the rightmost address of
  // X-Forwarded-For that is not itself a trusted proxy. Entries further left
  // were written by whoever connected to the proxy and prove nothing. Nothing
  // when `peer` is not trusted or the header is missing or malformed.
  std::optional<boost::asio::ip::address> client_of(const boost::asio::ip::address& peer,
                                                    std::string_view x_forwarded_for) const;

 private:
  struct Block {
    boost::asio::ip::address_v6::bytes_type bytes;  // IPv4 as v4-mapped IPv6
    int prefix;                                     // bits of `bytes` that must match
  };
  std::vector<Block> blocks_;
  std::string text_;
};

// An IPv4 address arriving on an IPv6 socket as ::ffff:a.b.c.d, as IPv4.
boost::asio::ip::address unmapped(const boost::asio::ip::address& a);

}  // namespace counterattack::server
