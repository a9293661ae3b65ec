// What the game service needs of a connection: somewhere to send frames.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "wire.pb.h"

namespace counterattack::server {

using Frame = std::shared_ptr<const std::string>;

class Peer : public std::enable_shared_from_this<Peer> {
 public:
  virtual ~Peer() = default;
  // Queues one encoded ServerMessage; callable from any thread, in order per caller.
  virtual void deliver(Frame frame) = 0;
  virtual std::uint64_t peer_id() const = 0;
};

inline Frame encode(const wire::ServerMessage& m) {
  auto out = std::make_shared<std::string>();
  m.SerializeToString(out.get());
  return out;
}

// Who sent a request, and where its answer goes.
struct Caller {
  std::int64_t user_id = 0;  // 0: not logged in
  std::string name;
  std::shared_ptr<Peer> peer;
  std::uint64_t request_id = 0;

  void reply(wire::ServerMessage m) const {
    m.set_request_id(request_id);
    peer->deliver(encode(m));
  }
  void error(wire::ErrorCode code, const std::string& message) const {
    wire::ServerMessage m;
    m.mutable_error()->set_code(code);
    m.mutable_error()->set_message(message);
    reply(std::move(m));
  }
  void ok() const {
    wire::ServerMessage m;
    m.mutable_ok();
    reply(std::move(m));
  }
};

}  // namespace counterattack::server
