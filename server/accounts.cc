#include "accounts.h"

#include <sodium.h>

#include <algorithm>
#include <cctype>

#include "log.h"

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

Accounts::Accounts(Storage& storage, const Config& config)
    : storage_(storage),
      config_(config),
      hashing_(1),
      login_failures_by_name_(config.login_failures_per_name, std::chrono::seconds(config.login_window_seconds)),
      login_failures_by_address_(config.login_failures_per_address, std::chrono::seconds(config.login_window_seconds)),
      registrations_by_address_(config.registrations_per_address_per_hour, std::chrono::hours(1)) {
  char out[crypto_pwhash_STRBYTES];
  const std::string pw = random_hex(16);
  if (crypto_pwhash_str(out, pw.c_str(), pw.size(), config_.argon2_opslimit, config_.argon2_memlimit_kib * 1024) == 0) {
    dummy_hash_ = out;
  }
}

Accounts::~Accounts() { stop(); }

std::string Accounts::check_name(const std::string& name) {
  const bool ok = name.size() >= 3 && name.size() <= 24 && std::all_of(name.begin(), name.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
                  });
  return ok ? "" : "A name has 3 to 24 letters, digits, '_' or '-'.";
}

std::string Accounts::check_password(const std::string& password) {
  if (password.size() < 8) return "A password has at least 8 characters.";
  if (password.size() > 1024) return "A password has at most 1024 characters.";
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

void Accounts::new_session(std::int64_t user_id, const std::string& name, std::function<void(AuthResult)> done) {
  AuthResult r;
  r.user_id = user_id;
  r.name = name;
  r.token = random_hex(32);
  r.token_hash = sha256_hex(r.token);
  r.expires_unix = unix_now() + std::int64_t{config_.session_days} * 86400;
  storage_.write(
      [r](Db& db) {
        db.prepare("INSERT INTO sessions (token_hash, user_id, created_unix, expires_unix) VALUES (?, ?, ?, ?)")
            .run(r.token_hash, r.user_id, unix_now(), r.expires_unix);
      },
      [r, done = std::move(done)](bool ok) {
        done(ok ? r : failure(wire::INTERNAL, "The session could not be stored; try again."));
      });
}

void Accounts::register_user(const std::string& name, const std::string& password, const std::string& address,
                             std::function<void(AuthResult)> done) {
  if (auto why = check_name(name); !why.empty()) return done(failure(wire::BAD_REQUEST, why));
  if (auto why = check_password(password); !why.empty()) return done(failure(wire::BAD_REQUEST, why));
  // Each registration hashes a password and keeps a row: one address makes a
  // club's worth an hour, not a flood.
  if (!address.empty() && !registrations_by_address_.begin(address)) {
    return done(failure(wire::RATE_LIMITED, "Too many accounts made from your address; try again in an hour."));
  }
  hashing_.post([this, name, password, address, done = std::move(done)](bool admitted) mutable {
    if (!address.empty()) registrations_by_address_.end(address, admitted);
    if (!admitted) return done(busy());
    char hash[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str(hash, password.c_str(), password.size(), config_.argon2_opslimit,
                          config_.argon2_memlimit_kib * 1024) != 0) {
      return done(failure(wire::INTERNAL, "The password could not be hashed."));
    }
    auto user_id = std::make_shared<std::int64_t>(0);
    auto taken = std::make_shared<bool>(false);
    storage_.write(
        [name, h = std::string(hash), user_id, taken](Db& db) {
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
        [this, name, user_id, taken, done = std::move(done)](bool ok) mutable {
          if (!ok && *taken) return done(failure(wire::NAME_TAKEN, "The name '" + name + "' is taken."));
          if (!ok) return done(failure(wire::INTERNAL, "The account could not be stored; try again."));
          log::info("user registered", {{"user", name}});
          new_session(*user_id, name, std::move(done));
        });
  }, kMaxWaitingHashes);
}

void Accounts::login(const std::string& name, const std::string& password, const std::string& address,
                     std::function<void(AuthResult)> done) {
  // No account has such a name or password: nothing to check, and nothing to count.
  if (!check_name(name).empty() || password.size() > 1024) return done(failure(wire::BAD_CREDENTIALS, "Wrong name or password."));
  // Failures count against the name, so that one account cannot be guessed at,
  // and against the address, so that one client cannot guess across many names.
  const std::string key = to_lower(name);
  if (!login_failures_by_name_.begin(key)) {
    return done(failure(wire::RATE_LIMITED, "Too many failed logins for this name; wait a minute."));
  }
  if (!address.empty() && !login_failures_by_address_.begin(address)) {
    login_failures_by_name_.end(key, false);
    return done(failure(wire::RATE_LIMITED, "Too many failed logins from your address; wait a minute."));
  }
  auto end_attempt = [this, key, address](bool failed) {
    login_failures_by_name_.end(key, failed);
    if (!address.empty()) login_failures_by_address_.end(address, failed);
  };
  hashing_.post([this, name, password, end_attempt, done = std::move(done)](bool admitted) mutable {
    if (!admitted) {
      end_attempt(false);
      return done(busy());
    }
    struct Row {
      std::int64_t id = 0;
      std::string name, hash;
    };
    Row row;
    try {
      row = storage_.read([&](Db& db) {
        Row r;
        auto& q = db.prepare("SELECT id, name, password_hash FROM users WHERE name = ?");
        q.bind_all(name);
        while (q.step()) r = Row{q.integer(0), q.text(1), q.text(2)};
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
      log::info("login failed", {{"user", name}});
      return done(failure(wire::BAD_CREDENTIALS, "Wrong name or password."));
    }
    new_session(row.id, row.name, std::move(done));
  }, kMaxWaitingHashes);
}

void Accounts::resume(const std::string& token, std::function<void(AuthResult)> done) {
  if (token.empty() || token.size() > 256) return done(failure(wire::UNAUTHENTICATED, "That session token is not valid."));
  const std::string token_hash = sha256_hex(token);
  AuthResult r = storage_.read([&](Db& db) {
    AuthResult out;
    auto& q = db.prepare(
        "SELECT s.user_id, u.name, s.expires_unix FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ?");
    q.bind_all(token_hash);
    while (q.step()) {
      out.user_id = q.integer(0);
      out.name = q.text(1);
      out.expires_unix = q.integer(2);
    }
    return out;
  });
  if (!r.user_id) return done(failure(wire::UNAUTHENTICATED, "That session token is not valid; log in again."));
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

void Accounts::purge_expired() {
  storage_.write([](Db& db) { db.prepare("DELETE FROM sessions WHERE expires_unix <= ?").run(unix_now()); },
                 [](bool ok) {
                   if (!ok) log::warn("expired sessions could not be purged");
                 });
}

}  // namespace counterattack::server
