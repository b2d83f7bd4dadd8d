// How the server reports a failed request: one code that each protocol maps to its own
// (HTTP status, gRPC status), and a message that names the field, expected and actual value.
#pragma once

#include <string>

#include "hipinfer/status.h"

namespace hi::server {

enum class ErrorCode {
  kOk = 0,
  kInvalidArgument,    // the request is malformed or does not fit the model (400 / INVALID_ARGUMENT)
  kNotFound,           // unknown model or version (404 / NOT_FOUND)
  kUnavailable,        // not ready, queue full, shutting down (503 / UNAVAILABLE)
  kResourceExhausted,  // a memory limit (503 / RESOURCE_EXHAUSTED)
  kTooLarge,           // the body is past the size limit (413 / RESOURCE_EXHAUSTED)
  kDeadlineExceeded,   // the request's timeout passed (504 / DEADLINE_EXCEEDED)
  kCancelled,          // the client went away (499 / CANCELLED)
  kUnimplemented,      // a protocol feature hipinfer does not offer (400 / UNIMPLEMENTED)
  kInternal,           // a hipinfer bug or a failure while running (500 / INTERNAL)
};

struct Error {
  ErrorCode code = ErrorCode::kOk;
  std::string message;
  bool ok() const { return code == ErrorCode::kOk; }
};

inline Error make_error(ErrorCode code, std::string message) { return Error{code, std::move(message)}; }

// A library Status as a server error: the caller's mistakes stay 4xx, the rest 5xx.
inline Error error_from_status(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return {};
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound: return {ErrorCode::kInvalidArgument, status.message()};
    case StatusCode::kOutOfMemory: return {ErrorCode::kResourceExhausted, status.message()};
    case StatusCode::kDeadlineExceeded: return {ErrorCode::kDeadlineExceeded, status.message()};
    case StatusCode::kCancelled: return {ErrorCode::kCancelled, status.message()};
    default: return {ErrorCode::kInternal, status.message()};
  }
}

// "ok", "invalid_argument", ...: the outcome label of metrics and the request log.
const char* error_code_name(ErrorCode code);
int http_status(ErrorCode code);

}  // namespace hi::server
