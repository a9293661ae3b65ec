// One WebSocket-over-TLS connection to counterattackd (or plain WebSocket on
// loopback): one protobuf envelope per binary frame. An I/O thread reads and writes; callers wait for the reply
// to a request (matched by request_id) or for pushed messages.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "wire.pb.h"

namespace counterattack::cli {

struct Endpoint {
  std::string host, port, path = "/";
  bool tls = true;          // false: plain ws://, to a server on this machine alone
  std::string url() const;  // canonical "wss://host:port" (or "ws://")
  std::string origin() const;  // url() without the path: what a remembered certificate is kept under
};
// Parses wss://host[:port][/path], the port defaulting to 443; or ws:// (port 80)
// to a loopback host, as a server started with --plain allows.
std::optional<Endpoint> parse_url(const std::string& url, std::string* error);

// How the server's certificate is checked: by the system's CAs and the host
// name (the default), not at all (insecure), or with a SHA-256 fingerprint
// also accepted: the certificate that has it, or one the CAs vouch for.
struct TlsPolicy {
  bool insecure = false;
  std::string pin;          // 64 lower-case hex digits, or empty
  bool remembered = false;  // the pin is the one kept for this server, not one given now
};

class Connection {
 public:
  Connection();
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects, checks the certificate and opens the WebSocket. On failure
  // returns false with a sentence in *error.
  bool connect(const Endpoint& ep, const TlsPolicy& tls, std::chrono::milliseconds timeout,
               std::string* error);
  // The SHA-256 of the certificate the server presented (hex), once seen.
  std::string peer_fingerprint() const;

  // How a reply's strings are handed out: made fit for a terminal (every
  // control character escaped, see terminal_text.h), or as the server sent
  // them, for an audit that checks them byte for byte (an Error is shown even then).
  enum class Text { shown, as_sent };

  // Sends a request (its request_id is set here) and waits for the reply.
  // nullopt when the connection closed or the time ran out.
  std::optional<wire::ServerMessage> request(wire::ClientMessage msg,
                                             std::chrono::milliseconds timeout, Text text = Text::shown);
  // Sends without waiting; returns the request_id used.
  std::uint64_t send(wire::ClientMessage msg);
  // The next pushed message (request_id 0, or a reply nobody waits for), its text shown.
  std::optional<wire::ServerMessage> next_push(std::chrono::milliseconds timeout);
  // A file descriptor that is readable while pushes are queued or after the
  // connection closed: for poll() next to standard input.
  int notify_fd() const;
  void drain_notify();

  bool is_open() const;
  std::string close_reason() const;
  void close();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace counterattack::cli
