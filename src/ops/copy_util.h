// Helpers for data-movement ops (Transpose, Concat, Slice, Gather, Pad, ...): they move
// elements without looking at them, so they work on any fixed-size type and on strings.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/op.h"
#include "ops/shape_util.h"

namespace hi::ops {

// A 16-byte element (complex128) moved as a unit.
struct Bytes16 {
  uint64_t lo = 0, hi = 0;
};

// True for types a data-movement op can move: every fixed-size type, and strings.
inline bool is_movable_dtype(DType t) { return t == DType::kString || dtype_size(t) > 0; }

// Inference-time check: the input's dtype can be moved (kUndefined passes: not known yet).
inline Status check_movable(const ir::Node& node, DType t, const char* what = "input") {
  if (t == DType::kUndefined || is_movable_dtype(t)) return Status::ok();
  return error(StatusCode::kUnsupported, node.op_type, " does not support ", what, " type ", dtype_name(t));
}

// Calls f.template operator()<U>() with U a storage type of the element's size (uint8_t,
// uint16_t, uint32_t, uint64_t, Bytes16) or std::string. Returns false for other types.
template <typename F>
bool dispatch_storage(DType dtype, F&& f) {
  if (dtype == DType::kString) {
    f.template operator()<std::string>();
    return true;
  }
  switch (dtype_size(dtype)) {
    case 1: f.template operator()<uint8_t>(); return true;
    case 2: f.template operator()<uint16_t>(); return true;
    case 4: f.template operator()<uint32_t>(); return true;
    case 8: f.template operator()<uint64_t>(); return true;
    case 16: f.template operator()<Bytes16>(); return true;
    default: return false;
  }
}

// A tensor's elements seen as storage type U (see dispatch_storage).
template <typename U>
const U* storage(const Tensor& t) {
  return static_cast<const U*>(t.raw());
}
template <typename U>
U* storage(Tensor& t) {
  return static_cast<U*>(t.raw());
}

// Calls fn(out_linear, in_offset) for every element of an output of shape `out_shape`, in
// row-major order, where the element at multi-index (i0, .., ik) reads the input at
// base + sum(i_d * in_strides[d]). Strides may be zero (broadcast) or negative (reversed).
template <typename Fn>
void for_each_strided(const Shape& out_shape, const std::vector<int64_t>& in_strides, int64_t base, Fn&& fn) {
  const int64_t n = shape_numel(out_shape);
  if (n <= 0) return;
  const size_t rank = out_shape.size();
  std::vector<int64_t> idx(rank, 0);
  int64_t off = base;
  for (int64_t o = 0; o < n; ++o) {
    fn(o, off);
    // Advance the multi-index like an odometer, keeping the input offset in step.
    for (size_t d = rank; d-- > 0;) {
      off += in_strides[d];
      if (++idx[d] < out_shape[d]) break;
      off -= in_strides[d] * out_shape[d];
      idx[d] = 0;
    }
  }
}

// The same strided walk over fewer dims: output dims of size 1 dropped, and neighbours the input
// holds contiguously (stride of the first = stride of the second * its size) merged into one.
inline void merge_dims(Shape* shape, std::vector<int64_t>* strides) {
  Shape s;
  std::vector<int64_t> st;
  for (size_t d = 0; d < shape->size(); ++d) {
    if ((*shape)[d] == 1) continue;
    if (!s.empty() && st.back() == (*strides)[d] * (*shape)[d]) {
      s.back() *= (*shape)[d];
      st.back() = (*strides)[d];
      continue;
    }
    s.push_back((*shape)[d]);
    st.push_back((*strides)[d]);
  }
  *shape = std::move(s);
  *strides = std::move(st);
}

// dst (dense, out_shape) = src read with in_strides from base, as for_each_strided walks it, but
// whole contiguous rows at a time where the innermost (merged) dim has stride 1.
template <typename U>
void copy_strided(const U* src, U* dst, Shape out_shape, std::vector<int64_t> in_strides, int64_t base) {
  if (shape_numel(out_shape) <= 0) return;
  merge_dims(&out_shape, &in_strides);
  if (out_shape.empty() || in_strides.back() != 1) {
    for_each_strided(out_shape, in_strides, base, [&](int64_t o, int64_t i) { dst[o] = src[i]; });
    return;
  }
  const int64_t inner = out_shape.back();
  out_shape.pop_back();
  in_strides.pop_back();
  for_each_strided(out_shape, in_strides, base,
                   [&](int64_t row, int64_t at) { std::copy(src + at, src + at + inner, dst + row * inner); });
}

// Product of dims [begin, end) of a concrete shape.
inline int64_t dims_product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < s.size(); ++i) p *= s[i];
  return p;
}

// Reads an axes-like list from a constant integer tensor; error when the tensor is not integer.
inline Result<std::vector<int64_t>> int_list_checked(const Tensor& t, const char* what) {
  if (!dtype_is_integer(t.dtype()))
    return error(StatusCode::kInvalidArgument, what, " must be an integer tensor, got ", t.type_string());
  return t.to_int64_vector();
}

// Inference-time check that an input holding a list of integers (axes, shape, pads, ...) is
// an integer tensor of rank <= 1.
inline Status check_int_list_type(const ir::ValueType& t, const char* what) {
  if (t.dtype != DType::kUndefined && !dtype_is_integer(t.dtype))
    return error(StatusCode::kInvalidModel, what, " must be int64 (or int32), got ", t.to_string());
  if (t.has_rank() && t.rank() > 1)
    return error(StatusCode::kInvalidModel, what, " must be a 1-D tensor, got ", t.to_string());
  return Status::ok();
}

// Normalises every axis against `rank` and rejects repeats; `what` names the list in errors.
inline Result<std::vector<int64_t>> normalize_axes(const std::vector<int64_t>& axes, int64_t rank, const char* what) {
  std::vector<int64_t> out;
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      return error(StatusCode::kInvalidModel, what, " ", shape_to_string(axes), ": axis ", a,
                   " is out of range for rank ", rank, " (expected [", -rank, ", ", rank - 1, "])");
    const int64_t n = a < 0 ? a + rank : a;
    if (seen[static_cast<size_t>(n)])
      return error(StatusCode::kInvalidModel, what, " ", shape_to_string(axes), " names axis ", n, " more than once");
    seen[static_cast<size_t>(n)] = true;
    out.push_back(n);
  }
  return out;
}

}  // namespace hi::ops
