#include "batching.h"

#include <cstring>
#include <numeric>

namespace hi::server {
namespace {

bool same_past_batch_dim(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.rank() != b.rank() || a.rank() == 0) return false;
  return std::equal(a.shape().begin() + 1, a.shape().end(), b.shape().begin() + 1);
}

// Copies `count` rows of `row_elems` elements from src (starting at row src_row) into dst at dst_row.
void copy_rows(const Tensor& src, int64_t src_row, Tensor& dst, int64_t dst_row, int64_t count) {
  const int64_t row_elems = src.rank() == 0 || src.dim(0) == 0 ? 0 : src.numel() / src.dim(0);
  if (src.dtype() == DType::kString) {
    const std::string* from = src.strings() + src_row * row_elems;
    std::copy(from, from + count * row_elems, dst.strings() + dst_row * row_elems);
    return;
  }
  const size_t row_bytes = static_cast<size_t>(row_elems) * dtype_size(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw()) + dst_row * row_bytes,
              static_cast<const char*>(src.raw()) + src_row * row_bytes, count * row_bytes);
}

}  // namespace

bool batch_compatible(const TensorMap& a, const TensorMap& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
    if (ia->first != ib->first || !same_past_batch_dim(ia->second, ib->second)) return false;
  return true;
}

int64_t batch_size_of(const TensorMap& inputs) {
  if (inputs.empty() || inputs.begin()->second.rank() == 0) return -1;
  return inputs.begin()->second.dim(0);
}

TensorMap concat_batch(const std::vector<const TensorMap*>& requests) {
  TensorMap joined;
  for (const auto& [name, first] : *requests.front()) {
    Shape shape = first.shape();
    shape[0] = 0;
    for (const TensorMap* r : requests) shape[0] += r->at(name).dim(0);
    Tensor out = Tensor::empty(first.dtype(), shape);
    int64_t row = 0;
    for (const TensorMap* r : requests) {
      const Tensor& piece = r->at(name);
      copy_rows(piece, 0, out, row, piece.dim(0));
      row += piece.dim(0);
    }
    joined.emplace(name, std::move(out));
  }
  return joined;
}

Result<std::vector<TensorMap>> split_batch(const TensorMap& outputs, const std::vector<int64_t>& sizes) {
  const int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
  std::vector<TensorMap> pieces(sizes.size());
  for (const auto& [name, out] : outputs) {
    HI_RETURN_IF(out.rank() == 0 || out.dim(0) != total, kInternal, "output '", name, "' of a batched run has shape ",
                 shape_to_string(out.shape()), ", expected its dim 0 to be the batch ", total,
                 " (the model's outputs must keep the batch dimension to be batched)");
    int64_t row = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      Shape shape = out.shape();
      shape[0] = sizes[i];
      Tensor piece = Tensor::empty(out.dtype(), shape);
      copy_rows(out, row, piece, 0, sizes[i]);
      row += sizes[i];
      pieces[i].emplace(name, std::move(piece));
    }
  }
  return pieces;
}

}  // namespace hi::server
