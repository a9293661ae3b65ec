#include "config.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "mailer.h"

namespace counterattack::server {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

template <typename T>
bool parse_number(const std::string& text, T& out) {
  const char* end = text.data() + text.size();
  auto r = std::from_chars(text.data(), end, out);
  return r.ec == std::errc() && r.ptr == end;
}

bool parse_bool(const std::string& text, bool& out) {
  if (text == "true" || text == "yes" || text == "on" || text == "1") return out = true, true;
  if (text == "false" || text == "no" || text == "off" || text == "0") return out = false, true;
  return false;
}

// Where a '#' starts a comment: not inside a quoted value, which may hold one
// (a password, a URL).
std::size_t comment_start(const std::string& line) {
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"') quoted = !quoted;
    if (line[i] == '#' && !quoted) return i;
  }
  return line.size();
}

using Setter = std::function<bool(Config&, const std::string&)>;

// How a key's value is set, and what it takes, said when a value is refused.
struct Setting {
  template <typename F>
  Setting(F f) : set(std::move(f)) {}  // NOLINT: the table below lists plain setters too
  Setting(Setter f, std::string takes) : set(std::move(f)), expects(std::move(takes)) {}
  Setter set;
  std::string expects;
};

template <typename T>
std::string shown(T x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

template <typename T>
Setting number(T Config::*field, T min, T max) {
  return {[=](Config& c, const std::string& v) {
            T x{};
            if (!parse_number(v, x) || x < min || x > max) return false;
            c.*field = x;
            return true;
          },
          "a number from " + shown(min) + " to " + shown(max)};
}

Setting text(std::string Config::*field, std::vector<std::string> allowed = {}) {
  std::string takes;
  for (const auto& a : allowed) takes += (takes.empty() ? "one of: " : ", ") + a;
  return {[=](Config& c, const std::string& v) {
            if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), v) == allowed.end()) return false;
            c.*field = v;
            return true;
          },
          takes};
}

const std::map<std::string, Setting>& setters() {
  static const std::map<std::string, Setting> all = {
      {"listen", text(&Config::listen)},
      {"data_dir", text(&Config::data_dir)},
      {"database", text(&Config::database)},
      {"tls_cert", text(&Config::tls_cert)},
      {"tls_key", text(&Config::tls_key)},
      {"plain", [](Config& c, const std::string& v) { return parse_bool(v, c.plain); }},
      {"threads", number(&Config::threads, 0, 64)},
      {"max_message_bytes", number<std::size_t>(&Config::max_message_bytes, 256, 16u << 20)},
      {"messages_per_second", [](Config& c, const std::string& v) {
         try {
           size_t used = 0;
           const double x = std::stod(v, &used);
           if (used != v.size() || !(x > 0)) return false;
           c.messages_per_second = x;
           return true;
         } catch (...) {
           return false;
         }
       }},
      {"message_burst", number(&Config::message_burst, 1, 1000000)},
      {"idle_timeout_seconds", number(&Config::idle_timeout_seconds, 1, 86400)},
      {"handshake_timeout_seconds", number(&Config::handshake_timeout_seconds, 1, 600)},
      {"max_queued_frames", number<std::size_t>(&Config::max_queued_frames, 16, 1u << 24)},
      {"max_queued_bytes", number<std::size_t>(&Config::max_queued_bytes, 1u << 20, std::size_t{1} << 34)},
      {"max_queued_bytes_total", number<std::size_t>(&Config::max_queued_bytes_total, 1u << 20, std::size_t{1} << 40)},
      {"max_watches_per_connection", number(&Config::max_watches_per_connection, 1, 100000)},
      {"max_finished_games_held", number(&Config::max_finished_games_held, 1, 10000000)},
      {"max_connections", number(&Config::max_connections, 1, 10000000)},
      {"max_connections_per_address", number(&Config::max_connections_per_address, 1, 10000000)},
      {"trusted_proxies", [](Config& c, const std::string& v) {
         std::string error;
         auto parsed = TrustedProxies::parse(v, error);
         if (!parsed) return false;
         c.trusted_proxies = std::move(*parsed);
         return true;
       }},
      {"proxy_protocol", [](Config& c, const std::string& v) { return parse_bool(v, c.proxy_protocol); }},
      {"session_days", number(&Config::session_days, 1, 3650)},
      {"login_failures_per_name", number(&Config::login_failures_per_name, 1, 1000000)},
      {"login_failures_per_address", number(&Config::login_failures_per_address, 1, 1000000)},
      {"registrations_per_address_per_hour", number(&Config::registrations_per_address_per_hour, 1, 1000000)},
      {"auth_attempts_per_connection", number(&Config::auth_attempts_per_connection, 1, 1000000)},
      {"login_window_seconds", number(&Config::login_window_seconds, 1, 86400)},
      {"argon2_opslimit", number<std::uint64_t>(&Config::argon2_opslimit, 1, 100)},
      {"argon2_memlimit_kib", number<std::uint64_t>(&Config::argon2_memlimit_kib, 8, 4u << 20)},
      {"smtp_url", [](Config& c, const std::string& v) {
         if (!v.empty() && !v.starts_with("smtp://") && !v.starts_with("smtps://")) return false;
         c.smtp_url = v;
         return true;
       }},
      {"smtp_user", text(&Config::smtp_user)},
      {"smtp_password", text(&Config::smtp_password)},
      {"mail_from", [](Config& c, const std::string& v) {
         if (!Mailer::check_address(v, false).empty()) return false;  // it goes into a header
         c.mail_from = v;
         return true;
       }},
      {"public_url", text(&Config::public_url)},
      {"email_changes_per_hour", number(&Config::email_changes_per_hour, 1, 1000000)},
      {"email_codes_per_address_per_hour", number(&Config::email_codes_per_address_per_hour, 1, 1000000)},
      {"mail_attempts", number(&Config::mail_attempts, 1, 100)},
      {"mail_retry_seconds", number(&Config::mail_retry_seconds, 1, 86400)},
      {"digest_hour_seconds", number(&Config::digest_hour_seconds, 1, 3600)},
      {"min_move_seconds", number<std::int64_t>(&Config::min_move_seconds, 1, 365 * 86400)},
      {"max_move_seconds", number<std::int64_t>(&Config::max_move_seconds, 1, 365 * 86400)},
      {"min_clock_seconds", number<std::int64_t>(&Config::min_clock_seconds, 1, 365 * 86400)},
      {"vacation_days_per_year", number(&Config::vacation_days_per_year, 0, 365)},
      {"open_game_expiry_seconds", number<std::int64_t>(&Config::open_game_expiry_seconds, 0, 365 * 86400)},
      {"synchronous", text(&Config::synchronous, {"full", "normal"})},
      {"snapshot_every", number(&Config::snapshot_every, 1, 1000000)},
      {"delta_history", number(&Config::delta_history, 1, 100000)},
      {"recent_events", number(&Config::recent_events, 0, 100000)},
      {"chat_history", number(&Config::chat_history, 0, 100000)},
      {"tournament_max_players", number(&Config::tournament_max_players, 2, 12)},
      {"open_tournaments_per_user", number(&Config::open_tournaments_per_user, 0, 1000)},
      {"chat_messages_per_minute", number(&Config::chat_messages_per_minute, 1, 1000000)},
      {"refused_orders_per_minute", number(&Config::refused_orders_per_minute, 1, 1000000)},
      {"backup_dir", text(&Config::backup_dir)},
      {"backup_every_seconds", number<std::int64_t>(&Config::backup_every_seconds, 0, 365 * 86400)},
      {"backup_keep", number(&Config::backup_keep, 1, 10000)},
      {"log_format", text(&Config::log_format, {"kv", "json"})},
      {"log_level", text(&Config::log_level, {"trace", "debug", "info", "warn", "error"})},
  };
  return all;
}

}  // namespace

void Config::resolve() {
  namespace fs = std::filesystem;
  const fs::path dir(data_dir);
  if (database.empty()) database = (dir / "counterattack.db").string();
  if (tls_cert.empty()) tls_cert = (dir / "tls" / "cert.pem").string();
  if (tls_key.empty()) tls_key = (dir / "tls" / "key.pem").string();
  if (backup_dir.empty()) backup_dir = (dir / "backups").string();
  // The writer and syncer threads need CPU of their own: on two cores one network
  // thread carries more orders than two (README, "The server").
  if (threads == 0) threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
}

bool set_config_value(Config& c, const std::string& key, const std::string& value, std::string& error) {
  auto it = setters().find(key);
  if (it == setters().end()) {
    error = "unknown setting '" + key + "'";
    return false;
  }
  if (!it->second.set(c, value)) {
    error = "bad value '" + value + "' for '" + key + "'" + (it->second.expects.empty() ? "" : " (" + it->second.expects + ")");
    return false;
  }
  return true;
}

bool load_config_file(const std::string& path, Config& c, std::string& error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {  // it reads as empty: every default, quietly
    error = "config file " + path + " is a directory";
    return false;
  }
  std::ifstream in(path);
  if (!in) {
    error = "cannot read config file " + path;
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string body = ss.str();
  // Some editors begin a UTF-8 file with a byte order mark: unseen, it would make the first key unknown.
  if (body.starts_with("\xEF\xBB\xBF")) body.erase(0, 3);
  if (trim(body).starts_with("{")) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(body);
    } catch (const nlohmann::json::parse_error& e) {
      error = path + ": not valid JSON (at byte " + std::to_string(e.byte) + ")";
      return false;
    }
    if (!j.is_object()) {
      error = path + ": not a JSON object";
      return false;
    }
    for (auto& [key, v] : j.items()) {
      // A list (of trusted proxies) is the comma-separated value the key = value form takes.
      std::string value = v.is_string() ? v.get<std::string>() : v.dump();
      if (v.is_array()) {
        value.clear();
        for (const auto& item : v) value += (value.empty() ? "" : ",") + (item.is_string() ? item.get<std::string>() : item.dump());
      }
      if (!set_config_value(c, key, value, error)) {
        error = path + ": " + error;
        return false;
      }
    }
    return true;
  }
  std::istringstream lines(body);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    line.resize(comment_start(line));
    line = trim(line);
    if (line.empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) {
      error = path + ":" + std::to_string(n) + ": expected key = value";
      return false;
    }
    std::string value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    if (!set_config_value(c, trim(line.substr(0, eq)), value, error)) {
      error = path + ":" + std::to_string(n) + ": " + error;
      return false;
    }
  }
  return true;
}

bool split_listen(const std::string& listen, std::string& host, unsigned short& port, std::string& error) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    error = "listen address must be ADDR:PORT, got '" + listen + "'";
    return false;
  }
  host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (!parse_number(listen.substr(colon + 1), port)) {
    error = "bad port in '" + listen + "'";
    return false;
  }
  return true;
}

}  // namespace counterattack::server
