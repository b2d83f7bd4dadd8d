// The one list of `hipinfer` commands. Adding a command: write cmd_<name>.cc defining
// `hi::cli::cmd_<name>_spec()` and `hi::cli::cmd_<name>(const Args&)`, and add a line here.
#pragma once

#include <vector>

#include "cli.h"

#define HI_COMMAND_LIST(X) \
  X(run)                   \
  X(bench)                 \
  X(inspect)               \
  X(zoo)                   \
  X(devices)               \
  X(doctor)                \
  X(report)                \
  X(serve)

namespace hi::cli {

#define HI_DECLARE_COMMAND(name)          \
  const CommandSpec* cmd_##name##_spec(); \
  int cmd_##name(const Args& args);
HI_COMMAND_LIST(HI_DECLARE_COMMAND)
#undef HI_DECLARE_COMMAND

inline const std::vector<Command>& all_commands() {
#define HI_COMMAND_ENTRY(name) Command{&cmd_##name##_spec, &cmd_##name},
  static const std::vector<Command> commands = {HI_COMMAND_LIST(HI_COMMAND_ENTRY)};
#undef HI_COMMAND_ENTRY
  return commands;
}

}  // namespace hi::cli
