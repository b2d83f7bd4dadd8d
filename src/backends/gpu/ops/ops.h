// Each GPU op family's support check and kernel factory, defined in its file in this folder and
// declared here from the one list, gpu_op_list.def (a family listed for several op types is
// declared again for each, which C++ allows).
#pragma once

#include "backends/gpu/gpu_op.h"

namespace hi::gpu::HI_GPU_NS {

#define HI_GPU_OP(domain, op_type, family)                                                      \
  std::string family##_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs); \
  std::unique_ptr<GpuKernel> make_##family(const ir::Node& node);
#include "backends/gpu/ops/gpu_op_list.def"
#undef HI_GPU_OP

}  // namespace hi::gpu::HI_GPU_NS
