#include "config.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

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

namespace {

// The file's JSON; a missing or empty file is an empty object. Throws for one not JSON.
nlohmann::json read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nlohmann::json::object();
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str().find_first_not_of(" \t\r\n") == std::string::npos) return nlohmann::json::object();
  auto j = nlohmann::json::parse(ss.str());
  if (!j.is_object()) throw std::runtime_error("not an object");
  return j;
}

nlohmann::json session_json(const SessionEntry& e) {
  return {{"name", e.name}, {"token", e.token}, {"expires_unix", e.expires_unix}};
}

// Sets j[key] to `now`, or removes it when `now` is null: one entry changed.
template <typename T, typename ToJson>
void apply_change(nlohmann::json& j, const std::string& key, const T* now, ToJson to_json) {
  if (now) {
    j[key] = to_json(*now);
  } else {
    j.erase(key);
  }
}

// Applies to j[field] each key of `now` that differs from `before`, and no other.
template <typename T, typename ToJson>
void apply_changes(nlohmann::json& j, const char* field, const std::map<std::string, T>& before,
                   const std::map<std::string, T>& now, ToJson to_json) {
  std::set<std::string> keys;
  for (const auto& [k, v] : before) keys.insert(k);
  for (const auto& [k, v] : now) keys.insert(k);
  for (const auto& k : keys) {
    const auto was = before.find(k);
    const auto is = now.find(k);
    const T* was_value = was == before.end() ? nullptr : &was->second;
    const T* is_value = is == now.end() ? nullptr : &is->second;
    if (was_value && is_value && *was_value == *is_value) continue;
    if (!j.contains(field) || !j[field].is_object()) j[field] = nlohmann::json::object();
    apply_change(j[field], k, is_value, to_json);
  }
}

// Holds an exclusive lock on a file until destroyed; the kernel's, so a process
// that dies lets it go.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    if (fd_ < 0) return;
    int r;
    do r = ::flock(fd_, LOCK_EX);
    while (r != 0 && errno == EINTR);
    if (r != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_;
};

}  // namespace

bool Config::load(std::string* error) {
  try {
    const auto j = read_file(path());
    server = j.value("server", "");
    pins.clear();
    sessions.clear();
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
  loaded_ = Values{server, pins, sessions};
  return true;
}

bool Config::save(std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir(), ec);
  if (ec) {
    if (error) *error = "Cannot create " + dir() + ": " + ec.message();
    return false;
  }
  ::chmod(dir().c_str(), 0700);
  // Another client of the same user saves under the same lock: between this
  // read and the rename nothing of theirs can be lost.
  const FileLock lock(path() + ".lock");
  if (!lock.held()) {
    if (error) *error = "Cannot lock " + path() + ".lock: " + std::strerror(errno);
    return false;
  }
  nlohmann::json j;
  try {
    j = read_file(path());
    if (server != loaded_.server) {
      if (server.empty()) {
        j.erase("server");
      } else {
        j["server"] = server;
      }
    }
    apply_changes(j, "pins", loaded_.pins, pins, [](const std::string& v) { return nlohmann::json(v); });
    apply_changes(j, "sessions", loaded_.sessions, sessions, session_json);
    if (!j.contains("pins")) j["pins"] = nlohmann::json::object();
    if (!j.contains("sessions")) j["sessions"] = nlohmann::json::object();
  } catch (const std::exception& e) {
    if (error) *error = path() + " is not valid JSON (" + e.what() + "); fix or delete it.";
    return false;
  }
  // Write aside and rename, so a crash never leaves half a file: a file of this
  // process's own, made readable by its owner alone from the start (it holds
  // session tokens), and on the disk before the rename.
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
  // What the file holds now, the other clients' changes with this one's.
  return load(error);
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
