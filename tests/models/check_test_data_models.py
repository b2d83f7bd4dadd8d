#!/usr/bin/env python3
"""Runs `hipinfer inspect` and `hipinfer run` on every model in the ONNX test data's simple/ and
pytorch-converted/ folders. A model whose ops are all supported must run and match its expected
outputs (rtol 1e-3, atol 1e-7, the onnx runner's tolerances); any other model must fail with exit
code 3 and one message naming its unsupported ops. No run may crash.

usage: check_test_data_models.py HIPINFER_BINARY TEST_DATA_DIR
"""
import glob
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError as e:  # the test environment is made by scripts/setup
    print(f"SKIP: {e}; run scripts/setup")
    sys.exit(77)

RTOL, ATOL = 1e-3, 1e-7
FOLDERS = ("simple", "pytorch-converted")


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def check_model(binary, model_dir, tmp):
    """Returns (status, detail): status is 'pass', 'unsupported' or 'fail'."""
    model = os.path.join(model_dir, "model.onnx")
    inspect = subprocess.run([binary, "inspect", model], capture_output=True, text=True, timeout=120)
    if inspect.returncode < 0 or inspect.returncode == 70:
        return "fail", f"inspect crashed (exit {inspect.returncode}): {inspect.stderr[-500:]}"
    if inspect.returncode == 3:
        if "unsupported ops" not in inspect.stdout and "cannot run" not in inspect.stdout:
            return "fail", "exit 3 without naming the unsupported ops"
        return "unsupported", inspect.stdout.split("unsupported ops", 1)[-1].strip().replace("\n", "; ")[:200]
    if inspect.returncode != 0:
        return "fail", f"inspect exit {inspect.returncode}: {inspect.stderr.strip()[-300:]}"
    graph = onnx.load(model, load_external_data=False).graph
    inits = {i.name for i in graph.initializer}
    input_names = [i.name for i in graph.input if i.name not in inits]
    output_names = [o.name for o in graph.output]
    data_sets = sorted(glob.glob(os.path.join(model_dir, "test_data_set_*")))
    for ds in data_sets:
        args = [binary, "run", model, "--output-dir", tmp]
        for k, name in enumerate(input_names):
            pb = os.path.join(ds, f"input_{k}.pb")
            if os.path.exists(pb):
                args += ["--input", f"{name}={pb}"]
        run = subprocess.run(args, capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            return "fail", f"run exit {run.returncode}: {run.stderr.strip()[-400:]}"
        for k, name in enumerate(output_names):
            pb = os.path.join(ds, f"output_{k}.pb")
            if not os.path.exists(pb):
                continue
            _, expected = load_pb(pb)
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "output"
            got = np.load(os.path.join(tmp, safe + ".npy"))
            if got.shape != expected.shape:
                return "fail", f"output {name}: shape {got.shape}, expected {expected.shape}"
            if expected.dtype.kind in "fc":
                ok = np.allclose(got.astype(np.float64), expected.astype(np.float64), rtol=RTOL, atol=ATOL, equal_nan=True)
            else:
                ok = np.array_equal(got, expected)
            if not ok:
                err = np.max(np.abs(got.astype(np.float64) - expected.astype(np.float64)))
                return "fail", f"output {name}: max abs error {err:.3g}"
    return "pass", ""


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    binary, root = sys.argv[1], sys.argv[2]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for folder in FOLDERS:
            for model_dir in sorted(glob.glob(os.path.join(root, folder, "*"))):
                if not os.path.exists(os.path.join(model_dir, "model.onnx")):
                    continue
                key = f"{folder}/{os.path.basename(model_dir)}"
                try:
                    results[key] = check_model(binary, model_dir, tmp)
                except subprocess.TimeoutExpired:
                    results[key] = ("fail", "timed out")
    counts = {s: sum(1 for r in results.values() if r[0] == s) for s in ("pass", "unsupported", "fail")}
    for key, (status, detail) in sorted(results.items()):
        if status != "pass":
            print(f"{status:12s} {key}: {detail}")
    print(f"test-data models: {counts['pass']} passed, {counts['unsupported']} unsupported (clean error), "
          f"{counts['fail']} failed, of {len(results)}")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
