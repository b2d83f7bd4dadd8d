// Small models for the server's tests, written to a temporary folder.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "model_builder.h"

namespace hi::server::test {

// y = x * 2 over float32[batch, 3] (the batch dim free), and an int64 passthrough "ids" -> "ids_out".
inline std::string write_double_model(const std::filesystem::path& dir, const std::string& file = "model.onnx") {
  hi::test::ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {-1, 3}, {"batch", ""});
  b.input("ids", onnx::TensorProto::INT64, {-1, 2}, {"batch", ""});
  b.initializer_f32("two", {}, {2.0f});
  b.node("Mul", {"x", "two"}, {"y"});
  b.node("Identity", {"ids"}, {"ids_out"});
  b.output("y", onnx::TensorProto::FLOAT);
  b.output("ids_out", onnx::TensorProto::INT64);
  std::filesystem::create_directories(dir);
  const auto path = dir / file;
  std::ofstream(path, std::ios::binary) << b.bytes();
  return path.string();
}

inline std::filesystem::path temp_dir(const std::string& name) {
  auto dir =
      std::filesystem::temp_directory_path() / ("hipinfer_server_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace hi::server::test
