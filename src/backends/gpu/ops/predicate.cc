// One-element tests with bool results (kernels/compare.cu): Not on bool, IsNaN and IsInf
// (detect_positive, detect_negative) on float32 and float16.
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Predicate final : public GpuKernel {
 public:
  explicit Predicate(PredicateKind kind) { op_.kind = kind; }
  Status init(ops::InitContext& ctx) override {
    op_.detect_positive = ctx.get_int("detect_positive", 1) != 0;
    op_.detect_negative = ctx.get_int("detect_negative", 1) != 0;
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    DeviceValue& y = ctx.output(0);
    return predicate(op_, x.dtype, x.ptr, static_cast<bool*>(y.ptr), shape_numel(y.shape), ctx.stream());
  }

 private:
  PredicateOp op_;
};

}  // namespace

std::string predicate_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const DType t = dtype_of(inputs, 0);
  if (node.op_type == "Not") return t == DType::kBool ? "" : "no GPU kernel for Not on " + dtype_name(t) + " (bool)";
  return is_float(t) ? "" : float_only_reason(node, inputs);
}

std::unique_ptr<GpuKernel> make_predicate(const ir::Node& node) {
  return std::make_unique<Predicate>(node.op_type == "Not"     ? PredicateKind::kNot
                                     : node.op_type == "IsNaN" ? PredicateKind::kIsNaN
                                                               : PredicateKind::kIsInf);
}

}  // namespace hi::gpu::HI_GPU_NS
