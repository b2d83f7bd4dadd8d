#!/usr/bin/env python3
"""Exports the scikit-learn classifiers and regressors that tests/python/test_sklearn_models.py runs
against onnxruntime, into tests/python/data/sklearn/. The files are committed, so CI needs neither
scikit-learn nor skl2onnx; run this again (with both installed) to remake them.

Each model is trained on a fixed random problem. Classifiers keep skl2onnx's default output: the
label tensor and a ZipMap (a list of {class: probability} dicts), the form users meet.
    .venv/bin/python -m pip install scikit-learn skl2onnx && .venv/bin/python scripts/export_sklearn_models.py
"""
import pathlib

import numpy as np
from skl2onnx import to_onnx
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "python" / "data" / "sklearn"
FEATURES = 7


def problem(classes: int, seed: int):
    x, y = make_classification(n_samples=120, n_features=FEATURES, n_informative=5, n_classes=classes,
                               random_state=seed)
    return x.astype(np.float32), y


def save(name: str, model, x, **options) -> None:
    onx = to_onnx(model, x[:1], target_opset={"": 17, "ai.onnx.ml": 3}, **options)
    path = OUT / f"{name}.onnx"
    path.write_bytes(onx.SerializeToString())
    print(f"{path.relative_to(OUT.parent.parent.parent.parent)}: {path.stat().st_size} bytes")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    x, y = problem(3, 0)
    save("logistic_regression_3class", make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)).fit(x, y), x)
    save("random_forest_3class", RandomForestClassifier(n_estimators=8, max_depth=5, random_state=0).fit(x, y), x)
    # String class labels: the ZipMap maps from strings (as Custom Vision's exports do).
    names = np.array(["cat", "dog", "bird"])[y]
    save("svc_rbf_string_labels", SVC(probability=True, random_state=0).fit(x, names), x)
    xb, yb = problem(2, 1)
    save("svc_linear_binary", SVC(kernel="linear", probability=True, random_state=0).fit(xb, yb), xb)
    xr, yr = make_regression(n_samples=100, n_features=FEATURES, noise=0.1, random_state=2)
    xr = xr.astype(np.float32)
    save("svr_rbf", SVR(C=10.0).fit(xr, yr), xr)
    save("linear_regression", LinearRegression().fit(xr, yr), xr)
    # A map input: DictVectorizer turns {feature name: value} into a row (one dict per call).
    rows = [{"height": float(a), "width": float(b), "depth": float(c)} for a, b, c in x[:, :3]]
    dv = make_pipeline(DictVectorizer(sparse=False), LogisticRegression(max_iter=500)).fit(rows, y)
    onx = to_onnx(dv, initial_types=[("features", _dict_type())], target_opset={"": 17, "ai.onnx.ml": 3})
    (OUT / "dict_vectorizer_logistic.onnx").write_bytes(onx.SerializeToString())
    print("dict_vectorizer_logistic.onnx written")


def _dict_type():
    from skl2onnx.common.data_types import DictionaryType, FloatTensorType, StringTensorType
    return DictionaryType(StringTensorType([1]), FloatTensorType([1]))


if __name__ == "__main__":
    main()
