// Replays fuzzer inputs without libFuzzer: `session_fuzz_replay FILE|DIR...` runs
// LLVMFuzzerTestOneInput on every file (a folder's files in name order). The ordinary test build
// links it with session_fuzz.cc, so ctest replays every fixed finding (fuzz/corpus/session/) on
// each run, sanitizers or not: a finding that comes back as a crash, an abort or an overflowed
// shape fails the test there, not only in the fuzzing build.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// The custom mutator calls libFuzzer's; replay never mutates.
extern "C" size_t LLVMFuzzerMutate(uint8_t*, size_t, size_t) { return 0; }

namespace {

std::vector<std::filesystem::path> inputs_of(const std::filesystem::path& p) {
  if (!std::filesystem::is_directory(p)) return {p};
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(p))
    if (e.is_regular_file() && e.path().extension() != ".md") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
    return 2;
  }
  int replayed = 0;
  for (int a = 1; a < argc; ++a) {
    for (const auto& path : inputs_of(argv[a])) {
      std::ifstream in(path, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        return 2;
      }
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::fprintf(stderr, "replaying %s (%zu bytes)\n", path.c_str(), bytes.size());
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::fprintf(stderr, "no inputs found in the paths given\n");
    return 2;
  }
  std::fprintf(stderr, "%d inputs replayed, none crashed\n", replayed);
  return 0;
}
