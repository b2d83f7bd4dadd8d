// A model's serving configuration: Triton's config.pbtxt (protobuf text format, the subset in
// proto/model_config.proto), completed from the model itself and checked against it.
#pragma once

#include <string>
#include <vector>

#include "hipinfer/session.h"
#include "model_config.pb.h"

namespace hi::server {

// Parses a config.pbtxt. Fields hipinfer does not know are skipped with a warning each (Triton
// repositories carry backend-specific sections); syntax errors name the file, line and column.
Result<inference::ModelConfig> read_model_config(const std::string& path, std::vector<std::string>* warnings);

// Fills in what the config leaves out (the name, the inputs and outputs with their types and dims,
// one CPU or GPU instance) from the model, and checks what it gives against it: every listed tensor
// exists with the same type and compatible dims, a batching model's inputs and outputs all have a
// free first dim. Errors name the model, tensor, field, expected and actual value.
Status complete_model_config(inference::ModelConfig& config, const std::string& model_name, const Session& session);

// The devices a session of an instance group runs on, in SessionOptions::devices' terms.
std::vector<std::string> instance_devices(const inference::ModelInstanceGroup& group,
                                          const std::vector<std::string>& default_devices);

}  // namespace hi::server
