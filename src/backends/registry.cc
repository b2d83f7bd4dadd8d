// The backends of this build: the only place that asks which were built (HI_HAVE_CUDA, HI_HAVE_HIP
// and HI_HAVE_EMU are defined for this file by src/backends/gpu/CMakeLists.txt).
#include "backends/cpu/backend.h"
#include "backends/gpu/device_counters.h"
#include "backends/gpu/gpu_backend.h"
#include "runtime/backend.h"

namespace hi::runtime {

const std::vector<const Backend*>& compiled_backends() {
  static const std::vector<const Backend*> list = {
    &cpu::backend(),
#if defined(HI_HAVE_CUDA)
    &gpu::cuda_backend::backend(),
#endif
#if defined(HI_HAVE_HIP)
    &gpu::hip_backend::backend(),
#endif
#if defined(HI_HAVE_EMU)
    &gpu::emu_backend::backend(),
#endif
  };
  return list;
}

}  // namespace hi::runtime

namespace hi {

// The launch and allocation counters are one set for all GPU backends (device_counters.h).
GpuActivity gpu_activity() {
  const gpu::DeviceCounters& c = gpu::device_counters();
  GpuActivity a;
  a.kernel_launches = c.kernel_launches.load();
  a.graph_launches = c.graph_launches.load();
  a.host_syncs = c.host_syncs.load();
  a.device_allocations = c.device_allocations.load();
  a.allocator_requests = c.allocator_requests.load();
  return a;
}

GpuActivity operator-(const GpuActivity& a, const GpuActivity& b) {
  return {a.kernel_launches - b.kernel_launches, a.graph_launches - b.graph_launches, a.host_syncs - b.host_syncs,
          a.device_allocations - b.device_allocations, a.allocator_requests - b.allocator_requests};
}

}  // namespace hi
