// Pad: pads (or, with negative pads, crops) each axis; modes constant, reflect, edge and wrap.
// Pads and the constant are attributes before opset 11 ('paddings' in opset 1, 'pads' from 2,
// and 'value'), inputs from 11; the 'axes' input (opset 18) limits the pads to some axes.
// Negative pads crop first; the other modes then pad the cropped axis.
#include "core/memory_budget.h"
#include "ops/arity.h"
#include "ops/convert.h"
#include "ops/copy_util.h"

namespace hi::ops {
namespace {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// The size of one axis of n elements after `begin` and `end` pads (either may be negative), checked:
// crops within the axis, a padded empty axis only in constant mode, and no size past 2^62 (pads
// from a hostile file would otherwise overflow the arithmetic).
Result<int64_t> padded_size(int64_t n, int64_t begin, int64_t end, PadMode mode, int64_t axis) {
  constexpr int64_t kLimit = int64_t{1} << 62;
  if (begin <= -kLimit || end <= -kLimit || begin >= kLimit || end >= kLimit)
    return error(StatusCode::kInvalidArgument, "pads ", begin, ", ", end, " of axis ", axis,
                 " are out of range (|pad| < 2^62)");
  const int64_t crop_b = std::max<int64_t>(0, -begin), crop_e = std::max<int64_t>(0, -end);
  const int64_t m = n - crop_b - crop_e;  // size after cropping
  if (m < 0)
    return error(StatusCode::kInvalidArgument, "pads ", begin, ", ", end, " crop more than the ", n,
                 " elements of axis ", axis);
  const int64_t pb = std::max<int64_t>(0, begin), pe = std::max<int64_t>(0, end);
  if (m == 0 && (pb > 0 || pe > 0) && mode != PadMode::kConstant)
    return error(StatusCode::kInvalidArgument, "cannot pad axis ", axis, " in this mode: it is empty after cropping");
  if (m + pb > kLimit - pe)
    return error(StatusCode::kInvalidArgument, "pads ", begin, ", ", end, " make axis ", axis, " of ", n,
                 " elements larger than 2^62");
  return m + pb + pe;
}

// Output index -> input index along one axis (-1: the constant), for an axis of size n with
// `begin` and `end` pads; padded_size() has checked them.
std::vector<int64_t> axis_map(int64_t n, int64_t begin, int64_t end, PadMode mode) {
  const int64_t crop_b = std::max<int64_t>(0, -begin), crop_e = std::max<int64_t>(0, -end);
  const int64_t m = n - crop_b - crop_e;
  const int64_t pb = std::max<int64_t>(0, begin), pe = std::max<int64_t>(0, end);
  std::vector<int64_t> map(static_cast<size_t>(m + pb + pe));
  for (int64_t o = 0; o < m + pb + pe; ++o) {
    int64_t j = o - pb;  // index into the cropped axis
    if (j < 0 || j >= m) {
      switch (mode) {
        case PadMode::kConstant: j = -1; break;
        case PadMode::kEdge: j = std::clamp<int64_t>(j, 0, m - 1); break;
        case PadMode::kWrap: j = ((j % m) + m) % m; break;
        case PadMode::kReflect:
          if (m == 1) {
            j = 0;
          } else {  // reflect about the end elements, without repeating them: period 2(m-1)
            const int64_t period = 2 * (m - 1);
            j = ((j % period) + period) % period;
            if (j >= m) j = period - j;
          }
          break;
      }
    }
    map[static_cast<size_t>(o)] = j < 0 ? -1 : j + crop_b;
  }
  return map;
}

class PadOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    const std::string mode = ctx.get_string("mode", "constant");
    if (mode == "constant") mode_ = PadMode::kConstant;
    else if (mode == "reflect") mode_ = PadMode::kReflect;
    else if (mode == "edge") mode_ = PadMode::kEdge;
    else if (mode == "wrap") mode_ = PadMode::kWrap;
    else return ctx.fail(StatusCode::kInvalidModel, "mode '", mode, "' is not one of constant, reflect, edge, wrap");
    if (opset_ < 11) {
      const char* name = ctx.has("pads") ? "pads" : "paddings";
      if (!ctx.has(name)) return ctx.fail(StatusCode::kInvalidModel, "required attribute 'pads' is missing");
      pads_attr_ = ctx.get_ints(name);
      value_attr_ = ctx.get_float("value", 0.f);
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, opset_ >= 11 ? 2 : 1, opset_ >= 18 ? 4 : opset_ >= 11 ? 3 : 1));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    std::optional<std::vector<int64_t>> pads, axes;
    if (opset_ < 11) {
      pads = pads_attr_;
    } else {
      if (!ctx.has_input(1)) return error(StatusCode::kInvalidModel, "input 'pads' is required from opset 11");
      HI_RETURN_IF_ERROR(check_int_list_type(ctx.input_type(1), "pads"));
      if (const Tensor* v = ctx.input_value(1)) {
        HI_ASSIGN_OR_RETURN(auto p, int_list_checked(*v, "pads"));
        pads = std::move(p);
      }
      if (ctx.has_input(2)) {
        const ir::ValueType& c = ctx.input_type(2);
        if (c.dtype != DType::kUndefined && x.dtype != DType::kUndefined && c.dtype != x.dtype)
          return error(StatusCode::kInvalidModel, "constant_value is ", c.to_string(), " but the input is ",
                       x.to_string());
      }
      if (ctx.has_input(3)) {
        HI_RETURN_IF_ERROR(check_int_list_type(ctx.input_type(3), "axes"));
        if (const Tensor* v = ctx.input_value(3)) {
          HI_ASSIGN_OR_RETURN(auto a, int_list_checked(*v, "axes"));
          axes = std::move(a);
        } else {
          pads.reset();  // which axes the pads apply to is not known
        }
      }
    }
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    std::vector<ir::Dim> dims = *x.shape;
    if (!pads) {
      ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::vector<ir::Dim>(dims.size())));
      return Status::ok();
    }
    HI_ASSIGN_OR_RETURN(auto full, full_pads(*pads, axes, x.rank()));
    for (int64_t d = 0; d < x.rank(); ++d) {
      ir::Dim& dim = dims[static_cast<size_t>(d)];
      const int64_t b = full[static_cast<size_t>(d)], e = full[static_cast<size_t>(d + x.rank())];
      if (!dim.is_known()) {
        if (b != 0 || e != 0) dim = ir::Dim{};
        continue;
      }
      HI_ASSIGN_OR_RETURN(const int64_t size, padded_size(dim.value, b, e, mode_, d));
      dim = ir::Dim::known(size);
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(dims)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    std::vector<int64_t> pads = pads_attr_;
    std::optional<std::vector<int64_t>> axes;
    Tensor fill = Tensor::zeros(x.dtype(), {});  // the constant, as one element of x's type
    if (opset_ < 11) {
      if (x.dtype() != DType::kString &&
          !dispatch<kAllTypes>(x.dtype(), [&]<typename T>() { *fill.data<T>() = convert_value<T>(value_attr_); }))
        return check_movable(ctx.node(), x.dtype());
    } else {
      HI_ASSIGN_OR_RETURN(pads, int_list_checked(ctx.in(1), "pads"));
      if (const Tensor* c = ctx.input(2); c && c->numel() > 0) {
        if (c->dtype() != x.dtype())
          return error(StatusCode::kInvalidArgument, "constant_value is ", c->type_string(), " but the input is ",
                       x.type_string());
        if (c->numel() != 1)
          return error(StatusCode::kInvalidArgument, "constant_value must be a scalar, got ", c->type_string());
        fill = c->reshaped({});
      }
      if (const Tensor* a = ctx.input(3)) {
        HI_ASSIGN_OR_RETURN(auto v, int_list_checked(*a, "axes"));
        axes = std::move(v);
      }
    }
    HI_ASSIGN_OR_RETURN(auto full, full_pads(pads, axes, x.rank()));
    const size_t rank = static_cast<size_t>(x.rank());
    Shape out_shape(rank);
    for (size_t d = 0; d < rank; ++d) {
      HI_ASSIGN_OR_RETURN(out_shape[d],
                          padded_size(x.shape()[d], full[d], full[d + rank], mode_, static_cast<int64_t>(d)));
    }
    // The output first: its allocation checks the element count and the memory limit, and no
    // axis map is longer than an output with elements.
    Tensor& out = ctx.output(0, x.dtype(), out_shape);
    if (out.numel() == 0) return Status::ok();
    int64_t map_bytes = 0;  // one index per output position along each axis
    for (int64_t d : out_shape) map_bytes += d * static_cast<int64_t>(sizeof(int64_t));
    const ScratchBytes held(map_bytes);
    std::vector<std::vector<int64_t>> maps(rank);
    for (size_t d = 0; d < rank; ++d) maps[d] = axis_map(x.shape()[d], full[d], full[d + rank], mode_);
    const auto in_strides = strides_of(x.shape());
    const int64_t n = out.numel();
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* src = storage<U>(x);
          const U& value = storage<U>(fill)[0];
          U* dst = storage<U>(out);
          for (int64_t o = 0; o < n; ++o) {
            // Split o into per-axis output indices (last axis fastest) and look each one up.
            int64_t rest = o, offset = 0;
            bool inside = true;
            for (size_t d = rank; d-- > 0;) {
              const int64_t i = maps[d][static_cast<size_t>(rest % out_shape[d])];
              rest /= out_shape[d];
              if (i < 0) inside = false;
              else offset += i * in_strides[d];
            }
            dst[o] = inside ? src[offset] : value;
          }
        }))
      return check_movable(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  // Pads for every axis, [begin_0..begin_r-1, end_0..end_r-1], from pads over `axes`.
  static Result<std::vector<int64_t>> full_pads(const std::vector<int64_t>& pads,
                                                const std::optional<std::vector<int64_t>>& axes, int64_t rank) {
    std::vector<int64_t> ax;
    if (axes) {
      HI_ASSIGN_OR_RETURN(ax, normalize_axes(*axes, rank, "axes"));
    } else {
      for (int64_t i = 0; i < rank; ++i) ax.push_back(i);
    }
    const size_t k = ax.size();
    if (pads.size() != 2 * k)
      return error(StatusCode::kInvalidModel, "pads ", shape_to_string(pads), " has ", pads.size(),
                   " entries; expected ", 2 * k, " (begin and end for each of ", k, " axes)");
    std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
    for (size_t i = 0; i < k; ++i) {
      full[static_cast<size_t>(ax[i])] = pads[i];
      full[static_cast<size_t>(ax[i] + rank)] = pads[i + k];
    }
    return full;
  }

  int64_t opset_ = 18;
  PadMode mode_ = PadMode::kConstant;
  std::vector<int64_t> pads_attr_;
  float value_attr_ = 0.f;
};

}  // namespace

HI_REGISTER_OP(Pad, PadOp)

}  // namespace hi::ops
