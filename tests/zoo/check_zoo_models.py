#!/usr/bin/env python3
"""Checks `hipinfer zoo` end to end against ONNX and ONNX Runtime.

Usage: check_zoo_models.py HIPINFER OUT_DIR [--large]

For each zoo model (ResNet-50, MobileNetV2, small BERTs at several opsets) it writes the model
with the CLI, runs onnx.checker.check_model(full_check=True), checks the graph uses only ops the
runtime supports and has the expected layout (names, opset, IR version), runs ONNX Runtime on
random inputs and checks the outputs are finite and well scaled. It also checks determinism
(same seed, same bytes), BERT's attention mask and symbolic sequence, and the CLI's errors.
--large adds BERT-base at its defaults (a 418 MiB file).

Exit codes: 0 all passed, 1 a check failed (the message says which), 77 skipped (no onnx,
onnxruntime or numpy in this Python).
"""
import os
import subprocess
import sys

SKIP = 77

# What the runtime supports (the zoo may use nothing else).
ALLOWED_OPS = set("""
Conv BatchNormalization Relu LeakyRelu Clip Sigmoid HardSigmoid HardSwish Tanh Erf Softmax Add Sub
Mul Div Pow Sqrt Neg Exp Log Sum Max Min MaxPool AveragePool GlobalAveragePool Flatten Reshape
Transpose Squeeze Unsqueeze Concat Split Slice Gather Shape Cast ConstantOfShape Expand Where Equal
Less Greater Not Range ReduceMean ReduceSum LayerNormalization MatMul Gemm Pad Identity Constant
""".split())

# ONNX's release table: the IR version that goes with each opset.
IR_FOR_OPSET = {10: 5, 11: 6, 12: 7, 13: 7, 14: 7, 15: 8, 16: 8, 17: 8, 18: 8, 19: 9, 20: 9, 21: 10}

SMALL_BERT = ["--layers", "2", "--hidden", "64", "--heads", "4", "--vocab", "1000"]


class CheckFailed(Exception):
    pass


def check(cond, message):
    if not cond:
        raise CheckFailed(message)


class Checker:
    def __init__(self, hipinfer, out_dir):
        import numpy as np
        import onnx
        import onnxruntime as ort
        self.np, self.onnx, self.ort = np, onnx, ort
        self.hipinfer = hipinfer
        self.out_dir = out_dir
        self.rng = np.random.default_rng(0)

    def zoo(self, *args, expect_ok=True):
        cmd = [self.hipinfer, "zoo", *args]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if expect_ok:
            check(r.returncode == 0, f"`{' '.join(cmd)}` exited {r.returncode}: {r.stderr.strip()}")
        return r

    def write(self, file_name, *args):
        path = os.path.join(self.out_dir, file_name)
        r = self.zoo(*args, "-o", path)
        check(path in r.stdout and "parameters" in r.stdout, f"unexpected report from hipinfer zoo: {r.stdout!r}")
        return path

    def load_and_check(self, path, opset):
        """Structure checks common to every zoo model; returns the ModelProto."""
        onnx = self.onnx
        model = onnx.load(path)
        try:
            onnx.checker.check_model(model, full_check=True)
        except Exception as e:  # onnx raises several types
            raise CheckFailed(f"{path}: onnx.checker: {e}")
        name = os.path.basename(path)
        check(model.producer_name == "hipinfer-zoo", f"{name}: producer_name is {model.producer_name!r}")
        opsets = {o.domain: o.version for o in model.opset_import}
        check(opsets.get("", opsets.get("ai.onnx")) == opset, f"{name}: opset_import {opsets}, expected {opset}")
        check(model.ir_version == IR_FOR_OPSET[opset],
              f"{name}: ir_version {model.ir_version}, expected {IR_FOR_OPSET[opset]} for opset {opset}")
        ops = {n.op_type for n in model.graph.node}
        check(ops <= ALLOWED_OPS, f"{name}: uses ops the runtime does not support: {sorted(ops - ALLOWED_OPS)}")
        names = [n.name for n in model.graph.node]
        check(len(set(names)) == len(names), f"{name}: duplicate node names")
        return model

    def session(self, path):
        so = self.ort.SessionOptions()
        so.intra_op_num_threads = 2
        so.log_severity_level = 3
        # The graph as written, not ORT's rewrite of it (which would, for one, fuse the
        # decomposed LayerNorm and hide a mistake in it).
        so.graph_optimization_level = self.ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        return self.ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])

    def check_scale(self, label, array, lo=0.1, hi=10.0):
        np = self.np
        check(np.isfinite(array).all(), f"{label}: output has inf or nan")
        std = float(array.std())
        check(lo <= std <= hi, f"{label}: output std {std:.4g} is outside {lo}..{hi}")
        print(f"  {label}: shape {list(array.shape)}, std {std:.3f}, mean {float(array.mean()):+.3f}")
        return std

    # ---- image models ----

    def image_model(self, model_name, file_name, opset, extra, batch, size, classes):
        path = self.write(file_name, model_name, "--opset", str(opset), *extra)
        model = self.load_and_check(path, opset)
        ops = [n.op_type for n in model.graph.node]
        inits = {t.name for t in model.graph.initializer}
        if model_name == "resnet50":
            check(ops.count("BatchNormalization") == 53, f"{file_name}: {ops.count('BatchNormalization')} BN nodes, expected 53")
            check(ops.count("Conv") == 53, f"{file_name}: {ops.count('Conv')} Conv nodes, expected 53")
            check("/layer1/layer1.0/conv1/Conv" in {n.name for n in model.graph.node}, f"{file_name}: PyTorch-style node names missing")
            check({"layer4.2.bn3.running_var", "fc.weight", "conv1.weight"} <= inits, f"{file_name}: PyTorch-style weight names missing")
        else:
            check(ops.count("Clip") == 35, f"{file_name}: {ops.count('Clip')} Clip nodes, expected 35")
            depthwise = [n for n in model.graph.node if n.op_type == "Conv" and any(a.name == "group" and a.i > 1 for a in n.attribute)]
            check(len(depthwise) == 17, f"{file_name}: {len(depthwise)} depthwise convs, expected 17")
            clip = next(n for n in model.graph.node if n.op_type == "Clip")
            if opset >= 11:
                check(len(clip.input) == 3, f"{file_name}: Clip at opset {opset} should take min and max as inputs")
            else:
                check({a.name for a in clip.attribute} == {"min", "max"}, f"{file_name}: Clip at opset {opset} needs min/max attributes")
        check(all(len(n.input) == 2 for n in model.graph.node if n.op_type == "Conv"), f"{file_name}: Conv with bias (BN should stay separate)")
        x = self.rng.standard_normal((batch, 3, size, size)).astype(self.np.float32)
        (logits,) = self.session(path).run(["logits"], {"input": x})
        check(logits.shape == (batch, classes), f"{file_name}: logits shape {logits.shape}, expected {(batch, classes)}")
        self.check_scale(f"{file_name} logits", logits)

    # ---- BERT ----

    def bert_inputs(self, batch, seq, vocab=1000):
        np = self.np
        ids = self.rng.integers(0, vocab, (batch, seq), dtype=np.int64)
        mask = np.ones((batch, seq), dtype=np.int64)
        types = self.rng.integers(0, 2, (batch, seq), dtype=np.int64)
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}

    def bert(self, file_name, opset, seq_option, run_seqs):
        path = self.write(file_name, "bert", "--opset", str(opset), *SMALL_BERT, "--sequence", str(seq_option))
        model = self.load_and_check(path, opset)
        ops = [n.op_type for n in model.graph.node]
        if opset >= 17:
            check(ops.count("LayerNormalization") == 5, f"{file_name}: {ops.count('LayerNormalization')} LayerNormalization, expected 5")
        else:
            check("LayerNormalization" not in ops and ops.count("ReduceMean") == 10,
                  f"{file_name}: opset {opset} needs the decomposed LayerNorm (10 ReduceMean), got {ops.count('ReduceMean')}")
        check(ops.count("Erf") == 2 and ops.count("Softmax") == 2, f"{file_name}: expected 2 Erf (GELU) and 2 Softmax")
        inputs = {i.name: [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
        expected_seq = "sequence" if seq_option == 0 else seq_option
        check(inputs == {n: ["batch", expected_seq] for n in ("input_ids", "attention_mask", "token_type_ids")},
              f"{file_name}: inputs {inputs}")
        reshape_shapes = [n for n in model.graph.node if n.op_type == "Constant" and "/attention/self/Constant" in n.name]
        check(reshape_shapes, f"{file_name}: no constant Reshape shapes in attention")
        session = self.session(path)
        outputs = {}
        for seq in run_seqs:
            feeds = self.bert_inputs(2, seq)
            hidden, pooled = session.run(["last_hidden_state", "pooler_output"], feeds)
            check(hidden.shape == (2, seq, 64) and pooled.shape == (2, 64),
                  f"{file_name}: output shapes {hidden.shape}, {pooled.shape} for sequence {seq}")
            self.check_scale(f"{file_name} last_hidden_state (seq {seq})", hidden)
            self.check_scale(f"{file_name} pooler_output (seq {seq})", pooled)
            outputs[seq] = (feeds, hidden, pooled)
        return path, session, outputs

    def bert_mask(self, file_name, session, seq):
        """Masked positions must not influence the others."""
        np = self.np
        feeds = self.bert_inputs(2, seq)
        feeds["attention_mask"][1, seq - 4:] = 0
        (a,) = session.run(["last_hidden_state"], feeds)
        feeds["input_ids"][1, seq - 4:] = (feeds["input_ids"][1, seq - 4:] + 7) % 1000
        (b,) = session.run(["last_hidden_state"], feeds)
        diff = float(np.abs(a[1, : seq - 4] - b[1, : seq - 4]).max())
        check(diff < 1e-4, f"{file_name}: changing masked tokens changed unmasked outputs by {diff}")
        changed = float(np.abs(a[1, seq - 4:] - b[1, seq - 4:]).max())
        check(changed > 1e-3, f"{file_name}: changing tokens had no effect ({changed})")
        print(f"  {file_name}: attention mask isolates masked tokens (max diff {diff:.2e})")

    # ---- the suite ----

    def run(self, large):
        np = self.np
        r = self.zoo("--list")
        for name in ("resnet50", "mobilenetv2", "bert"):
            check(name in r.stdout, f"`hipinfer zoo --list` does not list {name}: {r.stdout!r}")

        print("resnet50")
        self.image_model("resnet50", "resnet50.onnx", 17, [], batch=2, size=224, classes=1000)
        self.image_model("resnet50", "resnet50_op13_b1_96.onnx", 13, ["--batch", "1", "--image-size", "96", "--classes", "10"],
                         batch=1, size=96, classes=10)
        print("mobilenetv2")
        self.image_model("mobilenetv2", "mobilenetv2.onnx", 17, [], batch=2, size=224, classes=1000)
        self.image_model("mobilenetv2", "mobilenetv2_op13.onnx", 13, ["--image-size", "128"], batch=1, size=128, classes=1000)
        self.image_model("mobilenetv2", "mobilenetv2_op10.onnx", 10, ["--image-size", "64"], batch=1, size=64, classes=1000)

        print("bert")
        _, s17, out17 = self.bert("bert_op17.onnx", 17, 16, [16])
        self.bert_mask("bert_op17.onnx", s17, 16)
        _, s13, out13 = self.bert("bert_op13.onnx", 13, 16, [16])
        # Same seed, same weights: the decomposed LayerNorm must match the fused op.
        feeds, h17, p17 = out17[16]
        h13, p13 = s13.run(["last_hidden_state", "pooler_output"], feeds)
        diff = max(float(np.abs(h13 - h17).max()), float(np.abs(p13 - p17).max()))
        check(diff < 1e-4, f"bert opset 13 (decomposed LayerNorm) and opset 17 differ by {diff}")
        print(f"  opset 13 and 17 agree (max diff {diff:.2e})")
        _, s11, out11 = self.bert("bert_op11_symbolic.onnx", 11, 0, [7, 16])
        h11, _ = s11.run(["last_hidden_state", "pooler_output"], feeds)
        diff = float(np.abs(h11 - h17).max())
        check(diff < 1e-4, f"bert with a symbolic sequence differs from the fixed-sequence model by {diff}")
        self.bert_mask("bert_op11_symbolic.onnx", s11, 9)
        self.bert("bert_op21.onnx", 21, 8, [8])

        print("determinism and errors")
        a = self.write("det_a.onnx", "mobilenetv2", "--image-size", "64")
        b = self.write("det_b.onnx", "mobilenetv2", "--image-size", "64")
        c = self.write("det_c.onnx", "mobilenetv2", "--image-size", "64", "--seed", "2")
        bytes_a, bytes_b, bytes_c = (open(p, "rb").read() for p in (a, b, c))
        check(bytes_a == bytes_b, "the same options and seed gave different files")
        check(bytes_a != bytes_c, "a different seed gave the same file")
        bad = [
            (["nosuchmodel"], "known models: resnet50"),
            (["bert", "--hidden", "64", "--heads", "5"], "multiple of heads"),
            (["resnet50", "--opset", "7"], "opset 7"),
            (["resnet50", "--layers", "2"], "does not apply"),
            (["bert", "--layers", "2", "--hidden", "64", "--heads", "4", "-o", os.path.join(self.out_dir, "no", "such", "dir.onnx")],
             "does not exist"),
        ]
        for args, message in bad:
            r = self.zoo(*args, expect_ok=False)
            check(r.returncode != 0 and message in r.stderr,
                  f"`hipinfer zoo {' '.join(args)}`: expected a failure mentioning {message!r}, got exit {r.returncode}: {r.stderr.strip()!r}")
        print("  ok")

        if large:
            print("bert-base (--large)")
            path = self.write("bert_base.onnx", "bert")
            self.load_and_check(path, 17)
            hidden, pooled = self.session(path).run(None, self.bert_inputs(1, 128, 30522))
            self.check_scale("bert_base.onnx last_hidden_state", hidden)
            self.check_scale("bert_base.onnx pooler_output", pooled)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    hipinfer, out_dir = args
    try:
        import numpy  # noqa: F401
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError as e:
        print(f"skipped: {e} (this Python: {sys.executable})")
        return SKIP
    if not os.access(hipinfer, os.X_OK):
        print(f"FAILED: hipinfer binary '{hipinfer}' not found or not executable", file=sys.stderr)
        return 1
    os.makedirs(out_dir, exist_ok=True)
    try:
        Checker(hipinfer, out_dir).run(large="--large" in argv)
    except CheckFailed as e:
        print(f"FAILED: {e}", file=sys.stderr)
        return 1
    print("all zoo model checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
