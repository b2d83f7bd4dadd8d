// Reading serialized ONNX TensorProto files (the ONNX test data's input_N.pb / output_N.pb).
#pragma once

#include <string>

#include "hipinfer/export.h"
#include "hipinfer/status.h"
#include "hipinfer/tensor.h"

HI_PUBLIC_BEGIN
namespace hi {

// Reads a TensorProto file; `name` (optional) receives the tensor's name from the file.
Result<Tensor> read_tensor_proto(const std::string& path, std::string* name = nullptr);

}  // namespace hi
HI_PUBLIC_END
