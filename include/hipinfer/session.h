// Session: a loaded, validated model ready to run. The main entry point of the C++ API.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hipinfer/status.h"
#include "hipinfer/tensor.h"

namespace hi {

struct SessionOptions {
  // Graph optimisation level: 0 none, 1 basic (constant folding, dead nodes), 2 extended,
  // 3 all (default), as in ONNX Runtime.
  int optimization_level = 3;
  // Intra-op threads; 0 = the physical cores.
  int threads = 0;
  // Largest single host tensor allocation (bytes); 0 = the machine's physical memory. The limit
  // is process-wide (host allocations share one accounting), so the last session to set it wins.
  int64_t memory_limit = 0;
  // Compute precision on the CPU: "fp32" (default) or "bf16" (convolutions and matrix products
  // in bfloat16 with fp32 accumulation, where the CPU has AVX512_BF16 or AMX; checked against
  // fp32 by an accuracy guard).
  std::string precision = "fp32";
};

// Name, element type and shape of a model input or output. Unknown dims are -1, with the
// symbolic name (if any) in dim_names.
struct TensorInfo {
  std::string name;
  DType dtype = DType::kUndefined;
  bool rank_known = true;
  std::vector<int64_t> shape;
  std::vector<std::string> dim_names;  // same length as shape; "" for known or unnamed dims
  std::string kind = "tensor";         // "tensor", "sequence", "optional", "map"
  std::string to_string() const;       // "float32[batch, 3, 224, 224]"
};

using TensorMap = std::map<std::string, Tensor>;

struct RunStats {
  double latency_ms = 0;        // wall time of the run
  int64_t nodes_executed = 0;
  int64_t peak_host_bytes = 0;  // high-water mark of live tensor memory during the run
  int64_t planned_arena_bytes = 0;  // size of the static memory plan's arena for these shapes (0: none)
  int64_t planned_activation_bytes = 0;  // the sum of the planned intermediate tensors the arena holds
};

class Session {
 public:
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Loads, validates and prepares a model. Errors name the file, node, tensor and the
  // expected and actual values; every unsupported op is listed in one message.
  static Result<std::unique_ptr<Session>> create(const std::string& path, const SessionOptions& options = {});
  static Result<std::unique_ptr<Session>> create_from_bytes(const void* data, size_t size,
                                                            const SessionOptions& options = {});

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;

  // Runs the model. Inputs are checked (names, dtypes, shapes) before anything runs; symbolic
  // dims must agree across inputs. `output_names` empty = all outputs, in model order.
  // Safe to call from several threads at once.
  Result<TensorMap> run(const TensorMap& inputs, const std::vector<std::string>& output_names = {},
                        RunStats* stats = nullptr) const;

  struct Impl;

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hi
