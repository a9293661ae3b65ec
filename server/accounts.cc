#include "accounts.h"

#include <sodium.h>

#include <algorithm>
#include <cctype>

#include "log.h"
#include "moderation.h"

namespace counterattack::server {
namespace {

std::string to_lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

AuthResult failure(wire::ErrorCode code, std::string message) {
  AuthResult r;
  r.code = code;
  r.message = std::move(message);
  return r;
}

// Each hash takes tens of milliseconds on the one hashing thread: a flood of
// logins is answered at once rather than queued for minutes.
constexpr std::size_t kMaxWaitingHashes = 64;
// Of those, one client address holds at most this many, so that it cannot keep others from logging in.
constexpr int kHashesPerAddress = 8;

// A code holds this long, and this many wrong ones in ten minutes stop a player's tries.
constexpr std::int64_t kEmailCodeSeconds = 3600;
constexpr int kMaxDigestHours = 168;  // a week: a digest rarer than that is no notice
constexpr int kEmailCodeFailures = 5;
// One address is mailed at most this many codes an hour, whoever asks.
constexpr int kEmailCodesPerRecipient = 3;

wire::ServerMessage error_message(wire::ErrorCode code, const std::string& message) {
  wire::ServerMessage m;
  m.mutable_error()->set_code(code);
  m.mutable_error()->set_message(message);
  return m;
}

// A mailed code as typed (in either case) against the SHA-256 stored for it, in constant time.
bool code_matches(const std::string& stored_hash, const std::string& typed) {
  const std::string given = Accounts::sha256_hex(to_lower(typed));
  return !stored_hash.empty() && stored_hash.size() == given.size() &&
         sodium_memcmp(stored_hash.data(), given.data(), given.size()) == 0;
}

AuthResult busy() { return failure(wire::RATE_LIMITED, "The server is busy checking passwords; try again in a moment."); }

}  // namespace

WorkQueue::WorkQueue(int threads) {
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      log::name_thread("ca-hashing");
      for (;;) {
        std::function<void(bool)> job;
        {
          std::unique_lock lock(mu_);
          cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
          if (jobs_.empty()) return;
          job = std::move(jobs_.front());
          jobs_.pop_front();
        }
        try {
          job(true);
        } catch (const std::exception& e) {
          log::error("background job failed", {{"error", e.what()}});
        }
      }
    });
  }
}

WorkQueue::~WorkQueue() { stop(); }

void WorkQueue::post(std::function<void(bool run)> job, std::size_t max_waiting) {
  {
    std::unique_lock lock(mu_);
    if (jobs_.size() >= max_waiting) {
      lock.unlock();
      return job(false);
    }
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void WorkQueue::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

Accounts::Accounts(Storage& storage, const Config& config, Mailer& mailer, const Vacations& vacations)
    : storage_(storage),
      config_(config),
      mailer_(mailer),
      vacations_(vacations),
      hashing_(1),
      login_failures_by_name_(config.login_failures_per_name, std::chrono::seconds(config.login_window_seconds)),
      login_failures_by_name_anywhere_(10 * config.login_failures_per_name, std::chrono::seconds(config.login_window_seconds)),
      login_failures_by_address_(config.login_failures_per_address, std::chrono::seconds(config.login_window_seconds)),
      registrations_by_address_(config.registrations_per_address_per_hour, std::chrono::hours(1)),
      hashes_by_address_(kHashesPerAddress, std::chrono::seconds(1)),
      email_changes_by_user_(config.email_changes_per_hour, std::chrono::hours(1)),
      email_codes_by_recipient_(kEmailCodesPerRecipient, std::chrono::hours(1)),
      email_codes_by_address_(config.email_codes_per_address_per_hour, std::chrono::hours(1)),
      email_code_failures_by_user_(kEmailCodeFailures, std::chrono::minutes(10)),
      reset_failures_(kEmailCodeFailures, std::chrono::minutes(10)) {
  char out[crypto_pwhash_STRBYTES];
  const std::string pw = random_hex(16);
  if (crypto_pwhash_str(out, pw.c_str(), pw.size(), config_.argon2_opslimit, config_.argon2_memlimit_kib * 1024) == 0) {
    dummy_hash_ = out;
  }
  // Nobody is connected yet: counts a stop without a clean end left behind go.
  storage_.write([](Db& db) { db.prepare("UPDATE users SET online = 0 WHERE online <> 0").run(); }, [](bool) {});
}

Accounts::~Accounts() { stop(); }

void Accounts::all_left() {
  storage_.write(
      [](Db& db) { db.prepare("UPDATE users SET online = 0, last_seen_unix = ? WHERE online <> 0").run(unix_now()); },
      [](bool) {});
}

void Accounts::presence(std::int64_t user_id, int change) {
  storage_.write(
      [user_id, change](Db& db) {
        db.prepare("UPDATE users SET online = max(online + ?, 0), last_seen_unix = ? WHERE id = ?").run(change, unix_now(), user_id);
      },
      [](bool) {});
}

std::string Accounts::check_name(const std::string& name) {
  const bool ok = name.size() >= 3 && name.size() <= 24 && std::all_of(name.begin(), name.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
                  });
  return ok ? "" : "A name has 3 to 24 letters, digits, '_' or '-'.";
}

std::string Accounts::check_password(const std::string& password) {
  // Characters, not bytes: "ééé" is three (protobuf strings are UTF-8).
  const auto characters = std::count_if(password.begin(), password.end(),
                                        [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
  if (characters < 8) return "A password has at least 8 characters.";
  if (password.size() > 1024) return "A password has at most 1024 bytes.";
  return "";
}

std::string Accounts::sha256_hex(std::string_view bytes) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  char hex[2 * crypto_hash_sha256_BYTES + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return hex;
}

std::string Accounts::random_hex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  randombytes_buf(raw.data(), raw.size());
  std::string hex(2 * bytes + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), reinterpret_cast<const unsigned char*>(raw.data()), raw.size());
  hex.pop_back();
  return hex;
}

void Accounts::new_session(std::int64_t user_id, const std::string& name, const std::string& password_hash,
                           std::function<void(AuthResult)> done) {
  AuthResult r;
  r.user_id = user_id;
  r.name = name;
  r.token = random_hex(32);
  r.token_hash = sha256_hex(r.token);
  r.expires_unix = unix_now() + std::int64_t{config_.session_days} * 86400;
  auto stale = std::make_shared<bool>(false);
  auto suspended = std::make_shared<std::string>();
  storage_.write(
      [r, password_hash, stale, suspended](Db& db) {
        db.prepare(
              "INSERT INTO sessions (token_hash, user_id, created_unix, expires_unix) SELECT ?, ?, ?, ?"
              " WHERE EXISTS (SELECT 1 FROM users WHERE id = ? AND password_hash = ? AND suspended_until <= ?)")
            .run(r.token_hash, r.user_id, unix_now(), r.expires_unix, r.user_id, password_hash, unix_now());
        *stale = db.changes() == 0;
        if (!*stale) return;
        // The password changed, or the operator suspended the player, since it was checked.
        auto& q = db.prepare("SELECT suspended_until, suspended_reason FROM users WHERE id = ? AND password_hash = ?");
        q.bind_all(r.user_id, password_hash);
        while (q.step()) {
          if (q.integer(0) > unix_now()) *suspended = suspension_text(q.integer(0), q.text(1));
        }
      },
      [r, stale, suspended, done = std::move(done)](bool ok) {
        if (ok && !suspended->empty()) return done(failure(wire::UNAUTHENTICATED, *suspended));
        if (ok && *stale) return done(failure(wire::BAD_CREDENTIALS, "Wrong name or password."));
        done(ok ? r : failure(wire::INTERNAL, "The session could not be stored; try again."));
      });
}

void Accounts::register_user(const std::string& name, const std::string& password, const std::string& address,
                             const std::string& seen_from, std::function<void(AuthResult)> done) {
  if (auto why = check_name(name); !why.empty()) return done(failure(wire::BAD_REQUEST, why));
  if (auto why = check_password(password); !why.empty()) return done(failure(wire::BAD_REQUEST, why));
  // Each registration hashes a password and keeps a row: one address makes a
  // club's worth an hour, not a flood.
  if (!address.empty() && !registrations_by_address_.begin(address)) {
    return done(failure(wire::RATE_LIMITED, "Too many accounts made from your address; try again in an hour."));
  }
  post_hash(address, [this, name, password, address, seen_from, done = std::move(done)](bool admitted) mutable {
    if (!address.empty()) registrations_by_address_.end(address, admitted);
    if (!admitted) return done(busy());
    const std::string hash = hash_password(password);
    if (hash.empty()) return done(failure(wire::INTERNAL, "The password could not be hashed."));
    auto user_id = std::make_shared<std::int64_t>(0);
    auto taken = std::make_shared<bool>(false);
    storage_.write(
        [name, h = hash, user_id, taken](Db& db) {
          auto& exists = db.prepare("SELECT 1 FROM users WHERE name = ?");  // the column compares without case
          exists.bind_all(name);
          if (exists.step()) {
            exists.reset();
            *taken = true;
            throw DbError(SQLITE_CONSTRAINT, "name taken");
          }
          auto& ins = db.prepare("INSERT INTO users (name, password_hash, created_unix) VALUES (?, ?, ?) RETURNING id");
          ins.bind_all(name, h, unix_now());
          while (ins.step()) *user_id = ins.integer(0);
        },
        [this, name, hash, user_id, taken, address, seen_from, done = std::move(done)](bool ok) mutable {
          if (!ok && *taken) return done(failure(wire::NAME_TAKEN, "The name '" + name + "' is taken."));
          if (!ok) return done(failure(wire::INTERNAL, "The account could not be stored; try again."));
          log::info("user registered", {{"user", name}, {"address", seen_from}});
          new_session(*user_id, name, hash, std::move(done));
        });
  });
}

void Accounts::post_hash(const std::string& address, std::function<void(bool admitted)> job) {
  if (!address.empty() && !hashes_by_address_.begin(address)) return job(false);
  hashing_.post(
      [this, address, job = std::move(job)](bool admitted) {
        if (!address.empty()) hashes_by_address_.end(address, false);
        job(admitted);
      },
      kMaxWaitingHashes);
}

void Accounts::login(const std::string& name, const std::string& password, const std::string& address,
                     const std::string& seen_from, std::function<void(AuthResult)> done) {
  // No account has such a name or password: nothing to check, and nothing to count.
  if (!check_name(name).empty() || password.size() > 1024) return done(failure(wire::BAD_CREDENTIALS, "Wrong name or password."));
  // Failures count against the name, so that one account cannot be guessed at,
  // and against the address, so that one client cannot guess across many names.
  const std::string anywhere = to_lower(name);
  const std::string key = address.empty() ? anywhere : anywhere + "\n" + address;
  if (!login_failures_by_name_.begin(key)) {
    return done(failure(wire::RATE_LIMITED, "Too many failed logins for this name; wait a minute."));
  }
  if (!login_failures_by_name_anywhere_.begin(anywhere)) {
    login_failures_by_name_.end(key, false);
    return done(failure(wire::RATE_LIMITED, "Too many failed logins for this name; wait a minute."));
  }
  if (!address.empty() && !login_failures_by_address_.begin(address)) {
    login_failures_by_name_.end(key, false);
    login_failures_by_name_anywhere_.end(anywhere, false);
    return done(failure(wire::RATE_LIMITED, "Too many failed logins from your address; wait a minute."));
  }
  auto end_attempt = [this, key, anywhere, address](bool failed) {
    login_failures_by_name_.end(key, failed);
    login_failures_by_name_anywhere_.end(anywhere, failed);
    if (!address.empty()) login_failures_by_address_.end(address, failed);
  };
  post_hash(address, [this, name, password, address, seen_from, end_attempt, done = std::move(done)](bool admitted) mutable {
    if (!admitted) {
      end_attempt(false);
      return done(busy());
    }
    struct Row {
      std::int64_t id = 0;
      std::string name, hash;
      std::int64_t suspended_until = 0;
      std::string suspended_reason;
    };
    Row row;
    try {
      row = storage_.read([&](Db& db) {
        Row r;
        auto& q = db.prepare("SELECT id, name, password_hash, suspended_until, suspended_reason FROM users WHERE name = ?");
        q.bind_all(name);
        while (q.step()) r = Row{q.integer(0), q.text(1), q.text(2), q.integer(3), q.text(4)};
        return r;
      });
    } catch (const std::exception& e) {
      end_attempt(false);
      log::error("login lookup failed", {{"error", e.what()}});
      return done(failure(wire::INTERNAL, "The login could not be checked; try again."));
    }
    const std::string& hash = row.id ? row.hash : dummy_hash_;
    const bool match = !hash.empty() && crypto_pwhash_str_verify(hash.c_str(), password.c_str(), password.size()) == 0;
    end_attempt(!row.id || !match);
    if (!row.id || !match) {
      log::info("login failed", {{"user", name}, {"address", seen_from}});
      return done(failure(wire::BAD_CREDENTIALS, "Wrong name or password."));
    }
    // Told only to whoever knows the password: the reason is the player's business.
    if (row.suspended_until > unix_now()) {
      log::info("login refused: suspended", {{"user", row.name}, {"address", seen_from}});
      return done(failure(wire::UNAUTHENTICATED, suspension_text(row.suspended_until, row.suspended_reason)));
    }
    new_session(row.id, row.name, row.hash, std::move(done));
  });
}

void Accounts::resume(const std::string& token, std::function<void(AuthResult)> done) {
  if (token.empty() || token.size() > 256) return done(failure(wire::UNAUTHENTICATED, "That session token is not valid."));
  const std::string token_hash = sha256_hex(token);
  AuthResult r = storage_.read([&](Db& db) {
    AuthResult out;
    auto& q = db.prepare(
        "SELECT s.user_id, u.name, s.expires_unix, u.suspended_until, u.suspended_reason FROM sessions s"
        " JOIN users u ON u.id = s.user_id WHERE s.token_hash = ?");
    q.bind_all(token_hash);
    while (q.step()) {
      out.user_id = q.integer(0);
      out.name = q.text(1);
      out.expires_unix = q.integer(2);
      if (q.integer(3) > unix_now()) out.message = suspension_text(q.integer(3), q.text(4));
    }
    return out;
  });
  if (!r.user_id) return done(failure(wire::UNAUTHENTICATED, "That session token is not valid; log in again."));
  if (!r.message.empty()) return done(failure(wire::UNAUTHENTICATED, r.message));
  if (r.expires_unix <= unix_now()) {
    storage_.write([token_hash](Db& db) { db.prepare("DELETE FROM sessions WHERE token_hash = ?").run(token_hash); }, nullptr);
    return done(failure(wire::UNAUTHENTICATED, "The session has expired; log in again."));
  }
  r.token_hash = token_hash;
  done(std::move(r));
}

void Accounts::logout(const std::string& token_hash, std::function<void(bool)> done) {
  storage_.write([token_hash](Db& db) { db.prepare("DELETE FROM sessions WHERE token_hash = ?").run(token_hash); },
                 std::move(done));
}

void Accounts::get_account(std::int64_t user_id, std::function<void(wire::ServerMessage)> done) {
  wire::ServerMessage m;
  auto* a = m.mutable_account();
  storage_.read([&](Db& db) {
    auto& q = db.prepare("SELECT name, email, email_confirmed FROM users WHERE id = ?");
    q.bind_all(user_id);
    while (q.step()) {
      a->set_name(q.text(0));
      a->set_email(q.text(1));
      a->set_email_confirmed(q.integer(2) != 0);
    }
    return 0;
  });
  a->set_mail_enabled(mailer_.enabled());
  *a->mutable_vacation() = vacations_.describe(user_id);
  const auto t = mailer_.turn_mail(user_id);
  a->set_turn_mail(t.mode);
  a->set_digest_hours(t.digest_hours);
  done(std::move(m));
}

namespace {

wire::ServerMessage account_message(const std::string& name, const std::string& email, bool confirmed, bool enabled,
                                    wire::Vacation vacation, const Mailer::TurnMail& turn_mail) {
  wire::ServerMessage m;
  auto* a = m.mutable_account();
  *a->mutable_vacation() = std::move(vacation);
  a->set_name(name);
  a->set_email(email);
  a->set_email_confirmed(confirmed);
  a->set_mail_enabled(enabled);
  a->set_turn_mail(turn_mail.mode);
  a->set_digest_hours(turn_mail.digest_hours);
  return m;
}

}  // namespace

void Accounts::set_email(std::int64_t user_id, const std::string& name, const std::string& address,
                         const std::string& client_address, std::function<void(wire::ServerMessage)> done) {
  if (!mailer_.enabled()) return done(error_message(wire::UNAVAILABLE, "This server sends no e-mail."));
  if (!address.empty()) {
    if (auto why = Mailer::check_address(address); !why.empty()) return done(error_message(wire::BAD_REQUEST, why));
    const std::string recipient = to_lower(address);
    if (!email_changes_by_user_.begin(std::to_string(user_id))) {
      return done(error_message(wire::RATE_LIMITED, "Too many addresses set in the last hour; try again later."));
    }
    const bool recipient_ok = email_codes_by_recipient_.begin(recipient);
    const bool client_ok = client_address.empty() || email_codes_by_address_.begin(client_address);
    email_changes_by_user_.end(std::to_string(user_id), recipient_ok && client_ok);
    if (recipient_ok) email_codes_by_recipient_.end(recipient, client_ok);
    if (client_ok && !client_address.empty()) email_codes_by_address_.end(client_address, recipient_ok);
    if (!recipient_ok || !client_ok) {
      return done(error_message(wire::RATE_LIMITED, recipient_ok ? "Too many addresses set from your address; try again later."
                                                                 : "That address was sent codes enough this hour; try again later."));
    }
  }
  const std::string code = address.empty() ? "" : random_hex(4);
  const std::string code_hash = code.empty() ? "" : sha256_hex(code);
  const std::int64_t expires = code.empty() ? 0 : unix_now() + kEmailCodeSeconds;
  mailer_.forget(user_id);  // an address being replaced gets no more notices
  auto vacation = vacations_.describe(user_id);  // read here: not on the thread that reports commits
  storage_.write(
      [user_id, address, code_hash, expires](Db& db) {
        // Mail still waiting for the address being replaced is not sent, and a
        // password reset code mailed to it holds no more.
        db.prepare("DELETE FROM outbox WHERE user_id = ?").run(user_id);
        db.prepare("UPDATE users SET email = ?, email_confirmed = 0, email_code_hash = ?, email_code_expires_unix = ?,"
                   " reset_code_hash = '' WHERE id = ?")
            .run(address, code_hash, expires, user_id);
      },
      [this, user_id, name, address, code, vacation = std::move(vacation), done = std::move(done)](bool ok) {
        if (!ok) return done(error_message(wire::INTERNAL, "The address could not be stored; try again."));
        // Again, in commit order: a confirmation stored just before may have put the old one back.
        mailer_.forget(user_id);
        if (!code.empty()) {
          mailer_.queue(user_id, address, "Your Counterattack confirmation code: " + code,
                        "Hello,\n\nto have your Counterattack turn notices sent to this address, run\n\n"
                        "    " + mailer_.client_command("email confirm " + code) + "\n\n(or type `email confirm " + code +
                            "` in the counterattack shell) within the hour.\n\n"
                        "If you did not ask for this, ignore this mail: nothing more will be sent.\n");
          log::info("e-mail address set", {{"user_id", user_id}});
        }
        done(account_message(name, address, false, true, vacation, mailer_.turn_mail(user_id)));
      });
}

void Accounts::confirm_email(std::int64_t user_id, const std::string& name, const std::string& code,
                             std::function<void(wire::ServerMessage)> done) {
  if (!mailer_.enabled()) return done(error_message(wire::UNAVAILABLE, "This server sends no e-mail."));
  const std::string key = std::to_string(user_id);
  if (!email_code_failures_by_user_.begin(key)) {
    return done(error_message(wire::RATE_LIMITED, "Too many wrong codes; wait ten minutes."));
  }
  struct Row {
    std::string email, code_hash;
    std::int64_t expires = 0;
  };
  Row row;
  try {
    row = storage_.read([&](Db& db) {
      Row r;
      auto& q = db.prepare("SELECT email, email_code_hash, email_code_expires_unix FROM users WHERE id = ?");
      q.bind_all(user_id);
      while (q.step()) r = Row{q.text(0), q.text(1), q.integer(2)};
      return r;
    });
  } catch (...) {
    email_code_failures_by_user_.end(key, false);
    throw;
  }
  const bool match = code_matches(row.code_hash, code);
  email_code_failures_by_user_.end(key, !row.code_hash.empty() && !match);
  if (row.email.empty() || row.code_hash.empty()) {
    return done(error_message(wire::CONFLICT, "No address waits for a code: set one first."));
  }
  if (!match) return done(error_message(wire::BAD_REQUEST, "That is not the code mailed to " + row.email + "."));
  if (row.expires <= unix_now()) {
    return done(error_message(wire::BAD_REQUEST, "That code has expired; set the address again for a new one."));
  }
  auto confirmed = std::make_shared<bool>(false);
  auto vacation = vacations_.describe(user_id);
  storage_.write(
      [user_id, h = row.code_hash, confirmed](Db& db) {
        // Only the address that code was mailed to: a change meanwhile made a new code.
        db.prepare("UPDATE users SET email_confirmed = 1, email_code_hash = '' WHERE id = ? AND email_code_hash = ?").run(user_id, h);
        *confirmed = db.changes() == 1;
      },
      [this, user_id, name, email = row.email, confirmed, vacation = std::move(vacation), done = std::move(done)](bool ok) {
        if (!ok) return done(error_message(wire::INTERNAL, "The confirmation could not be stored; try again."));
        if (!*confirmed) return done(error_message(wire::CONFLICT, "The address changed meanwhile; confirm the new one."));
        mailer_.confirmed(user_id, email);
        log::info("e-mail address confirmed", {{"user_id", user_id}});
        done(account_message(name, email, true, true, vacation, mailer_.turn_mail(user_id)));
      });
}

void Accounts::set_turn_mail(std::int64_t user_id, const wire::SetTurnMail& req, std::function<void(wire::ServerMessage)> done) {
  if (!mailer_.enabled()) return done(error_message(wire::UNAVAILABLE, "This server sends no e-mail."));
  const auto mode = req.mode();
  if (mode != wire::TURN_MAIL_EACH && mode != wire::TURN_MAIL_DIGEST && mode != wire::TURN_MAIL_OFF) {
    return done(error_message(wire::BAD_REQUEST, "Turn notices are mailed each, as a digest, or off."));
  }
  if (req.digest_hours() != 0 && (req.digest_hours() < 1 || req.digest_hours() > kMaxDigestHours)) {
    return done(error_message(wire::BAD_REQUEST, "A digest comes every 1 to " + std::to_string(kMaxDigestHours) + " hours."));
  }
  const auto before = mailer_.turn_mail(user_id);
  Mailer::TurnMail after = before;
  after.mode = mode;
  if (req.digest_hours() != 0) after.digest_hours = req.digest_hours();
  // A digest chosen now counts its first interval from now: the per-game mails may just have come.
  if (mode == wire::TURN_MAIL_DIGEST && before.mode != wire::TURN_MAIL_DIGEST) after.digest_sent = unix_now();
  struct Row {
    std::string name, email;
    bool confirmed = false;
  };
  const Row row = storage_.read([&](Db& db) {
    Row r;
    auto& q = db.prepare("SELECT name, email, email_confirmed FROM users WHERE id = ?");
    q.bind_all(user_id);
    while (q.step()) r = Row{q.text(0), q.text(1), q.integer(2) != 0};
    return r;
  });
  auto vacation = vacations_.describe(user_id);  // read here: not on the thread that reports commits
  storage_.write(
      [user_id, after](Db& db) {
        // A digest sent meanwhile keeps its time.
        db.prepare("UPDATE users SET turn_mail = ?, digest_hours = ?, digest_sent_unix = MAX(digest_sent_unix, ?) WHERE id = ?")
            .run(std::string(Mailer::mode_name(after.mode)), after.digest_hours, after.digest_sent, user_id);
      },
      [this, user_id, after, row, vacation = std::move(vacation), done = std::move(done)](bool ok) {
        if (!ok) return done(error_message(wire::INTERNAL, "The setting could not be stored; try again."));
        mailer_.set_turn_mail(user_id, after);
        log::info("turn mail set", {{"user_id", user_id}, {"mode", Mailer::mode_name(after.mode)}});
        done(account_message(row.name, row.email, row.confirmed, true, vacation, after));
      });
}

std::string Accounts::hash_password(const std::string& password) const {
  char hash[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str(hash, password.c_str(), password.size(), config_.argon2_opslimit,
                        config_.argon2_memlimit_kib * 1024) != 0) {
    return "";
  }
  return hash;
}

// The logged-in player's own password, checked on the hashing thread before a
// change that needs it; `then` gets the stored hash. Wrong ones count as failed
// logins: a session left open is no way to guess it.
void Accounts::check_own_password(std::int64_t user_id, const std::string& name, const std::string& password,
                                  const std::string& wrong, std::function<void(AuthResult)> done,
                                  std::function<void(const std::string&, std::function<void(AuthResult)>)> then) {
  if (password.size() > 1024) return done(failure(wire::BAD_CREDENTIALS, wrong));
  const std::string key = to_lower(name);
  if (!login_failures_by_name_.begin(key)) {
    return done(failure(wire::RATE_LIMITED, "Too many wrong passwords for this name; wait a minute."));
  }
  hashing_.post([this, user_id, key, password, wrong, done = std::move(done), then = std::move(then)](bool admitted) mutable {
    if (!admitted) {
      login_failures_by_name_.end(key, false);
      return done(busy());
    }
    std::string stored;
    try {
      stored = storage_.read([&](Db& db) {
        std::string h;
        auto& q = db.prepare("SELECT password_hash FROM users WHERE id = ?");
        q.bind_all(user_id);
        while (q.step()) h = q.text(0);
        return h;
      });
    } catch (const std::exception& e) {
      login_failures_by_name_.end(key, false);
      log::error("password lookup failed", {{"error", e.what()}});
      return done(failure(wire::INTERNAL, "The password could not be checked; try again."));
    }
    const bool match = !stored.empty() && crypto_pwhash_str_verify(stored.c_str(), password.c_str(), password.size()) == 0;
    login_failures_by_name_.end(key, !match);
    if (!match) return done(failure(wire::BAD_CREDENTIALS, wrong));
    then(stored, std::move(done));
  }, kMaxWaitingHashes);
}

void Accounts::change_password(std::int64_t user_id, const std::string& name, const std::string& token_hash,
                               const std::string& old_password, const std::string& new_password,
                               std::function<void(AuthResult)> answer) {
  if (auto why = check_password(new_password); !why.empty()) return answer(failure(wire::BAD_REQUEST, why));
  check_own_password(user_id, name, old_password, "The old password is wrong.", std::move(answer),
                     [this, user_id, token_hash, new_password](const std::string& stored, std::function<void(AuthResult)> done) {
    const std::string hash = hash_password(new_password);
    if (hash.empty()) return done(failure(wire::INTERNAL, "The password could not be hashed."));
    auto changed = std::make_shared<bool>(false);
    storage_.write(
        [user_id, hash, stored, token_hash, changed](Db& db) {
          // Only over the password checked: a change or reset stored meanwhile stands.
          db.prepare("UPDATE users SET password_hash = ?, reset_code_hash = '' WHERE id = ? AND password_hash = ?")
              .run(hash, user_id, stored);
          *changed = db.changes() == 1;
          if (*changed) db.prepare("DELETE FROM sessions WHERE user_id = ? AND token_hash <> ?").run(user_id, token_hash);
        },
        [user_id, changed, done = std::move(done)](bool ok) {
          if (!ok) return done(failure(wire::INTERNAL, "The new password could not be stored; try again."));
          if (!*changed) return done(failure(wire::BAD_CREDENTIALS, "The password was changed meanwhile; the old one is wrong."));
          log::info("password changed", {{"user_id", user_id}});
          AuthResult r;
          r.user_id = user_id;
          done(std::move(r));
        });
  });
}

namespace {

// What of the player's is under way and keeps the account open, as a sentence ("" when nothing).
std::string still_under_way(Db& db, std::int64_t user_id) {
  std::vector<std::string> games, open, entered, organised;
  auto& g = db.prepare(
      "SELECT id, status FROM games WHERE (status = 'playing' AND (soviet_id = ? OR german_id = ?))"
      " OR (status = 'open' AND (creator_id = ? OR soviet_id = ? OR german_id = ?)) ORDER BY id");
  // A tournament's games name its organiser as their creator: only a seat is a part in play.
  g.bind_all(user_id, user_id, user_id, user_id, user_id);
  while (g.step()) (g.text(1) == "open" ? open : games).push_back(g.text(0));
  auto& e = db.prepare(
      "SELECT t.id FROM tournaments t JOIN tournament_entrants e ON e.tournament_id = t.id"
      " WHERE e.user_id = ? AND e.withdrawn_unix = 0 AND t.status IN ('open', 'playing') AND t.finished_unix = 0 ORDER BY t.id");
  e.bind_all(user_id);
  while (e.step()) entered.push_back(e.text(0));
  auto& o = db.prepare(
      "SELECT id FROM tournaments WHERE organiser_id = ? AND status IN ('open', 'playing') AND finished_unix = 0 ORDER BY id");
  o.bind_all(user_id);
  while (o.step()) {
    if (std::find(entered.begin(), entered.end(), o.text(0)) == entered.end()) organised.push_back(o.text(0));
  }
  auto list = [](const std::vector<std::string>& ids) {
    std::string out;
    for (const auto& id : ids) out += (out.empty() ? "" : ", ") + id;
    return out;
  };
  std::vector<std::string> parts;
  if (!games.empty()) parts.push_back("you play in " + list(games) + " (finish or resign)");
  const auto one = [](const std::vector<std::string>& ids, const char* single, const char* plural) {
    return std::string(ids.size() == 1 ? single : plural);
  };
  if (!open.empty()) {
    parts.push_back(one(open, "your open game ", "your open games ") + list(open) +
                    one(open, " waits for a player (resign withdraws it)", " wait for a player (resign withdraws them)"));
  }
  if (!entered.empty()) {
    parts.push_back("you are entered in " + one(entered, "the tournament ", "the tournaments ") + list(entered) +
                    " (leave or withdraw: tournament leave ID)");
  }
  if (!organised.empty()) {
    parts.push_back("you organise " + one(organised, "the tournament ", "the tournaments ") + list(organised) +
                    " (cancel, or let end)");
  }
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : "; ") + parts[i];
  return out;
}

}  // namespace

Accounts::Standing Accounts::standing(Db& db, std::int64_t user_id) {
  auto& q = db.prepare("SELECT closed_unix, suspended_until FROM users WHERE id = ?");
  q.bind_all(user_id);
  Standing out = Standing::Active;
  while (q.step()) {
    if (q.integer(0) != 0) out = Standing::Closed;
    else if (q.integer(1) > unix_now()) out = Standing::Suspended;
  }
  return out;
}

std::string Accounts::barred(Db& db, std::int64_t user_id) {
  switch (standing(db, user_id)) {
    case Standing::Closed: return "This account was closed.";
    case Standing::Suspended: return "This account is suspended.";
    default: return "";
  }
}

void Accounts::close_account(std::int64_t user_id, const std::string& name, const std::string& password,
                             std::function<void(AuthResult)> answer) {
  check_own_password(user_id, name, password, "The password is wrong.", std::move(answer),
                     [this, user_id](const std::string& stored, std::function<void(AuthResult)> done) {
    auto blocked = std::make_shared<std::string>();
    auto closed = std::make_shared<bool>(false);
    storage_.write(
        [user_id, stored, blocked, closed](Db& db) {
          // Checked in the closing transaction: nothing can start between the check and the close.
          *blocked = still_under_way(db, user_id);
          if (!blocked->empty()) return;
          db.prepare("UPDATE users SET password_hash = '', email = '', email_confirmed = 0, email_code_hash = '',"
                     " reset_code_hash = '', closed_unix = ? WHERE id = ? AND password_hash = ?")
              .run(unix_now(), user_id, stored);
          *closed = db.changes() == 1;
          if (!*closed) return;
          db.prepare("DELETE FROM sessions WHERE user_id = ?").run(user_id);
          db.prepare("DELETE FROM outbox WHERE user_id = ?").run(user_id);
          db.prepare("DELETE FROM mutes WHERE user_id = ?").run(user_id);  // whom they muted is theirs alone
        },
        [this, user_id, blocked, closed, done = std::move(done)](bool ok) {
          if (!ok) return done(failure(wire::INTERNAL, "The account could not be closed; try again."));
          if (!blocked->empty()) {
            return done(failure(wire::CONFLICT, "The account stays open while " + *blocked + "."));
          }
          if (!*closed) return done(failure(wire::BAD_CREDENTIALS, "The password was changed meanwhile; this one is wrong."));
          mailer_.forget(user_id);
          log::info("account closed", {{"user_id", user_id}});
          AuthResult r;
          r.user_id = user_id;
          done(std::move(r));
        });
  });
}

void Accounts::request_password_reset(const std::string& name, const std::string& client_address,
                                      std::function<void(AuthResult)> done) {
  if (!mailer_.enabled()) return done(failure(wire::UNAVAILABLE, "This server sends no e-mail: ask its operator for a new password."));
  if (!check_name(name).empty()) return done(AuthResult{});  // no such player: the answer is alike
  if (!client_address.empty() && !email_codes_by_address_.take(client_address)) {
    return done(failure(wire::RATE_LIMITED, "Too many codes asked for from your address; try again later."));
  }
  struct Row {
    std::int64_t id = 0;
    std::string name, email;
    bool confirmed = false;
  };
  const Row row = storage_.read([&](Db& db) {
    Row r;
    auto& q = db.prepare("SELECT id, name, email, email_confirmed FROM users WHERE name = ?");
    q.bind_all(name);
    while (q.step()) r = Row{q.integer(0), q.text(1), q.text(2), q.integer(3) != 0};
    return r;
  });
  // Nobody to mail, or mailed enough this hour: the same answer, nothing sent.
  if (row.id == 0 || row.email.empty() || !row.confirmed || !email_codes_by_recipient_.take(to_lower(row.email))) {
    return done(AuthResult{});
  }
  // Answered before the write: how long the answer takes tells nothing either.
  done(AuthResult{});
  // 64 bits: wrong codes are counted per name and client address, and many addresses must not find it.
  const std::string code = random_hex(8);
  storage_.write(
      [id = row.id, h = sha256_hex(code), expires = unix_now() + kEmailCodeSeconds](Db& db) {
        db.prepare("UPDATE users SET reset_code_hash = ?, reset_code_expires_unix = ? WHERE id = ?").run(h, expires, id);
      },
      [this, row, code](bool ok) {
        if (!ok) return log::error("a password reset code could not be stored", {{"user_id", row.id}});
        mailer_.queue(row.id, row.email, "Your Counterattack password reset code: " + code,
                      "Hello " + row.name + ",\n\nto choose a new password for your Counterattack account, run\n\n"
                      "    " + mailer_.client_command("password --reset " + row.name + " " + code) +
                          "\n\nwithin the hour. Every session of yours then ends: log in again with the new password.\n\n"
                      "If you did not ask for this, ignore this mail: your password stays as it is.\n");
        log::info("password reset code mailed", {{"user_id", row.id}});
      });
}

void Accounts::reset_password(const std::string& name, const std::string& code, const std::string& new_password,
                              const std::string& client_address, std::function<void(AuthResult)> done) {
  if (!mailer_.enabled()) return done(failure(wire::UNAVAILABLE, "This server sends no e-mail: ask its operator for a new password."));
  if (auto why = check_password(new_password); !why.empty()) return done(failure(wire::BAD_REQUEST, why));
  const std::string wrong = "That code is wrong or has expired; ask for a new one.";
  if (!check_name(name).empty() || code.size() > 64) return done(failure(wire::BAD_CREDENTIALS, wrong));
  // By name and address: nobody can use up a player's tries from elsewhere.
  const std::string key = to_lower(name) + " " + client_address;
  if (!reset_failures_.begin(key)) {
    return done(failure(wire::RATE_LIMITED, "Too many wrong codes; wait ten minutes."));
  }
  struct Row {
    std::int64_t id = 0;
    std::string code_hash;
    std::int64_t expires = 0;
  };
  Row row;
  try {
    row = storage_.read([&](Db& db) {
      Row r;
      auto& q = db.prepare("SELECT id, reset_code_hash, reset_code_expires_unix FROM users WHERE name = ?");
      q.bind_all(name);
      while (q.step()) r = Row{q.integer(0), q.text(1), q.integer(2)};
      return r;
    });
  } catch (...) {
    reset_failures_.end(key, false);
    throw;
  }
  const bool match = code_matches(row.code_hash, code);
  reset_failures_.end(key, !row.code_hash.empty() && !match);
  if (!match || row.expires <= unix_now()) return done(failure(wire::BAD_CREDENTIALS, wrong));
  hashing_.post([this, row, new_password, wrong, done = std::move(done)](bool admitted) mutable {
    if (!admitted) return done(busy());
    const std::string hash = hash_password(new_password);
    if (hash.empty()) return done(failure(wire::INTERNAL, "The password could not be hashed."));
    auto used = std::make_shared<bool>(false);
    storage_.write(
        [row, hash, used](Db& db) {
          // The code once only: a second reset with it, meanwhile, changes nothing.
          db.prepare("UPDATE users SET password_hash = ?, reset_code_hash = '' WHERE id = ? AND reset_code_hash = ?")
              .run(hash, row.id, row.code_hash);
          *used = db.changes() == 1;
          if (*used) db.prepare("DELETE FROM sessions WHERE user_id = ?").run(row.id);
        },
        [row, used, wrong, done = std::move(done)](bool ok) {
          if (!ok) return done(failure(wire::INTERNAL, "The new password could not be stored; try again."));
          if (!*used) return done(failure(wire::BAD_CREDENTIALS, wrong));
          log::info("password reset", {{"user_id", row.id}});
          AuthResult r;
          r.user_id = row.id;
          done(std::move(r));
        });
  }, kMaxWaitingHashes);
}

void Accounts::purge_expired() {
  storage_.write([](Db& db) { db.prepare("DELETE FROM sessions WHERE expires_unix <= ?").run(unix_now()); },
                 [](bool ok) {
                   if (!ok) log::warn("expired sessions could not be purged");
                 });
}

}  // namespace counterattack::server
