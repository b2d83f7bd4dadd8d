# Writes OUTPUT (a header defining HI_GIT_COMMIT) from the git commit of SOURCE_DIR, at build time
# (a custom target runs it every build), touching the file only when the text changes so that
# nothing recompiles otherwise. Usage: cmake -DSOURCE_DIR=... -DOUTPUT=... -P HiGitCommit.cmake
if(DEFINED ENV{HI_GIT_COMMIT} AND NOT "$ENV{HI_GIT_COMMIT}" STREQUAL "")
  set(commit "$ENV{HI_GIT_COMMIT}")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
    OUTPUT_VARIABLE commit RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT rc EQUAL 0 OR commit STREQUAL "")
    set(commit "unknown")
  else()
    execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
      OUTPUT_VARIABLE changes ERROR_QUIET)
    if(NOT changes STREQUAL "")
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(text "#define HI_GIT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUTPUT}" "${text}")
endif()
