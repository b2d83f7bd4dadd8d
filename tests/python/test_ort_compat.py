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
