#include "tensor_codec.h"

#include <cstring>

namespace hi::server {
namespace {

uint32_t read_u32_le(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // x86-64 and the GPUs' hosts are little-endian
  return v;
}

}  // namespace

Error check_request_shape(const std::string& input, const Shape& shape, int64_t* numel) {
  for (int64_t d : shape)
    if (d < 0)
      return make_error(ErrorCode::kInvalidArgument,
                        str("input '", input, "': shape ", shape_to_string(shape), " has a negative dim"));
  *numel = shape_numel(shape);
  if (*numel < 0)
    return make_error(ErrorCode::kInvalidArgument,
                      str("input '", input, "': shape ", shape_to_string(shape), " has too many elements"));
  return {};
}

Error tensor_from_raw(const std::string& input, DType dtype, const Shape& shape, std::string_view raw, Tensor* out) {
  int64_t numel = 0;
  if (Error e = check_request_shape(input, shape, &numel); !e.ok()) return e;
  if (dtype != DType::kString) {
    const size_t expected = static_cast<size_t>(numel) * dtype_size(dtype);
    if (numel > 0 && expected / static_cast<size_t>(numel) != dtype_size(dtype))
      return make_error(ErrorCode::kInvalidArgument,
                        str("input '", input, "': shape ", shape_to_string(shape), " is too large"));
    if (raw.size() != expected)
      return make_error(ErrorCode::kInvalidArgument,
                        str("input '", input, "': ", dtype_name(dtype), shape_to_string(shape), " needs ", expected,
                            " bytes of data, got ", raw.size()));
    if (dtype == DType::kBool)  // any other byte would be an invalid bool in every kernel that reads it
      for (size_t i = 0; i < raw.size(); ++i)
        if (static_cast<unsigned char>(raw[i]) > 1)
          return make_error(ErrorCode::kInvalidArgument,
                            str("input '", input, "': BOOL element ", i, " is byte ",
                                int(static_cast<unsigned char>(raw[i])), ", expected 0 or 1"));
    *out = Tensor::empty(dtype, shape);
    if (expected) std::memcpy(out->raw(), raw.data(), expected);
    return {};
  }
  // BYTES: count the elements first so a bad length allocates nothing.
  size_t offset = 0;
  for (int64_t i = 0; i < numel; ++i) {
    if (raw.size() - offset < 4 || raw.size() - offset - 4 < read_u32_le(raw.data() + offset))
      return make_error(ErrorCode::kInvalidArgument,
                        str("input '", input, "': BYTES element ", i, " of ", numel, " runs past the end of its ",
                            raw.size(), " bytes of data (each element is a 4-byte length, then the bytes)"));
    offset += 4 + read_u32_le(raw.data() + offset);
  }
  if (offset != raw.size())
    return make_error(ErrorCode::kInvalidArgument, str("input '", input, "': ", raw.size() - offset,
                                                       " bytes of data left after its ", numel, " BYTES elements"));
  *out = Tensor::empty(DType::kString, shape);
  offset = 0;
  for (int64_t i = 0; i < numel; ++i) {
    const uint32_t len = read_u32_le(raw.data() + offset);
    out->strings()[i].assign(raw.data() + offset + 4, len);
    offset += 4 + len;
  }
  return {};
}

size_t raw_size(const Tensor& tensor) {
  if (tensor.dtype() != DType::kString) return tensor.nbytes();
  size_t bytes = 0;
  for (int64_t i = 0; i < tensor.numel(); ++i) bytes += 4 + tensor.strings()[i].size();
  return bytes;
}

void append_raw(const Tensor& tensor, std::string& out) {
  if (tensor.dtype() != DType::kString) {
    out.append(static_cast<const char*>(tensor.raw()), tensor.nbytes());
    return;
  }
  out.reserve(out.size() + raw_size(tensor));
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    const std::string& s = tensor.strings()[i];
    const uint32_t len = static_cast<uint32_t>(s.size());
    char prefix[4];
    std::memcpy(prefix, &len, 4);
    out.append(prefix, 4);
    out.append(s);
  }
}

}  // namespace hi::server
