// Runs an image classifier through hipinfer's C++ API and prints its top-1 class.
//   classify_cpp MODEL.onnx INPUT.raw
// INPUT.raw holds the first input's float32 values (symbolic dims taken as 1), little-endian.
#include <hipinfer/session.h>
#include <hipinfer/version.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: classify_cpp MODEL.onnx INPUT.raw\n");
    return 2;
  }
  auto session = hi::Session::create(argv[1]);
  if (!session.is_ok()) {
    std::fprintf(stderr, "classify_cpp: %s\n", session.status().to_string().c_str());
    return 1;
  }
  const hi::TensorInfo& info = session.value()->inputs().at(0);
  hi::Shape shape = info.shape;
  for (int64_t& d : shape) d = std::max<int64_t>(d, 1);
  hi::Tensor input = hi::Tensor::empty(hi::DType::kFloat32, shape);
  std::ifstream file(argv[2], std::ios::binary);
  if (!file.read(static_cast<char*>(input.raw()), static_cast<std::streamsize>(input.nbytes()))) {
    std::fprintf(stderr, "classify_cpp: cannot read %zu bytes from %s\n", input.nbytes(), argv[2]);
    return 1;
  }
  auto outputs = session.value()->run({{info.name, input}});
  if (!outputs.is_ok()) {
    std::fprintf(stderr, "classify_cpp: %s\n", outputs.status().to_string().c_str());
    return 1;
  }
  const hi::Tensor& scores = outputs.value().at(session.value()->outputs().at(0).name);
  const float* s = scores.data<float>();
  const int64_t best = std::max_element(s, s + scores.numel()) - s;
  std::printf("top-1: class %lld (score %.6f), hipinfer %s\n", static_cast<long long>(best), s[best],
              hi::version_string());
  return 0;
}
