// What a run-time-loaded vendor library (cuBLASLt, cuDNN) reports about itself. CUDA backend only.
#pragma once

#include <string>

namespace hi::gpu::cuda_backend {

struct VendorLibrary {
  bool available = false;
  std::string version;  // "cuBLASLt 13.0.0", "cuDNN 9.19.0"
  std::string reason;   // why it is not available
};

}  // namespace hi::gpu::cuda_backend
