// A small driver for the numpy cross-check (npy_numpy_check.py): reads .npy files through
// hi::read_npy and writes them back through hi::write_npy, so numpy can check both directions.
//
//   npy_tool copy IN OUT [IN OUT ...]   each IN read and written to OUT; prints "IN: float32[2, 3]"
//
// Exit status: 0 all copied, 1 some file failed (its error on stderr, "IN: <code>: <message>"),
// 2 usage.
#include <cstdio>
#include <cstring>
#include <string>

#include "hipinfer/npy.h"

int main(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[1], "copy") != 0 || (argc - 2) % 2 != 0) {
    std::fprintf(stderr, "usage: npy_tool copy IN OUT [IN OUT ...]\n");
    return 2;
  }
  int failed = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string in = argv[i], out = argv[i + 1];
    auto t = hi::read_npy(in);
    hi::Status s = t.is_ok() ? hi::write_npy(out, t.value()) : t.status();
    if (!s.is_ok()) {
      std::fprintf(stderr, "%s: %s\n", in.c_str(), s.to_string().c_str());
      ++failed;
      continue;
    }
    std::printf("%s: %s\n", in.c_str(), t->type_string().c_str());
  }
  return failed ? 1 : 0;
}
