#include "http_codec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "datatype.h"
#include "tensor_codec.h"

namespace hi::server {
namespace {

using nlohmann::json;

Error bad(const std::string& message) { return make_error(ErrorCode::kInvalidArgument, message); }

// Writes one JSON value into element i of the tensor, checking its kind and range.
template <typename T>
bool store_number(const json& v, T* slot) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) return false;
    *slot = v.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
      *slot = static_cast<T>(u);
    } else if (v.is_number_integer()) {
      const int64_t s = v.get<int64_t>();
      if constexpr (std::is_unsigned_v<T>) {
        if (s < 0) return false;
      }
      if (s < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
          (s > 0 && static_cast<uint64_t>(s) > static_cast<uint64_t>(std::numeric_limits<T>::max())))
        return false;
      *slot = static_cast<T>(s);
    } else {
      return false;
    }
  } else {
    if (!v.is_number()) return false;
    *slot = static_cast<T>(v.get<double>());
  }
  return true;
}

const char* expected_kind(DType dtype) {
  if (dtype == DType::kBool) return "true or false";
  if (dtype == DType::kString) return "a string";
  if (dtype_is_integer(dtype)) return "an integer within the type's range";
  return "a number";
}

// Flattens nested arrays (row-major) into `flat`, refusing more than `limit` leaves.
bool flatten(const json& data, std::vector<const json*>& flat, size_t limit) {
  if (!data.is_array()) {
    if (flat.size() >= limit) return false;
    flat.push_back(&data);
    return true;
  }
  for (const auto& item : data)
    if (!flatten(item, flat, limit)) return false;
  return true;
}

template <typename T>
Error fill_numbers(const std::vector<const json*>& flat, const std::string& name, DType dtype, Tensor& t) {
  T* out = static_cast<T*>(t.raw());
  for (size_t i = 0; i < flat.size(); ++i)
    if (!store_number(*flat[i], &out[i]))
      return bad(str("input '", name, "': data[", i, "] is ", flat[i]->dump(), ", expected ", expected_kind(dtype),
                     " for ", wire_name(dtype)));
  return {};
}

Error fill_from_json(const std::vector<const json*>& flat, const std::string& name, DType dtype, Tensor& t) {
  switch (dtype) {
    case DType::kBool: return fill_numbers<bool>(flat, name, dtype, t);
    case DType::kUInt8: return fill_numbers<uint8_t>(flat, name, dtype, t);
    case DType::kUInt16: return fill_numbers<uint16_t>(flat, name, dtype, t);
    case DType::kUInt32: return fill_numbers<uint32_t>(flat, name, dtype, t);
    case DType::kUInt64: return fill_numbers<uint64_t>(flat, name, dtype, t);
    case DType::kInt8: return fill_numbers<int8_t>(flat, name, dtype, t);
    case DType::kInt16: return fill_numbers<int16_t>(flat, name, dtype, t);
    case DType::kInt32: return fill_numbers<int32_t>(flat, name, dtype, t);
    case DType::kInt64: return fill_numbers<int64_t>(flat, name, dtype, t);
    case DType::kFloat32: return fill_numbers<float>(flat, name, dtype, t);
    case DType::kFloat64: return fill_numbers<double>(flat, name, dtype, t);
    case DType::kFloat16:
    case DType::kBFloat16: {
      uint16_t* out = static_cast<uint16_t*>(t.raw());
      for (size_t i = 0; i < flat.size(); ++i) {
        if (!flat[i]->is_number())
          return bad(str("input '", name, "': data[", i, "] is ", flat[i]->dump(), ", expected a number"));
        const float f = static_cast<float>(flat[i]->get<double>());
        out[i] = dtype == DType::kFloat16 ? Float16::from_float(f) : BFloat16::from_float(f);
      }
      return {};
    }
    case DType::kString:
      for (size_t i = 0; i < flat.size(); ++i) {
        if (!flat[i]->is_string())
          return bad(str("input '", name, "': data[", i, "] is ", flat[i]->dump(), ", expected a string for BYTES"));
        t.strings()[i] = flat[i]->get<std::string>();
      }
      return {};
    default: return bad(str("input '", name, "': ", dtype_name(dtype), " cannot be sent as JSON"));
  }
}

std::string valid_datatypes() {
  return "BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, INT32, INT64, FP16, FP32, FP64, BF16, BYTES";
}

// A parameter read as bool / integer, with a named error when it has another type.
Error get_bool(const json& params, const char* key, const std::string& where, bool* out) {
  auto it = params.find(key);
  if (it == params.end()) return {};
  if (!it->is_boolean()) return bad(str(where, ".parameters.", key, " is ", it->dump(), ", expected true or false"));
  *out = it->get<bool>();
  return {};
}

Error get_size(const json& params, const char* key, const std::string& where, int64_t* out) {
  auto it = params.find(key);
  if (it == params.end()) return {};
  if (!it->is_number_integer() || it->get<int64_t>() < 0)
    return bad(str(where, ".parameters.", key, " is ", it->dump(), ", expected a non-negative integer"));
  *out = it->get<int64_t>();
  return {};
}

Error parse_input(const json& in, size_t index, std::string_view binary, size_t* binary_offset, InferRequest* request) {
  const std::string where = str("inputs[", index, "]");
  if (!in.is_object()) return bad(str(where, " is ", in.type_name(), ", expected an object"));
  auto name_it = in.find("name");
  if (name_it == in.end() || !name_it->is_string()) return bad(str(where, ".name is missing or not a string"));
  const std::string name = name_it->get<std::string>();
  const std::string at = str("input '", name, "'");
  auto type_it = in.find("datatype");
  if (type_it == in.end() || !type_it->is_string()) return bad(str(at, ": datatype is missing or not a string"));
  const auto dtype = dtype_from_wire(type_it->get<std::string>());
  if (!dtype)
    return bad(
        str(at, ": datatype \"", type_it->get<std::string>(), "\" is unknown; expected one of ", valid_datatypes()));
  auto shape_it = in.find("shape");
  if (shape_it == in.end() || !shape_it->is_array()) return bad(str(at, ": shape is missing or not an array"));
  Shape shape;
  for (const auto& d : *shape_it) {
    if (!d.is_number_integer())
      return bad(str(at, ": shape ", shape_it->dump(), " holds ", d.dump(), ", expected integers"));
    shape.push_back(d.get<int64_t>());
  }
  int64_t numel = 0;
  if (Error e = check_request_shape(name, shape, &numel); !e.ok()) return e;
  if (request->inputs.count(name)) return bad(str(at, " is given twice"));

  int64_t binary_size = -1;
  if (auto p = in.find("parameters"); p != in.end()) {
    if (!p->is_object()) return bad(str(at, ": parameters is not an object"));
    if (Error e = get_size(*p, "binary_data_size", at, &binary_size); !e.ok()) return e;
  }
  Tensor tensor;
  if (binary_size >= 0) {
    if (in.contains("data")) return bad(str(at, " has both data and parameters.binary_data_size"));
    if (static_cast<uint64_t>(binary_size) > binary.size() - *binary_offset)
      return bad(str(at, ": binary_data_size is ", binary_size, " but only ", binary.size() - *binary_offset,
                     " bytes of binary data are left in the body"));
    if (Error e = tensor_from_raw(name, *dtype, shape, binary.substr(*binary_offset, binary_size), &tensor); !e.ok())
      return e;
    *binary_offset += static_cast<size_t>(binary_size);
  } else {
    auto data_it = in.find("data");
    if (data_it == in.end()) return bad(str(at, ": data is missing (and no parameters.binary_data_size)"));
    std::vector<const json*> flat;
    const size_t limit = static_cast<size_t>(numel);
    const bool within = flatten(*data_it, flat, limit);
    if (!within || flat.size() != limit)
      return bad(str(at, ": shape ", shape_to_string(shape), " has ", numel, " elements, but data holds ",
                     within ? std::to_string(flat.size()) : "more"));
    tensor = Tensor::empty(*dtype, shape);
    if (Error e = fill_from_json(flat, name, *dtype, tensor); !e.ok()) return e;
  }
  request->inputs.emplace(name, std::move(tensor));
  return {};
}

json tensor_json_data(const Tensor& t) {
  json data = json::array();
  const int64_t n = t.numel();
  switch (t.dtype()) {
    case DType::kString:
      // Bytes that are not UTF-8 are replaced in JSON; binary_data outputs carry them unchanged.
      for (int64_t i = 0; i < n; ++i) data.push_back(t.strings()[i]);
      break;
    case DType::kBool:
      for (int64_t i = 0; i < n; ++i) data.push_back(t.data<bool>()[i]);
      break;
    case DType::kFloat16:
      for (int64_t i = 0; i < n; ++i) data.push_back(static_cast<float>(t.data<Float16>()[i]));
      break;
    case DType::kBFloat16:
      for (int64_t i = 0; i < n; ++i) data.push_back(static_cast<float>(t.data<BFloat16>()[i]));
      break;
    default:
      for (int64_t i = 0; i < n; ++i) {
        if (dtype_is_float(t.dtype())) data.push_back(t.as_double(i));
        else if (t.dtype() == DType::kUInt64) data.push_back(t.data<uint64_t>()[i]);
        else data.push_back(t.as_int64(i));
      }
  }
  return data;
}

}  // namespace

Error parse_infer_request(std::string_view body, int64_t header_length, InferRequest* request, HttpResponseForm* form) {
  if (header_length > static_cast<int64_t>(body.size()))
    return bad(
        str("Inference-Header-Content-Length is ", header_length, " but the body has only ", body.size(), " bytes"));
  const std::string_view header = header_length >= 0 ? body.substr(0, static_cast<size_t>(header_length)) : body;
  const std::string_view binary =
      header_length >= 0 ? body.substr(static_cast<size_t>(header_length)) : std::string_view();
  json doc = json::parse(header.begin(), header.end(), nullptr, false);
  if (doc.is_discarded()) {
    // Parse again with exceptions on to say where it broke; the first pass keeps the common case cheap.
    try {
      doc = json::parse(header.begin(), header.end());
    } catch (const json::parse_error& e) {
      return bad(str("the request body is not valid JSON: ", e.what()));
    }
  }
  if (!doc.is_object()) return bad(str("the request body is JSON ", doc.type_name(), ", expected an object"));
  if (auto it = doc.find("id"); it != doc.end()) {
    if (!it->is_string()) return bad(str("id is ", it->dump(), ", expected a string"));
    request->id = it->get<std::string>();
  }
  if (auto p = doc.find("parameters"); p != doc.end()) {
    if (!p->is_object()) return bad("parameters is not an object");
    if (Error e = get_bool(*p, "binary_data_output", "request", &form->binary_by_default); !e.ok()) return e;
    int64_t timeout_us = 0;
    if (Error e = get_size(*p, "timeout", "request", &timeout_us); !e.ok()) return e;
    request->timeout_ms = timeout_us / 1000.0;
  }
  auto inputs = doc.find("inputs");
  if (inputs == doc.end() || !inputs->is_array() || inputs->empty())
    return bad("inputs is missing or empty; expected an array of {name, shape, datatype, data}");
  size_t binary_offset = 0;
  for (size_t i = 0; i < inputs->size(); ++i)
    if (Error e = parse_input((*inputs)[i], i, binary, &binary_offset, request); !e.ok()) return e;
  if (binary_offset != binary.size())
    return bad(str(binary.size() - binary_offset, " bytes of binary data after the last input's (", binary_offset,
                   " of ", binary.size(), " used); check each input's binary_data_size"));
  if (auto outputs = doc.find("outputs"); outputs != doc.end()) {
    if (!outputs->is_array()) return bad("outputs is not an array");
    for (size_t i = 0; i < outputs->size(); ++i) {
      const json& out = (*outputs)[i];
      const std::string where = str("outputs[", i, "]");
      if (!out.is_object() || !out.contains("name") || !out["name"].is_string())
        return bad(str(where, " needs a name"));
      HttpOutputChoice choice{out["name"].get<std::string>(), form->binary_by_default};
      if (auto p = out.find("parameters"); p != out.end()) {
        if (!p->is_object()) return bad(str(where, ".parameters is not an object"));
        if (p->contains("classification"))
          return make_error(ErrorCode::kUnimplemented, str(where,
                                                           ".parameters.classification: the classification "
                                                           "extension is not supported; request the raw output"));
        if (Error e = get_bool(*p, "binary_data", where, &choice.binary); !e.ok()) return e;
      }
      request->outputs.push_back(choice.name);
      form->outputs.push_back(std::move(choice));
    }
  }
  return {};
}

HttpBody make_infer_response(const std::string& model, const std::string& version, const std::string& id,
                             const TensorMap& outputs, const std::vector<std::string>& order,
                             const HttpResponseForm& form) {
  json doc = {{"model_name", model}, {"model_version", version}};
  if (!id.empty()) doc["id"] = id;
  json list = json::array();
  std::string binary;
  for (const auto& name : order) {
    auto it = outputs.find(name);
    if (it == outputs.end()) continue;
    const Tensor& t = it->second;
    bool as_binary = form.binary_by_default;
    for (const auto& choice : form.outputs)
      if (choice.name == name) as_binary = choice.binary;
    json out = {{"name", name}, {"datatype", std::string(wire_name(t.dtype()))}, {"shape", t.shape()}};
    if (as_binary) {
      out["parameters"] = {{"binary_data_size", raw_size(t)}};
      append_raw(t, binary);
    } else {
      out["data"] = tensor_json_data(t);
    }
    list.push_back(std::move(out));
  }
  doc["outputs"] = std::move(list);
  HttpBody body;
  body.data = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  if (!binary.empty() ||
      std::any_of(form.outputs.begin(), form.outputs.end(), [](const auto& c) { return c.binary; }) ||
      form.binary_by_default) {
    body.header_length = static_cast<int64_t>(body.data.size());
    body.data += binary;
  }
  return body;
}

std::string error_json(const std::string& message) {
  return json{{"error", message}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace hi::server
