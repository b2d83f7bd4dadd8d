#include "grpc_codec.h"

#include <limits>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>

#include "datatype.h"
#include "tensor_codec.h"

namespace hi::server {
namespace {

using inference::InferParameter;
using inference::InferTensorContents;
using InputTensor = inference::ModelInferRequest::InferInputTensor;
using Parameters = google::protobuf::Map<std::string, InferParameter>;

// InferTensorContents' typed fields.
enum class Field { kBool, kInt, kInt64, kUint, kUint64, kFp32, kFp64, kBytes };
constexpr Field kFields[] = {Field::kBool,   Field::kInt,  Field::kInt64, Field::kUint,
                             Field::kUint64, Field::kFp32, Field::kFp64,  Field::kBytes};

const char* field_name(Field f) {
  switch (f) {
    case Field::kBool: return "bool_contents";
    case Field::kInt: return "int_contents";
    case Field::kInt64: return "int64_contents";
    case Field::kUint: return "uint_contents";
    case Field::kUint64: return "uint64_contents";
    case Field::kFp32: return "fp32_contents";
    case Field::kFp64: return "fp64_contents";
    case Field::kBytes: return "bytes_contents";
  }
  return "?";
}

int field_count(const InferTensorContents& c, Field f) {
  switch (f) {
    case Field::kBool: return c.bool_contents_size();
    case Field::kInt: return c.int_contents_size();
    case Field::kInt64: return c.int64_contents_size();
    case Field::kUint: return c.uint_contents_size();
    case Field::kUint64: return c.uint64_contents_size();
    case Field::kFp32: return c.fp32_contents_size();
    case Field::kFp64: return c.fp64_contents_size();
    case Field::kBytes: return c.bytes_contents_size();
  }
  return 0;
}

bool has_typed_data(const InferTensorContents& c) {
  for (Field f : kFields)
    if (field_count(c, f) > 0) return true;
  return false;
}

// The field a datatype's typed data goes in (narrow integers widened to 32 bits); none for FP16 and
// BF16, which the protocol only carries raw.
std::optional<Field> field_for(DType dtype) {
  switch (dtype) {
    case DType::kBool: return Field::kBool;
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32: return Field::kInt;
    case DType::kInt64: return Field::kInt64;
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32: return Field::kUint;
    case DType::kUInt64: return Field::kUint64;
    case DType::kFloat32: return Field::kFp32;
    case DType::kFloat64: return Field::kFp64;
    case DType::kString: return Field::kBytes;
    default: return std::nullopt;
  }
}

std::string valid_datatypes() {
  std::string names;
  for (int code = 1; code < 256; ++code)  // every DType code; wire_name is "" where the protocol has no name
    if (auto name = wire_name(static_cast<DType>(code)); !name.empty())
      names += (names.empty() ? "" : ", ") + std::string(name);
  return names;
}

// "; the model expects FP32" when the config declares the input: the likely fix for a bad name.
std::string expected_hint(const inference::ModelConfig* config, const std::string& input) {
  if (!config) return "";
  for (const auto& in : config->input())
    if (in.name() == input)
      if (auto dtype = dtype_from_config(in.data_type())) return str("; the model expects ", wire_name(*dtype));
  return "";
}

template <typename T, typename Values>
Error copy_values(const std::string& input, const Values& values, Tensor* t) {
  T* dst = t->data<T>();
  for (int i = 0; i < values.size(); ++i) {
    const auto v = values.Get(i);
    // int_contents and uint_contents carry INT8/16 and UINT8/16 widened; a value past the type's
    // range is the client's mistake, not something to wrap silently.
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!std::in_range<T>(v))
        return make_error(ErrorCode::kInvalidArgument,
                          str("input '", input, "': element ", i, " is ", v, ", outside ", wire_name(t->dtype()),
                              "'s range ", +std::numeric_limits<T>::min(), " to ", +std::numeric_limits<T>::max()));
    }
    dst[i] = static_cast<T>(v);
  }
  return {};
}

Error copy_typed(const std::string& input, const InferTensorContents& c, Tensor* t) {
  switch (t->dtype()) {
    case DType::kBool: return copy_values<bool>(input, c.bool_contents(), t);
    case DType::kInt8: return copy_values<int8_t>(input, c.int_contents(), t);
    case DType::kInt16: return copy_values<int16_t>(input, c.int_contents(), t);
    case DType::kInt32: return copy_values<int32_t>(input, c.int_contents(), t);
    case DType::kInt64: return copy_values<int64_t>(input, c.int64_contents(), t);
    case DType::kUInt8: return copy_values<uint8_t>(input, c.uint_contents(), t);
    case DType::kUInt16: return copy_values<uint16_t>(input, c.uint_contents(), t);
    case DType::kUInt32: return copy_values<uint32_t>(input, c.uint_contents(), t);
    case DType::kUInt64: return copy_values<uint64_t>(input, c.uint64_contents(), t);
    case DType::kFloat32: return copy_values<float>(input, c.fp32_contents(), t);
    case DType::kFloat64: return copy_values<double>(input, c.fp64_contents(), t);
    case DType::kString:
      for (int i = 0; i < c.bytes_contents_size(); ++i) t->strings()[i] = c.bytes_contents(i);
      return {};
    default:
      return make_error(ErrorCode::kInternal,
                        str("input '", input, "': no typed decoding for ", dtype_name(t->dtype())));
  }
}

Error decode_typed(const std::string& input, DType dtype, const Shape& shape, int64_t numel,
                   const InferTensorContents& c, Tensor* out) {
  const std::optional<Field> field = field_for(dtype);
  for (Field f : kFields)
    if (f != field && field_count(c, f) > 0)
      return make_error(ErrorCode::kInvalidArgument, str("input '", input, "': ", wire_name(dtype), " data goes in ",
                                                         field ? field_name(*field) : "raw_input_contents", ", but ",
                                                         field_name(f), " has ", field_count(c, f), " values"));
  if (!field && numel > 0)
    return make_error(ErrorCode::kInvalidArgument,
                      str("input '", input, "': ", wire_name(dtype), " has no typed contents field; send its ", numel,
                          " values in raw_input_contents"));
  const int count = field ? field_count(c, *field) : 0;
  if (count != numel)
    return make_error(ErrorCode::kInvalidArgument,
                      str("input '", input, "': ", wire_name(dtype), shape_to_string(shape), " needs ", numel,
                          " values in ", field_name(*field), ", got ", count));
  *out = Tensor::empty(dtype, shape);
  return numel > 0 ? copy_typed(input, c, out) : Error{};
}

Error decode_input(const inference::ModelInferRequest& req, int index, const inference::ModelConfig* config,
                   Tensor* out) {
  const InputTensor& in = req.inputs(index);
  const std::optional<DType> dtype = dtype_from_wire(in.datatype());
  if (!dtype)
    return make_error(ErrorCode::kInvalidArgument,
                      str("input '", in.name(), "': unknown datatype '", in.datatype(), "' (valid: ", valid_datatypes(),
                          expected_hint(config, in.name()), ")"));
  const Shape shape(in.shape().begin(), in.shape().end());
  int64_t numel = 0;
  if (Error e = check_request_shape(in.name(), shape, &numel); !e.ok()) return e;
  try {
    if (req.raw_input_contents_size() == 0) return decode_typed(in.name(), *dtype, shape, numel, in.contents(), out);
    if (has_typed_data(in.contents()))
      return make_error(ErrorCode::kInvalidArgument,
                        str("input '", in.name(), "': data in both contents and raw_input_contents; send one"));
    return tensor_from_raw(in.name(), *dtype, shape, req.raw_input_contents(index), out);
  } catch (const OutOfMemory& oom) {
    return make_error(ErrorCode::kResourceExhausted, str("input '", in.name(), "': ", oom.what));
  }
}

const char* parameter_kind(const InferParameter& p) {
  switch (p.parameter_choice_case()) {
    case InferParameter::kBoolParam: return "bool_param";
    case InferParameter::kInt64Param: return "int64_param";
    case InferParameter::kStringParam: return "string_param";
    case InferParameter::kDoubleParam: return "double_param";
    case InferParameter::kUint64Param: return "uint64_param";
    case InferParameter::PARAMETER_CHOICE_NOT_SET: break;
  }
  return "no value";
}

// Triton's "timeout" request parameter, in microseconds.
Error read_timeout(const Parameters& params, double* timeout_ms) {
  auto it = params.find("timeout");
  if (it == params.end()) return {};
  const InferParameter& p = it->second;
  int64_t us = 0;
  if (p.parameter_choice_case() == InferParameter::kInt64Param) {
    us = p.int64_param();
  } else if (p.parameter_choice_case() == InferParameter::kUint64Param &&
             p.uint64_param() <= uint64_t(std::numeric_limits<int64_t>::max())) {
    us = static_cast<int64_t>(p.uint64_param());
  } else {
    const char* expected = "request parameter 'timeout' must be an int64_param of microseconds";
    return make_error(ErrorCode::kInvalidArgument, str(expected, ", got ", parameter_kind(p)));
  }
  if (us < 0)
    return make_error(ErrorCode::kInvalidArgument,
                      str("request parameter 'timeout' is ", us, " microseconds, expected 0 or more"));
  *timeout_ms = static_cast<double>(us) / 1000.0;
  return {};
}

// Shared memory and classification are protocol extensions hipinfer does not offer; ignoring them
// would answer something other than what was asked.
Error check_tensor_parameters(const char* kind, const std::string& name, const Parameters& params) {
  for (const char* unsupported : {"shared_memory_region", "classification"})
    if (params.count(unsupported))
      return make_error(ErrorCode::kUnimplemented,
                        str(kind, " '", name, "': parameter '", unsupported, "' is not supported (hipinfer has no ",
                            unsupported[0] == 's' ? "shared memory" : "classification", " extension)"));
  return {};
}

Error decode_inputs(const inference::ModelInferRequest& req, const inference::ModelConfig* config, TensorMap* inputs) {
  if (req.raw_input_contents_size() > 0 && req.raw_input_contents_size() != req.inputs_size())
    return make_error(ErrorCode::kInvalidArgument, str("raw_input_contents has ", req.raw_input_contents_size(),
                                                       " entries, expected one per input: ", req.inputs_size()));
  for (int i = 0; i < req.inputs_size(); ++i) {
    const InputTensor& in = req.inputs(i);
    if (in.name().empty()) return make_error(ErrorCode::kInvalidArgument, str("input ", i, " has no name"));
    if (inputs->count(in.name()))
      return make_error(ErrorCode::kInvalidArgument, str("input '", in.name(), "' appears twice in the request"));
    if (Error e = check_tensor_parameters("input", in.name(), in.parameters()); !e.ok()) return e;
    Tensor t;
    if (Error e = decode_input(req, i, config, &t); !e.ok()) return e;
    inputs->emplace(in.name(), std::move(t));
  }
  return {};
}

Error decode_outputs(const inference::ModelInferRequest& req, std::vector<std::string>* outputs) {
  std::set<std::string> seen;
  for (const auto& o : req.outputs()) {
    if (Error e = check_tensor_parameters("output", o.name(), o.parameters()); !e.ok()) return e;
    if (!seen.insert(o.name()).second)
      return make_error(ErrorCode::kInvalidArgument, str("output '", o.name(), "' is requested twice"));
    outputs->push_back(o.name());
  }
  return {};
}

void add_output(const std::string& name, const Tensor& tensor, inference::ModelInferResponse* out) {
  auto* o = out->add_outputs();
  o->set_name(name);
  o->set_datatype(std::string(wire_name(tensor.dtype())));
  for (int64_t d : tensor.shape()) o->add_shape(d);
  append_raw(tensor, *out->add_raw_output_contents());
}

}  // namespace

Error request_from_grpc(const inference::ModelInferRequest& req, const inference::ModelConfig* config_or_null,
                        InferRequest* out) {
  TensorMap inputs;
  if (Error e = decode_inputs(req, config_or_null, &inputs); !e.ok()) return e;
  std::vector<std::string> outputs;
  if (Error e = decode_outputs(req, &outputs); !e.ok()) return e;
  double timeout_ms = 0;
  if (Error e = read_timeout(req.parameters(), &timeout_ms); !e.ok()) return e;
  out->id = req.id();
  out->inputs = std::move(inputs);
  out->outputs = std::move(outputs);
  out->timeout_ms = timeout_ms;
  return {};
}

void response_to_grpc(const std::string& model, const std::string& version, const std::string& id,
                      const TensorMap& outputs, const std::vector<std::string>& order,
                      inference::ModelInferResponse* out) {
  out->set_model_name(model);
  out->set_model_version(version);
  out->set_id(id);
  std::set<std::string> written;
  for (const auto& name : order) {
    auto it = outputs.find(name);
    if (it != outputs.end() && written.insert(name).second) add_output(name, it->second, out);
  }
  for (const auto& [name, tensor] : outputs)
    if (!written.count(name)) add_output(name, tensor, out);
}

}  // namespace hi::server
