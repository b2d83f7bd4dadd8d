// Unique (opset 11): the distinct elements of the flattened input, or with 'axis' the distinct
// slices along that axis, with four outputs: Y (the unique values or slices), indices (where
// each first occurs), inverse_indices (for each input element or slice, its position in Y) and
// counts. sorted=1 (the default) orders Y ascending (slices lexicographically); sorted=0 keeps
// the order of first occurrence. NaNs compare equal to each other and above every number. Any
// element type, strings included.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <type_traits>

#include "ops/copy_util.h"
#include "ops/elementwise.h"
#include "ops/numeric.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

// Strict "a < b" over element values, with NaN above every number and equal to itself.
template <typename T>
bool value_less(const T& a, const T& b) {
  if constexpr (kIsFloat<T>) {
    const auto x = static_cast<compute_t<T>>(a), y = static_cast<compute_t<T>>(b);
    if (std::isnan(x)) return false;
    if (std::isnan(y)) return true;
    return x < y;
  } else {
    return a < b;
  }
}

// A tensor's elements as T (std::string for string tensors).
template <typename T>
T* elements(Tensor& t) {
  if constexpr (std::is_same_v<T, std::string>) return t.strings();
  else return t.data<T>();
}
template <typename T>
const T* elements(const Tensor& t) {
  return elements<T>(const_cast<Tensor&>(t));
}

class UniqueOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    has_axis_ = ctx.has("axis");
    axis_ = ctx.get_int("axis", 0);
    const int64_t s = ctx.get_int("sorted", 1);
    if (s != 0 && s != 1) return ctx.fail(StatusCode::kInvalidModel, "attribute 'sorted' must be 0 or 1, got ", s);
    sorted_ = s == 1;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 4));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !supported(x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    const ir::Dim unknown;
    ir::ValueType y = ir::ValueType::tensor(x.dtype, {unknown});
    ir::Dim inverse_len;
    if (has_axis_) {
      if (!x.has_rank()) {
        y = ir::ValueType::tensor_unknown_shape(x.dtype);
      } else {
        if (x.rank() == 0)
          return error(StatusCode::kInvalidModel, "input must have rank >= 1 with 'axis', got ", x.to_string());
        HI_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, x.rank()));
        std::vector<ir::Dim> dims = *x.shape;
        inverse_len = dims[static_cast<size_t>(axis)];
        dims[static_cast<size_t>(axis)] = unknown;
        y = ir::ValueType::tensor(x.dtype, std::move(dims));
      }
    } else if (x.is_static()) {
      inverse_len = ir::Dim::known(shape_numel(x.concrete_shape()));
    }
    ctx.set_output_type(0, std::move(y));
    if (ctx.num_outputs() > 1) ctx.set_output_type(1, ir::ValueType::tensor(DType::kInt64, {unknown}));
    if (ctx.num_outputs() > 2) ctx.set_output_type(2, ir::ValueType::tensor(DType::kInt64, {inverse_len}));
    if (ctx.num_outputs() > 3) ctx.set_output_type(3, ir::ValueType::tensor(DType::kInt64, {unknown}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!supported(x.dtype())) return unsupported_dtype(ctx.node(), x.dtype());
    if (has_axis_ && x.rank() == 0)
      return error(StatusCode::kInvalidArgument, "input must have rank >= 1 with 'axis', got ", x.type_string());
    // Without an axis, the flattened input: slices of one element.
    const Shape shape = has_axis_ ? x.shape() : Shape{x.numel()};
    HI_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(has_axis_ ? axis_ : 0, static_cast<int64_t>(shape.size())));
    const auto a = static_cast<size_t>(axis);
    if (x.dtype() == DType::kString) return run_typed<std::string>(ctx, x, shape, a);
    Status status;
    dispatch<kAllTypes>(x.dtype(), [&]<typename T>() { status = run_typed<T>(ctx, x, shape, a); });
    return status;
  }

 private:
  static bool supported(DType t) { return t == DType::kString || in_set(kAllTypes, t); }

  template <typename T>
  Status run_typed(RunContext& ctx, const Tensor& x, const Shape& shape, size_t a) const {
    const int64_t outer = dims_product(shape, 0, a), n = shape[a], inner = dims_product(shape, a + 1, shape.size());
    const T* px = elements<T>(x);
    auto at = [&](int64_t o, int64_t j, int64_t i) -> const T& { return px[(o * n + j) * inner + i]; };
    // Lexicographic comparison of slices p and q: <0, 0 or >0.
    auto compare = [&](int64_t p, int64_t q) {
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          if (value_less(at(o, p, i), at(o, q, i))) return -1;
          if (value_less(at(o, q, i), at(o, p, i))) return 1;
        }
      return 0;
    };
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) { return compare(p, q) < 0; });
    // Groups of equal slices in sorted order: the first member is the lowest index (stable sort).
    struct Group {
      int64_t first = 0, count = 0;
    };
    std::vector<Group> groups;
    std::vector<int64_t> group_of(static_cast<size_t>(n));
    for (size_t s = 0; s < order.size(); ++s) {
      if (s == 0 || compare(order[s - 1], order[s]) != 0) groups.push_back({order[s], 0});
      ++groups.back().count;
      group_of[static_cast<size_t>(order[s])] = static_cast<int64_t>(groups.size()) - 1;
    }
    // Output position of each group.
    std::vector<int64_t> position(groups.size());
    std::iota(position.begin(), position.end(), int64_t{0});
    if (!sorted_) {
      std::vector<size_t> by_first(groups.size());
      std::iota(by_first.begin(), by_first.end(), size_t{0});
      std::sort(by_first.begin(), by_first.end(),
                [&](size_t p, size_t q) { return groups[p].first < groups[q].first; });
      std::vector<Group> reordered;
      for (size_t k = 0; k < by_first.size(); ++k) {
        position[by_first[k]] = static_cast<int64_t>(k);
        reordered.push_back(groups[by_first[k]]);
      }
      groups = std::move(reordered);
    }
    const auto u = static_cast<int64_t>(groups.size());
    Shape y_shape = shape;
    y_shape[a] = u;
    Tensor& y = ctx.output(0, x.dtype(), y_shape);
    T* py = elements<T>(y);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t g = 0; g < u; ++g)
        for (int64_t i = 0; i < inner; ++i)
          py[(o * u + g) * inner + i] = at(o, groups[static_cast<size_t>(g)].first, i);
    if (ctx.num_outputs() > 1) {
      Tensor& t = ctx.output(1, DType::kInt64, {u});
      for (int64_t g = 0; g < u; ++g) t.data<int64_t>()[g] = groups[static_cast<size_t>(g)].first;
    }
    if (ctx.num_outputs() > 2) {
      Tensor& t = ctx.output(2, DType::kInt64, {n});
      for (int64_t j = 0; j < n; ++j)
        t.data<int64_t>()[j] = position[static_cast<size_t>(group_of[static_cast<size_t>(j)])];
    }
    if (ctx.num_outputs() > 3) {
      Tensor& t = ctx.output(3, DType::kInt64, {u});
      for (int64_t g = 0; g < u; ++g) t.data<int64_t>()[g] = groups[static_cast<size_t>(g)].count;
    }
    return Status::ok();
  }

  bool has_axis_ = false;
  int64_t axis_ = 0;
  bool sorted_ = true;
};

}  // namespace

HI_REGISTER_OP(Unique, UniqueOp)

}  // namespace hi::ops
