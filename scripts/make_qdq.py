"""A QDQ (int8) copy of a float32 ONNX model, as ONNX Runtime's static quantisation makes one:
BatchNormalization folded into the convolutions first (ONNX Runtime's basic graph optimisation,
saved), then `quantize_static` in the QDQ format, weights int8 per output channel, activations
uint8, calibrated on random inputs (normal floats; symbolic dims 1, or 128 for a sequence).

  .venv/bin/python scripts/make_qdq.py MODEL.onnx OUT.onnx [--samples 8] [--seed 0]

The quantised zoo models have random weights: their outputs show speed and agreement between
engines, not accuracy (the trained PP-OCR models are for that)."""
import argparse
import pathlib
import sys
import tempfile

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    import onnxruntime as ort
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    folded = pathlib.Path(tempfile.mkdtemp(prefix="hi_qdq_")) / "folded.onnx"
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC  # folds BatchNorm into Conv
    so.optimized_model_filepath = str(folded)
    session = ort.InferenceSession(args.model, so, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(args.seed)

    def sample():
        feeds = {}
        for i in session.get_inputs():
            shape = [d if isinstance(d, int) and d > 0 else (128 if "seq" in str(d) else 1) for d in i.shape]
            feeds[i.name] = (np.zeros(shape, np.int64) if "int64" in i.type
                             else rng.normal(0, 1, shape).astype(np.float32))
        return feeds

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.data = iter([sample() for _ in range(args.samples)])

        def get_next(self):
            return next(self.data, None)

    quantize_static(str(folded), args.out, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
