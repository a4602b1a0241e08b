// bf16 GEMM for AMX with the rows of op(A) read in place: a 32 x 32 (or
// 32 x 16) tile of fp32 C from op(A) = A^T, whose rows are A's columns,
// contiguous along k, and op(B) pair-packed.
//
// Why: a decode step in a linear layer's layout (row-major x * W^T, W stored
// [outputs][inputs]) reaches ridge as few columns of C with A transposed. The
// blocked AMX kernel (bf16_gemm_amx.cpp) needs op(A) pair-packed, which means
// reading and rewriting all of A, the large operand, to use each element only
// n times. tdpbf16ps takes its first operand as 16 rows of 32 bf16 along k,
// each row anywhere in memory (one stride): exactly a row of op(A) in place.
// So here op(A) is the first operand, loaded straight from A, and op(B),
// k x n and small, is pair-packed once by the driver as the second. The
// result tiles are then C itself, a row of a tile being a piece of a row of
// C: they are transposed in registers on the way out to column-major C.
//
// Tiles (the configuration of amx_thread_begin: 8 tiles of 16 rows x 64 bytes):
// tmm0-3 accumulate C[i 0-15 | 16-31][j 0-15 | 16-31], tmm4-5 hold op(A)'s
// rows i 0-15 and 16-31 for one chunk of 32 k steps, tmm6-7 op(B)'s columns
// j 0-15 and 16-31. Up to 16 columns the j 16-31 tiles are skipped.
#include "kernels/intrinsics.h"

#include "kernels/avx512/transpose_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

constexpr int kChunk = 32;         // k steps per tile row of bf16
constexpr int kPairRowBytes = 128;  // one pair-row of the 32-wide packed op(B): 32 columns x 4 bytes

// C[i 0-15][j 0-15] of a result tile (tile[i][j]) into C's columns j0.. j0 + nr - 1,
// rows i0 .. i0 + 15: C = alpha * tile + beta * C, beta == 0 never reading C.
void store_tile(const float (&tile)[16][16], int64_t nr, float alpha, float beta, float* c, int64_t ldc) {
    __m512 r[16];
    for (int i = 0; i < 16; ++i) r[i] = _mm512_load_ps(tile[i]);
    transpose_16x16(r);  // r[j]: column j, rows i 0-15
    const __m512 valpha = _mm512_set1_ps(alpha), vbeta = _mm512_set1_ps(beta);
    for (int64_t j = 0; j < nr; ++j) {
        float* cj = c + j * ldc;
        const __m512 prod = _mm512_mul_ps(valpha, r[j]);
        _mm512_storeu_ps(cj, beta == 0.0f ? prod : _mm512_fmadd_ps(vbeta, _mm512_loadu_ps(cj), prod));
    }
}

template <bool kWide>
void rows_in_place(int64_t kc, int64_t nr, float alpha, const char* a, int64_t a_stride, const char* b,
                   float beta, float* c, int64_t ldc) {
    _tile_zero(0);
    _tile_zero(1);
    if (kWide) {
        _tile_zero(2);
        _tile_zero(3);
    }
    for (int64_t p = 0; p < kc; p += kChunk) {
        _tile_loadd(4, a, a_stride);                   // op(A) rows i 0-15, k p .. p + 31
        _tile_loadd(5, a + 16 * a_stride, a_stride);   // rows i 16-31
        _tile_loadd(6, b, kPairRowBytes);              // op(B) columns j 0-15, as K-pairs
        _tile_dpbf16ps(0, 4, 6);                       // C[i 0-15][j 0-15]
        _tile_dpbf16ps(1, 5, 6);                       // C[i 16-31][j 0-15]
        if (kWide) {
            _tile_loadd(7, b + 64, kPairRowBytes);     // columns j 16-31
            _tile_dpbf16ps(2, 4, 7);                   // C[i 0-15][j 16-31]
            _tile_dpbf16ps(3, 5, 7);                   // C[i 16-31][j 16-31]
        }
        a += kChunk * 2;
        b += (kChunk / 2) * kPairRowBytes;
    }
    alignas(64) float tile[16][16];
    const int64_t low = kWide ? 16 : nr;  // columns in the j 0-15 tiles
    _tile_stored(0, tile, 64);
    store_tile(tile, low, alpha, beta, c, ldc);
    _tile_stored(1, tile, 64);
    store_tile(tile, low, alpha, beta, c + 16, ldc);
    if (kWide) {
        _tile_stored(2, tile, 64);
        store_tile(tile, nr - 16, alpha, beta, c + 16 * ldc, ldc);
        _tile_stored(3, tile, 64);
        store_tile(tile, nr - 16, alpha, beta, c + 16 * ldc + 16, ldc);
    }
}

}  // namespace

void ukr_bf16_gemm_rows_in_place_32x32__amx(int64_t kc, int64_t nr, float alpha, const void* a, int64_t lda,
                                            const void* b_pairs, float beta, float* c, int64_t ldc) {
    const char* rows = static_cast<const char*>(a);
    const char* b = static_cast<const char*>(b_pairs);
    const int64_t a_stride = lda * 2;  // bytes from one row of op(A) to the next
    if (nr > 16)
        rows_in_place<true>(kc, nr, alpha, rows, a_stride, b, beta, c, ldc);
    else
        rows_in_place<false>(kc, nr, alpha, rows, a_stride, b, beta, c, ldc);
}

}  // namespace ridge
