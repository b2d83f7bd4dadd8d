# Compiling the CUDA C++ kernel sources (*.cu) for AMD GPUs with hipcc, without CMake's HIP
# language.
#
# Why not enable_language(HIP): CMake 3.25 looks for the HIP runtime package at
# <rocm>/lib/cmake/hip-lang, but Debian and Ubuntu install ROCm under /usr with that package in
# /usr/lib/<multiarch>/cmake/hip-lang, so enable_language(HIP) stops at configure time there.
# hipcc knows its own installation on every layout (Debian's /usr, AMD's /opt/rocm), so each
# source is compiled by one custom command and the objects are archived into a static library:
#
#   hipcc -x hip -std=c++20 -fPIC --offload-arch=gfx90a ... -DHI_GPU_HIP=1 -I... -c x.cu -o x.o
#
# The host half of each object is ordinary x86-64 code, so the library links with the C++
# compiler into any target; the device code rides inside the object and is registered with the
# HIP runtime (libamdhip64) when the program starts.
#
# Inputs (cache): HI_HIPCC, HI_HIP_ARCHITECTURES, HI_AMDHIP64_LIBRARY.

set(HI_HIP_ARCHITECTURES "gfx90a;gfx908;gfx1030" CACHE STRING
    "AMD GPU targets the HIP backend is compiled for (--offload-arch)")
find_program(HI_HIPCC hipcc HINTS "$ENV{ROCM_PATH}/bin" /opt/rocm/bin
             DOC "hipcc, the HIP compiler driver")
find_library(HI_AMDHIP64_LIBRARY amdhip64 HINTS "$ENV{ROCM_PATH}/lib" /opt/rocm/lib
             DOC "the HIP runtime library (libamdhip64)")
if(NOT HI_HIPCC OR NOT HI_AMDHIP64_LIBRARY)
  message(FATAL_ERROR
    "HI_HIP=ON needs hipcc and libamdhip64 (found: '${HI_HIPCC}', '${HI_AMDHIP64_LIBRARY}'). "
    "On Debian 12: apt-get install hipcc libamdhip64-dev. With AMD's packages: set ROCM_PATH "
    "(default /opt/rocm). Or configure with -DHI_HIP=OFF.")
endif()
execute_process(COMMAND ${HI_HIPCC} --version OUTPUT_VARIABLE _hi_hipcc_version
                ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX MATCH "HIP version: [^\n]*" _hi_hipcc_version "${_hi_hipcc_version}")
message(STATUS "HIP backend: ${HI_HIPCC} (${_hi_hipcc_version}), targets ${HI_HIP_ARCHITECTURES}")

# hi_hip_add_library(NAME SOURCES a.cu ... [INCLUDE_DIRECTORIES dir ...] [DEFINITIONS X=1 ...])
# A static library NAME built from the sources by hipcc, linked with libamdhip64. Sources are
# relative to the current source directory; header dependencies are tracked through depfiles.
function(hi_hip_add_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;INCLUDE_DIRECTORIES;DEFINITIONS")
  set(flags -x hip -std=c++20 -fPIC -fvisibility=hidden -fvisibility-inlines-hidden -Wall -Wextra -Wno-unused-parameter)
  if(HI_WERROR)
    list(APPEND flags -Werror)
  endif()
  foreach(arch IN LISTS HI_HIP_ARCHITECTURES)
    list(APPEND flags --offload-arch=${arch})
  endforeach()
  foreach(dir IN LISTS arg_INCLUDE_DIRECTORIES)
    list(APPEND flags -I${dir})
  endforeach()
  foreach(def IN LISTS arg_DEFINITIONS)
    list(APPEND flags -D${def})
  endforeach()
  # Optimisation follows the build type, except that Debug stays at -O2: hipcc applies -O to
  # the device code too, and -O0 device code is too slow for the tests to be worth running.
  set(opt
    $<IF:$<CONFIG:Debug,RelWithDebInfo>,-O2,-O3>
    $<$<CONFIG:Debug,RelWithDebInfo>:-g>
    $<$<NOT:$<CONFIG:Debug>>:-DNDEBUG>)

  set(objects)
  foreach(src IN LISTS arg_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE)
    file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${abs}")
    set(obj "${CMAKE_CURRENT_BINARY_DIR}/${name}.dir/${rel}.o")
    get_filename_component(obj_dir "${obj}" DIRECTORY)
    file(MAKE_DIRECTORY "${obj_dir}")
    add_custom_command(
      OUTPUT "${obj}"
      COMMAND ${HI_HIPCC} ${flags} ${opt} -MD -MF "${obj}.d" -MT "${obj}" -c "${abs}" -o "${obj}"
      DEPENDS "${abs}"
      DEPFILE "${obj}.d"
      COMMENT "Building HIP object ${rel}.o (${name})"
      COMMAND_EXPAND_LISTS VERBATIM)
    list(APPEND objects "${obj}")
  endforeach()
  set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_library(${name} STATIC ${objects})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
  target_link_libraries(${name} PUBLIC ${HI_AMDHIP64_LIBRARY})
endfunction()
