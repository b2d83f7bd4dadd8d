# Shared by scripts/fuzz-reader and scripts/fuzz-session (sourced, not run): arguments, the clang
# build, the ONNX test data, the libFuzzer run and the verdict. The caller sets `name` (the
# script's name, for messages) and `repo` before sourcing, then calls the functions in order.

die() { echo "$name: $*" >&2; exit 2; }

# fuzz_parse_args "$@": sets seconds, workers, keep_going and extra (arguments after --).
fuzz_parse_args() {
  seconds=60
  workers=1
  keep_going=0
  extra=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      -t) seconds="${2:?-t needs SECONDS}"; shift 2 ;;
      -j) workers="${2:?-j needs WORKERS}"; shift 2 ;;
      -k) keep_going=1; shift ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
      --) shift; extra=("$@"); break ;;
      *) echo "$name: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
  done
  [[ "$seconds" =~ ^[0-9]+$ ]] || { echo "$name: -t expects whole seconds, got '$seconds'" >&2; exit 2; }
  [[ "$workers" =~ ^[1-9][0-9]*$ ]] || { echo "$name: -j expects a positive count, got '$workers'" >&2; exit 2; }
}

# fuzz_build BUILD_DIR TARGET...: configures BUILD_DIR with clang and the array cmake_args when it
# has no cache yet, then builds the targets (incrementally).
fuzz_build() {
  local build="$1"
  shift
  export CC="${CC:-clang}" CXX="${CXX:-clang++}"
  command -v "$CXX" >/dev/null || die "$CXX not found; install clang (and libclang-rt-14-dev for libFuzzer)"
  if [[ ! -f "$build/CMakeCache.txt" ]]; then
    local generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    echo "$name: configuring $build with $CXX"
    cmake -S "$repo" -B "$build" "${generator[@]}" -DHI_FUZZ=ON -DHI_TESTS=OFF -DHI_CUDA=OFF -DHI_HIP=OFF \
      "${cmake_args[@]}" >"$build.configure.log" 2>&1 ||
      { tail -30 "$build.configure.log" >&2; die "configure failed (log: $build.configure.log)"; }
  fi
  echo "$name: building $*"
  local t0=$SECONDS
  cmake --build "$build" --target "$@" -j "${HI_JOBS:-2}" >"$build/build.log" 2>&1 ||
    { tail -40 "$build/build.log" >&2; die "build failed (log: $build/build.log)"; }
  echo "$name: built in $((SECONDS - t0)) s"
}

# fuzz_test_data BUILD_DIR: sets `tests` to the unpacked ONNX backend test data: HI_ONNX_TEST_DATA,
# else BUILD_DIR/onnx-tests, else a copy another build of this checkout unpacked (build/PRESET,
# the other fuzz build), else BUILD_DIR/onnx-tests unpacked from ../shared/onnx-tests.
fuzz_test_data() {
  tests="${HI_ONNX_TEST_DATA:-$1/onnx-tests}"
  if [[ -z "${HI_ONNX_TEST_DATA:-}" && ! -d "$tests/node" ]]; then
    local d
    for d in "$repo"/build/*/onnx-tests "$repo"/build-fuzz*/onnx-tests; do
      [[ -d "$d/node" ]] && { tests="$d"; break; }
    done
  fi
  if [[ ! -d "$tests/node" ]]; then
    local tarball="$repo/../shared/onnx-tests/onnx-backend-test-data.tar.xz"
    [[ -f "$tarball" ]] || die "no ONNX test data in $tests and no $tarball; set HI_ONNX_TEST_DATA"
    echo "$name: unpacking the ONNX test data into $tests"
    mkdir -p "$tests"
    tar -xJf "$tarball" -C "$tests"
  fi
}

# fuzz_copy_seeds DEST MAX_BYTES FIND_EXPRESSION...: copies the files of the test data's groups
# that match the find expression and are at most MAX_BYTES into DEST, named after their path.
fuzz_copy_seeds() {
  local dest="$1" max="$2" group f rel
  shift 2
  for group in node simple pytorch-converted pytorch-operator; do
    [[ -d "$tests/$group" ]] || continue
    find "$tests/$group" \( "$@" \) -size "-$((max + 1))c" -print0 |
      while IFS= read -r -d '' f; do
        rel="${f#"$tests"/}"
        cp "$f" "$dest/${rel//\//__}"
      done
  done
}

# fuzz_run BUILD_DIR FUZZER LOG LIBFUZZER_ARGS... -- CORPUS_DIRS...: runs the fuzzer from BUILD_DIR
# for $seconds (0: each corpus input once) with $workers processes and $extra; sets `status`,
# `artifacts`, `stamp` and `log`. The first corpus folder is the working one, where new inputs go.
fuzz_run() {
  local build="$1"
  fuzzer="$2"
  log="$3"
  shift 3
  local args=() dirs=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do args+=("$1"); shift; done
  shift
  limit_args=("${args[@]}")  # the limits, for replaying findings in fuzz_verdict
  dirs=("$@")
  artifacts="$build/fuzz-artifacts"
  stamp="$build/.fuzz-start"
  mkdir -p "${dirs[0]}" "$artifacts"
  touch "$stamp"
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  args+=(-print_final_stats=1 "-artifact_prefix=$artifacts/")
  if [[ "$seconds" -eq 0 ]]; then
    args+=(-runs=0)  # execute the corpus once and stop
  else
    args+=("-max_total_time=$seconds")
  fi
  if [[ "$keep_going" -eq 1 && "$seconds" -gt 0 ]]; then
    # Fork mode: each job a child process, the run going on past crashes, leaks, timeouts and
    # out-of-memory inputs, every one saved in the artifacts folder.
    args+=("-fork=$workers" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  elif [[ "$workers" -gt 1 ]]; then
    args+=("-workers=$workers" "-jobs=$workers")
  fi
  echo "$name: $fuzzer ${args[*]} ${extra[*]} (log: $log)"
  set +e
  (cd "$build" && "$fuzzer" "${args[@]}" "${extra[@]}" "${dirs[@]}") >"$log" 2>&1
  status=$?
  set -e
  if [[ "$workers" -gt 1 ]]; then
    cat "$build"/fuzz-*.log >>"$log" 2>/dev/null || true  # -jobs writes one log per job
    rm -f "$build"/fuzz-[0-9]*.log
  fi
}

# fuzz_signature FILE: one line naming what FILE does to the fuzzer, "REPORT | FUNCTION FILE": the
# first sanitizer or assertion line (addresses and numbers blanked) and the first frame in our
# sources, without line numbers (so edits elsewhere in the file keep it).
fuzz_signature() {
  (cd "$(dirname "$log")" && timeout 120 "$fuzzer" "${limit_args[@]}" -runs=1 "$1" 2>&1) |
    awk -v repo="$repo/" '
      !what && /runtime error:|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|assertion .* failed/ {
        what = $0; sub(/^.*(runtime error: |ERROR: )/, "", what); sub(/^.*assertion/, "assertion", what)
        gsub(/0x[0-9a-f]+/, "X", what); gsub(/[-+]?[0-9.]+e[-+][0-9]+|-?nan|-?inf|[0-9]+/, "N", what) }
      !where && what && /^ +#[0-9]+ / && index($0, repo "src/") && !index($0, "src/core/status.cc") {
        where = $0; sub(/^.* in /, "", where); sub(repo, "", where); sub(/:[0-9]+(:[0-9]+)?$/, "", where) }
      END { print (what ? what : "no report on replay") " | " (where ? where : "?") }' || true
}

# fuzz_verdict TIMEOUT_SECONDS WORK_DIR [OPEN_DIR]: prints the outcome of fuzz_run and exits 1 on
# any finding. A slow unit (libFuzzer saves one that took about -timeout seconds without passing
# it) counts only if it is slow again: replayed alone it must finish within a tenth of the
# timeout, else it is a finding. Once-slow, fast-on-replay is the machine stalling (a shared
# 2-core VM), not the code under test; it is reported and kept, not failed on.
# OPEN_DIR holds the inputs of findings known and not yet fixed: a finding with the signature of
# one of them (fuzz_signature) is listed but does not fail the run; any other does.
fuzz_verdict() {
  local timeout="$1" work="$2" open_dir="${3:-}" f ms t0 kept="" findings report coverage sig known="" new=0 old=0
  runs=$( (grep -ahoE 'stat::number_of_executed_units: +[0-9]+' "$log" || true) | awk '{s += $2} END {print s + 0}')
  rate=$( (grep -ahoE 'stat::average_exec_per_sec: +[0-9]+' "$log" || true) | awk '{s += $2} END {print s + 0}')
  coverage=$(grep -ahoE '#[0-9]+[[:space:]]+(DONE|INITED|pulse|NEW|REDUCE).* cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 |
             grep -oE 'cov: [0-9]+ ft: [0-9]+' || true)
  if [[ "$keep_going" -eq 1 ]]; then  # fork mode's progress lines: "#RUNS: cov: C ft: F corp: N exec/s E ..."
    local last
    last=$(grep -ahE '^#[0-9]+: cov: ' "$log" | tail -1 || true)
    runs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"${last:-#0:}")
    rate=$(( seconds > 0 ? runs / seconds : 0 ))
    coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' <<<"$last" || true)
  fi
  findings=$(find "$artifacts" -type f -newer "$stamp" | sort)
  for f in $findings; do
    if [[ "$(basename "$f")" == slow-unit-* ]]; then
      t0=$(date +%s%N)
      (cd "$(dirname "$log")" && "$fuzzer" "${limit_args[@]}" -runs=1 "$f") >/dev/null 2>&1 || true
      ms=$(( ($(date +%s%N) - t0) / 1000000 ))
      if [[ "$ms" -lt $((timeout * 100)) ]]; then
        echo "$name: note: $f was slow once but replays in $ms ms: a stall of the machine, not a finding"
        continue
      fi
    fi
    kept+="$f"$'\n'
  done
  findings=$(printf '%s' "$kept" | sed '/^$/d')
  report=$(grep -aE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|SUMMARY: ' "$log" | head -5 || true)
  if [[ -z "$findings" && "$status" -eq 0 && -z "$report" ]]; then
    if [[ "$seconds" -eq 0 ]]; then
      echo "$name: ok: replayed $runs inputs, ${coverage:-no coverage line}, no findings"
    else
      echo "$name: ok: $runs runs in ${seconds}s, $rate exec/s, ${coverage:-no coverage line}, corpus $(find "$work" -type f | wc -l) inputs, no findings"
    fi
    return 0
  fi
  # Sort the findings into known (the signature of an open one) and new.
  if [[ -n "$findings" && -n "$open_dir" && -d "$open_dir" ]]; then
    for f in "$open_dir"/*; do
      [[ -f "$f" && "$f" != *.md ]] && known+="$(fuzz_signature "$f")"$'\n'
    done
  fi
  local listing=""
  for f in $findings; do
    sig=$(fuzz_signature "$f")
    if [[ -n "$known" ]] && grep -qxF -- "$sig" <<<"$known"; then
      old=$((old + 1))
      listing+="known  $sig"$'\n'
    else
      new=$((new + 1))
      listing+="NEW    $sig"$'\n'
      echo "$name: crashing input: $f"
      echo "$name: reproduce with: $fuzzer $f"
    fi
  done
  if [[ -n "$findings" ]]; then
    echo "$name: findings (count, known or new, report | where):"
    printf '%s' "$listing" | sort | uniq -c | sort -rn | cut -c1-300
  fi
  if [[ -n "$findings" && "$new" -eq 0 ]]; then
    echo "$name: ok: $runs runs in ${seconds}s, $rate exec/s, ${coverage:-no coverage line}; $old inputs hit findings already open in $open_dir, none new"
    return 0
  fi
  echo "$name: FAILED (fuzzer exit $status) after $runs runs, ${coverage:-no coverage line}: $new new findings"
  if [[ -z "$findings" ]]; then
    [[ -n "$report" ]] && echo "$report"
    grep -aE '^    #[0-9]+ ' "$log" | head -25 || true
    echo "$name: no input was saved; see $log"
  fi
  echo "$name: full log: $log"
  exit 1
}
