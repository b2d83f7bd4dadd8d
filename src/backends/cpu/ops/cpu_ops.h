// The CPU backend's own implementations of ops: each derives from the op's class in src/ops, so
// attributes are parsed and shapes inferred by the op itself, and overrides run() with the fast
// kernels (oneDNN, AVX-512, int8, bfloat16), handing the cases they do not cover to the
// reference. One file per op under src/backends/cpu/ops/; the list is backends/cpu/ops/cpu_op_list.def.
#pragma once

#include <memory>
#include <string>

#include "ops/op.h"

namespace hi::cpu {

// The CPU's implementation of the op, or null when the reference op is the CPU's.
std::unique_ptr<ops::Op> make_cpu_op(const std::string& domain, const std::string& op_type);

}  // namespace hi::cpu

// In a CPU op's file: HI_REGISTER_CPU_OP(Softmax, CpuSoftmax) defines the factory the list names.
#define HI_REGISTER_CPU_OP(name, ...) \
  std::unique_ptr<::hi::ops::Op> make_cpu_op_##name() { return std::make_unique<__VA_ARGS__>(); }
