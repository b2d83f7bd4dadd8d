"""Values that are not tensors, against onnxruntime: scikit-learn classifiers and regressors
(exported by scripts/export_sklearn_models.py into data/sklearn/) whose probabilities come out of
ZipMap as a list of dicts, a DictVectorizer pipeline fed a dict, a Custom-Vision-style image
classifier, the SVM classifier's other kernels and forms, and sequences and optionals."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hipinfer

SKLEARN = Path(__file__).resolve().parent / "data" / "sklearn"
TOL = 1e-5


def sessions(ort, model):
    data = model if isinstance(model, bytes) else Path(model).read_bytes()
    return hipinfer.InferenceSession(data), ort.InferenceSession(data, providers=["CPUExecutionProvider"])


def assert_same(got, expected, where):
    """Same structure, same keys and labels, numbers within TOL."""
    assert type(got) is type(expected), f"{where}: {type(got).__name__} vs {type(expected).__name__}"
    if isinstance(expected, list):
        assert len(got) == len(expected), where
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, f"{where}[{i}]")
    elif isinstance(expected, dict):
        assert list(got) == list(expected), f"{where}: keys {list(got)} vs {list(expected)}"
        for k in expected:
            assert type(got[k]) is type(expected[k]), f"{where}[{k!r}]"
            np.testing.assert_allclose(got[k], expected[k], rtol=TOL, atol=TOL, err_msg=f"{where}[{k!r}]")
    elif expected.dtype == object or expected.dtype.kind in "iub":
        assert got.dtype == expected.dtype and got.shape == expected.shape, where
        np.testing.assert_array_equal(got, expected, err_msg=where)
    else:
        assert got.dtype == expected.dtype and got.shape == expected.shape, where
        np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL, err_msg=where)


def compare(ort, model, feeds):
    ours, theirs = sessions(ort, model)
    for a, b in ((ours.get_inputs(), theirs.get_inputs()), (ours.get_outputs(), theirs.get_outputs())):
        assert [(x.name, x.type) for x in a] == [(y.name, y.type) for y in b]
    for i, feed in enumerate(feeds):
        expected = theirs.run(None, feed)
        got = ours.run(None, feed)
        assert_same(got, expected, f"{Path(str(model)).name if not isinstance(model, bytes) else 'model'} feed {i}")
    return ours


def rows(n, features=7, seed=0):
    return np.random.default_rng(seed + n).normal(0, 1.5, (n, features)).astype(np.float32)


TABULAR = sorted(p.name for p in SKLEARN.glob("*.onnx") if p.name != "dict_vectorizer_logistic.onnx")


@pytest.mark.parametrize("name", TABULAR)
def test_sklearn_export_matches_onnxruntime(name, ort):
    session = compare(ort, SKLEARN / name, [{"X": rows(n)} for n in (1, 5, 37)])
    if "regression" not in name and "svr" not in name:
        # The classifiers' probabilities: a list of {class: probability} dicts, one per row.
        probs = session.run(["output_probability"], {"X": rows(3)})[0]
        assert isinstance(probs, list) and len(probs) == 3 and all(isinstance(p, dict) for p in probs)
        assert all(abs(sum(p.values()) - 1) < 1e-4 for p in probs)


def test_dict_input_through_dict_vectorizer(ort):
    feeds = [{"features": {"height": 1.0, "width": 2.0, "depth": 0.5}},
             {"features": {"width": -3.0}},  # absent keys read as 0
             {"features": {"height": 0.25, "depth": 4.0, "unknown": 9.0}}]  # keys outside the vocabulary are ignored
    compare(ort, SKLEARN / "dict_vectorizer_logistic.onnx", feeds)


def custom_vision_style_classifier():
    """An image classifier ending as Custom Vision's exports do: 'loss' is a ZipMap from label to
    probability, 'classLabel' the best label as a string."""
    from onnx import TensorProto, helper, numpy_helper
    labels = ["apple", "banana", "cherry", "date"]
    w = numpy_helper.from_array(np.random.default_rng(3).normal(0, 1, (4, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(np.array([0.1, -0.2, 0.3, 0.0], np.float32), "b")
    nodes = [
        helper.make_node("GlobalAveragePool", ["data"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("Gemm", ["flat", "w", "b"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=1),
        helper.make_node("ZipMap", ["probs"], ["loss"], domain="ai.onnx.ml", classlabels_strings=labels),
        helper.make_node("ArgMax", ["probs"], ["best"], axis=1, keepdims=0),
        helper.make_node("LabelEncoder", ["best"], ["classLabel"], domain="ai.onnx.ml",
                         keys_int64s=list(range(4)), values_strings=labels),
    ]
    loss_type = helper.make_sequence_type_proto(
        helper.make_map_type_proto(TensorProto.STRING, helper.make_tensor_type_proto(TensorProto.FLOAT, [])))
    graph = helper.make_graph(
        nodes, "custom_vision_style", [helper.make_tensor_value_info("data", TensorProto.FLOAT, [None, 3, 8, 8])],
        [helper.make_tensor_value_info("classLabel", TensorProto.STRING, [None]),
         helper.make_value_info("loss", loss_type)], initializer=[w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 2)])
    model.ir_version = 8
    return model.SerializeToString()


def test_custom_vision_style_classifier(ort):
    images = [np.random.default_rng(n).uniform(0, 1, (n, 3, 8, 8)).astype(np.float32) for n in (1, 2, 9)]
    session = compare(ort, custom_vision_style_classifier(), [{"data": x} for x in images])
    label, loss = session.run(None, {"data": images[0]})
    assert label[0] == max(loss[0], key=loss[0].get)


def svc_variant(name, kernel=None, drop_probabilities=False, transform=None):
    import onnx
    model = onnx.load(str(SKLEARN / name))
    svm = next(n for n in model.graph.node if n.op_type == "SVMClassifier")
    keep = [a for a in svm.attribute if not (drop_probabilities and a.name in ("prob_a", "prob_b"))]
    if transform:
        keep = [a for a in keep if a.name != "post_transform"] + [onnx.helper.make_attribute("post_transform", transform)]
    if kernel:
        keep = [a for a in keep if a.name not in ("kernel_type", "kernel_params")]
        keep.append(onnx.helper.make_attribute("kernel_type", kernel))
        keep.append(onnx.helper.make_attribute("kernel_params", [0.1, 0.5, 3.0]))
    del svm.attribute[:]
    svm.attribute.extend(keep)
    return model.SerializeToString()


@pytest.mark.parametrize("kernel", ["LINEAR", "POLY", "RBF", "SIGMOID"])
@pytest.mark.parametrize("probabilities", [True, False])
@pytest.mark.parametrize("name", ["svc_rbf_string_labels.onnx", "svc_linear_binary.onnx"])
def test_svm_classifier_kernels_and_votes(name, kernel, probabilities, ort):
    if not probabilities and name.startswith("svc_rbf"):
        # Without probabilities the scores are the pairwise ones (3 for 3 classes), which the
        # exported ZipMap (one entry per class) cannot take: keep the labels and the raw scores.
        import onnx
        model = onnx.load_from_string(svc_variant(name, kernel, drop_probabilities=True))
        svm = next(n for n in model.graph.node if n.op_type == "SVMClassifier")
        del model.graph.node[:]
        model.graph.node.append(svm)
        del model.graph.output[:]
        model.graph.output.extend([onnx.helper.make_tensor_value_info(svm.output[0], onnx.TensorProto.STRING, [None]),
                                   onnx.helper.make_tensor_value_info(svm.output[1], onnx.TensorProto.FLOAT, None)])
        data = model.SerializeToString()
    else:
        data = svc_variant(name, kernel, drop_probabilities=not probabilities)
    compare(ort, data, [{"X": rows(n, seed=11)} for n in (1, 4, 23)])


# Not PROBIT: onnxruntime writes one column of the two and leaves the other as it found it.
@pytest.mark.parametrize("transform", ["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"])
def test_binary_svm_scores_without_probabilities(transform, ort):
    data = svc_variant("svc_linear_binary.onnx", drop_probabilities=True, transform=transform)
    compare(ort, data, [{"X": rows(n, seed=3)} for n in (1, 8)])


@pytest.mark.parametrize("labels,coefficients,transform", [
    ([10, 20, 30], [0.5, -1, 2, 1, 0, -0.5, -1, 1, 0.25, 0, 1, -2], "SOFTMAX"),
    ([4, 5], [1, 0, 0.5, 2, 0, 1, 0.25, 0], "NONE"),  # two labels, weights >= 0: onnxruntime's label rule
    ([4, 5], [1, -1, 0.5, 2, 0, 1, 0.25, 0], "NONE"),  # mixed signs: the other rule
    ([4, 5], [1, -1, 0.5, 2, 0, 1, 0.25, 0], "LOGISTIC"),
    ([4], [1.0, 2.0, 0.0, -1.0], "NONE"),  # one class: one score column
])
def test_linear_svm_classifier_without_support_vectors(labels, coefficients, transform, ort):
    from onnx import TensorProto, helper
    node = helper.make_node("SVMClassifier", ["X"], ["label", "scores"], domain="ai.onnx.ml",
                            classlabels_ints=labels, coefficients=coefficients, rho=[0.25], kernel_type="LINEAR",
                            kernel_params=[0.0, 0.0, 0.0], post_transform=transform)
    graph = helper.make_graph([node], "linear_svm", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, 4])],
                              [helper.make_tensor_value_info("label", TensorProto.INT64, [None]),
                               helper.make_tensor_value_info("scores", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 1)])
    model.ir_version = 8
    compare(ort, model.SerializeToString(), [{"X": rows(n, 4)} for n in (1, 6, 19)])


@pytest.mark.parametrize("cast_to,form,max_map", [("TO_FLOAT", "DENSE", 1), ("TO_INT64", "DENSE", 1),
                                                  ("TO_STRING", "DENSE", 1), ("TO_FLOAT", "SPARSE", 6)])
def test_cast_map_matches_onnxruntime(cast_to, form, max_map, ort):
    from onnx import TensorProto, helper
    map_type = helper.make_map_type_proto(TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, []))
    out = {"TO_FLOAT": TensorProto.FLOAT, "TO_STRING": TensorProto.STRING, "TO_INT64": TensorProto.INT64}[cast_to]
    node = helper.make_node("CastMap", ["X"], ["Y"], domain="ai.onnx.ml", cast_to=cast_to, map_form=form,
                            max_map=max_map)
    graph = helper.make_graph([node], "cast_map", [helper.make_value_info("X", map_type)],
                              [helper.make_tensor_value_info("Y", out, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 1)])
    model.ir_version = 8
    feeds = [{"X": {5: 1.5, 1: 2.75, 3: -0.9}}, {"X": {0: 7.0}}, {"X": {9: 1.0, 2: -3.25}}]
    compare(ort, model.SerializeToString(), feeds)


def sequence_model():
    from onnx import TensorProto, helper
    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
    nodes = [helper.make_node("SequenceInsert", ["parts", "extra"], ["longer"]),
             helper.make_node("ConcatFromSequence", ["longer"], ["joined"], axis=0),
             helper.make_node("SplitToSequence", ["joined"], ["pieces"], axis=0, keepdims=1)]
    graph = helper.make_graph(
        nodes, "sequences", [helper.make_value_info("parts", seq),
                             helper.make_tensor_value_info("extra", TensorProto.FLOAT, [None, 2])],
        [helper.make_tensor_value_info("joined", TensorProto.FLOAT, [None, 2]), helper.make_value_info("pieces", seq)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def test_sequence_input_and_output_are_lists(ort):
    parts = [np.arange(4, dtype=np.float32).reshape(2, 2), np.ones((1, 2), np.float32)]
    session = compare(ort, sequence_model(), [{"parts": parts, "extra": np.full((3, 2), 7, np.float32)},
                                              {"parts": [], "extra": np.zeros((1, 2), np.float32)}])
    joined, pieces = session.run(None, {"parts": parts, "extra": np.zeros((1, 2), np.float32)})
    assert joined.shape == (4, 2) and len(pieces) == 4
    assert session.get_inputs()[0].type == "seq(tensor(float))"


def test_wrong_kind_of_value_names_the_input():
    session = hipinfer.InferenceSession(sequence_model())
    with pytest.raises(hipinfer.InvalidArgument, match="input 'parts': expected a list for seq"):
        session.run(None, {"parts": np.zeros((2, 2), np.float32), "extra": np.zeros((1, 2), np.float32)})
    with pytest.raises(hipinfer.InvalidArgument, match="input 'parts'.*element 1.*float"):
        session.run(None, {"parts": [np.zeros((1, 2), np.float32), np.zeros((1, 2), np.int64)],
                           "extra": np.zeros((1, 2), np.float32)})
    dv = hipinfer.InferenceSession(str(SKLEARN / "dict_vectorizer_logistic.onnx"))
    with pytest.raises(hipinfer.InvalidArgument, match="input 'features': expected a dict for map"):
        dv.run(None, {"features": [1.0, 2.0]})


def test_optional_input_may_be_none_or_left_out():
    from onnx import TensorProto, helper
    opt = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    graph = helper.make_graph([helper.make_node("OptionalHasElement", ["maybe"], ["has"])], "optional",
                              [helper.make_value_info("maybe", opt)],
                              [helper.make_tensor_value_info("has", TensorProto.BOOL, [])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    session = hipinfer.InferenceSession(model.SerializeToString())
    assert session.get_inputs()[0].type == "optional(tensor(float))"
    assert session.run(None, {"maybe": np.ones(2, np.float32)})[0] == np.True_
    assert session.run(None, {"maybe": None})[0] == np.False_
    assert session.run(None, {})[0] == np.False_
