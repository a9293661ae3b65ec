// Accounts and sessions: Argon2id password hashes (libsodium), random session
// tokens stored only as SHA-256 hashes, expiry, and login rate limits.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "config.h"
#include "mailer.h"
#include "recent_attempts.h"
#include "storage.h"
#include "vacations.h"
#include "wire.pb.h"

namespace counterattack::server {

// A worker thread for slow jobs (password hashing) off the network threads.
class WorkQueue {
 public:
  explicit WorkQueue(int threads);
  ~WorkQueue();
  // Runs job(true) on the worker; job(false) at once, here, when `max_waiting` jobs wait already.
  void post(std::function<void(bool run)> job, std::size_t max_waiting);
  void stop();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void(bool)>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

struct AuthResult {
  wire::ErrorCode code = wire::ERROR_UNSPECIFIED;  // ERROR_UNSPECIFIED: success
  std::string message;
  std::int64_t user_id = 0;
  std::string name;
  std::string token;        // only on register and login
  std::string token_hash;   // the key of the session row
  std::int64_t expires_unix = 0;
};

class Accounts {
 public:
  Accounts(Storage& storage, const Config& config, Mailer& mailer, const Vacations& vacations);
  ~Accounts();

  // "" when acceptable, else the sentence to show.
  static std::string check_name(const std::string& name);
  static std::string check_password(const std::string& password);
  static std::string sha256_hex(std::string_view bytes);
  static std::string random_hex(std::size_t bytes);
  // Inside a write: "" when the account may start something, else why not (closed,
  // or suspended). Writes that start something for a player check it, so that
  // nothing starts for an account closed or suspended meanwhile.
  static std::string barred(Db& db, std::int64_t user_id);
  enum class Standing { Active, Closed, Suspended };
  static Standing standing(Db& db, std::int64_t user_id);
  // A connection logged in as the player (+1), or one of theirs ended (-1): for
  // the operator's list of who is online, and when each was last seen.
  void presence(std::int64_t user_id, int change);
  // At a stop: every player still counted online leaves now.
  void all_left();

  // Asynchronous: `done` runs on another thread once the answer is durable.
  // `address` is the client's, as ConnectionCaps::address_key gives it: empty for
  // loopback and trusted proxies, which are not limited by address. `seen_from`
  // is the connection as the log names it (the client, and a proxy it came through).
  void register_user(const std::string& name, const std::string& password, const std::string& address,
                     const std::string& seen_from, std::function<void(AuthResult)> done);
  void login(const std::string& name, const std::string& password, const std::string& address,
             const std::string& seen_from, std::function<void(AuthResult)> done);
  void resume(const std::string& token, std::function<void(AuthResult)> done);
  void logout(const std::string& token_hash, std::function<void(bool)> done);
  // E-mail for turn notices (see wire.proto): each answers the caller with
  // Account or an error, once what it changed is durable.
  void get_account(std::int64_t user_id, std::function<void(wire::ServerMessage)> done);
  // `client_address` as for register_user: empty for loopback and trusted proxies.
  void set_email(std::int64_t user_id, const std::string& name, const std::string& address,
                 const std::string& client_address, std::function<void(wire::ServerMessage)> done);
  void confirm_email(std::int64_t user_id, const std::string& name, const std::string& code,
                     std::function<void(wire::ServerMessage)> done);
  // How turn notices are mailed (SetTurnMail); a bad mode or interval changes nothing.
  void set_turn_mail(std::int64_t user_id, const wire::SetTurnMail& req, std::function<void(wire::ServerMessage)> done);

  // Passwords (see wire.proto). Each calls `done` with the outcome (code
  // ERROR_UNSPECIFIED and the player's user_id on success) once it is durable;
  // the caller then ends the player's other connections.
  // ChangePassword: every session of the player but `token_hash` ends.
  void change_password(std::int64_t user_id, const std::string& name, const std::string& token_hash,
                       const std::string& old_password, const std::string& new_password,
                       std::function<void(AuthResult)> done);
  // CloseAccount: with the password, once nothing of the player's is under way
  // (CONFLICT naming what is); every session of the player ends.
  void close_account(std::int64_t user_id, const std::string& name, const std::string& password,
                     std::function<void(AuthResult)> done);
  // RequestPasswordReset: mails a code to the player's confirmed address, if any;
  // succeeds alike when there is none, or no such player.
  void request_password_reset(const std::string& name, const std::string& client_address,
                              std::function<void(AuthResult)> done);
  // ResetPassword: with the mailed code, a new password; every session of the player ends.
  // Wrong codes are limited per name and client address (`client_address` as for register_user).
  void reset_password(const std::string& name, const std::string& code, const std::string& new_password,
                      const std::string& client_address, std::function<void(AuthResult)> done);

  // Deletes expired sessions.
  void purge_expired();

  void stop() { hashing_.stop(); }

 private:
  // The logged-in player's own password, checked on the hashing thread (`wrong`
  // answers a wrong one); `then` gets the stored hash and `done`.
  void check_own_password(std::int64_t user_id, const std::string& name, const std::string& password,
                          const std::string& wrong, std::function<void(AuthResult)> done,
                          std::function<void(const std::string&, std::function<void(AuthResult)>)> then);
  // A session, stored only while the password is still the one `password_hash`
  // checked: a change or reset stored meanwhile makes it BAD_CREDENTIALS.
  void new_session(std::int64_t user_id, const std::string& name, const std::string& password_hash,
                   std::function<void(AuthResult)> done);
  // The Argon2id hash of a password as libsodium stores it; empty when it cannot be made.
  std::string hash_password(const std::string& password) const;

  Storage& storage_;
  const Config& config_;
  Mailer& mailer_;
  const Vacations& vacations_;
  WorkQueue hashing_;
  std::string dummy_hash_;  // verified against for unknown names, so timing tells nothing

  // A password check or hash on the hashing thread, for a client address (empty: not
  // counted); `job(false)` when it is not admitted.
  void post_hash(const std::string& address, std::function<void(bool admitted)> job);

  // Failed logins by lower-case name from one client address (so that nobody locks a
  // player out from elsewhere), by name from anywhere (ten times as many), and by
  // client address; registrations by address; password checks under way by address.
  RecentAttempts login_failures_by_name_, login_failures_by_name_anywhere_, login_failures_by_address_,
      registrations_by_address_, hashes_by_address_;
  // Each address set is mailed a code: limited per player, per recipient and per
  // client address, so that nobody makes the server mail strangers at will.
  RecentAttempts email_changes_by_user_, email_codes_by_recipient_, email_codes_by_address_;
  RecentAttempts email_code_failures_by_user_;  // wrong codes
  RecentAttempts reset_failures_;               // wrong password reset codes, by lower-case name and client address
};

}  // namespace counterattack::server
