// The options of `hipinfer serve`, shared by the CLI (which hands the command to the
// hipinfer-server binary beside it, so the CLI links no gRPC) and by hipinfer-server itself.
#pragma once

#include "cli.h"

namespace hi::cli {

const CommandSpec* serve_command_spec();

}  // namespace hi::cli
