// NumPy .npy files: read into a hi::Tensor and write one out, without Python.
//
// Reading accepts what numpy's np.save writes and np.load reads for the dtypes hipinfer holds:
//   - format versions 1.0, 2.0 and 3.0 (the header dict is parsed as a Python literal, with
//     Python 2's "3L" integers accepted);
//   - descr '<' / '>' / '=' / '|' followed by f2 f4 f8, i1 i2 i4 i8, u1 u2 u4 u8 or b1 ('?' too);
//     big-endian data is byte-swapped, bool bytes are normalised to 0/1;
//   - fortran_order True: the data is transposed into C order, so the tensor is always C order;
//   - any rank, including 0-d arrays and dims of size 0.
// Bytes after the array's data are ignored, as np.load does (np.save called twice on one file).
// Everything else is an error that names the file and says what was expected and what was found:
// a missing file (kNotFound), a malformed or truncated file or a dtype hipinfer cannot hold
// (kInvalidArgument; bfloat16, which numpy cannot name and ml_dtypes saves as '<V2', is one), and
// a tensor larger than the host memory limit (kOutOfMemory). The declared size is checked against
// the file before anything is allocated, so a forged header cannot make us allocate terabytes.
//
// Writing produces the bytes numpy >= 1.23 would write for the same array: format 1.0 (2.0 when
// the header does not fit 1.0's 16-bit length), little-endian ('<', or '|' for 1-byte types),
// C order, and the header padded with spaces to a 64-byte boundary so the data is aligned.
#pragma once

#include <cstddef>
#include <string>

#include "hipinfer/export.h"
#include "hipinfer/status.h"
#include "hipinfer/tensor.h"

HI_PUBLIC_BEGIN
namespace hi {

// Reads a .npy file. Regular files are read straight into the tensor's storage; anything else
// (a pipe, /dev/stdin) is read whole first.
Result<Tensor> read_npy(const std::string& path);

// Parses the bytes of a .npy file held in memory; `name_for_errors` starts every error message.
Result<Tensor> parse_npy(const void* data, size_t size, const std::string& name_for_errors);

// Writes `tensor` as a .npy file, replacing `path`. Types without a numpy equivalent (string,
// bfloat16, float8, 4-bit, complex) are rejected with kInvalidArgument; an incomplete file is
// removed when writing fails.
Status write_npy(const std::string& path, const Tensor& tensor);

}  // namespace hi
HI_PUBLIC_END
