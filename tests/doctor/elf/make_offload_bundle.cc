// Writes a clang offload bundle header (the start of a .hip_fatbin section) naming the given GPU
// targets, for a fake libtorch_hip.so. Usage: make_offload_bundle OUT gfx90a gfx1100 ...
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::vector<std::string> ids = {"host-x86_64-unknown-linux-gnu-"};
  for (int i = 2; i < argc; ++i) ids.push_back(std::string("hipv4-amdgcn-amd-amdhsa--") + argv[i]);
  std::string out = "__CLANG_OFFLOAD_BUNDLE__";
  auto u64 = [&](uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); };
  u64(ids.size());
  for (const auto& id : ids) {
    u64(4096);  // offset and size of the code object: not read by the doctor
    u64(0);
    u64(id.size());
    out += id;
  }
  std::ofstream(argv[1], std::ios::binary) << out;
  return 0;
}
