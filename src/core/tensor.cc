// Tensor storage and host memory accounting.
#include "hipinfer/tensor.h"

#include "core/host_blocks.h"
#include "core/low_precision.h"
#include "core/memory_budget.h"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace hi {
namespace {

std::atomic<int64_t> g_allocated{0};
std::atomic<int64_t> g_peak{0};
std::atomic<int64_t> g_count{0};
std::atomic<int64_t> g_limit{0};

// Read once: sysconf(_SC_PHYS_PAGES) is a sysinfo() system call, and every allocation asks
// (it was a tenth of a small model's per-call time).
int64_t physical_memory() {
  static const int64_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(pages) * page;
  }();
  return bytes;
}

void note_alloc(int64_t bytes) {
  const int64_t now = g_allocated.fetch_add(bytes) + bytes;
  g_count.fetch_add(1);
  int64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}

constexpr size_t kAlignment = 64;  // a cache line; what vector kernels want

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (b >= 1024 && u < 6) {
    b /= 1024;
    ++u;
  }
  return str(static_cast<int64_t>(b * 10) / 10.0, " ", units[u]);
}

thread_local std::shared_ptr<MemoryBudget> t_budget;

// Returns the storage's bytes to the process count and to the budget it was charged to.
struct Release {
  int64_t bytes;
  std::shared_ptr<MemoryBudget> budget;
  void operator()() const {
    g_allocated.fetch_sub(bytes);
    if (budget) budget->credit(bytes);
  }
};

// Allocates `count` elements of `dtype`, accounted; strings are constructed.
std::shared_ptr<void> allocate(DType dtype, int64_t count) {
  const size_t elem = dtype_size(dtype);
  if (count < 0 || elem == 0) throw OutOfMemory{0, "cannot allocate a " + dtype_name(dtype) + " tensor"};
  if (count > 0 && static_cast<uint64_t>(count) > std::numeric_limits<int64_t>::max() / elem)
    throw OutOfMemory{0, str(count, " elements of ", dtype_name(dtype), " overflow a 64-bit size")};
  const int64_t bytes = count * static_cast<int64_t>(elem);
  if (bytes > host_allocation_limit())
    throw OutOfMemory{static_cast<size_t>(bytes),
                      str("a tensor of ", human_bytes(bytes), " exceeds the host memory limit of ",
                          human_bytes(host_allocation_limit()))};
  const Release release{bytes, t_budget};
  if (release.budget) release.budget->charge(bytes);
  const size_t padded = (static_cast<size_t>(bytes) + kAlignment - 1) / kAlignment * kAlignment;
  if (dtype != DType::kString && padded >= host_blocks::kMinBytes) {
    size_t block_bytes = 0;
    void* block = host_blocks::take(padded, &block_bytes);
    if (!block) {
      if (release.budget) release.budget->credit(bytes);
      throw OutOfMemory{static_cast<size_t>(bytes), str("allocation of ", human_bytes(bytes), " failed")};
    }
    note_alloc(bytes);
    return std::shared_ptr<void>(block, [release, block_bytes](void* q) {
      host_blocks::give_back(q, block_bytes);
      release();
    });
  }
  void* p = std::aligned_alloc(kAlignment, padded == 0 ? kAlignment : padded);
  if (!p) {
    if (release.budget) release.budget->credit(bytes);
    throw OutOfMemory{static_cast<size_t>(bytes), str("allocation of ", human_bytes(bytes), " failed")};
  }
  note_alloc(bytes);
  if (dtype == DType::kString) {
    auto* s = static_cast<std::string*>(p);
    for (int64_t i = 0; i < count; ++i) new (s + i) std::string();
    return std::shared_ptr<void>(p, [count, release](void* q) {
      auto* s = static_cast<std::string*>(q);
      for (int64_t i = 0; i < count; ++i) s[i].~basic_string();
      std::free(q);
      release();
    });
  }
  return std::shared_ptr<void>(p, [release](void* q) {
    std::free(q);
    release();
  });
}

}  // namespace

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

void MemoryBudget::charge(int64_t bytes) {
  // Without a limit of its own, a session still cannot hold more than the machine has.
  const int64_t cap = limit_ > 0 ? limit_ : host_allocation_limit();
  const int64_t now = used_.fetch_add(bytes) + bytes;
  if (now > cap) {
    used_.fetch_sub(bytes);
    throw OutOfMemory{static_cast<size_t>(bytes),
                      str("allocating ", human_bytes(bytes), " would pass ",
                          limit_ > 0 ? "the session's memory limit of " : "the host memory of ", human_bytes(cap),
                          " (the session holds ", human_bytes(now - bytes), ")")};
  }
  if (parent_) {
    try {
      parent_->charge(bytes);
    } catch (...) {
      used_.fetch_sub(bytes);
      throw;
    }
  }
  int64_t peak = peak_.load();
  while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
  }
}

void MemoryBudget::credit(int64_t bytes) {
  used_.fetch_sub(bytes);
  if (parent_) parent_->credit(bytes);
}

ScratchBytes::ScratchBytes(int64_t bytes) : bytes_(bytes), budget_(t_budget) {
  if (bytes_ < 0) throw OutOfMemory{0, "scratch memory of a size that overflows int64"};
  if (budget_) {
    budget_->charge(bytes_);
  } else if (bytes_ > host_allocation_limit()) {
    throw OutOfMemory{static_cast<size_t>(bytes_),
                      str("scratch memory of ", human_bytes(bytes_), " exceeds the host memory limit of ",
                          human_bytes(host_allocation_limit()))};
  }
}
ScratchBytes::~ScratchBytes() {
  if (budget_) budget_->credit(bytes_);
}

void ScratchReservation::grow(int64_t bytes) {
  if (bytes_ == 0) budget_ = t_budget;
  if (bytes < 0 || bytes > std::numeric_limits<int64_t>::max() - bytes_)
    throw OutOfMemory{0, "scratch memory of a size that overflows int64"};
  if (budget_) {
    budget_->charge(bytes);
  } else if (bytes_ + bytes > host_allocation_limit()) {
    throw OutOfMemory{static_cast<size_t>(bytes),
                      str("scratch memory of ", human_bytes(bytes_ + bytes), " exceeds the host memory limit of ",
                          human_bytes(host_allocation_limit()))};
  }
  bytes_ += bytes;
}

void ScratchReservation::release() {
  if (budget_ && bytes_) budget_->credit(bytes_);
  bytes_ = 0;
  budget_.reset();
}

MemoryBudgetScope::MemoryBudgetScope(std::shared_ptr<MemoryBudget> budget) : previous_(std::move(t_budget)) {
  t_budget = std::move(budget);
}
MemoryBudgetScope::~MemoryBudgetScope() { t_budget = std::move(previous_); }
const std::shared_ptr<MemoryBudget>& current_memory_budget() { return t_budget; }

HostMemoryStats host_memory_stats() { return {g_allocated.load(), g_peak.load(), g_count.load()}; }
void reset_host_peak() { g_peak.store(g_allocated.load()); }
void set_host_allocation_limit(int64_t bytes) { g_limit.store(bytes); }
int64_t host_allocation_limit() {
  const int64_t l = g_limit.load();
  return l > 0 ? l : physical_memory();
}

Tensor Tensor::empty(DType dtype, Shape shape) {
  const int64_t n = shape_numel(shape);
  if (n < 0) throw OutOfMemory{0, "tensor shape " + shape_to_string(shape) + " has a negative dim or overflows"};
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = n;
  t.storage_ = allocate(dtype, n);
  t.data_ = t.storage_.get();
  return t;
}

Tensor Tensor::zeros(DType dtype, Shape shape) {
  Tensor t = empty(dtype, std::move(shape));
  if (dtype != DType::kString) std::memset(t.data_, 0, t.nbytes());
  return t;
}

Tensor Tensor::wrap(DType dtype, Shape shape, void* data, std::shared_ptr<void> owner) {
  Tensor t;
  t.dtype_ = dtype;
  t.numel_ = shape_numel(shape);
  HI_ASSERT(t.numel_ >= 0, "bad shape ", shape_to_string(shape));
  t.shape_ = std::move(shape);
  t.storage_ = std::move(owner);
  t.data_ = data;
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
  Tensor t = *this;
  HI_ASSERT(shape_numel(shape) == numel_, "reshape ", shape_to_string(shape_), " to ", shape_to_string(shape));
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::clone() const {
  Tensor t = empty(dtype_, shape_);
  if (dtype_ == DType::kString) {
    for (int64_t i = 0; i < numel_; ++i) t.strings()[i] = strings()[i];
  } else if (numel_ > 0) {
    std::memcpy(t.data_, data_, nbytes());
  }
  return t;
}

double Tensor::as_double(int64_t i) const {
  switch (dtype_) {
    case DType::kFloat32: return data<float>()[i];
    case DType::kFloat64: return data<double>()[i];
    case DType::kFloat16: return static_cast<float>(data<Float16>()[i]);
    case DType::kBFloat16: return static_cast<float>(data<BFloat16>()[i]);
    case DType::kInt8: return data<int8_t>()[i];
    case DType::kInt16: return data<int16_t>()[i];
    case DType::kInt32: return data<int32_t>()[i];
    case DType::kInt64: return static_cast<double>(data<int64_t>()[i]);
    case DType::kUInt8: return data<uint8_t>()[i];
    case DType::kUInt16: return data<uint16_t>()[i];
    case DType::kUInt32: return data<uint32_t>()[i];
    case DType::kUInt64: return static_cast<double>(data<uint64_t>()[i]);
    case DType::kBool: return data<bool>()[i] ? 1.0 : 0.0;
    default:
      if (dtype_is_low_precision(dtype_)) return low_precision_to_float(dtype_, data<uint8_t>()[i]);
      throw TensorTypeMismatch{str("tensor is ", dtype_name(dtype_), ", read as a number")};
  }
  return 0;
}

int64_t Tensor::as_int64(int64_t i) const {
  switch (dtype_) {
    case DType::kInt64: return data<int64_t>()[i];
    case DType::kInt32: return data<int32_t>()[i];
    case DType::kInt16: return data<int16_t>()[i];
    case DType::kInt8: return data<int8_t>()[i];
    case DType::kUInt8: return data<uint8_t>()[i];
    case DType::kUInt16: return data<uint16_t>()[i];
    case DType::kUInt32: return data<uint32_t>()[i];
    case DType::kUInt64: return static_cast<int64_t>(data<uint64_t>()[i]);
    case DType::kBool: return data<bool>()[i] ? 1 : 0;
    default: {
      // Floats saturate (NaN reads as 0): a float where an index or a shape belongs must give an
      // error downstream, never undefined behaviour here.
      const double d = as_double(i);
      if (std::isnan(d)) return 0;
      if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
      if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
      return static_cast<int64_t>(d);
    }
  }
}

std::vector<int64_t> Tensor::to_int64_vector() const {
  std::vector<int64_t> v(static_cast<size_t>(numel_));
  for (int64_t i = 0; i < numel_; ++i) v[static_cast<size_t>(i)] = as_int64(i);
  return v;
}

std::string Tensor::type_string() const { return dtype_name(dtype_) + shape_to_string(shape_); }

}  // namespace hi
