// GPU devices as the runtime reports them, and a clean "no GPU" answer when there is none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hipinfer/status.h"

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
  std::string runtime_version;      // the backends' runtime_version joined by ", "; empty if none
  std::string driver_version;       // the backends' non-empty driver_version joined by ", "
  std::vector<DeviceInfo> devices;  // empty when there is no usable GPU
  std::string no_gpu_reason;  // why `devices` is empty, in one sentence; empty when it is not.
                              // With two backends: "cuda: <reason>; hip: <reason>"
};

// Queries every compiled GPU backend. Never fails: a machine without a GPU, driver or backend
// gives an empty device list and a reason. Reading free memory initialises each device's
// primary context (a few hundred MB of device memory, held until the process exits); the
// current device is restored afterwards. Safe to call from several threads.
GpuRuntimeInfo query_gpus();

}  // namespace hi
