// GPU devices as the runtime reports them, and a clean "no GPU" answer when there is none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hipinfer/status.h"

namespace hi {

struct DeviceInfo {
  int index = 0;
  std::string backend;        // "cuda" or "hip"
  std::string name;           // "NVIDIA H200", "AMD Instinct MI250X"
  std::string arch;           // "sm_90", "gfx90a"
  int64_t total_memory = 0;   // bytes
  int64_t free_memory = 0;    // bytes, at the time of the query
  int multiprocessors = 0;    // SMs / CUs
  int warp_size = 0;          // 32, or 64 on CDNA
  int compute_major = 0;
  int compute_minor = 0;
  std::string pci_bus_id;     // "0000:17:00.0"
};

struct GpuRuntimeInfo {
  std::vector<std::string> compiled_backends;  // backends this build has: "cuda", "hip"
  std::string runtime_version;                 // "CUDA 13.0" / "HIP 5.2"; empty if not built
  std::string driver_version;                  // empty when no driver is loaded
  std::vector<DeviceInfo> devices;             // empty when there is no usable GPU
  std::string no_gpu_reason;                   // why `devices` is empty, in one sentence
};

// Queries every compiled GPU backend. Never fails: a machine without a GPU, driver or backend
// gives an empty device list and a reason.
GpuRuntimeInfo query_gpus();

}  // namespace hi
