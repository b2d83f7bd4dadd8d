// FusedAttention (com.hipinfer) against attention written out in double: awkward sizes (query and
// key lengths that differ, value width unlike the key width, three heads, batch 2), masks that
// broadcast over heads or rows, and sizes past a 16-column vector so the packed products' tails
// are exercised.
#include <cmath>
#include <vector>

#include "ops/op_test_util.h"

namespace hi::test {
namespace {

// Y[b, i, h, :] = softmax_j(scale * Q[b, i, h] . K[b, j, h] + mask) V[b, j, h, :].
Tensor reference_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, float scale) {
  const int64_t b = q.dim(0), sq = q.dim(1), h = q.dim(2), d = q.dim(3), skv = k.dim(1), dv = v.dim(3);
  Tensor y = Tensor::empty(DType::kFloat32, {b, sq, h, dv});
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t hi = 0; hi < h; ++hi)
      for (int64_t i = 0; i < sq; ++i) {
        std::vector<double> s(static_cast<size_t>(skv));
        double mx = -1e300;
        for (int64_t j = 0; j < skv; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < d; ++c)
            dot += double(q.data<float>()[((bi * sq + i) * h + hi) * d + c]) *
                   k.data<float>()[((bi * skv + j) * h + hi) * d + c];
          dot *= scale;
          if (mask) {
            // mask [B or 1, H or 1, Sq or 1, Skv]
            const Shape& m = mask->shape();
            const int64_t mb = m[0] == 1 ? 0 : bi, mh = m[1] == 1 ? 0 : hi, mi = m[2] == 1 ? 0 : i;
            dot += mask->data<float>()[((mb * m[1] + mh) * m[2] + mi) * m[3] + j];
          }
          s[static_cast<size_t>(j)] = dot;
          mx = std::max(mx, dot);
        }
        double sum = 0;
        for (double& e : s) sum += (e = std::exp(e - mx));
        for (int64_t c = 0; c < dv; ++c) {
          double acc = 0;
          for (int64_t j = 0; j < skv; ++j)
            acc += s[static_cast<size_t>(j)] / sum * v.data<float>()[((bi * skv + j) * h + hi) * dv + c];
          y.data<float>()[((bi * sq + i) * h + hi) * dv + c] = static_cast<float>(acc);
        }
      }
  return y;
}

TEST(FusedAttention, MatchesAttentionWrittenOut) {
  struct Case {
    int64_t b, sq, skv, h, d, dv;
    Shape mask;  // empty: none
  };
  const Case cases[] = {{1, 1, 1, 1, 1, 1, {}},
                        {2, 5, 7, 3, 4, 6, {2, 1, 1, 7}},
                        {1, 37, 19, 2, 33, 17, {1, 2, 37, 19}},
                        {2, 20, 20, 3, 16, 16, {}},
                        {1, 13, 40, 1, 20, 48, {1, 1, 1, 40}}};
  uint64_t seed = 1;
  for (const Case& c : cases) {
    OpCase op;
    op.op_type = "FusedAttention";
    op.domain = "com.hipinfer";
    op.opset = 1;
    op.attrs["scale"] = attr_float(0.37f);
    const Tensor q = random_f32({c.b, c.sq, c.h, c.d}, seed++, -2.f, 2.f);
    const Tensor k = random_f32({c.b, c.skv, c.h, c.d}, seed++, -2.f, 2.f);
    const Tensor v = random_f32({c.b, c.skv, c.h, c.dv}, seed++);
    op.inputs = {q, k, v};
    Tensor mask;
    if (!c.mask.empty()) {
      mask = random_f32(c.mask, seed++, -3.f, 0.f);
      op.inputs.push_back(mask);
    }
    auto r = run_op(op);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    expect_tensor_near(r.value()[0], reference_attention(q, k, v, c.mask.empty() ? nullptr : &mask, 0.37f), 1e-4, 1e-5);
  }
}

}  // namespace
}  // namespace hi::test
