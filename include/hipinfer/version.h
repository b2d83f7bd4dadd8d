// hipinfer's release and the commit it was built from: what `hipinfer --version`, the C API
// (hi_version_string, hi_git_commit) and the Python package report.
#pragma once

#include "hipinfer/export.h"

HI_PUBLIC_BEGIN
namespace hi {

// "0.2.0": the project() version of the top-level CMakeLists.txt.
const char* version_string();
// "3f2c1ab1d0e4", with "-dirty" when the tree had uncommitted changes; "unknown" outside git
// (or HI_GIT_COMMIT from the environment at build time, for builds from a copy without .git).
const char* git_commit();

}  // namespace hi
HI_PUBLIC_END
