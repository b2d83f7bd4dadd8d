// Broadcasting and axis helpers shared by ops.
#include "ops/shape_util.h"

#include <algorithm>

namespace hi::ops {

Result<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return error(StatusCode::kInvalidArgument, "shapes ", shape_to_string(a), " and ", shape_to_string(b),
                   " cannot be broadcast (dim ", i, ": ", da, " vs ", db, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Result<std::vector<ir::Dim>> broadcast_dims(const std::vector<ir::Dim>& a, const std::vector<ir::Dim>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<ir::Dim> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const ir::Dim da = i < rank - a.size() ? ir::Dim::known(1) : a[i - (rank - a.size())];
    const ir::Dim db = i < rank - b.size() ? ir::Dim::known(1) : b[i - (rank - b.size())];
    if (da.is_known() && db.is_known()) {
      if (da.value != db.value && da.value != 1 && db.value != 1)
        return error(StatusCode::kInvalidModel, "dims ", da.value, " and ", db.value, " cannot be broadcast");
      out[i] = da.value == 1 ? db : da;
    } else if (da.is_known()) {
      out[i] = da.value == 1 ? db : da;
    } else if (db.is_known()) {
      out[i] = db.value == 1 ? da : db;
    } else {
      out[i] = da == db ? da : ir::Dim{};
    }
  }
  return out;
}

Result<ir::ValueType> broadcast_types(const std::vector<const ir::ValueType*>& inputs, DType dtype) {
  std::vector<ir::Dim> dims;
  bool rank_known = true;
  for (const auto* t : inputs) {
    if (!t) continue;
    if (!t->has_rank()) {
      rank_known = false;
      continue;
    }
    auto r = broadcast_dims(dims, *t->shape);
    if (!r.is_ok()) {
      std::string shapes;
      for (const auto* u : inputs)
        if (u) shapes += (shapes.empty() ? "" : ", ") + u->to_string();
      return error(StatusCode::kInvalidModel, "inputs ", shapes, " cannot be broadcast: ", r.status().message());
    }
    dims = std::move(r).value();
  }
  if (!rank_known) return ir::ValueType::tensor_unknown_shape(dtype);
  return ir::ValueType::tensor(dtype, std::move(dims));
}

Result<int64_t> normalize_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return error(StatusCode::kInvalidModel, "axis ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> strides_of(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

BroadcastIndex::BroadcastIndex(const Shape& out_shape, const Shape& in_shape) : out_shape_(out_shape) {
  same_ = out_shape == in_shape;
  scalar_ = shape_numel(in_shape) == 1;
  const size_t rank = out_shape.size();
  in_strides_.assign(rank, 0);
  const auto in_strides = strides_of(in_shape);
  const size_t off = rank - in_shape.size();
  for (size_t i = 0; i < in_shape.size(); ++i) in_strides_[i + off] = in_shape[i] == 1 ? 0 : in_strides[i];
}

int64_t BroadcastIndex::offset(int64_t linear) const {
  if (same_) return linear;
  if (scalar_) return 0;
  int64_t off = 0;
  for (size_t i = out_shape_.size(); i-- > 0;) {
    const int64_t d = out_shape_[i];
    if (d == 0) return 0;
    off += (linear % d) * in_strides_[i];
    linear /= d;
  }
  return off;
}

Status check_output_shape(const Shape& shape, const std::string& source, StatusCode code) {
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < 0)
      return error(code, source, " gives the output shape ", shape_to_string(shape), ", whose dim ", i, " is negative");
  if (shape_numel(shape) < 0)
    return error(code, source, " gives the output shape ", shape_to_string(shape),
                 ", whose element count overflows int64");
  return Status::ok();
}

Status check_output_dims(const std::vector<ir::Dim>& dims, const std::string& source) {
  Shape shape;
  for (const ir::Dim& d : dims) {
    if (!d.is_known()) return Status::ok();
    shape.push_back(d.value);
  }
  return check_output_shape(shape, source, StatusCode::kInvalidModel);
}

ir::ValueType tensor_of_rank(DType dtype, int64_t rank) {
  if (rank < 0 || rank > kMaxInferredRank) return ir::ValueType::tensor_unknown_shape(dtype);
  return ir::ValueType::tensor(dtype, std::vector<ir::Dim>(static_cast<size_t>(rank)));
}

std::vector<int64_t> int_list(const Tensor& t) { return t.to_int64_vector(); }

std::vector<ir::Dim> known_dims(const Shape& shape) {
  std::vector<ir::Dim> d;
  for (int64_t v : shape) d.push_back(ir::Dim::known(v));
  return d;
}

std::pair<int64_t, int64_t> shape_op_range(int64_t rank, int64_t start, std::optional<int64_t> end) {
  auto clamp = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  const int64_t b = clamp(start);
  const int64_t e = end ? clamp(*end) : rank;
  return {b, std::max(b, e)};
}

}  // namespace hi::ops
