// The HTTP/REST inference body of the Open Inference Protocol: JSON tensors, and Triton's binary
// tensor data extension (a JSON header of Inference-Header-Content-Length bytes, then the tensors'
// raw bytes in order). Pure functions: no sockets, so every malformed body can be tested.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model_runner.h"
#include "server_error.h"

namespace hi::server {

struct HttpOutputChoice {
  std::string name;
  bool binary = false;
};

// How the answer is to be written: which outputs, and which as binary data.
struct HttpResponseForm {
  std::vector<HttpOutputChoice> outputs;  // empty: all outputs
  bool binary_by_default = false;         // request parameter binary_data_output
};

// Parses an infer request body. `header_length` is the Inference-Header-Content-Length value, or
// -1 without one (then the whole body is JSON). Errors name the field, expected and actual value.
Error parse_infer_request(std::string_view body, int64_t header_length, InferRequest* request, HttpResponseForm* form);

struct HttpBody {
  std::string data;
  int64_t header_length = -1;  // the JSON part's size when binary data follows; -1 when all JSON
};

// The infer response: outputs in `order`, each as JSON data or binary data as the form asks.
HttpBody make_infer_response(const std::string& model, const std::string& version, const std::string& id,
                             const TensorMap& outputs, const std::vector<std::string>& order,
                             const HttpResponseForm& form);

// {"error": "<message>"}, the protocol's error body.
std::string error_json(const std::string& message);

}  // namespace hi::server
