// Reductions: which axes (attribute before the op's axes-input opset, input after), the output
// shape, and the reference loops. Each Reduce* op's file holds only its arithmetic (a Reducer)
// and registers ReduceOp<Reducer>; ArgMax and ArgMin register ArgReduceOp<Compare>.
//
// A Reducer has:
//   kTypes, kAxesInputSince (13 for ReduceSum, 18 for the others), kNeedsMax;
//   template <typename T> using Acc = ...;          accumulator type for storage type T
//   template <typename T, typename A> static A init();          value of an empty reduction so far
//   template <typename A> static A step(A acc, A x, A shift);   fold one element in
//   template <typename A> static A finish(A acc, int64_t count, A shift);
// `shift` is the row's maximum (0 if not finite) when kNeedsMax, else 0 (used by LogSumExp).
// Reducing over no axes (noop_with_empty_axes) runs step and finish on each element alone, so
// ReduceSumSquare squares and ReduceLogSum takes the log, as the spec asks.
#pragma once

#include <optional>
#include <vector>

#include "ops/elementwise.h"
#include "ops/numeric.h"
#include "ops/op_checks.h"

namespace hi::ops {

// The types most Reduce* ops take (ReduceMax and ReduceMin add int8, uint8 and bool).
constexpr uint64_t kReduceTypes =
    kFloatTypes | bit(DType::kInt32) | bit(DType::kInt64) | bit(DType::kUInt32) | bit(DType::kUInt64);

// The accumulator most reducers use: double for floating types, int64/uint64 for integers.
template <typename T>
using wide_t = std::conditional_t<kIsFloat<T>, double, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

struct ReduceAttrs {
  bool keepdims = true;
  bool noop_with_empty_axes = false;
  bool axes_is_input = false;                     // opset >= the op's axes-input opset
  std::optional<std::vector<int64_t>> axes_attr;  // the attribute, before that opset

  Status parse(InitContext& ctx, int64_t axes_input_since);
};

// Mask of reduced dims for an input of `rank` dims. No axes (absent or empty) reduce every dim,
// or none with noop_with_empty_axes. Out-of-range or repeated axes fail with `code`.
Result<std::vector<bool>> reduce_mask(const std::optional<std::vector<int64_t>>& axes, bool noop_with_empty_axes,
                                      int64_t rank, StatusCode code);
// Output type of a Reduce* node (input dtype checked against `types`).
Status infer_reduce(InferContext& ctx, const ReduceAttrs& a, uint64_t types);
// The reduced-dim mask at run time (reads the axes input).
Result<std::vector<bool>> run_reduce_mask(const RunContext& ctx, const ReduceAttrs& a, int64_t rank);
// The shape with reduced dims set to 1 (keepdims) or dropped.
Shape reduced_shape(const Shape& in, const std::vector<bool>& mask, bool keepdims);

// An input seen as [outer, reduced, inner]: the reduced dims form one block (dims of size 1
// ignored). False when kept dims lie between reduced ones.
struct ReduceBlock {
  int64_t outer = 1, reduced = 1, inner = 1;
};
bool as_one_block(const Shape& shape, const std::vector<bool>& mask, ReduceBlock* block);

template <typename R>
class ReduceOp final : public Op {
 public:
  Status init(InitContext& ctx) override { return attrs_.parse(ctx, R::kAxesInputSince); }
  Status infer(InferContext& ctx) const override { return infer_reduce(ctx, attrs_, R::kTypes); }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_ASSIGN_OR_RETURN(std::vector<bool> mask, run_reduce_mask(ctx, attrs_, x.rank()));
    const Shape kept = reduced_shape(x.shape(), mask, true);
    Tensor& y = ctx.output(0, x.dtype(), reduced_shape(x.shape(), mask, attrs_.keepdims));
    const bool ok = dispatch<R::kTypes>(x.dtype(), [&]<typename T>() {
      using A = typename R::template Acc<T>;
      const int64_t n_in = x.numel(), n_out = shape_numel(kept);
      const int64_t count = n_out == 0 ? 0 : n_in / n_out;  // elements folded into each output
      // Input element i folds into output element to_out.offset(i) (reduced dims have stride 0).
      const BroadcastIndex to_out(x.shape(), kept);
      const T* px = x.data<T>();
      std::vector<A> shift(static_cast<size_t>(n_out), A(0));
      if constexpr (R::kNeedsMax) {
        std::vector<A> mx(static_cast<size_t>(n_out), lowest_as<T, A>());
        for (int64_t i = 0; i < n_in; ++i) {
          A& m = mx[static_cast<size_t>(to_out.offset(i))];
          m = std::max(m, static_cast<A>(px[i]));
        }
        for (size_t o = 0; o < mx.size(); ++o) shift[o] = std::isfinite(mx[o]) ? mx[o] : A(0);
      }
      std::vector<A> acc(static_cast<size_t>(n_out), R::template init<T, A>());
      ReduceBlock block;
      if (!R::kNeedsMax && as_one_block(x.shape(), mask, &block)) {
        // Whole rows of `inner` at a time (vectorisable), each output folding its elements in
        // the same order as the loop below: the same result, several times faster.
        for (int64_t o = 0; o < block.outer; ++o) {
          A* a = acc.data() + o * block.inner;
          for (int64_t r = 0; r < block.reduced; ++r) {
            const T* row = px + (o * block.reduced + r) * block.inner;
            for (int64_t j = 0; j < block.inner; ++j) a[j] = R::step(a[j], static_cast<A>(row[j]), A(0));
          }
        }
      } else {
        for (int64_t i = 0; i < n_in; ++i) {
          const size_t o = static_cast<size_t>(to_out.offset(i));
          acc[o] = R::step(acc[o], static_cast<A>(px[i]), shift[o]);
        }
      }
      T* py = y.data<T>();
      for (size_t o = 0; o < acc.size(); ++o) py[o] = saturate_cast<T>(R::finish(acc[o], count, shift[o]));
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  ReduceAttrs attrs_;
};

// ArgMax / ArgMin: the int64 index of the first (or, with select_last_index, last) extreme
// element along `axis`. Better(a, b) is true when a beats b.
template <typename Better>
class ArgReduceOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_ = ctx.get_int("axis", 0);
    keepdims_ = ctx.get_int("keepdims", 1) != 0;
    select_last_ = ctx.get_int("select_last_index", 0) != 0;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kNumericTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(DType::kInt64));
      return Status::ok();
    }
    HI_ASSIGN_OR_RETURN(const size_t a, checked_axis(x.rank(), StatusCode::kInvalidModel));
    std::vector<ir::Dim> out;
    for (size_t i = 0; i < x.shape->size(); ++i) {
      if (i != a) out.push_back((*x.shape)[i]);
      else if (keepdims_) out.push_back(ir::Dim::known(1));
    }
    if ((*x.shape)[a].is_known() && (*x.shape)[a].value == 0)
      return error(StatusCode::kInvalidModel, ctx.node().op_type, " over axis ", axis_, " of ", x.to_string(),
                   ", which has no elements");
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kInt64, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_ASSIGN_OR_RETURN(const size_t a, checked_axis(x.rank(), StatusCode::kInvalidArgument));
    std::vector<bool> mask(x.shape().size(), false);
    mask[a] = true;
    int64_t outer = 1, inner = 1;
    const int64_t n = x.dim(static_cast<int64_t>(a));
    for (size_t i = 0; i < x.shape().size(); ++i) {
      if (i < a) outer *= x.shape()[i];
      if (i > a) inner *= x.shape()[i];
    }
    if (n == 0)
      return error(StatusCode::kInvalidArgument, ctx.node().op_type, " over axis ", axis_, " of ", x.type_string(),
                   ", which has no elements");
    Tensor& y = ctx.output(0, DType::kInt64, reduced_shape(x.shape(), mask, keepdims_));
    int64_t* py = y.data<int64_t>();
    const bool ok = dispatch<kNumericTypes>(x.dtype(), [&]<typename T>() {
      using C = compute_t<T>;
      const T* px = x.data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const T* row = px + o * n * inner + i;
          int64_t best = 0;
          for (int64_t j = 1; j < n; ++j) {
            const C v = static_cast<C>(row[j * inner]), b = static_cast<C>(row[best * inner]);
            if (Better{}(v, b) || (select_last_ && v == b)) best = j;
          }
          py[o * inner + i] = best;
        }
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  Result<size_t> checked_axis(int64_t rank, StatusCode code) const {
    if (rank == 0 || axis_ < -rank || axis_ >= rank)
      return error(code, "axis ", axis_, " is out of range for rank ", rank, " (accepted: [", -rank, ", ", rank - 1,
                   "])");
    return static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
  }

  int64_t axis_ = 0;
  bool keepdims_ = true;
  bool select_last_ = false;
};

}  // namespace hi::ops
