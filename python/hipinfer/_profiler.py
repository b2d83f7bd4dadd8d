"""InferenceSession's profiling (SessionOptions.enable_profiling), written as onnxruntime writes it:
a JSON list of Chrome trace events ("ph": "X", times in microseconds from the session's start),
one "model_run" event per run and one "<node>_kernel_time" event per node, which chrome://tracing
and Perfetto open and tools written for onnxruntime's profiles read.

A node's "ts" is the run's start plus the times of the nodes before it: hipinfer measures each
node's duration, and nodes run one after another."""
from __future__ import annotations

import json
import os
import threading
import time
from typing import Any, Dict, List, Sequence, Tuple

NodeTime = Tuple[str, str, float, str]  # node, op type, ms, fast kernel ("" for the reference one)


class Profiler:
    def __init__(self, prefix: str, provider: str) -> None:
        self._prefix, self._provider = prefix, provider
        self._start_ns = time.time_ns()
        self._origin = time.perf_counter_ns()
        self._events: List[Dict[str, Any]] = []
        self._lock = threading.Lock()
        self._pid = os.getpid()

    @property
    def start_time_ns(self) -> int:
        return self._start_ns

    def now_us(self) -> float:
        return (time.perf_counter_ns() - self._origin) / 1000.0

    def _event(self, cat: str, name: str, ts: float, dur: float, args: Dict[str, Any]) -> Dict[str, Any]:
        return {"cat": cat, "pid": self._pid, "tid": threading.get_ident() % (1 << 31), "dur": round(dur),
                "ts": round(ts), "ph": "X", "name": name, "args": args}

    def session_loaded(self, load_us: float) -> None:
        with self._lock:
            self._events.append(self._event("Session", "session_initialization", 0, load_us, {}))

    def run_done(self, start_us: float, run_ms: float, nodes: Sequence[NodeTime]) -> None:
        events = [self._event("Session", "model_run", start_us, run_ms * 1000.0, {})]
        ts = start_us
        for node, op_type, ms, kernel in nodes:
            args = {"op_name": op_type, "provider": self._provider}
            if kernel:
                args["kernel"] = kernel
            events.append(self._event("Node", f"{node}_kernel_time", ts, ms * 1000.0, args))
            ts += ms * 1000.0
        with self._lock:
            self._events.extend(events)

    def write(self) -> str:
        """Writes the events to <prefix><date>.json in the working directory; returns its name."""
        path = f"{self._prefix}{time.strftime('%Y-%m-%d_%H-%M-%S')}.json"
        with self._lock:
            events = list(self._events)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(events, f, indent=0)
        return path
