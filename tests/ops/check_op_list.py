#!/usr/bin/env python3
"""Every op file registers exactly one op that src/ops/op_list.def lists, and the list has no
duplicates: an op missing from the list would compile, link, and silently never run. The list is
sorted as its header says (default-domain ops by name, then the others by domain and op type).

usage: check_op_list.py SOURCE_DIR
"""
import collections
import glob
import os
import re
import sys

src = os.path.join(sys.argv[1], "src", "ops")
listed = collections.Counter()
order = []  # sort keys in file order
for line in open(os.path.join(src, "op_list.def")):
    m = re.match(r"\s*HI_OP(?:_IN)?\((\w+)", line)
    if m:
        listed[m.group(1)] += 1
        other = re.match(r'\s*HI_OP_IN\((\w+), (\w+), "([^"]*)"', line)
        order.append((1, other.group(3), other.group(2), m.group(1)) if other else (0, "", m.group(1), m.group(1)))
registered = {}
for path in glob.glob(os.path.join(src, "*.cc")):
    for name in re.findall(r"^HI_REGISTER_OP\((\w+)", open(path).read(), re.M):
        registered[name] = os.path.basename(path)
problems = [f"{n} is listed {c} times in op_list.def" for n, c in listed.items() if c > 1]
problems += [f"op_list.def is out of order: {a[3]} comes before {b[3]}" for a, b in zip(order, order[1:]) if a > b]
problems += [f"{n} ({f}) is registered but not in op_list.def" for n, f in sorted(registered.items()) if n not in listed]
problems += [f"{n} is in op_list.def but no file registers it" for n in sorted(listed) if n not in registered]
for p in problems:
    print("FAIL", p)
print(f"op list: {len(listed)} ops listed, {len(registered)} registered, {len(problems)} problems")
sys.exit(1 if problems else 0)
