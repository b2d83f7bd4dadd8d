// NonMaxSuppression: per batch and class, greedily keeps the highest-scoring boxes (ties: the
// lower box index first) whose score exceeds score_threshold, dropping any box whose IoU with
// an already kept box exceeds iou_threshold, up to max_output_boxes_per_class (absent: 0).
// Output: int64 [selected, 3] rows of (batch, class, box). Boxes are [y1, x1, y2, x2] (corners in
// either order) or, with center_point_box=1, [x_center, y_center, width, height]. Arithmetic is in
// the boxes' type (float32 as ONNX Runtime does), so results at the threshold match it.
#include <algorithm>

#include "ops/elementwise.h"
#include "ops/index_util.h"

namespace hi::ops {
namespace {

template <typename C>
struct Box {
  C x_min, y_min, x_max, y_max;
};

class NonMaxSuppressionOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    center_point_box_ = ctx.get_int("center_point_box", 0);
    if (center_point_box_ != 0 && center_point_box_ != 1)
      return ctx.fail(StatusCode::kInvalidModel, "center_point_box must be 0 or 1, got ", center_point_box_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 5));
    const ir::ValueType& boxes = ctx.input_type(0);
    const ir::ValueType& scores = ctx.input_type(1);
    if (boxes.dtype != DType::kUndefined && !in_set(kFloatTypes, boxes.dtype))
      return unsupported_dtype(ctx.node(), boxes.dtype, "boxes");
    if (scores.dtype != DType::kUndefined && boxes.dtype != DType::kUndefined && scores.dtype != boxes.dtype)
      return error(StatusCode::kInvalidModel, "scores ", scores.to_string(), " must have the type of boxes ",
                   boxes.to_string());
    if (boxes.has_rank() && (boxes.rank() != 3 || ((*boxes.shape)[2].is_known() && (*boxes.shape)[2].value != 4)))
      return error(StatusCode::kInvalidModel, "boxes must be [batches, boxes, 4], got ", boxes.to_string());
    if (scores.has_rank() && scores.rank() != 3)
      return error(StatusCode::kInvalidModel, "scores must be [batches, classes, boxes], got ", scores.to_string());
    if (boxes.has_rank() && scores.has_rank() &&
        (!dims_may_match((*boxes.shape)[0], (*scores.shape)[0]) ||
         !dims_may_match((*boxes.shape)[1], (*scores.shape)[2])))
      return error(StatusCode::kInvalidModel, "boxes ", boxes.to_string(), " and scores ", scores.to_string(),
                   " disagree on the batches or the number of boxes");
    if (ctx.has_input(2) && ctx.input_type(2).dtype != DType::kUndefined && ctx.input_type(2).dtype != DType::kInt64)
      return error(StatusCode::kInvalidModel, "max_output_boxes_per_class must be int64, got ",
                   ctx.input_type(2).to_string());
    for (size_t i = 3; i < 5; ++i)
      if (ctx.has_input(i) && ctx.input_type(i).dtype != DType::kUndefined && !dtype_is_float(ctx.input_type(i).dtype))
        return error(StatusCode::kInvalidModel, i == 3 ? "iou_threshold" : "score_threshold", " must be float, got ",
                     ctx.input_type(i).to_string());
    for (size_t i = 2; i < 5; ++i)
      if (ctx.has_input(i) && ctx.input_type(i).is_static() && shape_numel(ctx.input_type(i).concrete_shape()) > 1)
        return error(StatusCode::kInvalidModel, "input ", i, " must hold one value, got ",
                     ctx.input_type(i).to_string());
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kInt64, {ir::Dim{}, ir::Dim::known(3)}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& boxes = ctx.in(0);
    const Tensor& scores = ctx.in(1);
    if (boxes.rank() != 3 || boxes.dim(2) != 4)
      return error(StatusCode::kInvalidArgument, "boxes must be [batches, boxes, 4], got ", boxes.type_string());
    if (scores.rank() != 3 || scores.dim(0) != boxes.dim(0) || scores.dim(2) != boxes.dim(1) ||
        scores.dtype() != boxes.dtype())
      return error(StatusCode::kInvalidArgument, "scores ", scores.type_string(), " must be [", boxes.dim(0),
                   ", classes, ", boxes.dim(1), "] of the boxes' type");
    int64_t max_out = 0;
    double iou_threshold = 0, score_threshold = 0;
    bool has_score_threshold = false;
    for (size_t i = 2; i < 5; ++i) {
      const Tensor* t = ctx.input(i);
      if (!t || t->numel() == 0) continue;
      if (t->numel() != 1)
        return error(StatusCode::kInvalidArgument, "input ", i, " must hold one value, got ", t->type_string());
      if (i == 2) {
        if (t->dtype() != DType::kInt64)
          return error(StatusCode::kInvalidArgument, "max_output_boxes_per_class must be int64, got ",
                       t->type_string());
        max_out = std::max<int64_t>(0, t->as_int64(0));
      } else if (!dtype_is_float(t->dtype())) {
        return error(StatusCode::kInvalidArgument, i == 3 ? "iou_threshold" : "score_threshold", " must be float, got ",
                     t->type_string());
      } else if (i == 3) {
        iou_threshold = t->as_double(0);
      } else {
        score_threshold = t->as_double(0);
        has_score_threshold = true;
      }
    }
    if (iou_threshold < 0 || iou_threshold > 1)
      return error(StatusCode::kInvalidArgument, "iou_threshold ", iou_threshold, " must be in [0, 1]");
    std::vector<int64_t> selected;  // triples
    const bool ok = dispatch<kFloatTypes>(boxes.dtype(), [&]<typename T>() {
      using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const T* pb = boxes.data<T>();
      const T* ps = scores.data<T>();
      const int64_t batches = boxes.dim(0), nboxes = boxes.dim(1), classes = scores.dim(1);
      std::vector<Box<C>> bx(static_cast<size_t>(nboxes));
      std::vector<int64_t> order, kept;
      for (int64_t b = 0; b < batches; ++b) {
        for (int64_t i = 0; i < nboxes; ++i) bx[static_cast<size_t>(i)] = box_at<T, C>(pb + (b * nboxes + i) * 4);
        for (int64_t c = 0; c < classes; ++c) {
          const T* s = ps + (b * classes + c) * nboxes;
          order.clear();
          // NaN scores cannot be ranked: they are never selected (and would break the sort).
          for (int64_t i = 0; i < nboxes; ++i) {
            const C v = static_cast<C>(s[i]);
            if (!std::isnan(v) && (!has_score_threshold || v > static_cast<C>(score_threshold))) order.push_back(i);
          }
          std::stable_sort(order.begin(), order.end(),
                           [&](int64_t a, int64_t bb) { return static_cast<C>(s[a]) > static_cast<C>(s[bb]); });
          kept.clear();
          for (int64_t i : order) {
            if (static_cast<int64_t>(kept.size()) >= max_out) break;
            bool keep = true;
            for (int64_t k : kept)
              if (suppresses(bx[static_cast<size_t>(i)], bx[static_cast<size_t>(k)], static_cast<C>(iou_threshold))) {
                keep = false;
                break;
              }
            if (!keep) continue;
            kept.push_back(i);
            selected.insert(selected.end(), {b, c, i});
          }
        }
      }
    });
    if (!ok) return unsupported_dtype(ctx.node(), boxes.dtype(), "boxes");
    Tensor& out = ctx.output(0, DType::kInt64, {static_cast<int64_t>(selected.size() / 3), 3});
    std::copy(selected.begin(), selected.end(), out.data<int64_t>());
    return Status::ok();
  }

 private:
  template <typename T, typename C>
  Box<C> box_at(const T* p) const {
    const C a = static_cast<C>(p[0]), b = static_cast<C>(p[1]), c = static_cast<C>(p[2]), d = static_cast<C>(p[3]);
    if (center_point_box_ == 1) return {a - c / C(2), b - d / C(2), a + c / C(2), b + d / C(2)};
    return {std::min(b, d), std::min(a, c), std::max(b, d), std::max(a, c)};  // [y1, x1, y2, x2]
  }

  // IoU(a, b) > threshold; boxes without area or overlap never suppress.
  template <typename C>
  static bool suppresses(const Box<C>& a, const Box<C>& b, C threshold) {
    const C ix_min = std::max(a.x_min, b.x_min), ix_max = std::min(a.x_max, b.x_max);
    if (ix_max <= ix_min) return false;
    const C iy_min = std::max(a.y_min, b.y_min), iy_max = std::min(a.y_max, b.y_max);
    if (iy_max <= iy_min) return false;
    const C inter = (ix_max - ix_min) * (iy_max - iy_min);
    const C area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min), area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
    const C uni = area_a + area_b - inter;
    if (inter <= 0 || area_a <= 0 || area_b <= 0 || uni <= 0) return false;
    return inter / uni > threshold;
  }

  int64_t center_point_box_ = 0;
};

}  // namespace

HI_REGISTER_OP(NonMaxSuppression, NonMaxSuppressionOp)

}  // namespace hi::ops
