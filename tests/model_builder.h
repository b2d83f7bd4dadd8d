// Builds small ONNX models in tests, with the protobuf classes, to exercise the reader and
// the session on exactly the (good or bad) input a test needs.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hi::test {

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 17, int64_t ir_version = 8) {
    model_.set_ir_version(ir_version);
    model_.set_producer_name("hipinfer-test");
    auto* os = model_.add_opset_import();
    os->set_domain("");
    os->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }

  // Imports another operator set (hipinfer's own fused ops: "com.hipinfer").
  ModelBuilder& import_domain(const std::string& domain, int64_t version) {
    auto* os = model_.add_opset_import();
    os->set_domain(domain);
    os->set_version(version);
    return *this;
  }

  // dims: >= 0 known, -1 unknown; names for symbolic dims via `sym` ("" = none).
  ModelBuilder& input(const std::string& name, int32_t dtype, const std::vector<int64_t>& dims,
                      const std::vector<std::string>& sym = {}) {
    fill_value_info(model_.mutable_graph()->add_input(), name, dtype, dims, sym);
    return *this;
  }
  ModelBuilder& output(const std::string& name, int32_t dtype, const std::vector<int64_t>& dims = {},
                       bool with_shape = false) {
    auto* vi = model_.mutable_graph()->add_output();
    vi->set_name(name);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(dtype);
    if (with_shape) vi->mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int64_t d : dims) vi->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
    return *this;
  }
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(model_.graph().node_size()) : name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }
  onnx::TensorProto& initializer_f32(const std::string& name, const std::vector<int64_t>& dims,
                                     const std::vector<float>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
    return *t;
  }
  onnx::TensorProto& initializer_i64(const std::string& name, const std::vector<int64_t>& dims,
                                     const std::vector<int64_t>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return *t;
  }
  onnx::ModelProto& proto() { return model_; }
  std::string bytes() const { return model_.SerializeAsString(); }

  static void set_float(onnx::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void set_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void set_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void set_string(onnx::NodeProto& n, const std::string& name, const std::string& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }

  // A typed tensor ValueInfo (for subgraphs' inputs and outputs too).
  static void fill_value_info(onnx::ValueInfoProto* vi, const std::string& name, int32_t dtype,
                              const std::vector<int64_t>& dims, const std::vector<std::string>& sym = {}) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(dtype);
    auto* shape = tt->mutable_shape();
    for (size_t i = 0; i < dims.size(); ++i) {
      auto* d = shape->add_dim();
      if (dims[i] >= 0) d->set_dim_value(dims[i]);
      else if (i < sym.size() && !sym[i].empty()) d->set_dim_param(sym[i]);
    }
  }

 private:
  onnx::ModelProto model_;
};

}  // namespace hi::test
