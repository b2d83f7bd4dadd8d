// Helpers shared by the sequence and optional ops (SequenceAt, SequenceInsert, Optional, ...)
// and by the control-flow ops whose values may be sequences or optionals.
//
// At run time a sequence is a Value of kind kSequence; an optional is its element when present
// (a kTensor or kSequence Value) and a kNone Value when empty. Statically both are ir::ValueType
// with kind kSequence / kOptional and the element type in `elem`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ops/op.h"

namespace hi::ops {

inline ir::ValueType sequence_of(ir::ValueType elem) {
  ir::ValueType t;
  t.kind = ir::ValueKind::kSequence;
  t.elem = std::make_shared<ir::ValueType>(std::move(elem));
  return t;
}

inline ir::ValueType optional_of(ir::ValueType elem) {
  ir::ValueType t;
  t.kind = ir::ValueKind::kOptional;
  t.elem = std::make_shared<ir::ValueType>(std::move(elem));
  return t;
}

// The element type of a sequence type; an unknown tensor when the type does not say.
inline ir::ValueType sequence_elem_type(const ir::ValueType& seq) {
  if (seq.kind == ir::ValueKind::kSequence && seq.elem) return *seq.elem;
  return ir::ValueType::tensor_unknown_shape(DType::kUndefined);
}

// Inference-time check that input `i` may be a sequence (a sequence, or a value whose type is
// unknown); names the op, its input and the type found otherwise.
inline Status check_sequence_type(const InferContext& ctx, size_t i, const char* what) {
  const ir::ValueType& t = ctx.input_type(i);
  if (t.kind == ir::ValueKind::kSequence || t.kind == ir::ValueKind::kUnknown) return Status::ok();
  return error(StatusCode::kInvalidModel, ctx.node().op_type, " input ", i, " (", what, ") must be a sequence, got ",
               t.to_string());
}

// Inference-time check that input `i` may be a tensor (a tensor, or unknown).
inline Status check_tensor_type(const InferContext& ctx, size_t i, const char* what) {
  const ir::ValueType& t = ctx.input_type(i);
  if (t.kind == ir::ValueKind::kTensor || t.kind == ir::ValueKind::kUnknown) return Status::ok();
  return error(StatusCode::kInvalidModel, ctx.node().op_type, " input ", i, " (", what, ") must be a tensor, got ",
               t.to_string());
}

// The sequence held by input `i` at run time, or an error naming what was found instead.
inline Result<const std::vector<Tensor>*> sequence_input(const RunContext& ctx, size_t i, const char* what) {
  const Value* v = ctx.input_value(i);
  if (!v || v->kind != Value::Kind::kSequence)
    return error(StatusCode::kInvalidArgument, "input ", i, " (", what, ") must be a sequence, got ",
                 !v || v->kind == Value::Kind::kNone ? "nothing" : v->tensor.type_string());
  return &v->sequence;
}

// A position input (SequenceAt, SequenceInsert, SequenceErase): an int32 or int64 scalar, which
// may be negative (counted from the back). Valid positions are [-size, size - 1], or up to size
// itself when `allow_end` (inserting at the back).
inline Result<int64_t> sequence_position(const Tensor& pos, size_t size, bool allow_end) {
  if (pos.dtype() != DType::kInt32 && pos.dtype() != DType::kInt64)
    return error(StatusCode::kInvalidArgument, "position must be an int32 or int64 scalar, got ", pos.type_string());
  if (pos.numel() != 1 || pos.rank() > 1)
    return error(StatusCode::kInvalidArgument, "position must be a scalar, got ", pos.type_string());
  const int64_t n = static_cast<int64_t>(size);
  const int64_t p = pos.as_int64(0);
  const int64_t hi = allow_end ? n : n - 1;
  if (p < -n || p > hi)
    return error(StatusCode::kInvalidArgument, "position ", p, " is out of range for a sequence of ", n,
                 " tensors (expected [", -n, ", ", hi, "])");
  return p < 0 ? p + n : p;
}

// Inference-time check of a position input's type: int32 or int64, a scalar.
inline Status check_position_type(const ir::ValueType& t) {
  if (t.dtype != DType::kUndefined && t.dtype != DType::kInt32 && t.dtype != DType::kInt64)
    return error(StatusCode::kInvalidModel, "position must be int32 or int64, got ", t.to_string());
  if (t.has_rank() && t.rank() > 1)
    return error(StatusCode::kInvalidModel, "position must be a scalar, got ", t.to_string());
  return Status::ok();
}

// The type that covers both `a` and `b` (If branches, a Loop's initial and carried values, the
// elements of a sequence): dims that differ become unknown, ranks that differ an unknown rank.
// Different kinds or element types are an error naming both types.
Result<ir::ValueType> merge_types(const ir::ValueType& a, const ir::ValueType& b);

}  // namespace hi::ops
