// Control-flow helpers (ops/control_flow_util.h).
#include "ops/control_flow_util.h"

#include <algorithm>
#include <cstring>

#include "ops/copy_util.h"

namespace hi::ops {

const ir::Graph* require_graph(InitContext& ctx, const char* attr) {
  const ir::Graph* g = ctx.get_graph(attr);
  if (!g && ctx.status().is_ok())
    (void)ctx.fail(StatusCode::kInvalidModel, "required graph attribute '", attr, "' is missing");
  return g;
}

const ir::Graph& subgraph_signature(const InferContext& ctx, const char* attr) {
  const ir::Attribute* a = ctx.node().attr(attr);
  HI_ASSERT(a && a->g, ctx.node().describe(), ": graph attribute '", attr, "' checked by init() is gone");
  return *a->g;
}

Result<bool> read_condition(const Value* v, const std::string& what) {
  if (!v || !v->is_tensor())
    return error(StatusCode::kInvalidArgument, what, " must be a bool tensor of one element, got ",
                 !v || v->kind == Value::Kind::kNone ? "nothing" : "a sequence");
  const Tensor& t = v->tensor;
  if (t.dtype() != DType::kBool || t.numel() != 1)
    return error(StatusCode::kInvalidArgument, what, " must be a bool tensor of one element, got ", t.type_string());
  return *t.data<bool>();
}

Status check_condition_type(const ir::ValueType& t, const std::string& what) {
  if (t.kind != ir::ValueKind::kTensor && t.kind != ir::ValueKind::kUnknown)
    return error(StatusCode::kInvalidModel, what, " must be a bool tensor, got ", t.to_string());
  if (t.dtype != DType::kUndefined && t.dtype != DType::kBool)
    return error(StatusCode::kInvalidModel, what, " must be bool, got ", t.to_string());
  if (t.is_static() && shape_numel(t.concrete_shape()) != 1)
    return error(StatusCode::kInvalidModel, what, " must hold one element, got ", t.to_string());
  return Status::ok();
}

Tensor slice_along(const Tensor& t, int64_t axis, int64_t index) {
  const auto a = static_cast<size_t>(axis);
  Shape shape = t.shape();
  const int64_t len = shape[a];
  shape.erase(shape.begin() + axis);
  Tensor out = Tensor::empty(t.dtype(), shape);
  const int64_t outer = dims_product(t.shape(), 0, a);
  const int64_t inner = dims_product(t.shape(), a + 1, t.shape().size());
  const bool ok = dispatch_storage(t.dtype(), [&]<typename U>() {
    const U* src = storage<U>(t);
    U* dst = storage<U>(out);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j) dst[o * inner + j] = src[(o * len + index) * inner + j];
  });
  HI_ASSERT(ok, "slice_along: element type ", dtype_name(t.dtype()), " cannot be moved");
  return out;
}

Tensor stack_along(const std::vector<Tensor>& items, int64_t axis, bool reverse) {
  HI_ASSERT(!items.empty(), "stack_along needs at least one tensor");
  const Tensor& first = items.front();
  const auto a = static_cast<size_t>(axis);
  const int64_t count = static_cast<int64_t>(items.size());
  Shape shape = first.shape();
  shape.insert(shape.begin() + axis, count);
  Tensor out = Tensor::empty(first.dtype(), shape);
  // Item k's block of `inner` elements goes to row (o, k) of the result.
  const int64_t outer = dims_product(first.shape(), 0, a);
  const int64_t inner = dims_product(first.shape(), a, first.shape().size());
  const bool ok = dispatch_storage(first.dtype(), [&]<typename U>() {
    U* dst = storage<U>(out);
    for (int64_t k = 0; k < count; ++k) {
      const U* src = storage<U>(items[static_cast<size_t>(reverse ? count - 1 - k : k)]);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j) dst[(o * count + k) * inner + j] = src[o * inner + j];
    }
  });
  HI_ASSERT(ok, "stack_along: element type ", dtype_name(first.dtype()), " cannot be moved");
  return out;
}

Status ScanOutput::add(const Value& v, int64_t iteration) {
  if (!v.is_tensor())
    return error(StatusCode::kInvalidArgument, "scan output '", name_, "' must be a tensor, got ",
                 v.kind == Value::Kind::kNone ? "an empty optional" : "a sequence", " at iteration ", iteration);
  const Tensor& t = v.tensor;
  if (!is_movable_dtype(t.dtype()))
    return error(StatusCode::kUnsupported, "scan output '", name_, "' has element type ", dtype_name(t.dtype()),
                 ", which cannot be stacked");
  if (!items_.empty() && (t.dtype() != items_.front().dtype() || t.shape() != items_.front().shape()))
    return error(StatusCode::kInvalidArgument, "scan output '", name_, "' is ", t.type_string(), " at iteration ",
                 iteration, " but was ", items_.front().type_string(),
                 " at iteration 0; every iteration must produce the same shape");
  reserved_.grow(static_cast<int64_t>(t.nbytes() + sizeof(Tensor) + t.shape().size() * sizeof(int64_t)));
  items_.push_back(t);
  return Status::ok();
}

Result<Tensor> ScanOutput::stack(int64_t axis, bool reverse, const ir::ValueType& type) {
  reserved_.release();
  if (!items_.empty()) return stack_along(items_, axis, reverse);
  // No iteration ran: the body output's static type gives the element type and the other dims
  // (dims it does not know are 0: the result is empty either way).
  if (type.kind != ir::ValueKind::kTensor || type.dtype == DType::kUndefined)
    return error(StatusCode::kUnsupported, "scan output '", name_, "' has no iterations and its type (",
                 type.to_string(), ") does not give an element type");
  Shape shape;
  if (type.has_rank())
    for (const auto& d : *type.shape) shape.push_back(d.is_known() ? d.value : 0);
  shape.insert(shape.begin() + std::min<int64_t>(axis, static_cast<int64_t>(shape.size())), 0);
  return Tensor::empty(type.dtype, shape);
}

}  // namespace hi::ops
