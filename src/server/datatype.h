// The Open Inference Protocol's tensor data types ("FP32", "INT64", "BYTES") and Triton's model
// configuration types (TYPE_FP32), mapped to hipinfer's DType.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hipinfer/dtype.h"
#include "model_config.pb.h"

namespace hi::server {

// "FP32" -> kFloat32; nullopt for a name the protocol does not define or hipinfer cannot carry.
std::optional<DType> dtype_from_wire(std::string_view datatype);
// kFloat32 -> "FP32"; "" for types the protocol has no name for (float8, int4, complex).
std::string_view wire_name(DType dtype);

std::optional<DType> dtype_from_config(inference::DataType type);
// kFloat32 -> TYPE_FP32; TYPE_INVALID for types without one.
inference::DataType config_type(DType dtype);

}  // namespace hi::server
