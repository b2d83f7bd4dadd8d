#include "hipinfer/version.h"

#include "hi_git_commit.h"  // generated at build time by cmake/HiGitCommit.cmake: HI_GIT_COMMIT

namespace hi {

const char* version_string() { return HI_VERSION; }
const char* git_commit() { return HI_GIT_COMMIT; }

}  // namespace hi
