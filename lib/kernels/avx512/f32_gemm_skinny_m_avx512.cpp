// fp32 GEMM with few rows (m <= 16) on AVX-512F, nothing packed: one call
// computes an mr x nr tile (mr <= 16, nr <= 24) of C over the whole k.
//
// With m <= 16 a column of op(A) is one zmm (masked), and C's tile needs one
// accumulator per column: 24 columns use 24 of the 32 zmm registers, leaving
// room for the A column and the broadcast. Each k step is one load of A (it
// stays in L1/L2: 16 x k floats) and 24 broadcasts of B, so B, the large
// operand, streams from memory exactly once, with no packing copy; the
// 32 x 12 kernels would waste half their rows here and pack all of B.
// B is read at any stride: op(B)(p, j) = b[p*b_step + j*b_col].
#include <immintrin.h>

#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

constexpr int kNR = 24;

// C[0:mr, 0:NR] = alpha * A * B + beta * C over k steps; `rows` masks A and C to mr rows.
// kColStride > 0 fixes b_col at compile time: the 24 broadcasts then address
// B as one pointer plus constant displacements. With a run-time b_col the
// compiler needs 24 offsets, more than the general registers, and reloads
// them from the stack: measured 85 GFLOP/s in cache against ~200 fixed.
template <int NR, int64_t kColStride>
void skinny_tile(int64_t k, float alpha, const float* a, int64_t a_step, const float* b, int64_t b_step,
                 int64_t b_col_runtime, float beta, float* c, int64_t ldc, __mmask16 rows) {
    const int64_t b_col = kColStride > 0 ? kColStride : b_col_runtime;
    __m512 acc[NR];
#pragma GCC unroll 24
    for (int j = 0; j < NR; ++j) acc[j] = _mm512_setzero_ps();
    for (int64_t p = 0; p < k; ++p) {
        const __m512 av = _mm512_maskz_loadu_ps(rows, a);
#pragma GCC unroll 24
        for (int j = 0; j < NR; ++j) acc[j] = _mm512_fmadd_ps(av, _mm512_set1_ps(b[j * b_col]), acc[j]);
        a += a_step;
        b += b_step;
    }
    const __m512 valpha = _mm512_set1_ps(alpha);
    const __m512 vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 24
    for (int j = 0; j < NR; ++j) {
        float* cj = c + j * ldc;
        __m512 r = _mm512_mul_ps(valpha, acc[j]);
        if (beta != 0.0f)  // beta == 0: C is not read, a NaN in it does not survive
            r = _mm512_fmadd_ps(vbeta, _mm512_maskz_loadu_ps(rows, cj), r);
        _mm512_mask_storeu_ps(cj, rows, r);
    }
}

using SkinnyTile = void (*)(int64_t, float, const float*, int64_t, const float*, int64_t, int64_t, float, float*,
                            int64_t, __mmask16);

// An edge of nr < 24 columns runs as pieces of 16, 8, 4, 2 and 1 columns: a
// few instances instead of 24, each piece re-reading A (small, in cache).
template <int64_t kColStride>
void edge_columns(int64_t nr, int64_t k, float alpha, const float* a, int64_t a_step, const float* b,
                  int64_t b_step, int64_t b_col, float beta, float* c, int64_t ldc, __mmask16 rows) {
    const struct {
        int width;
        SkinnyTile tile;
    } pieces[] = {{16, skinny_tile<16, kColStride>},
                  {8, skinny_tile<8, kColStride>},
                  {4, skinny_tile<4, kColStride>},
                  {2, skinny_tile<2, kColStride>},
                  {1, skinny_tile<1, kColStride>}};
    int64_t j = 0;
    for (const auto& piece : pieces) {
        for (; nr - j >= piece.width; j += piece.width)
            piece.tile(k, alpha, a, a_step, b + j * b_col, b_step, b_col, beta, c + j * ldc, ldc, rows);
    }
}

template <int64_t kColStride>
void tile(int64_t nr, int64_t k, float alpha, const float* a, int64_t a_step, const float* b, int64_t b_step,
          int64_t b_col, float beta, float* c, int64_t ldc, __mmask16 rows) {
    if (nr == kNR)
        skinny_tile<kNR, kColStride>(k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc, rows);
    else
        edge_columns<kColStride>(nr, k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc, rows);
}

}  // namespace

void ukr_f32_gemm_skinny_m_16x24__avx512(int64_t mr, int64_t nr, int64_t k, float alpha, const float* a,
                                         int64_t a_step, const float* b, int64_t b_step, int64_t b_col, float beta,
                                         float* c, int64_t ldc) {
    const __mmask16 rows = mr >= 16 ? __mmask16(0xffff) : __mmask16((1u << mr) - 1u);
    // The two strides the driver uses get code of their own (see skinny_tile).
    if (b_col == 1)  // B transposed: each k step is a contiguous row of op(B)
        tile<1>(nr, k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc, rows);
    else if (b_col == kSkinnyMCopyStride)  // the driver's copy of untransposed B
        tile<kSkinnyMCopyStride>(nr, k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc, rows);
    else
        tile<0>(nr, k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc, rows);
}

}  // namespace ridge
