"""hipinfer.doctor(): `hipinfer doctor` from Python, returning its findings."""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, Dict, List

from . import _hipinfer as _C


@dataclass(frozen=True)
class Finding:
    """One thing the doctor checked. `id` is stable ("env.hip_launch_blocking"); `level` is
    "ok", "warning" or "error"; `fix` is the shell command that fixes it, or ""."""

    id: str
    level: str
    title: str
    detail: str
    fix: str


class DoctorResult:
    """The doctor's findings and the facts it read (`facts`: the "system" part of
    `hipinfer doctor --json`). str() gives the text `hipinfer doctor` prints."""

    def __init__(self, json_text: str, text: str) -> None:
        data = json.loads(json_text)
        self.findings: List[Finding] = [Finding(**f) for f in data["findings"]]
        self.facts: Dict[str, Any] = data["system"]
        self.errors: int = data["errors"]
        self.warnings: int = data["warnings"]
        self.json: str = json_text
        self.text: str = text

    @property
    def has_errors(self) -> bool:
        return self.errors > 0

    def by_level(self, level: str) -> List[Finding]:
        return [f for f in self.findings if f.level == level]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<hipinfer.DoctorResult: {len(self.findings)} findings, {self.warnings} warnings, {self.errors} errors>"


def doctor(print_report: bool = False) -> DoctorResult:
    """Checks that this machine can run hipinfer (and the PyTorch / ONNX Runtime beside it) on its
    GPUs: drivers, libraries, versions, permissions, environment. Frameworks are read for this
    interpreter unless $HI_PYTHON names another; the shared libraries checked are this module's.
    Takes a few seconds (it runs rocminfo / nvidia-smi where present); the GIL is released."""
    json_text, text = _C.run_doctor(_C.__file__, sys.executable or "")
    result = DoctorResult(json_text, text)
    if print_report:
        print(text, end="", flush=True)
    return result
