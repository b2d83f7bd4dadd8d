"""The installed package: it imports on its own, `python -m hipinfer` runs the command, and the
type stubs and docstrings cover the public API."""
from __future__ import annotations

import ast
import inspect
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import hipinfer
from conftest import REPO, run_cli

PACKAGE = Path(hipinfer.__file__).resolve().parent


def test_imports_from_site_packages_without_the_build_tree(tmp_path):
    """A fresh interpreter, run from an empty folder, finds the installed package, and the module
    links nothing from the source or build tree."""
    code = "import hipinfer, hipinfer._hipinfer as c; print(hipinfer.__file__); print(c.__file__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, check=True).stdout.split()
    site = {Path(sysconfig.get_paths()[k]).resolve() for k in ("purelib", "platlib")}
    for path in out:
        assert any(Path(path).resolve().is_relative_to(s) for s in site), f"{path} is not in {site}"
    ldd = subprocess.run(["ldd", out[1]], capture_output=True, text=True).stdout
    assert str(REPO) not in ldd and "not found" not in ldd, ldd


def test_python_dash_m_runs_the_command():
    version = run_cli("--version").stdout.strip()
    assert version == f"hipinfer {hipinfer.hipinfer_version} (commit {hipinfer.git_commit})"
    assert "usage: hipinfer" in run_cli("--help").stdout
    devices = run_cli("devices", check=False)
    assert devices.returncode == 0, devices.stderr
    bad = run_cli("no-such-command", check=False)
    assert bad.returncode == 2 and "unknown command" in bad.stderr
    assert (PACKAGE / "bin" / "hipinfer").is_file()


def _stub_names(path: Path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_extension_stub_matches_the_module():
    stub = PACKAGE / "_hipinfer.pyi"
    assert stub.is_file() and (PACKAGE / "py.typed").is_file()
    public = {n for n in dir(hipinfer._hipinfer) if not n.startswith("__") or n == "__version__"}
    assert public == _stub_names(stub)
    for cls in ("Tensor", "Session"):
        members = {n for n in dir(getattr(hipinfer._hipinfer, cls)) if not n.startswith("_")}
        tree = ast.parse(stub.read_text())
        stub_cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
        stub_members = {n.name for n in stub_cls.body if isinstance(n, ast.FunctionDef)}
        assert members <= stub_members, members - stub_members


def test_public_api_has_docstrings():
    for name in hipinfer.__all__:
        obj = getattr(hipinfer, name)
        if isinstance(obj, str):  # __version__, version, hipinfer_version, package_name
            continue
        assert inspect.getdoc(obj), f"hipinfer.{name} has no docstring"
    for cls in (hipinfer.InferenceSession, hipinfer.SessionOptions):
        for member_name, member in vars(cls).items():
            if not member_name.startswith("_") and callable(member):
                assert inspect.getdoc(member), f"{cls.__name__}.{member_name} has no docstring"
