// Sparse tensors in model files (SparseTensorProto): sparse initializers and Constant's
// sparse_value are read as the dense tensors they stand for, with offsets ([NNZ]) or coordinates
// ([NNZ, rank]) as indices, strings included; a bad index, shape or type is an error that names
// the tensor, the value and the bound.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hipinfer/session.h"
#include "model_builder.h"

namespace hi::test {
namespace {

void fill_sparse(onnx::SparseTensorProto* sp, const std::string& name, const std::vector<int64_t>& dims,
                 const std::vector<float>& values, const std::vector<int64_t>& indices,
                 const std::vector<int64_t>& index_dims) {
  for (int64_t d : dims) sp->add_dims(d);
  auto* v = sp->mutable_values();
  v->set_name(name);
  v->set_data_type(onnx::TensorProto::FLOAT);
  v->add_dims(static_cast<int64_t>(values.size()));
  for (float f : values) v->add_float_data(f);
  auto* i = sp->mutable_indices();
  i->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : index_dims) i->add_dims(d);
  for (int64_t k : indices) i->add_int64_data(k);
}

// y = x + w, with w a sparse initializer of shape [3, 4].
std::string add_sparse_model(const std::vector<float>& values, const std::vector<int64_t>& indices,
                             const std::vector<int64_t>& index_dims, const std::vector<int64_t>& dims = {3, 4}) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {3, 4}).output("y", onnx::TensorProto::FLOAT);
  b.node("Add", {"x", "w"}, {"y"}, "add");
  fill_sparse(b.proto().mutable_graph()->add_sparse_initializer(), "w", dims, values, indices, index_dims);
  return b.bytes();
}

Result<TensorMap> run_with_zeros(const std::string& bytes) {
  HI_ASSIGN_OR_RETURN(auto s, Session::create_from_bytes(bytes.data(), bytes.size(), SessionOptions{}));
  return s->run({{"x", Tensor::zeros(DType::kFloat32, {3, 4})}});
}

std::vector<float> values_of(const Tensor& t) { return {t.data<float>(), t.data<float>() + t.numel()}; }

TEST(SparseTensors, AnInitializerWithOffsetsIsReadDense) {
  auto out = run_with_zeros(add_sparse_model({1.5f, -2.f, 7.f}, {1, 6, 11}, {3}));
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(values_of(out.value().at("y")), (std::vector<float>{0, 1.5f, 0, 0, 0, 0, -2.f, 0, 0, 0, 0, 7.f}));
}

TEST(SparseTensors, AnInitializerWithCoordinatesIsReadDense) {
  auto out = run_with_zeros(add_sparse_model({3.f, 4.f}, {0, 3, 2, 1}, {2, 2}));
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(values_of(out.value().at("y")), (std::vector<float>{0, 0, 0, 3.f, 0, 0, 0, 0, 0, 4.f, 0, 0}));
}

TEST(SparseTensors, AnAllZeroInitializerHasNoValues) {
  auto out = run_with_zeros(add_sparse_model({}, {}, {0}));
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(values_of(out.value().at("y")), std::vector<float>(12, 0.f));
}

TEST(SparseTensors, ConstantsSparseValueIsItsDenseTensor) {
  ModelBuilder b;
  b.output("y", onnx::TensorProto::STRING);
  auto& n = b.node("Constant", {}, {"y"}, "words");
  auto* a = n.add_attribute();
  a->set_name("sparse_value");
  a->set_type(onnx::AttributeProto::SPARSE_TENSOR);
  auto* sp = a->mutable_sparse_tensor();
  sp->add_dims(2);
  sp->add_dims(2);
  auto* v = sp->mutable_values();
  v->set_data_type(onnx::TensorProto::STRING);
  v->add_dims(1);
  v->add_string_data("only");
  auto* i = sp->mutable_indices();
  i->set_data_type(onnx::TensorProto::INT64);
  i->add_dims(1);
  i->add_int64_data(2);
  const std::string bytes = b.bytes();
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), SessionOptions{});
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  auto out = s.value()->run({});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  const Tensor& y = out.value().at("y");
  ASSERT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(std::vector<std::string>(y.strings(), y.strings() + 4), (std::vector<std::string>{"", "", "only", ""}));
}

Status load(const std::string& bytes) {
  return Session::create_from_bytes(bytes.data(), bytes.size(), SessionOptions{}).status();
}

void expect_refused(const std::string& bytes, const std::vector<std::string>& phrases) {
  const Status s = load(bytes);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidModel) << s.to_string();
  for (const std::string& p : phrases) EXPECT_NE(s.message().find(p), std::string::npos) << s.message();
}

TEST(SparseTensors, BadOnesAreRefusedNamingWhatIsWrong) {
  expect_refused(add_sparse_model({1.f}, {12}, {1}),
                 {"sparse initializer 'w'", "value 0 has index 12, outside [0, 12)"});
  expect_refused(add_sparse_model({1.f}, {-1}, {1}), {"'w'", "index -1"});
  expect_refused(add_sparse_model({1.f}, {2, 4}, {1, 2}), {"'w'", "coordinate 4 on axis 1, outside [0, 4)"});
  expect_refused(add_sparse_model({1.f, 2.f}, {1, 2, 3}, {3}), {"'w'", "need [2] or [2, 2]"});
  expect_refused(add_sparse_model({1.f}, {1}, {1}, {3, -4}), {"'w'", "dim -4 is negative"});
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {3, 4}).output("y", onnx::TensorProto::FLOAT);
  b.node("Add", {"x", "w"}, {"y"}, "add");
  b.initializer_f32("w", {3, 4}, std::vector<float>(12, 1.f));
  fill_sparse(b.proto().mutable_graph()->add_sparse_initializer(), "w", {3, 4}, {1.f}, {0}, {1});
  expect_refused(b.bytes(), {"initializer 'w' is defined twice"});
  ModelBuilder unnamed;
  unnamed.input("x", onnx::TensorProto::FLOAT, {3, 4}).output("y", onnx::TensorProto::FLOAT);
  unnamed.node("Identity", {"x"}, {"y"}, "id");
  fill_sparse(unnamed.proto().mutable_graph()->add_sparse_initializer(), "", {3, 4}, {1.f}, {0}, {1});
  expect_refused(unnamed.bytes(), {"a sparse initializer has no name"});
  std::string wrong_index_type = add_sparse_model({1.f}, {1}, {1});
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(wrong_index_type));
  auto* idx = m.mutable_graph()->mutable_sparse_initializer(0)->mutable_indices();
  idx->clear_int64_data();
  idx->set_data_type(onnx::TensorProto::INT32);
  idx->add_int32_data(1);
  expect_refused(m.SerializeAsString(), {"'w'", "indices must be int64, got int32[1]"});
}

TEST(SparseTensors, AHugeDenseShapeIsRefusedBeforeAnythingIsAllocated) {
  const Status s = load(add_sparse_model({1.f}, {0}, {1}, {int64_t{1} << 31, int64_t{1} << 30}));
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory) << s.to_string();
  EXPECT_NE(s.message().find("sparse initializer 'w'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("larger than the host memory limit"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace hi::test
