// hi_env, hi_session_options, hi_run_options, and the version queries.
#include <cmath>
#include <string>
#include <vector>

#include "capi/handles.h"
#include "hipinfer/version.h"

using namespace hi;
using capi::check;
using capi::guarded;

namespace {

// "gpu, cpu" -> {"gpu", "cpu"}; an empty entry is refused.
Result<std::vector<std::string>> split_devices(const std::string& list) {
  std::vector<std::string> devices;
  size_t start = 0;
  while (true) {
    size_t end = list.find(',', start);
    std::string item = list.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const size_t first = item.find_first_not_of(" \t"), last = item.find_last_not_of(" \t");
    HI_RETURN_IF(first == std::string::npos, kInvalidArgument, "'devices' has an empty entry: \"", list,
                 "\" (expected a comma-separated list such as \"gpu,cpu\")");
    devices.push_back(item.substr(first, last - first + 1));
    if (end == std::string::npos) return devices;
    start = end + 1;
  }
}

}  // namespace

extern "C" {

uint32_t hi_c_api_version(void) { return HI_C_API_VERSION; }
uint32_t hi_c_api_revision(void) { return HI_C_API_REVISION; }
const char* hi_version_string(void) { return hi::version_string(); }
const char* hi_git_commit(void) { return hi::git_commit(); }

size_t hi_element_type_size(hi_element_type type) {
  const auto t = static_cast<DType>(type);
  if (t == DType::kString || dtype_is_low_precision(t) || !dtype_is_supported(t)) return 0;
  return dtype_size(t);
}

hi_status* hi_env_create(hi_log_level level, hi_env** out) {
  return guarded(__func__, [&]() -> Status {
    HI_CAPI_REQUIRE(out);
    *out = nullptr;
    HI_RETURN_IF(level < HI_LOG_VERBOSE || level > HI_LOG_FATAL, kInvalidArgument,
                 "'level' must be 0 (verbose) to 4 (fatal), got ", static_cast<int>(level));
    *out = capi::create<hi_env>(hi_env{level});
    return Status::ok();
  });
}

hi_status* hi_env_free(hi_env* env) {
  return guarded(__func__, [&] { return capi::destroy(env, "env"); });
}

hi_status* hi_session_options_create(hi_session_options** out) {
  return guarded(__func__, [&]() -> Status {
    HI_CAPI_REQUIRE(out);
    *out = capi::create<hi_session_options>();
    return Status::ok();
  });
}

hi_status* hi_session_options_free(hi_session_options* options) {
  return guarded(__func__, [&] { return capi::destroy(options, "options"); });
}

hi_status* hi_session_options_set_threads(hi_session_options* options, int threads) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(options, "options"));
    HI_RETURN_IF(threads < 0, kInvalidArgument, "'threads' must be 0 (the physical cores) or more, got ", threads);
    options->options.threads = threads;
    return Status::ok();
  });
}

hi_status* hi_session_options_set_optimization_level(hi_session_options* options, int level) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(options, "options"));
    HI_RETURN_IF(level < 0 || level > 3, kInvalidArgument, "'level' must be 0 to 3, got ", level);
    options->options.optimization_level = level;
    return Status::ok();
  });
}

hi_status* hi_session_options_set_memory_limit(hi_session_options* options, int64_t bytes) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(options, "options"));
    HI_RETURN_IF(bytes < 0, kInvalidArgument, "'bytes' must be 0 (no limit) or more, got ", bytes);
    options->options.memory_limit = bytes;
    return Status::ok();
  });
}

hi_status* hi_session_options_set_precision(hi_session_options* options, const char* precision) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(options, "options"));
    HI_CAPI_REQUIRE(precision);
    const std::string p = precision;
    HI_RETURN_IF(p != "fp32" && p != "bf16", kInvalidArgument, "'precision' must be \"fp32\" or \"bf16\", got \"", p,
                 "\"");
    options->options.precision = p;
    return Status::ok();
  });
}

hi_status* hi_session_options_set_devices(hi_session_options* options, const char* devices) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(options, "options"));
    HI_CAPI_REQUIRE(devices);
    HI_ASSIGN_OR_RETURN(options->options.devices, split_devices(devices));
    return Status::ok();
  });
}

hi_status* hi_session_options_set_gpu_graphs(hi_session_options* options, int enabled) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(options, "options"));
    options->options.gpu_graphs = enabled != 0;
    return Status::ok();
  });
}

hi_status* hi_session_options_add_free_dimension_override(hi_session_options* options, const char* dim_name,
                                                          int64_t size) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(options, "options"));
    HI_CAPI_REQUIRE(dim_name);
    HI_RETURN_IF(size < 0, kInvalidArgument, "'size' must be 0 or more, got ", size);
    options->options.free_dimension_overrides[dim_name] = size;
    return Status::ok();
  });
}

hi_status* hi_session_options_add_initializer(hi_session_options* options, const char* name, const hi_value* value) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(options, "options"));
    HI_CAPI_REQUIRE(name);
    HI_RETURN_IF_ERROR(check(value, "value"));
    options->options.initializers[name] = value->tensor;
    return Status::ok();
  });
}

hi_status* hi_session_options_disable_pass(hi_session_options* options, const char* pass) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(options, "options"));
    HI_CAPI_REQUIRE(pass);
    options->options.disabled_passes.emplace_back(pass);
    return Status::ok();
  });
}

hi_status* hi_run_options_create(hi_run_options** out) {
  return guarded(__func__, [&]() -> Status {
    HI_CAPI_REQUIRE(out);
    *out = capi::create<hi_run_options>();
    return Status::ok();
  });
}

hi_status* hi_run_options_free(hi_run_options* options) {
  return guarded(__func__, [&] { return capi::destroy(options, "options"); });
}

hi_status* hi_run_options_set_timeout_ms(hi_run_options* options, double timeout_ms) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(options, "options"));
    HI_RETURN_IF(!std::isfinite(timeout_ms) || timeout_ms < 0, kInvalidArgument,
                 "'timeout_ms' must be 0 (none) or a positive number of milliseconds, got ", timeout_ms);
    options->options.timeout_ms = timeout_ms;
    return Status::ok();
  });
}

hi_status* hi_run_options_set_terminate(hi_run_options* options, int terminate) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(options, "options"));
    options->options.terminate.store(terminate != 0);
    return Status::ok();
  });
}

}  // extern "C"
