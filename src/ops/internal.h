// hipinfer's own ops (domain com.hipinfer): made by the graph passes (src/passes/), never
// expected in a model file, though a model may use them.
#pragma once

namespace hi::ops {

inline constexpr const char* kInternalDomain = "com.hipinfer";

}  // namespace hi::ops
