// If, Loop and Scan: hand-computed results, sequences and optionals through control flow,
// zero iterations, inferred output types, and the errors (bad conditions, shapes that change
// between iterations, bodies that do not fit the node).
#include "ops/graph_builder.h"
#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

// If(cond) with then = outer `x` + 1 (reads the enclosing graph) and else = a constant.
ir::Graph if_graph(const Tensor& else_value) {
  ir::Graph then_g;
  then_g.nodes = {constant("one", f32({}, {1})), node("Add", {"x", "one"}, {"then_out"})};
  then_g.outputs = {{"then_out", unknown_type()}};
  ir::Graph else_g;
  else_g.nodes = {constant("else_out", else_value)};
  else_g.outputs = {{"else_out", unknown_type()}};
  ir::Graph g;
  g.inputs = {{"cond", tensor_type(DType::kBool, {})}, {"x", tensor_type(DType::kFloat32, {2})}};
  g.nodes = {node("If", {"cond"}, {"y"}, {{"then_branch", attr_graph(then_g)}, {"else_branch", attr_graph(else_g)}})};
  g.outputs = {{"y", unknown_type()}};
  return g;
}

TEST(If, RunsTheChosenBranchAndReadsOuterValues) {
  const ir::Graph g = if_graph(f32({2}, {7, 8}));
  auto t = run_graph(g, {val(bools({}, {1})), val(f32({2}, {1, 2}))}, 11);
  ASSERT_TRUE(t.is_ok()) << t.status().to_string();
  expect_tensor_eq(t.value()[0].tensor, f32({2}, {2, 3}));
  auto e = run_graph(g, {val(bools({}, {0})), val(f32({2}, {1, 2}))}, 11);
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  expect_tensor_eq(e.value()[0].tensor, f32({2}, {7, 8}));
  // A one-element cond of rank 1 counts too.
  auto r1 = run_graph(g, {val(bools({1}, {0})), val(f32({2}, {1, 2}))}, 11);
  ASSERT_TRUE(r1.is_ok()) << r1.status().to_string();
}

TEST(If, OutputTypeCoversBothBranches) {
  EXPECT_EQ(inferred_type(if_graph(f32({2}, {7, 8})), "y", 13), "float32[2]");
  EXPECT_EQ(inferred_type(if_graph(f32({3}, {7, 8, 9})), "y", 13), "float32[?]");
  EXPECT_EQ(inferred_type(if_graph(f32({1, 2}, {7, 8})), "y", 13), "float32[...]");
  const std::string mixed = inferred_type(if_graph(i64({2}, {7, 8})), "y", 13);
  EXPECT_NE(mixed.find("else_branch gives int64[2]"), std::string::npos) << mixed;
}

TEST(If, Errors) {
  const ir::Graph g = if_graph(f32({2}, {7, 8}));
  expect_run_error(g, {val(bools({2}, {1, 0})), val(f32({2}, {1, 2}))}, 11, {"If", "cond", "bool[2]", "one element"});
  expect_run_error(g, {val(i64({}, {1})), val(f32({2}, {1, 2}))}, 11, {"cond", "int64"});
  ir::Graph two_outputs = g;
  two_outputs.nodes[0].outputs = {"y", "z"};
  auto r = run_graph(two_outputs, {val(bools({}, {1})), val(f32({2}, {1, 2}))}, 11);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("then_branch has 1 outputs but the node has 2"), std::string::npos)
      << r.status().message();
}

TEST(If, SequenceAndOptionalBranches) {
  // then: an empty optional of sequence<float>; else: an optional holding a sequence.
  ir::Graph then_g;
  then_g.nodes = {node("Optional", {}, {"none"}, {{"type", attr_type(seq_type(tensor_type(DType::kFloat32, {2})))}})};
  then_g.outputs = {{"none", unknown_type()}};
  ir::Graph else_g;
  else_g.nodes = {constant("c", f32({2}, {1, 2})), node("SequenceConstruct", {"c", "c"}, {"s"}),
                  node("Optional", {"s"}, {"o"})};
  else_g.outputs = {{"o", unknown_type()}};
  ir::Graph g;
  g.inputs = {{"cond", tensor_type(DType::kBool, {})}};
  g.nodes = {node("If", {"cond"}, {"y"}, {{"then_branch", attr_graph(then_g)}, {"else_branch", attr_graph(else_g)}}),
             node("OptionalHasElement", {"y"}, {"has"})};
  g.outputs = {{"y", unknown_type()}, {"has", unknown_type()}};
  EXPECT_EQ(inferred_type(g, "y", 16), "optional<sequence<float32[2]>>");
  auto none = run_graph(g, {val(bools({}, {1}))}, 16);
  ASSERT_TRUE(none.is_ok()) << none.status().to_string();
  EXPECT_EQ(none.value()[0].kind, Value::Kind::kNone);
  expect_tensor_eq(none.value()[1].tensor, bools({}, {0}));
  auto some = run_graph(g, {val(bools({}, {0}))}, 16);
  ASSERT_TRUE(some.is_ok()) << some.status().to_string();
  expect_sequence_eq(some.value()[0], {f32({2}, {1, 2}), f32({2}, {1, 2})});
  expect_tensor_eq(some.value()[1].tensor, bools({}, {1}));
}

// Loop(M, cond, x): x += i each iteration; scan output = x after the update; the body's cond
// output is x < limit.
ir::Graph sum_loop(bool with_m, bool with_cond, float limit = 1000) {
  ir::Graph body;
  body.inputs = {{"i", tensor_type(DType::kInt64, {})},
                 {"c_in", tensor_type(DType::kBool, {})},
                 {"x_in", tensor_type(DType::kFloat32, {1})}};
  body.nodes = {node("Cast", {"i"}, {"i_f"}, {{"to", attr_int(1)}}),
                node("Add", {"x_in", "i_f"}, {"x_out"}),
                constant("limit", f32({}, {limit})),
                node("Less", {"x_out", "limit"}, {"less"}),
                node("Squeeze", {"less"}, {"c_out"}),
                node("Identity", {"x_out"}, {"scan"})};
  body.outputs = {{"c_out", tensor_type(DType::kBool, {})},
                  {"x_out", tensor_type(DType::kFloat32, {1})},
                  {"scan", tensor_type(DType::kFloat32, {1})}};
  ir::Graph g;
  if (with_m) g.inputs.push_back({"M", tensor_type(DType::kInt64, {})});
  if (with_cond) g.inputs.push_back({"cond", tensor_type(DType::kBool, {})});
  g.inputs.push_back({"x", tensor_type(DType::kFloat32, {1})});
  g.nodes = {
      node("Loop", {with_m ? "M" : "", with_cond ? "cond" : "", "x"}, {"x_final", "xs"}, {{"body", attr_graph(body)}})};
  g.outputs = {{"x_final", unknown_type()}, {"xs", unknown_type()}};
  return g;
}

TEST(Loop, ForLoopWithScanOutput) {
  auto r = run_graph(sum_loop(true, true), {val(i64({}, {5})), val(bools({}, {1})), val(f32({1}, {0}))}, 11);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0].tensor, f32({1}, {10}));
  expect_tensor_eq(r.value()[1].tensor, f32({5, 1}, {0, 1, 3, 6, 10}));
  EXPECT_EQ(inferred_type(sum_loop(true, true), "xs", 11), "float32[?, 1]");
  EXPECT_EQ(inferred_type(sum_loop(true, true), "x_final", 11), "float32[1]");
}

TEST(Loop, WhileLoopStopsOnTheBodysCondition) {
  // x after each iteration: 0, 1, 3, 6: 6 < 5 is false, so the loop stops after 4 iterations.
  auto r = run_graph(sum_loop(false, true, 5), {val(bools({}, {1})), val(f32({1}, {0}))}, 13);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0].tensor, f32({1}, {6}));
  expect_tensor_eq(r.value()[1].tensor, f32({4, 1}, {0, 1, 3, 6}));
  // M and cond together: whichever ends first.
  auto both = run_graph(sum_loop(true, true, 5), {val(i64({}, {2})), val(bools({}, {1})), val(f32({1}, {0}))}, 13);
  ASSERT_TRUE(both.is_ok()) << both.status().to_string();
  expect_tensor_eq(both.value()[1].tensor, f32({2, 1}, {0, 1}));
}

TEST(Loop, ForLoopIgnoresTheBodysConditionWithoutACondInput) {
  // The body's condition turns false after the first iteration; without a cond input the spec
  // ignores it and M alone decides.
  auto r = run_graph(sum_loop(true, false, 0.5f), {val(i64({}, {3})), val(f32({1}, {0}))}, 11);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[1].tensor, f32({3, 1}, {0, 1, 3}));
}

TEST(Loop, ZeroIterations) {
  auto r = run_graph(sum_loop(true, true), {val(i64({}, {0})), val(bools({}, {1})), val(f32({1}, {4}))}, 11);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0].tensor, f32({1}, {4}));
  EXPECT_EQ(r.value()[1].tensor.type_string(), "float32[0, 1]");
  auto f = run_graph(sum_loop(true, true), {val(i64({}, {3})), val(bools({}, {0})), val(f32({1}, {4}))}, 11);
  ASSERT_TRUE(f.is_ok()) << f.status().to_string();
  EXPECT_EQ(f.value()[1].tensor.type_string(), "float32[0, 1]");
  // Without iterations the scan output's type comes from the body's declared output type.
  ir::Graph untyped = sum_loop(true, true);
  untyped.nodes[0].attributes["body"].g->outputs[2].type = unknown_type();
  expect_run_error(untyped, {val(i64({}, {0})), val(bools({}, {1})), val(f32({1}, {4}))}, 11,
                   {"scan output 'scan' has no iterations", "does not give an element type"});
}

TEST(Loop, CarriesSequencesAndOptionals) {
  // seq_out = SequenceInsert(seq_in, i); the initial sequence comes from SequenceEmpty.
  ir::Graph body;
  body.inputs = {{"i", tensor_type(DType::kInt64, {})}, {"c", tensor_type(DType::kBool, {})}, {"s_in", unknown_type()}};
  body.nodes = {node("Identity", {"c"}, {"c_out"}), node("SequenceInsert", {"s_in", "i"}, {"s_out"})};
  body.outputs = {{"c_out", unknown_type()}, {"s_out", unknown_type()}};
  ir::Graph g;
  g.inputs = {{"M", tensor_type(DType::kInt64, {})}};
  g.nodes = {node("SequenceEmpty", {}, {"empty"}, {{"dtype", attr_int(7)}}),
             node("Loop", {"M", "", "empty"}, {"s"}, {{"body", attr_graph(body)}}),
             node("SequenceLength", {"s"}, {"n"})};
  g.outputs = {{"s", unknown_type()}, {"n", unknown_type()}};
  auto r = run_graph(g, {val(i64({}, {3}))}, 13);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_sequence_eq(r.value()[0], {i64({}, {0}), i64({}, {1}), i64({}, {2})});
  expect_tensor_eq(r.value()[1].tensor, i64({}, {3}));
  EXPECT_EQ(inferred_type(g, "s", 13), "sequence<int64[...]>");

  // An empty optional carried through zero iterations stays empty.
  ir::Graph obody;
  obody.inputs = {
      {"i", tensor_type(DType::kInt64, {})}, {"c", tensor_type(DType::kBool, {})}, {"o_in", unknown_type()}};
  obody.nodes = {node("Identity", {"c"}, {"c_out"}), node("Identity", {"o_in"}, {"o_out"})};
  obody.outputs = {{"c_out", unknown_type()}, {"o_out", unknown_type()}};
  ir::Graph og;
  og.inputs = {{"M", tensor_type(DType::kInt64, {})}, {"o", opt_type(tensor_type(DType::kFloat32, {1}))}};
  og.nodes = {node("Loop", {"M", "", "o"}, {"o_final"}, {{"body", attr_graph(obody)}})};
  og.outputs = {{"o_final", unknown_type()}};
  for (int64_t m : {0, 2}) {
    auto o = run_graph(og, {val(i64({}, {m})), Value{}}, 16);
    ASSERT_TRUE(o.is_ok()) << o.status().to_string();
    EXPECT_EQ(o.value()[0].kind, Value::Kind::kNone);
  }
}

TEST(Loop, ScanOutputWhoseShapeChangesIsAnError) {
  // scan = Range(0, i + 1): one element more each iteration.
  ir::Graph body;
  body.inputs = {{"i", tensor_type(DType::kInt64, {})}, {"c", tensor_type(DType::kBool, {})}};
  body.nodes = {node("Identity", {"c"}, {"c_out"}), constant("zero", i64({}, {0})), constant("one", i64({}, {1})),
                node("Add", {"i", "one"}, {"end"}), node("Range", {"zero", "end", "one"}, {"grow"})};
  body.outputs = {{"c_out", unknown_type()}, {"grow", unknown_type()}};
  ir::Graph g;
  g.inputs = {{"M", tensor_type(DType::kInt64, {})}};
  g.nodes = {node("Loop", {"M", ""}, {"out"}, {{"body", attr_graph(body)}})};
  g.outputs = {{"out", unknown_type()}};
  g.nodes[0].name = "the_loop";
  expect_run_error(g, {val(i64({}, {3}))}, 11,
                   {"the_loop", "scan output 'grow'", "int64[2]", "iteration 1", "int64[1]"});
  auto one = run_graph(g, {val(i64({}, {1}))}, 11);  // one iteration: fine
  ASSERT_TRUE(one.is_ok()) << one.status().to_string();
  expect_tensor_eq(one.value()[0].tensor, i64({1, 1}, {0}));
}

TEST(Loop, Errors) {
  expect_run_error(sum_loop(true, true), {val(i64({2}, {1, 2})), val(bools({}, {1})), val(f32({1}, {0}))}, 11,
                   {"Loop", "M", "int64[2]"});
  // The body's inputs must be (iteration, cond, carried...).
  ir::Graph g = sum_loop(true, true);
  g.nodes[0].attributes["body"].g->inputs.pop_back();
  auto r = run_graph(g, {val(i64({}, {1})), val(bools({}, {1})), val(f32({1}, {0}))}, 11);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("the body has 2 inputs, expected 3"), std::string::npos) << r.status().message();
  // M must be int64.
  ir::Graph m32 = sum_loop(true, true);
  m32.inputs[0].type = tensor_type(DType::kInt32, {});
  auto b = run_graph(m32, {val(i32({}, {1})), val(bools({}, {1})), val(f32({1}, {0}))}, 11);
  ASSERT_FALSE(b.is_ok());
  EXPECT_NE(b.status().message().find("M (the trip count) must be int64, got int32[]"), std::string::npos)
      << b.status().message();
}

// Scan-9+: state s (float[2]) += x_t, scan output = s; x scanned along `in_axis`.
ir::Graph cumsum_scan(std::map<std::string, ir::Attribute> attrs, const ir::ValueType& x_type) {
  ir::Graph body;
  body.inputs = {{"s_in", tensor_type(DType::kFloat32, {2})}, {"x_t", tensor_type(DType::kFloat32, {2})}};
  body.nodes = {node("Add", {"s_in", "x_t"}, {"s_out"}), node("Identity", {"s_out"}, {"y_t"})};
  body.outputs = {{"s_out", tensor_type(DType::kFloat32, {2})}, {"y_t", tensor_type(DType::kFloat32, {2})}};
  attrs["body"] = attr_graph(body);
  attrs["num_scan_inputs"] = attr_int(1);
  ir::Graph g;
  g.inputs = {{"s0", tensor_type(DType::kFloat32, {2})}, {"x", x_type}};
  g.nodes = {node("Scan", {"s0", "x"}, {"s", "y"}, attrs)};
  g.outputs = {{"s", unknown_type()}, {"y", unknown_type()}};
  return g;
}

TEST(Scan, CumulativeSumAlongAxis0) {
  const ir::Graph g = cumsum_scan({}, tensor_type(DType::kFloat32, {3, 2}));
  auto r = run_graph(g, {val(f32({2}, {0, 0})), val(f32({3, 2}, {1, 2, 3, 4, 5, 6}))}, 9);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0].tensor, f32({2}, {9, 12}));
  expect_tensor_eq(r.value()[1].tensor, f32({3, 2}, {1, 2, 4, 6, 9, 12}));
  EXPECT_EQ(inferred_type(g, "y", 9), "float32[3, 2]");
}

TEST(Scan, AxesAndDirections) {
  // x is [2, 3] scanned along axis 1 (columns), in reverse; outputs stacked along axis 1 and
  // prepended, so the output's column t holds the state after the step that read column t.
  const ir::Graph g = cumsum_scan({{"scan_input_axes", attr_ints({-1})},
                                   {"scan_input_directions", attr_ints({1})},
                                   {"scan_output_axes", attr_ints({1})},
                                   {"scan_output_directions", attr_ints({1})}},
                                  tensor_type(DType::kFloat32, {2, 3}));
  auto r = run_graph(g, {val(f32({2}, {0, 0})), val(f32({2, 3}, {1, 2, 3, 10, 20, 30}))}, 11);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  // Steps read columns 2, 1, 0: states (3, 30), (5, 50), (6, 60); prepended: column 0 is the last.
  expect_tensor_eq(r.value()[0].tensor, f32({2}, {6, 60}));
  expect_tensor_eq(r.value()[1].tensor, f32({2, 3}, {6, 5, 3, 60, 50, 30}));
  EXPECT_EQ(inferred_type(g, "y", 11), "float32[2, 3]");
}

TEST(Scan, ZeroLengthAndErrors) {
  const ir::Graph g = cumsum_scan({}, tensor_type(DType::kFloat32, {0, 2}));
  auto r = run_graph(g, {val(f32({2}, {1, 2})), val(f32({0, 2}, {}))}, 9);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0].tensor, f32({2}, {1, 2}));
  EXPECT_EQ(r.value()[1].tensor.shape(), (Shape{0, 2}));
  // A state whose shape changes (broadcast of [2] + [3, 2] would be [3, 2]).
  const ir::Graph wide = cumsum_scan({}, tensor_type(DType::kFloat32, {2, 3, 2}));
  expect_run_error(wide, {val(f32({2}, {0, 0})), val(random_f32({2, 3, 2}, 1))}, 9,
                   {"Scan", "state 's_out'", "[3, 2]", "[2]"});
  // Two scan inputs of different lengths.
  ir::Graph two = cumsum_scan({}, tensor_type(DType::kFloat32, {3, 2}));
  auto& n = two.nodes[0];
  n.attributes["num_scan_inputs"] = attr_int(2);
  n.inputs.push_back("x2");
  n.attributes["body"].g->inputs.push_back({"x2_t", tensor_type(DType::kFloat32, {2})});
  two.inputs.push_back({"x2", tensor_type(DType::kFloat32, {4, 2})});
  expect_run_error(two, {val(f32({2}, {0, 0})), val(random_f32({3, 2}, 2)), val(random_f32({4, 2}, 3))}, 9,
                   {"scan input 1", "4 steps", "scan input 0 has 3"});
  // Attribute lists of the wrong length, bad directions, negative axes before opset 11.
  auto bad_len = run_graph(cumsum_scan({{"scan_output_axes", attr_ints({0, 1})}}, tensor_type(DType::kFloat32, {3, 2})),
                           {val(f32({2}, {0, 0})), val(random_f32({3, 2}, 4))}, 9);
  ASSERT_FALSE(bad_len.is_ok());
  EXPECT_NE(bad_len.status().message().find("'scan_output_axes' has 2 entries, expected 1"), std::string::npos);
  auto bad_dir =
      run_graph(cumsum_scan({{"scan_input_directions", attr_ints({2})}}, tensor_type(DType::kFloat32, {3, 2})),
                {val(f32({2}, {0, 0})), val(random_f32({3, 2}, 4))}, 9);
  ASSERT_FALSE(bad_dir.is_ok());
  EXPECT_NE(bad_dir.status().message().find("directions are 0 (forward) or 1 (reverse)"), std::string::npos);
  auto neg = run_graph(cumsum_scan({{"scan_input_axes", attr_ints({-1})}}, tensor_type(DType::kFloat32, {3, 2})),
                       {val(f32({2}, {0, 0})), val(random_f32({3, 2}, 4))}, 9);
  ASSERT_FALSE(neg.is_ok());
  EXPECT_NE(neg.status().message().find("negative axes need opset 11"), std::string::npos);
}

TEST(Scan, Opset8BatchesWithSequenceLengths) {
  // Scan-8: batch of 2, sequences of up to 3 steps; the second entry has length 1, so its scan
  // output is padded with zeros. The second entry is also scanned in reverse (directions = 1).
  ir::Graph body;
  body.inputs = {{"s_in", tensor_type(DType::kFloat32, {1})}, {"x_t", tensor_type(DType::kFloat32, {1})}};
  body.nodes = {node("Add", {"s_in", "x_t"}, {"s_out"}), node("Identity", {"s_out"}, {"y_t"})};
  body.outputs = {{"s_out", unknown_type()}, {"y_t", unknown_type()}};
  auto graph = [&](bool reverse) {
    ir::Graph g;
    g.inputs = {{"lens", tensor_type(DType::kInt64, {2})},
                {"s0", tensor_type(DType::kFloat32, {2, 1})},
                {"x", tensor_type(DType::kFloat32, {2, 3, 1})}};
    std::map<std::string, ir::Attribute> attrs = {{"body", attr_graph(body)}, {"num_scan_inputs", attr_int(1)}};
    if (reverse) attrs["directions"] = attr_ints({1});
    g.nodes = {node("Scan", {"lens", "s0", "x"}, {"s", "y"}, attrs)};
    g.outputs = {{"s", unknown_type()}, {"y", unknown_type()}};
    return g;
  };
  const std::vector<Value> inputs = {val(i64({2}, {3, 1})), val(f32({2, 1}, {0, 100})),
                                     val(f32({2, 3, 1}, {1, 2, 3, 4, 5, 6}))};
  auto f = run_graph(graph(false), inputs, 8);
  ASSERT_TRUE(f.is_ok()) << f.status().to_string();
  expect_tensor_eq(f.value()[0].tensor, f32({2, 1}, {6, 104}));
  expect_tensor_eq(f.value()[1].tensor, f32({2, 3, 1}, {1, 3, 6, 104, 0, 0}));
  auto r = run_graph(graph(true), inputs, 8);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[1].tensor, f32({2, 3, 1}, {3, 5, 6, 104, 0, 0}));
  EXPECT_EQ(inferred_type(graph(false), "y", 8), "float32[2, 3, 1]");
  expect_run_error(graph(false), {val(i64({2}, {3, 4})), val(f32({2, 1}, {0, 0})), val(random_f32({2, 3, 1}, 5))}, 8,
                   {"sequence_lens[1] is 4", "[0, 3]"});
}

}  // namespace
}  // namespace hi::test
