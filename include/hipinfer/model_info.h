// A model's summary without running it: what `hipinfer inspect` prints.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hipinfer/export.h"
#include "hipinfer/session.h"
#include "hipinfer/status.h"

HI_PUBLIC_BEGIN
namespace hi {

struct ModelSummary {
  std::string path;
  int64_t file_bytes = 0;
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;  // "" = ai.onnx
  std::string producer;                   // "pytorch 2.1"
  std::vector<TensorInfo> inputs, outputs;
  int64_t nodes = 0;  // including nodes in subgraphs
  std::map<std::string, int64_t> op_histogram;
  int64_t parameters = 0;  // elements in initializers
  int64_t parameter_bytes = 0;
  // Multiply-adds count as 2 FLOPs; estimated with symbolic dims set to `batch` (and other
  // unknown dims to 1). -1 when shapes could not be inferred.
  int64_t flops = -1;
  // Ops hipinfer cannot run, one line each: "Foo (opset 17): nodes 'a', 'b'".
  std::vector<std::string> unsupported;
  // Why the model could not be compiled, if it could not (empty when it can run).
  std::string load_error;
  // The main graph's nodes in order (not those inside subgraphs): the op ("Conv",
  // "com.microsoft.Gelu") and why the GPU kernels cannot run the node with its input types ("" when
  // they can; "this build has no GPU backend ..." without one). Read from the GPU kernel table alone, so
  // it answers on a machine without a GPU too.
  struct Node {
    std::string name, op, gpu_gap;
  };
  std::vector<Node> graph_nodes;
};

struct InspectOptions {
  int64_t batch = 1;  // value for symbolic dims when estimating FLOPs
  // Host memory the one build may hold besides the model's own weights, and the largest constant
  // it folds (as in SessionOptions); 0: no limit.
  int64_t memory_limit = 0;
  int64_t constant_folding_limit = SessionOptions{}.constant_folding_limit;
};

// Fails only when the file cannot be read as ONNX at all; a model that parses but cannot run
// still gets a summary with `unsupported` / `load_error` filled.
Result<ModelSummary> inspect_model(const std::string& path, const InspectOptions& options = {});

}  // namespace hi
HI_PUBLIC_END
