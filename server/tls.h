// TLS set-up: the server context, and the self-signed certificate the
// embedded default makes on first start.
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp needs std::exchange

#include <boost/asio/ssl/context.hpp>
#include <string>

namespace counterattack::server {

// Writes a new EC P-256 key and a self-signed certificate for localhost
// (DNS:localhost, IP:127.0.0.1, IP:::1), valid ten years.
bool write_self_signed(const std::string& cert_path, const std::string& key_path, std::string& error);

// A server context that accepts TLS 1.2 and later only.
bool init_tls_context(boost::asio::ssl::context& ctx, const std::string& cert_path, const std::string& key_path,
                      std::string& error);

// The SHA-256 fingerprint of the context's certificate ("ab:cd:..."), which
// players pin with `counterattack fingerprint`; "" when there is none.
std::string certificate_fingerprint(boost::asio::ssl::context& ctx);

}  // namespace counterattack::server
