// ModelInferRequest / ModelInferResponse (proto/grpc_service.proto) to and from the server's
// InferRequest and output tensors. Pure functions, no networking, so the awkward cases are unit
// tested without a server.
#pragma once

#include <string>
#include <vector>

#include "grpc_service.pb.h"
#include "model_runner.h"

namespace hi::server {

// Decodes a request. Input data comes from raw_input_contents (one entry per input, in order) or
// from each input's typed contents (the one field of its datatype; FP16 and BF16 only raw). Checks
// what the protocol defines: datatype names, shapes, data sizes, parameters; whether the tensors fit
// the model is ModelRunner's check. `config_or_null` only improves messages. On error `out` is left
// unchanged; `out->received` is never touched.
Error request_from_grpc(const inference::ModelInferRequest& req, const inference::ModelConfig* config_or_null,
                        InferRequest* out);

// Fills a response: one output (name, wire datatype, shape) and one raw_output_contents entry per
// tensor, in `order` (the requested outputs, or the model config's output order when none were
// requested). Tensors `order` does not name follow in name order, so none is dropped.
void response_to_grpc(const std::string& model, const std::string& version, const std::string& id,
                      const TensorMap& outputs, const std::vector<std::string>& order,
                      inference::ModelInferResponse* out);

}  // namespace hi::server
