// The description of a device the passes receive (passes/target.h), from the backend that runs it.
#pragma once

#include <string>

#include "passes/target.h"

namespace hi::runtime {

// What the passes may assume of `device` ("cpu", "gpu", "gpu:1", ...): the CPU's kernels for the
// CPU; none of them for a GPU, whose kernels read NCHW.
passes::Target pass_target(const std::string& device);

}  // namespace hi::runtime
