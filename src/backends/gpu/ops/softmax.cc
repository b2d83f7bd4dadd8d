// Softmax, LogSoftmax and Hardmax along any axis, with the opset's meaning of it (before 13 the
// input is a matrix split at the axis; from 13 the rows run along that one dim: ops/softmax_util.h).
// Rows of contiguous elements take the row kernel (a block per row); others one thread per line
// (kernels/softmax.cu).
#include "backends/gpu/kernels/rows.h"
#include "backends/gpu/ops/ops.h"
#include "ops/softmax_util.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Softmax final : public GpuKernel {
 public:
  explicit Softmax(SoftmaxMode mode) : mode_(mode) {}
  Status init(ops::InitContext& ctx) override {
    axis_.parse(ctx);
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    DeviceValue& y = ctx.output(0);
    int64_t outer = 0, n = 0, inner = 0;
    HI_RETURN_IF_ERROR(axis_.layout(x.shape, &outer, &n, &inner));
    if (inner == 1 && mode_ != SoftmaxMode::kHardmax)
      return softmax_rows(x.dtype, x.ptr, y.ptr, outer, n, mode_ == SoftmaxMode::kLogSoftmax, ctx.stream());
    return softmax_axis(x.dtype, x.ptr, y.ptr, outer, n, inner, mode_, ctx.stream());
  }

 private:
  SoftmaxMode mode_;
  ops::SoftmaxAxis axis_;
};

}  // namespace

std::string softmax_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  return is_float(dtype_of(inputs, 0)) ? "" : float_only_reason(node, inputs);
}

std::unique_ptr<GpuKernel> make_softmax(const ir::Node& node) {
  return std::make_unique<Softmax>(node.op_type == "Softmax"      ? SoftmaxMode::kSoftmax
                                   : node.op_type == "LogSoftmax" ? SoftmaxMode::kLogSoftmax
                                                                  : SoftmaxMode::kHardmax);
}

}  // namespace hi::gpu::HI_GPU_NS
