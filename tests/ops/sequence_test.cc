// Sequence and optional ops: SequenceConstruct/Empty/At/Insert/Erase/Length, ConcatFromSequence,
// SplitToSequence, SequenceMap, Optional, OptionalHasElement, OptionalGetElement and Identity on
// sequences and optionals. Hand-computed results, inferred types, and the errors.
#include "ops/graph_builder.h"
#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

// One node over graph inputs named in0, in1, ... with the given types; outputs out0, out1, ...
ir::Graph one_node(const std::string& op, const std::vector<ir::ValueType>& input_types, size_t num_outputs = 1,
                   std::map<std::string, ir::Attribute> attrs = {}) {
  ir::Graph g;
  std::vector<std::string> ins, outs;
  for (size_t i = 0; i < input_types.size(); ++i) {
    ins.push_back("in" + std::to_string(i));
    g.inputs.push_back({ins.back(), input_types[i]});
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    outs.push_back("out" + std::to_string(i));
    g.outputs.push_back({outs.back(), unknown_type()});
  }
  g.nodes = {node(op, ins, outs, std::move(attrs))};
  return g;
}

const ir::ValueType kSeqF = seq_type(ir::ValueType::tensor_unknown_shape(DType::kFloat32));
const ir::ValueType kI64 = ir::ValueType::tensor(DType::kInt64, {});

Value run1(const ir::Graph& g, std::vector<Value> inputs, int64_t opset = 17) {
  auto r = run_graph(g, std::move(inputs), opset);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Value{};
}

std::vector<Tensor> abc() { return {f32({2}, {1, 2}), f32({2}, {3, 4}), f32({2}, {5, 6})}; }

TEST(Sequence, ConstructAndTypes) {
  const ir::Graph g =
      one_node("SequenceConstruct", {tensor_type(DType::kFloat32, {2}), tensor_type(DType::kFloat32, {2})});
  expect_sequence_eq(run1(g, {val(f32({2}, {1, 2})), val(f32({2}, {3, 4}))}), {f32({2}, {1, 2}), f32({2}, {3, 4})});
  EXPECT_EQ(inferred_type(g, "out0", 11), "sequence<float32[2]>");
  const ir::Graph mixed =
      one_node("SequenceConstruct", {tensor_type(DType::kFloat32, {2}), tensor_type(DType::kFloat32, {3})});
  EXPECT_EQ(inferred_type(mixed, "out0", 11), "sequence<float32[?]>");
  const std::string bad =
      inferred_type(one_node("SequenceConstruct", {tensor_type(DType::kFloat32, {2}), kI64}), "out0", 11);
  EXPECT_NE(bad.find("one element type"), std::string::npos) << bad;
}

TEST(Sequence, EmptyAndLength) {
  ir::Graph g;
  g.nodes = {node("SequenceEmpty", {}, {"s"}, {{"dtype", attr_int(6)}}), node("SequenceLength", {"s"}, {"n"})};
  g.outputs = {{"s", unknown_type()}, {"n", unknown_type()}};
  auto r = run_graph(g, {}, 11);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_sequence_eq(r.value()[0], {});
  expect_tensor_eq(r.value()[1].tensor, i64({}, {0}));
  EXPECT_EQ(inferred_type(g, "s", 11), "sequence<int32[...]>");
  EXPECT_EQ(inferred_type(g, "n", 11), "int64[]");
  g.nodes[0].attributes["dtype"] = attr_int(0);
  const std::string bad = inferred_type(g, "s", 11);
  EXPECT_NE(bad.find("SequenceEmpty (opset 11) does not support dtype 0"), std::string::npos) << bad;
  expect_tensor_eq(run1(one_node("SequenceLength", {kSeqF}), {seq(abc())}, 11).tensor, i64({}, {3}));
}

TEST(Sequence, AtWithNegativePositionsAndInt32) {
  const ir::Graph g = one_node("SequenceAt", {kSeqF, kI64});
  expect_tensor_eq(run1(g, {seq(abc()), val(i64({}, {1}))}).tensor, f32({2}, {3, 4}));
  expect_tensor_eq(run1(g, {seq(abc()), val(i64({}, {-3}))}).tensor, f32({2}, {1, 2}));
  const ir::Graph g32 = one_node("SequenceAt", {kSeqF, ir::ValueType::tensor(DType::kInt32, {})});
  expect_tensor_eq(run1(g32, {seq(abc()), val(i32({}, {-1}))}).tensor, f32({2}, {5, 6}));
  EXPECT_EQ(inferred_type(one_node("SequenceAt", {seq_type(tensor_type(DType::kFloat32, {2})), kI64}), "out0", 11),
            "float32[2]");
  expect_run_error(g, {seq(abc()), val(i64({}, {3}))}, 11,
                   {"SequenceAt", "position 3 is out of range for a sequence of 3", "[-3, 2]"});
  expect_run_error(g, {seq(abc()), val(i64({}, {-4}))}, 11, {"position -4"});
  expect_run_error(g, {val(f32({2}, {1, 2})), val(i64({}, {0}))}, 11, {"must be a sequence", "float32[2]"});
  const std::string bad =
      inferred_type(one_node("SequenceAt", {kSeqF, ir::ValueType::tensor(DType::kFloat32, {})}), "out0", 11);
  EXPECT_NE(bad.find("position must be int32 or int64"), std::string::npos) << bad;
}

TEST(Sequence, InsertAndErase) {
  const ir::Graph back = one_node("SequenceInsert", {kSeqF, tensor_type(DType::kFloat32, {1})});
  expect_sequence_eq(run1(back, {seq({f32({1}, {1})}), val(f32({1}, {2}))}), {f32({1}, {1}), f32({1}, {2})});
  const ir::Graph at = one_node("SequenceInsert", {kSeqF, tensor_type(DType::kFloat32, {1}), kI64});
  expect_sequence_eq(run1(at, {seq({f32({1}, {1}), f32({1}, {3})}), val(f32({1}, {2})), val(i64({}, {-1}))}),
                     {f32({1}, {1}), f32({1}, {2}), f32({1}, {3})});
  expect_sequence_eq(run1(at, {seq({f32({1}, {1})}), val(f32({1}, {2})), val(i64({}, {1}))}),
                     {f32({1}, {1}), f32({1}, {2})});
  expect_sequence_eq(run1(at, {seq({}), val(f32({1}, {2})), val(i64({}, {0}))}), {f32({1}, {2})});
  expect_run_error(at, {seq({f32({1}, {1})}), val(f32({1}, {2})), val(i64({}, {2}))}, 11, {"position 2", "[-1, 1]"});
  const ir::Graph wrong = one_node("SequenceInsert", {unknown_type(), unknown_type()});
  expect_run_error(wrong, {seq({f32({1}, {1})}), val(i64({1}, {2}))}, 11, {"tensor is int64[1]", "float32 tensors"});
  const std::string bad = inferred_type(one_node("SequenceInsert", {kSeqF, kI64}), "out0", 11);
  EXPECT_NE(bad.find("tensor is int64[] but the sequence holds float32[...]"), std::string::npos) << bad;

  const ir::Graph erase_last = one_node("SequenceErase", {kSeqF});
  expect_sequence_eq(run1(erase_last, {seq(abc())}), {abc()[0], abc()[1]});
  const ir::Graph erase_at = one_node("SequenceErase", {kSeqF, kI64});
  expect_sequence_eq(run1(erase_at, {seq(abc()), val(i64({}, {-3}))}), {abc()[1], abc()[2]});
  expect_run_error(erase_last, {seq({})}, 11, {"SequenceErase", "empty sequence"});
  expect_run_error(erase_at, {seq(abc()), val(i64({}, {3}))}, 11, {"position 3"});
}

TEST(Sequence, ConcatFromSequence) {
  auto concat = [](int64_t axis, int64_t new_axis) {
    return one_node("ConcatFromSequence", {kSeqF}, 1, {{"axis", attr_int(axis)}, {"new_axis", attr_int(new_axis)}});
  };
  const std::vector<Tensor> parts = {f32({2, 1}, {1, 2}), f32({2, 2}, {3, 4, 5, 6})};
  expect_tensor_eq(run1(concat(1, 0), {seq(parts)}).tensor, f32({2, 3}, {1, 3, 4, 2, 5, 6}));
  expect_tensor_eq(run1(concat(-1, 0), {seq(parts)}).tensor, f32({2, 3}, {1, 3, 4, 2, 5, 6}));
  // Stacking: axis may be the rank (a new last axis).
  expect_tensor_eq(run1(concat(0, 1), {seq(abc())}).tensor, f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  expect_tensor_eq(run1(concat(1, 1), {seq(abc())}).tensor, f32({2, 3}, {1, 3, 5, 2, 4, 6}));
  expect_tensor_eq(run1(concat(-1, 1), {seq(abc())}).tensor, f32({2, 3}, {1, 3, 5, 2, 4, 6}));
  // Scalars stack; strings move too.
  expect_tensor_eq(run1(concat(0, 1), {seq({i64({}, {7}), i64({}, {8})})}).tensor, i64({2}, {7, 8}));
  expect_tensor_eq(run1(concat(0, 0), {seq({strs({1}, {"a"}), strs({2}, {"b", "c"})})}).tensor,
                   strs({3}, {"a", "b", "c"}));
  EXPECT_EQ(inferred_type(one_node("ConcatFromSequence", {seq_type(tensor_type(DType::kFloat32, {2, 5}))}, 1,
                                   {{"axis", attr_int(1)}, {"new_axis", attr_int(1)}}),
                          "out0", 11),
            "float32[2, ?, 5]");
  expect_run_error(concat(0, 0), {seq({})}, 11, {"ConcatFromSequence", "empty"});
  expect_run_error(concat(0, 0), {seq(parts)}, 11, {"element 1 is float32[2, 2]", "only axis 0 may differ"});
  expect_run_error(concat(0, 1), {seq(parts)}, 11, {"stacking needs equal shapes"});
  expect_run_error(concat(2, 0), {seq(parts)}, 11, {"axis 2"});
  expect_run_error(concat(0, 0), {seq({f32({}, {1})})}, 11, {"cannot concatenate scalars"});
  expect_run_error(concat(0, 0), {seq({f32({1}, {1}), i64({1}, {1})})}, 11, {"element 1 is int64[1]"});
  const std::string missing = inferred_type(one_node("ConcatFromSequence", {kSeqF}), "out0", 11);
  EXPECT_NE(missing.find("'axis'"), std::string::npos) << missing;
}

TEST(Sequence, SplitToSequence) {
  const Tensor x = f32({2, 5}, {0, 1, 2, 3, 4, 10, 11, 12, 13, 14});
  const ir::Graph ones =
      one_node("SplitToSequence", {tensor_type(DType::kFloat32, {2, 5})}, 1, {{"axis", attr_int(0)}});
  expect_sequence_eq(run1(ones, {val(x)}), {f32({1, 5}, {0, 1, 2, 3, 4}), f32({1, 5}, {10, 11, 12, 13, 14})});
  EXPECT_EQ(inferred_type(ones, "out0", 11), "sequence<float32[1, 5]>");
  const ir::Graph squeezed = one_node("SplitToSequence", {tensor_type(DType::kFloat32, {2, 5})}, 1,
                                      {{"axis", attr_int(0)}, {"keepdims", attr_int(0)}});
  expect_sequence_eq(run1(squeezed, {val(x)}), {f32({5}, {0, 1, 2, 3, 4}), f32({5}, {10, 11, 12, 13, 14})});
  EXPECT_EQ(inferred_type(squeezed, "out0", 11), "sequence<float32[5]>");
  // A scalar split: chunks of 2 along axis 1, the last one shorter (keepdims is ignored).
  const ir::Graph chunks = one_node("SplitToSequence", {tensor_type(DType::kFloat32, {2, 5}), kI64}, 1,
                                    {{"axis", attr_int(-1)}, {"keepdims", attr_int(0)}});
  expect_sequence_eq(run1(chunks, {val(x), val(i64({}, {2}))}),
                     {f32({2, 2}, {0, 1, 10, 11}), f32({2, 2}, {2, 3, 12, 13}), f32({2, 1}, {4, 14})});
  // A list of sizes (int32), zero-size chunks included.
  const ir::Graph list =
      one_node("SplitToSequence", {tensor_type(DType::kFloat32, {2, 5}), tensor_type(DType::kInt32, {3})}, 1,
               {{"axis", attr_int(1)}});
  expect_sequence_eq(run1(list, {val(x), val(i32({3}, {1, 0, 4}))}),
                     {f32({2, 1}, {0, 10}), f32({2, 0}, {}), f32({2, 4}, {1, 2, 3, 4, 11, 12, 13, 14})});
  expect_run_error(list, {val(x), val(i32({3}, {1, 1, 1}))}, 11,
                   {"SplitToSequence", "sums to 3 but the axis has size 5"});
  expect_run_error(list, {val(x), val(i32({3}, {1, -1, 5}))}, 11, {"negative size -1"});
  expect_run_error(chunks, {val(x), val(i64({}, {0}))}, 11, {"split is 0", "positive"});
  expect_run_error(ones, {val(f32({}, {1}))}, 11, {"cannot split a scalar"});
}

TEST(Sequence, SequenceMapWithSequenceAndTensorInputs) {
  // body(a, b, c) = (a + b * c, Shape(a)) over a sequence a, a sequence b and a tensor c.
  ir::Graph body;
  const ir::ValueType vec = ir::ValueType::tensor(DType::kFloat32, {ir::Dim::named("N")});
  body.inputs = {{"a", vec}, {"b", vec}, {"c", unknown_type()}};
  body.nodes = {node("Mul", {"b", "c"}, {"bc"}), node("Add", {"a", "bc"}, {"y"}), node("Shape", {"a"}, {"shape"})};
  body.outputs = {{"y", unknown_type()}, {"shape", unknown_type()}};
  ir::Graph g;
  g.inputs = {{"as", kSeqF}, {"bs", kSeqF}, {"c", tensor_type(DType::kFloat32, {})}};
  g.nodes = {node("SequenceMap", {"as", "bs", "c"}, {"ys", "shapes"}, {{"body", attr_graph(body)}})};
  g.outputs = {{"ys", unknown_type()}, {"shapes", unknown_type()}};
  auto r = run_graph(
      g, {seq({f32({1}, {1}), f32({2}, {2, 3})}), seq({f32({1}, {10}), f32({2}, {20, 30})}), val(f32({}, {2}))}, 17);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_sequence_eq(r.value()[0], {f32({1}, {21}), f32({2}, {42, 63})});
  expect_sequence_eq(r.value()[1], {i64({1}, {1}), i64({1}, {2})});
  EXPECT_EQ(inferred_type(g, "shapes", 17), "sequence<int64[1]>");
  auto empty = run_graph(g, {seq({}), seq({}), val(f32({}, {2}))}, 17);
  ASSERT_TRUE(empty.is_ok()) << empty.status().to_string();
  expect_sequence_eq(empty.value()[0], {});
  expect_run_error(g, {seq({f32({1}, {1})}), seq({}), val(f32({}, {2}))}, 17,
                   {"SequenceMap", "additional input 1 is a sequence of 0 tensors but input_sequence has 1"});
  ir::Graph bad = g;
  bad.nodes[0].attributes["body"].g->inputs.pop_back();
  auto b = run_graph(bad, {seq({}), seq({}), val(f32({}, {2}))}, 17);
  ASSERT_FALSE(b.is_ok());
  EXPECT_NE(b.status().message().find("the body has 2 inputs but the node has 3"), std::string::npos)
      << b.status().message();
}

TEST(Optional, ConstructHasGet) {
  const ir::ValueType opt_f = opt_type(tensor_type(DType::kFloat32, {2}));
  // Optional of an input, and the empty optional of a type.
  const ir::Graph wrap = one_node("Optional", {tensor_type(DType::kFloat32, {2})});
  const Value w = run1(wrap, {val(f32({2}, {1, 2}))}, 15);
  ASSERT_TRUE(w.is_tensor());
  expect_tensor_eq(w.tensor, f32({2}, {1, 2}));
  EXPECT_EQ(inferred_type(wrap, "out0", 15), "optional<float32[2]>");
  ir::Graph none;
  none.nodes = {node("Optional", {}, {"o"}, {{"type", attr_type(seq_type(tensor_type(DType::kInt64, {})))}})};
  none.outputs = {{"o", unknown_type()}};
  EXPECT_EQ(run1(none, {}, 15).kind, Value::Kind::kNone);
  EXPECT_EQ(inferred_type(none, "o", 15), "optional<sequence<int64[]>>");
  none.nodes[0].attributes.clear();
  EXPECT_NE(inferred_type(none, "o", 15).find("needs the 'type' attribute"), std::string::npos);

  const ir::Graph has = one_node("OptionalHasElement", {opt_f});
  expect_tensor_eq(run1(has, {val(f32({2}, {1, 2}))}, 15).tensor, bools({}, {1}));
  expect_tensor_eq(run1(has, {Value{}}, 15).tensor, bools({}, {0}));
  // Opset 18: an absent input is an empty optional; a plain tensor or sequence has an element.
  ir::Graph absent;
  absent.nodes = {node("OptionalHasElement", {""}, {"h"})};
  absent.outputs = {{"h", unknown_type()}};
  expect_tensor_eq(run1(absent, {}, 18).tensor, bools({}, {0}));
  expect_tensor_eq(run1(one_node("OptionalHasElement", {kSeqF}), {seq({})}, 18).tensor, bools({}, {1}));
  EXPECT_NE(inferred_type(one_node("OptionalHasElement", {kSeqF}), "out0", 15).find("need opset 18"),
            std::string::npos);

  const ir::Graph get = one_node("OptionalGetElement", {opt_f});
  expect_tensor_eq(run1(get, {val(f32({2}, {1, 2}))}, 15).tensor, f32({2}, {1, 2}));
  EXPECT_EQ(inferred_type(get, "out0", 15), "float32[2]");
  expect_run_error(get, {Value{}}, 15, {"OptionalGetElement", "the optional input is empty"});
  expect_sequence_eq(run1(one_node("OptionalGetElement", {kSeqF}), {seq(abc())}, 18), abc());
  EXPECT_NE(inferred_type(one_node("OptionalGetElement", {kSeqF}), "out0", 15).find("need opset 18"),
            std::string::npos);
}

TEST(Optional, IdentityPassesSequencesAndOptionalsThrough) {
  expect_sequence_eq(run1(one_node("Identity", {kSeqF}), {seq(abc())}, 16), abc());
  EXPECT_EQ(run1(one_node("Identity", {opt_type(kSeqF)}), {Value{}}, 16).kind, Value::Kind::kNone);
  EXPECT_EQ(inferred_type(one_node("Identity", {opt_type(kSeqF)}), "out0", 16), "optional<sequence<float32[...]>>");
  ir::Graph empty_input;
  empty_input.nodes = {node("Identity", {""}, {"y"})};
  empty_input.outputs = {{"y", unknown_type()}};
  EXPECT_NE(inferred_type(empty_input, "y", 16).find("Identity takes 1 input"), std::string::npos);
}

}  // namespace
}  // namespace hi::test
