// The "Model" section of a bug report.
#pragma once

#include <string>

namespace hi::doctor {

// Markdown lines describing the model at `path` (a system path on this machine).
std::string summarize_model(const std::string& path);

}  // namespace hi::doctor
