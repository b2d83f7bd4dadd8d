// Log: elementwise the natural logarithm.
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

struct LogFn {
  template <typename T>
  T operator()(T x) const {
    return static_cast<T>(std::log(x));
  }
};

}  // namespace

HI_REGISTER_OP(Log, UnaryOp<kFloatTypes, LogFn>)

}  // namespace hi::ops
