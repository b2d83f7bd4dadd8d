// Whole models placed GPU-first on the emulated GPU against the CPU: the zoo's ResNet-50,
// MobileNetV2 and encoder at their benchmark sizes, and the three PP-OCR models (trained,
// Paddle2ONNX exports) that scripts/setup unpacks from the rapidocr-onnxruntime wheel. Each runs
// twice: the first run launches directly, the second captures a graph and replays it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpu_skip.h"
#include "hipinfer/session.h"
#include "hipinfer/zoo.h"
#include "kernel_harness.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

void expect_emulated_matches_cpu(const std::string& bytes, const std::string& what, std::vector<int64_t> dims,
                                 double min_gpu_fraction) {
  SessionOptions cpu, emu;
  cpu.devices = {"cpu"};
  emu.devices = {HI_GPU_BACKEND, "cpu"};
  auto a = Session::create_from_bytes(bytes.data(), bytes.size(), cpu);
  auto b = Session::create_from_bytes(bytes.data(), bytes.size(), emu);
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  const PlacementReport& p = b.value()->placement();
  EXPECT_GE(static_cast<double>(p.count_on(HI_GPU_BACKEND ":0")),
            min_gpu_fraction * static_cast<double>(p.nodes.size()))
      << what << "\n"
      << p.table();
  const TensorMap feeds = model_feeds(*a.value(), dims);
  auto want = a.value()->run(feeds);
  ASSERT_TRUE(want.is_ok()) << want.status().to_string();
  for (const char* run : {"direct run", "graph replay"}) {
    auto got = b.value()->run(feeds);
    ASSERT_TRUE(got.is_ok()) << what << " " << run << ": " << got.status().to_string();
    expect_outputs_close(want.value(), got.value(), what + " (" + run + ")");
  }
  const PartitionGraphStats g = b.value()->graph_stats();
  EXPECT_GE(g.replays, 1) << what << ": the second run should replay a captured graph";
  EXPECT_EQ(g.failures, 0) << what << ": " << g.last_failure;
}

TEST(HI_GPU_TEST_SUITE, ZooModelsAtBenchmarkSizeMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  zoo::ZooOptions image;  // 224 x 224, 1000 classes, batch 1
  for (const char* model : {"resnet50", "mobilenetv2"}) {
    auto bytes = zoo::build_zoo_model(model, image);
    ASSERT_TRUE(bytes.is_ok());
    expect_emulated_matches_cpu(bytes.value(), model, {1}, 0.95);
  }
  zoo::ZooOptions encoder;  // the benchmarks' encoder: 4 layers of 256, 4 heads, 128 tokens
  encoder.layers = 4;
  encoder.hidden = 256;
  encoder.heads = 4;
  auto bytes = zoo::build_zoo_model("bert", encoder);
  ASSERT_TRUE(bytes.is_ok());
  expect_emulated_matches_cpu(bytes.value(), "encoder 4x256", {1}, 0.9);
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// scripts/setup unpacks the models into .venv/ppocr; HI_PPOCR_DIR names another folder.
TEST(HI_GPU_TEST_SUITE, PpOcrModelsMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const char* env = std::getenv("HI_PPOCR_DIR");
  const std::filesystem::path dir =
      env ? std::filesystem::path(env) : std::filesystem::path(HI_TEST_SOURCE_DIR) / ".venv" / "ppocr";
  struct Model {
    const char* file;
    std::vector<int64_t> dims;  // the dynamic dims: batch, height, width
    double min_gpu_fraction;    // the rest is shape arithmetic kept on the CPU
  };
  for (const Model& m : {Model{"ch_ppocr_mobile_v2.0_cls_infer.onnx", {2, 48, 192}, 0.9},
                         Model{"ch_PP-OCRv4_det_infer.onnx", {1, 160, 192}, 0.9},
                         Model{"ch_PP-OCRv4_rec_infer.onnx", {1, 48, 160}, 0.85}}) {
    const std::filesystem::path path = dir / m.file;
    ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: scripts/setup unpacks it (or set HI_PPOCR_DIR)";
    expect_emulated_matches_cpu(read_file(path), m.file, m.dims, m.min_gpu_fraction);
  }
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
