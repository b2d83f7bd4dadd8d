// Pad (kernels/pad.cu): modes constant, reflect, edge and wrap, negative pads cropping. Pads,
// the constant and the axes are inputs read on the host from opset 11 (attributes before).
#include <cstring>

#include "backends/gpu/kernels/pad.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

bool parse_mode(const std::string& s, PadMode* mode) {
  if (s == "constant") *mode = PadMode::kConstant;
  else if (s == "reflect") *mode = PadMode::kReflect;
  else if (s == "edge") *mode = PadMode::kEdge;
  else if (s == "wrap") *mode = PadMode::kWrap;
  else return false;
  return true;
}

class Pad final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    legacy_ = ctx.opset() < 11;
    const std::string mode = ctx.get_string("mode", "constant");
    HI_RETURN_IF(!parse_mode(mode, &mode_), kInvalidModel, "Pad: mode '", mode,
                 "' is not one of constant, reflect, edge, wrap");
    if (legacy_) {
      pads_ = ctx.get_ints(ctx.has("pads") ? "pads" : "paddings");
      value_ = ctx.get_float("value", 0.f);
    }
    return Status::ok();
  }
  bool reads_on_host(size_t input) const override { return input >= 1; }
  Status launch(LaunchContext& ctx) const override;

 private:
  bool legacy_ = false;
  PadMode mode_ = PadMode::kConstant;
  std::vector<int64_t> pads_;
  float value_ = 0.f;
};

Status Pad::launch(LaunchContext& ctx) const {
  const DeviceValue& x = ctx.input(0);
  DeviceValue& y = ctx.output(0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> pads = pads_;
  // The constant as one element of x's type.
  uint64_t bits = 0;
  if (x.dtype == DType::kFloat16) {
    bits = Float16(value_).bits;
  } else {
    uint32_t b = 0;
    std::memcpy(&b, &value_, sizeof b);
    bits = b;
  }
  std::vector<int64_t> axes;
  if (!legacy_) {
    HI_ASSIGN_OR_RETURN(pads, host_ints(ctx, 1));
    if (ctx.has_input(2)) {
      const Tensor* c = ctx.host_input(2);
      HI_RETURN_IF(!c, kInternal, "GPU Pad: constant_value is not on the host");
      if (c->numel() > 0) {
        HI_RETURN_IF(c->dtype() != x.dtype || c->numel() != 1, kInvalidArgument, "Pad: constant_value ",
                     c->type_string(), " must be one ", dtype_name(x.dtype), " value");
        bits = 0;
        std::memcpy(&bits, c->raw(), dtype_size(x.dtype));
      }
    }
    if (ctx.has_input(3)) {
      HI_ASSIGN_OR_RETURN(axes, host_ints(ctx, 3));
    }
  }
  // Pads over every axis: [begin_0 .. begin_r-1, end_0 .. end_r-1].
  std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
  if (legacy_ || !ctx.has_input(3)) {
    full = pads;
  } else {
    const size_t k = axes.size();
    HI_RETURN_IF(pads.size() != 2 * k, kInvalidArgument, "Pad: pads ", shape_to_string(pads), " for axes ",
                 shape_to_string(axes));
    for (size_t i = 0; i < k; ++i) {
      const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
      HI_RETURN_IF(a < 0 || a >= rank, kInvalidArgument, "Pad: axis ", axes[i], " is out of range for rank ", rank);
      full[static_cast<size_t>(a)] = pads[i];
      full[static_cast<size_t>(a + rank)] = pads[i + k];
    }
  }
  HI_ASSIGN_OR_RETURN(const PadDesc d, make_pad_desc(x.shape, full, mode_));
  HI_RETURN_IF_ERROR(check_output_shape(ctx.node(), Shape(d.out_dims, d.out_dims + d.rank), y.shape));
  return pad(d, static_cast<int>(dtype_size(x.dtype)), x.ptr, y.ptr, bits, ctx.stream());
}

}  // namespace

std::string pad_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (std::string r = movable_reason(node, inputs); !r.empty()) return r;
  if (node.attr("pads") && !is_float(dtype_of(inputs, 0)))
    return float_only_reason(node, inputs);  // Pad-2's float value
  PadMode mode;
  const std::string m = attr_string(node, "mode", "constant");
  if (!parse_mode(m, &mode)) return "no GPU kernel for Pad with mode " + m;
  return rank_reason(node, inputs, 0, kMaxPadRank);
}

std::unique_ptr<GpuKernel> make_pad(const ir::Node&) { return std::make_unique<Pad>(); }

}  // namespace hi::gpu::HI_GPU_NS
