// merge_types (ops/sequence_util.h).
#include "ops/sequence_util.h"

namespace hi::ops {

Result<ir::ValueType> merge_types(const ir::ValueType& a, const ir::ValueType& b) {
  if (a.kind == ir::ValueKind::kUnknown) return b;
  if (b.kind == ir::ValueKind::kUnknown) return a;
  // A present optional is its element at run time: optional<T> covers T (a Loop may carry an
  // optional that its body replaces by a sequence).
  if (a.kind == ir::ValueKind::kOptional && b.kind != ir::ValueKind::kOptional) return merge_types(a, optional_of(b));
  if (b.kind == ir::ValueKind::kOptional && a.kind != ir::ValueKind::kOptional) return merge_types(optional_of(a), b);
  if (a.kind != b.kind)
    return error(StatusCode::kInvalidModel, "types ", a.to_string(), " and ", b.to_string(), " are of different kinds");
  if (a.kind != ir::ValueKind::kTensor) {
    ir::ValueType t = a;
    if (!a.elem) t.elem = b.elem;
    else if (b.elem) {
      HI_ASSIGN_OR_RETURN(auto e, merge_types(*a.elem, *b.elem));
      t.elem = std::make_shared<ir::ValueType>(std::move(e));
    }
    return t;
  }
  if (a.dtype != DType::kUndefined && b.dtype != DType::kUndefined && a.dtype != b.dtype)
    return error(StatusCode::kInvalidModel, "types ", a.to_string(), " and ", b.to_string(),
                 " have different element types");
  const DType dtype = a.dtype != DType::kUndefined ? a.dtype : b.dtype;
  if (!a.has_rank() || !b.has_rank() || a.rank() != b.rank()) return ir::ValueType::tensor_unknown_shape(dtype);
  std::vector<ir::Dim> dims = *a.shape;
  for (size_t d = 0; d < dims.size(); ++d)
    if (!(dims[d] == (*b.shape)[d])) dims[d] = ir::Dim{};
  return ir::ValueType::tensor(dtype, std::move(dims));
}

}  // namespace hi::ops
