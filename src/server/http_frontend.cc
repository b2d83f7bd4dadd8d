#include "http_frontend.h"

#include <google/protobuf/util/json_util.h>
#include <httplib.h>

#include <future>
#include <nlohmann/json.hpp>

#include "hipinfer/version.h"
#include "http_codec.h"

namespace hi::server {
namespace {

using nlohmann::json;

// Model routes: /v2/models/{model}[/versions/{version}]{suffix}
std::string model_route(const std::string& suffix) { return "/v2/models/([^/]+)(?:/versions/([^/]+))?" + suffix; }

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void send_error(httplib::Response& res, const Error& e) {
  res.status = http_status(e.code);
  res.set_content(error_json(e.message), "application/json");
}

Error status_error(const Status& s) {
  return make_error(s.code() == StatusCode::kNotFound ? ErrorCode::kNotFound : ErrorCode::kUnavailable, s.message());
}

json tensor_metadata_json(const std::vector<TensorMetadata>& tensors) {
  json list = json::array();
  for (const auto& t : tensors) list.push_back({{"name", t.name}, {"datatype", t.datatype}, {"shape", t.shape}});
  return list;
}

// Protobuf's JSON writes int64 as strings; Triton's clients (perf_analyzer among them) read the
// config's dims and microsecond fields as numbers, so those are turned back into numbers.
void int64_strings_to_numbers(json& j) {
  if (j.is_object() || j.is_array()) {
    for (auto& item : j) int64_strings_to_numbers(item);
  } else if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (!s.empty() && s.size() < 20 &&
        (std::isdigit(static_cast<unsigned char>(s[0])) || (s[0] == '-' && s.size() > 1)) &&
        s.find_first_not_of("-0123456789", 1) == std::string::npos)
      j = std::stoll(s);
  }
}

json config_json(const inference::ModelConfig& config) {
  std::string text;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(config, &text, options);
  json j = json::parse(text);
  // Only numeric fields: names and strings of the config stay strings even when they look numeric.
  for (auto* tensors : {&j["input"], &j["output"]})
    for (auto& t : *tensors) int64_strings_to_numbers(t["dims"]);
  if (j.contains("dynamic_batching")) {
    auto& db = j["dynamic_batching"];
    int64_strings_to_numbers(db["max_queue_delay_microseconds"]);
    if (db.contains("default_queue_policy")) int64_strings_to_numbers(db["default_queue_policy"]);
  }
  if (j.contains("version_policy")) int64_strings_to_numbers(j["version_policy"]);
  return j;
}

json duration_json(int64_t count, int64_t ns) { return {{"count", count}, {"ns", ns}}; }

json statistics_json(const std::vector<ModelStatisticsEntry>& entries) {
  json list = json::array();
  for (const auto& e : entries) {
    const RunnerStats& s = e.stats;
    json batches = json::array();
    for (const auto& [size, runs] : s.batches)
      batches.push_back({{"batch_size", size},
                         {"compute_input", duration_json(runs.first, 0)},
                         {"compute_infer", duration_json(runs.first, runs.second)},
                         {"compute_output", duration_json(runs.first, 0)}});
    const int64_t last_ms =
        s.last_inference.time_since_epoch().count() == 0
            ? 0
            : std::chrono::duration_cast<std::chrono::milliseconds>(s.last_inference.time_since_epoch()).count();
    list.push_back({{"name", e.name},
                    {"version", e.version},
                    {"last_inference", last_ms},
                    {"inference_count", s.inference_count},
                    {"execution_count", s.execution_count},
                    {"inference_stats",
                     {{"success", duration_json(s.success, s.success_ns)},
                      {"fail", duration_json(s.failure, s.failure_ns)},
                      {"queue", duration_json(s.success, s.queue_ns)},
                      {"compute_input", duration_json(s.success, 0)},
                      {"compute_infer", duration_json(s.success, s.compute_ns)},
                      {"compute_output", duration_json(s.success, 0)},
                      {"cache_hit", duration_json(0, 0)},
                      {"cache_miss", duration_json(0, 0)}}},
                    {"batch_stats", batches}});
  }
  return {{"model_stats", list}};
}

std::string match(const httplib::Request& req, size_t i) { return i < req.matches.size() ? req.matches[i].str() : ""; }

void handle_infer(InferenceServer& server, const httplib::Request& req, const std::string& body,
                  httplib::Response& res) {
  const std::string model = match(req, 1), version = match(req, 2);
  int64_t header_length = -1;
  if (req.has_header("Inference-Header-Content-Length")) {
    const std::string value = req.get_header_value("Inference-Header-Content-Length");
    char* end = nullptr;
    header_length = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || header_length < 0) {
      Error e = make_error(ErrorCode::kInvalidArgument,
                           str("Inference-Header-Content-Length is \"", value, "\", expected a byte count"));
      server.reject(model, version, "", e, "http");
      return send_error(res, e);
    }
  }
  InferRequest request;
  HttpResponseForm form;
  if (Error e = parse_infer_request(body, header_length, &request, &form); !e.ok()) {
    server.reject(model, version, request.id, e, "http");
    return send_error(res, e);
  }
  const std::string id = request.id;
  std::promise<InferResult> promise;
  auto answer = promise.get_future();
  server.infer(
      model, version, std::move(request), [&promise](InferResult&& r) { promise.set_value(std::move(r)); }, "http");
  InferResult result = answer.get();
  if (!result.error.ok()) return send_error(res, result.error);
  Error e;
  auto runner = server.find(model, version, &e);
  std::vector<std::string> order;
  if (!form.outputs.empty()) {
    for (const auto& o : form.outputs) order.push_back(o.name);
  } else if (runner) {
    for (const auto& o : runner->config().output()) order.push_back(o.name());
  } else {
    for (const auto& [name, t] : result.outputs) order.push_back(name);
  }
  const std::string resolved = runner ? std::to_string(runner->version()) : version;
  HttpBody reply = make_infer_response(model, resolved, id, result.outputs, order, form);
  if (reply.header_length >= 0) {
    res.set_header("Inference-Header-Content-Length", std::to_string(reply.header_length));
    res.set_content(std::move(reply.data), "application/octet-stream");
  } else {
    res.set_content(std::move(reply.data), "application/json");
  }
}

void add_model_routes(httplib::Server& http, InferenceServer& server) {
  http.Get(model_route("/ready"), [&server](const httplib::Request& req, httplib::Response& res) {
    res.status = server.model_ready(match(req, 1), match(req, 2)) ? 200 : 400;
  });
  http.Get(model_route("/config"), [&server](const httplib::Request& req, httplib::Response& res) {
    auto config = server.config(match(req, 1), match(req, 2));
    if (!config.is_ok()) return send_error(res, status_error(config.status()));
    send_json(res, 200, config_json(config.value()));
  });
  http.Get(model_route("/stats"), [&server](const httplib::Request& req, httplib::Response& res) {
    auto stats = server.statistics(match(req, 1), match(req, 2));
    if (!stats.is_ok()) return send_error(res, status_error(stats.status()));
    send_json(res, 200, statistics_json(stats.value()));
  });
  http.Get("/v2/models/stats", [&server](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, statistics_json(server.statistics("", "").value()));
  });
  http.Get(model_route(""), [&server](const httplib::Request& req, httplib::Response& res) {
    auto meta = server.metadata(match(req, 1), match(req, 2));
    if (!meta.is_ok()) return send_error(res, status_error(meta.status()));
    send_json(res, 200,
              {{"name", meta->name},
               {"versions", meta->versions},
               {"platform", meta->platform},
               {"inputs", tensor_metadata_json(meta->inputs)},
               {"outputs", tensor_metadata_json(meta->outputs)}});
  });
  // The body is read through a content reader: cpp-httplib's own reading parses a body whose
  // Content-Type is application/x-www-form-urlencoded (what curl -d and urllib send by default) as
  // a form and answers 413 past 8 KiB, so JSON sent that way would be refused.
  http.Post(model_route("/infer"),
            [&server](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read) {
              std::string body;
              if (!read([&body](const char* data, size_t size) {
                    body.append(data, size);
                    return true;
                  }))
                return;  // the client went away or the body is past the limit (cpp-httplib sets the status)
              handle_infer(server, req, body, res);
            });
}

void add_repository_routes(httplib::Server& http, InferenceServer& server) {
  http.Post("/v2/repository/index", [&server](const httplib::Request& req, httplib::Response& res) {
    bool ready_only = false;
    if (!req.body.empty()) {
      json body = json::parse(req.body, nullptr, false);
      if (body.is_discarded() || !body.is_object())
        return send_error(res, make_error(ErrorCode::kInvalidArgument, "the index request body is not a JSON object"));
      if (body.contains("ready")) ready_only = body["ready"].is_boolean() && body["ready"].get<bool>();
    }
    json list = json::array();
    for (const auto& m : server.index(ready_only)) {
      json entry = {{"name", m.name}, {"state", m.state}};
      if (!m.version.empty()) entry["version"] = m.version;
      if (!m.reason.empty()) entry["reason"] = m.reason;
      list.push_back(std::move(entry));
    }
    send_json(res, 200, list);
  });
  http.Post("/v2/repository/models/([^/]+)/(load|unload)",
            [&server](const httplib::Request& req, httplib::Response& res) {
              const std::string model = match(req, 1);
              Error e = match(req, 2) == "load" ? server.load(model) : server.unload(model);
              if (!e.ok()) return send_error(res, e);
              send_json(res, 200, json::object());
            });
}

void add_server_routes(httplib::Server& http, InferenceServer& server) {
  http.Get("/v2/health/live",
           [&server](const httplib::Request&, httplib::Response& res) { res.status = server.live() ? 200 : 503; });
  http.Get("/v2/health/ready",
           [&server](const httplib::Request&, httplib::Response& res) { res.status = server.ready() ? 200 : 503; });
  http.Get("/v2", [](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200,
              {{"name", "hipinfer"},
               {"version", hi::version_string()},
               {"extensions", {"binary_tensor_data", "model_configuration", "statistics", "model_repository"}}});
  });
}

}  // namespace

Result<std::unique_ptr<HttpFrontend>> HttpFrontend::start(InferenceServer& server, const HttpOptions& options,
                                                          bool metrics_only) {
  std::unique_ptr<HttpFrontend> frontend(new HttpFrontend());
  auto http = std::make_unique<httplib::Server>();
  http->new_task_queue = [threads = options.threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  http->set_payload_max_length(static_cast<size_t>(options.max_body_bytes));
  http->set_read_timeout(options.read_timeout_s, 0);
  http->set_write_timeout(options.read_timeout_s, 0);
  http->set_keep_alive_max_count(100000);
  // No TCP_NODELAY, though cpp-httplib writes a response's headers and body in two pieces, so a
  // lone client that delays its ACKs waits 40 ms for the body (perf_analyzer at concurrency 1:
  // 14.7/s over HTTP against 51/s over gRPC on ResNet-50). With it, cpp-httplib 0.11.4 drops
  // connections of concurrent clients that send "Expect: 100-continue" (curl, so perf_analyzer:
  // "Failure when receiving data from the peer" at concurrency 16).
  http->set_keep_alive_timeout(options.read_timeout_s);
  http->Get("/metrics", [&server](const httplib::Request&, httplib::Response& res) {
    res.set_content(server.metrics_text(), "text/plain; version=0.0.4");
  });
  if (!metrics_only) {
    add_server_routes(*http, server);
    add_model_routes(*http, server);
    add_repository_routes(*http, server);
  }
  http->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404)
      res.set_content(error_json(str("no such endpoint: ", req.method, " ", req.path)), "application/json");
    else if (res.status == 413)
      res.set_content(error_json("the request body is larger than the server's limit"), "application/json");
  });
  http->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::bad_alloc&) {
      what = "out of memory";
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    res.status = 500;
    res.set_content(error_json("internal error: " + what), "application/json");
  });
  const int port = options.port == 0 ? http->bind_to_any_port(options.host)
                                     : (http->bind_to_port(options.host, options.port) ? options.port : -1);
  HI_RETURN_IF(port < 0, kInvalidArgument, "cannot listen on ", options.host, ":", options.port, " for HTTP",
               metrics_only ? " metrics" : "", " (in use, or not an address of this machine)");
  frontend->port_ = port;
  frontend->http_ = std::move(http);
  frontend->thread_ = std::thread([h = frontend->http_.get()] { h->listen_after_bind(); });
  return frontend;
}

HttpFrontend::~HttpFrontend() { shutdown(); }

void HttpFrontend::shutdown() {
  if (!http_) return;
  http_->stop();  // closes the listening socket; the pool finishes the requests it has
  if (thread_.joinable()) thread_.join();
  http_.reset();
}

}  // namespace hi::server
