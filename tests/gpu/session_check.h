// One-node (or small) models run by a session that may use only this GPU backend, against the
// same model on the CPU: every node must be placed on the GPU, the second run replays the graph
// the first captured and must give the same bytes. Floats compare with expect_close, integers
// and bools exactly. For the GPU op tests compiled once per backend.
#pragma once

#include <cstring>

#include "gpu/kernel_harness.h"

namespace hi::gpu::HI_GPU_NS {

inline std::vector<int64_t> dims(const Shape& s) { return std::vector<int64_t>(s.begin(), s.end()); }

// Runs the model on `devices`; with a GPU first, every node must be placed on it.
inline TensorMap run_model(const ModelBuilder& b, const TensorMap& feeds, const std::vector<std::string>& devices,
                           int runs) {
  const std::string bytes = b.bytes();
  SessionOptions o;
  o.devices = devices;
  o.optimization_level = 0;
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  EXPECT_TRUE(s.is_ok()) << s.status().to_string();
  if (!s.is_ok()) return {};
  if (devices.front() != "cpu") {
    const PlacementReport& p = s.value()->placement();
    EXPECT_EQ(p.count_on(HI_GPU_BACKEND ":0"), static_cast<int64_t>(p.nodes.size())) << p.table();
  }
  TensorMap last;
  // The first run launches directly, the second captures a graph and launches it, the third
  // replays it: each must give the same bytes.
  for (int r = 0; r < runs; ++r) {
    auto out = s.value()->run(feeds);
    EXPECT_TRUE(out.is_ok()) << out.status().to_string();
    if (!out.is_ok()) return {};
    if (r > 0) {
      for (const auto& [name, t] : out.value())
        EXPECT_EQ(std::memcmp(t.raw(), last.at(name).raw(), t.nbytes()), 0) << "replay differs for " << name;
    }
    last = std::move(out).value();
  }
  return last;
}

// The model on this GPU against the CPU, every output.
inline void check(const ModelBuilder& b, const TensorMap& feeds, const std::string& what, double atol = 1e-6) {
  const TensorMap want = run_model(b, feeds, {"cpu"}, 1);
  const TensorMap got = run_model(b, feeds, {HI_GPU_BACKEND}, 3);
  ASSERT_FALSE(want.empty()) << what;
  for (const auto& [name, w] : want) {
    auto it = got.find(name);
    ASSERT_TRUE(it != got.end()) << what << ": no output " << name;
    if (w.dtype() == DType::kFloat32 || w.dtype() == DType::kFloat16) {
      expect_close(w, it->second, what + " output " + name, atol);
      continue;
    }
    ASSERT_EQ(w.dtype(), it->second.dtype()) << what << " output " << name;
    ASSERT_EQ(w.shape(), it->second.shape()) << what << " output " << name;
    EXPECT_EQ(std::memcmp(w.raw(), it->second.raw(), w.nbytes()), 0) << what << " output " << name << " differs";
  }
}

}  // namespace hi::gpu::HI_GPU_NS
