// hi::query_gpus(): asks every GPU backend compiled into this build and merges the answers.
// Compiled with the host compiler in every build, the one with no GPU backend included.
#include "backends/gpu/query.h"
#include "hipinfer/device.h"

namespace hi {

namespace {

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const auto& p : parts) {
    if (p.empty()) continue;
    if (!out.empty()) out += separator;
    out += p;
  }
  return out;
}

}  // namespace

GpuRuntimeInfo query_gpus() {
  GpuRuntimeInfo info;
#if defined(HI_HAVE_CUDA)
  info.compiled_backends.push_back("cuda");
  gpu::cuda_backend::query(info);
#endif
#if defined(HI_HAVE_HIP)
  info.compiled_backends.push_back("hip");
  gpu::hip_backend::query(info);
#endif
#if defined(HI_HAVE_EMU)
  info.compiled_backends.push_back("emu");
  gpu::emu_backend::query(info);
#endif
  if (info.compiled_backends.empty()) {
    info.no_gpu_reason = "this build has no GPU backend (configure with -DHI_CUDA=ON or -DHI_HIP=ON)";
    return info;
  }
  std::vector<std::string> runtimes, drivers, reasons;
  for (const auto& b : info.backends) {
    runtimes.push_back(b.runtime_version);
    drivers.push_back(b.driver_version);
    if (!b.no_gpu_reason.empty())
      reasons.push_back(info.backends.size() == 1 ? b.no_gpu_reason : b.name + ": " + b.no_gpu_reason);
  }
  info.runtime_version = join(runtimes, ", ");
  info.driver_version = join(drivers, ", ");
  if (info.devices.empty()) {
    info.no_gpu_reason = join(reasons, "; ");
    if (info.no_gpu_reason.empty()) info.no_gpu_reason = "no GPU backend reported a device";
  }
  return info;
}

}  // namespace hi
