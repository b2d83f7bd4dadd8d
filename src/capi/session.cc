// hi_session: creation, its inputs and outputs, and running it.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "capi/handles.h"

using namespace hi;
using capi::check;
using capi::guarded;

namespace {

Status create_session(const hi_env* env, const hi_session_options* options, hi_session** out,
                      const std::function<Result<std::unique_ptr<Session>>(const SessionOptions&)>& make) {
  HI_CAPI_REQUIRE(out);
  *out = nullptr;
  HI_RETURN_IF_ERROR(check(env, "env"));
  if (options != nullptr) HI_RETURN_IF_ERROR(check(options, "options"));
  HI_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, make(options ? options->options : SessionOptions{}));
  if (env->level <= HI_LOG_WARNING)
    for (const std::string& w : session->warnings()) std::fprintf(stderr, "hipinfer: warning: %s\n", w.c_str());
  std::string summary = session->placement().summary();
  *out = capi::create<hi_session>(hi_session{std::move(session), std::move(summary)});
  return Status::ok();
}

enum class Io { kInput, kOutput };

// The session's input or output at `index`, checked.
Result<const TensorInfo*> io_info(const hi_session* session, Io io, size_t index) {
  HI_RETURN_IF_ERROR(check(session, "session"));
  const auto& list = io == Io::kInput ? session->session->inputs() : session->session->outputs();
  HI_RETURN_IF(index >= list.size(), kInvalidArgument, "'index' is ", index, " but the model has ", list.size(),
               io == Io::kInput ? " inputs" : " outputs");
  return &list[index];
}

Status io_count(const hi_session* session, Io io, size_t* out) {
  HI_RETURN_IF_ERROR(check(session, "session"));
  HI_CAPI_REQUIRE(out);
  *out = io == Io::kInput ? session->session->inputs().size() : session->session->outputs().size();
  return Status::ok();
}

Status io_name(const hi_session* session, Io io, size_t index, const char** out) {
  HI_ASSIGN_OR_RETURN(const TensorInfo* info, io_info(session, io, index));
  HI_CAPI_REQUIRE(out);
  *out = info->name.c_str();
  return Status::ok();
}

Status io_type(const hi_session* session, Io io, size_t index, hi_element_type* out) {
  HI_ASSIGN_OR_RETURN(const TensorInfo* info, io_info(session, io, index));
  HI_CAPI_REQUIRE(out);
  *out = static_cast<hi_element_type>(info->dtype);
  return Status::ok();
}

Status io_shape(const hi_session* session, Io io, size_t index, int64_t* dims, size_t capacity, int64_t* rank) {
  HI_ASSIGN_OR_RETURN(const TensorInfo* info, io_info(session, io, index));
  HI_CAPI_REQUIRE(rank);
  if (!info->rank_known) {
    *rank = -1;
    return Status::ok();
  }
  *rank = static_cast<int64_t>(info->shape.size());
  HI_RETURN_IF(capacity < info->shape.size(), kInvalidArgument, "'capacity' is ", capacity, " but '", info->name,
               "' has rank ", info->shape.size());
  HI_RETURN_IF(dims == nullptr && !info->shape.empty(), kInvalidArgument, "'dims' is NULL");
  std::copy(info->shape.begin(), info->shape.end(), dims);
  return Status::ok();
}

Result<TensorMap> gather_inputs(const char* const* names, const hi_value* const* values, size_t count) {
  HI_RETURN_IF(count > 0 && names == nullptr, kInvalidArgument, "'input_names' is NULL but 'input_count' is ", count);
  HI_RETURN_IF(count > 0 && values == nullptr, kInvalidArgument, "'inputs' is NULL but 'input_count' is ", count);
  TensorMap inputs;
  for (size_t i = 0; i < count; ++i) {
    HI_RETURN_IF(names[i] == nullptr, kInvalidArgument, "'input_names[", i, "]' is NULL");
    HI_RETURN_IF_ERROR(check(values[i], str("inputs[", i, "]").c_str()));
    HI_RETURN_IF(!inputs.emplace(names[i], values[i]->tensor).second, kInvalidArgument, "input '", names[i],
                 "' is given twice (input_names[", i, "])");
  }
  return inputs;
}

Result<std::vector<std::string>> output_list(const Session& session, const char* const* names, size_t count) {
  std::vector<std::string> wanted;
  if (names == nullptr) {
    HI_RETURN_IF(count != session.outputs().size(), kInvalidArgument,
                 "'output_names' is NULL (all outputs) but 'output_count' is ", count, ", the model has ",
                 session.outputs().size(), " outputs");
    for (const TensorInfo& o : session.outputs()) wanted.push_back(o.name);
    return wanted;
  }
  for (size_t i = 0; i < count; ++i) {
    HI_RETURN_IF(names[i] == nullptr, kInvalidArgument, "'output_names[", i, "]' is NULL");
    wanted.emplace_back(names[i]);
  }
  return wanted;
}

// A value the caller gave for an output must hold exactly the result's type and shape.
Status check_given_output(const hi_value* given, const std::string& name, const Tensor& result) {
  const Tensor& t = given->tensor;
  HI_RETURN_IF(t.dtype() != result.dtype() || t.shape() != result.shape(), kInvalidArgument, "output '", name,
               "': the value given holds ", t.type_string(), " but the result is ", result.type_string());
  return Status::ok();
}

void copy_into(hi_value* given, const Tensor& result) {
  if (result.dtype() == DType::kString) {
    for (int64_t i = 0; i < result.numel(); ++i) given->tensor.strings()[i] = result.strings()[i];
  } else if (result.nbytes() > 0) {
    std::memcpy(given->tensor.raw(), result.raw(), result.nbytes());
  }
}

Status run_session(hi_session* session, const hi_run_options* run_options, const char* const* input_names,
                   const hi_value* const* inputs, size_t input_count, const char* const* output_names,
                   size_t output_count, hi_value** outputs) {
  HI_RETURN_IF_ERROR(check(session, "session"));
  if (run_options != nullptr) HI_RETURN_IF_ERROR(check(run_options, "run_options"));
  HI_ASSIGN_OR_RETURN(TensorMap feeds, gather_inputs(input_names, inputs, input_count));
  HI_ASSIGN_OR_RETURN(std::vector<std::string> wanted, output_list(*session->session, output_names, output_count));
  HI_RETURN_IF(output_count > 0 && outputs == nullptr, kInvalidArgument, "'outputs' is NULL but 'output_count' is ",
               output_count);
  for (size_t i = 0; i < output_count; ++i)
    if (outputs[i] != nullptr) HI_RETURN_IF_ERROR(check(outputs[i], str("outputs[", i, "]").c_str()));

  HI_ASSIGN_OR_RETURN(TensorMap results,
                      session->session->run(feeds, wanted, nullptr, run_options ? &run_options->options : nullptr));
  // Check every value the caller gave before writing any, so a mismatch changes nothing.
  for (size_t i = 0; i < output_count; ++i)
    if (outputs[i] != nullptr) HI_RETURN_IF_ERROR(check_given_output(outputs[i], wanted[i], results.at(wanted[i])));
  std::vector<size_t> created;
  try {
    for (size_t i = 0; i < output_count; ++i) {
      if (outputs[i] != nullptr) continue;
      outputs[i] = capi::create<hi_value>(hi_value{results.at(wanted[i])});
      created.push_back(i);
    }
  } catch (...) {
    for (size_t i : created) {
      (void)capi::destroy(outputs[i], "outputs");
      outputs[i] = nullptr;
    }
    throw;
  }
  for (size_t i = 0; i < output_count; ++i)
    if (std::find(created.begin(), created.end(), i) == created.end()) copy_into(outputs[i], results.at(wanted[i]));
  return Status::ok();
}

}  // namespace

extern "C" {

hi_status* hi_session_create(const hi_env* env, const char* model_path, const hi_session_options* options,
                             hi_session** out) {
  return guarded(__func__, [&]() -> Status {
    HI_CAPI_REQUIRE(model_path);
    return create_session(env, options, out, [&](const SessionOptions& o) { return Session::create(model_path, o); });
  });
}

hi_status* hi_session_create_from_bytes(const hi_env* env, const void* model_data, size_t size,
                                        const hi_session_options* options, hi_session** out) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF(model_data == nullptr && size > 0, kInvalidArgument, "'model_data' is NULL but 'size' is ", size);
    return create_session(env, options, out,
                          [&](const SessionOptions& o) { return Session::create_from_bytes(model_data, size, o); });
  });
}

hi_status* hi_session_free(hi_session* session) {
  return guarded(__func__, [&] { return capi::destroy(session, "session"); });
}

hi_status* hi_session_get_input_count(const hi_session* session, size_t* out) {
  return guarded(__func__, [&] { return io_count(session, Io::kInput, out); });
}
hi_status* hi_session_get_output_count(const hi_session* session, size_t* out) {
  return guarded(__func__, [&] { return io_count(session, Io::kOutput, out); });
}
hi_status* hi_session_get_input_name(const hi_session* session, size_t index, const char** out) {
  return guarded(__func__, [&] { return io_name(session, Io::kInput, index, out); });
}
hi_status* hi_session_get_output_name(const hi_session* session, size_t index, const char** out) {
  return guarded(__func__, [&] { return io_name(session, Io::kOutput, index, out); });
}
hi_status* hi_session_get_input_type(const hi_session* session, size_t index, hi_element_type* out) {
  return guarded(__func__, [&] { return io_type(session, Io::kInput, index, out); });
}
hi_status* hi_session_get_output_type(const hi_session* session, size_t index, hi_element_type* out) {
  return guarded(__func__, [&] { return io_type(session, Io::kOutput, index, out); });
}
hi_status* hi_session_get_input_shape(const hi_session* session, size_t index, int64_t* dims, size_t capacity,
                                      int64_t* rank) {
  return guarded(__func__, [&] { return io_shape(session, Io::kInput, index, dims, capacity, rank); });
}
hi_status* hi_session_get_output_shape(const hi_session* session, size_t index, int64_t* dims, size_t capacity,
                                       int64_t* rank) {
  return guarded(__func__, [&] { return io_shape(session, Io::kOutput, index, dims, capacity, rank); });
}

hi_status* hi_session_get_placement_summary(const hi_session* session, const char** out) {
  return guarded(__func__, [&]() -> Status {
    HI_RETURN_IF_ERROR(check(session, "session"));
    HI_CAPI_REQUIRE(out);
    *out = session->placement_summary.c_str();
    return Status::ok();
  });
}

hi_status* hi_session_run(hi_session* session, const hi_run_options* run_options, const char* const* input_names,
                          const hi_value* const* inputs, size_t input_count, const char* const* output_names,
                          size_t output_count, hi_value** outputs) {
  return guarded(__func__, [&] {
    return run_session(session, run_options, input_names, inputs, input_count, output_names, output_count, outputs);
  });
}

}  // extern "C"
