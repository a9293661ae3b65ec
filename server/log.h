// Structured logs: one line per event, key=value or JSON, through spdlog.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace counterattack::server::log {

enum class Level { Debug, Info, Warn, Error };

// format: "kv" or "json"; level: "trace", "debug", "info", "warn", "error".
void init(const std::string& format, const std::string& level);

using Field = std::pair<std::string_view, std::string>;
void write(Level level, std::string_view msg, std::initializer_list<Field> fields = {});

inline void debug(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::Debug, msg, f); }
inline void info(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::Info, msg, f); }
inline void warn(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::Warn, msg, f); }
inline void error(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::Error, msg, f); }

// Names the calling thread (at most 15 characters), as `top -H` and profilers show it.
void name_thread(const char* name);

}  // namespace counterattack::server::log
