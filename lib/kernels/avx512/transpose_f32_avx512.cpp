// The transpose of an fp32 block, copied (TransposeF32 in gemm_kernel.h): the
// skinny path on C^T gathers each block of C^T from C's rows into its scratch
// and scatters it back this way. 16 x 16 at a time: 16 column loads, the
// in-register transpose (transpose_avx512.h), 16 row stores; partial blocks
// through lane masks, so nothing outside the two blocks is read or written.
// A copy: every value moves bit for bit.
#include "kernels/intrinsics.h"

#include <algorithm>

#include "kernels/avx512/lanes_avx512.h"
#include "kernels/avx512/transpose_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

// One block of at most 16 x 16: src's rows x cols (columns lds apart) to
// dst's cols x rows (columns ldd apart). kFull: all 16 x 16, no masks.
template <bool kFull>
void transpose_16x16_block(int64_t rows, int64_t cols, const float* src, int64_t lds, float* dst, int64_t ldd) {
    const __mmask16 row_lanes = first_lanes(rows), col_lanes = first_lanes(cols);
    __m512 v[16];
    for (int64_t j = 0; j < 16; ++j)
        v[j] = kFull || j < cols ? load_lanes<kFull>(src + j * lds, row_lanes) : _mm512_setzero_ps();
    transpose_16x16(v);  // v[i] lane j = src(i, j)
    for (int64_t i = 0; i < (kFull ? 16 : rows); ++i) store_lanes<kFull>(dst + i * ldd, col_lanes, v[i]);
}

}  // namespace

void transpose_f32__avx512(int64_t rows, int64_t cols, const float* src, int64_t lds, float* dst, int64_t ldd) {
    for (int64_t j0 = 0; j0 < cols; j0 += 16)
        for (int64_t i0 = 0; i0 < rows; i0 += 16) {
            const int64_t r = std::min<int64_t>(16, rows - i0), c = std::min<int64_t>(16, cols - j0);
            const float* s = src + i0 + j0 * lds;
            float* d = dst + j0 + i0 * ldd;
            if (r == 16 && c == 16)
                transpose_16x16_block<true>(r, c, s, lds, d, ldd);
            else
                transpose_16x16_block<false>(r, c, s, lds, d, ldd);
        }
}

}  // namespace ridge
