// Built-in model architectures with deterministic, well-scaled random weights, so demos,
// benchmarks and tests need no downloads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hipinfer/export.h"
#include "hipinfer/status.h"

HI_PUBLIC_BEGIN
namespace hi::zoo {

struct ZooOptions {
  int64_t opset = 17;          // default-domain opset the graph is written for: 10..21 (tests
                               // cover 10, 11, 13, 17 and 21); ir_version follows ONNX's table
  uint64_t seed = 1;           // weights are a pure function of (model, options, seed)
  bool symbolic_batch = true;  // batch dim named "batch" instead of a fixed 1
  int64_t batch = 1;           // used when symbolic_batch is false
  // Encoder ("bert") options; BERT-base by default.
  int64_t layers = 12;
  int64_t hidden = 768;
  int64_t heads = 12;
  int64_t sequence = 128;    // 0 = symbolic "sequence" dim
  int64_t intermediate = 0;  // 0 = 4 * hidden
  int64_t vocab = 30522;
  // Image models.
  int64_t image_size = 224;
  int64_t classes = 1000;
};

struct ZooModelInfo {
  std::string name;         // "resnet50"
  std::string description;  // one line
  std::string kind;         // "image" (uses image_size, classes) or "encoder" (layers .. vocab)
};
std::vector<ZooModelInfo> zoo_models();

// What was built: for reports such as the CLI's.
struct ZooModelStats {
  int64_t parameters = 0;  // learnable parameters, as PyTorch counts them (no BN running stats)
  int64_t bytes = 0;       // size of the serialized model
};

// Serialized ONNX ModelProto bytes. Errors: kNotFound for an unknown name (the message lists the
// known ones), kInvalidArgument for options out of range or a model over protobuf's 2 GiB.
Result<std::string> build_zoo_model(const std::string& name, const ZooOptions& options);
// Builds and writes the model to `path`; fills `stats` when given.
Status write_zoo_model(const std::string& name, const ZooOptions& options, const std::string& path,
                       ZooModelStats* stats = nullptr);

}  // namespace hi::zoo
HI_PUBLIC_END
