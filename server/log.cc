#include "log.h"

#include <pthread.h>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

namespace counterattack::server::log {
namespace {

bool g_json = false;
std::shared_ptr<spdlog::logger> g_logger;

spdlog::logger& logger() {
  if (!g_logger) init("kv", "info");
  return *g_logger;
}

spdlog::level::level_enum to_spdlog(Level l) {
  switch (l) {
    case Level::Debug: return spdlog::level::debug;
    case Level::Info: return spdlog::level::info;
    case Level::Warn: return spdlog::level::warn;
    case Level::Error: return spdlog::level::err;
  }
  return spdlog::level::info;
}

const char* level_name(Level l) {
  switch (l) {
    case Level::Debug: return "debug";
    case Level::Info: return "info";
    case Level::Warn: return "warn";
    case Level::Error: return "error";
  }
  return "info";
}

// key=value: values with spaces, quotes or '=' are quoted.
void append_kv(std::string& out, std::string_view key, std::string_view value) {
  out += ' ';
  out += key;
  out += '=';
  const bool quote = value.empty() || value.find_first_of(" \t\"=\n\r") != std::string_view::npos;
  if (!quote) {
    out += value;
    return;
  }
  out += '"';
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\r') continue;
    out += c;
  }
  out += '"';
}

}  // namespace

void init(const std::string& format, const std::string& level) {
  g_json = format == "json";
  auto sink = std::make_shared<spdlog::sinks::stdout_sink_mt>();
  g_logger = std::make_shared<spdlog::logger>("counterattackd", sink);
  g_logger->set_pattern(g_json ? "{\"ts\":\"%Y-%m-%dT%H:%M:%S.%eZ\",%v}" : "ts=%Y-%m-%dT%H:%M:%S.%eZ %v",
                        spdlog::pattern_time_type::utc);
  g_logger->set_level(spdlog::level::from_str(level));
  // Lines are rare (no line per order), so flushing each keeps logs whole after a crash.
  g_logger->flush_on(spdlog::level::trace);
}

void write(Level level, std::string_view msg, std::initializer_list<Field> fields) {
  auto& lg = logger();
  if (!lg.should_log(to_spdlog(level))) return;
  std::string line;
  if (g_json) {
    nlohmann::ordered_json j;
    j["level"] = level_name(level);
    j["msg"] = std::string(msg);
    for (const auto& f : fields) {
      if (f.number) {
        j[std::string(f.key)] = nlohmann::ordered_json::parse(f.value);
      } else {
        j[std::string(f.key)] = f.value;
      }
    }
    line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line = line.substr(1, line.size() - 2);  // the pattern supplies the braces and "ts"
  } else {
    line = std::string("level=") + level_name(level);
    append_kv(line, "msg", msg);
    for (const auto& f : fields) append_kv(line, f.key, f.value);
  }
  lg.log(to_spdlog(level), "{}", line);
}

void name_thread(const char* name) { pthread_setname_np(pthread_self(), name); }

}  // namespace counterattack::server::log
