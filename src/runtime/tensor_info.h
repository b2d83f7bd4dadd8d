// The public description of a graph input or output (TensorInfo) from its IR type.
#pragma once

#include "hipinfer/session.h"
#include "ir/graph.h"

namespace hi::runtime {

TensorInfo tensor_info(const ir::ValueInfo& value);

}  // namespace hi::runtime
