// MaxPool: the largest input element in each window (padding never wins), and optionally its
// index into the flattened input (Indices: plane * spatial_size + offset in the plane, the offset
// row-major, or column-major over the spatial dims with storage_order=1). NaN inputs are skipped
// unless the whole window is NaN.
#include "ops/numeric.h"
#include "ops/pool_util.h"

namespace hi::ops {
namespace {

constexpr uint64_t kTypes = kFloatTypes | bit(DType::kInt8) | bit(DType::kUInt8);

// The column-major offset of row-major in-plane offset t over spatial dims `dims`.
int64_t column_major(int64_t t, const std::vector<int64_t>& dims) {
  std::vector<int64_t> coord(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    coord[d] = t % dims[d];
    t /= dims[d];
  }
  int64_t off = 0, mul = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    off += coord[d] * mul;
    mul *= dims[d];
  }
  return off;
}

class MaxPoolOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    HI_RETURN_IF_ERROR(parse_pool_window(ctx, &window_));
    const int64_t order = ctx.get_int("storage_order", 0);
    if (order != 0 && order != 1)
      return ctx.fail(StatusCode::kInvalidModel, "storage_order must be 0 (row major) or 1 (column major), got ",
                      order);
    column_major_ = order == 1;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 2));
    HI_ASSIGN_OR_RETURN(std::vector<ir::Dim> dims, infer_pool_dims(ctx, window_, kTypes));
    ctx.set_output_type(0, ir::ValueType::tensor(ctx.input_type(0).dtype, dims));
    if (ctx.num_outputs() > 1) ctx.set_output_type(1, ir::ValueType::tensor(DType::kInt64, dims));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_ASSIGN_OR_RETURN(PoolWindows g, make_pool_windows(window_, x.shape(), true, StatusCode::kInvalidArgument));
    Tensor& y = ctx.output(0, x.dtype(), g.out_shape);
    const bool want_indices = ctx.num_outputs() > 1 && !ctx.node().outputs[1].empty();
    int64_t* pi = want_indices ? ctx.output(1, DType::kInt64, g.out_shape).data<int64_t>() : nullptr;
    const int64_t in_size = g.in_size(), out_size = g.out_size();
    const bool ok = dispatch<kTypes>(x.dtype(), [&]<typename T>() {
      using C = compute_t<T>;
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for_each_window(g, [&](int64_t pos, const std::vector<int64_t>& taps, int64_t) {
        for (int64_t p = 0; p < g.planes; ++p) {
          const T* plane = px + p * in_size;
          int64_t best = taps[0];
          for (int64_t t : taps) {
            const C v = static_cast<C>(plane[t]), b = static_cast<C>(plane[best]);
            if (v > b || (is_nan(b) && !is_nan(v))) best = t;
          }
          py[p * out_size + pos] = plane[best];
          if (pi) pi[p * out_size + pos] = p * in_size + (column_major_ ? column_major(best, g.in) : best);
        }
      });
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  WindowParams window_;
  bool column_major_ = false;
};

}  // namespace

HI_REGISTER_OP(MaxPool, MaxPoolOp)

}  // namespace hi::ops
