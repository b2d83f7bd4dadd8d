#!/bin/sh
# Runs a Python test script with the given interpreter, or skips (exit 77) when there is none.
# usage: run_with_python.sh PYTHON SCRIPT [ARGS...]
python="$1"
shift
if [ ! -x "$python" ]; then
  echo "skipped: no Python at '$python' (make the project venv with scripts/setup, or set -DHI_PYTHON=...)"
  exit 77
fi
exec "$python" "$@"
