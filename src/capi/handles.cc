#include "capi/handles.h"

#include <mutex>
#include <new>
#include <unordered_map>

namespace hi::capi {
namespace {

// Every live handle and its kind. One lock: lookups are a few per call, far below a run's cost.
struct Registry {
  std::mutex mutex;
  std::unordered_map<const void*, Kind> live;
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed: handles may be freed from atexit handlers
  return *r;
}

// What to hand out when even a status cannot be allocated; hi_status_free ignores it.
hi_status g_out_of_memory{StatusCode::kOutOfMemory, "out of host memory (while reporting an error)"};

}  // namespace

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kStatus: return "hi_status";
    case Kind::kEnv: return "hi_env";
    case Kind::kSessionOptions: return "hi_session_options";
    case Kind::kSession: return "hi_session";
    case Kind::kValue: return "hi_value";
    case Kind::kRunOptions: return "hi_run_options";
  }
  return "handle";
}

void register_handle(const void* handle, Kind kind) {
  std::lock_guard lock(registry().mutex);
  registry().live[handle] = kind;
}

bool unregister_handle(const void* handle, Kind kind) {
  std::lock_guard lock(registry().mutex);
  auto it = registry().live.find(handle);
  if (it == registry().live.end() || it->second != kind) return false;
  registry().live.erase(it);
  return true;
}

Status check_handle(const void* handle, Kind kind, const char* arg) {
  if (handle == nullptr) return null_argument(arg);
  std::lock_guard lock(registry().mutex);
  auto it = registry().live.find(handle);
  if (it == registry().live.end())
    return error(StatusCode::kInvalidArgument, "'", arg, "' is not a live ", kind_name(kind),
                 " (already freed, or never created by hipinfer)");
  if (it->second != kind)
    return error(StatusCode::kInvalidArgument, "'", arg, "' is a ", kind_name(it->second), ", expected a ",
                 kind_name(kind));
  return Status::ok();
}

Status null_argument(const char* arg) { return error(StatusCode::kInvalidArgument, "'", arg, "' is NULL"); }

hi_status* to_c(const Status& status, const char* function) {
  if (status.is_ok()) return nullptr;
  try {
    return create<hi_status>(hi_status{status.code(), str(function, ": ", status.message())});
  } catch (...) {
    return &g_out_of_memory;
  }
}

}  // namespace hi::capi

using hi::capi::Kind;

extern "C" {

hi_status_code hi_status_get_code(const hi_status* status) {
  if (status == nullptr) return HI_STATUS_OK;
  if (status != &hi::capi::g_out_of_memory && !hi::capi::check(status, "status").is_ok())
    return HI_STATUS_INVALID_ARGUMENT;
  return static_cast<hi_status_code>(status->code);
}

const char* hi_status_get_message(const hi_status* status) {
  if (status == nullptr) return "";
  if (status != &hi::capi::g_out_of_memory && !hi::capi::check(status, "status").is_ok())
    return "hi_status_get_message: 'status' is not a live hi_status (already freed?)";
  return status->message.c_str();
}

const char* hi_status_code_name(hi_status_code code) { return hi::status_code_name(static_cast<hi::StatusCode>(code)); }

void hi_status_free(hi_status* status) {
  if (status == nullptr || status == &hi::capi::g_out_of_memory) return;
  (void)hi::capi::destroy(status, "status");  // a stale status is ignored: there is no one to tell
}

}  // extern "C"

// The C codes are hi::StatusCode's values: a status converts by a cast.
static_assert(static_cast<int>(hi::StatusCode::kInvalidArgument) == HI_STATUS_INVALID_ARGUMENT);
static_assert(static_cast<int>(hi::StatusCode::kInvalidModel) == HI_STATUS_INVALID_MODEL);
static_assert(static_cast<int>(hi::StatusCode::kUnsupported) == HI_STATUS_UNSUPPORTED);
static_assert(static_cast<int>(hi::StatusCode::kNotFound) == HI_STATUS_NOT_FOUND);
static_assert(static_cast<int>(hi::StatusCode::kOutOfMemory) == HI_STATUS_OUT_OF_MEMORY);
static_assert(static_cast<int>(hi::StatusCode::kRuntimeError) == HI_STATUS_RUNTIME_ERROR);
static_assert(static_cast<int>(hi::StatusCode::kCancelled) == HI_STATUS_CANCELLED);
static_assert(static_cast<int>(hi::StatusCode::kDeadlineExceeded) == HI_STATUS_DEADLINE_EXCEEDED);
static_assert(static_cast<int>(hi::StatusCode::kInternal) == HI_STATUS_INTERNAL);
