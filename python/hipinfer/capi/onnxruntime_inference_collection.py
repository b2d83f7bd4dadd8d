"""onnxruntime.capi.onnxruntime_inference_collection: the session classes."""
from hipinfer import InferenceSession, ModelMetadata, NodeArg, RunOptions, SessionOptions  # noqa: F401
