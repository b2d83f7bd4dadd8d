// Slice: a strided window of a tensor (any element type). starts/ends/axes are attributes in
// opset 1-9 and inputs (with steps) from opset 10. Indices clamp to the dim as the spec says, so
// ends like INT64_MAX mean "to the end"; negative steps walk backwards.
#include <limits>

#include "ops/arity.h"
#include "ops/copy_util.h"

namespace hi::ops {
namespace {

// One axis's window: `count` elements from `start`, `step` apart.
struct AxisWindow {
  int64_t start = 0;
  int64_t step = 1;
  int64_t count = 0;
};

// The spec's clamping rules for one axis of size dim.
AxisWindow window_of(int64_t dim, int64_t start, int64_t end, int64_t step) {
  AxisWindow w;
  w.step = step;
  if (dim == 0) return w;
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    if (end > start)
      w.count = static_cast<int64_t>(static_cast<uint64_t>(end - start - 1) / static_cast<uint64_t>(step) + 1);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    const uint64_t mag = uint64_t{0} - static_cast<uint64_t>(step);  // |step| without overflow
    if (start > end) w.count = static_cast<int64_t>(static_cast<uint64_t>(start - end - 1) / mag + 1);
  }
  w.start = start;
  return w;
}

// Slice parameters, whichever way the node gave them. axes and steps may be empty (defaults).
struct SliceParams {
  std::vector<int64_t> starts, ends, axes, steps;
  bool has_axes = false, has_steps = false;
};

class SliceOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    if (opset_ < 10) {
      if (!ctx.has("starts") || !ctx.has("ends"))
        return ctx.fail(StatusCode::kInvalidModel, "attributes 'starts' and 'ends' are required before opset 10");
      attrs_.starts = ctx.get_ints("starts");
      attrs_.ends = ctx.get_ints("ends");
      attrs_.has_axes = ctx.has("axes");
      attrs_.axes = ctx.get_ints("axes");
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, opset_ >= 10 ? 3 : 1, opset_ >= 10 ? 5 : 1));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    SliceParams p = attrs_;
    bool params_known = true;
    if (opset_ >= 10) {
      if (!ctx.has_input(1) || !ctx.has_input(2))
        return error(StatusCode::kInvalidModel, "inputs 'starts' and 'ends' are required");
      const char* names[] = {"", "starts", "ends", "axes", "steps"};
      for (size_t i = 1; i <= 4; ++i) {
        if (!ctx.has_input(i)) continue;
        HI_RETURN_IF_ERROR(check_int_list_type(ctx.input_type(i), names[i]));
        const Tensor* v = ctx.input_value(i);
        if (!v) {
          params_known = false;
          continue;
        }
        HI_ASSIGN_OR_RETURN(auto list, int_list_checked(*v, names[i]));
        if (i == 1) p.starts = std::move(list);
        if (i == 2) p.ends = std::move(list);
        if (i == 3) p.axes = std::move(list), p.has_axes = true;
        if (i == 4) p.steps = std::move(list), p.has_steps = true;
      }
    }
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    std::vector<ir::Dim> dims = *x.shape;
    if (!params_known) {  // the rank is kept; which dims change is not known
      ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::vector<ir::Dim>(dims.size())));
      return Status::ok();
    }
    HI_ASSIGN_OR_RETURN(auto axes, resolve(p, x.rank()));
    for (size_t k = 0; k < axes.size(); ++k) {
      ir::Dim& d = dims[static_cast<size_t>(axes[k])];
      if (d.is_known()) d = ir::Dim::known(window_of(d.value, p.starts[k], p.ends[k], step_at(p, k)).count);
      else d = ir::Dim{};
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(dims)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    SliceParams p = attrs_;
    if (opset_ >= 10) {
      HI_ASSIGN_OR_RETURN(p.starts, int_list_checked(ctx.in(1), "starts"));
      HI_ASSIGN_OR_RETURN(p.ends, int_list_checked(ctx.in(2), "ends"));
      if (const Tensor* a = ctx.input(3)) {
        HI_ASSIGN_OR_RETURN(p.axes, int_list_checked(*a, "axes"));
        p.has_axes = true;
      }
      if (const Tensor* s = ctx.input(4)) {
        HI_ASSIGN_OR_RETURN(p.steps, int_list_checked(*s, "steps"));
        p.has_steps = true;
      }
    }
    HI_ASSIGN_OR_RETURN(auto axes, resolve(p, x.rank()));
    std::vector<AxisWindow> win(static_cast<size_t>(x.rank()));
    for (int64_t d = 0; d < x.rank(); ++d) win[static_cast<size_t>(d)] = {0, 1, x.dim(d)};
    for (size_t k = 0; k < axes.size(); ++k)
      win[static_cast<size_t>(axes[k])] = window_of(x.dim(axes[k]), p.starts[k], p.ends[k], step_at(p, k));
    const auto in_strides = strides_of(x.shape());
    Shape out_shape;
    std::vector<int64_t> strides;
    int64_t base = 0;
    for (size_t d = 0; d < win.size(); ++d) {
      out_shape.push_back(win[d].count);
      // With one element the step is never taken (and a huge step must not overflow).
      strides.push_back(win[d].count > 1 ? win[d].step * in_strides[d] : 0);
      if (win[d].count > 0) base += win[d].start * in_strides[d];
    }
    Tensor& out = ctx.output(0, x.dtype(), out_shape);
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* src = storage<U>(x);
          U* dst = storage<U>(out);
          copy_strided(src, dst, out_shape, strides, base);
        }))
      return check_movable(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  static int64_t step_at(const SliceParams& p, size_t k) { return p.has_steps ? p.steps[k] : 1; }

  // Checks the lists agree in length, and returns the normalised axes.
  static Result<std::vector<int64_t>> resolve(const SliceParams& p, int64_t rank) {
    const size_t n = p.starts.size();
    if (p.ends.size() != n)
      return error(StatusCode::kInvalidModel, "starts ", shape_to_string(p.starts), " and ends ",
                   shape_to_string(p.ends), " differ in length");
    if (p.has_axes && p.axes.size() != n)
      return error(StatusCode::kInvalidModel, "axes ", shape_to_string(p.axes), " has ", p.axes.size(),
                   " entries but starts has ", n);
    if (p.has_steps && p.steps.size() != n)
      return error(StatusCode::kInvalidModel, "steps ", shape_to_string(p.steps), " has ", p.steps.size(),
                   " entries but starts has ", n);
    for (int64_t s : p.steps)
      if (s == 0) return error(StatusCode::kInvalidModel, "steps ", shape_to_string(p.steps), " contains 0");
    std::vector<int64_t> axes = p.axes;
    if (!p.has_axes) {
      if (static_cast<int64_t>(n) > rank)
        return error(StatusCode::kInvalidModel, "starts has ", n, " entries but the input has rank ", rank);
      for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(i));
    }
    return normalize_axes(axes, rank, "axes");
  }

  int64_t opset_ = 13;
  SliceParams attrs_;
};

}  // namespace

HI_REGISTER_OP(Slice, SliceOp)

}  // namespace hi::ops
