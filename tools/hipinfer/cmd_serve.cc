// `hipinfer serve`: hands the command line to hipinfer-server, the binary beside this one, so
// that the CLI itself links no gRPC or HTTP library (the server is built only where they are).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "cli.h"
#include "serve_spec.h"

namespace hi::cli {

const CommandSpec* cmd_serve_spec() { return serve_command_spec(); }

int cmd_serve(const Args& args) {
  // Args has checked the options; hipinfer-server parses the same spec again from the raw argv.
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::filesystem::path server_path = ec ? std::filesystem::path("hipinfer") : self;
  const std::string server = server_path.replace_filename("hipinfer-server").string();
  std::vector<char*> argv{const_cast<char*>(server.c_str())};
  for (const auto& arg : args.raw()) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  execv(server.c_str(), argv.data());
  std::fprintf(stderr,
               "hipinfer: error: cannot start %s: %s (this build has no server: it needs libgrpc++-dev, "
               "protobuf-compiler-grpc, libcpp-httplib-dev and nlohmann-json3-dev; scripts/setup installs them)\n",
               server.c_str(), std::strerror(errno));
  return kExitRuntime;
}

}  // namespace hi::cli
