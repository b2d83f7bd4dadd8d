// Reads ONNX ModelProto and TensorProto into hipinfer's IR. The only code that sees protobuf.
#pragma once

#include <string>

#include "hipinfer/status.h"
#include "hipinfer/tensor.h"
#include "hipinfer/value.h"
#include "ir/graph.h"

namespace hi::onnx_reader {

// Opsets of the default domain that hipinfer reads (the newest is the newest in the ONNX test data).
inline constexpr int64_t kMinOpset = 1;
inline constexpr int64_t kMaxOpset = 28;
inline constexpr int64_t kMinIrVersion = 3;
// IR 14 is what onnx 1.23 writes; fields added to the schema after 1.12 are ignored (not misread).
inline constexpr int64_t kMaxIrVersion = 14;

// Reads a model file; external data files are resolved beside it and may not leave its folder.
Result<ir::Model> read_model_file(const std::string& path);
// Reads a serialized model; `base_dir` is where external data lives ("" forbids external data).
Result<ir::Model> read_model_bytes(const void* data, size_t size, const std::string& base_dir,
                                   const std::string& display_name = "<memory>");
// Reads a serialized TensorProto file (the ONNX test data's input_N.pb / output_N.pb).
Result<Tensor> read_tensor_file(const std::string& path, std::string* name = nullptr);
// Parses a serialized TensorProto held in memory (external data is refused: there is no folder).
Result<Tensor> parse_tensor_bytes(const void* data, size_t size, const std::string& display_name,
                                  std::string* name = nullptr);
// Reads a serialized test-data value whose message depends on the declared type of the graph
// input or output it belongs to: TensorProto for tensors (and untyped values), SequenceProto for
// sequences of tensors, OptionalProto for optionals of a tensor or of a sequence of tensors (an
// empty optional reads as Value::Kind::kNone). Nested sequences and maps are kUnsupported.
Result<Value> read_value_file(const std::string& path, const ir::ValueType& type);
Result<Value> parse_value_bytes(const void* data, size_t size, const ir::ValueType& type,
                                const std::string& display_name);

}  // namespace hi::onnx_reader
