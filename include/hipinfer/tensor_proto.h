// Serialized ONNX TensorProto files (the ONNX test data's input_N.pb / output_N.pb): the file form
// that holds every element type (float8, int4 and float4 have no .npy form).
#pragma once

#include <string>

#include "hipinfer/export.h"
#include "hipinfer/status.h"
#include "hipinfer/tensor.h"
#include "hipinfer/value.h"

HI_PUBLIC_BEGIN
namespace hi {

// Reads a TensorProto file; `name` (optional) receives the tensor's name from the file.
Result<Tensor> read_tensor_proto(const std::string& path, std::string* name = nullptr);
// Reads a value file (the ONNX test data's input_N.pb, or what write_value_proto wrote) as the
// type `type` spells it, in onnxruntime's form (TensorInfo::type: "tensor(float)",
// "seq(tensor(int64))", "optional(tensor(float))"): the file does not say which message it holds.
// A file of a type hipinfer cannot read (nested sequences, maps) is kUnsupported.
Result<Value> read_value_proto(const std::string& path, const std::string& type);
// Writes `t` as a TensorProto named `name` (sub-byte types packed as ONNX packs them).
Status write_tensor_proto(const std::string& path, const Tensor& t, const std::string& name);
// Writes any value: a tensor as write_tensor_proto does; a sequence of tensors as a SequenceProto
// (elem_type TENSOR); a map as a MapProto (int64 `keys` or `string_keys`, `values` a SequenceProto
// of scalar tensors); a sequence of maps as a SequenceProto of MapProtos (elem_type MAP); an
// absent optional as an empty OptionalProto. onnx.numpy_helper's to_array, to_list, to_dict and
// to_optional read them back.
Status write_value_proto(const std::string& path, const Value& v, const std::string& name);

}  // namespace hi
HI_PUBLIC_END
