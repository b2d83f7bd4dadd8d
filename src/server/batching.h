// Dynamic batching's tensor work: requests' inputs joined along the batch dimension (dim 0) and a
// batched run's outputs cut back into one piece per request.
#pragma once

#include <string>
#include <vector>

#include "hipinfer/session.h"

namespace hi::server {

// Whether two requests can share a run: the same input names, types and shapes past dim 0, and the
// same requested outputs.
bool batch_compatible(const TensorMap& a, const TensorMap& b);
// The batch size (dim 0) of a request's inputs; -1 when an input is a scalar.
int64_t batch_size_of(const TensorMap& inputs);

// Joins the inputs of several requests along dim 0, in order.
TensorMap concat_batch(const std::vector<const TensorMap*>& requests);
// Cuts each output along dim 0 into pieces of the given sizes (which must sum to its dim 0;
// otherwise an error naming the output, expected and actual size).
Result<std::vector<TensorMap>> split_batch(const TensorMap& outputs, const std::vector<int64_t>& sizes);

}  // namespace hi::server
