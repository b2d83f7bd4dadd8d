// `hipinfer zoo`: writes a built-in model (ResNet-50, MobileNetV2, BERT) with random weights.
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "cli.h"
#include "hipinfer/zoo.h"

namespace hi::cli {
namespace {

const char* const kImageOptions[] = {"--image-size", "--classes"};
const char* const kEncoderOptions[] = {"--layers", "--hidden", "--heads", "--sequence", "--intermediate", "--vocab"};

// 109482240 -> "109,482,240"
std::string with_commas(int64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  const size_t first = digits.size() % 3 == 0 ? 3 : digits.size() % 3;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (i == first || (i > first && (i - first) % 3 == 0))) out += ',';
    out += digits[i];
  }
  return out;
}

int list_models() {
  std::printf("models (hipinfer zoo NAME -o FILE):\n");
  for (const auto& m : zoo::zoo_models()) std::printf("  %-12s %s\n", m.name.c_str(), m.description.c_str());
  return kExitOk;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "hipinfer: error: %s (see 'hipinfer zoo --help')\n", message.c_str());
  return kExitUsage;
}

// Reads an integer option into `field`; false (after printing) when the value is not an integer.
bool read_int(const Args& args, const char* name, int64_t& field, int& exit_code) {
  auto v = args.get_int(name, field);
  if (!v.is_ok()) {
    exit_code = usage_error(v.status().message());
    return false;
  }
  field = v.value();
  return true;
}

}  // namespace

const CommandSpec* cmd_zoo_spec() {
  static const CommandSpec spec{
      "zoo",
      "[NAME -o FILE] [options]",
      "write a built-in model (ResNet-50, MobileNetV2, BERT) with random weights",
      "The models have the layout PyTorch exports for the torchvision and Hugging Face originals,\n"
      "with deterministic, well-scaled random weights (a pure function of the options and --seed):\n"
      "for demos, benchmarks and tests without downloads. They are not trained.\n"
      "With no NAME, or with --list, lists the models.",
      {
          {"--output", "-o", "FILE", "where to write the model (default: NAME.onnx)"},
          {"--list", "", "", "list the models"},
          {"--opset", "", "N", "default-domain opset to write (10..21; default 17)"},
          {"--seed", "", "N", "random seed for the weights (default 1)"},
          {"--batch", "", "N", "fixed batch size (default: a symbolic 'batch' dimension)"},
          {"--image-size", "", "N", "image models: input height and width (default 224)"},
          {"--classes", "", "N", "image models: number of classes (default 1000)"},
          {"--layers", "", "N", "bert: encoder layers (default 12)"},
          {"--hidden", "", "N", "bert: hidden size (default 768)"},
          {"--heads", "", "N", "bert: attention heads; must divide --hidden (default 12)"},
          {"--sequence", "", "N", "bert: sequence length, 0 for a symbolic 'sequence' dimension (default 128)"},
          {"--intermediate", "", "N", "bert: feed-forward size (default 4 x hidden)"},
          {"--vocab", "", "N", "bert: vocabulary size (default 30522)"},
      },
      0,
      1};
  return &spec;
}

int cmd_zoo(const Args& args) {
  if (args.has("--list") || args.positional().empty()) return list_models();
  const std::string name = args.positional()[0];

  const zoo::ZooModelInfo* info = nullptr;
  const auto models = zoo::zoo_models();
  for (const auto& m : models)
    if (m.name == name) info = &m;
  if (!info) {
    // Let the library say it, with the list of known names.
    return report_error(zoo::write_zoo_model(name, {}, ""));
  }
  const bool image = info->kind == "image";
  for (const char* o : image ? std::vector<const char*>(std::begin(kEncoderOptions), std::end(kEncoderOptions))
                             : std::vector<const char*>(std::begin(kImageOptions), std::end(kImageOptions))) {
    if (args.has(o)) return usage_error(str("option ", o, " does not apply to ", name));
  }

  zoo::ZooOptions options;
  int code = kExitOk;
  int64_t seed = 1;
  if (!read_int(args, "--opset", options.opset, code) || !read_int(args, "--seed", seed, code) ||
      !read_int(args, "--image-size", options.image_size, code) ||
      !read_int(args, "--classes", options.classes, code) || !read_int(args, "--layers", options.layers, code) ||
      !read_int(args, "--hidden", options.hidden, code) || !read_int(args, "--heads", options.heads, code) ||
      !read_int(args, "--sequence", options.sequence, code) ||
      !read_int(args, "--intermediate", options.intermediate, code) || !read_int(args, "--vocab", options.vocab, code))
    return code;
  if (seed < 0) return usage_error(str("--seed must be a non-negative integer, got ", seed));
  options.seed = static_cast<uint64_t>(seed);
  if (args.has("--batch")) {
    if (!read_int(args, "--batch", options.batch, code)) return code;
    if (options.batch < 1) return usage_error(str("--batch must be at least 1, got ", options.batch));
    options.symbolic_batch = false;
  }

  const std::string path = args.get("--output", name + ".onnx");
  zoo::ZooModelStats stats;
  const Status status = zoo::write_zoo_model(name, options, path, &stats);
  if (!status.is_ok()) return report_error(status);
  std::printf("wrote %s to %s (%s, %s parameters, opset %lld)\n", name.c_str(), path.c_str(),
              human_bytes(static_cast<double>(stats.bytes)).c_str(), with_commas(stats.parameters).c_str(),
              static_cast<long long>(options.opset));
  return kExitOk;
}

}  // namespace hi::cli
