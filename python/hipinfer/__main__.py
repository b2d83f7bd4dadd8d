"""`python -m hipinfer ARGS` (and the `hipinfer` script pip installs): runs the hipinfer command
that ships inside the package (hipinfer/bin/hipinfer) with ARGS."""
from __future__ import annotations

import os
import sys
from typing import List, Optional


def cli_path() -> str:
    """Where the packaged `hipinfer` command is."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "hipinfer")


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    binary = cli_path()
    if not os.access(binary, os.X_OK):
        print(f"hipinfer: the command is missing from this installation ({binary}); reinstall with "
              "`pip install .` from the hipinfer source tree", file=sys.stderr)
        return 70
    # The doctor reads the frameworks of "the python in PATH": make that this interpreter.
    env = dict(os.environ)
    env.setdefault("HI_PYTHON", sys.executable or "python3")
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(binary, ["hipinfer"] + args, env)
    return 70  # not reached


if __name__ == "__main__":
    sys.exit(main())
