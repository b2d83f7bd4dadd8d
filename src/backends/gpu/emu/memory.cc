// Device memory of the emulated GPU: mmap'ed with an inaccessible page after each allocation
// (its end rounded to 256 bytes, as cudaMalloc aligns) and one before; the slack and the space
// before the allocation hold a canary checked at cudaFree; new memory is filled with 0xFF (NaN in
// float32 and float16, -1 in integers), so reads of unwritten memory show; copies and memsets
// must lie inside one allocation on the device side; HI_EMU_MEMORY bounds the total.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "backends/gpu/emu/runtime_state.h"

namespace hi::gpu::emu {
namespace {

constexpr unsigned char kPoison = 0xFF, kCanary = 0xA5;
constexpr size_t kAlign = 256, kMinLead = 64;

size_t page_size() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

// The allocation that holds [p, p + bytes), or null.
const Allocation* find_device_range(State& s, const void* p, size_t bytes, uintptr_t* base) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  auto it = s.allocations.upper_bound(at);
  if (it == s.allocations.begin()) return nullptr;
  --it;
  if (at + bytes > it->first + it->second.bytes) return nullptr;
  *base = it->first;
  return &it->second;
}

cudaError_t check_device_range(State& s, const char* call, const char* which, const void* p, size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  uintptr_t base = 0;
  if (find_device_range(s, p, bytes, &base)) return cudaSuccess;
  return fail(cudaErrorInvalidValue, std::string(call) + ": the " + which + " range [" + hex(p) + ", +" +
                                         std::to_string(bytes) +
                                         ") is not inside one allocation of the emulated device");
}

// Checks the canaries around an allocation: "" or what was overwritten.
std::string damaged_canary(uintptr_t user, const Allocation& a) {
  const char* p = reinterpret_cast<const char*>(user);
  const char* body = a.map + page_size();
  for (const char* q = body; q < p; ++q)
    if (static_cast<unsigned char>(*q) != kCanary)
      return std::to_string(p - q) + " bytes before the allocation of " + std::to_string(a.bytes) + " bytes at " +
             hex(p) + " were overwritten";
  for (size_t i = a.bytes; i < a.rounded; ++i)
    if (static_cast<unsigned char>(p[i]) != kCanary)
      return "byte " + std::to_string(i) + " of the allocation of " + std::to_string(a.bytes) + " bytes at " + hex(p) +
             " (past its end) was overwritten";
  return {};
}

}  // namespace

// ---- Memory -------------------------------------------------------------------------------------

cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  *ptr = nullptr;
  if (capture_forbids(s, "cudaMalloc")) return cudaErrorStreamCaptureUnsupported;
  if (bytes == 0) return cudaSuccess;
  const size_t limit = device_profile().memory_bytes;
  const size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  if (rounded < bytes || rounded > limit - std::min(s.used, limit))
    return fail(cudaErrorMemoryAllocation, "out of memory on the emulated GPU: cudaMalloc of " + std::to_string(bytes) +
                                               " bytes with " + std::to_string(s.used) + " of " +
                                               std::to_string(limit) + " bytes in use (HI_EMU_MEMORY sets the size)");
  const size_t page = page_size();
  const size_t body = (rounded + kMinLead + page - 1) / page * page;
  Allocation a;
  a.map_bytes = body + 2 * page;
  a.bytes = bytes;
  a.rounded = rounded;
  void* m = mmap(nullptr, a.map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return fail(cudaErrorMemoryAllocation,
                "out of host memory for the emulated GPU's cudaMalloc of " + std::to_string(bytes) + " bytes");
  a.map = static_cast<char*>(m);
  mprotect(a.map + page, body, PROT_READ | PROT_WRITE);
  char* user = a.map + page + body - rounded;
  std::memset(a.map + page, kCanary, static_cast<size_t>(user - (a.map + page)));
  std::memset(user, kPoison, bytes);
  std::memset(user + bytes, kCanary, rounded - bytes);
  s.allocations[reinterpret_cast<uintptr_t>(user)] = a;
  s.used += rounded;
  *ptr = user;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (capture_forbids(s, "cudaFree")) return cudaErrorStreamCaptureUnsupported;
  if (!ptr) return cudaSuccess;
  const auto it = s.allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == s.allocations.end())
    return fail(cudaErrorInvalidValue,
                "cudaFree(" + hex(ptr) + "): not a pointer that cudaMalloc returned, or freed twice");
  const Allocation a = it->second;
  const std::string damage = damaged_canary(it->first, a);
  s.used -= a.rounded;
  s.allocations.erase(it);
  munmap(a.map, a.map_bytes);
  if (!damage.empty())
    return fail(cudaErrorIllegalAddress, "emulated GPU: out-of-bounds write found at cudaFree: " + damage);
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned) {
  *ptr = std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64));
  if (!*ptr) return fail(cudaErrorMemoryAllocation, "cudaHostAlloc of " + std::to_string(bytes) + " bytes failed");
  std::lock_guard<std::mutex> lock(state().mutex);
  state().pinned.insert(*ptr);
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    if (ptr && !state().pinned.erase(ptr))
      return fail(cudaErrorInvalidValue, "cudaFreeHost(" + hex(ptr) + "): not from cudaHostAlloc");
  }
  std::free(ptr);
  return cudaSuccess;
}

namespace {

cudaError_t check_copy(const char* call, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (dst_device) HI_EMU_RETURN_IF_ERROR(check_device_range(s, call, "destination", dst, bytes));
  if (src_device) HI_EMU_RETURN_IF_ERROR(check_device_range(s, call, "source", src, bytes));
  return cudaSuccess;
}

}  // namespace

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    if (capture_forbids(state(), "cudaMemcpy")) return cudaErrorStreamCaptureUnsupported;
  }
  HI_EMU_RETURN_IF_ERROR(check_copy("cudaMemcpy", dst, src, bytes, kind));
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  HI_EMU_RETURN_IF_ERROR(check_copy("cudaMemcpyAsync", dst, src, bytes, kind));
  return enqueue(stream, Op::copy(dst, src, bytes));
}

cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) {
  {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    HI_EMU_RETURN_IF_ERROR(check_device_range(s, "cudaMemsetAsync", "destination", dst, bytes));
  }
  return enqueue(stream, Op::memset(dst, value, bytes));
}

}  // namespace hi::gpu::emu
