// Value: what a model's input or output holds when it is not only a tensor. ONNX graphs pass
// tensors, sequences of tensors (SplitToSequence, Loop outputs), maps (the ai.onnx.ml ops) and
// optionals; a classifier exported from scikit-learn ends in ZipMap, whose output is a sequence
// of maps from class label to probability.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hipinfer/export.h"
#include "hipinfer/tensor.h"

HI_PUBLIC_BEGIN
namespace hi {

// A map: `keys` and `values` are 1-D tensors of one length; entry i maps keys[i] to values[i].
// Keys are int64 or string and distinct; values are any tensor type (float32 for ZipMap).
struct Map {
  Tensor keys;
  Tensor values;
  int64_t size() const { return keys.defined() ? keys.numel() : 0; }
};

// A runtime value. An optional is its element when present and kNone when empty.
struct Value {
  enum class Kind { kNone, kTensor, kSequence, kMap, kMapSequence };
  Kind kind = Kind::kNone;
  Tensor tensor;                 // kTensor
  std::vector<Tensor> sequence;  // kSequence: a sequence of tensors
  std::vector<Map> maps;         // kMap: exactly one map; kMapSequence: a sequence of maps

  static Value of(Tensor t) {
    Value v;
    v.kind = Kind::kTensor;
    v.tensor = std::move(t);
    return v;
  }
  static Value of_sequence(std::vector<Tensor> s) {
    Value v;
    v.kind = Kind::kSequence;
    v.sequence = std::move(s);
    return v;
  }
  static Value of_map(Map m) {
    Value v;
    v.kind = Kind::kMap;
    v.maps.push_back(std::move(m));
    return v;
  }
  static Value of_map_sequence(std::vector<Map> ms) {
    Value v;
    v.kind = Kind::kMapSequence;
    v.maps = std::move(ms);
    return v;
  }
  bool is_tensor() const { return kind == Kind::kTensor; }
  bool is_none() const { return kind == Kind::kNone; }
  // "a tensor float32[2, 3]", "a sequence of 4 tensors", "a map of 3 entries", "nothing".
  std::string describe() const;
};

using ValueMap = std::map<std::string, Value>;

}  // namespace hi
HI_PUBLIC_END
