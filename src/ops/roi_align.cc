// RoiAlign: for each region of interest ([x1, y1, x2, y2] in input coordinates times
// spatial_scale, of image batch_indices[i]) an [output_height, output_width] grid of bins, each
// the average (or max) of sampling_ratio^2 bilinear samples (sampling_ratio 0: ceil(bin size)
// per dim). coordinate_transformation_mode (opset 16) 'half_pixel' shifts the ROI by -0.5 pixel;
// 'output_half_pixel' (the only behaviour before opset 16) does not, and forces ROIs to be at
// least 1x1. Samples more than one pixel outside the image count as 0; 'max' takes, per sample,
// the largest of the four weighted corner values, as ONNX Runtime and the ONNX reference do.
#include "ops/elementwise.h"
#include "ops/index_util.h"

namespace hi::ops {
namespace {

class RoiAlignOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    const std::string mode = ctx.get_string("mode", "avg");
    if (mode != "avg" && mode != "max")
      return ctx.fail(StatusCode::kInvalidModel, "mode '", mode, "' is not one of avg, max");
    max_ = mode == "max";
    const std::string ctm =
        ctx.get_string("coordinate_transformation_mode", ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
    if (ctm != "half_pixel" && ctm != "output_half_pixel")
      return ctx.fail(StatusCode::kInvalidModel, "coordinate_transformation_mode '", ctm,
                      "' is not one of half_pixel, output_half_pixel");
    half_pixel_ = ctm == "half_pixel";
    out_h_ = ctx.get_int("output_height", 1);
    out_w_ = ctx.get_int("output_width", 1);
    sampling_ratio_ = ctx.get_int("sampling_ratio", 0);
    spatial_scale_ = ctx.get_float("spatial_scale", 1.f);
    if (out_h_ <= 0 || out_w_ <= 0)
      return ctx.fail(StatusCode::kInvalidModel, "output_height and output_width must be positive, got ", out_h_,
                      " and ", out_w_);
    if (sampling_ratio_ < 0)
      return ctx.fail(StatusCode::kInvalidModel, "sampling_ratio must be >= 0, got ", sampling_ratio_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, 3));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& rois = ctx.input_type(1);
    const ir::ValueType& bi = ctx.input_type(2);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype))
      return unsupported_dtype(ctx.node(), x.dtype, "X");
    if (rois.dtype != DType::kUndefined && x.dtype != DType::kUndefined && rois.dtype != x.dtype)
      return error(StatusCode::kInvalidModel, "rois ", rois.to_string(), " must have the type of X ", x.to_string());
    if (bi.dtype != DType::kUndefined && bi.dtype != DType::kInt64)
      return error(StatusCode::kInvalidModel, "batch_indices must be int64, got ", bi.to_string());
    if (x.has_rank() && x.rank() != 4)
      return error(StatusCode::kInvalidModel, "X must be [N, C, H, W], got ", x.to_string());
    if (rois.has_rank() && (rois.rank() != 2 || ((*rois.shape)[1].is_known() && (*rois.shape)[1].value != 4)))
      return error(StatusCode::kInvalidModel, "rois must be [num_rois, 4], got ", rois.to_string());
    if (bi.has_rank() && bi.rank() != 1)
      return error(StatusCode::kInvalidModel, "batch_indices must be [num_rois], got ", bi.to_string());
    ir::Dim num_rois = rois.has_rank() ? (*rois.shape)[0] : bi.has_rank() ? (*bi.shape)[0] : ir::Dim{};
    if (rois.has_rank() && bi.has_rank() && !dims_may_match((*rois.shape)[0], (*bi.shape)[0]))
      return error(StatusCode::kInvalidModel, "rois ", rois.to_string(), " and batch_indices ", bi.to_string(),
                   " disagree on num_rois");
    if (!num_rois.is_known() && bi.has_rank() && (*bi.shape)[0].is_known()) num_rois = (*bi.shape)[0];
    const ir::Dim c = x.has_rank() ? (*x.shape)[1] : ir::Dim{};
    ctx.set_output_type(0,
                        ir::ValueType::tensor(x.dtype, {num_rois, c, ir::Dim::known(out_h_), ir::Dim::known(out_w_)}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& rois = ctx.in(1);
    const Tensor& bi = ctx.in(2);
    if (x.rank() != 4) return error(StatusCode::kInvalidArgument, "X must be [N, C, H, W], got ", x.type_string());
    if (rois.rank() != 2 || rois.dim(1) != 4 || rois.dtype() != x.dtype())
      return error(StatusCode::kInvalidArgument, "rois must be [num_rois, 4] of X's type, got ", rois.type_string());
    if (bi.dtype() != DType::kInt64 || bi.rank() != 1 || bi.dim(0) != rois.dim(0))
      return error(StatusCode::kInvalidArgument, "batch_indices must be int64 [", rois.dim(0), "], got ",
                   bi.type_string());
    const int64_t n_rois = rois.dim(0), channels = x.dim(1), height = x.dim(2), width = x.dim(3);
    for (int64_t r = 0; r < n_rois; ++r) {
      const int64_t b = bi.data<int64_t>()[r];
      if (b < 0 || b >= x.dim(0))
        return error(StatusCode::kInvalidArgument, "batch_indices[", r, "] = ", b, " is out of range for X with ",
                     x.dim(0), " images: expected [0, ", x.dim(0) - 1, "]");
    }
    Tensor& y = ctx.output(0, x.dtype(), {n_rois, channels, out_h_, out_w_});
    Status status;
    const bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      const T* pr = rois.data<T>();
      T* py = y.data<T>();
      std::vector<Sample> samples;
      for (int64_t r = 0; r < n_rois; ++r) {
        const double offset = half_pixel_ ? 0.5 : 0.0;
        const double scale = spatial_scale_;
        const double x1 = static_cast<double>(pr[r * 4 + 0]) * scale - offset,
                     y1 = static_cast<double>(pr[r * 4 + 1]) * scale - offset;
        const double x2 = static_cast<double>(pr[r * 4 + 2]) * scale - offset,
                     y2 = static_cast<double>(pr[r * 4 + 3]) * scale - offset;
        double roi_w = x2 - x1, roi_h = y2 - y1;
        if (!half_pixel_) {  // malformed ROIs become 1x1
          roi_w = std::max(roi_w, 1.0);
          roi_h = std::max(roi_h, 1.0);
        }
        const double bin_h = roi_h / static_cast<double>(out_h_), bin_w = roi_w / static_cast<double>(out_w_);
        const int64_t grid_h = sampling_ratio_ > 0 ? sampling_ratio_ : grid_count(bin_h);
        const int64_t grid_w = sampling_ratio_ > 0 ? sampling_ratio_ : grid_count(bin_w);
        // A runaway ROI (or sampling_ratio) would take hours rather than fail: refuse it.
        if (static_cast<double>(grid_h) * static_cast<double>(grid_w) > 1e8) {
          status = error(StatusCode::kInvalidArgument, "ROI ", r, " needs ", grid_h, " x ", grid_w,
                         " samples per bin (sampling_ratio ", sampling_ratio_, "); more than 1e8 is refused");
          return;
        }
        const double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
        const int64_t b = bi.data<int64_t>()[r];
        for (int64_t ph = 0; ph < out_h_; ++ph)
          for (int64_t pw = 0; pw < out_w_; ++pw) {
            samples.clear();
            for (int64_t iy = 0; iy < grid_h; ++iy) {
              const double yy = y1 + static_cast<double>(ph) * bin_h +
                                (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(grid_h);
              for (int64_t ix = 0; ix < grid_w; ++ix) {
                const double xx = x1 + static_cast<double>(pw) * bin_w +
                                  (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(grid_w);
                samples.push_back(bilinear(yy, xx, height, width));
              }
            }
            if (height == 0 || width == 0) samples.clear();  // nothing to read: every bin is 0
            for (int64_t c = 0; c < channels; ++c) {
              const T* plane = px + (b * channels + c) * height * width;
              double v = 0;
              bool first = true;
              for (const Sample& s : samples) {
                const double v1 = s.w[0] * static_cast<double>(plane[s.pos[0]]),
                             v2 = s.w[1] * static_cast<double>(plane[s.pos[1]]);
                const double v3 = s.w[2] * static_cast<double>(plane[s.pos[2]]),
                             v4 = s.w[3] * static_cast<double>(plane[s.pos[3]]);
                if (!max_) {
                  v += v1 + v2 + v3 + v4;
                } else {
                  const double m = std::max({v1, v2, v3, v4});
                  v = first ? m : std::max(v, m);
                  first = false;
                }
              }
              if (!max_) v /= count;
              py[((r * channels + c) * out_h_ + ph) * out_w_ + pw] = static_cast<T>(static_cast<compute_t<T>>(v));
            }
          }
      }
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype(), "X");
    return status;
  }

 private:
  // The four corners of a bilinear sample and their weights (all zero outside the image).
  struct Sample {
    int64_t pos[4] = {0, 0, 0, 0};
    double w[4] = {0, 0, 0, 0};
  };

  // Samples per bin along one dim when sampling_ratio is 0: ceil(bin size), 0 for empty or
  // non-finite bins.
  static int64_t grid_count(double bin) {
    if (!(bin > 0) || !std::isfinite(bin)) return 0;
    return static_cast<int64_t>(std::ceil(std::min(bin, 1e9)));
  }

  static Sample bilinear(double y, double x, int64_t height, int64_t width) {
    Sample s;
    if (!(y >= -1.0 && y <= static_cast<double>(height) && x >= -1.0 && x <= static_cast<double>(width)) ||
        height == 0 || width == 0)
      return s;
    y = std::max(y, 0.0);
    x = std::max(x, 0.0);
    int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x), y_high, x_high;
    if (y_low >= height - 1) {
      y_high = y_low = height - 1;
      y = static_cast<double>(y_low);
    } else {
      y_high = y_low + 1;
    }
    if (x_low >= width - 1) {
      x_high = x_low = width - 1;
      x = static_cast<double>(x_low);
    } else {
      x_high = x_low + 1;
    }
    const double ly = y - static_cast<double>(y_low), lx = x - static_cast<double>(x_low), hy = 1 - ly, hx = 1 - lx;
    s.pos[0] = y_low * width + x_low;
    s.pos[1] = y_low * width + x_high;
    s.pos[2] = y_high * width + x_low;
    s.pos[3] = y_high * width + x_high;
    s.w[0] = hy * hx;
    s.w[1] = hy * lx;
    s.w[2] = ly * hx;
    s.w[3] = ly * lx;
    return s;
  }

  bool max_ = false, half_pixel_ = true;
  int64_t out_h_ = 1, out_w_ = 1, sampling_ratio_ = 0;
  float spatial_scale_ = 1.f;
};

}  // namespace

HI_REGISTER_OP(RoiAlign, RoiAlignOp)

}  // namespace hi::ops
