"""An inference script as an onnxruntime user writes it. test_ort_script.py runs it as it is and
with its import line swapped for `import hipinfer as ort`, and compares what the two print and save.

usage: ort_style_script.py MODEL.onnx OUTPUT.npz
"""
import sys

import numpy as np
import onnxruntime as ort


def main(model_path, output_path):
    print("available providers:", ort.get_available_providers())

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model_path, sess_options=options,
                                   providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    print("providers:", session.get_providers())

    rng = np.random.default_rng(0)
    feed = {}
    for meta in session.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in meta.shape]
        print("input", meta.name, meta.type, meta.shape)
        if meta.type == "tensor(float)":
            feed[meta.name] = rng.standard_normal(shape).astype(np.float32)
        elif meta.type == "tensor(int64)":
            feed[meta.name] = rng.integers(0, 2, size=shape).astype(np.int64)  # valid ids, mask and types
        else:
            raise SystemExit(f"unexpected input type {meta.type}")

    output_names = [meta.name for meta in session.get_outputs()]
    for meta in session.get_outputs():
        print("output", meta.name, meta.type, meta.shape)
    outputs = session.run(None, feed)
    first_only = session.run([output_names[0]], feed)[0]
    assert np.array_equal(first_only, outputs[0])
    for name, value in zip(output_names, outputs):
        print(name, value.shape, value.dtype, "argmax", int(np.argmax(value)))

    try:
        session.run(None, {"no_such_input": np.zeros(1, dtype=np.float32)})
    except ValueError:
        print("bad input rejected")

    np.savez(output_path, **dict(zip(output_names, outputs)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
