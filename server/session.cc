#include "session.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <chrono>
#include <deque>
#include <mutex>
#include <optional>
#include <set>

#include "log.h"
#include "proxy_protocol.h"
#include "text.h"

namespace counterattack::server {
namespace {

namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using Stream = beast::basic_stream<tcp, ConnectionExecutor>;
using Clock = std::chrono::steady_clock;

std::atomic<std::uint64_t> g_next_id{1};

// Frames up to this size are read, so that a frame over the configured limit
// still gets a TOO_LARGE answer; beyond it the connection closes (1009).
constexpr std::size_t kHardFrameLimit = 1u << 20;

// Frames join a bundle up to this size; a larger frame goes alone.
constexpr std::size_t kBundleBytes = 64u << 10;

// The WebSocket upgrade request is a few hundred bytes, but a browser may add
// cookies: more room than the 1.5 KB Beast's own accept reads into.
constexpr std::uint32_t kUpgradeHeaderLimit = 8u << 10;

std::string endpoint_text(const tcp::endpoint& ep) {
  const auto a = ep.address();
  return (a.is_v6() ? "[" + a.to_string() + "]" : a.to_string()) + ":" + std::to_string(ep.port());
}

// Takes the next frame to write from the queue: the first frame alone, or the
// first few as one ServerMessage{bundle}. Each frame is already an encoded
// ServerMessage, so the bundle is assembled from the bytes without re-encoding.
Frame bundle_front(std::deque<Frame>& queue, std::size_t& queued_bytes) {
  std::size_t n = 1, payload = 0;
  auto entry = [](const Frame& f) {
    return 1 + google::protobuf::io::CodedOutputStream::VarintSize64(f->size()) + f->size();
  };
  payload = entry(queue.front());
  while (n < queue.size() && payload + entry(queue[n]) <= kBundleBytes) payload += entry(queue[n++]);
  if (n == 1) {
    Frame f = std::move(queue.front());
    queue.pop_front();
    queued_bytes -= f->size();
    return f;
  }
  auto out = std::make_shared<std::string>();
  {
    google::protobuf::io::StringOutputStream raw(out.get());
    google::protobuf::io::CodedOutputStream os(&raw);
    os.WriteTag(google::protobuf::internal::WireFormatLite::MakeTag(
        wire::ServerMessage::kBundleFieldNumber, google::protobuf::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
    os.WriteVarint64(payload);
    for (std::size_t i = 0; i < n; ++i) {
      os.WriteTag(google::protobuf::internal::WireFormatLite::MakeTag(
          wire::Bundle::kMessagesFieldNumber, google::protobuf::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
      os.WriteVarint64(queue.front()->size());
      os.WriteString(*queue.front());
      queued_bytes -= queue.front()->size();
      queue.pop_front();
    }
  }
  return out;
}

template <class Derived>
class WsSession : public Connection {
 public:
  WsSession(Hub& hub, const tcp::endpoint& peer, std::shared_ptr<void> slot)
      : hub_(hub),
        peer_(peer.address()),
        address_key_(hub.caps.address_key(peer_)),
        remote_(endpoint_text(peer)),
        slot_(std::move(slot)),
        tokens_(hub.config.message_burst),
        refill_(Clock::now()) {}
  ~WsSession() override { hub_.queued_bytes.fetch_sub(queued_bytes_, std::memory_order_relaxed); }

  std::uint64_t peer_id() const override { return id_; }

  // Frames from other threads wait in the inbox; one posted drain moves them all
  // to the write queue, so that frames delivered together (an answer and the
  // delta it caused) leave in one bundle: one TLS record, one system call.
  void deliver(Frame frame) override {
    {
      std::lock_guard lock(inbox_mu_);
      inbox_.push_back(std::move(frame));
      if (inbox_posted_) return;
      inbox_posted_ = true;
    }
    net::post(derived().ws().get_executor(), [s = self()] { s->take_inbox(); });
  }

  void shutdown() override {
    net::post(derived().ws().get_executor(), [s = self()] {
      wire::ServerMessage m;
      m.mutable_error()->set_code(wire::SHUTTING_DOWN);
      m.mutable_error()->set_message("The server is shutting down; connect again in a moment, and your session resumes.");
      s->queue_frame(encode(m));
      s->begin_close(websocket::close_code::going_away);
    });
  }

  void sign_out(std::int64_t user_id, const std::string& keep, const std::string& why) override {
    net::post(derived().ws().get_executor(), [s = self(), user_id, keep, why] {
      if (s->user_id_ != user_id || (!keep.empty() && s->token_hash_ == keep)) return;
      s->signed_out(why);
    });
  }

  void end_session(const std::string& token_hash, const std::string& why) override {
    net::post(derived().ws().get_executor(), [s = self(), token_hash, why] {
      if (s->user_id_ == 0 || s->token_hash_ != token_hash) return;
      s->signed_out(why);
    });
  }

 protected:
  Hub& hub_;

  Derived& derived() { return static_cast<Derived&>(*this); }
  std::shared_ptr<Derived> self() { return std::static_pointer_cast<Derived>(shared_from_this()); }

  beast::flat_buffer& buffer() { return buffer_; }

  // A connection from a trusted proxy that passes connections through (with
  // proxy_protocol on) opens with the proxy's header naming the client; then
  // comes the TLS handshake, or for plain connections the upgrade request.
  void begin() {
    beast::get_lowest_layer(derived().ws()).expires_after(std::chrono::seconds(hub_.config.handshake_timeout_seconds));
    if (hub_.config.proxy_protocol && hub_.caps.proxies().trusts(peer_)) return read_proxy_header();
    derived().start_transport();
  }

  // After the TLS handshake, or at once for plain connections. The upgrade
  // request is read here, not inside Beast's accept, so that the client a
  // trusted proxy forwards is known, and counted, before it is let in.
  void start_websocket() {
    auto& ws = derived().ws();
    const auto& cfg = hub_.config;
    websocket::stream_base::timeout t{};
    t.handshake_timeout = std::chrono::seconds(cfg.handshake_timeout_seconds);
    t.idle_timeout = std::chrono::seconds(cfg.idle_timeout_seconds);
    t.keep_alive_pings = true;
    ws.set_option(t);
    ws.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& res) { res.set(http::field::server, "counterattackd"); }));
    ws.read_message_max(std::max(kHardFrameLimit, cfg.max_message_bytes + 1));
    ws.binary(true);
    upgrade_.emplace();
    upgrade_->header_limit(kUpgradeHeaderLimit);
    beast::get_lowest_layer(ws).expires_after(std::chrono::seconds(cfg.handshake_timeout_seconds));
    http::async_read(ws.next_layer(), buffer_, *upgrade_, beast::bind_front_handler(&WsSession::on_upgrade, self()));
  }

  void fail(beast::error_code ec, const char* what) {
    if (ec != net::error::operation_aborted && ec != websocket::error::closed && ec != net::error::eof &&
        ec != http::error::end_of_stream && ec != beast::error::timeout && ec != net::ssl::error::stream_truncated) {
      log::debug("connection failed", {{"peer", remote_}, {"step", what}, {"error", ec.message()}});
    }
    cleanup();
  }

 private:
  void read_proxy_header() {
    beast::get_lowest_layer(derived().ws())
        .async_read_some(buffer_.prepare(kProxyHeaderLimit - buffer_.size()),
                         beast::bind_front_handler(&WsSession::on_proxy_header, self()));
  }

  void on_proxy_header(beast::error_code ec, std::size_t bytes) {
    if (ec) return fail(ec, "proxy header");
    buffer_.commit(bytes);
    const auto header = parse_proxy_header({static_cast<const char*>(buffer_.data().data()), buffer_.size()});
    if (header.status == ProxyHeader::Status::Incomplete) return read_proxy_header();  // under the handshake timeout
    if (header.status == ProxyHeader::Status::Bad) {
      log::warn("connection closed: no PROXY header from a trusted proxy", {{"peer", remote_}, {"error", header.error}});
      return cleanup();
    }
    buffer_.consume(header.length);  // what follows is the client's own: its TLS handshake
    // A header that names no client (a health check, or an address family it
    // cannot give) leaves the connection the proxy's own; what follows comes
    // from whoever is behind it, so its X-Forwarded-For proves nothing.
    forwarded_believed_ = header.client.has_value();
    if (header.client) {
      remote_ = header.client->to_string() + " via " + remote_;
      peer_ = *header.client;
      address_key_ = hub_.caps.address_key(peer_);
      // A proxy named here is asked in turn: X-Forwarded-For names its client.
      if (!hub_.caps.proxies().trusts(peer_)) {
        forwarded_slot_ = hub_.caps.admit_forwarded(peer_);
        if (!forwarded_slot_) {
          // Closed before the handshake, as a direct connection over the cap would be.
          hub_.caps.note_refusal(remote_, ConnectionCaps::Cap::PerAddress);
          return cleanup();
        }
      }
    }
    derived().start_transport();
  }

  void on_upgrade(beast::error_code ec, std::size_t) {
    if (ec) return fail(ec, "upgrade request");
    auto req = upgrade_->release();
    upgrade_.reset();
    buffer_.consume(buffer_.size());  // a client sends no frame before the server's answer (RFC 6455, 4.1)
    std::string forwarded;
    for (auto [f, end] = req.equal_range("X-Forwarded-For"); f != end; ++f) {
      forwarded += (forwarded.empty() ? "" : ",") + std::string(f->value());
    }
    if (auto client = forwarded_believed_ ? hub_.caps.proxies().client_of(peer_, forwarded) : std::nullopt) {
      remote_ = client->to_string() + " via " + remote_;
      address_key_ = ConnectionCaps::key_of(*client);
      forwarded_slot_ = hub_.caps.admit_forwarded(*client);
      if (!forwarded_slot_) return refuse_upgrade(req);  // its own share is full
    }
    beast::get_lowest_layer(derived().ws()).expires_never();  // the WebSocket's own timeouts take over
    derived().ws().async_accept(req, beast::bind_front_handler(&WsSession::on_accept, self()));
  }

  // The forwarded client holds its share of connections already: an HTTP
  // answer, which the proxy passes on, instead of a WebSocket.
  void refuse_upgrade(const http::request<http::empty_body>& req) {
    hub_.caps.note_refusal(remote_, ConnectionCaps::Cap::PerAddress);
    auto res = std::make_shared<http::response<http::string_body>>(http::status::service_unavailable, req.version());
    res->set(http::field::server, "counterattackd");
    res->set(http::field::retry_after, "30");
    res->set(http::field::content_type, "text/plain");
    res->keep_alive(false);
    res->body() = "Too many connections from your address: close some, or try again later.\n";
    res->prepare_payload();
    http::async_write(derived().ws().next_layer(), *res, [s = self(), res](beast::error_code, std::size_t) {
      beast::error_code ignored;
      beast::get_lowest_layer(s->derived().ws()).socket().shutdown(tcp::socket::shutdown_both, ignored);
      s->cleanup();
    });
  }

  void on_accept(beast::error_code ec) {
    if (ec) return fail(ec, "websocket accept");
    hub_.sessions.add(id_, std::static_pointer_cast<Connection>(shared_from_this()));
    registered_ = true;
    do_read();
  }

  void do_read() {
    derived().ws().async_read(buffer_, beast::bind_front_handler(&WsSession::on_read, self()));
  }

  void on_read(beast::error_code ec, std::size_t bytes) {
    if (ec == websocket::error::message_too_big) {
      log::info("frame too large; closing", {{"peer", remote_}});
      return fail(ec, "read");
    }
    if (ec) return fail(ec, "read");
    handle_frame(bytes);
    buffer_.consume(buffer_.size());
    if (!closing_) do_read();
  }

  void take_inbox() {
    {
      std::lock_guard lock(inbox_mu_);
      draining_.swap(inbox_);
      inbox_posted_ = false;
    }
    bool open = true;
    for (auto& f : draining_) {
      if (open) open = push_frame(std::move(f));
    }
    draining_.clear();  // keeps its capacity for the next swap
    if (open && !writing_ && !write_posted_ && !queue_.empty()) do_write();
  }

  // On the strand: queues a frame and writes it a moment later, together with
  // whatever else this handler queues.
  void queue_frame(Frame f) {
    if (!push_frame(std::move(f)) || writing_ || write_posted_) return;
    write_posted_ = true;
    net::post(derived().ws().get_executor(), [s = self()] {
      s->write_posted_ = false;
      if (!s->writing_ && !s->queue_.empty()) s->do_write();
    });
  }

  // False when the frame is dropped: the connection is closing, or its reader fell too far behind.
  bool push_frame(Frame f) {
    if (closing_ || cleaned_) return false;
    // Over the server's whole bound, only readers that hold a fair share or more are cut:
    // slow readers together cannot take the memory, nor cut off those who keep up.
    constexpr std::size_t kFairShare = 1u << 20;
    const bool server_full = hub_.queued_bytes.load(std::memory_order_relaxed) + f->size() > hub_.config.max_queued_bytes_total &&
                             queued_bytes_ >= kFairShare;
    if (queue_.size() >= hub_.config.max_queued_frames || queued_bytes_ + f->size() > hub_.config.max_queued_bytes ||
        server_full) {
      log::warn("client reads too slowly; closing",
                {{"peer", remote_}, {"user", user_name_}, {"queued_bytes", queued_bytes_}, {"server_full", server_full ? "yes" : "no"}});
      drop_queue();
      begin_close(websocket::close_code::policy_error);
      return false;
    }
    queued_bytes_ += f->size();
    hub_.queued_bytes.fetch_add(f->size(), std::memory_order_relaxed);
    queue_.push_back(std::move(f));
    return true;
  }

  void drop_queue() {
    hub_.queued_bytes.fetch_sub(queued_bytes_, std::memory_order_relaxed);
    queue_.clear();
    queued_bytes_ = 0;
  }

  void do_write() {
    writing_ = true;
    const std::size_t before = queued_bytes_;
    in_flight_ = bundle_front(queue_, queued_bytes_);
    hub_.queued_bytes.fetch_sub(before - queued_bytes_, std::memory_order_relaxed);
    derived().ws().async_write(net::buffer(*in_flight_), beast::bind_front_handler(&WsSession::on_write, self()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    writing_ = false;
    in_flight_.reset();
    if (ec) return fail(ec, "write");
    if (!queue_.empty()) return do_write();
    if (closing_) do_close();
  }

  void begin_close(websocket::close_code code) {
    if (closing_ || cleaned_) return;
    closing_ = true;
    close_code_ = code;
    if (!writing_) do_close();  // else after the queued frames
  }

  void do_close() {
    if (!queue_.empty()) return do_write();
    derived().ws().async_close(close_code_, beast::bind_front_handler(&WsSession::on_close, self()));
  }

  void on_close(beast::error_code) { cleanup(); }

  void drop_watches() {
    if (!watched_.empty()) hub_.games.drop_peer(id_, std::vector<std::string>(watched_.begin(), watched_.end()));
    watched_.clear();
  }

  void cleanup() {
    if (cleaned_) return;
    cleaned_ = true;
    drop_queue();
    drop_watches();
    // Signed out here, so that a sign-out posted before the close finds nobody to sign out.
    if (const std::int64_t was = std::exchange(user_id_, 0); was != 0) {
      hub_.games.unfollow_turns(was, id_);
      hub_.accounts.presence(was, -1);
    }
    if (expiry_) expiry_->cancel();  // its wait holds the session
    if (registered_) hub_.sessions.remove(id_);
  }

  // --- Requests -------------------------------------------------------------

  void send(wire::ServerMessage m) { queue_frame(encode(m)); }

  void send_error(std::uint64_t request_id, wire::ErrorCode code, const std::string& message) {
    wire::ServerMessage m;
    m.set_request_id(request_id);
    m.mutable_error()->set_code(code);
    m.mutable_error()->set_message(message);
    send(std::move(m));
  }

  bool take_token() {
    const auto now = Clock::now();
    const double dt = std::chrono::duration<double>(now - refill_).count();
    refill_ = now;
    tokens_ = std::min<double>(hub_.config.message_burst, tokens_ + dt * hub_.config.messages_per_second);
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

  bool auth_attempt_allowed() {
    const auto now = Clock::now();
    const auto horizon = now - std::chrono::seconds(hub_.config.login_window_seconds);
    while (!auth_times_.empty() && auth_times_.front() < horizon) auth_times_.pop_front();
    if (static_cast<int>(auth_times_.size()) >= hub_.config.auth_attempts_per_connection) return false;
    auth_times_.push_back(now);
    return true;
  }

  void handle_frame(std::size_t bytes) {
    const auto& cfg = hub_.config;
    if (bytes > cfg.max_message_bytes) {
      return send_error(0, wire::TOO_LARGE, "A message has at most " + std::to_string(cfg.max_message_bytes) + " bytes.");
    }
    // Parsed before the rate check, so that every answer names its request.
    wire::ClientMessage msg;
    const bool parsed = derived().ws().got_binary() && msg.ParseFromArray(buffer_.cdata().data(), static_cast<int>(bytes));
    if (!take_token()) {
      // A flood: answer briefly, and hang up on one that does not stop.
      if (++strikes_ > 10 * cfg.message_burst) return begin_close(websocket::close_code::policy_error);
      return send_error(parsed ? msg.request_id() : 0, wire::RATE_LIMITED, "Too many messages: slow down.");
    }
    strikes_ = 0;
    if (!derived().ws().got_binary()) {
      return send_error(0, wire::BAD_REQUEST, "Send binary frames, each one ClientMessage (protobuf).");
    }
    if (!parsed) return send_error(0, wire::BAD_REQUEST, "The frame is not a ClientMessage.");
    // An order is stored as sent: nothing the server does not read goes with it.
    if (msg.has_submit_order()) msg.mutable_submit_order()->mutable_order()->DiscardUnknownFields();
    try {
      dispatch(msg);
    } catch (const std::exception& e) {
      log::error("request failed", {{"peer", remote_}, {"error", e.what()}});
      send_error(msg.request_id(), wire::INTERNAL, "The server failed on this request.");
    }
  }

  Caller caller(std::uint64_t request_id) {
    return Caller{user_id_, user_name_, std::static_pointer_cast<Peer>(shared_from_this()), request_id};
  }

  void dispatch(const wire::ClientMessage& msg) {
    using M = wire::ClientMessage;
    const auto rid = msg.request_id();
    auto& games = hub_.games;
    switch (msg.body_case()) {
      case M::BODY_NOT_SET:
        return send_error(rid, wire::BAD_REQUEST, "The envelope is empty: set one request.");
      case M::kPing: {
        wire::ServerMessage m;
        m.set_request_id(rid);
        m.mutable_pong()->set_nonce(msg.ping().nonce());
        return send(std::move(m));
      }
      case M::kRegister:
      case M::kLogin:
      case M::kResume: return authenticate(msg);
      case M::kListGames: return games.list_games(caller(rid), msg.list_games());
      case M::kWatch: {
        const auto& id = msg.watch().game_id();
        if (!watched_.count(id) && static_cast<int>(watched_.size()) >= hub_.config.max_watches_per_connection) {
          return send_error(rid, wire::CONFLICT, "Too many games watched on one connection; Unwatch some.");
        }
        if (id.empty() || id.size() > 64) return send_error(rid, wire::NOT_FOUND, "There is no game '" + as_given(id) + "'.");
        if (games.watch(caller(rid), msg.watch())) watched_.insert(id);
        return;
      }
      case M::kUnwatch:
        watched_.erase(msg.unwatch().game_id());
        return games.unwatch(caller(rid), msg.unwatch());
      case M::kGetLog: return games.get_log(caller(rid), msg.get_log());
      case M::kGetScenario: return games.get_scenario(caller(rid), msg.get_scenario());
      // Ratings are public, as on a club's notice board.
      case M::kGetRating:
        if (user_id_ == 0 && msg.get_rating().name().empty()) {
          return send_error(rid, wire::UNAUTHENTICATED, "Log in first, or name a player.");
        }
        return hub_.ratings.get(caller(rid), msg.get_rating());
      case M::kListRatings: return hub_.ratings.list(caller(rid), msg.list_ratings());
      case M::kRequestPasswordReset:
      case M::kResetPassword: return reset_password(msg);
      default: break;
    }
    if (user_id_ == 0) return send_error(rid, wire::UNAUTHENTICATED, "Log in first (Register, Login or Resume).");
    switch (msg.body_case()) {
      case M::kLogout: return logout(rid);
      case M::kChangePassword:
        // Two password hashes each: limited as logins are.
        if (!auth_attempt_allowed()) {
          return send_error(rid, wire::RATE_LIMITED, "Too many login attempts on this connection; wait a minute.");
        }
        return hub_.accounts.change_password(
            user_id_, user_name_, token_hash_, msg.change_password().old_password(), msg.change_password().new_password(),
            [c = caller(rid), &sessions = hub_.sessions, keep = token_hash_](const AuthResult& r) {
              if (r.code != wire::ERROR_UNSPECIFIED) return c.error(r.code, r.message);
              c.ok();
              sessions.sign_out(r.user_id, keep, "Your password was changed elsewhere: log in again.");
            });
      case M::kCloseAccount:
        if (!auth_attempt_allowed()) {
          return send_error(rid, wire::RATE_LIMITED, "Too many login attempts on this connection; wait a minute.");
        }
        return hub_.accounts.close_account(
            user_id_, user_name_, msg.close_account().password(),
            [c = caller(rid), &sessions = hub_.sessions, &games, name = user_name_](const AuthResult& r) {
              if (r.code != wire::ERROR_UNSPECIFIED) return c.error(r.code, r.message);
              c.ok();
              sessions.sign_out(r.user_id, "", "This account was closed.");
              games.set_aside_games(r.user_id, name + " closed their account.");
            });
      case M::kGetAccount:
        return hub_.accounts.get_account(user_id_, [c = caller(rid)](wire::ServerMessage m) { c.reply(std::move(m)); });
      case M::kSetEmail:
        return hub_.accounts.set_email(user_id_, user_name_, msg.set_email().address(), address_key_,
                                       [c = caller(rid)](wire::ServerMessage m) { c.reply(std::move(m)); });
      case M::kConfirmEmail:
        return hub_.accounts.confirm_email(user_id_, user_name_, msg.confirm_email().code(),
                                           [c = caller(rid)](wire::ServerMessage m) { c.reply(std::move(m)); });
      case M::kSetTurnMail:
        return hub_.accounts.set_turn_mail(user_id_, msg.set_turn_mail(),
                                           [c = caller(rid)](wire::ServerMessage m) { c.reply(std::move(m)); });
      case M::kStartVacation:
      case M::kEndVacation: {
        auto answer = [&accounts = hub_.accounts, c = caller(rid), uid = user_id_] {
          accounts.get_account(uid, [c](wire::ServerMessage m) { c.reply(std::move(m)); });
        };
        if (msg.has_start_vacation()) return games.start_vacation(caller(rid), msg.start_vacation(), answer);
        return games.end_vacation(caller(rid), answer);
      }
      case M::kCreateGame: return games.create(caller(rid), msg.create_game());
      case M::kJoinGame: return games.join(caller(rid), msg.join_game());
      case M::kRematch: return games.rematch(caller(rid), msg.rematch());
      case M::kDeclineChallenge: return games.decline_challenge(caller(rid), msg.decline_challenge());
      case M::kMyGames: return games.my_games(caller(rid));
      case M::kFollowTurns:
        if (cleaned_) return;
        return games.follow_turns(caller(rid));
      case M::kSubmitOrder: return games.submit(caller(rid), msg.submit_order());
      case M::kSetStandingOrders: return games.set_standing_orders(caller(rid), msg.set_standing_orders());
      case M::kResign: return games.resign(caller(rid), msg.resign());
      case M::kOfferDraw: return games.offer_draw(caller(rid), msg.offer_draw());
      case M::kAnswerDraw: return games.answer_draw(caller(rid), msg.answer_draw());
      case M::kSendChat: return games.chat(caller(rid), msg.send_chat());
      case M::kMute: return games.mute(caller(rid), msg.mute());
      case M::kUnmute: return games.unmute(caller(rid), msg.unmute());
      case M::kListMuted: return games.list_muted(caller(rid));
      case M::kReportChat: return games.report_chat(caller(rid), msg.report_chat());
      case M::kCreateTournament: return hub_.tournaments.create(caller(rid), msg.create_tournament());
      case M::kListTournaments: return hub_.tournaments.list(caller(rid));
      case M::kGetTournament: return hub_.tournaments.get(caller(rid), msg.get_tournament());
      case M::kJoinTournament: return hub_.tournaments.join(caller(rid), msg.join_tournament());
      case M::kLeaveTournament: return hub_.tournaments.leave(caller(rid), msg.leave_tournament());
      case M::kWithdrawEntrant: return hub_.tournaments.withdraw_entrant(caller(rid), msg.withdraw_entrant());
      case M::kAdjudicateGame: return hub_.tournaments.adjudicate(caller(rid), msg.adjudicate_game());
      case M::kStartTournament: return hub_.tournaments.start(caller(rid), msg.start_tournament());
      case M::kCancelTournament: return hub_.tournaments.cancel(caller(rid), msg.cancel_tournament());
      default: return send_error(rid, wire::BAD_REQUEST, "Unknown request.");
    }
  }

  void authenticate(const wire::ClientMessage& msg) {
    const auto rid = msg.request_id();
    if (user_id_ != 0) return send_error(rid, wire::CONFLICT, "This connection is logged in already; log out first.");
    if (auth_busy_) return send_error(rid, wire::CONFLICT, "A login is already in progress on this connection.");
    if (!auth_attempt_allowed()) {
      return send_error(rid, wire::RATE_LIMITED, "Too many login attempts on this connection; wait a minute.");
    }
    auth_busy_ = true;
    std::string token = msg.has_resume() ? msg.resume().token() : "";
    auto done = [s = self(), rid, token](AuthResult r) {
      if (r.token.empty()) r.token = token;
      net::post(s->derived().ws().get_executor(), [s, rid, r = std::move(r)] { s->on_authenticated(rid, r); });
    };
    auto& accounts = hub_.accounts;
    try {
      if (msg.has_register_()) {
        return accounts.register_user(msg.register_().name(), msg.register_().password(), address_key_, remote_, done);
      }
      if (msg.has_login()) return accounts.login(msg.login().name(), msg.login().password(), address_key_, remote_, done);
      accounts.resume(token, done);
    } catch (...) {
      auth_busy_ = false;  // the caller answers INTERNAL; later attempts must not be blocked
      throw;
    }
  }

  void on_authenticated(std::uint64_t rid, const AuthResult& r) {
    auth_busy_ = false;
    // Closed while the password was checked: no session is taken up, and no
    // expiry timer is set to hold this connection until the session ends.
    if (cleaned_) return;
    if (r.code != wire::ERROR_UNSPECIFIED) return send_error(rid, r.code, r.message);
    // Games watched before logging in were watched as a spectator; a player's
    // seat needs a Watch of its own.
    drop_watches();
    if (user_id_ != r.user_id) {
      if (user_id_ != 0) hub_.accounts.presence(user_id_, -1);
      hub_.accounts.presence(r.user_id, +1);
    }
    user_id_ = r.user_id;
    user_name_ = r.name;
    token_hash_ = r.token_hash;
    expire_at(r.expires_unix);
    wire::ServerMessage m;
    m.set_request_id(rid);
    auto* s = m.mutable_session();
    s->set_token(r.token);
    s->set_name(r.name);
    s->set_expires_unix(r.expires_unix);
    send(std::move(m));
  }

  // A forgotten password, before logging in: limited per connection as logins are.
  void reset_password(const wire::ClientMessage& msg) {
    const auto rid = msg.request_id();
    if (!auth_attempt_allowed()) {
      return send_error(rid, wire::RATE_LIMITED, "Too many login attempts on this connection; wait a minute.");
    }
    if (msg.has_request_password_reset()) {
      return hub_.accounts.request_password_reset(msg.request_password_reset().name(), address_key_,
                                                  [c = caller(rid)](const AuthResult& r) {
                                                    if (r.code != wire::ERROR_UNSPECIFIED) return c.error(r.code, r.message);
                                                    c.ok();
                                                  });
    }
    const auto& r = msg.reset_password();
    hub_.accounts.reset_password(r.name(), r.code(), r.new_password(), address_key_,
                                 [c = caller(rid), &sessions = hub_.sessions](const AuthResult& a) {
                                   if (a.code != wire::ERROR_UNSPECIFIED) return c.error(a.code, a.message);
                                   c.ok();
                                   sessions.sign_out(a.user_id, "", "Your password was reset: log in again.");
                                 });
  }

  void logout(std::uint64_t rid) {
    // Forget the seat's streams at once: this connection no longer speaks for the player.
    drop_watches();
    const std::int64_t was = std::exchange(user_id_, 0);
    hub_.games.unfollow_turns(was, id_);
    if (was != 0) hub_.accounts.presence(was, -1);
    user_name_.clear();
    if (expiry_) expiry_->cancel();
    const std::string token_hash = std::exchange(token_hash_, std::string());
    hub_.accounts.logout(token_hash, [c = caller(rid), &sessions = hub_.sessions, token_hash](bool ok) {
      if (!ok) return c.error(wire::INTERNAL, "The session could not be ended; it expires on its own.");
      c.ok();
      // Other connections resumed with the token speak for the player no more either.
      sessions.end_session(token_hash, "This session was logged out: log in again.");
    });
  }

  // The session ends on this connection at its expiry, as its token does.
  void expire_at(std::int64_t expires_unix) {
    if (!expiry_) expiry_.emplace(derived().ws().get_executor());
    expiry_->expires_after(std::chrono::seconds(std::max<std::int64_t>(0, expires_unix - unix_now())));
    expiry_->async_wait([s = self(), token_hash = token_hash_](beast::error_code ec) {
      if (ec || s->user_id_ == 0 || s->token_hash_ != token_hash) return;
      s->signed_out("The session has expired; log in again.");
    });
  }

  // No longer logged in: says UNAUTHENTICATED with `why`, and closes.
  void signed_out(const std::string& why) {
    drop_watches();
    const std::int64_t was = std::exchange(user_id_, 0);
    hub_.games.unfollow_turns(was, id_);
    if (was != 0) hub_.accounts.presence(was, -1);
    user_name_.clear();
    token_hash_.clear();
    if (expiry_) expiry_->cancel();
    wire::ServerMessage m;
    m.mutable_error()->set_code(wire::UNAUTHENTICATED);
    m.mutable_error()->set_message(why);
    queue_frame(encode(m));
    begin_close(websocket::close_code::normal);
  }

  const std::uint64_t id_ = g_next_id++;
  net::ip::address peer_;        // the TCP peer (the client, or a proxy in front of it), or whom its PROXY header names
  std::string address_key_;      // the client's, for limits by address: empty for loopback or a trusted proxy
  bool forwarded_believed_ = true;  // false after a PROXY header that named no client
  std::string remote_;           // for the log
  std::shared_ptr<void> slot_;   // this connection's place under the caps, given back with the session
  std::shared_ptr<void> forwarded_slot_;  // and its client's, when a trusted proxy names one
  std::optional<http::request_parser<http::empty_body>> upgrade_;  // until the upgrade request is read
  beast::flat_buffer buffer_;
  std::mutex inbox_mu_;
  std::vector<Frame> inbox_;  // delivered from any thread, not yet queued
  std::vector<Frame> draining_;  // the inbox being moved to the queue, on the strand
  bool inbox_posted_ = false;
  std::deque<Frame> queue_;
  std::size_t queued_bytes_ = 0;  // of the frames in queue_
  Frame in_flight_;  // the frame being written
  bool write_posted_ = false;
  bool writing_ = false, closing_ = false, cleaned_ = false, registered_ = false;
  websocket::close_code close_code_ = websocket::close_code::normal;

  std::int64_t user_id_ = 0;
  std::string user_name_, token_hash_;
  bool auth_busy_ = false;
  std::optional<net::steady_timer> expiry_;  // the session's end, while logged in
  std::deque<Clock::time_point> auth_times_;
  double tokens_;
  Clock::time_point refill_;
  int strikes_ = 0;
  std::set<std::string> watched_;
};

class PlainSession final : public WsSession<PlainSession> {
 public:
  PlainSession(ConnectionSocket&& socket, const tcp::endpoint& peer, Hub& hub, std::shared_ptr<void> slot)
      : WsSession(hub, peer, std::move(slot)), ws_(std::move(socket)) {}
  websocket::stream<Stream>& ws() { return ws_; }
  void run() { net::dispatch(ws_.get_executor(), beast::bind_front_handler(&PlainSession::begin, self())); }
  void start_transport() { start_websocket(); }

 private:
  websocket::stream<Stream> ws_;
};

class TlsSession final : public WsSession<TlsSession> {
 public:
  TlsSession(ConnectionSocket&& socket, const tcp::endpoint& peer, ssl::context& ctx, Hub& hub,
             std::shared_ptr<void> slot)
      : WsSession(hub, peer, std::move(slot)), ws_(Stream(std::move(socket)), ctx) {}
  websocket::stream<beast::ssl_stream<Stream>>& ws() { return ws_; }
  void run() { net::dispatch(ws_.get_executor(), beast::bind_front_handler(&TlsSession::begin, self())); }
  // Bytes read with a PROXY header may hold the start of the handshake.
  void start_transport() {
    ws_.next_layer().async_handshake(ssl::stream_base::server, buffer().data(),
                                     beast::bind_front_handler(&TlsSession::on_handshake, self()));
  }

 private:
  void on_handshake(beast::error_code ec, std::size_t early_bytes) {
    if (ec) return fail(ec, "tls handshake");
    buffer().consume(early_bytes);
    start_websocket();
  }
  websocket::stream<beast::ssl_stream<Stream>> ws_;
};

}  // namespace

void SessionRegistry::add(std::uint64_t id, std::weak_ptr<Connection> c) {
  std::lock_guard lock(mu_);
  all_[id] = std::move(c);
}

void SessionRegistry::remove(std::uint64_t id) {
  std::lock_guard lock(mu_);
  all_.erase(id);
}

std::size_t SessionRegistry::size() {
  std::lock_guard lock(mu_);
  return all_.size();
}

void SessionRegistry::sign_out(std::int64_t user_id, const std::string& keep, const std::string& why) {
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, w] : all_) {
      if (auto c = w.lock()) live.push_back(std::move(c));
    }
  }
  for (auto& c : live) c->sign_out(user_id, keep, why);
}

void SessionRegistry::end_session(const std::string& token_hash, const std::string& why) {
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, w] : all_) {
      if (auto c = w.lock()) live.push_back(std::move(c));
    }
  }
  for (auto& c : live) c->end_session(token_hash, why);
}

void SessionRegistry::shutdown_all() {
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, w] : all_) {
      if (auto c = w.lock()) live.push_back(std::move(c));
    }
  }
  for (auto& c : live) c->shutdown();
}

void start_session(ConnectionSocket&& socket, const tcp::endpoint& peer, ssl::context* tls, Hub& hub,
                   std::shared_ptr<void> slot) {
  if (tls) {
    std::make_shared<TlsSession>(std::move(socket), peer, *tls, hub, std::move(slot))->run();
  } else {
    std::make_shared<PlainSession>(std::move(socket), peer, hub, std::move(slot))->run();
  }
}

}  // namespace counterattack::server
