// Comparisons (Equal, Less, Greater, LessOrEqual, GreaterOrEqual) and logic (And, Or, Xor) with
// numpy broadcasting and bool results (kernels/compare.cu).
#include <map>

#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

const std::map<std::string, CompareKind>& kinds() {
  static const std::map<std::string, CompareKind> t = {{"Equal", CompareKind::kEqual},
                                                       {"Less", CompareKind::kLess},
                                                       {"Greater", CompareKind::kGreater},
                                                       {"LessOrEqual", CompareKind::kLessOrEqual},
                                                       {"GreaterOrEqual", CompareKind::kGreaterOrEqual},
                                                       {"And", CompareKind::kAnd},
                                                       {"Or", CompareKind::kOr},
                                                       {"Xor", CompareKind::kXor}};
  return t;
}

class Compare final : public GpuKernel {
 public:
  explicit Compare(CompareKind kind) : kind_(kind) {}
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& a = ctx.input(0);
    const DeviceValue& b = ctx.input(1);
    DeviceValue& y = ctx.output(0);
    HI_ASSIGN_OR_RETURN(const BroadcastIndex index, make_broadcast_index(a.shape, b.shape));
    return compare(kind_, a.dtype, a.ptr, b.ptr, static_cast<bool*>(y.ptr), index, ctx.stream());
  }

 private:
  CompareKind kind_;
};

}  // namespace

std::string compare_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const DType t = dtype_of(inputs, 0);
  if (dtype_of(inputs, 1) != t || !compare_supports(kinds().at(node.op_type), t)) {
    const bool logic = node.op_type == "And" || node.op_type == "Or" || node.op_type == "Xor";
    return "no GPU kernel for " + node.op_type + " on " + dtype_name(t) +
           (logic ? " (bool)"
                  : " (float32, float16, int64, int32, int8, uint8" +
                        std::string(node.op_type == "Equal" ? ", bool)" : ")"));
  }
  return rank_reason(node, inputs, 0, kMaxBroadcastRank) + rank_reason(node, inputs, 1, kMaxBroadcastRank);
}

std::unique_ptr<GpuKernel> make_compare(const ir::Node& node) {
  return std::make_unique<Compare>(kinds().at(node.op_type));
}

}  // namespace hi::gpu::HI_GPU_NS
