// fp32 kernel for skinny GEMM (few columns: decode) on AVX-512F: an mr x nr
// tile (mr <= 32, nr <= 12) of C from A read in place and a short k-major
// chunk of B.
//
// The skinny driver (gemm_skinny.cpp) streams A once from memory in chunks of
// a few columns; each call covers one chunk, so the per-call work is small and
// the loop must carry nothing but the FMAs. B's chunk is copied k-major (row p
// of op(B) contiguous) by the driver, so the nr broadcasts of a k step sit at
// fixed offsets from one pointer: addressing B in place at a column stride
// needs one register per column, and at 12 columns the compiler spills them
// (measured: the in-place kernel reached half the FMA peak in L2, 114-125
// GFLOP/s at 512 x 16..64 x 512). The register tile is the 32 x 12 kernel's
// (f32_gemm_avx512.cpp): 24 accumulators, two A vectors, one broadcast.
// Rows past mr are masked off; columns past nr are never computed (one
// instance per nr, so a 16-column problem runs as two 8-column tiles, not 12 + 4).
#include <immintrin.h>

#include "kernels/avx512/lanes_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

constexpr int kMR = 32;
constexpr int kNR = 12;

// Rows 0-15 and 16-31 of each column of the tile in lo[j], hi[j].
// kPrefetch: also bring in a_next's rows of the same kc columns (the tile the
// driver computes next), two lines per k step.
template <int NR, bool kPrefetch, bool kFull>
inline void accumulate(int64_t kc, const float* a, int64_t lda, const float* b, int64_t b_step,
                       const float* a_next, __mmask16 mask_lo, __mmask16 mask_hi, __m512 (&lo)[NR],
                       __m512 (&hi)[NR]) {
#pragma GCC unroll 12
    for (int j = 0; j < NR; ++j) {
        lo[j] = _mm512_setzero_ps();
        hi[j] = _mm512_setzero_ps();
    }
#pragma GCC unroll 2
    for (int64_t p = 0; p < kc; ++p) {
        if (kPrefetch) {
            _mm_prefetch(reinterpret_cast<const char*>(a_next + p * lda), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char*>(a_next + p * lda + 16), _MM_HINT_T0);
        }
        const __m512 a_lo = load_lanes<kFull>(a + p * lda, mask_lo);
        const __m512 a_hi = load_lanes<kFull>(a + p * lda + 16, mask_hi);
#pragma GCC unroll 12
        for (int j = 0; j < NR; ++j) {
            const __m512 bj = _mm512_set1_ps(b[j]);
            lo[j] = _mm512_fmadd_ps(a_lo, bj, lo[j]);
            hi[j] = _mm512_fmadd_ps(a_hi, bj, hi[j]);
        }
        b += b_step;
    }
}

// C = alpha * acc + beta * C; beta == 0 never reads C (a NaN in it must not
// survive); beta == 1, every chunk after the first, is one FMA per vector.
template <int NR, bool kFull>
inline void update_c(const __m512 (&lo)[NR], const __m512 (&hi)[NR], float alpha, float beta, float* c,
                     int64_t ldc, __mmask16 mask_lo, __mmask16 mask_hi) {
    const __m512 valpha = _mm512_set1_ps(alpha);
    const __m512 vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 12
    for (int j = 0; j < NR; ++j) {
        float* cj = c + j * ldc;
        __m512 r_lo, r_hi;
        if (beta == 0.0f) {
            r_lo = _mm512_mul_ps(valpha, lo[j]);
            r_hi = _mm512_mul_ps(valpha, hi[j]);
        } else if (beta == 1.0f) {
            r_lo = _mm512_fmadd_ps(valpha, lo[j], load_lanes<kFull>(cj, mask_lo));
            r_hi = _mm512_fmadd_ps(valpha, hi[j], load_lanes<kFull>(cj + 16, mask_hi));
        } else {
            r_lo = _mm512_fmadd_ps(valpha, lo[j], _mm512_mul_ps(vbeta, load_lanes<kFull>(cj, mask_lo)));
            r_hi = _mm512_fmadd_ps(valpha, hi[j], _mm512_mul_ps(vbeta, load_lanes<kFull>(cj + 16, mask_hi)));
        }
        store_lanes<kFull>(cj, mask_lo, r_lo);
        store_lanes<kFull>(cj + 16, mask_hi, r_hi);
    }
}

template <int NR, bool kFull>
void skinny_tile(int64_t kc, float alpha, const float* a, int64_t lda, const float* b, int64_t b_step,
                 float beta, float* c, int64_t ldc, const float* a_next, __mmask16 mask_lo, __mmask16 mask_hi) {
    __m512 lo[NR];
    __m512 hi[NR];
    if (a_next != nullptr)
        accumulate<NR, true, kFull>(kc, a, lda, b, b_step, a_next, mask_lo, mask_hi, lo, hi);
    else
        accumulate<NR, false, kFull>(kc, a, lda, b, b_step, a_next, mask_lo, mask_hi, lo, hi);
    update_c<NR, kFull>(lo, hi, alpha, beta, c, ldc, mask_lo, mask_hi);
}

using SkinnyTile = void (*)(int64_t, float, const float*, int64_t, const float*, int64_t, float, float*, int64_t,
                            const float*, __mmask16, __mmask16);
// One instance per width: full tiles (all 32 rows) and edge tiles (masked rows).
constexpr SkinnyTile kFullTileForNr[kNR + 1] = {
    nullptr,                skinny_tile<1, true>,  skinny_tile<2, true>,  skinny_tile<3, true>,
    skinny_tile<4, true>,   skinny_tile<5, true>,  skinny_tile<6, true>,  skinny_tile<7, true>,
    skinny_tile<8, true>,   skinny_tile<9, true>,  skinny_tile<10, true>, skinny_tile<11, true>,
    skinny_tile<12, true>};
constexpr SkinnyTile kEdgeTileForNr[kNR + 1] = {
    nullptr,                 skinny_tile<1, false>,  skinny_tile<2, false>,  skinny_tile<3, false>,
    skinny_tile<4, false>,   skinny_tile<5, false>,  skinny_tile<6, false>,  skinny_tile<7, false>,
    skinny_tile<8, false>,   skinny_tile<9, false>,  skinny_tile<10, false>, skinny_tile<11, false>,
    skinny_tile<12, false>};

}  // namespace

void ukr_f32_gemm_skinny_32x12__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const float* a,
                                       int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                       int64_t ldc, const float* a_next) {
    const SkinnyTile tile = mr == kMR ? kFullTileForNr[nr] : kEdgeTileForNr[nr];
    tile(kc, alpha, a, lda, b, b_step, beta, c, ldc, a_next, first_lanes(mr), first_lanes(mr - kMR / 2));
}

}  // namespace ridge
