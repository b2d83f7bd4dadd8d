#!/usr/bin/env python3
"""The include rules of docs/architecture.md, checked on every #include of the tree:

  1. src/ops (the op contract and reference kernels) and src/passes include no backend
     (src/backends/...).
  2. A backend includes no other backend: src/backends/cpu nothing of src/backends/gpu, and the
     other way round.
  3. Only src/onnx (the reader) and src/zoo (the model writer) include protobuf or ONNX's
     generated classes (tests and fuzzers build models with them and are exempt).
  4. The CLI, the tools, the Python module and the C API include only include/hipinfer/ and their
     own folder's headers (src/capi: and capi/handles.h; tools/server: the server library in
     src/server and the CLI's argument parser in tools/hipinfer).
  5. The server (src/server) is built on the public API: it includes include/hipinfer/, its own
     headers and its protocol's generated classes (*.pb.h), and protobuf for those, nothing of src/.

An exception would be listed, with its reason, in known_violations.txt beside this file; since
issue 20 moved the fast paths into the CPU backend the list is empty. An include that breaks a
rule and is not listed fails the check; so does a listed one that no longer occurs.

usage: check_includes.py SOURCE_DIR
"""
from __future__ import annotations

import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
PROTOBUF = ("google/protobuf/", "onnx/onnx_pb.h", "onnx/onnx-ml.pb.h", "onnx/onnx.pb.h", "onnx/proto_utils.h")
SOURCES = ("*.cc", "*.h", "*.cu", "*.cuh", "*.cpp", "*.hpp")


def backend_of(include: str) -> str | None:
    if include.startswith("backends/") and include.count("/") >= 2:
        return "backends/" + include.split("/")[1]
    return None


def broken_rule(path: str, include: str, angled: bool) -> str | None:
    """Which rule `#include include` in `path` (relative to the repository) breaks, if any."""
    target = backend_of(include) if not angled else None
    if path.startswith(("src/ops/", "src/passes/")) and target:
        return f"rule 1: {path.split('/')[1]} include no backend ({target})"
    own_backend = backend_of(path.removeprefix("src/")) if path.startswith("src/backends/") else None
    if own_backend and target and target != own_backend:
        return f"rule 2: a backend ({own_backend}) includes another backend ({target})"
    server_protocol = path.startswith("src/server/") and include.startswith("google/protobuf/")
    if include.startswith(PROTOBUF) and path.startswith(("src/", "tools/", "python/")) \
            and not path.startswith(("src/onnx/", "src/zoo/")) and not server_protocol:
        return "rule 3: only src/onnx and src/zoo include protobuf (and src/server, its own protocol's)"
    own = pathlib.PurePosixPath(path).parent / include
    if path.startswith("src/server/") and not angled and not include.startswith("hipinfer/") \
            and not include.endswith(".pb.h") and not (REPO / own).is_file():
        return "rule 5: the server includes only include/hipinfer/ and its own headers"
    api_users = ("tools/", "python/src/", "src/capi/")
    if path.startswith(api_users) and not angled and not include.startswith("hipinfer/"):
        allowed = [own]
        if path.startswith("tools/server/"):
            allowed += [pathlib.PurePosixPath("src/server") / include, pathlib.PurePosixPath("tools/hipinfer") / include]
        if not any((REPO / a).is_file() for a in allowed) and include != "capi/handles.h":
            return "rule 4: the CLI, tools, Python module and C API include only include/hipinfer/"
    return None


def main() -> int:
    global REPO
    REPO = pathlib.Path(sys.argv[1]).resolve()
    found = {}
    for folder in ("src", "tools", "python/src"):
        for pattern in SOURCES:
            for file in sorted((REPO / folder).rglob(pattern)):
                rel = file.relative_to(REPO).as_posix()
                for angle, include in INCLUDE.findall(file.read_text(errors="replace")):
                    rule = broken_rule(rel, include, angle == "<")
                    if rule:
                        found[f"{rel} -> {include}"] = rule
    listed = {}
    known = pathlib.Path(__file__).with_name("known_violations.txt")
    for line in known.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, reason = line.partition("  # ")
            listed[key.strip()] = reason
    new = sorted(k for k in found if k not in listed)
    gone = sorted(k for k in listed if k not in found)
    for k in new:
        print(f"FAIL {k}: {found[k]}")
    for k in gone:
        print(f"FAIL {k} is listed in {known.name} but no longer occurs: remove it from the list")
    print(f"include rules: {len(found)} violations, {len(found) - len(new)} of them listed as exceptions; "
          f"{len(new)} new, {len(gone)} stale")
    return 1 if new or gone else 0


REPO = pathlib.Path(".")
if __name__ == "__main__":
    sys.exit(main())
