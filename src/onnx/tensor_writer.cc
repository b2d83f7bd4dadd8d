// Writing a tensor as a serialized ONNX TensorProto (the form of the ONNX test data's .pb files):
// the one file form that holds every element type, float8, int4 and float4 included.
#include <onnx/onnx_pb.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/low_precision.h"
#include "hipinfer/tensor_proto.h"

namespace hi {

Status write_tensor_proto(const std::string& path, const Tensor& t, const std::string& name) {
  HI_RETURN_IF(!dtype_is_supported(t.dtype()), kInvalidArgument, "cannot write '", path, "': ", dtype_name(t.dtype()),
               " is not an element type hipinfer holds");
  HI_RETURN_IF(t.numel() > 0 && t.raw() == nullptr, kInvalidArgument, "cannot write '", path, "': the tensor ",
               t.type_string(), " has no data");
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape()) proto.add_dims(d);
  if (t.dtype() == DType::kString) {
    for (int64_t i = 0; i < t.numel(); ++i) proto.add_string_data(t.strings()[i]);
  } else if (dtype_bits(t.dtype()) < 8) {
    // int4, uint4, float4e2m1, int2, uint2: held one per byte, packed in the file.
    std::string packed(static_cast<size_t>(packed_size(t.dtype(), t.numel())), '\0');
    pack_sub_byte(t.dtype(), static_cast<const uint8_t*>(t.raw()), t.numel(),
                  reinterpret_cast<uint8_t*>(packed.data()));
    proto.set_raw_data(std::move(packed));
  } else {
    proto.set_raw_data(static_cast<const char*>(t.raw()), t.nbytes());  // little-endian, as raw_data is
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  HI_RETURN_IF(!out, kInvalidArgument, "cannot write '", path, "': ", std::strerror(errno));
  HI_RETURN_IF(!proto.SerializeToOstream(&out) || !out.flush(), kInvalidArgument, "cannot write '", path,
               "': ", std::strerror(errno));
  return Status::ok();
}

}  // namespace hi
