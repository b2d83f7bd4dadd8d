// Shape (with opset 15's start/end) and Size: the input's dims or element count, known on the
// host at launch, written by a kernel that carries them as parameters (kernels/fill.h). Where
// their integers only feed a shape read on the host, placement keeps them on the CPU instead
// (runtime/placement.h); this kernel serves a shape that is also data.
#include <optional>

#include "backends/gpu/kernels/fill.h"
#include "backends/gpu/ops/ops.h"
#include "ops/shape_util.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class ShapeOf final : public GpuKernel {
 public:
  explicit ShapeOf(bool size) : size_(size) {}
  Status init(ops::InitContext& ctx) override {
    start_ = ctx.get_int("start", 0);
    if (ctx.has("end")) end_ = ctx.get_int("end", 0);
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const Shape& x = ctx.input(0).shape;
    DeviceValue& y = ctx.output(0);
    std::vector<int64_t> values;
    if (size_) {
      values.push_back(shape_numel(x));
    } else {
      const auto [b, e] = ops::shape_op_range(static_cast<int64_t>(x.size()), start_, end_);
      values.assign(x.begin() + b, x.begin() + e);
    }
    HI_RETURN_IF_ERROR(
        check_output_shape(ctx.node(), size_ ? Shape{} : Shape{static_cast<int64_t>(values.size())}, y.shape));
    return fill_i64_values(static_cast<int64_t*>(y.ptr), values.data(), static_cast<int>(values.size()), ctx.stream());
  }

 private:
  bool size_;
  int64_t start_ = 0;
  std::optional<int64_t> end_;
};

}  // namespace

std::string shape_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (dtype_of(inputs, 0) == DType::kUndefined || inputs[0].kind != ir::ValueKind::kTensor)
    return "no GPU kernel for " + node.op_type + " of a non-tensor";
  return rank_reason(node, inputs, 0, kMaxFillValues, true);
}

std::unique_ptr<GpuKernel> make_shape(const ir::Node& node) {
  return std::make_unique<ShapeOf>(node.op_type == "Size");
}

}  // namespace hi::gpu::HI_GPU_NS
