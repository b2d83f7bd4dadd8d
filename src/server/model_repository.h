// A model repository in Triton's layout: DIR/<model>/config.pbtxt (optional) and
// DIR/<model>/<version>/model.onnx, with version numbers as folder names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hipinfer/status.h"
#include "model_config.pb.h"

namespace hi::server {

struct ModelVersionFile {
  int64_t version = 0;
  std::string path;  // the .onnx file
};

// What the repository says of one model: its config (as written, not yet completed) and the
// versions its version_policy selects (default: the latest one), highest first.
struct ModelSource {
  std::string name;
  inference::ModelConfig config;
  std::vector<ModelVersionFile> versions;
  std::vector<std::string> warnings;
};

// The model folders in DIR, sorted; errors name DIR when it cannot be read.
Result<std::vector<std::string>> list_repository(const std::string& dir);
// Reads DIR/<name>: its config.pbtxt and version folders. Errors name the folder or file.
Result<ModelSource> read_model_source(const std::string& dir, const std::string& name);
// A single model file served as version 1 with a config taken wholly from the model (--model NAME=PATH).
Result<ModelSource> single_file_source(const std::string& name, const std::string& path);

}  // namespace hi::server
