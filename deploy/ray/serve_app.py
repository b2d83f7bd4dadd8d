"""A Ray Serve application serving one ONNX model with hipinfer.

Each replica of the `HipinferModel` deployment loads the model into its own
`hipinfer.InferenceSession` once, then answers HTTP POST requests:

    request:  {"inputs":  {"<input name>":  <nested list>, ...}}
    response: {"outputs": {"<output name>": <nested list>, ...},
               "replica": "<Ray's replica id>", "node": "<Ray's node id>", "pid": <replica's process id>}

Values are converted to the dtype the model declares for each input (tensor(int64) -> int64,
tensor(float) -> float32, ...). Bad requests (body not JSON, a missing or unknown input, a value
that does not convert, a shape the model does not accept) are answered with HTTP 400 and
{"error": "..."} naming the input. The output values are `ndarray.tolist()` of what hipinfer
computed, so a float32 output converts back to the same float32 values.

Run it on a running Ray cluster (`ray start --head` on one machine, `ray start --address=HEAD:6379`
on the others; each machine needs `pip install hipinfer "ray[serve]"` and the model at the same path):

    python deploy/ray/serve_app.py --model enc.onnx --replicas 2 --address auto
    curl -X POST http://127.0.0.1:8000/ -H 'Content-Type: application/json' \
         -d '{"inputs": {"input_ids": [[1, 2, 3]], ...}}'

It deploys, prints the URL and exits; the application keeps running on the cluster until
`serve shutdown` (or `ray stop`). From Python: `serve.run(build_app("enc.onnx", replicas=2))`.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import ray
from ray import serve
from starlette.requests import Request
from starlette.responses import JSONResponse

# The element types a JSON request can carry, by the name onnxruntime's NodeArg.type uses.
NUMPY_DTYPES: Dict[str, Any] = {
    "tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16,
    "tensor(int8)": np.int8, "tensor(int16)": np.int16, "tensor(int32)": np.int32, "tensor(int64)": np.int64,
    "tensor(uint8)": np.uint8, "tensor(uint16)": np.uint16, "tensor(uint32)": np.uint32,
    "tensor(uint64)": np.uint64, "tensor(bool)": np.bool_, "tensor(string)": np.object_,
}


class BadRequest(ValueError):
    """A request the model cannot run: answered with HTTP 400."""


@serve.deployment
class HipinferModel:
    """One hipinfer session per replica; `__call__` answers the HTTP requests."""

    def __init__(self, model: str, threads: int = 1, providers: Optional[Sequence[Any]] = None) -> None:
        import hipinfer  # imported in the replica's process

        options = hipinfer.SessionOptions()
        options.intra_op_num_threads = int(threads)
        self._hipinfer = hipinfer
        self._session = hipinfer.InferenceSession(model, sess_options=options,
                                                  providers=list(providers or ["CPUExecutionProvider"]))
        self._inputs = {i.name: i for i in self._session.get_inputs()}
        self._output_names = [o.name for o in self._session.get_outputs()]
        try:
            self._replica = serve.get_replica_context().replica_id.unique_id
        except Exception:  # outside Serve (a plain instance in a unit test)
            self._replica = ""
        self._node = ray.get_runtime_context().get_node_id() if ray.is_initialized() else ""

    def feeds(self, inputs: Any) -> Dict[str, np.ndarray]:
        """The request's inputs as numpy arrays of the model's types and shapes; BadRequest otherwise."""
        if not isinstance(inputs, dict):
            raise BadRequest('the body must be {"inputs": {"<input name>": <nested list>, ...}}')
        unknown = sorted(set(inputs) - set(self._inputs))
        if unknown:
            raise BadRequest(f"unknown input '{unknown[0]}'; the model's inputs are {sorted(self._inputs)}")
        feeds = {}
        for name, arg in self._inputs.items():
            if name not in inputs:
                raise BadRequest(f"missing input '{name}' ({arg.type}, shape {arg.shape})")
            dtype = NUMPY_DTYPES.get(arg.type, arg.dtype)
            if dtype is None:
                raise BadRequest(f"input '{name}' is {arg.type}, which a JSON request cannot carry")
            try:
                value = np.asarray(inputs[name], dtype=dtype)
            except (TypeError, ValueError, OverflowError) as e:
                raise BadRequest(f"input '{name}' does not convert to {arg.type}: {e}") from None
            if arg.shape:  # [] when even the rank is unknown
                wrong_rank = value.ndim != len(arg.shape)
                if wrong_rank or any(isinstance(d, int) and d != v for d, v in zip(arg.shape, value.shape)):
                    raise BadRequest(f"input '{name}' has shape {list(value.shape)}; the model takes "
                                     f"{arg.shape} (names and None: any size)")
            feeds[name] = value
        return feeds

    def infer(self, inputs: Any) -> Dict[str, Any]:
        feeds = self.feeds(inputs)
        try:
            results = self._session.run(None, feeds)
        except self._hipinfer.InvalidArgument as e:  # e.g. sizes that disagree with each other
            raise BadRequest(str(e)) from None
        return {"outputs": {n: r.tolist() for n, r in zip(self._output_names, results)},
                "replica": self._replica, "node": self._node, "pid": os.getpid()}

    async def __call__(self, request: Request) -> JSONResponse:
        if request.method != "POST":
            return JSONResponse({"error": 'POST {"inputs": {...}} to run the model'}, status_code=405)
        try:
            body = await request.json()
        except ValueError as e:
            return JSONResponse({"error": f"the body is not JSON: {e}"}, status_code=400)
        try:
            inputs = body.get("inputs") if isinstance(body, dict) else None
            # The run releases the GIL: a thread keeps the replica's event loop answering.
            answer = await asyncio.get_running_loop().run_in_executor(None, self.infer, inputs)
        except BadRequest as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        return JSONResponse(answer)


def build_app(model: str, replicas: int = 1, threads: int = 1, providers: Optional[Sequence[Any]] = None,
              num_cpus: float = 0.5):
    """The application: `replicas` replicas of HipinferModel, each reserving `num_cpus` of Ray's CPUs.
    The model path must exist on every node that may host a replica."""
    deployment = HipinferModel.options(num_replicas=int(replicas),
                                       ray_actor_options={"num_cpus": float(num_cpus)})
    return deployment.bind(os.path.abspath(model), int(threads), list(providers or ["CPUExecutionProvider"]))


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="the ONNX model (the same path on every node)")
    parser.add_argument("--replicas", type=int, default=1, help="replicas, each with its own session (default 1)")
    parser.add_argument("--threads", type=int, default=1, help="intra_op_num_threads of each session (default 1)")
    parser.add_argument("--providers", default="CPUExecutionProvider",
                        help="comma-separated providers, in priority order (default CPUExecutionProvider)")
    parser.add_argument("--num-cpus", type=float, default=0.5, help="Ray CPUs each replica reserves (default 0.5)")
    parser.add_argument("--address", default="auto", help="the Ray cluster (default auto: the one on this machine)")
    parser.add_argument("--host", default="127.0.0.1", help="address Serve's HTTP proxy listens on")
    parser.add_argument("--port", type=int, default=8000, help="port of Serve's HTTP proxy (default 8000)")
    parser.add_argument("--proxy-location", default="HeadOnly", choices=["HeadOnly", "EveryNode"],
                        help="where Serve runs HTTP proxies (default HeadOnly)")
    parser.add_argument("--name", default="hipinfer", help="the Serve application's name")
    parser.add_argument("--route-prefix", default="/", help="the URL path the application answers on")
    args = parser.parse_args(argv)

    ray.init(address=args.address, log_to_driver=False)
    # Serve's HTTP options are fixed when Serve first starts on the cluster; later calls keep them.
    serve.start(proxy_location=args.proxy_location, http_options={"host": args.host, "port": args.port})
    app = build_app(args.model, args.replicas, args.threads, args.providers.split(","), args.num_cpus)
    serve.run(app, name=args.name, route_prefix=args.route_prefix)  # returns once every replica is up
    host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print(f"http://{host}:{args.port}{args.route_prefix}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
