// Structured logs: one line per event, key=value or JSON, through spdlog.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace counterattack::server::log {

enum class Level { Debug, Info, Warn, Error };

// format: "kv" or "json"; level: "trace", "debug", "info", "warn", "error".
void init(const std::string& format, const std::string& level);

// A field's value is text or a whole number; JSON lines write numbers as numbers,
// so that log tools can sum and compare them.
struct Field {
  Field(std::string_view k, std::string v) : key(k), value(std::move(v)) {}
  Field(std::string_view k, const char* v) : key(k), value(v) {}
  template <typename N, std::enable_if_t<std::is_integral_v<N> && !std::is_same_v<N, bool>, int> = 0>
  Field(std::string_view k, N n) : key(k), value(std::to_string(n)), number(true) {}
  std::string_view key;
  std::string value;
  bool number = false;
};
void write(Level level, std::string_view msg, std::initializer_list<Field> fields = {});

inline void debug(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::Debug, msg, f); }
inline void info(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::Info, msg, f); }
inline void warn(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::Warn, msg, f); }
inline void error(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::Error, msg, f); }

// Names the calling thread (at most 15 characters), as `top -H` and profilers show it.
void name_thread(const char* name);

}  // namespace counterattack::server::log
