#include "model_config.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <fstream>
#include <sstream>

#include "datatype.h"

namespace hi::server {
namespace {

using inference::ModelConfig;

class CollectErrors : public google::protobuf::io::ErrorCollector {
 public:
  explicit CollectErrors(std::string path) : path_(std::move(path)) {}
  void AddError(int line, int column, const std::string& message) override {
    if (error_.empty()) error_ = str(path_, ":", line + 1, ":", column + 1, ": ", message);
  }
  void AddWarning(int line, int column, const std::string& message) override {
    warnings_.push_back(str(path_, ":", line + 1, ":", column + 1, ": ", message, " (ignored)"));
  }
  std::string error_;
  std::vector<std::string> warnings_;

 private:
  std::string path_;
};

std::string dims_string(const google::protobuf::RepeatedField<int64_t>& dims) {
  return shape_to_string(Shape(dims.begin(), dims.end()));
}

// The model's dims as the config states them: without the batch dim when the model batches.
Shape config_dims(const TensorInfo& info, bool batching) {
  Shape dims = info.shape;
  if (batching && !dims.empty()) dims.erase(dims.begin());
  return dims;
}

// One config tensor (ModelInput or ModelOutput) against the model's tensor of that name.
template <typename ConfigTensor>
Status check_tensor(ConfigTensor& tensor, const TensorInfo& info, bool batching, const std::string& where) {
  HI_RETURN_IF(info.kind != "tensor", kUnsupported, where, " '", info.name, "' is a ", info.kind,
               "; the inference protocol carries tensors only");
  const inference::DataType model_type = config_type(info.dtype);
  HI_RETURN_IF(model_type == inference::TYPE_INVALID, kUnsupported, where, " '", info.name, "' is ",
               dtype_name(info.dtype), ", which the inference protocol has no data type for");
  if (tensor.data_type() == inference::TYPE_INVALID) tensor.set_data_type(model_type);
  HI_RETURN_IF(tensor.data_type() != model_type, kInvalidArgument, where, " '", info.name, "': data_type is ",
               inference::DataType_Name(tensor.data_type()), " but the model has ",
               inference::DataType_Name(model_type));
  if (batching) {
    HI_RETURN_IF(!info.rank_known || info.shape.empty() || info.shape[0] >= 0, kInvalidArgument, where, " '", info.name,
                 "' has shape ", info.to_string(),
                 ", but max_batch_size > 0 needs a free first (batch) dim on every input and output");
  }
  if (!info.rank_known) {
    HI_RETURN_IF(tensor.dims_size() == 0, kInvalidArgument, where, " '", info.name,
                 "' has no known rank in the model; give its dims in config.pbtxt");
    return Status::ok();
  }
  const Shape model_dims = config_dims(info, batching);
  if (tensor.dims_size() == 0 && !model_dims.empty()) {
    for (int64_t d : model_dims) tensor.add_dims(d);
    return Status::ok();
  }
  bool fits = static_cast<size_t>(tensor.dims_size()) == model_dims.size();
  for (size_t i = 0; fits && i < model_dims.size(); ++i)
    fits = model_dims[i] < 0 || tensor.dims(static_cast<int>(i)) == -1 ||
           tensor.dims(static_cast<int>(i)) == model_dims[i];
  HI_RETURN_IF(!fits, kInvalidArgument, where, " '", info.name, "': dims are ", dims_string(tensor.dims()),
               " but the model has ", shape_to_string(model_dims),
               batching ? " (without the batch dim, as max_batch_size > 0)" : "");
  return Status::ok();
}

template <typename ConfigTensors, typename AddTensor>
Status complete_tensors(ConfigTensors& listed, AddTensor add, const std::vector<TensorInfo>& model, bool batching,
                        const std::string& where) {
  for (const auto& t : listed) {
    bool found = false;
    for (const auto& info : model) found = found || info.name == t.name();
    if (!found) {
      std::string names;
      for (const auto& info : model) names += (names.empty() ? "" : ", ") + info.name;
      return error(StatusCode::kInvalidArgument, where, " '", t.name(), "' is not in the model (it has ", names, ")");
    }
  }
  for (const auto& info : model) {
    auto* tensor = [&]() -> decltype(&*listed.begin()) {
      for (auto& t : listed)
        if (t.name() == info.name) return &t;
      auto* added = add();
      added->set_name(info.name);
      return added;
    }();
    HI_RETURN_IF_ERROR(check_tensor(*tensor, info, batching, where));
  }
  return Status::ok();
}

}  // namespace

Result<ModelConfig> read_model_config(const std::string& path, std::vector<std::string>* warnings) {
  std::ifstream file(path, std::ios::binary);
  HI_RETURN_IF(!file, kNotFound, "cannot read ", path);
  std::stringstream text;
  text << file.rdbuf();
  ModelConfig config;
  CollectErrors errors(path);
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(true);
  if (!parser.ParseFromString(text.str(), &config) || !errors.error_.empty())
    return error(StatusCode::kInvalidArgument,
                 errors.error_.empty() ? path + ": not a model configuration" : errors.error_);
  if (warnings) warnings->insert(warnings->end(), errors.warnings_.begin(), errors.warnings_.end());
  return config;
}

Status complete_model_config(ModelConfig& config, const std::string& model_name, const Session& session) {
  const std::string where = "model '" + model_name + "'";
  if (config.name().empty()) config.set_name(model_name);
  HI_RETURN_IF(config.name() != model_name, kInvalidArgument, where, ": config.pbtxt says name: \"", config.name(),
               "\", expected the folder's name \"", model_name, "\"");
  if (config.platform().empty() && config.backend().empty()) config.set_platform("onnxruntime_onnx");
  HI_RETURN_IF(config.max_batch_size() < 0, kInvalidArgument, where, ": max_batch_size is ", config.max_batch_size(),
               ", expected 0 (no batching) or more");
  const bool batching = config.max_batch_size() > 0;
  HI_RETURN_IF(!batching && config.has_dynamic_batching(), kInvalidArgument, where,
               ": dynamic_batching needs max_batch_size > 0");
  for (int64_t size : config.dynamic_batching().preferred_batch_size())
    HI_RETURN_IF(size < 1 || size > config.max_batch_size(), kInvalidArgument, where,
                 ": dynamic_batching.preferred_batch_size ", size, " is outside [1, max_batch_size ",
                 config.max_batch_size(), "]");
  HI_RETURN_IF_ERROR(complete_tensors(
      *config.mutable_input(), [&] { return config.add_input(); }, session.inputs(), batching, where + " input"));
  HI_RETURN_IF_ERROR(complete_tensors(
      *config.mutable_output(), [&] { return config.add_output(); }, session.outputs(), batching, where + " output"));
  if (config.instance_group_size() == 0) config.add_instance_group()->set_count(1);
  for (auto& group : *config.mutable_instance_group()) {
    if (group.count() == 0) group.set_count(1);
    HI_RETURN_IF(group.count() < 0, kInvalidArgument, where, ": instance_group count is ", group.count(),
                 ", expected 1 or more");
    for (int gpu : group.gpus())
      HI_RETURN_IF(gpu != 0, kUnsupported, where, ": instance_group gpus: [", gpu,
                   "]: sessions run on the first GPU of a backend; only gpus: [0] is supported");
  }
  return Status::ok();
}

std::vector<std::string> instance_devices(const inference::ModelInstanceGroup& group,
                                          const std::vector<std::string>& default_devices) {
  switch (group.kind()) {
    case inference::ModelInstanceGroup::KIND_CPU: return {"cpu"};
    case inference::ModelInstanceGroup::KIND_GPU:
      return {"gpu", "cpu"};  // nodes without a GPU kernel fall back, with reasons
    default: return default_devices;
  }
}

}  // namespace hi::server
