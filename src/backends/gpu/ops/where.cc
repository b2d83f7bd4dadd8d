// Where with numpy broadcasting of the condition (bool) and both branches (kernels/where.cu).
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Where final : public GpuKernel {
 public:
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& c = ctx.input(0);
    const DeviceValue& x = ctx.input(1);
    const DeviceValue& e = ctx.input(2);
    DeviceValue& y = ctx.output(0);
    HI_ASSIGN_OR_RETURN(const WhereIndex index, make_where_index(c.shape, x.shape, e.shape));
    HI_RETURN_IF_ERROR(check_output_shape(ctx.node(), Shape(index.dims, index.dims + index.rank), y.shape));
    return where(index, static_cast<int>(dtype_size(x.dtype)), c.ptr, x.ptr, e.ptr, y.ptr, ctx.stream());
  }
};

}  // namespace

std::string where_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (dtype_of(inputs, 0) != DType::kBool)
    return "no GPU kernel for Where with a " + std::string(dtype_name(dtype_of(inputs, 0))) + " condition (bool)";
  const DType t = dtype_of(inputs, 1);
  if (!is_movable(t) || dtype_of(inputs, 2) != t)
    return "no GPU kernel for Where on " + std::string(dtype_name(t)) + " and " + dtype_name(dtype_of(inputs, 2));
  for (size_t i = 0; i < 3; ++i)
    if (std::string r = rank_reason(node, inputs, i, kMaxBroadcastRank); !r.empty()) return r;
  return "";
}

std::unique_ptr<GpuKernel> make_where(const ir::Node&) { return std::make_unique<Where>(); }

}  // namespace hi::gpu::HI_GPU_NS
