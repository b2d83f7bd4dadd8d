#!/usr/bin/env python3
"""Kernel coverage of the GPU test suite on the emulated GPU: every kernel instantiation the
program contains (registered.txt) must be launched by some test process of the suite
(launched.<pid>.txt, written at exit by each process under ctest), except those listed with a
reason in the exceptions file; a listed kernel that is launched now must leave the list.

Coverage is judged on the whole suite: when only some of its tests ran (ctest -R), it skips
(exit 77).

usage: check_kernel_coverage.py --reset DIR
       check_kernel_coverage.py DIR EXCEPTIONS_FILE TEST_BINARY
"""
import pathlib
import shutil
import subprocess
import sys

if sys.argv[1] == "--reset":
    d = pathlib.Path(sys.argv[2])
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    sys.exit(0)

d, exceptions_file, binary = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]

# The suite's tests (gtest's list: "Suite." lines, then "  Name" lines) against those that ran.
listing = subprocess.run([binary, "--gtest_list_tests"], capture_output=True, text=True, check=True).stdout
suite, every_test = "", set()
for line in listing.split("\n"):
    if line and not line.startswith(" "):
        suite = line.split()[0]
    elif line.strip():
        every_test.add(suite + line.split()[0])
ran = set()
for f in d.glob("ran.*.txt"):
    ran |= set(f.read_text().split("\n")) - {""}
if not every_test <= ran:
    print(f"SKIP: {len(every_test & ran)} of the suite's {len(every_test)} tests ran; kernel coverage is judged "
          "on the whole suite (ctest without -R)")
    sys.exit(77)
registered_file = d / "registered.txt"
if not registered_file.exists():
    print(f"FAIL: {registered_file} is missing: no emulated-GPU test process ran (run the whole suite under ctest)")
    sys.exit(1)
registered = set(registered_file.read_text().split("\n")) - {""}
launched = set()
for f in d.glob("launched.*.txt"):
    launched |= set(f.read_text().split("\n")) - {""}
exceptions = {}
for line in exceptions_file.read_text().split("\n"):
    if line.strip() and not line.startswith("#"):
        name, _, why = line.partition(" | ")
        exceptions[name.strip()] = why.strip()

never = sorted(registered - launched - set(exceptions))
stale = sorted(set(exceptions) & launched)
unknown = sorted(set(exceptions) - registered)
print(f"{len(registered)} kernel instantiations, {len(registered & launched)} launched by the suite, "
      f"{len(set(exceptions) & registered - launched)} listed in {exceptions_file.name}")
for name in never:
    print(f"FAIL: never launched by any test: {name}")
for name in stale:
    print(f"FAIL: launched now, remove it from {exceptions_file.name}: {name}")
for name in unknown:
    print(f"FAIL: not a kernel of this build, remove it from {exceptions_file.name}: {name}")
sys.exit(1 if never or stale or unknown else 0)
