// Graph passes: rewrite an ir::Model before it is compiled, by optimisation level as in ONNX
// Runtime: 0 none; 1 basic (constant folding - done by the executor -, Identity/Dropout
// removal, Conv+BatchNormalization folding); 2 extended (Conv/MatMul/Gemm + bias +
// activation + residual fusion, GELU fusion into MatMul, BERT-style multi-head attention); 3 all (channels-last layout
// for the convolutional part of the graph, when the target has fast channels-last convolutions). precision bf16 turns
// every float32 convolution into a FusedConv computing in bfloat16, at any level. Every pass keeps the model's outputs
// equal within float32 rounding.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>

#include "hipinfer/status.h"
#include "ir/graph.h"
#include "passes/target.h"

namespace hi::passes {

struct PassOptions {
  int level = 3;
  std::string precision = "fp32";  // "bf16": convolutions compute in bfloat16
  // What the device that runs the graph has: the level-3 passes (channels-last layout, fused
  // int8 convolutions and inverted residual blocks) run only where it has the kernels for them.
  Target target;
  // Passes not to run, by name; optimize() refuses names that are not passes.
  std::set<std::string> disabled;
};

// What the passes did, pass name -> rewrites, for `hipinfer inspect` and the tests.
using PassReport = std::map<std::string, int>;

// The static type of a value (from a first inference over the unoptimised graph), or null.
using TypeOracle = std::function<const ir::ValueType*(const std::string&)>;

Status optimize(ir::Model& model, const PassOptions& options, const TypeOracle& types, PassReport* report);

}  // namespace hi::passes
