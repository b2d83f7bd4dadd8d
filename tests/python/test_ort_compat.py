"""Names of onnxruntime's API that real code calls, checked against onnxruntime itself on the
same model: get_modelmeta(), the telemetry switches, Python values converted to declared types."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import hipinfer

ort = pytest.importorskip("onnxruntime")


def _metadata_model() -> bytes:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    n = helper.make_tensor_value_info("n", TensorProto.INT32, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    graph = helper.make_graph([helper.make_node("Cast", ["n"], ["nf"], to=TensorProto.FLOAT),
                               helper.make_node("Add", ["x", "nf"], ["y"])], "the_graph", [x, n], [y],
                              doc_string="adds n to x")
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="hand-made",
                              producer_version="2.1", domain="ai.example", model_version=7,
                              doc_string="a model that carries metadata", ir_version=10)
    helper.set_model_props(model, {"character": "a\nb\nc", "labels": "cat,dog", "empty": ""})
    return model.SerializeToString()


def test_modelmeta_matches_onnxruntime():
    model = _metadata_model()
    ours = hipinfer.InferenceSession(model).get_modelmeta()
    theirs = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).get_modelmeta()
    for field in ("producer_name", "graph_name", "graph_description", "domain", "description", "version",
                  "custom_metadata_map"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert ours.custom_metadata_map == {"character": "a\nb\nc", "labels": "cat,dog", "empty": ""}
    assert isinstance(ours, hipinfer.ModelMetadata)


def test_telemetry_switches_exist_and_do_nothing():
    for name in ("disable_telemetry_events", "enable_telemetry_events"):
        assert getattr(hipinfer, name)() is None
        assert getattr(ort, name)() is None


# onnxruntime takes lists, not tuples (hipinfer takes both).
@pytest.mark.parametrize("x, n", [([1.5, -2.0], [3, 4]), ([0.25, 1e30], [2**31 - 1, -(2**31)]),
                                  ([np.float64(1), 2], [np.int8(1), True])])
def test_python_values_convert_as_onnxruntime_converts_them(x, n):
    model = _metadata_model()
    (ours,) = hipinfer.InferenceSession(model).run(None, {"x": x, "n": n})
    (theirs,) = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x, "n": n})
    assert ours.dtype == theirs.dtype == np.float32
    np.testing.assert_array_equal(ours, theirs)


def test_a_value_past_the_declared_type_is_refused_naming_the_input():
    model = _metadata_model()
    with pytest.raises(hipinfer.InvalidArgument, match="input 'n': a list cannot be converted to the declared int32"):
        hipinfer.InferenceSession(model).run(None, {"x": [0.0, 0.0], "n": [2**40, 0]})


def test_version_is_the_onnxruntime_api_level_and_parses_as_onnxruntime_code_parses_it():
    parts = tuple(int(x) for x in hipinfer.__version__.split("."))  # as client code does it
    assert len(parts) == 3 and hipinfer.__version__ == hipinfer.version == hipinfer.get_version_string()
    assert hipinfer.__version__ == ort.__version__  # the release the API table is made against (scripts/setup)
    info = hipinfer.get_build_info()
    assert hipinfer.hipinfer_version in info and hipinfer.__version__ in info and "cpu" in info
    assert hipinfer.hipinfer_version == hipinfer._hipinfer.__version__
    assert hipinfer.git_commit and hipinfer.git_commit in info


def test_capi_import_paths_catch_hipinfer_errors_with_onnxruntime_as_hipinfer(tmp_path):
    # A fresh interpreter where `onnxruntime` is hipinfer, as in a pipeline that substitutes it.
    script = tmp_path / "client.py"
    script.write_text(
        "import sys, numpy as np, hipinfer\n"
        "sys.modules['onnxruntime'] = hipinfer\n"
        "import onnxruntime\n"
        "from onnxruntime.capi.onnxruntime_pybind11_state import Fail, InvalidArgument, InvalidGraph, NoSuchFile\n"
        "from onnxruntime.capi._pybind_state import NotImplemented as NotImpl, RuntimeException\n"
        "from onnxruntime.capi.onnxruntime_inference_collection import InferenceSession\n"
        "assert InferenceSession is hipinfer.InferenceSession and onnxruntime.capi is not None\n"
        "caught = []\n"
        "for make, kind in [(lambda: InferenceSession(sys.argv[1] + '/missing.onnx'), NoSuchFile),\n"
        "                   (lambda: InferenceSession(b'not a model'), InvalidGraph),\n"
        "                   (lambda: InferenceSession(open(sys.argv[2], 'rb').read()).run(None, {'x': np.ones(3, np.float64), 'n': [1, 2]}), InvalidArgument)]:\n"
        "    try:\n"
        "        make()\n"
        "    except kind as e:\n"
        "        assert isinstance(e, Fail)\n"
        "        caught.append(kind.__name__)\n"
        "print(' '.join(caught))\n")
    model = tmp_path / "m.onnx"
    model.write_bytes(_metadata_model())
    import subprocess
    import sys
    out = subprocess.run([sys.executable, str(script), str(tmp_path), str(model)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["NotFound", "InvalidModel", "InvalidArgument"]


def test_default_logger_severity_silences_provider_warnings(relu_model):
    import warnings
    try:
        hipinfer.set_default_logger_severity(3)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            hipinfer.InferenceSession(relu_model, providers=["ROCMExecutionProvider", "CPUExecutionProvider"])
        assert not [w for w in record if issubclass(w.category, hipinfer.ProviderFallbackWarning)]
    finally:
        hipinfer.set_default_logger_severity(2)
    with pytest.raises(ValueError, match="severity"):
        hipinfer.set_default_logger_severity(7)
    options = hipinfer.SessionOptions()
    assert options.log_severity_level == ort.SessionOptions().log_severity_level == -1
