// Formatting of failed GPU runtime calls (see gpu_error.h).
#include "backends/gpu/gpu_error.h"

#include <cstring>
#include <string_view>

namespace hi::gpu {

const char* short_source_path(const char* file) {
#ifdef HI_SOURCE_DIR
  constexpr std::string_view kRoot = HI_SOURCE_DIR "/";
  if (file && std::string_view(file).starts_with(kRoot)) return file + kRoot.size();
#endif
  if (!file) return "";
  // ccache (CCACHE_BASEDIR) makes include paths relative to the build folder: "../../src/...".
  while (std::string_view(file).starts_with("../")) file += 3;
  return file;
}

Status gpu_call_error(const GpuCallError& e) {
  std::string where = e.device >= 0 ? str(" on device ", e.device) : std::string(" (device unknown)");
  std::string message = str(e.runtime, " call ", e.expr, " failed", where, " at ", short_source_path(e.file), ":",
                            e.line, ": ", e.code_name, " (", e.code, ")");
  const char* description = e.description ? e.description : "";
  if (*description && std::strcmp(description, e.code_name ? e.code_name : "") != 0) message += str(": ", description);
  const StatusCode code = e.status_code == StatusCode::kOk ? StatusCode::kRuntimeError : e.status_code;
  return Status(code, std::move(message));
}

}  // namespace hi::gpu
