// The C API's handles: what each opaque type holds, a table of the live ones (so a NULL, freed or
// wrong-kind handle is refused instead of read through), and the guard that turns every outcome,
// exceptions included, into a hi_status.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "hipinfer/c_api.h"
#include "hipinfer/session.h"
#include "hipinfer/status.h"
#include "hipinfer/tensor.h"

struct hi_status {
  hi::StatusCode code = hi::StatusCode::kOk;
  std::string message;
};
struct hi_env {
  hi_log_level level = HI_LOG_WARNING;
};
struct hi_session_options {
  hi::SessionOptions options;
};
struct hi_session {
  std::unique_ptr<hi::Session> session;
  std::string placement_summary;
};
struct hi_value {
  hi::Tensor tensor;
};
struct hi_run_options {
  hi::RunOptions options;
};

namespace hi::capi {

enum class Kind { kStatus, kEnv, kSessionOptions, kSession, kValue, kRunOptions };

template <typename T>
constexpr Kind kind_of();
template <>
constexpr Kind kind_of<hi_status>() {
  return Kind::kStatus;
}
template <>
constexpr Kind kind_of<hi_env>() {
  return Kind::kEnv;
}
template <>
constexpr Kind kind_of<hi_session_options>() {
  return Kind::kSessionOptions;
}
template <>
constexpr Kind kind_of<hi_session>() {
  return Kind::kSession;
}
template <>
constexpr Kind kind_of<hi_value>() {
  return Kind::kValue;
}
template <>
constexpr Kind kind_of<hi_run_options>() {
  return Kind::kRunOptions;
}

const char* kind_name(Kind kind);  // "hi_session"

void register_handle(const void* handle, Kind kind);
// Removes it from the table; false when it was not a live handle of that kind.
bool unregister_handle(const void* handle, Kind kind);
// Ok when `handle` is a live handle of `kind`; else an error naming the argument.
Status check_handle(const void* handle, Kind kind, const char* arg);

template <typename T>
Status check(const T* handle, const char* arg) {
  return check_handle(handle, kind_of<T>(), arg);
}

// A new handle, registered; freed with destroy().
template <typename T, typename... Args>
T* create(Args&&... args) {
  auto owned = std::make_unique<T>(std::forward<Args>(args)...);
  register_handle(owned.get(), kind_of<T>());
  return owned.release();
}

template <typename T>
Status destroy(T* handle, const char* arg) {
  if (handle == nullptr) return error(StatusCode::kInvalidArgument, "'", arg, "' is NULL");
  if (!unregister_handle(handle, kind_of<T>())) return check(handle, arg);
  delete handle;
  return Status::ok();
}

Status null_argument(const char* arg);

// NULL for Ok; otherwise a new hi_status whose message starts with the function's name.
hi_status* to_c(const Status& status, const char* function);

// Runs `body` (returning Status) so that nothing escapes as an exception.
template <typename F>
hi_status* guarded(const char* function, F&& body) noexcept {
  Status status;
  try {
    status = body();
  } catch (const OutOfMemory& e) {
    status = error(StatusCode::kOutOfMemory, e.what);
  } catch (const std::bad_alloc&) {
    status = error(StatusCode::kOutOfMemory, "out of host memory");
  } catch (const std::exception& e) {
    status = error(StatusCode::kInternal, "unexpected exception: ", e.what());
  } catch (...) {
    status = error(StatusCode::kInternal, "unexpected exception of an unknown type");
  }
  return to_c(status, function);
}

}  // namespace hi::capi

// Returns an error naming the argument when a required pointer is NULL.
#define HI_CAPI_REQUIRE(ptr) HI_RETURN_IF((ptr) == nullptr, kInvalidArgument, "'", #ptr, "' is NULL")
