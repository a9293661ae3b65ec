// A mail server for tests: a real SMTP listener on 127.0.0.1 that keeps every
// message it is given, so that tests can read what counterattackd mailed.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace counterattack::server::testing {

class SmtpSink {
 public:
  struct Mail {
    std::string from, to, data;  // envelope sender and recipient; headers and body
    std::string header(const std::string& name) const;  // "" when absent
  };

  SmtpSink();  // listening on a free port
  ~SmtpSink();
  int port() const { return port_; }
  std::string url() const { return "smtp://127.0.0.1:" + std::to_string(port_); }

  // Waits until `n` messages have arrived; all of them so far (maybe fewer).
  std::vector<Mail> wait_for(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(15));
  std::vector<Mail> mails();
  // From now on every recipient is refused (550), as for an address that does not exist.
  void refuse_recipients() { refusing_ = true; }

 private:
  void serve();
  void session(int fd);

  int listen_fd_ = -1, port_ = 0;
  std::atomic<bool> stopping_ = false, refusing_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Mail> mails_;
  std::thread thread_;
};

}  // namespace counterattack::server::testing
