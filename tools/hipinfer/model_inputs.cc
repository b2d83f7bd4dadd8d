// Inputs for a model on the command line; see model_inputs.h.
#include "model_inputs.h"

#include "hipinfer/npy.h"
#include "hipinfer/tensor_proto.h"

namespace hi::cli {

Result<Tensor> random_input(const TensorInfo& info, int64_t batch, std::mt19937_64& rng) {
  if (info.kind != "tensor")
    return error(StatusCode::kUnsupported, "input '", info.name, "' is a ", info.kind, "; pass it with --input");
  if (!info.rank_known)
    return error(StatusCode::kInvalidArgument, "input '", info.name, "' has an unknown rank; pass it with --input");
  Shape shape;
  for (size_t i = 0; i < info.shape.size(); ++i) shape.push_back(info.shape[i] >= 0 ? info.shape[i] : batch);
  Tensor t;
  try {
    t = Tensor::empty(info.dtype, shape);
  } catch (const OutOfMemory& e) {
    return error(StatusCode::kOutOfMemory, "input '", info.name, "': ", e.what);
  }
  std::normal_distribution<float> normal(0.f, 1.f);
  // Indices stay inside the axis they index (e.g. token type ids into a 2-row table).
  std::uniform_int_distribution<int> small(
      0, info.index_limit > 0 && info.index_limit < 10 ? static_cast<int>(info.index_limit) - 1 : 9);
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (info.dtype) {
      case DType::kFloat32: t.data<float>()[i] = normal(rng); break;
      case DType::kFloat64: t.data<double>()[i] = normal(rng); break;
      case DType::kFloat16: t.data<Float16>()[i] = Float16(normal(rng)); break;
      case DType::kBFloat16: t.data<BFloat16>()[i] = BFloat16(normal(rng)); break;
      case DType::kInt64: t.data<int64_t>()[i] = small(rng); break;
      case DType::kInt32: t.data<int32_t>()[i] = small(rng); break;
      case DType::kInt16: t.data<int16_t>()[i] = static_cast<int16_t>(small(rng)); break;
      case DType::kInt8: t.data<int8_t>()[i] = static_cast<int8_t>(small(rng)); break;
      case DType::kUInt8: t.data<uint8_t>()[i] = static_cast<uint8_t>(small(rng)); break;
      case DType::kUInt16: t.data<uint16_t>()[i] = static_cast<uint16_t>(small(rng)); break;
      case DType::kUInt32: t.data<uint32_t>()[i] = static_cast<uint32_t>(small(rng)); break;
      case DType::kUInt64: t.data<uint64_t>()[i] = static_cast<uint64_t>(small(rng)); break;
      case DType::kBool: t.data<bool>()[i] = small(rng) >= 5; break;
      case DType::kString: t.strings()[i] = "hipinfer"; break;
      default:
        return error(StatusCode::kUnsupported, "cannot make random values for input '", info.name, "' of type ",
                     dtype_name(info.dtype));
    }
  }
  return t;
}

Status check_input_specs(const std::vector<std::string>& specs) {
  for (const auto& spec : specs) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      return error(StatusCode::kInvalidArgument, "--input expects NAME=FILE.npy, got '", spec, "'");
  }
  return Status::ok();
}

Result<TensorMap> make_model_inputs(const Session& session, const std::vector<std::string>& specs, int64_t batch,
                                    uint64_t seed) {
  HI_RETURN_IF_ERROR(check_input_specs(specs));
  TensorMap inputs;
  for (const auto& spec : specs) {
    const auto eq = spec.find('=');
    const std::string file = spec.substr(eq + 1);
    const bool proto = file.size() > 3 && file.compare(file.size() - 3, 3, ".pb") == 0;
    auto t = proto ? read_tensor_proto(file) : read_npy(file);
    if (!t.is_ok()) return t.status();
    inputs[spec.substr(0, eq)] = std::move(t).value();
  }
  std::mt19937_64 rng(seed);
  for (const auto& info : session.inputs()) {
    if (inputs.count(info.name)) continue;
    auto t = random_input(info, batch, rng);
    if (!t.is_ok()) return t.status();
    inputs[info.name] = std::move(t).value();
  }
  return inputs;
}

}  // namespace hi::cli
