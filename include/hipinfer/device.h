// GPU devices as the runtime reports them, and a clean "no GPU" answer when there is none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hipinfer/export.h"
#include "hipinfer/status.h"

HI_PUBLIC_BEGIN
namespace hi {

struct DeviceInfo {
  int index = 0;             // the backend's device index (cudaSetDevice / hipSetDevice)
  std::string backend;       // "cuda" or "hip"
  std::string name;          // "NVIDIA H200", "AMD Instinct MI250X"
  std::string arch;          // "sm_90", "gfx90a" (HIP: gcnArchName without ":sramecc+:xnack-")
  int64_t total_memory = 0;  // bytes
  int64_t free_memory = 0;   // bytes, at the time of the query; -1 if the runtime would not say
  int multiprocessors = 0;   // SMs / CUs
  int warp_size = 0;         // 32, or 64 on CDNA / GCN
  int compute_major = 0;     // CUDA compute capability; on HIP the runtime's major/minor
  int compute_minor = 0;
  std::string pci_bus_id;  // "0000:17:00.0"
};

// What one compiled GPU backend found.
struct GpuBackendInfo {
  std::string name;             // "cuda" or "hip"
  std::string runtime_version;  // "CUDA 13.0" / "HIP 5.2.21153": the runtime this build uses
  std::string driver_version;   // "CUDA 12.8 (NVIDIA 570.86.15)" / "HIP 5.2.21153"; empty: none
  int device_count = 0;
  std::string no_gpu_reason;          // why device_count is 0, in one sentence; empty otherwise
  std::vector<std::string> warnings;  // found devices that could not be fully queried
};

struct GpuRuntimeInfo {
  std::vector<std::string> compiled_backends;  // backends this build has: "cuda", "hip"
  std::vector<GpuBackendInfo> backends;        // one per compiled backend, same order
  std::string runtime_version;                 // the backends' runtime_version joined by ", "; empty if none
  std::string driver_version;                  // the backends' non-empty driver_version joined by ", "
  std::vector<DeviceInfo> devices;             // empty when there is no usable GPU
  std::string no_gpu_reason;                   // why `devices` is empty, in one sentence; empty when it is not.
                                               // With two backends: "cuda: <reason>; hip: <reason>"
};

// Queries every compiled GPU backend. Never fails: a machine without a GPU, driver or backend
// gives an empty device list and a reason. Reading free memory initialises each device's
// primary context (a few hundred MB of device memory, held until the process exits); the
// current device is restored afterwards. Safe to call from several threads.
GpuRuntimeInfo query_gpus();

// One device's caching allocator, in the terms users print with torch.cuda.memory_allocated()
// and memory_reserved(): bytes in live tensors, bytes held from the device (live plus cached),
// their peaks, and how the cache looks.
struct GpuMemoryStats {
  std::string device;  // "cuda:0"
  int64_t allocated_bytes = 0;
  int64_t reserved_bytes = 0;
  int64_t peak_allocated_bytes = 0;
  int64_t peak_reserved_bytes = 0;
  int64_t largest_free_block = 0;  // of the cached bytes
  double fragmentation = 0;        // 1 - largest free block / cached bytes
  int64_t device_allocations = 0;  // device mallocs made so far
};
// Every GPU whose allocator this process has used, in backend and index order; empty before
// anything ran on a GPU (and always in a build without one).
std::vector<GpuMemoryStats> gpu_memory_stats();
// Gives every wholly free cached segment of every GPU back to the driver (torch.cuda.empty_cache()).
Status gpu_empty_cache();
// Makes at least `bytes` ready on `device` ("cuda:0") for later allocations, so a first run
// does not pay for device mallocs. Errors name the device when it does not exist.
Status gpu_reserve(const std::string& device, int64_t bytes);

// What the GPU backends have asked of their devices since the process started, every device
// together: counts that depend on the model and the engine, not on the machine's speed.
// RunStats::gpu holds one run's share.
struct GpuActivity {
  int64_t kernel_launches = 0;     // kernels launched one by one (a graph's are not counted)
  int64_t graph_launches = 0;      // captured graphs replayed
  int64_t host_syncs = 0;          // times the host waited for a device (synchronisations, blocking copies)
  int64_t device_allocations = 0;  // memory taken from the runtime (cudaMalloc / hipMalloc)
  int64_t allocator_requests = 0;  // buffers asked of the caching allocator
};
GpuActivity gpu_activity();
GpuActivity operator-(const GpuActivity& a, const GpuActivity& b);

}  // namespace hi
HI_PUBLIC_END
