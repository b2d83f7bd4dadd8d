// Host side of one GPU backend: checked-call errors, the device query, device properties and
// plain device memory (streams, events and graphs: runtime_async.cu). Compiled once per backend
// (nvcc for cuda_backend, hipcc for hip_backend); no kernels here.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "backends/gpu/common.cuh"
#include "backends/gpu/gpu_error.h"
#include "backends/gpu/query.h"

namespace hi::gpu::HI_GPU_NS {

namespace {

// ---- Vendor diagnosis ------------------------------------------------------------------------
// The only host code outside vendor.h that branches on the vendor: naming architectures and
// versions, and explaining a missing GPU in each vendor's terms (driver library, device files,
// environment variables).

[[maybe_unused]] std::string read_first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

[[maybe_unused]] std::string env_note(const char* name) {
  const char* value = std::getenv(name);
  return value ? str("; ", name, "='", value, "' limits which devices are visible") : std::string();
}

#if defined(HI_GPU_HIP)

std::string arch_name(const cudaDeviceProp& p) {
  std::string arch = p.gcnArchName;  // "gfx90a:sramecc+:xnack-"
  return arch.substr(0, arch.find(':'));
}

// hipRuntimeGetVersion: major * 10'000'000 + minor * 100'000 + patch
std::string version_string(int v) { return str("HIP ", v / 10000000, ".", (v / 100000) % 100, ".", v % 100000); }

std::string driver_string(int v) {
  if (access("/dev/kfd", F_OK) != 0 || v <= 0) return {};  // no kernel driver: nothing to report
  std::string s = version_string(v);
  const std::string module = read_first_line("/sys/module/amdgpu/version");  // ROCm's DKMS only
  if (!module.empty()) s += str(" (amdgpu ", module, ")");
  return s;
}

std::string no_device_reason(cudaError_t e, int /*driver_version*/) {
  const std::string env =
      env_note("HIP_VISIBLE_DEVICES") + env_note("ROCR_VISIBLE_DEVICES") + env_note("CUDA_VISIBLE_DEVICES");
  if (access("/dev/kfd", F_OK) != 0)
    return "the AMD GPU kernel driver (amdgpu) is not loaded: /dev/kfd does not exist" + env;
  if (access("/dev/kfd", R_OK | W_OK) != 0)
    return "/dev/kfd exists but this user cannot open it: add the user to the 'render' and "
           "'video' groups" +
           env;
  if (e == cudaSuccess || e == cudaErrorNoDevice) return "the HIP runtime found no AMD GPU" + env;
  return str("hipGetDeviceCount failed: ", cudaGetErrorName(e), " (", static_cast<int>(e), ")", env);
}

#elif defined(HI_GPU_EMU)

// The emulated GPU names the architecture whose features it has (emu/device_profile.h).
std::string arch_name(const cudaDeviceProp& p) {
  return p.gcnArchName[0] ? std::string(p.gcnArchName) : str("sm_", p.major, p.minor);
}

std::string version_string(int v) { return str("hipinfer emulated GPU ", v); }

std::string driver_string(int) { return {}; }

std::string no_device_reason(cudaError_t e, int) { return cudaGetErrorString(e); }

#else  // CUDA

std::string arch_name(const cudaDeviceProp& p) { return str("sm_", p.major, p.minor); }

// cudaRuntimeGetVersion / cudaDriverGetVersion: major * 1000 + minor * 10
std::string version_string(int v) { return str("CUDA ", v / 1000, ".", (v % 1000) / 10); }

std::string driver_string(int v) {
  if (v <= 0) return {};  // 0: no driver library could be loaded
  std::string s = version_string(v);
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Thu Jan ..."
  const std::string nvrm = read_first_line("/proc/driver/nvidia/version");
  if (const auto at = nvrm.find("Kernel Module"); at != std::string::npos) {
    const auto begin = nvrm.find_first_not_of(' ', at + 13);
    const auto end = nvrm.find(' ', begin);
    if (begin != std::string::npos) s += str(" (NVIDIA ", nvrm.substr(begin, end - begin), ")");
  }
  return s;
}

std::string no_device_reason(cudaError_t e, int driver_version) {
  const std::string env = env_note("CUDA_VISIBLE_DEVICES");
  if (e == cudaErrorInsufficientDriver && driver_version <= 0)
    return "no NVIDIA driver is installed or loaded (libcuda.so.1 could not be loaded; "
           "cudaErrorInsufficientDriver)" +
           env;
  if (e == cudaErrorInsufficientDriver) {
    int runtime = 0;
    (void)cudaRuntimeGetVersion(&runtime);
    return str("the NVIDIA driver supports up to ", version_string(driver_version), " but this build's runtime is ",
               version_string(runtime), ": update the driver (cudaErrorInsufficientDriver)", env);
  }
  if (e == cudaSuccess || e == cudaErrorNoDevice) return "the NVIDIA driver found no GPU" + env;
  return str("cudaGetDeviceCount failed: ", cudaGetErrorName(e), " (", static_cast<int>(e),
             "): ", cudaGetErrorString(e), env);
}

#endif

StatusCode status_code_for(cudaError_t e) {
  return e == cudaErrorMemoryAllocation ? StatusCode::kOutOfMemory : StatusCode::kRuntimeError;
}

DeviceInfo describe_device(int index, const cudaDeviceProp& p) {
  DeviceInfo d;
  d.index = index;
  d.backend = HI_GPU_BACKEND_NAME;
  d.name = p.name;
  d.arch = arch_name(p);
  d.total_memory = static_cast<int64_t>(p.totalGlobalMem);
  d.free_memory = -1;
  d.multiprocessors = p.multiProcessorCount;
  d.warp_size = p.warpSize;
  d.compute_major = p.major;
  d.compute_minor = p.minor;
  return d;
}

}  // namespace

Status error_status(int code, const char* expr, const char* file, int line) {
  const auto error = static_cast<cudaError_t>(code);
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  (void)cudaGetLastError();  // clears the error cudaGetDevice or the failed call left behind
  GpuCallError e;
  e.runtime = HI_GPU_RUNTIME_NAME;
  e.expr = expr;
  e.file = file;
  e.line = line;
  e.device = device;
  e.code = code;
  e.code_name = cudaGetErrorName(error);
  e.description = cudaGetErrorString(error);
  e.status_code = status_code_for(error);
  return gpu_call_error(e);
}

const char* backend_name() { return HI_GPU_BACKEND_NAME; }

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

Status set_device(int device) { return HI_GPU_CHECK(cudaSetDevice(device)); }

Result<int> current_device() {
  int device = -1;
  HI_GPU_RETURN_IF_ERROR(cudaGetDevice(&device));
  return device;
}

Result<DeviceInfo> device_properties(int device) {
  cudaDeviceProp props{};
  HI_GPU_RETURN_IF_ERROR(cudaGetDeviceProperties(&props, device));
  DeviceInfo info = describe_device(device, props);
  char bus_id[64] = {};
  HI_GPU_RETURN_IF_ERROR(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
  info.pci_bus_id = bus_id;
  return info;
}

Result<MemInfo> mem_info() {
  MemInfo info;
  HI_GPU_RETURN_IF_ERROR(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

Status device_malloc(void** ptr, size_t bytes) {
  count(device_counters().device_allocations);
  return HI_GPU_CHECK(cudaMalloc(ptr, bytes));
}

Status device_free(void* ptr) { return HI_GPU_CHECK(cudaFree(ptr)); }

Status copy_to_host(void* host_dst, const void* device_src, size_t bytes) {
  count(device_counters().host_syncs);
  return HI_GPU_CHECK(cudaMemcpy(host_dst, device_src, bytes, cudaMemcpyDeviceToHost));
}

Status copy_to_device(void* device_dst, const void* host_src, size_t bytes) {
  count(device_counters().host_syncs);
  return HI_GPU_CHECK(cudaMemcpy(device_dst, host_src, bytes, cudaMemcpyHostToDevice));
}

Status synchronize(Stream stream) {
  count(device_counters().host_syncs);
  return HI_GPU_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

}  // namespace hi::gpu::HI_GPU_NS

// Defined against query.h's declaration (qualified, so a signature drift is a compile error).
void hi::gpu::HI_GPU_NS::query(GpuRuntimeInfo& info) {
  GpuBackendInfo backend;
  backend.name = HI_GPU_BACKEND_NAME;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) backend.runtime_version = version_string(runtime);
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  backend.driver_version = driver_string(driver);

  int count = 0;
  const cudaError_t counted = cudaGetDeviceCount(&count);
  (void)cudaGetLastError();
  if (counted != cudaSuccess || count <= 0) {
    backend.no_gpu_reason = no_device_reason(counted, driver);
    info.backends.push_back(std::move(backend));
    return;
  }

  int previous = -1;
  if (cudaGetDevice(&previous) != cudaSuccess) previous = -1;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp props{};
    if (Status s = HI_GPU_CHECK(cudaGetDeviceProperties(&props, i)); !s.is_ok()) {
      backend.warnings.push_back(s.message());
      continue;
    }
    DeviceInfo device = describe_device(i, props);
    char bus_id[64] = {};
    if (HI_GPU_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, i)).is_ok()) device.pci_bus_id = bus_id;
    size_t free_bytes = 0, total_bytes = 0;
    if (Status s = HI_GPU_CHECK(cudaSetDevice(i)); !s.is_ok()) {
      backend.warnings.push_back(s.message());
    } else if (Status m = HI_GPU_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes)); !m.is_ok()) {
      backend.warnings.push_back(m.message());
    } else {
      device.free_memory = static_cast<int64_t>(free_bytes);
    }
    info.devices.push_back(std::move(device));
    ++backend.device_count;
  }
  if (previous >= 0) (void)cudaSetDevice(previous);
  if (backend.device_count == 0) backend.no_gpu_reason = str(count, " device(s) found but none could be queried");
  info.backends.push_back(std::move(backend));
}
