#!/usr/bin/env python3
"""Hostile models, inputs and files against the `hipinfer` command: each must end in a clean error.

Every case of the hostile-input review (issue 24) that the command line can reach is built here,
run as its own process, and checked: no signal, the expected exit code (3 invalid model, 4 bad
file or input, 5 running failed; 0/1 where the command is meant to succeed, such as `report`),
a message naming the node, file or option, a peak RSS under the case's bound (the configured
--memory-limit where one is set) and a bounded time. The table of case, exit code, message, peak
RSS and seconds is printed as Markdown.

Cases only an API can reach (terminate from another thread, the per-shape plan cache, a second
session's limit, doctor on a fake machine, a bench peer that never exits) are tested in
tests/runtime/cancellation_test.cc, resource_limits_test.cc, tests/doctor and check_bench.py.

usage: hostile_cases.py HIPINFER_BINARY WORK_DIR
"""
import json
import os
import subprocess
import sys
import time

# Peak RSS is read from wait4(), and a child's peak starts at its parent's: a process started by
# this script after it has built a 100 MB model would report this script's memory. So every case
# runs from a small launcher started now, before numpy and onnx are imported.
# A case past its time or past 2 GiB of RSS (a regression that grows without bound) is killed.
LAUNCHER = r"""
import json, os, subprocess, sys, time
def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:")) / 1024
    except (OSError, StopIteration):
        return 0
for line in sys.stdin:
    args, out_path, timeout = json.loads(line)
    with open(out_path, "w") as out:
        start = time.monotonic()
        p = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout or rss_mib(p.pid) > 2048:
                p.kill()
                _, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.005)
    print(json.dumps([os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024, time.monotonic() - start]), flush=True)
"""
launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
except ImportError as e:
    print(f"SKIP: {e}; run scripts/setup")
    sys.exit(77)

BIN, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
LIMIT = "256M"        # the --memory-limit given to runs of models that ask for too much
LIMIT_MIB = 256
SMALL_MIB = 160       # bound for commands that should hold next to nothing (binary and libraries ~50 MiB)


def path(name):
    return os.path.join(WORK, name)


def save(graph, name, opset=17, extra_opsets=()):
    opsets = [helper.make_opsetid("", opset), *extra_opsets]
    onnx.save(helper.make_model(graph, opset_imports=opsets), path(name))
    return path(name)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def one_node(op, inputs, attrs=None, inits=(), graph_inputs=(), out_elem=TensorProto.FLOAT, name=None, opset=17,
             domain="", extra_opsets=()):
    node = helper.make_node(op, inputs, ["y"], name=name or op.lower(), domain=domain, **(attrs or {}))
    g = helper.make_graph([node], "g", list(graph_inputs), [vi("y", out_elem, None)], list(inits))
    return save(g, (name or op.lower()) + ".onnx", opset, extra_opsets)


def npy(name, array):
    np.save(path(name), array)
    return path(name)


def i64(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


# --- the models and files -------------------------------------------------------------------------

x4 = vi("x", TensorProto.FLOAT, [1, 1, 4, 4])
models = {}
for bits, elem, dtype in [(32, TensorProto.INT32, np.int32), (64, TensorProto.INT64, np.int64)]:
    models[f"div{bits}"] = one_node("Div", ["a", "b"], graph_inputs=[vi("a", elem, [1]), vi("b", elem, [1])],
                                    out_elem=elem, name=f"div_int{bits}")
    npy(f"min{bits}.npy", np.array([np.iinfo(dtype).min], dtype))
    npy(f"minus1_{bits}.npy", np.array([-1], dtype))
models["pad_folded"] = one_node("Pad", ["x", "pads"], inits=[i64("pads", [0, 0, 2**62, 0, 0, 0, 2**62, 0])],
                                graph_inputs=[x4], name="pad_2pow62")
models["pad_runtime"] = one_node("Pad", ["x", "pads"], graph_inputs=[x4, vi("pads", TensorProto.INT64, [8])],
                                 name="pad_runtime_pads")
npy("pads_2pow62.npy", np.array([0, 0, 2**62, 0, 0, 0, 2**62, 0], np.int64))
models["pad_3e9"] = one_node("Pad", ["x", "pads"], inits=[i64("pads", [0, 0, 3_000_000_000, 0, 0, 0, 3_000_000_000, 0])],
                             graph_inputs=[x4], name="pad_3e9")
models["avgpool"] = one_node("AveragePool", ["x"], {"kernel_shape": [3, 3], "pads": [10**9] * 4, "count_include_pad": 1},
                             graph_inputs=[x4], name="avgpool_pads_1e9")
models["maxpool_same"] = one_node("MaxPool", ["x"], {"kernel_shape": [2**40, 2**40], "auto_pad": "SAME_UPPER"},
                                  graph_inputs=[x4], name="maxpool_same_huge_kernel")
models["conv_no_w"] = one_node("Conv", ["x", ""], graph_inputs=[x4], name="conv_weight_empty")
models["gather_no_indices"] = one_node("Gather", ["x", ""], graph_inputs=[x4], name="gather_indices_empty")
models["layernorm_no_scale"] = one_node("LayerNormalization", ["x", ""], graph_inputs=[x4], name="layernorm_scale_empty")
models["tfidf"] = one_node("TfIdfVectorizer", ["t"], {"mode": "TF", "min_gram_length": 1, "max_gram_length": 2**40,
                                                      "max_skip_count": 0, "ngram_counts": [0], "ngram_indexes": [0],
                                                      "pool_int64s": [1]},
                           graph_inputs=[vi("t", TensorProto.INT64, [1, 8])], name="tfidf_max_gram_2pow40")

# Size amplification: ~100-byte models whose constant shapes ask for gigabytes.
g4 = 2**30  # elements: 4 GiB of float
models["const_of_shape"] = one_node("ConstantOfShape", ["s"], inits=[i64("s", [g4])], name="fill_4gib")
models["expand"] = one_node("Expand", ["v", "s"], inits=[helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]),
                                                          i64("s", [32768, 32768])], name="expand_4gib")
models["range"] = one_node("Range", ["a", "b", "d"], inits=[helper.make_tensor("a", TensorProto.FLOAT, [], [0.0]),
                                                             helper.make_tensor("b", TensorProto.FLOAT, [], [float(g4)]),
                                                             helper.make_tensor("d", TensorProto.FLOAT, [], [1.0])],
                           name="range_4gib")
models["onehot"] = one_node("OneHot", ["i", "depth", "vals"],
                            inits=[i64("i", list(range(64))), helper.make_tensor("depth", TensorProto.INT64, [], [2**24]),
                                   helper.make_tensor("vals", TensorProto.FLOAT, [2], [0.0, 1.0])], name="onehot_4gib")
models["pad_big_const"] = one_node("Pad", ["v", "pads"], inits=[helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]),
                                                                i64("pads", [0, g4])], name="pad_4gib")

# Loops: 2^62 iterations; and a scan output that grows by 1 MiB per iteration.
body = helper.make_graph(
    [helper.make_node("Add", ["acc", "one"], ["next"], name="step")], "body",
    [vi("i", TensorProto.INT64, []), vi("c", TensorProto.BOOL, []), vi("acc", TensorProto.FLOAT, [1])],
    [vi("c", TensorProto.BOOL, []), vi("next", TensorProto.FLOAT, [1])])
models["loop_endless"] = save(helper.make_graph(
    [helper.make_node("Loop", ["M", "", "x"], ["y"], name="endless_loop", body=body)], "g",
    [vi("x", TensorProto.FLOAT, [1])], [vi("y", TensorProto.FLOAT, None)],
    [helper.make_tensor("M", TensorProto.INT64, [], [2**62]), helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])]),
    "loop_endless.onnx")
# A scan output that grows while the condition stays true (no iteration count to size it by).
grow_body = helper.make_graph(
    [helper.make_node("Identity", ["c"], ["c_out"]),
     helper.make_node("ConstantOfShape", ["mib"], ["chunk"], value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]))],
    "grow", [vi("i", TensorProto.INT64, []), vi("c", TensorProto.BOOL, [])],
    [vi("c_out", TensorProto.BOOL, []), vi("chunk", TensorProto.FLOAT, [262144])],
    [i64("mib", [262144])])
models["loop_growing"] = save(helper.make_graph(
    [helper.make_node("Loop", ["", "keep_going"], ["y"], name="growing_loop", body=grow_body)], "g", [],
    [vi("y", TensorProto.FLOAT, None)], [helper.make_tensor("keep_going", TensorProto.BOOL, [], [True])]),
    "loop_growing.onnx")


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(num, payload):
    """A length-delimited protobuf field."""
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def nested_if_model(depth):
    """A model of If nodes nested `depth` deep (3 protobuf messages per level), written as bytes:
    the onnx helpers refuse to build what protobuf's own depth limit then refuses to read."""
    def graph(nodes):  # GraphProto: node = 1, name = 2, output = 12
        return b"".join(field(1, n) for n in nodes) + field(2, b"g") + field(12, field(1, b"y"))
    inner = graph([field(1, b"x") + field(2, b"y") + field(4, b"Identity")])
    for _ in range(depth):  # NodeProto: input 1, output 2, op_type 4, attribute 5 (name 1, g 6, type 20 = GRAPH)
        attr = field(1, b"then_branch") + field(6, inner) + varint(20 << 3) + varint(5)
        inner = graph([field(1, b"cond") + field(2, b"y") + field(4, b"If") + field(5, attr)])
    return varint(1 << 3) + varint(8) + field(8, varint(2 << 3) + varint(17)) + field(7, inner)


models["nested"] = path("nested_if_80.onnx")
with open(models["nested"], "wb") as f:
    f.write(nested_if_model(80))


def empty_strings_model(count):
    """A ModelProto with one string initializer of `count` empty strings (2 bytes each on disk),
    written directly as protobuf bytes: the onnx helpers would need `count` Python strings."""
    tensor = varint(1 << 3) + varint(count) + varint(2 << 3) + varint(TensorProto.STRING) + field(8, b"s") \
        + b"\x32\x00" * count  # dims, data_type, name, string_data
    node = field(1, b"s") + field(2, b"y") + field(4, b"Identity") + field(3, b"copy_strings")
    out = field(1, b"y") + field(2, field(1, varint(1 << 3) + varint(TensorProto.STRING)))
    graph = field(1, node) + field(2, b"g") + field(5, tensor) + field(12, out)
    opset = varint(2 << 3) + varint(17)
    return varint(1 << 3) + varint(8) + field(8, opset) + field(7, graph)


models["empty_strings"] = path("empty_strings_100mb.onnx")
if not os.path.exists(models["empty_strings"]):
    with open(models["empty_strings"], "wb") as f:
        f.write(empty_strings_model(50_000_000))

fifo = path("fifo.npy")
if not os.path.exists(fifo):
    os.mkfifo(fifo)
with open(path("long_line.log"), "w") as f:
    f.write("error: " + "a(" * 15000 + " password=hunter2\n")
x4_npy = npy("x4.npy", np.ones([1, 1, 4, 4], np.float32))


# --- the cases ------------------------------------------------------------------------------------

def run_case(args, timeout=120):
    """(exit code or -signal, stdout+stderr, peak RSS in MiB, seconds) of one hipinfer process."""
    launcher.stdin.write(json.dumps([[BIN, *args], path("case.out"), timeout]) + "\n")
    launcher.stdin.flush()
    code, rss, took = json.loads(launcher.stdout.readline())
    with open(path("case.out"), errors="replace") as f:
        return code, f.read(), rss, took


report_md = path("report.md")
R = ["run"]
cases = [
    # (case, args, allowed exit codes, fragments the output must hold, RSS bound MiB, seconds bound)
    ("Div int32 INT_MIN / -1", R + [models["div32"], "-i", f"a={path('min32.npy')}", "-i", f"b={path('minus1_32.npy')}"],
     {4}, ["div_int32", "lowest int32"], SMALL_MIB, 20),
    ("Div int64 INT_MIN / -1", R + [models["div64"], "-i", f"a={path('min64.npy')}", "-i", f"b={path('minus1_64.npy')}"],
     {4}, ["div_int64", "lowest int64"], SMALL_MIB, 20),
    ("Pad pads 2^62, constant: run", R + [models["pad_folded"]], {3}, ["pad_2pow62"], SMALL_MIB, 20),
    ("Pad pads 2^62, constant: inspect", ["inspect", models["pad_folded"]], {0, 3}, ["pad_2pow62"], SMALL_MIB, 20),
    ("Pad pads 2^62, constant: report --model", ["report", "--model", models["pad_folded"], "-o", report_md],
     {0, 1}, [], SMALL_MIB, 120),
    ("Pad pads 2^62 as a run-time input", R + [models["pad_runtime"], "-i", f"pads={path('pads_2pow62.npy')}"],
     {4}, ["pad_runtime_pads"], SMALL_MIB, 20),
    ("required input given as \"\": Conv W", R + [models["conv_no_w"]], {3}, ["conv_weight_empty"], SMALL_MIB, 20),
    ("required input given as \"\": Gather indices", R + [models["gather_no_indices"]], {3}, ["gather_indices_empty"],
     SMALL_MIB, 20),
    ("required input given as \"\": LayerNormalization scale", R + [models["layernorm_no_scale"]], {3},
     ["layernorm_scale_empty"], SMALL_MIB, 20),
    ("report --log with a 30,000-character line", ["report", "--log", path("long_line.log"), "-o", report_md],
     {0, 1}, [], SMALL_MIB, 120),
    ("--threads 100000", R + [models["div32"], "--threads", "100000"], {4}, ["threads must be at most", "100000"], SMALL_MIB, 20),
    ("Pad pads 3e9", R + [models["pad_3e9"], "--memory-limit", LIMIT], {3, 5}, ["pad_3e9"], LIMIT_MIB, 20),
    ("AveragePool count_include_pad, pads 1e9", R + [models["avgpool"], "--memory-limit", LIMIT], {3, 5},
     ["avgpool_pads_1e9"], LIMIT_MIB, 20),
    ("100 MB model of 50 M empty strings", R + [models["empty_strings"], "--memory-limit", LIMIT], {3, 5},
     ["empty_strings_100mb.onnx", "parsing the model"], LIMIT_MIB, 60),
    ("--input x=/dev/zero", R + [models["pad_3e9"], "-i", "x=/dev/zero"], {4}, ["/dev/zero", "regular file"],
     SMALL_MIB, 20),
    ("--input x=FIFO", R + [models["pad_3e9"], "-i", f"x={fifo}"], {4}, ["fifo.npy", "regular file"], SMALL_MIB, 20),
    ("FIFO as the model", R + [fifo], {3, 4}, ["fifo.npy", "regular file"], SMALL_MIB, 20),
    ("report --log /dev/zero", ["report", "--log", "/dev/zero", "-o", report_md], {0, 1}, [], SMALL_MIB, 120),
    ("doctor --matrix /dev/zero", ["doctor", "--matrix", "/dev/zero"], {4}, ["/dev/zero", "regular file"], SMALL_MIB, 60),
    ("MaxPool auto_pad SAME_UPPER, kernel 2^40", R + [models["maxpool_same"]], {3, 5}, ["maxpool_same_huge_kernel"],
     SMALL_MIB, 20),
    ("TfIdfVectorizer max_gram_length 2^40", R + [models["tfidf"]], {3}, ["tfidf_max_gram_2pow40"], SMALL_MIB, 20),
    ("Loop of 2^62 iterations, --timeout 1000", R + [models["loop_endless"], "--timeout", "1000"], {5},
     ["endless_loop", "1000 ms"], SMALL_MIB, 2.0 + 0.3),
    ("Loop appending 1 MiB while its condition stays true, --memory-limit 256M",
     R + [models["loop_growing"], "--memory-limit", LIMIT], {5}, ["growing_loop", "memory limit of 256 MiB"], LIMIT_MIB, 20),
    ("the same at --opt-level 0 (a new chunk each iteration)",
     R + [models["loop_growing"], "--memory-limit", LIMIT, "--opt-level", "0"], {5},
     ["growing_loop", "memory limit of 256 MiB"], LIMIT_MIB, 20),
    ("If nested 80 levels (240 messages) deep", R + [models["nested"]], {3}, ["nested_if_80.onnx", "deeper than"], SMALL_MIB, 20),
]
for op, key in [("ConstantOfShape", "const_of_shape"), ("Expand", "expand"), ("Range", "range"), ("OneHot", "onehot"),
                ("Pad", "pad_big_const")]:
    node = os.path.basename(models[key])[:-5]
    cases.append((f"~100-byte {op} of 4 GiB: run --memory-limit 256M", R + [models[key], "--memory-limit", LIMIT], {5},
                  [node], LIMIT_MIB, 20))
    cases.append((f"~100-byte {op} of 4 GiB: inspect", ["inspect", models[key]], {0}, [node], SMALL_MIB, 20))

failures = []
rows = []
for name, args, codes, fragments, rss_bound, seconds_bound in cases:
    code, text, rss, took = run_case(args)
    # The error line where there is one (after any placement warning), else the output's last line.
    lines = [ln for ln in text.splitlines() if "error:" in ln or ln.startswith("cannot run:")]
    message = (lines[0] if lines else (text.strip().splitlines() or [""])[-1]).replace("hipinfer: ", "")[:200]
    problems = []
    if code < 0:
        problems.append(f"killed by signal {-code}")
    elif code not in codes:
        problems.append(f"exit {code}, expected {sorted(codes)}")
    problems += [f"no '{f}' in the output" for f in fragments if f not in text]
    if rss >= rss_bound:
        problems.append(f"peak RSS {rss:.0f} MiB >= {rss_bound} MiB")
    if took > seconds_bound:
        problems.append(f"took {took:.1f} s > {seconds_bound} s")
    print(("ok   " if not problems else "FAIL ") + name + ("" if not problems else ": " + "; ".join(problems)
                                                           + "\n     output: " + text[-800:]))
    if problems:
        failures.append(name)
    rows.append((name, code, message.replace("|", "\\|"), rss, took))

print("\n| case | exit | message | peak RSS MiB | s |\n|---|---|---|---|---|")
for name, code, message, rss, took in rows:
    print(f"| {name} | {code} | {message} | {rss:.0f} | {took:.2f} |")
if failures:
    print(f"\n{len(failures)} of {len(cases)} cases failed")
    sys.exit(1)
print(f"\nall {len(cases)} hostile cases end in a clean error")
