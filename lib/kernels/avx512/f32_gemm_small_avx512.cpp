// fp32 GEMM for small problems on AVX-512F, without packing: one call
// computes an mr x nr tile (mr <= 32, nr <= 12) of C straight from A and B.
//
// Packing pays for itself only when a panel is reused many times; in a small
// GEMM it is not, and copying costs as much as computing (at 32^3 a packed
// multiply spends a third of its time packing). Here A is read in place: each
// k step is one column of op(A), rows contiguous (the caller packs A first
// when it is transposed). B needs no packing at all: each of its values is
// broadcast from memory, which costs one scalar load at any stride.
// The register tile and its reasoning are the 32 x 12 kernel's
// (f32_gemm_avx512.cpp); rows past mr are masked off, columns past nr are
// never computed (one instance per nr).
#include <immintrin.h>

#include "kernels/avx512/lanes_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

constexpr int kNR = 12;

template <int NR, bool kFull>
void small_tile(int64_t k, float alpha, const float* a, int64_t a_step, const float* b,
                int64_t b_step, int64_t b_col, float beta, float* c, int64_t ldc, __mmask16 mask_lo,
                __mmask16 mask_hi) {
    __m512 lo[NR];
    __m512 hi[NR];
#pragma GCC unroll 12
    for (int j = 0; j < NR; ++j) {
        lo[j] = _mm512_setzero_ps();
        hi[j] = _mm512_setzero_ps();
    }
#pragma GCC unroll 2
    for (int64_t p = 0; p < k; ++p) {
        const __m512 a_lo = load_lanes<kFull>(a, mask_lo);
        const __m512 a_hi = load_lanes<kFull>(a + 16, mask_hi);
#pragma GCC unroll 12
        for (int j = 0; j < NR; ++j) {
            const __m512 bj = _mm512_set1_ps(b[j * b_col]);
            lo[j] = _mm512_fmadd_ps(a_lo, bj, lo[j]);
            hi[j] = _mm512_fmadd_ps(a_hi, bj, hi[j]);
        }
        a += a_step;
        b += b_step;
    }
    const __m512 valpha = _mm512_set1_ps(alpha);
    const __m512 vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 12
    for (int j = 0; j < NR; ++j) {
        float* cj = c + j * ldc;
        __m512 r_lo = _mm512_mul_ps(valpha, lo[j]);
        __m512 r_hi = _mm512_mul_ps(valpha, hi[j]);
        if (beta != 0.0f) {  // beta == 0: C is not read, a NaN in it does not survive
            r_lo = _mm512_fmadd_ps(valpha, lo[j], _mm512_mul_ps(vbeta, load_lanes<kFull>(cj, mask_lo)));
            r_hi = _mm512_fmadd_ps(valpha, hi[j], _mm512_mul_ps(vbeta, load_lanes<kFull>(cj + 16, mask_hi)));
        }
        store_lanes<kFull>(cj, mask_lo, r_lo);
        store_lanes<kFull>(cj + 16, mask_hi, r_hi);
    }
}

using SmallTile = void (*)(int64_t, float, const float*, int64_t, const float*, int64_t, int64_t, float,
                           float*, int64_t, __mmask16, __mmask16);
// One instance per width: full tiles (all 32 rows, plain loads and stores) and
// edge tiles (masked rows).
constexpr SmallTile kFullTileForNr[kNR + 1] = {
    nullptr,               small_tile<1, true>,  small_tile<2, true>,  small_tile<3, true>,
    small_tile<4, true>,   small_tile<5, true>,  small_tile<6, true>,  small_tile<7, true>,
    small_tile<8, true>,   small_tile<9, true>,  small_tile<10, true>, small_tile<11, true>,
    small_tile<12, true>};
constexpr SmallTile kEdgeTileForNr[kNR + 1] = {
    nullptr,                small_tile<1, false>,  small_tile<2, false>,  small_tile<3, false>,
    small_tile<4, false>,   small_tile<5, false>,  small_tile<6, false>,  small_tile<7, false>,
    small_tile<8, false>,   small_tile<9, false>,  small_tile<10, false>, small_tile<11, false>,
    small_tile<12, false>};

}  // namespace

void ukr_f32_gemm_small_32x12__avx512(int64_t mr, int64_t nr, int64_t k, float alpha,
                                      const float* a, int64_t a_step, const float* b,
                                      int64_t b_step, int64_t b_col, float beta, float* c,
                                      int64_t ldc) {
    const SmallTile tile = mr == 32 ? kFullTileForNr[nr] : kEdgeTileForNr[nr];
    tile(k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc, first_lanes(mr), first_lanes(mr - 16));
}

}  // namespace ridge
