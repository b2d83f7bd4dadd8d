// Status: how every fallible call in hipinfer reports failure. No exceptions cross the core.
#pragma once

#include <sstream>
#include <string>
#include <utility>

#include "hipinfer/export.h"

HI_PUBLIC_BEGIN
namespace hi {

// Codes are coarse on purpose: callers branch on them (the CLI maps them to exit codes), while
// the message carries the detail a user needs (file, node, tensor, expected and actual value).
enum class StatusCode {
  kOk = 0,
  kInvalidArgument,   // the caller passed something wrong (inputs, options)
  kInvalidModel,      // the model file is unreadable, malformed or inconsistent
  kUnsupported,       // valid ONNX, but hipinfer cannot run it (op, opset, dtype)
  kNotFound,          // a named thing (file, input, output) does not exist
  kOutOfMemory,       // an allocation failed or would exceed a limit
  kRuntimeError,      // a failure while running (device error, kernel error)
  kCancelled,         // the caller stopped the run (RunOptions::terminate)
  kDeadlineExceeded,  // the run went past its time limit (RunOptions::timeout_ms)
  kInternal,          // a bug in hipinfer
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }
  bool is_ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "InvalidModel: <message>"
  std::string to_string() const;

  // Adds context in front of the message ("while loading model.onnx: ..."), keeping the code.
  Status with_context(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Joins any streamable values into one string: hi::str("node ", name, " has ", n, " inputs").
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

template <typename... Args>
Status error(StatusCode code, const Args&... args) {
  return Status(code, str(args...));
}

// StatusOr-like holder for functions that return a value or a failure.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  bool is_ok() const { return status_.is_ok(); }
  const Status& status() const { return status_; }
  T& value() & { return value_; }
  const T& value() const& { return value_; }
  T&& value() && { return std::move(value_); }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }

 private:
  Status status_;
  T value_{};
};

[[noreturn]] void assert_fail(const char* cond, const char* file, int line, const std::string& msg);

}  // namespace hi
HI_PUBLIC_END

// Returns early with the failing status.
#define HI_RETURN_IF_ERROR(expr)                \
  do {                                          \
    ::hi::Status hi_status_ = (expr);           \
    if (!hi_status_.is_ok()) return hi_status_; \
  } while (0)

// Returns an error of the given code when cond holds; the condition text is not shown to users,
// the message is, so make it say what was expected and what was found.
#define HI_RETURN_IF(cond, code, ...)                                  \
  do {                                                                 \
    if (cond) return ::hi::error(::hi::StatusCode::code, __VA_ARGS__); \
  } while (0)

#define HI_CONCAT_INNER(a, b) a##b
#define HI_CONCAT(a, b) HI_CONCAT_INNER(a, b)

// HI_ASSIGN_OR_RETURN(auto x, expr_returning_result);
#define HI_ASSIGN_OR_RETURN(lhs, expr)                                                           \
  auto HI_CONCAT(hi_result_, __LINE__) = (expr);                                                 \
  if (!HI_CONCAT(hi_result_, __LINE__).is_ok()) return HI_CONCAT(hi_result_, __LINE__).status(); \
  lhs = std::move(HI_CONCAT(hi_result_, __LINE__)).value()

// Invariants that stay on in release builds: a failure is a hipinfer bug, never user error.
#define HI_ASSERT(cond, ...)                                                           \
  do {                                                                                 \
    if (!(cond)) ::hi::assert_fail(#cond, __FILE__, __LINE__, ::hi::str(__VA_ARGS__)); \
  } while (0)
