// Tensors to and from the protocol's raw form, shared by HTTP (binary tensor data extension) and
// gRPC (raw_input_contents / raw_output_contents): little-endian elements in row-major order;
// BYTES elements each as a 4-byte little-endian length and then the bytes.
#pragma once

#include <string>
#include <string_view>

#include "hipinfer/tensor.h"
#include "server_error.h"

namespace hi::server {

// Checks a request's shape (no negative dims, element count within limits) before any allocation.
Error check_request_shape(const std::string& input, const Shape& shape, int64_t* numel);

// A tensor of the given type and shape from raw bytes. Errors name the input, the expected byte
// size (or the BYTES element that runs past the end) and the actual one.
Error tensor_from_raw(const std::string& input, DType dtype, const Shape& shape, std::string_view raw, Tensor* out);
// The tensor's raw bytes appended to `out`.
void append_raw(const Tensor& tensor, std::string& out);
// Bytes append_raw would write.
size_t raw_size(const Tensor& tensor);

}  // namespace hi::server
