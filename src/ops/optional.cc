// Optional: an optional holding its input (a tensor or a sequence), or an empty optional of the
// 'type' attribute when the input is absent.
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class OptionalOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    if (const ir::Attribute* a = ctx.node().attr("type")) {
      if (a->kind != ir::Attribute::Kind::kTypeProto)
        return ctx.fail(StatusCode::kInvalidModel, "attribute 'type' is ", ir::attribute_kind_name(a->kind),
                        ", expected type_proto");
      type_ = a->type;
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    if (ctx.num_inputs() > 1)
      return error(StatusCode::kInvalidModel, "Optional takes at most 1 input, the node has ", ctx.num_inputs());
    if (!ctx.has_input(0)) {
      if (!type_) return error(StatusCode::kInvalidModel, "Optional without an input needs the 'type' attribute");
      ctx.set_output_type(0, optional_of(*type_));
      return Status::ok();
    }
    const ir::ValueType& t = ctx.input_type(0);
    if (t.kind == ir::ValueKind::kOptional || t.kind == ir::ValueKind::kMap)
      return error(StatusCode::kInvalidModel, "Optional takes a tensor or a sequence, got ", t.to_string());
    if (type_ && type_->kind != ir::ValueKind::kUnknown && t.kind != ir::ValueKind::kUnknown && type_->kind != t.kind)
      return error(StatusCode::kInvalidModel, "the input is ", t.to_string(), " but the 'type' attribute says ",
                   type_->to_string());
    ctx.set_output_type(0, optional_of(t));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Value* v = ctx.input_value(0);
    ctx.set_output_value(0, v ? *v : Value{});
    return Status::ok();
  }

 private:
  std::optional<ir::ValueType> type_;
};

}  // namespace

HI_REGISTER_OP(Optional, OptionalOp)

}  // namespace hi::ops
