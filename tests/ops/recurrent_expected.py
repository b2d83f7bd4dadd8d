#!/usr/bin/env python3
"""Prints the fixed expected values of tests/ops/recurrent_test.cc: each case runs one RNN, GRU
or LSTM node in ONNX Runtime (CPU) on small inputs from a seeded numpy generator, and prints the
inputs and outputs as C++ initialisers. ONNX Runtime has no layout=1, so those cases run it on
transposed inputs and transpose its outputs.

usage: .venv/bin/python tests/ops/recurrent_expected.py > /tmp/cases.inc
"""
import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

NAMES = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"]


def run(op, attrs, inputs, outputs, dtype):
    elem = TensorProto.DOUBLE if dtype == np.float64 else TensorProto.FLOAT
    graph_inputs, feeds, node_inputs = [], {}, []
    for name, value in zip(NAMES, inputs):
        if value is None:
            node_inputs.append("")
            continue
        node_inputs.append(name)
        graph_inputs.append(helper.make_tensor_value_info(name, TensorProto.INT32 if name == "sequence_lens" else elem, value.shape))
        feeds[name] = value
    node = helper.make_node(op, node_inputs, outputs, **attrs)
    graph = helper.make_graph([node], "g", graph_inputs, [helper.make_tensor_value_info(o, elem, None) for o in outputs if o])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)], ir_version=10)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def case(name, op, attrs, gates, seq, batch, inp, hidden, dirs, layout=0, lens=None, bias=True, h0=False, c0=False,
         peep=False, outputs=("Y", "Y_h"), dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    f = lambda *s: rng.uniform(-1, 1, s).astype(dtype)
    x = f(seq, batch, inp) if layout == 0 else f(batch, seq, inp)
    state = (dirs, batch, hidden) if layout == 0 else (batch, dirs, hidden)
    inputs = [x, f(dirs, gates * hidden, inp), f(dirs, gates * hidden, hidden),
              f(dirs, 2 * gates * hidden) if bias else None,
              np.array(lens, np.int32) if lens is not None else None,
              f(*state) if h0 else None]
    if op == "LSTM":
        inputs += [f(*state) if c0 else None, f(dirs, 3 * hidden) if peep else None]
    while inputs[-1] is None:
        inputs.pop()
    # ONNX Runtime runs layout 0 only; layout 1 is the same computation on transposed tensors.
    ort_inputs = list(inputs)
    if layout == 1:
        for i in (0, 5, 6):
            if i < len(ort_inputs) and ort_inputs[i] is not None:
                ort_inputs[i] = np.ascontiguousarray(np.swapaxes(ort_inputs[i], 0, 1))
    results = run(op, dict(attrs, hidden_size=hidden), ort_inputs, list(outputs), dtype)
    if layout == 1:
        names = [o for o in outputs if o]
        results = [np.transpose(r, (2, 0, 1, 3)) if n == "Y" else np.swapaxes(r, 0, 1) for n, r in zip(names, results)]
    print(f"// {name}: {op} {attrs}, layout {layout}, sequence_lens {lens}")
    print(f"const RecurrentCase k{name} = {{")
    for n, v in zip(NAMES, inputs):
        if v is None or n == "sequence_lens":
            continue
        print(f"    {{\"{n}\", {{{', '.join(map(str, v.shape))}}}, {{{', '.join(f'{a:.9g}' for a in v.ravel())}}}}},")
    print("}; // inputs")
    print(f"const RecurrentCase k{name}Expected = {{")
    for n, v in zip([o for o in outputs if o], results):
        print(f"    {{\"{n}\", {{{', '.join(map(str, v.shape))}}}, {{{', '.join(f'{a:.9g}' for a in v.ravel())}}}}},")
    print("};\n")


case("RnnReverseSeqLens", "RNN", dict(direction="reverse"), 1, 3, 2, 2, 3, 1, lens=[3, 1], h0=True)
case("RnnBidirectionalLayout1", "RNN", dict(direction="bidirectional", activations=["Relu", "LeakyRelu"],
     activation_alpha=[0.3]), 1, 3, 2, 2, 2, 2, layout=1)
case("GruBidirectionalLbr", "GRU", dict(direction="bidirectional", linear_before_reset=1), 3, 3, 3, 2, 2, 2,
     lens=[2, 3, 0], h0=True)
case("GruReverseClipLayout1", "GRU", dict(direction="reverse", clip=0.4), 3, 4, 2, 3, 2, 1, layout=1, h0=True)
case("LstmBidirectionalPeepholes", "LSTM", dict(direction="bidirectional"), 4, 3, 2, 2, 3, 2, lens=[3, 2],
     h0=True, c0=True, peep=True, outputs=("Y", "Y_h", "Y_c"))
case("LstmInputForgetActivations", "LSTM", dict(input_forget=1, clip=0.8, activations=["HardSigmoid", "Elu", "Softsign"],
     activation_alpha=[0.3, 0.9], activation_beta=[0.6]), 4, 3, 2, 2, 2, 1, layout=1, c0=True,
     outputs=("", "Y_h", "Y_c"))
