// Large host tensors (1 MiB and up) live in blocks mapped from the kernel and, once released,
// wait in a bounded cache for reuse instead of going back through malloc. With malloc, glibc
// raises its mmap threshold after the first such free, every later large tensor then comes from
// its heap, and a model fed ever new shapes leaves that heap fragmented and never returned: the
// OCR recogniser on 40 text-line sizes held 2 GiB of RSS for 96 MiB of tensors (ONNX Runtime:
// 0.2 GiB). Unmapping every block instead costs a page fault per page of every new tensor
// (that run took 2.1x as long); the cache keeps blocks already faulted in, up to
// kCachedBytes in all, unmapping the least recently released past that.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hi::host_blocks {

inline constexpr size_t kMinBytes = size_t{1} << 20;  // smaller tensors use malloc
// Free blocks kept for reuse, in all (the process's, shared by its sessions). On the recogniser's
// 40 new shapes, 128 MiB ran 9 % faster than 64 MiB for 58 MiB more RSS; 256 MiB 3 % faster again
// for 126 MiB more.
inline constexpr size_t kCachedBytes = size_t{128} << 20;

// A block of at least `bytes` (page-aligned), from the cache or newly mapped; its real size in
// *block_bytes. Null when the system has no memory for it.
void* take(size_t bytes, size_t* block_bytes);
// Returns a block from take() for reuse.
void give_back(void* block, size_t block_bytes);

struct Stats {
  int64_t cached_bytes = 0;  // free blocks waiting for reuse
  int64_t mapped_bytes = 0;  // all blocks mapped, in use or cached
};
Stats stats();

}  // namespace hi::host_blocks
