#include "request_log.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

namespace hi::server {
namespace {

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kInfo: return "info";
    case LogLevel::kVerbose: return "verbose";
  }
  return "info";
}

// "2026-12-07T03:04:05.123Z"
std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

std::optional<LogLevel> log_level_from_name(std::string_view name) {
  for (LogLevel l : {LogLevel::kError, LogLevel::kWarning, LogLevel::kInfo, LogLevel::kVerbose})
    if (name == level_name(l)) return l;
  return std::nullopt;
}

void RequestLog::event(LogLevel level, std::string_view message) {
  if (!enabled(level)) return;
  nlohmann::json line = {{"time", utc_now()}, {"level", level_name(level)}, {"message", message}};
  write(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void RequestLog::request(const RequestLogLine& r) {
  const bool server_fault = http_status(r.outcome) >= 500;
  const LogLevel level = server_fault ? LogLevel::kWarning : LogLevel::kInfo;
  if (!enabled(level)) return;
  nlohmann::json line = {{"time", utc_now()},
                         {"level", level_name(level)},
                         {"event", "infer"},
                         {"protocol", r.protocol},
                         {"model", r.model},
                         {"version", r.version},
                         {"id", r.id},
                         {"outcome", error_code_name(r.outcome)},
                         {"total_ms", r.total_ms},
                         {"queue_ms", r.queue_ms},
                         {"compute_ms", r.compute_ms},
                         {"batch", r.batch}};
  if (!r.error.empty()) line["error"] = r.error;
  write(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void RequestLog::write(const std::string& line) {
  std::lock_guard guard(mutex_);
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace hi::server
