"""Versions. hipinfer follows onnxruntime's Python API, and code written for onnxruntime checks
`onnxruntime.__version__` (often as `tuple(int(x) for x in __version__.split("."))`), so
`hipinfer.__version__`, `hipinfer.version` and `get_version_string()` give the onnxruntime release
whose API hipinfer is checked against (the one python/README.md's API table was made with), as
a plain X.Y.Z. hipinfer's own version is `hipinfer.hipinfer_version` and its commit
`hipinfer.git_commit`: the same as `hipinfer --version`, pip's and the C API's (hi_version_string,
hi_git_commit). `get_build_info()` gives all three."""
from __future__ import annotations

from . import _hipinfer as _C

ORT_API_VERSION = "1.30.0"
HIPINFER_VERSION: str = _C.__version__
GIT_COMMIT: str = _C.__git_commit__


def get_version_string() -> str:
    """The onnxruntime API version hipinfer follows (as onnxruntime's get_version_string())."""
    return ORT_API_VERSION


def get_build_info() -> str:
    """hipinfer's own version and commit, the onnxruntime API level it follows, and the GPU backends
    built in ("cuda", "hip"; the CPU is always there)."""
    gpus = _C.query_gpus()
    backends = ", ".join(["cpu", *gpus.get("compiled_backends", [])])
    runtime = f" ({gpus['runtime_version']})" if gpus.get("runtime_version") else ""
    return (f"hipinfer {HIPINFER_VERSION} (commit {GIT_COMMIT}, onnxruntime API {ORT_API_VERSION}); "
            f"backends: {backends}{runtime}")
