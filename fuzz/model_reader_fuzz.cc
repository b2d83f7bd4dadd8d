// libFuzzer target for the ONNX reader: every input is read both as a ModelProto and as a
// TensorProto. Either may fail with a Status; the bugs are crashes, sanitizer reports, leaks,
// timeouts, and two oracles of our own:
//   - amplification: the reader checks declared sizes against the bytes that back them, so no
//     tensor it allocates may exceed kMaxAmplification times the input (a 10-byte file must not
//     allocate gigabytes); the host allocation limit is set to that bound, and hitting it
//     (kOutOfMemory) is reported as a bug;
//   - kInternal: the reader reporting an internal error is a bug by definition.
// Run it through scripts/fuzz-reader.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hipinfer/tensor.h"
#include "onnx/model_reader.h"

namespace {

// The most bytes one input byte may legitimately become: a string_data entry takes 2 bytes and
// becomes a 32-byte std::string; a 1-byte varint in int64_data becomes 8 bytes.
constexpr int64_t kMaxAmplification = 32;
constexpr int64_t kSlack = 64 << 10;  // small tensors round up; headers and names

void check(const hi::Status& s, const char* what, size_t size) {
  if (s.code() == hi::StatusCode::kOutOfMemory) {
    std::fprintf(
        stderr, "model_reader_fuzz: amplification: reading a %zu-byte input as %s asked for more than %lld bytes: %s\n",
        size, what, static_cast<long long>(hi::host_allocation_limit()), s.message().c_str());
    std::abort();
  }
  if (s.code() == hi::StatusCode::kInternal) {
    std::fprintf(stderr, "model_reader_fuzz: internal error reading %s: %s\n", what, s.message().c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hi::set_host_allocation_limit(kMaxAmplification * static_cast<int64_t>(size) + kSlack);
  // No base_dir: external data must be refused, never opened.
  auto model = hi::onnx_reader::read_model_bytes(data, size, "", "fuzz.onnx");
  check(model.status(), "a model", size);
  if (model.is_ok()) {
    // Touch what the reader produced so a half-built IR would show up under ASan.
    size_t n = 0;
    for (const auto& node : model->graph.nodes) n += node.describe().size() + node.attributes.size();
    for (const auto& [name, t] : model->graph.initializers) n += t.nbytes() + name.size();
    if (n == 1) std::fprintf(stderr, "%zu", n);  // keeps the loop from being optimised away
  }
  std::string name;
  auto tensor = hi::onnx_reader::parse_tensor_bytes(data, size, "fuzz.pb", &name);
  check(tensor.status(), "a tensor", size);
  if (tensor.is_ok() && tensor->type_string().empty()) std::abort();
  return 0;
}
