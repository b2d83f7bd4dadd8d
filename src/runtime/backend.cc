#include "runtime/backend.h"

#include <mutex>

#include "runtime/placement.h"

namespace hi::runtime {
namespace {

std::mutex& active_mutex() {
  static std::mutex m;
  return m;
}
std::vector<const Backend*>& active() {
  static std::vector<const Backend*> list = compiled_backends();
  return list;
}

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

Status Backend::reserve(int device, int64_t bytes) const {
  (void)bytes;
  return error(StatusCode::kUnsupported, "reserve: the ", kind(), " backend has no memory to reserve on device ",
               device);
}

std::vector<const Backend*> active_backends() {
  std::lock_guard<std::mutex> lock(active_mutex());
  return active();
}

ScopedBackends::ScopedBackends(std::vector<const Backend*> backends) {
  std::lock_guard<std::mutex> lock(active_mutex());
  previous_ = std::move(active());
  active() = std::move(backends);
}

ScopedBackends::~ScopedBackends() {
  std::lock_guard<std::mutex> lock(active_mutex());
  active() = std::move(previous_);
}

const Backend* backend_for(const std::vector<const Backend*>& backends, std::string_view device) {
  const std::string_view kind = device.substr(0, device.find(':'));
  for (const Backend* b : backends)
    if (b->kind() == kind) return b;
  return nullptr;
}

const Backend* first_gpu(const std::vector<const Backend*>& backends) {
  for (const Backend* b : backends)
    if (b->kind() != "cpu") return b;
  return nullptr;
}

GpuRuntimeInfo query_devices(const std::vector<const Backend*>& backends) {
  GpuRuntimeInfo info;
  for (const Backend* b : backends) {
    if (b->kind() == "cpu") continue;
    info.compiled_backends.push_back(b->kind());
    b->query(info);
  }
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

std::string gpu_kernel_support(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const Backend* gpu = first_gpu(compiled_backends());
  if (!gpu) return "this build has no GPU backend (no kernel for " + node.op_type + ")";
  return gpu->support(node, inputs);
}

std::vector<bool> gpu_host_inputs(const ir::Node& node) {
  const Backend* gpu = first_gpu(compiled_backends());
  return gpu ? gpu->host_inputs(node) : std::vector<bool>{};
}

}  // namespace hi::runtime

namespace hi {

GpuRuntimeInfo query_gpus() { return runtime::query_devices(runtime::compiled_backends()); }

std::vector<GpuMemoryStats> gpu_memory_stats() {
  std::vector<GpuMemoryStats> out;
  for (const runtime::Backend* b : runtime::compiled_backends()) b->append_memory_stats(&out);
  return out;
}

Status gpu_empty_cache() {
  for (const runtime::Backend* b : runtime::compiled_backends()) HI_RETURN_IF_ERROR(b->empty_caches());
  return Status::ok();
}

Status gpu_reserve(const std::string& device, int64_t bytes) {
  const size_t colon = device.find(':');
  int index = 0;
  if (colon != std::string::npos) {
    const std::string digits = device.substr(colon + 1);
    HI_RETURN_IF(digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 6,
                 kInvalidArgument, "gpu_reserve: device '", device, "' is not of the form cuda:N, hip:N or emu:N");
    index = std::stoi(digits);
  }
  const runtime::Backend* b = runtime::backend_for(runtime::compiled_backends(), device);
  HI_RETURN_IF(!b || b->kind() == "cpu", kInvalidArgument, "gpu_reserve: no GPU backend in this build for device '",
               device, "'");
  return b->reserve(index, bytes);
}

}  // namespace hi
