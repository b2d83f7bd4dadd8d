#include "backends/cpu/ops/cpu_ops.h"

namespace hi::cpu {

#define HI_CPU_OP(name, op_type, domain) std::unique_ptr<ops::Op> make_cpu_op_##name();
#include "backends/cpu/ops/cpu_op_list.def"
#undef HI_CPU_OP

std::unique_ptr<ops::Op> make_cpu_op(const std::string& domain, const std::string& op_type) {
  struct Entry {
    const char* op_type;
    const char* domain;
    std::unique_ptr<ops::Op> (*make)();
  };
  static const Entry kOps[] = {
#define HI_CPU_OP(name, op_type, domain) {#op_type, domain, &make_cpu_op_##name},
#include "backends/cpu/ops/cpu_op_list.def"
#undef HI_CPU_OP
  };
  for (const Entry& e : kOps)
    if (op_type == e.op_type && domain == e.domain) return e.make();
  return nullptr;
}

}  // namespace hi::cpu
