// The user's settings and sessions: $XDG_CONFIG_HOME/counterattack/config.json
// (default ~/.config/counterattack/). One file per user, so two players can
// share a machine with different XDG_CONFIG_HOME.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace counterattack::cli {

constexpr const char* kDefaultServer = "wss://127.0.0.1:8443";

struct SessionEntry {
  std::string name;
  std::string token;
  long long expires_unix = 0;
  bool operator==(const SessionEntry&) const = default;
};

struct Config {
  std::string server;                            // the default server URL
  std::map<std::string, std::string> pins;       // server URL -> SHA-256 of its certificate (hex)
  std::map<std::string, SessionEntry> sessions;  // server URL -> session

  static std::string dir();  // where the file lives
  static std::string path();
  // Loads the file; a missing file is an empty config. Returns false with a
  // message when the file exists but cannot be read.
  bool load(std::string* error);
  // Writes what this process changed since it loaded or last saved onto the file
  // as it is now, so that two clients of one user (a shell and a one-shot command)
  // keep each other's changes: under an exclusive lock on config.json.lock, read
  // again, changed, written aside and renamed, readable by its owner only (it holds
  // session tokens). This then holds the whole file, the others' changes too.
  bool save(std::string* error);

 private:
  struct Values {
    std::string server;
    std::map<std::string, std::string> pins;
    std::map<std::string, SessionEntry> sessions;
  };
  Values loaded_;  // as last read or written: a save's changes are what differs from it
};

// "ab:CD 01..." -> "abcd01..."; empty when not 64 hex digits.
std::string normalize_fingerprint(const std::string& text);
// "ab:cd:..." for display.
std::string display_fingerprint(const std::string& hex);

}  // namespace counterattack::cli
