// Transpose: permutes the axes (default: reverses them); moves elements of any type.
#include <algorithm>

#include "core/threading.h"
#include "ops/arity.h"
#include "ops/copy_util.h"

namespace hi::ops {
namespace {

// Output rows (the last output dim) in parallel; each row is one strided read, or a memcpy
// when the last dim stays last.
template <typename U>
void copy_rows(const U* src, U* dst, const Shape& out_shape, const std::vector<int64_t>& strides) {
  if (out_shape.empty()) {
    dst[0] = src[0];
    return;
  }
  const size_t r = out_shape.size();
  const int64_t inner = out_shape.back(), step = strides.back();
  if (inner == 0) return;
  const int64_t rows = shape_numel(out_shape) / inner;
  parallel_for(rows, std::max<int64_t>(1, 16384 / inner), [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      int64_t in = 0;
      for (int64_t t = row, d = static_cast<int64_t>(r) - 1; d-- > 0;) {
        const size_t du = static_cast<size_t>(d);
        in += (t % out_shape[du]) * strides[du];
        t /= out_shape[du];
      }
      U* out = dst + row * inner;
      if (step == 1) {
        std::copy(src + in, src + in + inner, out);
      } else {
        for (int64_t j = 0; j < inner; ++j) out[j] = src[in + j * step];
      }
    }
  });
}

// A batch of 2-D transposes: the last two output dims read the input with strides (1, step), so
// row-by-row copying would read each output row with a stride. Copied in 32 x 32 tiles instead,
// which stay in cache (NCHW <-> NHWC layout changes are this case).
template <typename U>
void copy_tiles(const U* src, U* dst, const Shape& shape, const std::vector<int64_t>& strides) {
  constexpr int64_t kTile = 32;
  const size_t r = shape.size();
  const int64_t rows = shape[r - 2], cols = shape[r - 1], step = strides[r - 1];
  const int64_t batches = shape_numel(shape) / (rows * cols), row_tiles = (rows + kTile - 1) / kTile;
  parallel_for(batches * row_tiles, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / row_tiles, i0 = t % row_tiles * kTile, i1 = std::min(rows, i0 + kTile);
      int64_t base = 0;
      for (int64_t rest = b, d = static_cast<int64_t>(r) - 2; d-- > 0;) {
        base += rest % shape[static_cast<size_t>(d)] * strides[static_cast<size_t>(d)];
        rest /= shape[static_cast<size_t>(d)];
      }
      U* out = dst + b * rows * cols;
      for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
        const int64_t j1 = std::min(cols, j0 + kTile);
        for (int64_t j = j0; j < j1; ++j)
          for (int64_t i = i0; i < i1; ++i) out[i * cols + j] = src[base + i + j * step];
      }
    }
  });
}

class TransposeOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    has_perm_ = ctx.has("perm");
    perm_ = ctx.get_ints("perm");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    if (!x.has_rank()) {
      ctx.set_output_type(0, has_perm_ ? ir::ValueType::tensor(x.dtype, std::vector<ir::Dim>(perm_.size()))
                                       : ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    HI_ASSIGN_OR_RETURN(auto perm, resolve(x.rank()));
    std::vector<ir::Dim> dims;
    for (int64_t p : perm) dims.push_back((*x.shape)[static_cast<size_t>(p)]);
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(dims)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_ASSIGN_OR_RETURN(auto perm, resolve(x.rank()));
    Shape out_shape;
    std::vector<int64_t> strides;
    const auto in_strides = strides_of(x.shape());
    for (int64_t p : perm) {
      out_shape.push_back(x.dim(p));
      strides.push_back(in_strides[static_cast<size_t>(p)]);
    }
    Tensor& out = ctx.output(0, x.dtype(), out_shape);
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* src = storage<U>(x);
          U* dst = storage<U>(out);
          Shape shape = out_shape;
          std::vector<int64_t> st = strides;
          merge_dims(&shape, &st);
          if (shape.size() >= 2 && st[shape.size() - 2] == 1 && shape.back() >= 8 && shape[shape.size() - 2] >= 8)
            copy_tiles(src, dst, shape, st);
          else copy_rows(src, dst, shape, st);
        }))
      return check_movable(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  // The permutation for an input of this rank: perm, or the reversed axes.
  Result<std::vector<int64_t>> resolve(int64_t rank) const {
    std::vector<int64_t> perm;
    if (!has_perm_) {
      for (int64_t i = rank; i-- > 0;) perm.push_back(i);
      return perm;
    }
    if (static_cast<int64_t>(perm_.size()) != rank)
      return error(StatusCode::kInvalidModel, "perm ", shape_to_string(perm_), " has ", perm_.size(),
                   " entries but the input has rank ", rank);
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t p : perm_) {
      if (p < 0 || p >= rank || seen[static_cast<size_t>(p)])
        return error(StatusCode::kInvalidModel, "perm ", shape_to_string(perm_), " is not a permutation of 0..",
                     rank - 1);
      seen[static_cast<size_t>(p)] = true;
    }
    return perm_;
  }

  bool has_perm_ = false;
  std::vector<int64_t> perm_;
};

}  // namespace

HI_REGISTER_OP(Transpose, TransposeOp)

}  // namespace hi::ops
