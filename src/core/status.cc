// Status names and the always-on assertion handler.
#include "hipinfer/status.h"

#include <cstdio>
#include <cstdlib>

namespace hi {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "InvalidArgument";
    case StatusCode::kInvalidModel: return "InvalidModel";
    case StatusCode::kUnsupported: return "Unsupported";
    case StatusCode::kNotFound: return "NotFound";
    case StatusCode::kOutOfMemory: return "OutOfMemory";
    case StatusCode::kRuntimeError: return "RuntimeError";
    case StatusCode::kCancelled: return "Cancelled";
    case StatusCode::kDeadlineExceeded: return "DeadlineExceeded";
    case StatusCode::kInternal: return "Internal";
  }
  return "Unknown";
}

std::string Status::to_string() const {
  if (is_ok()) return "OK";
  return std::string(status_code_name(code_)) + ": " + message_;
}

Status Status::with_context(const std::string& context) const {
  if (is_ok()) return *this;
  return Status(code_, context + ": " + message_);
}

void assert_fail(const char* cond, const char* file, int line, const std::string& msg) {
  std::fprintf(stderr, "hipinfer internal error: %s:%d: assertion `%s` failed%s%s\n", file, line, cond,
               msg.empty() ? "" : ": ", msg.c_str());
  std::abort();
}

}  // namespace hi
