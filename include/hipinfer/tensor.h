// Tensor: a typed, shaped view of a reference-counted host buffer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hipinfer/dtype.h"
#include "hipinfer/export.h"
#include "hipinfer/status.h"

HI_PUBLIC_BEGIN
namespace hi {

using Shape = std::vector<int64_t>;

// Number of elements of a shape; -1 if a dim is negative or the product overflows int64.
int64_t shape_numel(const Shape& shape);
std::string shape_to_string(const Shape& shape);  // "[1, 3, 224, 224]"

// Thrown by host allocation when a request exceeds the memory limit or fails. The executor turns
// it into a kOutOfMemory Status at the node boundary; it never escapes the library.
struct OutOfMemory {
  size_t requested = 0;
  std::string what;
};

// Thrown when a tensor is read as an element type it does not hold: a kernel reached with a value
// its type inference did not expect. A hipinfer bug, but one a hostile model may reach, so it is
// an exception the executor turns into a kInternal Status naming the node, never an abort.
struct TensorTypeMismatch {
  std::string what;
};

// Host memory accounting shared by every tensor buffer hipinfer allocates.
struct HostMemoryStats {
  int64_t allocated_bytes = 0;  // live now
  int64_t peak_bytes = 0;       // high-water mark since the last reset
  int64_t allocations = 0;      // count of buffers allocated
};
HostMemoryStats host_memory_stats();
void reset_host_peak();
// Largest single allocation allowed (default: the machine's physical memory).
void set_host_allocation_limit(int64_t bytes);
int64_t host_allocation_limit();

class Tensor {
 public:
  Tensor() = default;

  // Uninitialised storage (strings are default-constructed). Throws OutOfMemory.
  static Tensor empty(DType dtype, Shape shape);
  static Tensor zeros(DType dtype, Shape shape);
  // A tensor over memory hipinfer does not own; `owner` keeps it alive.
  static Tensor wrap(DType dtype, Shape shape, void* data, std::shared_ptr<void> owner);
  // A 1-element tensor of rank 0 (or the given shape filled with the value).
  template <typename T>
  static Tensor scalar(T value) {
    Tensor t = empty(dtype_of<T>, {});
    *t.data<T>() = value;
    return t;
  }
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, Shape shape) {
    Tensor t = empty(dtype_of<T>, std::move(shape));
    for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.numel()); ++i) t.data<T>()[i] = values[i];
    return t;
  }

  bool defined() const { return data_ != nullptr || numel_ == 0; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_[static_cast<size_t>(i)]; }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * dtype_size(dtype_); }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  template <typename T>
  T* data() {
    if (dtype_of<T> != dtype_ && sizeof(T) != dtype_size(dtype_)) [[unlikely]]
      throw TensorTypeMismatch{str("tensor is ", dtype_name(dtype_), ", accessed as ", dtype_name(dtype_of<T>))};
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* data() const {
    return const_cast<Tensor*>(this)->data<T>();
  }
  std::string* strings() {
    if (dtype_ != DType::kString) [[unlikely]]
      throw TensorTypeMismatch{str("tensor is ", dtype_name(dtype_), ", accessed as string")};
    return static_cast<std::string*>(data_);
  }
  const std::string* strings() const { return const_cast<Tensor*>(this)->strings(); }

  // Same buffer, another shape with the same element count.
  Tensor reshaped(Shape shape) const;
  // A deep copy in fresh storage.
  Tensor clone() const;
  // Element i converted to double / int64 (any numeric dtype); for shape-like inputs.
  double as_double(int64_t i) const;
  int64_t as_int64(int64_t i) const;
  // All elements as int64 (for shape, axes, pads inputs).
  std::vector<int64_t> to_int64_vector() const;
  // "float32[2, 3]"
  std::string type_string() const;
  // Keeps the storage alive (for zero-copy hand-off to Python etc).
  const std::shared_ptr<void>& storage() const { return storage_; }

 private:
  DType dtype_ = DType::kUndefined;
  Shape shape_;
  int64_t numel_ = 0;
  std::shared_ptr<void> storage_;
  void* data_ = nullptr;
};

}  // namespace hi
HI_PUBLIC_END
