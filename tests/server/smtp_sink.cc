#include "smtp_sink.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace counterattack::server::testing {
namespace {

// One CRLF-ended line, without its end; false when the peer is gone or silent for 10 s.
bool read_line(int fd, std::string& pending, std::string& line) {
  for (;;) {
    const auto end = pending.find("\r\n");
    if (end != std::string::npos) {
      line = pending.substr(0, end);
      pending.erase(0, end + 2);
      return true;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10000) <= 0) return false;
    char buf[4096];
    const auto n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return false;
    pending.append(buf, static_cast<std::size_t>(n));
  }
}

void reply(int fd, const std::string& text) {
  const std::string out = text + "\r\n";
  [[maybe_unused]] auto n = ::write(fd, out.data(), out.size());
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

}  // namespace

std::string SmtpSink::Mail::header(const std::string& name) const {
  const std::string key = name + ": ";
  std::size_t at = 0;
  while (at < data.size()) {
    const auto end = data.find("\r\n", at);
    const std::string line = data.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.empty()) break;  // the headers end at the first empty line
    if (line.starts_with(key)) return line.substr(key.size());
    if (end == std::string::npos) break;
    at = end + 2;
  }
  return "";
}

SmtpSink::SmtpSink() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listen_fd_, 16) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    return;
  }
  port_ = ntohs(a.sin_port);
  thread_ = std::thread([this] { serve(); });
}

SmtpSink::~SmtpSink() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

std::vector<SmtpSink::Mail> SmtpSink::wait_for(std::size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return mails_.size() >= n; });
  return mails_;
}

std::vector<SmtpSink::Mail> SmtpSink::mails() {
  std::lock_guard lock(mu_);
  return mails_;
}

void SmtpSink::serve() {
  while (!stopping_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    session(fd);
    ::close(fd);
  }
}

// The commands a client sends to deliver mail (RFC 5321), without extensions.
void SmtpSink::session(int fd) {
  std::string pending, line;
  Mail mail;
  reply(fd, "220 sink.test ESMTP");
  while (!stopping_ && read_line(fd, pending, line)) {
    const std::string verb = upper(line.substr(0, 4));
    if (verb == "EHLO" || verb == "HELO") {
      reply(fd, "250 sink.test");
    } else if (verb == "MAIL") {
      mail = Mail{};
      const auto lt = line.find('<'), gt = line.find('>');
      if (lt != std::string::npos && gt != std::string::npos) mail.from = line.substr(lt + 1, gt - lt - 1);
      reply(fd, "250 OK");
    } else if (verb == "RCPT") {
      const auto lt = line.find('<'), gt = line.find('>');
      if (lt != std::string::npos && gt != std::string::npos) mail.to = line.substr(lt + 1, gt - lt - 1);
      reply(fd, refusing_ ? "550 No such user here" : "250 OK");
    } else if (verb == "DATA") {
      reply(fd, "354 End data with <CR><LF>.<CR><LF>");
      std::string data;
      while (read_line(fd, pending, line) && line != ".") {
        if (line.starts_with(".")) line.erase(0, 1);  // the sender's dot-stuffing
        data += line + "\r\n";
      }
      mail.data = data;
      {
        std::lock_guard lock(mu_);
        mails_.push_back(mail);
      }
      cv_.notify_all();
      reply(fd, "250 OK queued");
    } else if (verb == "QUIT") {
      reply(fd, "221 Bye");
      return;
    } else if (verb == "RSET" || verb == "NOOP") {
      reply(fd, "250 OK");
    } else {
      reply(fd, "502 Command not implemented");
    }
  }
}

}  // namespace counterattack::server::testing
