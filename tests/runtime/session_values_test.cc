// Session::run_values: models whose inputs or outputs are sequences and maps, on two
// scikit-learn exports (tests/python/data/sklearn/, made by scripts/export_sklearn_models.py).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "hipinfer/session.h"

namespace hi {
namespace {

std::string sklearn_model(const std::string& name) {
  const char* root = std::getenv("HI_SOURCE_DIR");
  return std::string(root ? root : ".") + "/tests/python/data/sklearn/" + name;
}

Tensor rows(int64_t n) {
  Tensor x = Tensor::empty(DType::kFloat32, {n, 7});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>((i * 37 % 11) - 5) * 0.3f;
  return x;
}

TEST(SessionValues, ZipMapOutputIsASequenceOfMaps) {
  auto s = Session::create(sklearn_model("logistic_regression_3class.onnx"));
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  const Session& session = *s.value();
  EXPECT_EQ(session.outputs()[1].type, "seq(map(int64,tensor(float)))");
  auto out = session.run_values({{"X", Value::of(rows(4))}});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  const Value& labels = out.value().at("output_label");
  const Value& probs = out.value().at("output_probability");
  ASSERT_TRUE(labels.is_tensor());
  ASSERT_EQ(probs.kind, Value::Kind::kMapSequence);
  ASSERT_EQ(probs.maps.size(), 4u);
  for (size_t r = 0; r < 4; ++r) {
    const Map& m = probs.maps[r];
    ASSERT_EQ(m.size(), 3);
    float sum = 0;
    int64_t best = 0;
    for (int64_t c = 0; c < 3; ++c) {
      sum += m.values.data<float>()[c];
      if (m.values.data<float>()[c] > m.values.data<float>()[best]) best = c;
    }
    EXPECT_NEAR(sum, 1.f, 1e-5);
    EXPECT_EQ(labels.tensor.data<int64_t>()[r], m.keys.data<int64_t>()[best]);
  }
  // The tensor-only run() says where to go instead of dropping the output.
  auto tensors_only = session.run({{"X", rows(1)}});
  ASSERT_FALSE(tensors_only.is_ok());
  EXPECT_NE(tensors_only.status().message().find("'output_probability' is a sequence of 1 maps"), std::string::npos)
      << tensors_only.status().to_string();
  EXPECT_NE(tensors_only.status().message().find("run_values"), std::string::npos);
  // Asking for the tensor output alone is fine through run().
  EXPECT_TRUE(session.run({{"X", rows(2)}}, {"output_label"}).is_ok());
}

TEST(SessionValues, MapInputIsCheckedAgainstItsDeclaration) {
  auto s = Session::create(sklearn_model("dict_vectorizer_logistic.onnx"));
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  const Session& session = *s.value();
  EXPECT_EQ(session.inputs()[0].type, "map(string,tensor(float))");
  Tensor keys = Tensor::empty(DType::kString, {2});
  keys.strings()[0] = "width";
  keys.strings()[1] = "height";
  Tensor values = Tensor::from_vector<float>({2.f, 1.f}, {2});
  auto out = session.run_values({{"features", Value::of_map({keys, values})}});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value().at("output_probability").maps.size(), 1u);
  // A tensor where a map is declared, and a map of the wrong key type, are named.
  auto wrong = session.run_values({{"features", Value::of(values)}});
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_NE(wrong.status().message().find("input 'features': expected map<string"), std::string::npos)
      << wrong.status().to_string();
  Tensor int_keys = Tensor::from_vector<int64_t>({1, 2}, {2});
  wrong = session.run_values({{"features", Value::of_map({int_keys, values})}});
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_NE(wrong.status().message().find("got a map of 2 entries (int64[2] -> float32[2])"), std::string::npos)
      << wrong.status().to_string();
  Tensor short_values = Tensor::from_vector<float>({2.f}, {1});
  wrong = session.run_values({{"features", Value::of_map({keys, short_values})}});
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_NE(wrong.status().message().find("hold one entry per key"), std::string::npos) << wrong.status().to_string();
}

}  // namespace
}  // namespace hi
