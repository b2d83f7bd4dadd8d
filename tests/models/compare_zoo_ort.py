#!/usr/bin/env python3
"""The zoo models (ResNet-50, MobileNetV2, the BERT-style encoder) through hipinfer and through
ONNX Runtime on the same random inputs: outputs must agree within rtol 1e-4, with an absolute
tolerance of 1e-4 times the RMS of the reference output. (Both engines sum in fp32 in different
orders; over 50 layers that difference shows up as an absolute error of about 1e-4 of the
output's scale, which a pure rtol would flag on every value that happens to be near zero.)

usage: compare_zoo_ort.py HIPINFER_BINARY WORK_DIR [--quick]
--quick uses a small encoder (2 layers, hidden 128) instead of BERT-base.
"""
import os
import subprocess
import sys

try:
    import numpy as np
    import onnxruntime as ort
except ImportError as e:
    print(f"SKIP: {e}; run scripts/setup")
    sys.exit(77)

RTOL, ATOL_SCALE = 1e-4, 1e-4


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r.stdout


def compare(binary, work, name, zoo_args, inputs):
    model = os.path.join(work, f"{name}.onnx")
    run([binary, "zoo", zoo_args[0], "-o", model] + zoo_args[1:])
    args = [binary, "run", model, "--output-dir", os.path.join(work, name)]
    for k, v in inputs.items():
        path = os.path.join(work, f"{name}.{k}.npy")
        np.save(path, v)
        args += ["--input", f"{k}={path}"]
    out = run(args)
    latency = [l for l in out.splitlines() if l.startswith("session created in")]
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
    expected = sess.run(None, inputs)
    ok = True
    for meta, exp in zip(sess.get_outputs(), expected):
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in meta.name)
        got = np.load(os.path.join(work, name, safe + ".npy"))
        if got.shape != exp.shape:
            print(f"FAIL {name}/{meta.name}: shape {got.shape} vs {exp.shape}")
            ok = False
            continue
        err = np.abs(got.astype(np.float64) - exp.astype(np.float64))
        rel = np.max(err / (np.abs(exp) + 1e-12))
        atol = ATOL_SCALE * float(np.sqrt(np.mean(exp.astype(np.float64) ** 2)))
        close = np.allclose(got, exp, rtol=RTOL, atol=atol)
        print(f"{'ok  ' if close else 'FAIL'} {name}/{meta.name} {list(got.shape)}: max abs err {err.max():.3g}, "
              f"max rel err {rel:.3g}, atol {atol:.2g}, output std {exp.std():.3g}  {latency[0].strip() if latency else ''}")
        ok = ok and close
    return ok


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    binary, work = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(0)
    image = rng.standard_normal((2, 3, 224, 224)).astype(np.float32)
    seq = 32 if quick else 128
    enc = ["--layers", "2", "--hidden", "128", "--heads", "4", "--sequence", str(seq)] if quick else []
    ids = rng.integers(0, 1000, size=(2, seq)).astype(np.int64)
    mask = np.ones((2, seq), dtype=np.int64)
    mask[1, seq // 2:] = 0  # padded second sequence: the attention mask matters
    ok = True
    ok &= compare(binary, work, "resnet50", ["resnet50"], {"input": image})
    ok &= compare(binary, work, "mobilenetv2", ["mobilenetv2"], {"input": image})
    ok &= compare(binary, work, "bert", ["bert"] + enc,
                  {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
    print("zoo vs ONNX Runtime:", "all match" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
