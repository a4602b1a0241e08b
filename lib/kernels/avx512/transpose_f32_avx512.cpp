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

// A whole block of 16 rows x 8 columns (the skinny sweep copies B in groups
// of 8 columns for its 48 x 8 tiles: gemm_skinny.cpp, copy_b_chunk): 8 whole
// column loads, the 16 x 16 transpose with 8 zero columns, 16 half-vector
// stores, where the masked block loads 8 columns and stores 16 rows through
// lane masks. perf put the masked blocks at 4.5% of 4096 x 64 x 4096 (B's
// chunks copied again for each block of rows). Paired against the masked
// block (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K 9 [NT]`, both slot
// orders): 4096 x 64 x 4096 1.05 / 1.06, 4096 x 32 x 4096 1.03 / 1.01, 2048
// x 64 x 2048 1.02, 4000 x 64 x 4000 1.015, 1024 x 64 x 1024 1.014, 64 x 4096
// x 4096 NT (the sweep on C^T) 1.045.
void transpose_16x8_block(const float* src, int64_t lds, float* dst, int64_t ldd) {
    __m512 v[16];
    for (int64_t j = 0; j < 8; ++j) v[j] = _mm512_loadu_ps(src + j * lds);
    for (int64_t j = 8; j < 16; ++j) v[j] = _mm512_setzero_ps();
    transpose_16x16(v);  // v[i] lanes 0-7 = src(i, 0..7)
    for (int64_t i = 0; i < 16; ++i) _mm256_storeu_ps(dst + i * ldd, _mm512_castps512_ps256(v[i]));
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
            else if (r == 16 && c == 8)
                transpose_16x8_block(s, lds, d, ldd);
            else
                transpose_16x16_block<false>(r, c, s, lds, d, ldd);
        }
}

}  // namespace ridge
