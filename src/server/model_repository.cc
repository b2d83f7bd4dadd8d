#include "model_repository.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "model_config.h"

namespace fs = std::filesystem;

namespace hi::server {
namespace {

bool is_version_folder(const fs::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  return entry.is_directory() && !name.empty() && name.size() < 19 &&
         std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Which of the versions found (highest first) the policy keeps.
Result<std::vector<ModelVersionFile>> apply_policy(const inference::ModelVersionPolicy& policy,
                                                   std::vector<ModelVersionFile> found, const std::string& where) {
  if (policy.has_all()) return found;
  if (policy.has_specific()) {
    std::vector<ModelVersionFile> kept;
    for (int64_t v : policy.specific().versions()) {
      auto it = std::find_if(found.begin(), found.end(), [&](const auto& f) { return f.version == v; });
      HI_RETURN_IF(it == found.end(), kNotFound, where, ": version_policy names version ", v,
                   ", but there is no such folder with a model file");
      kept.push_back(*it);
    }
    std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.version > b.version; });
    return kept;
  }
  const uint32_t keep = policy.has_latest() && policy.latest().num_versions() > 0 ? policy.latest().num_versions() : 1;
  if (found.size() > keep) found.resize(keep);
  return found;
}

}  // namespace

Result<std::vector<std::string>> list_repository(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory() && it->path().filename().string()[0] != '.') names.push_back(it->path().filename().string());
  HI_RETURN_IF(ec, kNotFound, "cannot read the model repository ", dir, ": ", ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

Result<ModelSource> read_model_source(const std::string& dir, const std::string& name) {
  const fs::path folder = fs::path(dir) / name;
  const std::string where = "model '" + name + "' (" + folder.string() + ")";
  std::error_code ec;
  HI_RETURN_IF(name.empty() || name.find('/') != std::string::npos || name == "." || name == ".." ||
                   !fs::is_directory(folder, ec),
               kNotFound, "no model '", name, "' in the repository ", dir);
  ModelSource source;
  source.name = name;
  const fs::path config_path = folder / "config.pbtxt";
  if (fs::exists(config_path, ec)) {
    HI_ASSIGN_OR_RETURN(source.config, read_model_config(config_path.string(), &source.warnings));
  }
  const std::string file_name =
      source.config.default_model_filename().empty() ? "model.onnx" : source.config.default_model_filename();
  std::vector<ModelVersionFile> found;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (!is_version_folder(*it)) continue;
    const fs::path file = it->path() / file_name;
    if (!fs::is_regular_file(file, ec)) {
      source.warnings.push_back(
          str(where, ": version folder ", it->path().filename().string(), " has no ", file_name, "; skipped"));
      continue;
    }
    found.push_back({std::stoll(it->path().filename().string()), file.string()});
  }
  HI_RETURN_IF(ec, kNotFound, "cannot read ", folder.string(), ": ", ec.message());
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.version > b.version; });
  HI_RETURN_IF(found.empty(), kNotFound, where, ": no version folder with a ", file_name, " (expected ",
               (folder / "1" / file_name).string(), ")");
  HI_ASSIGN_OR_RETURN(source.versions, apply_policy(source.config.version_policy(), std::move(found), where));
  return source;
}

Result<ModelSource> single_file_source(const std::string& name, const std::string& path) {
  std::error_code ec;
  HI_RETURN_IF(name.empty(), kInvalidArgument, "--model ", name, "=", path, ": the model needs a name (NAME=PATH)");
  HI_RETURN_IF(!fs::is_regular_file(path, ec), kNotFound, "--model ", name, "=", path, ": no such file");
  ModelSource source;
  source.name = name;
  source.versions.push_back({1, path});
  return source;
}

}  // namespace hi::server
