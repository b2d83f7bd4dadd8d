#include "hipinfer/value.h"

#include <string>

namespace hi {

std::string Value::describe() const {
  switch (kind) {
    case Kind::kNone: return "nothing (an empty optional)";
    case Kind::kTensor: return "a tensor " + tensor.type_string();
    case Kind::kSequence: return "a sequence of " + std::to_string(sequence.size()) + " tensors";
    case Kind::kMap:
      return "a map of " + std::to_string(maps.empty() ? 0 : maps[0].size()) + " entries" +
             (maps.empty() ? "" : " (" + maps[0].keys.type_string() + " -> " + maps[0].values.type_string() + ")");
    case Kind::kMapSequence: return "a sequence of " + std::to_string(maps.size()) + " maps";
  }
  return "an unknown value";
}

}  // namespace hi
