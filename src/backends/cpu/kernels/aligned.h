// Vectors whose storage starts on a 64-byte boundary, the width of an AVX-512 register and of a
// cache line: buffers that the kernels read and write a vector at a time. A plain std::vector
// is 16-byte aligned, so every 64-byte load from it straddles two cache lines.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace hi::cpu {

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const {
    return true;
  }
};

template <typename T>
using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace hi::cpu
