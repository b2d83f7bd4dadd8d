"""onnxruntime's `capi` import paths, for code that imports from them:
`onnxruntime.capi.onnxruntime_pybind11_state` (and `_pybind_state`) for the exception classes and
module functions, `onnxruntime.capi.onnxruntime_inference_collection` for the session classes.
They hold hipinfer's own objects, so `except InvalidArgument` catches what hipinfer raises.

The modules below import hipinfer by its absolute name: where `sys.modules["onnxruntime"]` is
hipinfer, these files are imported again as `onnxruntime.capi.*`, and a relative import would load
the extension module a second time under another name."""
