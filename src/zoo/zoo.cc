// The model zoo's registry: names and descriptions, shared option checks, build and write.
#include "hipinfer/zoo.h"

#include <memory>

#include "zoo/graph_builder.h"
#include "zoo/models.h"

namespace hi::zoo {
namespace {

struct Entry {
  const char* name;
  const char* description;
  const char* kind;
  Status (*build)(GraphBuilder& g, const ZooOptions& o);
};

// The one list of zoo models. Adding one: write src/zoo/<name>.cc, declare it in models.h, add
// a row here.
constexpr Entry kModels[] = {
    {"resnet50", "ResNet-50 v1.5 image classifier (torchvision layout, 25.6M parameters at 1000 classes)", "image",
     &build_resnet50},
    {"mobilenetv2", "MobileNetV2 image classifier (torchvision layout, 3.5M parameters at 1000 classes)", "image",
     &build_mobilenetv2},
    {"bert", "BERT encoder with pooler (Hugging Face BertModel layout; BERT-base, 109M parameters, by default)",
     "encoder", &build_bert},
};

std::string known_names() {
  std::string s;
  for (const Entry& e : kModels) s += std::string(s.empty() ? "" : ", ") + e.name;
  return s;
}

// The options that shape the model, for its doc_string.
std::string describe(const Entry& e, const ZooOptions& o) {
  std::string s = str("hipinfer zoo model '", e.name, "': opset ", o.opset, ", seed ", o.seed, ", batch ",
                      o.symbolic_batch ? std::string("symbolic") : std::to_string(o.batch));
  if (std::string(e.kind) == "image") {
    s += str(", image_size ", o.image_size, ", classes ", o.classes);
  } else {
    s += str(", layers ", o.layers, ", hidden ", o.hidden, ", heads ", o.heads, ", sequence ",
             o.sequence > 0 ? std::to_string(o.sequence) : std::string("symbolic"), ", intermediate ",
             o.intermediate > 0 ? o.intermediate : 4 * o.hidden, ", vocab ", o.vocab);
  }
  return s + ". Random weights, not a trained model.";
}

Result<std::unique_ptr<GraphBuilder>> build(const std::string& name, const ZooOptions& o) {
  const Entry* entry = nullptr;
  for (const Entry& e : kModels)
    if (name == e.name) entry = &e;
  HI_RETURN_IF(!entry, kNotFound, "unknown zoo model '", name, "'; known models: ", known_names());
  HI_RETURN_IF(o.opset < GraphBuilder::kMinOpset || o.opset > GraphBuilder::kMaxOpset, kInvalidArgument, name,
               ": opset ", o.opset, " is outside the range the zoo writes (", GraphBuilder::kMinOpset, "..",
               GraphBuilder::kMaxOpset, ")");
  HI_RETURN_IF(!o.symbolic_batch && (o.batch < 1 || o.batch > (1 << 20)), kInvalidArgument, name,
               ": batch must be in 1..1048576, got ", o.batch);
  auto g = std::make_unique<GraphBuilder>(entry->name, o.opset, o.seed);
  HI_RETURN_IF_ERROR(entry->build(*g, o).with_context(entry->name));
  HI_RETURN_IF_ERROR(g->finish(describe(*entry, o)).with_context(entry->name));
  return g;
}

}  // namespace

Status check_image_options(const ZooOptions& o) {
  HI_RETURN_IF(o.image_size < 32 || o.image_size > 4096, kInvalidArgument, "image_size must be in 32..4096, got ",
               o.image_size);
  HI_RETURN_IF(o.classes < 1 || o.classes > 100000, kInvalidArgument, "classes must be in 1..100000, got ", o.classes);
  return Status::ok();
}

std::vector<ZooModelInfo> zoo_models() {
  std::vector<ZooModelInfo> models;
  for (const Entry& e : kModels) models.push_back({e.name, e.description, e.kind});
  return models;
}

Result<std::string> build_zoo_model(const std::string& name, const ZooOptions& options) {
  HI_ASSIGN_OR_RETURN(auto g, build(name, options));
  return g->serialize();
}

Status write_zoo_model(const std::string& name, const ZooOptions& options, const std::string& path,
                       ZooModelStats* stats) {
  HI_ASSIGN_OR_RETURN(auto g, build(name, options));
  HI_RETURN_IF_ERROR(g->write(path));
  if (stats) {
    stats->parameters = g->parameter_count();
    stats->bytes = g->byte_size();
  }
  return Status::ok();
}

}  // namespace hi::zoo
