// hi_value: tensors the library allocates, tensors over the caller's memory, string tensors.
#include <cstring>
#include <string>

#include "capi/handles.h"

using namespace hi;
using capi::check;
using capi::guarded;

namespace {

// The shape a caller passed, checked: a pointer where the rank needs one, no negative dims.
Result<Shape> read_shape(const int64_t* dims, size_t rank) {
  HI_RETURN_IF(rank > 0 && dims == nullptr, kInvalidArgument, "'shape' is NULL but 'rank' is ", rank);
  HI_RETURN_IF(rank > 256, kInvalidArgument, "'rank' is ", rank, ", more than hipinfer's limit of 256");
  Shape shape(dims, dims + rank);
  for (size_t i = 0; i < rank; ++i)
    HI_RETURN_IF(shape[i] < 0, kInvalidArgument, "'shape' dim ", i, " is ", shape[i], ", expected 0 or more");
  HI_RETURN_IF(shape_numel(shape) < 0, kInvalidArgument, "'shape' ", shape_to_string(shape),
               " has more elements than int64 holds");
  return shape;
}

// Element types a hi_value holds (fixed-size numeric ones and bool; strings have their own call).
Result<DType> read_numeric_type(hi_element_type type) {
  const auto t = static_cast<DType>(type);
  HI_RETURN_IF(t == DType::kString, kInvalidArgument,
               "'type' is HI_TYPE_STRING; string tensors are made with hi_value_create_string_tensor");
  HI_RETURN_IF(hi_element_type_size(type) == 0, kInvalidArgument, "'type' ", static_cast<int>(type),
               " is not an element type of the C API (see hi_element_type)");
  return t;
}

}  // namespace

extern "C" {

hi_status* hi_value_create_tensor(hi_element_type type, const int64_t* shape, size_t rank, hi_value** out) {
  return guarded(__func__, [&]() -> Status {
    HI_CAPI_REQUIRE(out);
    *out = nullptr;
    HI_ASSIGN_OR_RETURN(DType dtype, read_numeric_type(type));
    HI_ASSIGN_OR_RETURN(Shape dims, read_shape(shape, rank));
    *out = capi::create<hi_value>(hi_value{Tensor::zeros(dtype, std::move(dims))});
    return Status::ok();
  });
}

hi_status* hi_value_create_tensor_with_data(hi_element_type type, const int64_t* shape, size_t rank, void* data,
                                            size_t byte_size, hi_value** out) {
  return guarded(__func__, [&]() -> Status {
    HI_CAPI_REQUIRE(out);
    *out = nullptr;
    HI_ASSIGN_OR_RETURN(DType dtype, read_numeric_type(type));
    HI_ASSIGN_OR_RETURN(Shape dims, read_shape(shape, rank));
    const auto needed = static_cast<unsigned long long>(shape_numel(dims)) * dtype_size(dtype);
    HI_RETURN_IF(byte_size != needed, kInvalidArgument, "'byte_size' is ", byte_size, " but ", dtype_name(dtype),
                 shape_to_string(dims), " needs ", needed, " bytes");
    HI_RETURN_IF(data == nullptr && needed > 0, kInvalidArgument, "'data' is NULL");
    *out = capi::create<hi_value>(hi_value{Tensor::wrap(dtype, std::move(dims), data, nullptr)});
    return Status::ok();
  });
}

hi_status* hi_value_create_string_tensor(const int64_t* shape, size_t rank, const char* const* strings, size_t count,
                                         hi_value** out) {
  return guarded(__func__, [&]() -> Status {
    HI_CAPI_REQUIRE(out);
    *out = nullptr;
    HI_ASSIGN_OR_RETURN(Shape dims, read_shape(shape, rank));
    const int64_t numel = shape_numel(dims);
    HI_RETURN_IF(count != static_cast<uint64_t>(numel), kInvalidArgument, "'count' is ", count, " but the shape ",
                 shape_to_string(dims), " has ", numel, " elements");
    HI_RETURN_IF(count > 0 && strings == nullptr, kInvalidArgument, "'strings' is NULL");
    Tensor t = Tensor::empty(DType::kString, dims);
    for (size_t i = 0; i < count; ++i) {
      HI_RETURN_IF(strings[i] == nullptr, kInvalidArgument, "'strings[", i, "]' is NULL");
      t.strings()[i] = strings[i];
    }
    *out = capi::create<hi_value>(hi_value{std::move(t)});
    return Status::ok();
  });
}

hi_status* hi_value_free(hi_value* value) {
  return guarded(__func__, [&] { return capi::destroy(value, "value"); });
}

hi_status* hi_value_get_element_type(const hi_value* value, hi_element_type* out) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(value, "value"));
    HI_CAPI_REQUIRE(out);
    *out = static_cast<hi_element_type>(value->tensor.dtype());
    return Status::ok();
  });
}

hi_status* hi_value_get_shape(const hi_value* value, int64_t* dims, size_t capacity, size_t* rank) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(value, "value"));
    HI_CAPI_REQUIRE(rank);
    const Shape& shape = value->tensor.shape();
    *rank = shape.size();
    HI_RETURN_IF(capacity < shape.size(), kInvalidArgument, "'capacity' is ", capacity, " but the value has rank ",
                 shape.size());
    HI_RETURN_IF(dims == nullptr && !shape.empty(), kInvalidArgument, "'dims' is NULL");
    std::copy(shape.begin(), shape.end(), dims);
    return Status::ok();
  });
}

hi_status* hi_value_get_element_count(const hi_value* value, int64_t* out) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(value, "value"));
    HI_CAPI_REQUIRE(out);
    *out = value->tensor.numel();
    return Status::ok();
  });
}

hi_status* hi_value_get_data(hi_value* value, void** data, size_t* byte_size) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(value, "value"));
    HI_CAPI_REQUIRE(data);
    HI_RETURN_IF(value->tensor.dtype() == DType::kString, kInvalidArgument,
                 "'value' is a string tensor; read it with hi_value_get_string");
    *data = value->tensor.raw();
    if (byte_size != nullptr) *byte_size = value->tensor.nbytes();
    return Status::ok();
  });
}

hi_status* hi_value_get_string(const hi_value* value, size_t index, const char** out, size_t* length) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(value, "value"));
    HI_CAPI_REQUIRE(out);
    const Tensor& t = value->tensor;
    HI_RETURN_IF(t.dtype() != DType::kString, kInvalidArgument, "'value' is ", t.type_string(),
                 ", not a string tensor");
    HI_RETURN_IF(index >= static_cast<uint64_t>(t.numel()), kInvalidArgument, "'index' is ", index,
                 " but the value has ", t.numel(), " elements");
    const std::string& s = t.strings()[index];
    *out = s.c_str();
    if (length != nullptr) *length = s.size();
    return Status::ok();
  });
}

}  // extern "C"
