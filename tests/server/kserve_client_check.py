"""One inference through the kserve SDK's v2 client: kserve_client_check.py grpc|rest ADDRESS MODEL
INPUT.npy OUTPUT_NAME OUT.npy. The input is sent as the model's first input ("input")."""
import asyncio
import sys

import kserve
import numpy as np


async def infer(protocol, address, model, x, output):
    inp = kserve.InferInput("input", list(x.shape), "FP32")
    if protocol == "grpc":
        client = kserve.InferenceGRPCClient(address)
        inp.set_data_from_numpy(x)
        response = await client.infer(kserve.InferRequest(model_name=model, infer_inputs=[inp]))
    else:
        client = kserve.InferenceRESTClient(kserve.RESTConfig(protocol="v2"))
        inp.set_data_from_numpy(x, binary_data=False)
        response = await client.infer(f"http://{address}", kserve.InferRequest(model_name=model, infer_inputs=[inp]),
                                      model_name=model)
    await client.close()
    return next(o for o in response.outputs if o.name == output).as_numpy()


if __name__ == "__main__":
    protocol, address, model, x_path, output, out_path = sys.argv[1:]
    np.save(out_path, asyncio.run(infer(protocol, address, model, np.load(x_path), output)))
