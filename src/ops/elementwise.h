// Reference kernels and inference shared by the elementwise ops (unary, binary, variadic).
// Arithmetic on float16/bfloat16 happens in float and rounds once per element.
#pragma once

#include <algorithm>
#include <cmath>

#include "core/threading.h"
#include "ops/arity.h"
#include "ops/dispatch.h"
#include "ops/op.h"
#include "ops/shape_util.h"

namespace hi::ops {

struct LegacyBroadcast;

// Error for a dtype an op does not take.
Status unsupported_dtype(const ir::Node& node, DType dtype, const char* what = "input");

// Inference for ops whose output has the input's type and shape; checks the dtype is in `types`.
Status infer_same_as_input(InferContext& ctx, uint64_t types);
// Inference for broadcasting ops: all inputs share a dtype from `types`; the output has
// `out_dtype` (kUndefined: the inputs' dtype).
Status infer_broadcast(InferContext& ctx, uint64_t types, DType out_dtype = DType::kUndefined,
                       const LegacyBroadcast* legacy = nullptr);

// Calls fn(out_index, a_offset, b_offset) for every element of the broadcast of a and b,
// a row at a time so the index arithmetic runs once per row.
template <typename Fn>
void for_each_broadcast(const Shape& out, const Shape& a, const Shape& b, Fn&& fn) {
  const int64_t n = shape_numel(out);
  if (n == 0) return;
  const int64_t inner = out.empty() ? 1 : out.back();
  const int64_t rows = n / inner;
  const BroadcastIndex ia(out, a), ib(out, b);
  // Along the last dim an input either advances with the output or is broadcast (size 1).
  const int64_t a_step = (!a.empty() && a.back() != 1) ? 1 : 0;
  const int64_t b_step = (!b.empty() && b.back() != 1) ? 1 : 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t base = r * inner;
    const int64_t ao = ia.offset(base), bo = ib.offset(base);
    for (int64_t j = 0; j < inner; ++j) fn(base + j, ao + j * a_step, bo + j * b_step);
  }
}

// Opsets before 7 broadcast a binary op's B only with broadcast=1, placing B's dims at A's `axis`
// (default: B matches A's trailing dims, which numpy broadcasting already does).
struct LegacyBroadcast {
  int64_t axis = -1;  // >= 0 when B must be aligned at an explicit axis of A

  void parse(InitContext& ctx) {
    if (ctx.opset() < 7 && ctx.get_int("broadcast", 0) != 0 && ctx.has("axis")) axis = ctx.get_int("axis", 0);
  }
  // B's shape padded with trailing 1s so that numpy broadcasting aligns it at `axis`.
  template <typename D>
  std::vector<D> align(size_t a_rank, std::vector<D> b, D one) const {
    if (axis < 0) return b;
    while (b.size() + static_cast<size_t>(axis) < a_rank) b.push_back(one);
    return b;
  }
  Tensor align(const Tensor& a, const Tensor& b) const {
    return axis < 0 ? b : b.reshaped(align<int64_t>(a.shape().size(), b.shape(), 1));
  }
  ir::ValueType align(const ir::ValueType& a, const ir::ValueType& b) const {
    if (axis < 0 || !a.has_rank() || !b.has_rank()) return b;
    ir::ValueType t = b;
    t.shape = align<ir::Dim>(a.shape->size(), *b.shape, ir::Dim::known(1));
    return t;
  }
};

// out = f(a, b) with numpy broadcasting. In and Out are storage types; f works on compute types.
// A row along the last dim at a time, each operand either advancing with the output or held
// (broadcast along that dim), so that each of the four row loops vectorises; a same-shape or
// one-element operand makes the whole tensor one row. Rows are shared among the threads when
// there are enough elements to pay for a parallel region.
template <typename In, typename Out, typename F>
void binary_loop(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const In* pa = a.data<In>();
  const In* pb = b.data<In>();
  Out* po = out.data<Out>();
  using C = compute_t<In>;
  auto whole = [&](const Tensor& t) { return t.shape() == out.shape() || t.numel() == 1; };
  const Shape& os = out.shape();
  const int64_t inner = whole(a) && whole(b) ? n : (os.empty() ? 1 : os.back());
  const int64_t rows = n / inner;
  auto advances = [&](const Tensor& t) {
    return t.numel() != 1 && (t.shape() == os || (!t.shape().empty() && t.shape().back() != 1));
  };
  const bool a_moves = advances(a), b_moves = advances(b);
  const BroadcastIndex ia(os, a.shape()), ib(os, b.shape());
  auto store = [](Out* o, C v) { *o = static_cast<Out>(v); };
  // len elements from ra, rb (each advancing or held) into ro.
  auto span = [&](const In* ra, const In* rb, Out* ro, int64_t len) {
    if (a_moves && b_moves) {
      for (int64_t j = 0; j < len; ++j) store(ro + j, f(static_cast<C>(ra[j]), static_cast<C>(rb[j])));
    } else if (a_moves) {
      const C bv = static_cast<C>(rb[0]);
      for (int64_t j = 0; j < len; ++j) store(ro + j, f(static_cast<C>(ra[j]), bv));
    } else if (b_moves) {
      const C av = static_cast<C>(ra[0]);
      for (int64_t j = 0; j < len; ++j) store(ro + j, f(av, static_cast<C>(rb[j])));
    } else {
      const C v = f(static_cast<C>(ra[0]), static_cast<C>(rb[0]));
      for (int64_t j = 0; j < len; ++j) store(ro + j, v);
    }
  };
  if (rows == 1) {
    // One row (same shapes, or a one-element operand): chunks of it for the threads.
    parallel_for(n, int64_t{1} << 15, [&](int64_t j0, int64_t j1) {
      span(pa + (a_moves ? j0 : 0), pb + (b_moves ? j0 : 0), po + j0, j1 - j0);
    });
    return;
  }
  parallel_for(rows, std::max<int64_t>(1, (int64_t{1} << 15) / inner), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t base = r * inner;
      span(pa + (a.numel() == 1 ? 0 : ia.offset(base)), pb + (b.numel() == 1 ? 0 : ib.offset(base)), po + base, inner);
    }
  });
}

// A binary op over the numeric types in Types whose output has the input dtype.
template <uint64_t Types, typename F>
Status run_binary(RunContext& ctx, F f, const LegacyBroadcast& legacy = {}) {
  const Tensor& a = ctx.in(0);
  const Tensor b = legacy.align(a, ctx.in(1));
  // Inference checked the declared types; a subgraph fed other types at run time is caught here.
  if (a.dtype() != b.dtype())
    return error(StatusCode::kInvalidArgument, "inputs A (", a.type_string(), ") and B (", b.type_string(),
                 ") must have the same type");
  HI_ASSIGN_OR_RETURN(Shape shape, broadcast_shapes(a.shape(), b.shape()));
  Tensor& out = ctx.output(0, a.dtype(), shape);
  if (!dispatch<Types>(a.dtype(), [&]<typename T>() { binary_loop<T, T>(a, b, out, f); }))
    return unsupported_dtype(ctx.node(), a.dtype());
  return Status::ok();
}

// A comparison: output bool.
template <uint64_t Types, typename F>
Status run_compare(RunContext& ctx, F f) {
  const Tensor& a = ctx.in(0);
  const Tensor& b = ctx.in(1);
  if (a.dtype() != b.dtype())
    return error(StatusCode::kInvalidArgument, "inputs A (", a.type_string(), ") and B (", b.type_string(),
                 ") must have the same type");
  HI_ASSIGN_OR_RETURN(Shape shape, broadcast_shapes(a.shape(), b.shape()));
  Tensor& out = ctx.output(0, DType::kBool, shape);
  if (!dispatch<Types>(a.dtype(), [&]<typename T>() { binary_loop<T, bool>(a, b, out, f); }))
    return unsupported_dtype(ctx.node(), a.dtype());
  return Status::ok();
}

// out[i] = f(x[i]) for the types in Types; f takes and returns the compute type. Large
// tensors are cut into chunks for the threads (f must not keep state between calls).
// Each output element is written right after its input element is read, at the same index (the
// threads' chunks are disjoint): the output may be the input's storage (Op::may_run_in_place).
template <uint64_t Types, typename F>
Status run_unary(RunContext& ctx, F f) {
  const Tensor& x = ctx.in(0);
  Tensor& out = ctx.output(0, x.dtype(), x.shape());
  const int64_t n = x.numel();
  if (!dispatch<Types>(x.dtype(), [&]<typename T>() {
        const T* px = x.data<T>();
        T* po = out.data<T>();
        using C = compute_t<T>;
        parallel_for(n, int64_t{1} << 15, [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i) po[i] = static_cast<T>(f(static_cast<C>(px[i])));
        });
      }))
    return unsupported_dtype(ctx.node(), x.dtype());
  return Status::ok();
}

// An op with no attributes computing out = F{}(x) elementwise over Types.
template <uint64_t Types, typename F>
class UnaryOp : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1));
    return infer_same_as_input(ctx, Types);
  }
  Status run(RunContext& ctx) const override { return run_unary<Types>(ctx, F{}); }
  bool may_run_in_place(size_t out, size_t in) const override { return out == 0 && in == 0; }  // see run_unary
};

// An op computing out = F{}(a, b) with broadcasting over Types.
template <uint64_t Types, typename F>
class BinaryOp : public Op {
 public:
  Status init(InitContext& ctx) override {
    legacy_.parse(ctx);
    return Status::ok();
  }
  // Exactly two inputs: passes that match binary ops (fusions) read both without checking.
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2));
    return infer_broadcast(ctx, Types, DType::kUndefined, &legacy_);
  }
  Status run(RunContext& ctx) const override { return run_binary<Types>(ctx, F{}, legacy_); }
  // An operand of the output's size may be its storage: binary_loop reads both operands' elements
  // for an output element before writing it, and a full-size operand's index is the output's.
  bool may_run_in_place(size_t out, size_t in) const override { return out == 0 && in < 2; }

 private:
  LegacyBroadcast legacy_;
};

// A comparison computing bool out = F{}(a, b) with broadcasting over Types.
template <uint64_t Types, typename F>
class CompareOp : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2));
    return infer_broadcast(ctx, Types, DType::kBool);
  }
  Status run(RunContext& ctx) const override { return run_compare<Types>(ctx, F{}); }
};

}  // namespace hi::ops
