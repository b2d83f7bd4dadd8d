"""onnxruntime.capi._pybind_state: the same names as onnxruntime_pybind11_state."""
from hipinfer.capi.onnxruntime_pybind11_state import *  # noqa: F401,F403
