// MatMul, Gemm and the fused FusedMatMul (bias, residual, activation): the product through the
// vendor library where it takes it (cuBLASLt; vendor_libs.h), else the own kernel
// (kernels/matmul.cu: tiled, or matrix cores for float16).
#include <algorithm>

#include "backends/gpu/kernels/matmul.h"
#include "backends/gpu/ops/ops.h"
#include "backends/gpu/vendor_libs.h"
#include "ops/internal.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class MatMul final : public GpuKernel {
 public:
  explicit MatMul(const std::string& op) : gemm_(op == "Gemm"), fused_(op == "FusedMatMul") {}
  Status init(ops::InitContext& ctx) override {
    if (gemm_) {
      alpha_ = ctx.get_float("alpha", 1.f);
      beta_ = ctx.get_float("beta", 1.f);
      trans_a_ = ctx.get_int("transA", 0) != 0;
      trans_b_ = ctx.get_int("transB", 0) != 0;
    }
    if (fused_) read_activation(ctx, &has_activation_, &activation_);
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override;

 private:
  bool gemm_, fused_;
  float alpha_ = 1.f, beta_ = 1.f;
  bool trans_a_ = false, trans_b_ = false;
  bool has_activation_ = false;
  UnaryOp activation_;
};

Status MatMul::launch(LaunchContext& ctx) const {
  // MatMul's rank-1 operands as numpy promotes them: a [k] is [1, k], b [k] is [k, 1]. Dropping
  // those dims from the result leaves its layout as it is.
  Shape a = ctx.input(0).shape, b = ctx.input(1).shape;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  DeviceValue& y = ctx.output(0);
  const DType dt = ctx.input(0).dtype;
  MatMulDesc d;
  d.trans_a = trans_a_;
  d.trans_b = trans_b_;
  d.m = trans_a_ ? a[a.size() - 1] : a[a.size() - 2];
  d.k = trans_a_ ? a[a.size() - 2] : a[a.size() - 1];
  d.n = trans_b_ ? b[b.size() - 2] : b[b.size() - 1];
  const Shape batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
  const int64_t na = shape_numel(batch_a), nb = shape_numel(batch_b);
  if (b.size() == 2 && !trans_a_) {  // [.., m, k] x [k, n]: one product over every row
    d.m *= na;
    d.batch = 1;
  } else {
    HI_RETURN_IF(!(batch_a == batch_b || nb == 1 || na == 1), kUnsupported,
                 "GPU MatMul broadcasts a batch only when one side has none (", shape_to_string(a), " x ",
                 shape_to_string(b), ")");
    d.batch = std::max(na, nb);
    d.a_batch_stride = na == 1 ? 0 : d.m * d.k;
    d.b_batch_stride = nb == 1 ? 0 : d.k * d.n;
    d.y_batch_stride = d.m * d.n;
  }
  d.alpha = alpha_;
  const void* c = nullptr;
  if (gemm_ && ctx.has_input(2)) {
    const Shape& cs = ctx.input(2).shape;
    c = ctx.input(2).ptr;
    d.beta = beta_;
    // C broadcasts to [m, n]: a stride of 0 along each dim it lacks or has as 1.
    const int64_t rows = cs.size() == 2 ? cs[0] : 1, cols = cs.empty() ? 1 : cs.back();
    d.c_row_stride = rows == 1 ? 0 : cols;
    d.c_col_stride = cols == 1 ? 0 : 1;
  } else if (fused_) {
    c = ctx.input(2).ptr;  // the bias, [n] values
    d.beta = 1.f;
    d.c_row_stride = 0;
    d.c_col_stride = 1;
  }
  // The product fills y, unless a residual broadcasts it to a larger shape (FusedMatMul allows it).
  HI_RETURN_IF(shape_numel(y.shape) != d.batch * d.m * d.n, kUnsupported, "GPU ", ctx.node().op_type, ": the output ",
               shape_to_string(y.shape), " is larger than the product (a broadcasting residual)");
  // The vendor library (cuBLASLt) where it takes the product, else the own kernel.
  const Status vendor = vendor_matmul(dt, d, ctx.input(0).ptr, ctx.input(1).ptr, c, y.ptr, ctx.stream());
  if (vendor.code() == StatusCode::kUnsupported) {
    HI_RETURN_IF_ERROR(matmul(dt, d, ctx.input(0).ptr, ctx.input(1).ptr, c, y.ptr, ctx.stream()));
  } else {
    HI_RETURN_IF_ERROR(vendor);
  }
  if (!fused_) return Status::ok();
  if (ctx.has_input(3)) {
    HI_ASSIGN_OR_RETURN(const BroadcastIndex index, make_broadcast_index(y.shape, ctx.input(3).shape));
    HI_RETURN_IF_ERROR(binary(BinaryKind::kAdd, dt, y.ptr, ctx.input(3).ptr, y.ptr, index, ctx.stream()));
  }
  if (has_activation_) return unary(activation_, dt, y.ptr, y.ptr, shape_numel(y.shape), ctx.stream());
  return Status::ok();
}

}  // namespace

std::string matmul_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const std::string& op = node.op_type;
  if (!is_float(dtype_of(inputs, 0)) || dtype_of(inputs, 1) != dtype_of(inputs, 0))
    return float_only_reason(node, inputs);
  const int64_t ra = rank_of(inputs, 0), rb = rank_of(inputs, 1);
  if (ra < 0 || rb < 0) return "no GPU kernel for " + op + " of unknown-rank operands";
  if ((ra < 2 || rb < 2) && (op != "MatMul" || ra < 1 || rb < 1))
    return "no GPU kernel for " + op + " of rank-" + std::to_string(std::min(ra, rb)) + " operands";
  if (ra > 2 && rb > 2 && ra != rb) return "no GPU kernel for " + op + " broadcasting batches of different ranks";
  // Batches: equal, or one side without any (all ones); checked here where the dims are known.
  if (ra > 2 && rb > 2) {
    bool equal = true, ones_a = true, ones_b = true, known = true;
    for (int64_t d = 0; d < ra - 2; ++d) {
      const ir::Dim& x = (*inputs[0].shape)[static_cast<size_t>(d)];
      const ir::Dim& y = (*inputs[1].shape)[static_cast<size_t>(d)];
      known = known && x.is_known() && y.is_known();
      equal = equal && x == y;
      ones_a = ones_a && x.is_known() && x.value == 1;
      ones_b = ones_b && y.is_known() && y.value == 1;
    }
    if (known && !equal && !ones_a && !ones_b)
      return "no GPU kernel for " + op +
             " broadcasting batch dims against each other (only one side's batch may be 1s)";
  }
  if (op == "FusedMatMul") return activation_why_not(node);
  return "";
}

std::unique_ptr<GpuKernel> make_matmul(const ir::Node& node) { return std::make_unique<MatMul>(node.op_type); }

}  // namespace hi::gpu::HI_GPU_NS
