// BERT encoder (Hugging Face BertModel) as PyTorch exports it: Gather embeddings, LayerNorm
// (fused op from opset 17, else decomposed), attention with an additive mask, Erf GELU, pooler.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "zoo/models.h"

namespace hi::zoo {
namespace {

constexpr float kLayerNormEpsilon = 1e-12f;
constexpr int64_t kMaxPositions = 512;  // BERT's position table, grown when --sequence is longer
constexpr int64_t kTypeVocab = 2;
constexpr double kEmbeddingStd = 0.02;  // BERT's initializer_range

class BertBuilder {
 public:
  BertBuilder(GraphBuilder& g, const ZooOptions& o)
      : g_(g), hidden_(o.hidden), heads_(o.heads), intermediate_(o.intermediate > 0 ? o.intermediate : 4 * o.hidden) {}

  // Embedding sums and their LayerNorm.
  std::string embeddings(const std::string& input_ids, const std::string& token_type_ids, int64_t vocab,
                         int64_t max_positions);
  // (1 - mask[:, None, None, :]) * -10000, computed once and added to every layer's scores.
  std::string additive_mask(const std::string& attention_mask);
  std::string layer(const std::string& h, const std::string& mask, int index, const std::string& output_name);
  void pooler(const std::string& h, const std::string& output_name);

 private:
  // x @ W + b with W stored transposed ([in, out]) as the exporter writes it for MatMul; the
  // tensor keeps the module's ".weight" name so it can be traced to the PyTorch parameter.
  std::string linear(const std::string& x, const std::string& module, const std::string& scope, int64_t in,
                     int64_t out);
  std::string layer_norm(const std::string& x, const std::string& module, const std::string& scope,
                         const std::string& output_name = "");
  std::string gelu(const std::string& x, const std::string& scope);

  GraphBuilder& g_;
  int64_t hidden_;
  int64_t heads_;
  int64_t intermediate_;
};

std::string BertBuilder::linear(const std::string& x, const std::string& module, const std::string& scope, int64_t in,
                                int64_t out) {
  const size_t n = static_cast<size_t>(in * out);
  const std::string w = g_.add_initializer(
      module + ".weight", {in, out}, random_normal(g_.rng(module + ".weight"), n, 0.0, 1.0 / std::sqrt(double(in))));
  const std::string b = g_.add_initializer(
      module + ".bias", {out}, random_normal(g_.rng(module + ".bias"), static_cast<size_t>(out), 0.0, 0.02));
  const std::string y = g_.op("MatMul", scope, {x, w});
  return g_.op("Add", scope, {b, y});  // the exporter puts the bias first
}

std::string BertBuilder::layer_norm(const std::string& x, const std::string& module, const std::string& scope,
                                    const std::string& output_name) {
  const std::string gamma =
      g_.add_initializer(module + ".weight", {hidden_},
                         random_normal(g_.rng(module + ".weight"), static_cast<size_t>(hidden_), 1.0, 0.05));
  const std::string beta = g_.add_initializer(
      module + ".bias", {hidden_}, random_normal(g_.rng(module + ".bias"), static_cast<size_t>(hidden_), 0.0, 0.05));
  if (g_.opset() >= 17) {
    return g_.op("LayerNormalization", scope, {x, gamma, beta},
                 {Attr::i("axis", -1), Attr::f("epsilon", kLayerNormEpsilon)}, output_name);
  }
  // torch.onnx's layer_norm before opset 17.
  const std::string mean = g_.reduce_mean(scope, x, {-1}, true);
  const std::string centered = g_.op("Sub", scope, {x, mean});
  const std::string squared = g_.op("Pow", scope, {centered, g_.constant_f32(scope, 2.0f)});
  const std::string var = g_.reduce_mean(scope, squared, {-1}, true);
  const std::string var_eps = g_.op("Add", scope, {var, g_.constant_f32(scope, kLayerNormEpsilon)});
  const std::string stddev = g_.op("Sqrt", scope, {var_eps});
  const std::string normalized = g_.op("Div", scope, {centered, stddev});
  const std::string scaled = g_.op("Mul", scope, {normalized, gamma});
  return g_.op("Add", scope, {scaled, beta}, {}, output_name);
}

std::string BertBuilder::gelu(const std::string& x, const std::string& scope) {
  // torch.onnx's exact GELU: (x * (erf(x / sqrt(2)) + 1)) * 0.5.
  const std::string scaled = g_.op("Div", scope, {x, g_.constant_f32(scope, static_cast<float>(std::numbers::sqrt2))});
  const std::string erf = g_.op("Erf", scope, {scaled});
  const std::string plus_one = g_.op("Add", scope, {erf, g_.constant_f32(scope, 1.0f)});
  const std::string product = g_.op("Mul", scope, {x, plus_one});
  return g_.op("Mul", scope, {product, g_.constant_f32(scope, 0.5f)});
}

std::string BertBuilder::embeddings(const std::string& input_ids, const std::string& token_type_ids, int64_t vocab,
                                    int64_t max_positions) {
  const std::string scope = "/embeddings";
  auto table = [&](const std::string& module, int64_t rows) {
    const std::string name = "embeddings." + module + ".weight";
    return g_.add_initializer(name, {rows, hidden_},
                              random_normal(g_.rng(name), static_cast<size_t>(rows * hidden_), 0.0, kEmbeddingStd));
  };
  const std::string words = g_.op("Gather", scope + "/word_embeddings", {table("word_embeddings", vocab), input_ids});
  const std::string types =
      g_.op("Gather", scope + "/token_type_embeddings", {table("token_type_embeddings", kTypeVocab), token_type_ids});
  std::string sum = g_.op("Add", scope, {words, types});

  // position_ids[:, :sequence], with the sequence length read from input_ids at run time.
  std::vector<int64_t> ids(static_cast<size_t>(max_positions));
  for (int64_t i = 0; i < max_positions; ++i) ids[static_cast<size_t>(i)] = i;
  const std::string position_ids = g_.add_initializer_i64("embeddings.position_ids", {1, max_positions}, ids);
  const std::string shape = g_.op("Shape", scope, {input_ids});
  const std::string seq = g_.op("Gather", scope, {shape, g_.constant_i64(scope, {}, {1})}, {Attr::i("axis", 0)});
  const std::string end = g_.unsqueeze(scope, seq, {0});
  const std::string sliced =
      g_.op("Slice", scope, {position_ids, g_.constant_i64(scope, {1}, {0}), end, g_.constant_i64(scope, {1}, {1})});
  const std::string positions =
      g_.op("Gather", scope + "/position_embeddings", {table("position_embeddings", max_positions), sliced});
  sum = g_.op("Add", scope, {sum, positions});
  return layer_norm(sum, "embeddings.LayerNorm", scope + "/LayerNorm");
}

std::string BertBuilder::additive_mask(const std::string& attention_mask) {
  const std::string expanded = g_.unsqueeze("", attention_mask, {1, 2});
  const std::string as_float = g_.op("Cast", "", {expanded}, {Attr::i("to", static_cast<int64_t>(ElemType::kFloat))});
  const std::string inverted = g_.op("Sub", "", {g_.constant_f32("", 1.0f), as_float});
  return g_.op("Mul", "", {inverted, g_.constant_f32("", -10000.0f)});
}

std::string BertBuilder::layer(const std::string& h, const std::string& mask, int index,
                               const std::string& output_name) {
  const std::string module = "encoder.layer." + std::to_string(index);
  const std::string scope = "/encoder/layer." + std::to_string(index);
  const int64_t head_size = hidden_ / heads_;

  // Self-attention. The Reshape shapes copy batch and sequence (0) so both stay symbolic.
  const std::string self = scope + "/attention/self";
  const std::string split_shape = g_.constant_i64(self, {4}, {0, 0, heads_, head_size});
  auto heads = [&](const std::string& which, const std::vector<int64_t>& perm) {
    const std::string x = linear(h, module + ".attention.self." + which, self + "/" + which, hidden_, hidden_);
    return g_.op("Transpose", self, {g_.op("Reshape", self, {x, split_shape})}, {Attr::ints_of("perm", perm)});
  };
  const std::string q = heads("query", {0, 2, 1, 3});
  const std::string k = heads("key", {0, 2, 3, 1});  // already transposed for Q K^T
  const std::string v = heads("value", {0, 2, 1, 3});
  std::string scores = g_.op("MatMul", self, {q, k});
  scores = g_.op("Div", self, {scores, g_.constant_f32(self, static_cast<float>(std::sqrt(double(head_size))))});
  scores = g_.op("Add", self, {scores, mask});
  const std::string probs = g_.op("Softmax", self, {scores}, {Attr::i("axis", -1)});
  std::string context = g_.op("MatMul", self, {probs, v});
  context = g_.op("Transpose", self, {context}, {Attr::ints_of("perm", {0, 2, 1, 3})});
  context = g_.op("Reshape", self, {context, g_.constant_i64(self, {3}, {0, 0, hidden_})});

  const std::string attn_out = scope + "/attention/output";
  std::string x = linear(context, module + ".attention.output.dense", attn_out + "/dense", hidden_, hidden_);
  x = g_.op("Add", attn_out, {x, h});
  const std::string attended = layer_norm(x, module + ".attention.output.LayerNorm", attn_out + "/LayerNorm");

  // Feed-forward.
  const std::string inter = scope + "/intermediate";
  x = linear(attended, module + ".intermediate.dense", inter + "/dense", hidden_, intermediate_);
  x = gelu(x, inter + "/intermediate_act_fn");
  const std::string out = scope + "/output";
  x = linear(x, module + ".output.dense", out + "/dense", intermediate_, hidden_);
  x = g_.op("Add", out, {x, attended});
  return layer_norm(x, module + ".output.LayerNorm", out + "/LayerNorm", output_name);
}

void BertBuilder::pooler(const std::string& h, const std::string& output_name) {
  // hidden_states[:, 0] -> Linear (as Gemm, torch layout [out, in]) -> tanh.
  const std::string first = g_.op("Gather", "/pooler", {h, g_.constant_i64("/pooler", {}, {0})}, {Attr::i("axis", 1)});
  const std::string w =
      g_.add_initializer("pooler.dense.weight", {hidden_, hidden_},
                         random_normal(g_.rng("pooler.dense.weight"), static_cast<size_t>(hidden_ * hidden_), 0.0,
                                       1.0 / std::sqrt(double(hidden_))));
  const std::string b =
      g_.add_initializer("pooler.dense.bias", {hidden_},
                         random_normal(g_.rng("pooler.dense.bias"), static_cast<size_t>(hidden_), 0.0, 0.02));
  const std::string dense = g_.op("Gemm", "/pooler/dense", {first, w, b},
                                  {Attr::f("alpha", 1.0f), Attr::f("beta", 1.0f), Attr::i("transB", 1)});
  g_.op("Tanh", "/pooler/activation", {dense}, {}, output_name);
}

// Parameters of the whole model, to refuse sizes over the protobuf limit before building.
double bert_parameters(const ZooOptions& o, int64_t max_positions) {
  const double h = static_cast<double>(o.hidden);
  const double inter = static_cast<double>(o.intermediate > 0 ? o.intermediate : 4 * o.hidden);
  const double embeddings = (static_cast<double>(o.vocab) + static_cast<double>(max_positions) + kTypeVocab + 2) * h;
  const double per_layer = 4 * (h * h + h) + 2 * h * inter + inter + h + 4 * h;
  return embeddings + static_cast<double>(o.layers) * per_layer + h * h + h;
}

}  // namespace

Status build_bert(GraphBuilder& g, const ZooOptions& o) {
  HI_RETURN_IF(o.layers < 1 || o.layers > 1000, kInvalidArgument, "layers must be in 1..1000, got ", o.layers);
  HI_RETURN_IF(o.hidden < 1, kInvalidArgument, "hidden must be positive, got ", o.hidden);
  HI_RETURN_IF(o.heads < 1, kInvalidArgument, "heads must be positive, got ", o.heads);
  HI_RETURN_IF(o.hidden % o.heads != 0, kInvalidArgument, "hidden (", o.hidden, ") must be a multiple of heads (",
               o.heads, ")");
  HI_RETURN_IF(o.sequence < 0 || o.sequence > (1 << 20), kInvalidArgument,
               "sequence must be in 0..1048576 (0 = symbolic), got ", o.sequence);
  HI_RETURN_IF(o.intermediate < 0, kInvalidArgument, "intermediate must be positive (or 0 for 4 x hidden), got ",
               o.intermediate);
  HI_RETURN_IF(o.vocab < 1, kInvalidArgument, "vocab must be positive, got ", o.vocab);
  const int64_t max_positions = std::max(kMaxPositions, o.sequence);
  const double bytes = 4.0 * bert_parameters(o, max_positions);
  HI_RETURN_IF(bytes > 2.0e9, kInvalidArgument, "these sizes need ", static_cast<int64_t>(bytes / (1 << 20)),
               " MiB of weights, over the 2 GiB that one ONNX protobuf can hold; choose smaller sizes");

  const ShapeDim batch = batch_dim(o);
  const ShapeDim seq = o.sequence > 0 ? ShapeDim{o.sequence, {}} : ShapeDim{-1, "sequence"};
  g.add_input("input_ids", ElemType::kInt64, {batch, seq});
  g.add_input("attention_mask", ElemType::kInt64, {batch, seq});
  g.add_input("token_type_ids", ElemType::kInt64, {batch, seq});

  BertBuilder bert(g, o);
  const std::string mask = bert.additive_mask("attention_mask");
  std::string h = bert.embeddings("input_ids", "token_type_ids", o.vocab, max_positions);
  for (int i = 0; i < o.layers; ++i) h = bert.layer(h, mask, i, i + 1 == o.layers ? "last_hidden_state" : "");
  bert.pooler(h, "pooler_output");
  g.add_output("last_hidden_state", ElemType::kFloat, {batch, seq, {o.hidden, {}}});
  g.add_output("pooler_output", ElemType::kFloat, {batch, {o.hidden, {}}});
  return Status::ok();
}

}  // namespace hi::zoo
