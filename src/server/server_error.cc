#include "server_error.h"

namespace hi::server {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kResourceExhausted: return "resource_exhausted";
    case ErrorCode::kTooLarge: return "too_large";
    case ErrorCode::kDeadlineExceeded: return "deadline_exceeded";
    case ErrorCode::kCancelled: return "cancelled";
    case ErrorCode::kUnimplemented: return "unimplemented";
    case ErrorCode::kInternal: return "internal";
  }
  return "internal";
}

int http_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return 200;
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kUnimplemented: return 400;
    case ErrorCode::kNotFound: return 404;
    case ErrorCode::kTooLarge: return 413;
    case ErrorCode::kCancelled: return 499;
    case ErrorCode::kUnavailable:
    case ErrorCode::kResourceExhausted: return 503;
    case ErrorCode::kDeadlineExceeded: return 504;
    case ErrorCode::kInternal: return 500;
  }
  return 500;
}

}  // namespace hi::server
