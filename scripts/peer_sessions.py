"""hipinfer and ONNX Runtime sessions on one model with the same threads, for the benchmark
scripts that compare the two from Python (shape_churn_bench.py, call_overhead_bench.py)."""
import hipinfer
import onnxruntime


def open_sessions(model, threads):
    """{"hipinfer": session, "onnxruntime": session}: intra-op threads `threads`, ONNX Runtime
    sequential (one inter-op thread) on its CPU execution provider."""
    ho = hipinfer.SessionOptions()
    ho.intra_op_num_threads = threads
    oo = onnxruntime.SessionOptions()
    oo.intra_op_num_threads = threads
    oo.inter_op_num_threads = 1
    return {"hipinfer": hipinfer.InferenceSession(str(model), ho),
            "onnxruntime": onnxruntime.InferenceSession(str(model), oo, providers=["CPUExecutionProvider"])}
