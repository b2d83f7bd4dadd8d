"""Per-call cost of run() on small models called often, hipinfer against ONNX Runtime from
Python: a small classifier (Gemm 64x32, Relu, Gemm 32x10, Softmax on one row) and a small
recurrent step (an LSTM of 64 hidden units over one 40-feature frame, its state carried from
call to call, as a streaming speech model is run). Both engines with the same threads, taking
turns in blocks of calls; prints microseconds per call (the median of the blocks) and the ratio.

  .venv/bin/python scripts/call_overhead_bench.py [--threads 1] [--calls 5000] [--blocks 7]"""
import argparse
import pathlib
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import hipinfer
import onnxruntime
from peer_sessions import open_sessions


def classifier(rng):
    inits = [numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), n)
             for n, s in (("w1", (64, 32)), ("b1", (32,)), ("w2", (32, 10)), ("b2", (10,)))]
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "w2", "b2"], ["l"]), helper.make_node("Softmax", ["l"], ["y"])]
    graph = helper.make_graph(nodes, "classifier", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    feed = {"x": rng.standard_normal((1, 64)).astype(np.float32)}
    return graph, lambda outputs: feed


def recurrent_step(rng):
    hidden, features = 64, 40
    inits = [numpy_helper.from_array(0.1 * rng.standard_normal(s).astype(np.float32), n)
             for n, s in (("W", (1, 4 * hidden, features)), ("R", (1, 4 * hidden, hidden)), ("B", (1, 8 * hidden)))]
    node = helper.make_node("LSTM", ["x", "W", "R", "B", "", "h0", "c0"], ["y", "h", "c"], hidden_size=hidden)
    vi = helper.make_tensor_value_info
    graph = helper.make_graph([node], "lstm_step",
                              [vi("x", TensorProto.FLOAT, [1, 1, features]), vi("h0", TensorProto.FLOAT, [1, 1, hidden]),
                               vi("c0", TensorProto.FLOAT, [1, 1, hidden])],
                              [vi("y", TensorProto.FLOAT, [1, 1, 1, hidden]), vi("h", TensorProto.FLOAT, [1, 1, hidden]),
                               vi("c", TensorProto.FLOAT, [1, 1, hidden])], inits)
    frame = rng.standard_normal((1, 1, features)).astype(np.float32)
    zeros = np.zeros((1, 1, hidden), np.float32)

    def feed(outputs):  # the state of the previous call goes into the next
        return {"x": frame, "h0": outputs[1] if outputs else zeros, "c0": outputs[2] if outputs else zeros}
    return graph, feed


def block(session, feed, calls):
    outputs = None
    start = time.perf_counter()
    for _ in range(calls):
        outputs = session.run(None, feed(outputs))
    return (time.perf_counter() - start) / calls * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--blocks", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"{args.threads} thread(s), {args.blocks} blocks of {args.calls} calls per engine, "
          f"hipinfer {hipinfer.hipinfer_version}, onnxruntime {onnxruntime.__version__}")
    print(f"{'model':<16}{'hipinfer us':>12}{'ORT us':>10}{'ratio':>8}")
    with tempfile.TemporaryDirectory() as work:
        for name, make in (("classifier", classifier), ("recurrent step", recurrent_step)):
            graph, feed = make(rng)
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
            model.ir_version = 8
            path = pathlib.Path(work) / f"{graph.name}.onnx"
            onnx.save(model, str(path))
            engines = open_sessions(path, args.threads)
            results = {e: [] for e in engines}
            for e, s in engines.items():
                block(s, feed, args.calls // 5)  # warm-up
            for _ in range(args.blocks):
                for e, s in engines.items():
                    time.sleep(0.02)  # the other engine's threads stop spinning
                    results[e].append(block(s, feed, args.calls))
            h, o = (sorted(results[e])[len(results[e]) // 2] for e in ("hipinfer", "onnxruntime"))
            print(f"{name:<16}{h:>12.2f}{o:>10.2f}{h / o:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
