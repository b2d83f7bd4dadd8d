// The table of ops the GPU executor runs, from gpu_op_list.def: (domain, op type) -> support
// check and kernel.
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {

const std::vector<GpuOpEntry>& gpu_op_list() {
  static const std::vector<GpuOpEntry> list = {
#define HI_GPU_OP(domain, op_type, family) GpuOpEntry{domain, #op_type, family##_why_not, make_##family},
#include "backends/gpu/ops/gpu_op_list.def"
#undef HI_GPU_OP
  };
  return list;
}

}  // namespace hi::gpu::HI_GPU_NS
