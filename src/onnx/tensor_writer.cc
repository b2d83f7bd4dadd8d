// Writing a value as a serialized ONNX proto (the form of the ONNX test data's .pb files): a
// tensor as a TensorProto, the one file form that holds every element type (float8, int4 and
// float4 included); sequences, maps and optionals as ONNX's SequenceProto, MapProto and
// OptionalProto (onnx.numpy_helper.to_list / to_dict / to_optional read them).
#include <onnx/onnx_pb.h>  // first: defines ONNX_API for the generated headers
#include <onnx/onnx-data.pb.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/low_precision.h"
#include "hipinfer/tensor_proto.h"
#include "hipinfer/value.h"

namespace hi {

namespace {

Status to_proto(const Tensor& t, const std::string& name, const std::string& path, onnx::TensorProto* proto) {
  HI_RETURN_IF(!dtype_is_supported(t.dtype()), kInvalidArgument, "cannot write '", path, "': ", dtype_name(t.dtype()),
               " is not an element type hipinfer holds");
  HI_RETURN_IF(t.numel() > 0 && t.raw() == nullptr, kInvalidArgument, "cannot write '", path, "': the tensor ",
               t.type_string(), " has no data");
  proto->set_name(name);
  proto->set_data_type(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape()) proto->add_dims(d);
  if (t.dtype() == DType::kString) {
    for (int64_t i = 0; i < t.numel(); ++i) proto->add_string_data(t.strings()[i]);
  } else if (dtype_bits(t.dtype()) < 8) {
    // int4, uint4, float4e2m1, int2, uint2: held one per byte, packed in the file.
    std::string packed(static_cast<size_t>(packed_size(t.dtype(), t.numel())), '\0');
    pack_sub_byte(t.dtype(), static_cast<const uint8_t*>(t.raw()), t.numel(),
                  reinterpret_cast<uint8_t*>(packed.data()));
    proto->set_raw_data(std::move(packed));
  } else {
    proto->set_raw_data(static_cast<const char*>(t.raw()), t.nbytes());  // little-endian, as raw_data is
  }
  return Status::ok();
}

// Element i of a tensor as a scalar tensor of its type.
Tensor element(const Tensor& t, int64_t i) {
  Tensor e = Tensor::empty(t.dtype(), {});
  if (t.dtype() == DType::kString) e.strings()[0] = t.strings()[i];
  else std::memcpy(e.raw(), static_cast<const char*>(t.raw()) + i * dtype_size(t.dtype()), dtype_size(t.dtype()));
  return e;
}

// A map: its keys (int64 or string), and its values as a sequence of scalar tensors (the form
// onnx.numpy_helper.from_dict writes).
Status to_proto(const Map& m, const std::string& name, const std::string& path, onnx::MapProto* proto) {
  HI_RETURN_IF(m.keys.dtype() != DType::kInt64 && m.keys.dtype() != DType::kString, kInvalidArgument, "cannot write '",
               path, "': map keys must be int64 or string, got ", m.keys.type_string());
  HI_RETURN_IF(m.values.numel() != m.keys.numel(), kInvalidArgument, "cannot write '", path, "': ", m.keys.numel(),
               " keys but values ", m.values.type_string());
  proto->set_name(name);
  proto->set_key_type(static_cast<int32_t>(m.keys.dtype()));
  onnx::SequenceProto* values = proto->mutable_values();
  values->set_elem_type(onnx::SequenceProto::TENSOR);
  for (int64_t i = 0; i < m.size(); ++i) {
    if (m.keys.dtype() == DType::kInt64) proto->add_keys(m.keys.data<int64_t>()[i]);
    else proto->add_string_keys(m.keys.strings()[i]);
    HI_RETURN_IF_ERROR(to_proto(element(m.values, i), "", path, values->add_tensor_values()));
  }
  return Status::ok();
}

Status write_message(const std::string& path, const google::protobuf::MessageLite& message) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  HI_RETURN_IF(!out, kInvalidArgument, "cannot write '", path, "': ", std::strerror(errno));
  HI_RETURN_IF(!message.SerializeToOstream(&out) || !out.flush(), kInvalidArgument, "cannot write '", path,
               "': ", std::strerror(errno));
  return Status::ok();
}

}  // namespace

Status write_tensor_proto(const std::string& path, const Tensor& t, const std::string& name) {
  onnx::TensorProto proto;
  HI_RETURN_IF_ERROR(to_proto(t, name, path, &proto));
  return write_message(path, proto);
}

Status write_value_proto(const std::string& path, const Value& v, const std::string& name) {
  switch (v.kind) {
    case Value::Kind::kTensor: return write_tensor_proto(path, v.tensor, name);
    case Value::Kind::kSequence:
    case Value::Kind::kMapSequence: {
      onnx::SequenceProto proto;
      proto.set_name(name);
      if (v.kind == Value::Kind::kSequence) {
        proto.set_elem_type(onnx::SequenceProto::TENSOR);
        for (const Tensor& t : v.sequence) HI_RETURN_IF_ERROR(to_proto(t, "", path, proto.add_tensor_values()));
      } else {
        proto.set_elem_type(onnx::SequenceProto::MAP);
        for (const Map& m : v.maps) HI_RETURN_IF_ERROR(to_proto(m, "", path, proto.add_map_values()));
      }
      return write_message(path, proto);
    }
    case Value::Kind::kMap: {
      onnx::MapProto proto;
      HI_RETURN_IF_ERROR(to_proto(v.maps.at(0), name, path, &proto));
      return write_message(path, proto);
    }
    case Value::Kind::kNone: {
      onnx::OptionalProto proto;  // an empty optional: no element
      proto.set_name(name);
      return write_message(path, proto);
    }
  }
  return error(StatusCode::kInternal, "cannot write '", path, "': unknown value kind");
}

}  // namespace hi
