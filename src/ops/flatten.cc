// Flatten: [d0..dn] -> [d0*..*d(axis-1), d(axis)*..*dn], sharing the input's storage.
#include "ops/shape_util.h"
#include "ops/op.h"

namespace hi::ops {
namespace {

class FlattenOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_ = ctx.get_int("axis", 1);
    return Status::ok();
  }
  // Flatten's axis lies in [-rank, rank]; a negative one counts from the end.
  static Result<int64_t> flatten_axis(int64_t axis, int64_t rank) {
    if (axis < -rank || axis > rank)
      return error(StatusCode::kInvalidModel, "axis ", axis, " is out of range [", -rank, ", ", rank, "]");
    return axis < 0 ? axis + rank : axis;
  }

  Status infer(InferContext& ctx) const override {
    const ir::ValueType& x = ctx.input_type(0);
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, {ir::Dim{}, ir::Dim{}}));
      return Status::ok();
    }
    HI_ASSIGN_OR_RETURN(int64_t axis, flatten_axis(axis_, x.rank()));
    auto prod = [&](int64_t b, int64_t e) {
      int64_t p = 1;
      for (int64_t i = b; i < e; ++i) {
        if (!(*x.shape)[static_cast<size_t>(i)].is_known()) return ir::Dim{};
        p *= (*x.shape)[static_cast<size_t>(i)].value;
      }
      return ir::Dim::known(p);
    };
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, {prod(0, axis), prod(axis, x.rank())}));
    return Status::ok();
  }
  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_ASSIGN_OR_RETURN(int64_t axis, flatten_axis(axis_, x.rank()));
    int64_t outer = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= x.dim(i);
    ctx.set_output(0, x.reshaped({outer, outer == 0 ? 0 : x.numel() / outer}));
    return Status::ok();
  }

 private:
  int64_t axis_ = 1;
};

}  // namespace

HI_REGISTER_OP(Flatten, FlattenOp)

}  // namespace hi::ops
