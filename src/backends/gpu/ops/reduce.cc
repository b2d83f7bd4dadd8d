// The Reduce* family over any axes, with or without keepdims (kernels/reduce.cu, through a
// ReducePlan); the axes are an attribute, or an input read on the host (ReduceSum from opset 13,
// the others from 18). noop_with_empty_axes maps each element alone, as the CPU ops do.
#include <map>

#include "backends/gpu/kernels/reduce.h"
#include "backends/gpu/ops/ops.h"
#include "ops/reduce_util.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

const std::map<std::string, ReduceKind>& kinds() {
  static const std::map<std::string, ReduceKind> t = {
      {"ReduceSum", ReduceKind::kSum},       {"ReduceMean", ReduceKind::kMean},
      {"ReduceMax", ReduceKind::kMax},       {"ReduceMin", ReduceKind::kMin},
      {"ReduceProd", ReduceKind::kProd},     {"ReduceSumSquare", ReduceKind::kSumSquare},
      {"ReduceL1", ReduceKind::kL1},         {"ReduceL2", ReduceKind::kL2},
      {"ReduceLogSum", ReduceKind::kLogSum}, {"ReduceLogSumExp", ReduceKind::kLogSumExp}};
  return t;
}

class Reduce final : public GpuKernel {
 public:
  explicit Reduce(ReduceKind kind) : kind_(kind) {}
  Status init(ops::InitContext& ctx) override {
    noop_ = ctx.get_int("noop_with_empty_axes", 0) != 0;
    if (ctx.has("axes")) axes_ = ctx.get_ints("axes");
    return Status::ok();
  }
  bool reads_on_host(size_t input) const override { return input == 1; }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    DeviceValue& y = ctx.output(0);
    std::optional<std::vector<int64_t>> axes = axes_;
    if (ctx.has_input(1)) {
      HI_ASSIGN_OR_RETURN(axes, host_ints(ctx, 1));
    }
    HI_ASSIGN_OR_RETURN(
        const std::vector<bool> mask,
        ops::reduce_mask(axes, noop_, static_cast<int64_t>(x.shape.size()), StatusCode::kInvalidArgument));
    HI_ASSIGN_OR_RETURN(const ReducePlan plan, plan_reduce(x.shape, mask));
    HI_RETURN_IF(plan.outputs() != shape_numel(y.shape), kInternal, "GPU ", ctx.node().op_type, ": ", plan.outputs(),
                 " outputs planned for ", shape_to_string(y.shape));
    return reduce(kind_, x.dtype, x.ptr, y.ptr, plan, ctx.stream());
  }

 private:
  ReduceKind kind_;
  bool noop_ = false;
  std::optional<std::vector<int64_t>> axes_;
};

}  // namespace

std::string reduce_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (!is_float(dtype_of(inputs, 0))) return float_only_reason(node, inputs);
  return rank_reason(node, inputs, 0, kMaxReduceRank);
}

std::unique_ptr<GpuKernel> make_reduce(const ir::Node& node) {
  return std::make_unique<Reduce>(kinds().at(node.op_type));
}

}  // namespace hi::gpu::HI_GPU_NS
