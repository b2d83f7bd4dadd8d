#!/usr/bin/env bash
# `cmake --install` into a fresh prefix, then what another project does with it: the programs of
# examples/ (C and C++) built once with find_package(hipinfer) and once with pkg-config, each run
# on a zoo model and checked against `hipinfer run`'s top-1 on the same input. Also checks that
# libhipinfer.so exports only hipinfer's own symbols and carries the versioned SONAME.
#   check_install.sh BUILD_DIR SOURCE_DIR PYTHON      (ctest install_and_embed)
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2") python=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_install: $*" >&2; exit 1; }

prefix="$work/prefix"
for component in runtime dev; do
  cmake --install "$build" --prefix "$prefix" --component "$component" >/dev/null
done
lib=$(find "$prefix" -name 'libhipinfer.so.*.*.*' | head -1)
[[ -n "$lib" ]] || fail "no libhipinfer.so.X.Y.Z under $prefix"
libdir=$(dirname "$lib")
echo "installed: $(cd "$prefix" && find . -type f | sort | tr '\n' ' ')"

# --- the library's interface ------------------------------------------------------------------
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
abi=$(sed -n 's/^#define HI_C_API_VERSION \([0-9]*\).*/\1/p' "$src/include/hipinfer/c_api.h")
[[ "$soname" == "libhipinfer.so.$abi" ]] || fail "SONAME is '$soname', expected libhipinfer.so.$abi"
# Every defined dynamic symbol is hipinfer's: the C API (hi_*) or the C++ API (hi::...).
foreign=$(nm -D --defined-only "$lib" | awk '{print $3}' | c++filt | grep -v -E '^(hi_[a-z0-9_]+(@@HIPINFER_[0-9]+)?|hi::.*|HIPINFER_[0-9]+)$' || true)
[[ -z "$foreign" ]] || fail "libhipinfer.so exports symbols that are not hipinfer's:
$(echo "$foreign" | head -20)"
echo "exports: $(nm -D --defined-only "$lib" | grep -c ' hi_') C functions, $(nm -D --defined-only "$lib" | grep -c ' _ZN2hi') C++ symbols, nothing else; SONAME $soname"

# --- a model, an input, and the CLI's answer -------------------------------------------------
"$prefix/bin/hipinfer" zoo mobilenetv2 --image-size 64 --classes 100 --seed 3 -o "$work/model.onnx" >/dev/null
"$python" - "$work" <<'PY'
import sys, numpy as np
x = np.random.default_rng(11).standard_normal((1, 3, 64, 64)).astype(np.float32)
np.save(f"{sys.argv[1]}/input.npy", x)
x.tofile(f"{sys.argv[1]}/input.raw")
PY
"$prefix/bin/hipinfer" run "$work/model.onnx" --input "input=$work/input.npy" -o "$work/out" >/dev/null
expected=$("$python" -c "import numpy as np, glob, sys; print(int(np.load(glob.glob(sys.argv[1] + '/*.npy')[0]).argmax()))" "$work/out")
echo "hipinfer run: top-1 class $expected"

check_program() {  # NAME BINARY [env...]
  local name=$1 binary=$2
  shift 2
  local line
  line=$(env "$@" "$binary" "$work/model.onnx" "$work/input.raw") || fail "$name failed"
  echo "$name: $line"
  [[ "$line" == "top-1: class $expected "* ]] || fail "$name printed '$line', expected class $expected"
}

# --- find_package ------------------------------------------------------------------------------
cp -r "$src/examples" "$work/examples"  # built from outside the source tree, as another project is
cmake -S "$work/examples" -B "$work/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configuring examples/ with find_package failed"; }
cmake --build "$work/cmake-build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "building examples/ failed"; }
check_program "find_package, C" "$work/cmake-build/classify_c"
check_program "find_package, C++" "$work/cmake-build/classify_cpp"

# --- pkg-config --------------------------------------------------------------------------------
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[[ "$(pkg-config --modversion hipinfer)" == "$("$prefix/bin/hipinfer" --version | awk '{print $2}')" ]] ||
  fail "pkg-config's version $(pkg-config --modversion hipinfer) is not hipinfer --version's"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -pedantic -Werror "$work/examples/c/classify.c" -o "$work/classify_c_pc" $(pkg-config --cflags --libs hipinfer)
# shellcheck disable=SC2046
c++ -std=c++20 -Wall -Wextra -Werror "$work/examples/cpp/classify.cc" -o "$work/classify_cpp_pc" $(pkg-config --cflags --libs hipinfer)
check_program "pkg-config, C" "$work/classify_c_pc" LD_LIBRARY_PATH="$libdir"
check_program "pkg-config, C++" "$work/classify_cpp_pc" LD_LIBRARY_PATH="$libdir"
echo "check_install: ok"
