// Checks shared by ops' inference and kernels: input and output counts, and unidirectional
// broadcasting. A malformed node fails with a message naming what is wrong instead of tripping
// an assertion on an absent input.
#pragma once

#include <cstddef>

#include "ops/op.h"

namespace hi::ops {

// Fails (InvalidModel) unless inputs [0, min_inputs) are present, the node lists at most
// max_inputs inputs and between 1 and max_outputs outputs, and every present input is a tensor.
Status check_arity(const InferContext& ctx, size_t min_inputs, size_t max_inputs, size_t max_outputs);
// The counts alone, for ops whose inputs may be sequences or maps (DictVectorizer, CastMap).
Status check_input_counts(const InferContext& ctx, size_t min_inputs, size_t max_inputs, size_t max_outputs);

// ONNX unidirectional broadcasting: `from` (named what_from) must broadcast to `to` without
// changing it. Unknown dims pass; an unknown rank passes. InvalidModel on failure.
Status check_unidirectional(const ir::ValueType& from, const std::vector<ir::Dim>& to, const char* what_from,
                            const char* what_to);
// The same for concrete shapes at run time (InvalidArgument on failure).
Status check_unidirectional(const Shape& from, const Shape& to, const char* what_from, const char* what_to);

}  // namespace hi::ops
