// `hipinfer`: the command-line front end. Each command lives in cmd_<name>.cc and uses only the
// public API in include/hipinfer/.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "cli.h"
#include "commands.h"
#include "hipinfer/version.h"

namespace {

void print_main_help() {
  std::printf(
      "usage: hipinfer COMMAND [options]\n\n"
      "Runs ONNX models on GPUs (AMD via HIP, NVIDIA via CUDA) and the CPU.\n\ncommands:\n");
  for (const auto& c : hi::cli::all_commands()) {
    const auto* spec = c.spec();
    std::printf("  %-10s %s\n", spec->name.c_str(), spec->summary.c_str());
  }
  std::printf(
      "\n'hipinfer COMMAND --help' describes a command.\n\n"
      "exit codes:\n"
      "  0   success\n"
      "  1   a check failed (for example doctor found an error)\n"
      "  2   usage error (unknown command or option, missing argument)\n"
      "  3   the model is invalid or uses something unsupported\n"
      "  4   a file or input named on the command line is missing or wrong\n"
      "  5   running failed (out of memory or the memory limit, device error, --timeout)\n"
      "  70  internal error (a hipinfer bug; please run 'hipinfer report')\n");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hi::cli;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    print_main_help();
    return argc < 2 ? kExitUsage : kExitOk;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("hipinfer %s (commit %s)\n", hi::version_string(), hi::git_commit());
    return kExitOk;
  }
  for (const auto& c : all_commands()) {
    const auto* spec = c.spec();
    if (spec->name != argv[1]) continue;
    auto args = Args::parse(*spec, argc - 2, argv + 2);
    if (!args.is_ok()) {
      std::fprintf(stderr, "hipinfer: %s\n", args.status().message().c_str());
      return kExitUsage;
    }
    if (args->help_requested()) {
      std::printf("%s", format_help(*spec).c_str());
      return kExitOk;
    }
    // The library returns a Status for everything; this catches what the CLI's own code throws.
    try {
      return c.main(args.value());
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "hipinfer: error: out of memory\n");
      return kExitRuntime;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "hipinfer: internal error: %s (please run 'hipinfer report')\n", e.what());
      return kExitInternal;
    }
  }
  std::fprintf(stderr, "hipinfer: unknown command '%s' (see 'hipinfer --help')\n", argv[1]);
  return kExitUsage;
}
