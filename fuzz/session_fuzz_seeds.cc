// Writes the seeds of the session fuzzer (fuzz/session_fuzz.cc) that the library makes itself:
// the zoo's encoder at toy sizes (a few thousand parameters, under 70 KiB), at the opsets whose
// spellings differ (10: no LayerNormalization, 13: Split/Squeeze axes as inputs, 17, 21), with a
// symbolic and a fixed sequence. The zoo's image models are left out: their channel counts are
// fixed, so even at 32x32 and 10 classes MobileNetV2 is 8.7 MiB and ResNet-50 90 MiB, far past
// what a fuzzer can mutate and run thousands of times a minute.
//
// usage: session_fuzz_seeds DIR
#include <cstdio>
#include <string>

#include "hipinfer/zoo.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: session_fuzz_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  struct Seed {
    const char* name;
    int64_t opset, layers, hidden, heads, sequence;
    bool symbolic_batch;
  };
  const Seed seeds[] = {
      {"zoo-bert-opset10.onnx", 10, 1, 16, 2, 0, true},       {"zoo-bert-opset13.onnx", 13, 1, 16, 2, 0, true},
      {"zoo-bert-opset17.onnx", 17, 1, 16, 2, 0, true},       {"zoo-bert-opset21.onnx", 21, 1, 16, 2, 0, true},
      {"zoo-bert-opset17-fixed.onnx", 17, 2, 8, 1, 4, false},
  };
  for (const Seed& s : seeds) {
    hi::zoo::ZooOptions o;
    o.opset = s.opset;
    o.layers = s.layers;
    o.hidden = s.hidden;
    o.heads = s.heads;
    o.sequence = s.sequence;
    o.intermediate = 2 * s.hidden;
    o.vocab = 64;
    o.symbolic_batch = s.symbolic_batch;
    o.batch = 1;
    const hi::Status st = hi::zoo::write_zoo_model("bert", o, dir + "/" + s.name);
    if (!st.is_ok()) {
      std::fprintf(stderr, "session_fuzz_seeds: %s: %s\n", s.name, st.to_string().c_str());
      return 1;
    }
  }
  return 0;
}
