"""hipinfer serve under perf_analyzer against in-process `hipinfer bench` (run it with
scripts/serve-bench, which installs perf_analyzer). The in-process figure is measured before and
after each model's server runs and averaged, so both see the same machine state."""
import argparse
import csv
import json
import os
import pathlib
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODELS = {
    "resnet50": (["resnet50"], "input:1,3,224,224"),
    "encoder": (["bert", "--layers", "4", "--hidden", "256", "--heads", "4", "--sequence", "128"],
                "input_ids:1,128 attention_mask:1,128 token_type_ids:1,128"),
}
BATCHED_CONFIG = "max_batch_size: 8\ndynamic_batching { max_queue_delay_microseconds: 1000 }\n"


def make_repositories(build, work):
    """work/plain (no config: shapes as in the model) and work/batched (max_batch_size 8, dynamic batching)."""
    hipinfer = build / "tools" / "hipinfer" / "hipinfer"
    for name, (zoo, _) in MODELS.items():
        model = work / f"{name}.onnx"
        if not model.exists():
            subprocess.run([str(hipinfer), "zoo", *zoo, "-o", str(model)], check=True, capture_output=True)
        for variant in ("plain", "batched"):
            folder = work / variant / name / "1"
            folder.mkdir(parents=True, exist_ok=True)
            if not (folder / "model.onnx").exists():
                (folder / "model.onnx").symlink_to(model)
            if variant == "batched":
                (work / variant / name / "config.pbtxt").write_text(BATCHED_CONFIG)


def in_process(build, model, threads, seconds):
    """`hipinfer bench` at batch 1: inferences per second and median ms."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([str(build / "tools" / "hipinfer" / "hipinfer"), "bench", str(model), "--batch", "1",
                        "--threads", str(threads), "--time", str(seconds), "--json", out.name, "-q"],
                       check=True, capture_output=True)
        d = json.load(open(out.name))["hipinfer"]
    return d["throughput_per_s"], d["latency_ms"]["median"]


class Server:
    def __init__(self, build, repo, threads):
        self.proc = subprocess.Popen([str(build / "tools" / "hipinfer" / "hipinfer-server"), "--model-repository",
                                      str(repo), "--http-port", "0", "--grpc-port", "0", "--metrics-port", "off",
                                      "--threads", str(threads), "--http-threads", "80"],
                                     stderr=subprocess.PIPE, text=True)
        for line in self.proc.stderr:
            m = re.search(r"listening: http (\S+) grpc (\S+)", line)
            if m:
                self.http, self.grpc = m.groups()
                return
        raise RuntimeError("hipinfer-server did not start")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=120)


def perf_analyzer(pa, model, protocol, address, concurrency, batched, shapes):
    with tempfile.NamedTemporaryFile(suffix=".csv") as out:
        cmd = [pa, "-m", model, "-u", address, "-i", protocol, "--concurrency-range", str(concurrency),
               "--input-data", "zero", "--measurement-interval", "5000", "--max-trials", "10", "--stability-percentage", "15", "-f", out.name]
        if batched:
            cmd += ["-b", "1"]
        else:
            for s in shapes.split():
                cmd += ["--shape", s]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise RuntimeError(f"perf_analyzer failed: {' '.join(cmd)}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
        row = next(csv.DictReader(open(out.name)))
    return float(row["Inferences/Second"]), float(row["p50 latency"]) / 1000, float(row["p99 latency"]) / 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--perf-analyzer", required=True)
    parser.add_argument("--build", default=str(ROOT / "build" / "ci"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="concurrency 1 and 16 only")
    args = parser.parse_args()
    build = pathlib.Path(args.build)
    work = build / "serve-bench"
    work.mkdir(parents=True, exist_ok=True)
    make_repositories(build, work)
    levels = [1, 16] if args.quick else [1, 4, 16, 64]
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"# serve-bench: commit {commit}, {cpu}, {os.cpu_count()} CPUs, {args.threads} intra-op threads, "
          f"{platform.platform()}")
    rows, best = [], {}
    for name, (_, shapes) in MODELS.items():
        before = in_process(build, work / f"{name}.onnx", args.threads, 10)
        results = []
        for variant in ("plain", "batched"):
            server = Server(build, work / variant, args.threads)
            try:
                for protocol in ("http", "grpc"):
                    address = server.http if protocol == "http" else server.grpc
                    for c in levels:
                        tput, p50, p99 = perf_analyzer(args.perf_analyzer, name, protocol, address, c,
                                                       variant == "batched", shapes)
                        results.append((variant, protocol, c, tput, p50, p99))
                        print(f"  {name} {protocol} {variant} concurrency {c}: {tput:.1f}/s p50 {p50:.1f} ms "
                              f"p99 {p99:.1f} ms", flush=True)
            finally:
                server.stop()
        after = in_process(build, work / f"{name}.onnx", args.threads, 10)
        reference = (before[0] + after[0]) / 2
        print(f"  {name} in-process hipinfer bench, batch 1: {before[0]:.1f}/s before, {after[0]:.1f}/s after "
              f"(median {before[1]:.2f} / {after[1]:.2f} ms)", flush=True)
        for variant, protocol, c, tput, p50, p99 in results:
            rows.append((name, protocol, variant, c, tput, p50, p99, tput / reference))
        top = max(results, key=lambda r: r[3])
        best[name] = (top, reference)
    print("\n| model | protocol | dynamic batching | concurrency | inferences/s | p50 ms | p99 ms | vs in-process |")
    print("|---|---|---|---|---|---|---|---|")
    for name, protocol, variant, c, tput, p50, p99, ratio in rows:
        print(f"| {name} | {protocol} | {'yes' if variant == 'batched' else 'no'} | {c} | {tput:.1f} | {p50:.1f} | "
              f"{p99:.1f} | {ratio:.2f}x |")
    print()
    for name, (top, reference) in best.items():
        variant, protocol, c, tput = top[:4]
        print(f"best {name}: {tput:.1f}/s ({protocol}, {'dynamic batching' if variant == 'batched' else 'no batching'}, "
              f"concurrency {c}) = {tput / reference:.2f}x in-process hipinfer bench at batch 1 ({reference:.1f}/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
