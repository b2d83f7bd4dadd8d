// Shape: the input's shape as int64, optionally sliced by start/end (opset 15).
#include <algorithm>

#include "ops/shape_util.h"
#include "ops/op.h"

namespace hi::ops {
namespace {

class ShapeOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    start_ = ctx.get_int("start", 0);
    end_ = ctx.has("end") ? std::optional<int64_t>(ctx.get_int("end", 0)) : std::nullopt;
    return Status::ok();
  }
  Status infer(InferContext& ctx) const override {
    const ir::ValueType& x = ctx.input_type(0);
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor(DType::kInt64, {ir::Dim{}}));
      return Status::ok();
    }
    auto [b, e] = range(x.rank());
    if (x.is_static()) {  // a constant: lets the session fold the shape arithmetic after it
      Shape s = x.concrete_shape();
      ctx.set_output_value(0, Tensor::from_vector(std::vector<int64_t>(s.begin() + b, s.begin() + e), {e - b}));
    } else {
      ctx.set_output_type(0, ir::ValueType::tensor(DType::kInt64, {ir::Dim::known(e - b)}));
    }
    return Status::ok();
  }
  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    auto [b, e] = range(x.rank());
    Tensor& out = ctx.output(0, DType::kInt64, {e - b});
    for (int64_t i = b; i < e; ++i) out.data<int64_t>()[i - b] = x.dim(i);
    return Status::ok();
  }

 private:
  std::pair<int64_t, int64_t> range(int64_t rank) const { return shape_op_range(rank, start_, end_); }
  int64_t start_ = 0;
  std::optional<int64_t> end_;
};

}  // namespace

HI_REGISTER_OP(Shape, ShapeOp)

}  // namespace hi::ops
