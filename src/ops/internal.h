// hipinfer's own ops (domain com.hipinfer): made by the graph passes (src/passes/), never
// expected in a model file, though a model may use them.
#pragma once

#include <set>
#include <string>

namespace hi::ops {

inline constexpr const char* kInternalDomain = "com.hipinfer";

// Op::kernel_name of an op that keeps its fast kernels by shape (a map to pointers with
// describe()): each implementation named once, comma-separated.
template <typename KernelMap>
std::string describe_kernels(const KernelMap& kernels) {
  std::set<std::string> names;
  for (const auto& entry : kernels)
    if (entry.second) names.insert(entry.second->describe());
  std::string joined;
  for (const std::string& n : names) joined += (joined.empty() ? "" : ", ") + n;
  return joined;
}

}  // namespace hi::ops
