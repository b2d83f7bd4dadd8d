// Col2Im (opset 18): the inverse of im2col. Input [N, C * prod(block_shape), L] holds, for each
// of the L sliding blocks over the (padded) image, the block's values; they are summed back into
// an image [N, C, image_shape...]. strides, dilations and pads place the blocks as Conv does.
#include "ops/index_util.h"

namespace hi::ops {
namespace {

struct Geometry {
  std::vector<int64_t> image, block, strides, dilations, pads, blocks;  // blocks: count per dim
};

class Col2ImOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    strides_ = ctx.get_ints("strides");
    dilations_ = ctx.get_ints("dilations");
    pads_ = ctx.get_ints("pads");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, 3));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kNumericTypes, x.dtype))
      return error(StatusCode::kUnsupported, "Col2Im does not support input type ", dtype_name(x.dtype));
    HI_RETURN_IF_ERROR(check_int_list_type(ctx.input_type(1), "image_shape"));
    HI_RETURN_IF_ERROR(check_int_list_type(ctx.input_type(2), "block_shape"));
    if (x.has_rank() && x.rank() != 3)
      return error(StatusCode::kInvalidModel, "input must be [N, C * prod(block_shape), L], got ", x.to_string());
    const Tensor* image = ctx.input_value(1);
    const Tensor* block = ctx.input_value(2);
    int64_t spatial = -1;
    if (image) spatial = image->numel();
    else if (ctx.input_type(1).is_static() && ctx.input_type(1).rank() == 1)
      spatial = ctx.input_type(1).concrete_shape()[0];
    if (spatial < 0 || spatial + 2 > kMaxInferredRank) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    std::vector<ir::Dim> out(static_cast<size_t>(spatial + 2));
    if (x.has_rank()) out[0] = (*x.shape)[0];
    if (image && block) {
      HI_ASSIGN_OR_RETURN(Geometry g, geometry(*image, *block, StatusCode::kInvalidModel));
      const int64_t bsize = shape_numel(g.block);
      if (x.has_rank()) {
        const ir::Dim& cb = (*x.shape)[1];
        const ir::Dim& l = (*x.shape)[2];
        if (cb.is_known()) {
          if (bsize == 0 || cb.value % bsize != 0)
            return error(StatusCode::kInvalidModel, "input dim 1 (", cb.value,
                         ") is not a multiple of prod(block_shape) ", bsize);
          out[1] = ir::Dim::known(cb.value / bsize);
        }
        if (l.is_known() && l.value != shape_numel(g.blocks))
          return error(StatusCode::kInvalidModel, "input dim 2 (", l.value, ") must be the number of sliding blocks ",
                       shape_to_string(g.blocks), " = ", shape_numel(g.blocks));
      }
      for (size_t i = 0; i < g.image.size(); ++i) out[i + 2] = ir::Dim::known(g.image[i]);
      HI_RETURN_IF_ERROR(check_output_dims(out, "input 'image_shape' " + shape_to_string(g.image)));
    } else if (image) {
      const std::vector<int64_t> im = image->to_int64_vector();
      for (size_t i = 0; i < im.size(); ++i) out[i + 2] = ir::Dim::known(im[i]);
      HI_RETURN_IF_ERROR(check_output_dims(out, "input 'image_shape' " + shape_to_string(im)));
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.rank() != 3)
      return error(StatusCode::kInvalidArgument, "input must be [N, C * prod(block_shape), L], got ", x.type_string());
    HI_ASSIGN_OR_RETURN(Geometry g, geometry(ctx.in(1), ctx.in(2), StatusCode::kInvalidArgument));
    const int64_t bsize = shape_numel(g.block), nblocks = shape_numel(g.blocks);
    if (bsize == 0 || x.dim(1) % bsize != 0)
      return error(StatusCode::kInvalidArgument, "input dim 1 (", x.dim(1), ") is not a multiple of prod(block_shape) ",
                   bsize);
    if (x.dim(2) != nblocks)
      return error(StatusCode::kInvalidArgument, "input ", x.type_string(),
                   " dim 2 must be the number of sliding blocks ", shape_to_string(g.blocks), " = ", nblocks);
    const int64_t n = x.dim(0), c = x.dim(1) / bsize;
    Shape out_shape = {n, c};
    out_shape.insert(out_shape.end(), g.image.begin(), g.image.end());
    HI_RETURN_IF_ERROR(
        check_output_shape(out_shape, "input 'image_shape' " + shape_to_string(g.image), StatusCode::kInvalidArgument));
    Tensor& y = ctx.output(0, x.dtype(), out_shape);
    if (y.numel() == 0) return Status::ok();
    const int64_t image_size = shape_numel(g.image);
    const size_t r = g.image.size();
    if (!dispatch<kNumericTypes>(x.dtype(), [&]<typename T>() {
          using A = std::conditional_t<kIsFloat<T>, std::conditional_t<std::is_same_v<T, double>, double, float>, T>;
          std::vector<A> acc(static_cast<size_t>(image_size));
          const T* px = x.data<T>();
          T* py = y.data<T>();
          for (int64_t plane = 0; plane < n * c; ++plane) {
            std::fill(acc.begin(), acc.end(), A(0));
            const T* col = px + plane * bsize * nblocks;
            for_each_index(g.block, [&](int64_t k, const std::vector<int64_t>& kidx) {
              for_each_index(g.blocks, [&](int64_t b, const std::vector<int64_t>& bidx) {
                int64_t off = 0;
                for (size_t d = 0; d < r; ++d) {
                  const int64_t pos = bidx[d] * g.strides[d] - g.pads[d] + kidx[d] * g.dilations[d];
                  if (pos < 0 || pos >= g.image[d]) return;
                  off = off * g.image[d] + pos;
                }
                acc[static_cast<size_t>(off)] =
                    wrap_add(acc[static_cast<size_t>(off)], static_cast<A>(col[k * nblocks + b]));
              });
            });
            for (int64_t i = 0; i < image_size; ++i)
              py[plane * image_size + i] = static_cast<T>(acc[static_cast<size_t>(i)]);
          }
        }))
      return error(StatusCode::kUnsupported, "Col2Im does not support input type ", dtype_name(x.dtype()));
    return Status::ok();
  }

 private:
  Result<Geometry> geometry(const Tensor& image, const Tensor& block, StatusCode code) const {
    if (!dtype_is_integer(image.dtype()) || image.rank() != 1 || !dtype_is_integer(block.dtype()) || block.rank() != 1)
      return error(code, "image_shape ", image.type_string(), " and block_shape ", block.type_string(),
                   " must be 1-D integer tensors");
    Geometry g;
    g.image = image.to_int64_vector();
    g.block = block.to_int64_vector();
    const size_t r = g.image.size();
    if (r == 0 || g.block.size() != r)
      return error(code, "image_shape ", shape_to_string(g.image), " and block_shape ", shape_to_string(g.block),
                   " must have the same, non-zero length");
    g.strides = strides_.empty() ? std::vector<int64_t>(r, 1) : strides_;
    g.dilations = dilations_.empty() ? std::vector<int64_t>(r, 1) : dilations_;
    g.pads = pads_.empty() ? std::vector<int64_t>(2 * r, 0) : pads_;
    if (g.strides.size() != r || g.dilations.size() != r || g.pads.size() != 2 * r)
      return error(code, "strides/dilations/pads have ", g.strides.size(), "/", g.dilations.size(), "/", g.pads.size(),
                   " values for ", r, " spatial dims");
    for (size_t d = 0; d < r; ++d) {
      if (g.image[d] <= 0 || g.block[d] <= 0 || g.strides[d] <= 0 || g.dilations[d] <= 0)
        return error(code, "image_shape, block_shape, strides and dilations must be positive (dim ", d, ")");
      if (g.pads[d] < 0 || g.pads[d + r] < 0)
        return error(code, "pads ", shape_to_string(g.pads), " must be non-negative");
      constexpr int64_t kMax = int64_t{1} << 31;  // keeps the size arithmetic below from overflowing
      if (g.image[d] > (kMax << 16) || g.block[d] > kMax || g.dilations[d] > kMax || g.pads[d] > kMax ||
          g.pads[d + r] > kMax)
        return error(code, "image_shape/block_shape/dilations/pads of dim ", d, " are too large");
      const int64_t span = g.image[d] + g.pads[d] + g.pads[d + r] - (g.dilations[d] * (g.block[d] - 1) + 1);
      if (span < 0)
        return error(code, "the block ", shape_to_string(g.block), " (dilated) does not fit the padded image ",
                     shape_to_string(g.image), " in dim ", d);
      g.blocks.push_back(span / g.strides[d] + 1);
    }
    // Each dim is bounded above, their products are not.
    if (shape_numel(g.block) < 0)
      return error(code, "input 'block_shape' ", shape_to_string(g.block), " has more elements than int64 can count");
    if (shape_numel(g.image) < 0)
      return error(code, "input 'image_shape' ", shape_to_string(g.image), " has more elements than int64 can count");
    if (shape_numel(g.blocks) < 0)
      return error(code, "input 'image_shape' ", shape_to_string(g.image), " holds ", shape_to_string(g.blocks),
                   " sliding blocks, more than int64 can count");
    return g;
  }

  std::vector<int64_t> strides_, dilations_, pads_;
};

}  // namespace

HI_REGISTER_OP(Col2Im, Col2ImOp)

}  // namespace hi::ops
