// What a run-time-loaded vendor library (cuBLASLt, cuDNN) reports about itself. CUDA backend only.
#pragma once

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace hi::gpu::cuda_backend {

struct VendorLibrary {
  bool available = false;
  std::string version;  // "cuBLASLt 13.0.0", "cuDNN 9.19.0"
  std::string reason;   // why it is not available
};

// Resolves a dlopen()ed library's entry points into function pointers: resolve(fn, "name") sets
// fn, and the first name that is missing becomes `info`'s reason.
class SymbolResolver {
 public:
  SymbolResolver(void* handle, std::string library, VendorLibrary* info)
      : handle_(handle), library_(std::move(library)), info_(info) {}
  template <typename Fn>
  void operator()(Fn& fn, const char* name) {
    fn = reinterpret_cast<Fn>(dlsym(handle_, name));
    if (!fn && ok_) {
      ok_ = false;
      info_->reason = library_ + " has no " + name;
    }
  }
  bool ok() const { return ok_; }

 private:
  void* handle_;
  std::string library_;
  VendorLibrary* info_;
  bool ok_ = true;
};

// "cuDNN 9.19.0" from a version number major * 10000 + minor * 100 + patch.
inline std::string version_string(const char* name, size_t v) {
  return std::string(name) + " " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

}  // namespace hi::gpu::cuda_backend
