"""The default logger's severity (onnxruntime's set_default_logger_severity): what sessions whose
SessionOptions.log_severity_level is -1 (the default) use. hipinfer's only log output is its
warnings (providers falling back, options without effect); severity 3 (error) or above silences
them."""
from __future__ import annotations

_default_severity = 2  # warning, as in onnxruntime


def set_default_logger_severity(severity: int) -> None:
    """Sets the default logging severity: 0 verbose, 1 info, 2 warning (default), 3 error, 4 fatal.
    Sessions created afterwards with log_severity_level -1 warn only below 3."""
    global _default_severity
    severity = int(severity)
    if not 0 <= severity <= 4:
        raise ValueError(f"severity must be 0 (verbose) .. 4 (fatal), got {severity}")
    _default_severity = severity


def set_default_logger_verbosity(verbosity: int) -> None:
    """Accepted for onnxruntime compatibility: hipinfer has no verbose log levels."""
    int(verbosity)


def warns(severity: int) -> bool:
    """Whether a session with this log_severity_level (-1: the default logger's) shows warnings."""
    return (severity if severity >= 0 else _default_severity) < 3
