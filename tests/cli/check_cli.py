#!/usr/bin/env python3
"""The `hipinfer` command end to end: help, exit codes, run/inspect/zoo behaviour and messages.

usage: check_cli.py HIPINFER_BINARY WORK_DIR
"""
import json
import os
import re
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
except ImportError as e:
    print(f"SKIP: {e}; run scripts/setup")
    sys.exit(77)

BIN, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
failures = []


def hipinfer(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=600)


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)


def path(name):
    return os.path.join(WORK, name)


# Help and usage errors.
r = hipinfer("--help")
check("--help exits 0 and lists commands", r.returncode == 0 and "inspect" in r.stdout and "exit codes" in r.stdout, r.stdout)
r = hipinfer()
check("no command is a usage error (2)", r.returncode == 2, r.returncode)
r = hipinfer("frobnicate")
check("unknown command is a usage error (2)", r.returncode == 2 and "unknown command" in r.stderr, r.stderr)
for cmd in ("run", "inspect", "zoo"):
    r = hipinfer(cmd, "--help")
    check(f"{cmd} --help", r.returncode == 0 and "usage: hipinfer " + cmd in r.stdout, r.stdout)
r = hipinfer("run", "m.onnx", "--no-such-option")
check("unknown option is a usage error (2)", r.returncode == 2 and "--no-such-option" in r.stderr, r.stderr)

# Missing and bad files.
r = hipinfer("run", path("missing.onnx"))
check("missing model: exit 4, names the file", r.returncode == 4 and "missing.onnx" in r.stderr, (r.returncode, r.stderr))
with open(path("garbage.onnx"), "wb") as f:
    f.write(b"\x00\x01garbage" * 10)
r = hipinfer("inspect", path("garbage.onnx"))
check("garbage model: exit 3, says not ONNX", r.returncode == 3 and "not a valid ONNX model" in r.stderr, (r.returncode, r.stderr))

# A small model with an output name that is unsafe as a file name, and a symbolic batch.
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
y = helper.make_tensor_value_info("out/put:0", TensorProto.FLOAT, None)
w = helper.make_tensor("w", TensorProto.FLOAT, [4], [1, 2, 3, 4])
g = helper.make_graph([helper.make_node("Mul", ["x", "w"], ["out/put:0"], name="scale")], "g", [x], [y], [w])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
onnx.save(m, path("scale.onnx"))
np.save(path("x.npy"), np.arange(12, dtype=np.float32).reshape(3, 4))
r = hipinfer("run", path("scale.onnx"), "--input", f"x={path('x.npy')}", "-o", path("outs"))
check("run with an .npy input", r.returncode == 0, r.stderr)
out_file = path("outs/out_put_0.npy")
check("unsafe output name becomes out_put_0.npy", os.path.exists(out_file), os.listdir(path("outs")) if os.path.isdir(path("outs")) else "no dir")
if os.path.exists(out_file):
    got = np.load(out_file)
    check("output values", np.array_equal(got, np.arange(12, dtype=np.float32).reshape(3, 4) * np.array([1, 2, 3, 4], np.float32)), got)
r = hipinfer("run", path("scale.onnx"), "--batch", "5", "-o", path("outs5"))
check("random inputs follow --batch", r.returncode == 0 and np.load(path("outs5/out_put_0.npy")).shape == (5, 4), r.stdout + r.stderr)
check("run prints the first run, the steady state and peak memory",
      re.search(r"first run [0-9.]+ ms; steady state [0-9.]+ ms \(median of [123] runs?\)", r.stdout) is not None
      and "peak" in r.stdout, r.stdout)
r = hipinfer("run", path("scale.onnx"), "--repeat", "1")
check("--repeat 1: one run, said to be the first", r.returncode == 0 and "run took" in r.stdout
      and "the first run" in r.stdout and "steady state" not in r.stdout, r.stdout)
r = hipinfer("run", path("scale.onnx"), "--repeat", "5")
check("--repeat 5: the steady state over the four after the first", "(median of 4 runs)" in r.stdout, r.stdout)
# --output-format pb: TensorProto files hold the types .npy cannot (float8, int4, float4), checked
# against onnx's reference implementation of Cast; --output-format npy names the way out.
x7 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [7])
low = [("f8", TensorProto.FLOAT8E4M3FN), ("i4", TensorProto.INT4), ("f4", TensorProto.FLOAT4E2M1)]
g = helper.make_graph([helper.make_node("Cast", ["x"], [n], to=t) for n, t in low] + [helper.make_node("Identity", ["x"], ["same"])],
                      "g", [x7], [helper.make_tensor_value_info(n, t, [7]) for n, t in low]
                      + [helper.make_tensor_value_info("same", TensorProto.FLOAT, [7])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 23)])
m.ir_version = 11
onnx.save(m, path("low_precision.onnx"))
x_low = np.array([-5.5, -3.2, -0.6, 0, 0.4, 2.7, 5.9], np.float32)  # within int4's and float4's range
np.save(path("x_low.npy"), x_low)
r = hipinfer("run", path("low_precision.onnx"), "-i", f"x={path('x_low.npy')}", "-o", path("outs_pb"), "--output-format", "pb")
check("run --output-format pb writes float8, int4 and float4 outputs", r.returncode == 0
      and sorted(os.listdir(path("outs_pb"))) == ["f4.pb", "f8.pb", "i4.pb", "same.pb"], (r.returncode, r.stderr))
if r.returncode == 0:
    from onnx import numpy_helper
    from onnx.reference import ReferenceEvaluator
    expected = ReferenceEvaluator(m).run(None, {"x": x_low})
    for (name, _), want in zip(low + [("same", None)], expected):
        t = onnx.load_tensor(path(f"outs_pb/{name}.pb"))
        got = numpy_helper.to_array(t)
        check(f"--output-format pb: {name} is a {t.data_type} TensorProto named {name} equal to onnx's reference",
              t.name == name and got.dtype == want.dtype and np.array_equal(got.astype(np.float32), want.astype(np.float32)),
              (t.name, got.dtype, want.dtype, got.astype(np.float32), want.astype(np.float32)))
r = hipinfer("run", path("low_precision.onnx"), "-i", f"x={path('x_low.npy')}", "-o", path("outs_npy"))
check("run -o with a float8 output and .npy: exit 4 naming the output and --output-format pb", r.returncode == 4
      and "output 'f8' (--output-format pb writes it)" in r.stderr and "no .npy equivalent" in r.stderr, (r.returncode, r.stderr))
# Values that are not tensors: a scikit-learn classifier's ZipMap output (a sequence of maps) is
# printed and written as a SequenceProto of MapProtos, a sequence of tensors as a SequenceProto;
# both read back with onnx.numpy_helper equal to onnxruntime's outputs; .npy names the way out.
SKLEARN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "data", "sklearn")
forest = os.path.join(SKLEARN, "random_forest_3class.onnx")
x_rows = np.random.default_rng(4).normal(0, 1.5, (3, 7)).astype(np.float32)
np.save(path("x_rows.npy"), x_rows)
r = hipinfer("run", forest, "-i", f"X={path('x_rows.npy')}", "-o", path("outs_zipmap"), "--output-format", "pb")
check("run prints a ZipMap output as maps", r.returncode == 0 and "a sequence of 3 maps" in r.stdout
      and "[0] {0: " in r.stdout, (r.returncode, r.stdout, r.stderr))
if r.returncode == 0:
    import onnxruntime
    from onnx import numpy_helper
    want_label, want_probs = onnxruntime.InferenceSession(forest, providers=["CPUExecutionProvider"]).run(
        None, {"X": x_rows})
    seq = onnx.SequenceProto()
    with open(path("outs_zipmap/output_probability.pb"), "rb") as f:
        seq.ParseFromString(f.read())
    got = [{int(k): float(v) for k, v in m.items()} for m in numpy_helper.to_list(seq)] if seq.elem_type == seq.MAP else None
    check("--output-format pb: ZipMap's output is a SequenceProto of MapProtos equal to onnxruntime's",
          seq.name == "output_probability" and got is not None and len(got) == 3
          and all(g.keys() == w.keys() and all(abs(g[k] - w[k]) < 1e-5 for k in w) for g, w in zip(got, want_probs)),
          (seq.name, got, want_probs))
    label = numpy_helper.to_array(onnx.load_tensor(path("outs_zipmap/output_label.pb")))
    check("--output-format pb: the label tensor beside it", np.array_equal(label, want_label), (label, want_label))
r = hipinfer("run", forest, "-i", f"X={path('x_rows.npy')}", "-o", path("outs_zipmap_npy"))
check("run -o with a map output and .npy: exit 4 naming the output and --output-format pb", r.returncode == 4
      and "output 'output_probability' is a sequence of 3 maps; .npy holds tensors only, --output-format pb writes it"
      in r.stderr, (r.returncode, r.stderr))
seq_type = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
g = helper.make_graph([helper.make_node("SplitToSequence", ["x"], ["parts"], axis=0)], "split",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [7])], [helper.make_value_info("parts", seq_type)])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
onnx.save(m, path("split.onnx"))
r = hipinfer("run", path("split.onnx"), "-i", f"x={path('x_low.npy')}", "-o", path("outs_seq"), "--output-format", "pb")
if r.returncode == 0:
    seq = onnx.SequenceProto()
    with open(path("outs_seq/parts.pb"), "rb") as f:
        seq.ParseFromString(f.read())
    parts = numpy_helper.to_list(seq)
check("run writes a sequence of tensors as a SequenceProto", r.returncode == 0 and "sequence of 7 tensors" in r.stdout
      and len(parts) == 7 and np.array_equal(np.concatenate(parts), x_low), (r.returncode, r.stdout, r.stderr))
r = hipinfer("run", path("scale.onnx"), "-o", path("outs_x"), "--output-format", "csv")
check("run --output-format csv: usage error naming the formats", r.returncode == 2 and "npy or pb" in r.stderr, r.stderr)
# Placement: --explain lists each node's device; a fallback is a warning, never silent.
has_gpu = bool(json.loads(hipinfer("devices", "--json").stdout)["devices"])
r = hipinfer("run", path("scale.onnx"), "--explain")
check("run --explain lists the node and its device", r.returncode == 0 and "placement:" in r.stdout
      and "scale" in r.stdout and "Mul" in r.stdout, r.stdout)
if not has_gpu:
    check("the default gpu,cpu falls back with a warning saying why",
          "hipinfer: warning: 1 of 1 nodes run on cpu instead of" in r.stderr and "gpu: " in r.stderr, r.stderr)
    check("run summarises the placement", "placement: 1 nodes: 1 on cpu" in r.stdout, r.stdout)
r = hipinfer("run", path("scale.onnx"), "--device", "cpu")
check("--device cpu: no fallback, no warning", r.returncode == 0 and "warning" not in r.stderr
      and "no fallbacks" in r.stdout, r.stdout + r.stderr)
r = hipinfer("run", path("scale.onnx"), "--device", "cpu,tpu")
check("--device with an unknown name: exit 4 naming it", r.returncode == 4 and "unknown device 'tpu'" in r.stderr,
      (r.returncode, r.stderr))
r = hipinfer("run", path("scale.onnx"), "--device", "gpu")
if not r.returncode == 0:  # a machine with a GPU and kernels for Mul would run it
    check("--device gpu without a usable GPU: exit 3 naming the node", r.returncode == 3
          and "node 'scale' (Mul): gpu: " in r.stderr, (r.returncode, r.stderr))
np.save(path("xbad.npy"), np.zeros((3, 5), dtype=np.float32))
r = hipinfer("run", path("scale.onnx"), "--input", f"x={path('xbad.npy')}")
check("wrong input shape: exit 4 naming input and dims", r.returncode == 4 and "'x'" in r.stderr and "dim 1 must be 4" in r.stderr, r.stderr)
r = hipinfer("run", path("scale.onnx"), "--input", "y=" + path("x.npy"))
check("unknown input name: exit 4", r.returncode == 4 and "'y' is not an input" in r.stderr, r.stderr)
r = hipinfer("run", path("scale.onnx"), "--input", "x=" + path("nope.npy"))
check("missing input file: exit 4", r.returncode == 4 and "nope.npy" in r.stderr, r.stderr)

# Unsupported ops: inspect lists them and exits 3; run gives one message naming them.
g = helper.make_graph([helper.make_node("NotARealOp", ["x"], ["t"], name="weird1"),
                       helper.make_node("AlsoFake", ["t"], ["out/put:0"], name="weird2")], "g", [x], [y])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path("fake.onnx"))
r = hipinfer("inspect", path("fake.onnx"))
check("inspect lists unsupported ops, exit 3",
      r.returncode == 3 and "NotARealOp" in r.stdout and "AlsoFake" in r.stdout and "weird1" in r.stdout, r.stdout)
r = hipinfer("run", path("fake.onnx"))
check("run names every unsupported op in one error",
      r.returncode == 3 and "2 ops are not supported" in r.stderr and "NotARealOp" in r.stderr and "AlsoFake" in r.stderr, r.stderr)

# zoo + inspect: the summary has every section.
r = hipinfer("zoo", "mobilenetv2", "-o", path("mnv2.onnx"))
check("zoo mobilenetv2", r.returncode == 0, r.stderr)
r = hipinfer("inspect", path("mnv2.onnx"))
for part in ("IR version", "opsets", "inputs:", "outputs:", "parameters:", "FLOPs:", "ops:", "Conv"):
    check(f"inspect shows {part!r}", part in r.stdout, r.stdout)
r = hipinfer("zoo", "alexnet", "-o", path("x.onnx"))
check("unknown zoo model lists the known ones", r.returncode != 0 and "resnet50" in (r.stderr + r.stdout), r.stderr)

# Files that are not regular files (issue 24): a FIFO with no writer blocked the open, /dev/zero
# never ended. Each is refused at once with exit 4 naming it, or (report) noted in the report.
fifo = path("fifo.npy")
if not os.path.exists(fifo):
    os.mkfifo(fifo)
for name, args in [("run --input x=FIFO", ["run", path("mnv2.onnx"), "--input", f"input={fifo}"]),
                   ("run --input x=/dev/zero", ["run", path("mnv2.onnx"), "--input", "input=/dev/zero"]),
                   ("run FIFO as the model", ["run", fifo]),
                   ("doctor --matrix /dev/zero", ["doctor", "--matrix", "/dev/zero"])]:
    try:
        r = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60)
        check(f"{name}: exit 4 or 3, 'not a regular file'", r.returncode in (3, 4) and "regular file" in r.stderr,
              (r.returncode, r.stderr[-500:]))
    except subprocess.TimeoutExpired:
        check(f"{name}: returns", False, "still running after 60 s")
try:
    r = subprocess.run([BIN, "report", "--log", "/dev/zero", "-o", path("report.md")], capture_output=True, text=True, timeout=60)
    check("report --log /dev/zero: returns, the log noted as not a regular file",
          r.returncode in (0, 1) and "not a regular file" in open(path("report.md")).read(), (r.returncode, r.stderr[-500:]))
except subprocess.TimeoutExpired:
    check("report --log /dev/zero: returns", False, "still running after 60 s")

# zoo -o onto something that is not a regular file (as root, a failed write to /dev/full used to
# remove /dev/full): refused, and the path is still there.
r = hipinfer("zoo", "mobilenetv2", "-o", fifo)
check("zoo -o FIFO: refused, the FIFO kept", r.returncode != 0 and "not a regular file" in r.stderr and os.path.exists(fifo),
      (r.returncode, r.stderr))
r = hipinfer("zoo", "mobilenetv2", "-o", path("mnv2_again.onnx"))
check("zoo -o FILE: written whole, no temporary left", r.returncode == 0 and os.path.getsize(path("mnv2_again.onnx")) > 1000000
      and not [f for f in os.listdir(WORK) if ".tmp-" in f], (r.returncode, r.stderr, os.listdir(WORK)))

# Outputs whose file names collide ("a/b" and "a_b") each get a file; names and the producer with
# terminal escape sequences are printed escaped.
xi = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ("a/b", "a_b", "\x1b[31mred")]
g = helper.make_graph([helper.make_node("Identity", ["x"], ["a/b"]), helper.make_node("Neg", ["x"], ["a_b"]),
                       helper.make_node("Relu", ["x"], ["\x1b[31mred"])], "g", [xi], outs)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="\x1b]0;pwned\x07tool")
onnx.save(m, path("collide.onnx"))
r = hipinfer("run", path("collide.onnx"), "-o", path("collide_out"))
files = sorted(os.listdir(path("collide_out"))) if os.path.isdir(path("collide_out")) else []
check("run -o: colliding output names get distinct files", r.returncode == 0 and len(files) == 3 and "a_b.npy" in files
      and "a_b_2.npy" in files, (r.returncode, files, r.stderr))
check("run prints names with escape sequences escaped", "\x1b" not in r.stdout and "\\x1b[31mred" in r.stdout, r.stdout)
r = hipinfer("inspect", path("collide.onnx"))
check("inspect prints the producer escaped", r.returncode == 0 and "\x1b" not in r.stdout and "\x07" not in r.stdout
      and "\\x1b]0;pwned" in r.stdout, r.stdout)

# Resource bounds: a run past --timeout and models asking for more memory than the limit or the
# machine end with exit 5 and the reason, quickly and without the memory.
def hipinfer_rss(*args):
    """(exit code, stderr, peak RSS in MiB, seconds) of one hipinfer run."""
    import time
    with open(path("rss.out"), "w") as out, open(path("rss.err"), "w") as err:
        start = time.monotonic()
        p = subprocess.Popen([BIN, *args], stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        took = time.monotonic() - start
    with open(path("rss.err")) as f:
        return os.waitstatus_to_exitcode(status), f.read(), usage.ru_maxrss / 1024, took


x1 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
y1 = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
body = helper.make_graph(
    [helper.make_node("Add", ["acc", "one"], ["next"], name="step")], "body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("c", TensorProto.BOOL, []),
     helper.make_tensor_value_info("acc", TensorProto.FLOAT, [1])],
    [helper.make_tensor_value_info("c", TensorProto.BOOL, []), helper.make_tensor_value_info("next", TensorProto.FLOAT, [1])])
g = helper.make_graph([helper.make_node("Loop", ["M", "", "x"], ["y"], name="endless", body=body)], "g", [x1], [y1],
                      [helper.make_tensor("M", TensorProto.INT64, [], [2**62]), helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path("endless_loop.onnx"))
code, err, rss, took = hipinfer_rss("run", path("endless_loop.onnx"), "--timeout", "300")
check("run --timeout stops a Loop of 2^62 iterations: exit 5 within the limit + 1 s",
      code == 5 and "time limit of 300 ms" in err and "endless" in err and took < 1.3 + 1, (code, err, took))


def fill_model(name, elements):
    g = helper.make_graph([helper.make_node("ConstantOfShape", ["shape"], ["big"], name="huge_fill"),
                           helper.make_node("Add", ["x", "big"], ["y"], name="add")], "g", [x1], [y1],
                          [helper.make_tensor("shape", TensorProto.INT64, [1], [elements])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path(name))


fill_model("fill_1g.onnx", 2**28)
code, err, rss, took = hipinfer_rss("run", path("fill_1g.onnx"), "--memory-limit", "256M")
check("run --memory-limit: a 1 GiB ConstantOfShape from a tiny model is refused at the node, exit 5, RSS under the limit",
      code == 5 and "huge_fill" in err and "memory limit of 256 MiB" in err and rss < 256, (code, err, rss))
fill_model("fill_1t.onnx", 2**38)
code, err, rss, took = hipinfer_rss("run", path("fill_1t.onnx"))
check("run: a 1 TiB ConstantOfShape is refused without any limit set (the machine's memory), exit 5",
      code == 5 and "huge_fill" in err and "host memory" in err and rss < 256, (code, err, rss))
code, err, rss, took = hipinfer_rss("inspect", path("fill_1t.onnx"))
check("inspect describes the 1 TiB model without folding it", code == 0 and rss < 256, (code, err, rss))
r = hipinfer("run", path("fill_1g.onnx"), "--memory-limit", "lots")
check("run --memory-limit with a bad size: usage error naming the option", r.returncode == 2 and "--memory-limit" in r.stderr,
      (r.returncode, r.stderr))

print(f"cli: {len(failures)} failed" if failures else "cli: all passed")
sys.exit(1 if failures else 0)
