// GraphBuilder: writes an ONNX graph (nodes, inputs, initializers) with PyTorch-style names and
// deterministic random weights; protobuf stays inside graph_builder.cc.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hipinfer/status.h"

namespace onnx {
class ModelProto;
}

namespace hi::zoo {

// Deterministic random numbers: splitmix64, seeded from (seed, stream name), so a tensor's values
// depend only on the seed and its own name, never on the order tensors are built in.
class Rng {
 public:
  Rng(uint64_t seed, std::string_view stream);
  uint64_t next_u64();
  double uniform();  // in (0, 1), never exactly 0
  double normal();   // standard normal (Box-Muller; the second value of each pair is kept)

 private:
  uint64_t state_;
  double spare_ = 0;
  bool has_spare_ = false;
};

// Vectors of random values for weights.
std::vector<float> random_normal(Rng rng, size_t count, double mean, double stddev);

// ONNX TensorProto element types the zoo writes (values as in onnx.proto).
enum class ElemType : int32_t { kFloat = 1, kInt64 = 7 };

// A graph input or output dimension: a fixed size, a symbol ("batch", "sequence"), or neither
// (value -1, no symbol): unknown.
struct ShapeDim {
  int64_t value = -1;
  std::string symbol;
};

// One node attribute; build with the static helpers: Attr::i("axis", 1).
struct Attr {
  enum class Kind { kInt, kFloat, kInts };
  std::string name;
  Kind kind = Kind::kInt;
  int64_t int_value = 0;
  float float_value = 0;
  std::vector<int64_t> ints;

  static Attr i(std::string name, int64_t v) { return {std::move(name), Kind::kInt, v, 0, {}}; }
  static Attr f(std::string name, float v) { return {std::move(name), Kind::kFloat, 0, v, {}}; }
  static Attr ints_of(std::string name, std::vector<int64_t> v) {
    return {std::move(name), Kind::kInts, 0, 0, std::move(v)};
  }
};

// ONNX IR version that goes with a default-domain opset (ONNX's own release table).
int64_t ir_version_for_opset(int64_t opset);

// Builds one ModelProto. Node names follow the PyTorch exporter: "<scope>/<OpType>", with "_1",
// "_2" appended when a scope holds several nodes of one type, and outputs "<node name>_output_0".
// Initializers that would push the model past protobuf's 2 GiB limit are not stored; `finish()`
// then reports the error, so model code never has to check after each tensor.
class GraphBuilder {
 public:
  // The default-domain opsets the zoo writes. 10 is the first whose Slice takes its bounds as
  // inputs (BERT slices position ids to the runtime sequence length).
  static constexpr int64_t kMinOpset = 10;
  static constexpr int64_t kMaxOpset = 21;

  GraphBuilder(std::string graph_name, int64_t opset, uint64_t seed);
  ~GraphBuilder();
  GraphBuilder(const GraphBuilder&) = delete;
  GraphBuilder& operator=(const GraphBuilder&) = delete;

  int64_t opset() const { return opset_; }
  Rng rng(std::string_view tensor_name) const { return Rng(seed_, tensor_name); }

  void add_input(const std::string& name, ElemType type, const std::vector<ShapeDim>& dims);
  void add_output(const std::string& name, ElemType type, const std::vector<ShapeDim>& dims);

  // Adds a node named "<scope>/<op_type>[_N]" and returns its outputs. `output_names` overrides
  // the generated output names (for graph outputs such as "logits").
  std::vector<std::string> add_node(const std::string& op_type, const std::string& scope,
                                    const std::vector<std::string>& inputs, const std::vector<Attr>& attrs = {},
                                    int num_outputs = 1, const std::vector<std::string>& output_names = {});
  // Same, for the common single-output case.
  std::string op(const std::string& op_type, const std::string& scope, const std::vector<std::string>& inputs,
                 const std::vector<Attr>& attrs = {}, const std::string& output_name = "");

  // Weights, stored as raw little-endian data; each returns its name, for use as a node input.
  // Buffers (BN running statistics, position ids) are stored like weights but, as in PyTorch,
  // are not counted as parameters.
  std::string add_initializer(const std::string& name, const std::vector<int64_t>& dims,
                              const std::vector<float>& values, bool is_buffer = false);
  std::string add_initializer_i64(const std::string& name, const std::vector<int64_t>& dims,
                                  const std::vector<int64_t>& values);  // always a buffer
  // Quantized weights, their zero points and int32 biases (a QDQ model's); buffers like the above.
  std::string add_initializer_i8(const std::string& name, const std::vector<int64_t>& dims,
                                 const std::vector<int8_t>& values);
  std::string add_initializer_u8(const std::string& name, const std::vector<int64_t>& dims,
                                 const std::vector<uint8_t>& values);
  std::string add_initializer_i32(const std::string& name, const std::vector<int64_t>& dims,
                                  const std::vector<int32_t>& values);
  // A Constant node in `scope`, as the exporter writes scalars, shapes and axes.
  std::string constant_i64(const std::string& scope, const std::vector<int64_t>& dims,
                           const std::vector<int64_t>& values);
  std::string constant_f32(const std::string& scope, float value);  // a scalar

  // Ops whose operands moved from attributes to inputs at some opset, spelled for opset().
  std::string unsqueeze(const std::string& scope, const std::string& x, const std::vector<int64_t>& axes);
  std::string reduce_mean(const std::string& scope, const std::string& x, const std::vector<int64_t>& axes,
                          bool keepdims);
  std::string clip(const std::string& scope, const std::string& x, float lo, float hi);

  // Elements of the parameters (not buffers) added so far.
  int64_t parameter_count() const { return parameter_count_; }

  // Checks what was built (the 2 GiB limit) and sets the model's metadata. Call once, last.
  Status finish(const std::string& doc_string);
  // Size of the serialized model; valid after finish().
  int64_t byte_size() const { return byte_size_; }
  // The serialized ModelProto, or the same written to a file.
  Result<std::string> serialize() const;
  Status write(const std::string& path) const;

 private:
  std::string unique_node_name(const std::string& scope, const std::string& op_type);
  bool reserve_bytes(const std::string& name, uint64_t bytes);
  std::string add_raw_initializer(const std::string& name, const std::vector<int64_t>& dims, int32_t type,
                                  const void* data, size_t count, size_t element_size);

  std::unique_ptr<onnx::ModelProto> model_;
  int64_t opset_;
  uint64_t seed_;
  std::map<std::string, int> name_counts_;
  int64_t parameter_count_ = 0;
  int64_t byte_size_ = 0;
  uint64_t initializer_bytes_ = 0;  // requested, including any that did not fit
  std::string too_large_;           // first tensor that did not fit, if any
};

}  // namespace hi::zoo
