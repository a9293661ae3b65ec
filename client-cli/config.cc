#include "config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace counterattack::cli {

std::string Config::dir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/counterattack";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.config/counterattack";
}

std::string Config::path() {
  return dir() + "/config.json";
}

bool Config::load(std::string* error) {
  std::ifstream in(path());
  if (!in) return true;
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    const auto j = nlohmann::json::parse(ss.str());
    server = j.value("server", "");
    if (j.contains("pins")) {
      for (const auto& [k, val] : j["pins"].items()) pins[k] = val.get<std::string>();
    }
    if (j.contains("sessions")) {
      for (const auto& [k, val] : j["sessions"].items()) {
        SessionEntry e;
        e.name = val.value("name", "");
        e.token = val.value("token", "");
        e.expires_unix = val.value("expires_unix", 0LL);
        sessions[k] = e;
      }
    }
  } catch (const std::exception& e) {
    if (error) *error = path() + " is not valid JSON (" + e.what() + "); fix or delete it.";
    return false;
  }
  return true;
}

bool Config::save(std::string* error) const {
  std::error_code ec;
  std::filesystem::create_directories(dir(), ec);
  if (ec) {
    if (error) *error = "Cannot create " + dir() + ": " + ec.message();
    return false;
  }
  ::chmod(dir().c_str(), 0700);
  nlohmann::json j;
  if (!server.empty()) j["server"] = server;
  j["pins"] = nlohmann::json::object();
  for (const auto& [k, v] : pins) j["pins"][k] = v;
  j["sessions"] = nlohmann::json::object();
  for (const auto& [k, e] : sessions) {
    j["sessions"][k] = {{"name", e.name}, {"token", e.token}, {"expires_unix", e.expires_unix}};
  }
  // Write aside and rename, so a crash never leaves half a file: a file of this
  // process's own (two clients may save at once), made readable by its owner
  // alone from the start (it holds session tokens), and on the disk before the rename.
  std::string tmp = path() + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    if (error) *error = "Cannot write " + path() + ".*: " + std::strerror(errno);
    return false;
  }
  const std::string text = j.dump(2) + "\n";
  bool written = true;
  for (std::size_t at = 0; written && at < text.size();) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    written = n > 0;
    if (written) at += static_cast<std::size_t>(n);
  }
  written = written && ::fsync(fd) == 0;
  const int why = errno;
  ::close(fd);
  if (!written) {
    if (error) *error = "Cannot write " + tmp + ": " + std::strerror(why);
    ::unlink(tmp.c_str());
    return false;
  }
  std::filesystem::rename(tmp, path(), ec);
  if (ec) {
    if (error) *error = "Cannot replace " + path() + ": " + ec.message();
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

std::string normalize_fingerprint(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == ':' || c == ' ' || c == '-') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) return {};
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out.size() == 64 ? out : std::string();
}

std::string display_fingerprint(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    if (i) out += ':';
    out += hex.substr(i, 2);
  }
  return out;
}

}  // namespace counterattack::cli
