// The CPU as a runtime::Backend: it has a kernel for every op the op list has (its own fast
// implementations, backends/cpu/ops/, where it has them, else the op's reference kernel) and
// compiles a partition into an executor of its own. The session runs what placement leaves on the
// CPU in its main executor; partitions compiled here are the reference a device's runner is tested
// against, and what tests use as a stand-in device.
#pragma once

#include "runtime/backend.h"

namespace hi::cpu {

const runtime::Backend& backend();

}  // namespace hi::cpu
