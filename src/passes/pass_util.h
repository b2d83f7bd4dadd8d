// Graph surgery helpers shared by the passes.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/passes.h"

namespace hi::passes {

// Producer and consumer index over a graph; rebuilt after each pass that changes edges.
class GraphIndex {
 public:
  explicit GraphIndex(const ir::Graph& g);
  // Index of the node producing `value`, or -1 (graph input, initializer).
  int producer(const std::string& value) const;
  // Nodes reading `value` (counting subgraph reads as a read by the subgraph's owner).
  const std::vector<int>& consumers(const std::string& value) const;
  bool is_graph_output(const std::string& value) const { return outputs_.count(value) > 0; }
  // True when exactly one node reads `value` and it is not a graph output: it may be folded into that node.
  bool single_use(const std::string& value) const;

 private:
  std::map<std::string, int> producer_;
  std::map<std::string, std::vector<int>> consumers_;
  std::set<std::string> outputs_;
  std::vector<int> none_;
};

// The constant value of `name` (an initializer that cannot be overridden, or the output of a
// Constant node with a tensor value), or null.
const Tensor* constant(const ir::Graph& g, const GraphIndex& index, const std::string& name);
// A one-element float constant; false if `name` is not one.
bool scalar_constant(const ir::Graph& g, const GraphIndex& index, const std::string& name, float* value);
// A node's int, float or ints attribute, or the default (an empty list) when it has none.
int64_t int_attr(const ir::Node& n, const char* key, int64_t def);
// A constant's values as doubles, and back into a tensor of `dtype` (float32 or float64).
std::vector<double> as_doubles(const Tensor& t);
Tensor from_doubles(DType dtype, const Shape& shape, const std::vector<double>& v);
// Rewrites `conv` (weights w [M, ...], bias b [M] or null) to compute its output times scale[o]
// plus shift[o] per output channel: W' = W * scale, B' = B * scale + shift, in double, rounded
// once to w's type, stored as new initializers named after the old ones and `tag`.
void fold_channel_affine_into_conv(ir::Graph& g, ir::Node& conv, const Tensor& w, const Tensor* b,
                                   const std::vector<double>& scale, const std::vector<double>& shift,
                                   const std::string& tag);
// ai.onnx HardSwish, or the one fuse_hard_swish puts in hipinfer's domain for older opsets.
bool is_hard_swish(const ir::Node& n);
float float_attr(const ir::Node& n, const char* key, float def);
std::vector<int64_t> ints_attr(const ir::Node& n, const char* key);
// QDQ models. An int8/uint8 tensor; a float32 one (a scale).
bool is_8bit_tensor(const Tensor* t);
bool is_float_scale(const Tensor* t);
// The DequantizeLinear producing `value`, when it is per tensor with constant scale and zero
// point (both present), or null.
const ir::Node* per_tensor_dequantize(const ir::Graph& g, const GraphIndex& index, const std::string& value);
// The QuantizeLinear that alone reads `value` (not a graph output), per tensor with constant
// scale and zero point, or -1.
int per_tensor_quantize_reader(const ir::Graph& g, const GraphIndex& index, const std::string& value);
// Adds to *dead each node of `candidates` whose output nothing outside *dead reads any more.
void drop_unread(const ir::Graph& g, const GraphIndex& index, const std::set<int>& candidates, std::set<int>* dead);

// Marks a fused node (FusedConv, FusedMatMul) to compute in bfloat16 when `precision` is "bf16".
void set_precision(ir::Node& n, const std::string& precision);
// The other input of a two-input node, given one of them; "" if `known` is not an input.
std::string other_input(const ir::Node& n, const std::string& known);
// Orders the nodes so every producer comes before its readers, keeping the file's order where
// it already is one (fusion can make a node read a value produced later in the file). False,
// with the graph unchanged, if there is a cycle.
bool topo_sort(ir::Graph& g);
// Removes the nodes whose index is in `dead` (keeps the order of the rest).
void erase_nodes(ir::Graph& g, const std::set<int>& dead);
// A name no value in the graph has yet, from `base`.
std::string fresh_name(const ir::Graph& g, const std::string& base);
// True when both values are tensors of one dtype and the same shape: every dim known and equal,
// or unknown with the same symbol (a symbolic batch stays one size through the graph).
bool same_shape(const TypeOracle& types, const std::string& a, const std::string& b);
// Same rank and dtype, and no dim that differs for certain (unknown dims may match anything; two
// different symbols may not): a fused op that takes such a pair must check at run time.
bool maybe_same_shape(const TypeOracle& types, const std::string& a, const std::string& b);
// The dtype of a value from the oracle, or kUndefined.
DType dtype_of_value(const TypeOracle& types, const std::string& name);

// The passes (each returns the number of rewrites it made).
int eliminate_identity(ir::Model& m);
int fold_conv_batchnorm(ir::Model& m, const TypeOracle& types);
int fold_conv_affine(ir::Model& m, const TypeOracle& types);
int fuse_hard_swish(ir::Model& m, const TypeOracle& types);
int fuse_layer_norm(ir::Model& m, const TypeOracle& types);
int fuse_conv(ir::Model& m, const TypeOracle& types, const std::string& precision);
int fuse_matmul(ir::Model& m, const TypeOracle& types, const std::string& precision);
int fuse_gemm(ir::Model& m, const TypeOracle& types, const std::string& precision);
int to_channels_last(ir::Model& m, const TypeOracle& types);
int fuse_inverted_residual(ir::Model& m, const Target& target);
int fuse_qdq_conv(ir::Model& m, const Target& target);
int fuse_qdq_add(ir::Model& m);
int fuse_attention(ir::Model& m, const TypeOracle& types);

}  // namespace hi::passes
