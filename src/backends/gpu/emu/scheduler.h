// Running one kernel launch on the emulated GPU: the launch limits of the device profile, the
// blocks spread over host threads, each block's threads as fibers with real barriers
// (emu/scheduler.cc). Internal to the emulated backend.
#pragma once

#include <functional>
#include <string>

#include "backends/gpu/emu/api.h"
#include "backends/gpu/emu/device_profile.h"

namespace hi::gpu::emu {

struct KernelLaunch {
  const char* name = "";
  Dim3 grid, block;
  size_t dynamic_shared_bytes = 0;
  std::function<void()> body;  // the kernel with its arguments bound
};

// Runs every block of the launch and returns cudaSuccess, or the error with *message naming the
// kernel, the block and thread and what went wrong (a launch limit, a barrier that not every
// thread reached, a fault of a collective).
cudaError_t run_kernel(const KernelLaunch& launch, const DeviceProfile& device, std::string* message);

// The kernel, block and thread that this host thread is running, for the fault handler: "" when
// it runs none. Writes at most `size` bytes.
void describe_current_thread(char* out, size_t size);

}  // namespace hi::gpu::emu
