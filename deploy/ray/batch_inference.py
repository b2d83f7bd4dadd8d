"""Batch inference over a folder of inputs with Ray Data and hipinfer.

The folders, one subfolder per sample, each laid out as `hipinfer run` reads and writes them:

    INPUTS/<sample>/<input name>.npy     one file per model input, holding that sample's tensor
                                         with a leading batch dimension of 1 (what
                                         `hipinfer run MODEL --input <name>=<file>` takes)
    OUTPUTS/<sample>/<output name>.npy   written here, one file per model output, batch dimension 1:
                                         the files `hipinfer run ... --output-dir OUTPUTS/<sample>`
                                         writes (characters unsafe in file names become '_')

Ray Data loads the samples, stacks `--batch-size` of them along the batch dimension (so the
samples of a batch must have the same shapes), and runs each batch in a pool of `--actors` actors,
each holding one `hipinfer.InferenceSession` (map_batches with a callable class and
`concurrency=`; the loading is fused into the same actors). The outputs stream back to this
script, which writes them.

    python deploy/ray/batch_inference.py --model enc.onnx --inputs in/ --outputs out/ --actors 2 --batch-size 4

On a multi-node cluster (`--address auto` or HEAD:PORT), every node needs hipinfer, the model and
INPUTS at the same paths (a shared filesystem); the outputs are written on this machine only.
From Python: `run(model, inputs, outputs, actors=2, batch_size=4)`.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import ray

SAMPLE, PID = "__sample__", "__pid__"  # the columns beside the model's inputs and outputs


def safe_file_name(name: str) -> str:
    """An output name as a file name, as `hipinfer run --output-dir` makes it."""
    s = re.sub(r"[^A-Za-z0-9._-]", "_", name or "output")
    return "_" if s in (".", "..") else s


def output_file_names(names: Sequence[str]) -> Dict[str, str]:
    """Output name -> file stem, numbering the stems that would collide (as `hipinfer run`)."""
    taken, stems = set(), {}
    for name in names:
        base = stem = safe_file_name(name)
        n = 2
        while stem in taken:
            stem, n = f"{base}_{n}", n + 1
        taken.add(stem)
        stems[name] = stem
    return stems


def load_sample(row: Dict[str, Any]) -> Dict[str, Any]:
    """{SAMPLE, "dir"} -> {SAMPLE, <file stem>: array, ...}: every .npy of the sample's folder."""
    out: Dict[str, Any] = {SAMPLE: row[SAMPLE]}
    for file in sorted(Path(row["dir"]).glob("*.npy")):
        out[file.stem] = np.load(file, allow_pickle=False)
    return out


class HipinferPredictor:
    """The callable class map_batches runs in each actor: one session, made once per actor."""

    def __init__(self, model: str, threads: int = 1, providers: Optional[Sequence[Any]] = None) -> None:
        import hipinfer

        options = hipinfer.SessionOptions()
        options.intra_op_num_threads = int(threads)
        self.session = hipinfer.InferenceSession(model, sess_options=options,
                                                 providers=list(providers or ["CPUExecutionProvider"]))
        self.input_names = [i.name for i in self.session.get_inputs()]
        self.output_names = [o.name for o in self.session.get_outputs()]

    def __call__(self, batch: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        samples = batch[SAMPLE]
        feeds = {}
        for name in self.input_names:
            file = safe_file_name(name)
            if file not in batch:
                raise ValueError(f"sample {samples[0]!r} has no {file}.npy; the model's inputs are "
                                 f"{self.input_names}")
            # Each row holds one sample with its batch dimension of 1: [B, 1, ...] -> [B, ...].
            column = np.stack(list(batch[file])) if batch[file].dtype == object else batch[file]
            if column.ndim < 2 or column.shape[1] != 1:
                raise ValueError(f"input '{name}': each file must hold one sample with a leading batch "
                                 f"dimension of 1, got a batch of shape {list(column.shape)}")
            feeds[name] = column.reshape(column.shape[:1] + column.shape[2:])
        results = self.session.run(None, feeds)
        out: Dict[str, np.ndarray] = {SAMPLE: samples, PID: np.full(len(samples), os.getpid())}
        for name, value in zip(self.output_names, results):
            out[name] = value[:, None]  # back to one sample per row, batch dimension 1
        return out


def run(model: str, inputs: str, outputs: str, actors: int = 2, batch_size: int = 4, threads: int = 1,
        providers: Optional[Sequence[Any]] = None, num_cpus: float = 1.0) -> Dict[str, int]:
    """Runs every sample of `inputs` through the model in `actors` actors and writes
    `outputs/<sample>/<output>.npy`. Returns {sample: pid of the actor that ran it}. Connects to
    Ray (ray.init()) unless this process already is."""
    samples = sorted(p for p in Path(inputs).iterdir() if p.is_dir() and any(p.glob("*.npy")))
    if not samples:
        raise FileNotFoundError(f"{inputs} has no sample folders (<sample>/<input name>.npy)")
    model = os.path.abspath(model)

    if not ray.is_initialized():
        ray.init()
    # This module's functions and class travel to the workers by value, so they need not find
    # this file on their path (as when this file is run as a script, its __main__ does).
    if __name__ != "__main__":
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])

    ds = ray.data.from_items([{SAMPLE: p.name, "dir": str(p.resolve())} for p in samples])
    # Loading asks for what an actor asks for: Ray Data then runs it in the actors (fused with the
    # inference), and no one-CPU task waits for a CPU that the actors left in halves across nodes.
    ds = ds.map(load_sample, num_cpus=num_cpus)
    ds = ds.map_batches(HipinferPredictor, fn_constructor_kwargs={"model": model, "threads": threads,
                                                                  "providers": providers},
                        batch_size=batch_size, concurrency=actors, num_cpus=num_cpus, batch_format="numpy")
    ran_by: Dict[str, int] = {}
    stems: Dict[str, str] = {}
    for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
        if not stems:  # the model's outputs, in its order: the columns besides SAMPLE and PID
            stems = output_file_names([c for c in batch if c not in (SAMPLE, PID)])
        for i, sample in enumerate(batch[SAMPLE]):
            folder = Path(outputs) / str(sample)
            folder.mkdir(parents=True, exist_ok=True)
            for name, stem in stems.items():
                np.save(folder / f"{stem}.npy", np.ascontiguousarray(batch[name][i]))
            ran_by[str(sample)] = int(batch[PID][i])
    missing = sorted({p.name for p in samples} - set(ran_by))
    if missing:
        raise RuntimeError(f"no outputs for samples {missing}")
    return ran_by


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="the ONNX model")
    parser.add_argument("--inputs", required=True, help="folder of samples: <sample>/<input name>.npy")
    parser.add_argument("--outputs", required=True, help="folder the outputs go to: <sample>/<output name>.npy")
    parser.add_argument("--actors", type=int, default=2, help="actors, each with its own session (default 2)")
    parser.add_argument("--batch-size", type=int, default=4, help="samples per run (default 4)")
    parser.add_argument("--threads", type=int, default=1, help="intra_op_num_threads of each session (default 1)")
    parser.add_argument("--providers", default="CPUExecutionProvider",
                        help="comma-separated providers, in priority order (default CPUExecutionProvider)")
    parser.add_argument("--num-cpus", type=float, default=1.0, help="Ray CPUs each actor reserves (default 1)")
    parser.add_argument("--address", default=None,
                        help="the Ray cluster (auto, or HEAD:PORT); default: a local Ray started for this run")
    args = parser.parse_args(argv)
    ray.init(address=args.address)
    ran_by = run(args.model, args.inputs, args.outputs, args.actors, args.batch_size, args.threads,
                 args.providers.split(","), args.num_cpus)
    print(f"{len(ran_by)} samples written to {args.outputs} by {len(set(ran_by.values()))} actors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
