#!/usr/bin/env python3
"""`hipinfer bench` end to end: the JSON fields, the SVG chart, --compare onnxruntime (skipped with a
message when this Python has no onnxruntime), and the error paths.

usage: check_bench.py HIPINFER_BINARY WORK_DIR
"""
import json
import os
import stat
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

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
# The worker's interpreter is always named, so the tests do not depend on the python3 on PATH.
ENV = {k: v for k, v in os.environ.items() if k not in ("HI_PYTHON", "PYTHONPATH")}


def bench(*args, env=None):
    return subprocess.run([BIN, "bench", *args], capture_output=True, text=True, timeout=300, env=env or ENV)


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f": {detail}"))
    if not cond:
        failures.append(name)


def path(name):
    return os.path.join(WORK, name)


def load_json(r, name):
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        check(name + ": stdout is JSON", False, f"{e}: rc {r.returncode}, stdout {r.stdout[:500]!r}, stderr {r.stderr[-2000:]!r}")
        return None


def executable(name, text):
    with open(path(name), "w") as f:
        f.write(text)
    os.chmod(path(name), os.stat(path(name)).st_mode | stat.S_IXUSR)
    return path(name)


# A tiny model with a symbolic batch: y = relu(x @ w) + 1, two outputs.
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
z = helper.make_tensor_value_info("z", TensorProto.FLOAT, None)
w = helper.make_tensor("w", TensorProto.FLOAT, [8, 4], np.linspace(-1, 1, 32, dtype=np.float32))
one = helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])
g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
                       helper.make_node("Relu", ["m"], ["y"], name="relu"),
                       helper.make_node("Add", ["y", "one"], ["z"], name="add")],
                      "tiny", [x], [y, z], [w, one])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path("tiny.onnx"))
MODEL = path("tiny.onnx")

# --- --profile: device work -------------------------------------------------------------------
# Tensor bytes per node on the CPU; with the emulated GPU (when built), its launches, host
# synchronisations and allocations per timed run (none after warm-up) and its nodes' bytes.
r = bench(MODEL, "--runs", "3", "--warmup", "2", "--profile", "--device", "cpu", "--json", "-")
j = load_json(r, "bench --profile --json -")
if j:
    traffic = {t["node"]: t for t in j["profile"]["traffic"]}
    check("profile traffic on the cpu: MatMul reads x and w, writes m",
          traffic.get("mm", {}).get("bytes_read") == 4 * 8 + 8 * 4 * 4 and traffic["mm"]["bytes_written"] == 4 * 4
          and traffic["mm"]["device"] == "cpu", j["profile"]["traffic"])
    check("no GPU work on the cpu", all(v == 0 for v in j["profile"]["gpu_per_run"].values()), j["profile"]["gpu_per_run"])
if "emu" in subprocess.run([BIN, "devices"], capture_output=True, text=True).stdout:
    r = bench(MODEL, "--runs", "3", "--warmup", "2", "--profile", "--device", "emu,cpu", "--json", "-")
    j = load_json(r, "bench --profile --device emu,cpu --json -")
    if j:
        g = j["profile"]["gpu_per_run"]
        check("emu: a timed run launches kernels or a graph and synchronises",
              g["kernel_launches"] + g["graph_launches"] >= 1 and g["host_syncs"] >= 1, g)
        check("emu: no device allocation inside a run after warm-up", g["device_allocations"] == 0, g)
        traffic = {t["node"]: t for t in j["profile"]["traffic"]}
        check("emu: the MatMul's traffic on emu:0",
              traffic.get("mm", {}).get("device") == "emu:0" and traffic["mm"]["bytes_read"] == 4 * 8 + 8 * 4 * 4
              and traffic["mm"]["bytes_written"] == 16, j["profile"]["traffic"])
    r = bench(MODEL, "--runs", "3", "--warmup", "2", "--profile", "--device", "emu,cpu")
    check("emu: the text report prints the GPU work and the traffic",
          "gpu per run:" in r.stdout + r.stderr and "tensor traffic per run:" in r.stdout + r.stderr, r.stdout + r.stderr)

# --- The JSON report -------------------------------------------------------------------------
r = bench(MODEL, "--runs", "5", "--warmup", "2", "--json", "-")
check("bench --runs 5 --json -: exit 0", r.returncode == 0, (r.returncode, r.stderr))
j = load_json(r, "bench --json -")
if j:
    h = j["hipinfer"]
    for key in ("hipinfer_version", "model", "batch", "threads", "precision", "opt_level", "warmup_runs", "machine", "hipinfer", "peers", "ok"):
        check(f"JSON has {key!r}", key in j, sorted(j))
    check("JSON settings", j["model"] == MODEL and j["batch"] == 1 and j["precision"] == "fp32" and j["opt_level"] == 3
          and j["warmup_runs"] == 2 and j["max_runs"] == 5 and j["time_budget_s"] is None, j)
    check("JSON machine", j["machine"]["cpu_model"] and j["machine"]["logical_cpus"] >= 1 and j["machine"]["physical_cores"] >= 1, j["machine"])
    check("default threads = physical cores", j["threads"] == j["machine"]["physical_cores"], (j["threads"], j["machine"]))
    check("5 runs, 5 latencies", h["runs"] == 5 and len(h["latencies_ms"]) == 5 and all(v > 0 for v in h["latencies_ms"]), h)
    lat = np.array(h["latencies_ms"])
    s = h["latency_ms"]
    check("statistics match the latencies",
          abs(s["min"] - lat.min()) < 1e-6 and abs(s["max"] - lat.max()) < 1e-6 and abs(s["median"] - np.median(lat)) < 1e-6
          and abs(s["p90"] - np.percentile(lat, 90)) < 1e-6 and abs(s["p99"] - np.percentile(lat, 99)) < 1e-6
          and abs(s["mean"] - lat.mean()) < 1e-6, (s, list(lat)))
    check("throughput = batch * runs / time", abs(h["throughput_per_s"] - 5 / (lat.sum() / 1000)) < 1e-3 * h["throughput_per_s"], h)
    check("creation time, memory, arena",
          h["session_create_ms"] > 0 and h["peak_rss_bytes"] > 0 and h["peak_host_bytes"] > 0 and h["planned_arena_bytes"] >= 0
          and h["nodes_executed"] >= 1, h)
    check("no peers, ok", j["peers"] == [] and j["ok"] is True, j)
    # Session creation, the first run (the first warm-up run) and the steady state, apart.
    check("precision, first run, no busy load", h["precision"] == "fp32" and h["first_run_ms"] > 0
          and j["busy_processes"] == 0 and 0 <= h["reduced_thread_runs"] <= 5, h)
check("with --json - the table goes to stderr", "latency median (ms)" in r.stderr and "throughput" in r.stderr, r.stderr)

r = bench(MODEL, "--runs", "3", "--warmup", "0", "--batch", "4", "--threads", "1", "--json", path("b4.json"))
check("--batch 4 --json FILE: exit 0, table on stdout", r.returncode == 0 and "latency p99 (ms)" in r.stdout
      and "batch 4, 1 threads" in r.stdout, (r.returncode, r.stdout, r.stderr))
if os.path.exists(path("b4.json")):
    j = json.load(open(path("b4.json")))
    h = j["hipinfer"]
    check("JSON file: batch 4, threads 1, 3 runs", j["batch"] == 4 and j["threads"] == 1 and h["runs"] == 3, j)
    check("throughput counts the batch", abs(h["throughput_per_s"] - 4 * 3 / (h["total_ms"] / 1000)) < 1e-3 * h["throughput_per_s"], h)
else:
    check("JSON file written", False, os.listdir(WORK))

r = bench(MODEL, "--time", "0.3", "--warmup", "1", "--json", "-")
j = load_json(r, "bench --time")
if j:
    check("--time 0.3: runs until 0.3 s are spent, no run limit",
          j["max_runs"] is None and j["time_budget_s"] == 0.3 and j["hipinfer"]["total_ms"] >= 300 and j["hipinfer"]["runs"] > 1, j["hipinfer"]["total_ms"])

np.save(path("x3.npy"), np.ones((3, 8), np.float32))
r = bench(MODEL, "--runs", "2", "--input", "x=" + path("x3.npy"), "--json", "-", "--quiet")
j = load_json(r, "bench --input")
check("--input FILE: batch from the file", j is not None and j["batch"] == 3, r.stderr)
r = bench(MODEL, "--runs", "2", "--quiet")
check("--quiet: one summary line", r.returncode == 0 and len(r.stdout.strip().splitlines()) == 1 and "median" in r.stdout
      and "inferences/s" in r.stdout, (r.stdout, r.stderr))
r = bench(MODEL, "--runs", "2", "--warmup", "1", "--opt-level", "0", "--seed", "7", "--json", "-", "--quiet")
j = load_json(r, "bench --opt-level 0")
check("--opt-level 0 is used", j is not None and j["opt_level"] == 0, r.stderr)

# --- The SVG chart -------------------------------------------------------------------------------
r = bench(MODEL, "--runs", "5", "--warmup", "1", "--plot", path("tiny.svg"))
check("--plot: exit 0, says where", r.returncode == 0 and "chart written to" in r.stdout, (r.returncode, r.stderr))


def check_svg(file, engines, label):
    try:
        root = ET.parse(file).getroot()
    except (ET.ParseError, OSError) as e:
        check(f"{label}: well-formed XML", False, e)
        return
    check(f"{label}: an <svg> root", root.tag == "{http://www.w3.org/2000/svg}svg", root.tag)
    texts = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
    check(f"{label}: title has model, batch, threads", "tiny.onnx" in texts and "batch 1" in texts and "thread" in texts, texts)
    check(f"{label}: axis labels with units", "latency per run (ms)" in texts and "engine" in texts, texts)
    for e in engines:
        check(f"{label}: a column for {e}", e in texts, texts)
    dots = list(root.iter("{http://www.w3.org/2000/svg}circle"))
    check(f"{label}: one dot per run", len(dots) == 5 * len(engines), len(dots))


check_svg(path("tiny.svg"), ["hipinfer"], "chart")

# --- Comparing with ONNX Runtime ------------------------------------------------------------
try:
    import onnxruntime  # noqa: F401
    have_ort = True
except ImportError:
    have_ort = False
if not have_ort:
    print(f"SKIP --compare onnxruntime: onnxruntime is not importable by {sys.executable}")
else:
    r = bench(MODEL, "--runs", "5", "--warmup", "2", "--threads", "1", "--compare", "onnxruntime", "--python", sys.executable,
              "--json", "-", "--plot", path("compare.svg"))
    check("--compare onnxruntime: exit 0", r.returncode == 0, (r.returncode, r.stderr))
    j = load_json(r, "--compare onnxruntime")
    if j:
        p = j["peers"][0] if j["peers"] else {}
        check("peer measured", p.get("name") == "onnxruntime" and p.get("state") == "measured" and p.get("version") == onnxruntime.__version__, p)
        check("peer: 5 runs, statistics, creation time, first run, RSS, precision", p.get("runs") == 5
              and len(p.get("latencies_ms", [])) == 5 and p["latency_ms"]["median"] > 0 and p["session_create_ms"] > 0
              and p["first_run_ms"] > 0 and p["peak_rss_bytes"] > 0 and p["precision"] == "fp32", p)
        c = j["comparisons"].get("onnxruntime", {})
        hm, pm = j["hipinfer"]["latency_ms"]["median"], p["latency_ms"]["median"]
        check("ratios", abs(c.get("median_latency_ratio", 0) - hm / pm) < 1e-6 * hm / pm and c.get("throughput_ratio", 0) > 0, c)
        outs = c.get("outputs", [])
        check("outputs checked and match", [o["name"] for o in outs] == ["y", "z"] and all(o["match"] for o in outs)
              and all(o["max_abs_error"] < 1e-5 for o in outs), outs)
        check("ok", j["ok"] is True, j["ok"])
    check("table labels the ratios 'x ONNX Runtime'", "x ONNX Runtime" in r.stderr and "ONNX Runtime " + onnxruntime.__version__ in r.stderr, r.stderr)
    check("table prints max abs/rel error per output", "max abs" in r.stderr and "max rel" in r.stderr, r.stderr)
    check_svg(path("compare.svg"), ["hipinfer", "ONNX Runtime"], "comparison chart")

    # HI_PYTHON names the interpreter when --python does not.
    r = bench(MODEL, "--runs", "2", "--warmup", "0", "--compare", "ort", "--json", "-", "--quiet", env={**ENV, "HI_PYTHON": sys.executable})
    j = load_json(r, "HI_PYTHON")
    check("HI_PYTHON is used, 'ort' is onnxruntime", j is not None and j["peers"][0]["state"] == "measured", r.stderr)

    # A peer that crashes in the middle of the runs: a stand-in onnxruntime whose run() kills itself.
    os.makedirs(path("crashing_ort"), exist_ok=True)
    with open(path("crashing_ort/onnxruntime.py"), "w") as f:
        f.write("import os, signal\n__version__ = 'crash'\n"
                "class SessionOptions: pass\n"
                "class ExecutionMode: ORT_SEQUENTIAL = 0\n"
                "class GraphOptimizationLevel: ORT_ENABLE_ALL = 99\n"
                "class InferenceSession:\n"
                "    def __init__(self, *a, **k): pass\n"
                "    def get_outputs(self): return []\n"
                "    def run(self, *a):\n"
                "        import sys; print('stand-in worker dies now', file=sys.stderr, flush=True)\n"
                "        os.kill(os.getpid(), signal.SIGKILL)\n")
    r = bench(MODEL, "--runs", "3", "--warmup", "1", "--compare", "onnxruntime", "--python", sys.executable, "--json", "-",
              env={**ENV, "PYTHONPATH": path("crashing_ort")})
    check("peer killed mid-run: exit 1, says how it died and shows its stderr",
          r.returncode == 1 and "killed by signal 9" in r.stderr and "stand-in worker dies now" in r.stderr, (r.returncode, r.stderr))
    j = load_json(r, "peer crash")
    check("peer crash: hipinfer's results are still reported", j is not None and j["hipinfer"]["runs"] == 3
          and j["peers"][0]["state"] == "failed" and j["ok"] is False, j and j["peers"])

# --- Comparing with OpenVINO -----------------------------------------------------------------
try:
    import openvino  # noqa: F401
    have_openvino = True
except ImportError:
    have_openvino = False
if not have_openvino:
    print(f"SKIP --compare openvino: openvino is not importable by {sys.executable}")
else:
    r = bench(MODEL, "--runs", "4", "--warmup", "1", "--threads", "1", "--compare", "onnxruntime,openvino", "--python",
              sys.executable, "--json", "-")
    check("--compare onnxruntime,openvino: exit 0", r.returncode == 0, (r.returncode, r.stderr[-2000:]))
    j = load_json(r, "--compare openvino")
    if j:
        peers = {p["name"]: p for p in j["peers"]}
        ov = peers.get("openvino", {})
        check("OpenVINO measured at fp32, its version", ov.get("state") == "measured" and ov.get("runs") == 4
              and ov.get("precision") == "fp32" and ov.get("version") == openvino.__version__.split("-")[0]
              and ov.get("first_run_ms", 0) > 0, ov)
        outs = j["comparisons"].get("openvino", {}).get("outputs", [])
        check("OpenVINO's outputs checked and match", [o["name"] for o in outs] == ["y", "z"]
              and all(o["match"] for o in outs), outs)
        check("both peers measured", peers.get("onnxruntime", {}).get("state") == "measured", j["peers"])
    check("table labels OpenVINO and the precision row", "x OpenVINO" in r.stderr and "precision" in r.stderr, r.stderr)
    # bf16: OpenVINO is told bf16 and reports what it chose (f32 where the CPU has no bf16); ONNX
    # Runtime stays at fp32 and says so.
    r = bench(MODEL, "--runs", "2", "--warmup", "1", "--precision", "bf16", "--accuracy-samples", "0", "--compare",
              "openvino,onnxruntime", "--python", sys.executable, "--json", "-")
    j = load_json(r, "--compare openvino bf16")
    if j:
        peers = {p["name"]: p for p in j["peers"]}
        check("bf16: OpenVINO at bf16 or fp32, ONNX Runtime at fp32, hipinfer bf16",
              peers.get("openvino", {}).get("precision") in ("bf16", "fp32")
              and peers.get("onnxruntime", {}).get("precision") == "fp32" and j["hipinfer"]["precision"] == "bf16", j["peers"])
    # Not importable: unavailable, the rest measured.
    os.makedirs(path("no_openvino"), exist_ok=True)
    with open(path("no_openvino/openvino.py"), "w") as f:
        f.write("raise ImportError('No module named openvino (hidden by check_bench.py)')\n")
    r = bench(MODEL, "--runs", "2", "--compare", "openvino", "--python", sys.executable, "--json", "-",
              env={**ENV, "PYTHONPATH": path("no_openvino")})
    j = load_json(r, "no openvino")
    check("openvino not importable: exit 0, unavailable, says so", r.returncode == 0 and "openvino" in r.stderr
          and j is not None and j["peers"][0]["state"] == "unavailable", (r.returncode, r.stderr))

# --- A busy machine (--busy) -------------------------------------------------------------------
def busy_children(marker):
    """Processes still running with `marker` on their command line (the busy loops are forks of bench)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read() and not dead(int(entry)):
                    found.append(int(entry))
        except OSError:
            pass
    return found


def dead(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as f:  # a zombie nobody reaps is dead too
        return f.read().rsplit(")", 1)[1].split()[0] == "Z"


r = bench(MODEL, "--runs", "20", "--warmup", "2", "--busy", "2", "--json", "-", "--seed", "4242")
j = load_json(r, "--busy 2")
check("--busy 2: exit 0, recorded, said in the method line", r.returncode == 0 and j is not None
      and j["busy_processes"] == 2 and "2 busy-loop processes running beside" in r.stderr, (r.returncode, r.stderr[-1000:]))
check("--busy 2: the busy processes are gone when bench ends", busy_children("4242") == [], busy_children("4242"))
# Killed outright, bench cannot clean up: its busy children must die with it all the same.
proc = subprocess.Popen([BIN, "bench", MODEL, "--time", "60", "--busy", "1", "--seed", "4343", "-q"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(100):
    if len(busy_children("4343")) >= 2:
        break
    time.sleep(0.05)
started = len(busy_children("4343"))
proc.kill()
proc.wait()
for _ in range(100):
    if not busy_children("4343"):
        break
    time.sleep(0.05)
check("bench killed with --busy 1: its busy process dies too", started == 2 and busy_children("4343") == [],
      (started, busy_children("4343")))

# onnxruntime not importable (shadowed by a module that raises ImportError): say so, exit 0.
os.makedirs(path("no_ort"), exist_ok=True)
with open(path("no_ort/onnxruntime.py"), "w") as f:
    f.write("raise ImportError('No module named onnxruntime (hidden by check_bench.py)')\n")
r = bench(MODEL, "--runs", "2", "--compare", "onnxruntime", "--python", sys.executable, "--json", "-",
          env={**ENV, "PYTHONPATH": path("no_ort")})
check("onnxruntime not importable: exit 0, says so", r.returncode == 0 and "cannot be imported" in r.stderr, (r.returncode, r.stderr))
j = load_json(r, "no onnxruntime")
check("not importable: peer unavailable, hipinfer measured", j is not None and j["peers"][0]["state"] == "unavailable"
      and j["hipinfer"]["runs"] == 2 and j["ok"] is True, j and j["peers"])

r = bench(MODEL, "--runs", "2", "--compare", "torch", "--json", "-")
j = load_json(r, "--compare torch")
check("--compare torch: exit 0, explains that torch needs a PyTorch model", r.returncode == 0 and "PyTorch" in r.stderr
      and j is not None and j["peers"][0]["state"] == "unavailable", (r.returncode, r.stderr))

# A worker that dies before saying hello.
dies = executable("dying_python", "#!/bin/sh\necho 'fake python: giving up' >&2\nexit 3\n")
r = bench(MODEL, "--runs", "2", "--compare", "onnxruntime", "--python", dies)
check("worker exits at start: exit 1, status and stderr shown",
      r.returncode == 1 and "exited with status 3" in r.stderr and "fake python: giving up" in r.stderr
      and "latency median" in r.stdout, (r.returncode, r.stderr))
# A worker that measures, then answers 'quit' and never exits (ignoring SIGTERM and the end of its
# input, with a helper process of its own): bench kills it within its grace period, names it in a
# warning, and still reports; it used to wait for ever. Called as:
# PYTHON -u SCRIPT ENGINE MODEL FOLDER THREADS PRECISION.
stuck = executable("stuck_python", """#!/bin/sh
trap '' TERM HUP INT
sleep 1000 &
echo $! > '""" + path("stuck_helper.pid") + """'
echo "ready stuck-1.0 5 fp32"
while read cmd k; do
  case "$cmd" in
    run) out=ok; i=0; while [ "$i" -lt "$k" ]; do out="$out 1.5"; i=$((i + 1)); done; echo "$out" ;;
    outputs) : > "$5/outputs.txt"; echo "ok 0" ;;
    stats) echo "ok 1000000" ;;
    quit) echo ok; while :; do sleep 1; done ;;
  esac
done
while :; do sleep 1; done
""")
t0 = time.monotonic()
r = bench(MODEL, "--runs", "2", "--warmup", "1", "--compare", "onnxruntime", "--python", stuck, "--json", "-")
took = time.monotonic() - t0
check("worker that never exits: bench ends, warns naming it, reports its runs",
      took < 60 and "warning: the ONNX Runtime worker did not exit within 5 s of 'quit' and was killed (SIGKILL)" in r.stderr
      and (load_json(r, "stuck worker") or {}).get("peers", [{}])[0].get("runs") == 2, (took, r.returncode, r.stderr[-1500:]))


helper = int(open(path("stuck_helper.pid")).read())
for _ in range(200):
    if dead(helper):
        break
    time.sleep(0.01)
check("worker that never exits: its helper process is killed with it", dead(helper), helper)
r = bench(MODEL, "--runs", "2", "--compare", "onnxruntime", "--python", path("no-such-python"))
check("--python missing: exit 4, names it", r.returncode == 4 and "no-such-python" in r.stderr, (r.returncode, r.stderr))

# --- The accuracy guard of reduced precision ------------------------------------------------
# bf16 where the CPU has it (else float32 again); three random batches of two: six rows per output.
r = bench(MODEL, "--runs", "2", "--warmup", "1", "--batch", "2", "--precision", "bf16", "--accuracy-samples", "3")
guard = r.stdout[r.stdout.find("accuracy guard"):]
check("bf16 accuracy guard: exit 0, both outputs, top-1 over six rows",
      r.returncode == 0 and "bf16 against float32 on 3 random inputs" in guard and guard.count("/6 (") == 2
      and "y " in guard and "z " in guard, (r.returncode, r.stdout[-800:], r.stderr))
check("bf16 accuracy guard: no lead line for four classes", "leads the second" not in guard, guard)
r = bench(MODEL, "--runs", "2", "--warmup", "1", "--batch", "2", "--precision", "bf16", "--accuracy-samples", "3",
          "--json", path("guard.json"))
acc = json.load(open(path("guard.json"))).get("accuracy", {}) if r.returncode == 0 else {}
outs = {o["name"]: o for o in acc.get("outputs", [])}
check("bf16 accuracy guard in the JSON: samples, both outputs, six rows each",
      acc.get("samples") == 3 and acc.get("precision") == "bf16" and set(outs) == {"y", "z"}
      and all(o["rows"] == 6 and 0 <= o["top1_agree"] <= 6 and o["max_abs_error"] >= 0 for o in outs.values())
      and all("median_top1_lead_sd" not in o for o in outs.values()), (r.returncode, acc, r.stderr))
r = bench(MODEL, "--runs", "2", "--json", path("noguard.json"))
check("fp32: no accuracy in the JSON", r.returncode == 0 and "accuracy" not in json.load(open(path("noguard.json"))), r.stderr)

# --- Bad input --------------------------------------------------------------------------------
r = bench(path("missing.onnx"))
check("missing model: exit 4, names the file", r.returncode == 4 and "missing.onnx" in r.stderr, (r.returncode, r.stderr))
for args, what in [(["--runs", "0"], "--runs"), (["--runs", "x"], "--runs"), (["--time", "0"], "--time"),
                   (["--time", "soon"], "--time"), (["--warmup", "-1"], "--warmup"), (["--precision", "fp8"], "--precision"),
                   (["--opt-level", "4"], "--opt-level"), (["--threads", "-2"], "--threads"), (["--batch", "0"], "--batch"),
                   (["--compare", "tensorflow"], "--compare"), (["--input", "x"], "--input"), (["--frobnicate"], "--frobnicate"),
                   (["--busy", "-1"], "--busy"), (["--busy", "many"], "--busy")]:
    r = bench(MODEL, *args)
    check(f"bad {' '.join(args)}: exit 2 naming {what}", r.returncode == 2 and what in r.stderr, (r.returncode, r.stderr))
r = bench(MODEL, "--runs", "1", "--json", path("no/such/dir/out.json"))
check("--json into a missing folder: exit 4 before measuring", r.returncode == 4 and "no/such/dir" in r.stderr, (r.returncode, r.stderr))
r = bench(MODEL, "--runs", "1", "--input", "x=" + path("nope.npy"))
check("missing input file: exit 4", r.returncode == 4 and "nope.npy" in r.stderr, (r.returncode, r.stderr))
np.save(path("xbad.npy"), np.zeros((2, 5), np.float32))
r = bench(MODEL, "--runs", "1", "--input", "x=" + path("xbad.npy"))
check("wrong input shape: exit 4", r.returncode == 4 and "'x'" in r.stderr, (r.returncode, r.stderr))
r = subprocess.run([BIN, "bench", "--help"], capture_output=True, text=True)
check("bench --help", r.returncode == 0 and "usage: hipinfer bench" in r.stdout and "--compare" in r.stdout, r.stdout)

print(f"cli_bench: {len(failures)} failed" if failures else "cli_bench: all passed")
sys.exit(1 if failures else 0)
