// The server's log: JSON lines on stderr, one per request at level "info" and one per event
// (start, model loaded, shutdown) at its own level, filtered by --log-level.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "server_error.h"

namespace hi::server {

enum class LogLevel { kError = 0, kWarning = 1, kInfo = 2, kVerbose = 3 };

std::optional<LogLevel> log_level_from_name(std::string_view name);  // "error", "warning", "info", "verbose"

struct RequestLogLine {
  const char* protocol = "";  // "http", "grpc"
  std::string model, version, id;
  ErrorCode outcome = ErrorCode::kOk;
  std::string error;  // the message when the outcome is not ok
  double total_ms = 0, queue_ms = 0, compute_ms = 0;
  int64_t batch = 0;
};

class RequestLog {
 public:
  void set_level(LogLevel level) { level_ = level; }
  bool enabled(LogLevel level) const { return level <= level_; }
  void event(LogLevel level, std::string_view message);
  // Failed requests are logged at "warning" when the server failed them (5xx), at "info" otherwise.
  void request(const RequestLogLine& line);

 private:
  void write(const std::string& line);
  LogLevel level_ = LogLevel::kWarning;
  std::mutex mutex_;
};

}  // namespace hi::server
