"""Starting and stopping hipinfer-server for the end-to-end tests, and the models they serve."""
import os
import pathlib
import re
import signal
import subprocess
import threading
import time

BUILD = pathlib.Path(os.environ.get("HI_BUILD_DIR", pathlib.Path(__file__).resolve().parents[2] / "build" / "ci"))
HIPINFER = BUILD / "tools" / "hipinfer" / "hipinfer"
SERVER = BUILD / "tools" / "hipinfer" / "hipinfer-server"
SOURCE = pathlib.Path(__file__).resolve().parents[2]
PPOCR_CLS = SOURCE / ".venv" / "ppocr" / "ch_ppocr_mobile_v2.0_cls_infer.onnx"

# Small zoo models, so the tests run in seconds on two cores.
ZOO = {
    "resnet50": ["--image-size", "64", "--classes", "10"],
    "encoder": ["--layers", "2", "--hidden", "64", "--heads", "2", "--sequence", "16", "--intermediate", "128",
                "--vocab", "100"],
}
ZOO_NAMES = {"resnet50": "resnet50", "encoder": "bert"}


def make_repository(root: pathlib.Path, batching=True):
    """DIR/<model>/1/model.onnx for the zoo models and the PP-OCR classifier; ResNet-50 with a
    config.pbtxt that batches dynamically, the encoder with none (shapes as in the model)."""
    for name, options in ZOO.items():
        (root / name / "1").mkdir(parents=True, exist_ok=True)
        subprocess.run([str(HIPINFER), "zoo", ZOO_NAMES[name], "-o", str(root / name / "1" / "model.onnx"), *options],
                       check=True, capture_output=True)
    if batching:
        (root / "resnet50" / "config.pbtxt").write_text(
            'name: "resnet50"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 8\n'
            "dynamic_batching { preferred_batch_size: [4, 8] max_queue_delay_microseconds: 2000 }\n"
            "instance_group { count: 1 kind: KIND_CPU }\n"
            "optimization { execution_accelerators { cpu_execution_accelerator: [ { name: \"openvino\" } ] } }\n")
    if PPOCR_CLS.exists():
        (root / "ppocr_cls" / "1").mkdir(parents=True, exist_ok=True)
        (root / "ppocr_cls" / "1" / "model.onnx").symlink_to(PPOCR_CLS)
    return root


class Server:
    """hipinfer-server on free ports (port 0), read back from its 'listening:' line."""

    def __init__(self, *args, env=None):
        self.proc = subprocess.Popen([str(SERVER), "--http-port", "0", "--grpc-port", "0", "--metrics-port", "0",
                                      "--threads", "1", *args], stderr=subprocess.PIPE, text=True, env=env)
        self.log = []
        deadline = time.time() + 120
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.log.append(line)
            m = re.search(r"listening: http \S+:(\d+) grpc \S+:(\d+) metrics \S+:(\d+)", line)
            if m:
                self.http_port, self.grpc_port, self.metrics_port = map(int, m.groups())
                self.http = f"127.0.0.1:{self.http_port}"
                self.grpc = f"127.0.0.1:{self.grpc_port}"
                # Keep reading its log so a full pipe never blocks the server.
                self._reader = threading.Thread(target=self._drain, daemon=True)
                self._reader.start()
                return
        self.proc.kill()
        raise RuntimeError("hipinfer-server did not start:\n" + "".join(self.log) + self.proc.stderr.read())

    def _drain(self):
        for line in self.proc.stderr:
            self.log.append(line)

    def stop(self, timeout=120):
        """SIGTERM, then the exit code; its whole log is in self.log."""
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=timeout)
        self._reader.join(timeout=10)
        return self.proc.returncode
