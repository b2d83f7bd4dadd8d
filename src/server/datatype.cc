#include "datatype.h"

#include <array>

namespace hi::server {
namespace {

struct TypeName {
  DType dtype;
  std::string_view wire;
  inference::DataType config;
};

// The protocol's names (KServe v2 "Tensor Data Types"), with Triton's config enum beside them.
constexpr std::array<TypeName, 14> kTypes = {{
    {DType::kBool, "BOOL", inference::TYPE_BOOL},
    {DType::kUInt8, "UINT8", inference::TYPE_UINT8},
    {DType::kUInt16, "UINT16", inference::TYPE_UINT16},
    {DType::kUInt32, "UINT32", inference::TYPE_UINT32},
    {DType::kUInt64, "UINT64", inference::TYPE_UINT64},
    {DType::kInt8, "INT8", inference::TYPE_INT8},
    {DType::kInt16, "INT16", inference::TYPE_INT16},
    {DType::kInt32, "INT32", inference::TYPE_INT32},
    {DType::kInt64, "INT64", inference::TYPE_INT64},
    {DType::kFloat16, "FP16", inference::TYPE_FP16},
    {DType::kFloat32, "FP32", inference::TYPE_FP32},
    {DType::kFloat64, "FP64", inference::TYPE_FP64},
    {DType::kString, "BYTES", inference::TYPE_STRING},
    {DType::kBFloat16, "BF16", inference::TYPE_BF16},
}};

}  // namespace

std::optional<DType> dtype_from_wire(std::string_view datatype) {
  for (const auto& t : kTypes)
    if (t.wire == datatype) return t.dtype;
  return std::nullopt;
}

std::string_view wire_name(DType dtype) {
  for (const auto& t : kTypes)
    if (t.dtype == dtype) return t.wire;
  return {};
}

std::optional<DType> dtype_from_config(inference::DataType type) {
  for (const auto& t : kTypes)
    if (t.config == type) return t.dtype;
  return std::nullopt;
}

inference::DataType config_type(DType dtype) {
  for (const auto& t : kTypes)
    if (t.dtype == dtype) return t.config;
  return inference::TYPE_INVALID;
}

}  // namespace hi::server
