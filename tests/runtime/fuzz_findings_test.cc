// The session fuzzer's past findings (fuzz/corpus/session/), each loaded as the fuzzer loads it,
// with what it must give now: a clear error naming the node and the values at fault, or a
// session whose declared-but-unbacked sizes stay unknown instead of being allocated. ctest's
// session_fuzz_corpus_replay also runs each through the fuzzer's harness (a crash fails it);
// this test pins the message, so a fix that turns a crash into a vague error does not pass.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "hipinfer/session.h"

namespace hi::test {
namespace {

struct Finding {
  std::string file;                    // in fuzz/corpus/session/
  std::vector<std::string> fragments;  // of the create() error; empty: create() succeeds
};

// The fuzzer's options (fuzz/session_fuzz.cc): a small memory limit and folding limit, one thread.
Result<std::unique_ptr<Session>> create_as_the_fuzzer_does(const std::string& path) {
  SessionOptions options;
  options.memory_limit = int64_t{256} << 20;
  options.constant_folding_limit = int64_t{1} << 20;
  options.threads = 1;
  options.devices = {"cpu"};
  return Session::create(path, options);
}

std::filesystem::path corpus() {
  const char* src = std::getenv("HI_SOURCE_DIR");
  return std::filesystem::path(src ? src : ".") / "fuzz" / "corpus" / "session";
}

TEST(SessionFuzzFindings, EachFailsCleanlyOrLoads) {
  const std::vector<Finding> findings = {
      {"attention-2pow62-head-size-times-heads-overflow.onnx", {"Attention", "overflows int64"}},
      {"linear-attention-2pow62-dim-times-heads-overflow.onnx",
       {"LinearAttention", "q_num_heads 4611686018427387904", "overflows int64"}},
      {"rnn-hidden-size-int64-max-times-gates-overflow.onnx",
       {"GRU", "hidden_size 9223372036854775806", "overflows int64"}},
      {"dft-scalar-input-infer-back-of-empty-dims.onnx", {"DFT", "float32[]"}},
      {"scan-scalar-scan-input-infer-null-reference.onnx", {"Scan", "scan input 0", "a scalar has no axis to scan"}},
      // Expand's shape input declared int32[2^32]: a rank no memory backs, so the output's shape
      // is unknown at create (and the run checks the real shape).
      {"expand-2pow32-shape-input-infer-160gib.onnx", {}},
      // Types no inference checked, read at run as another type (an abort in Tensor::data<T>).
      {"gemm-c-int64-from-shape-read-as-float.onnx", {"Gemm", "A is float32 but C is int64"}},
      {"reshape-string-shape-input-read-as-number.onnx", {"Reshape", "shape must be int64, got string"}},
      // A Mul with one input passed inference, and the HardSwish fusion read its second input.
      {"mul-one-input-hard-swish-pass-reads-input-1.onnx", {"Mul", "needs 2 inputs, but input 1 is missing"}},
  };
  for (const Finding& f : findings) {
    SCOPED_TRACE(f.file);
    const auto path = corpus() / f.file;
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    auto s = create_as_the_fuzzer_does(path.string());
    if (f.fragments.empty()) {
      EXPECT_TRUE(s.is_ok()) << s.status().to_string();
      continue;
    }
    ASSERT_FALSE(s.is_ok()) << "loaded, but should have failed";
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidModel) << s.status().to_string();
    for (const auto& part : f.fragments)
      EXPECT_NE(s.status().message().find(part), std::string::npos)
          << "'" << part << "' missing from: " << s.status().message();
  }
}

}  // namespace
}  // namespace hi::test
