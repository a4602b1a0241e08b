// The skinny kernel's tall tile, AVX-512F: up to 48 rows (three vectors) x up
// to 8 columns of C from A read in place, for loaders whose lanes hold the
// rows in order (Load: fp32, fp16, bf16). The same contract as the 32 x 12
// tile (skinny_tile_avx512.h, GemmSkinnyUkr), with mr <= 48 and nr <= 8.
// bf16 is widened in order here: two vector instructions a vector, six beside
// a k step's 24 FMAs, where the 32-row tile's even/odd loader takes one a
// vector (bf16_gemm_skinny_avx512.cpp); the tall tile still repays that where
// the sweep takes it (gemm_skinny.cpp, uses_tall_tiles, with the numbers).
//
// Why a taller tile: a k step of the tile loads one line of A per 16 rows,
// all from the same column. When A's columns lie a multiple of 4 KiB apart
// (lda = 1024, 2048, 4096 floats: a decode step's hidden sizes), every column
// of a chunk puts its lines in the same few L1 sets (64 sets of 12 ways, 4 KiB
// apart), so the tile's A comes from L2 every time, and L1 refills one set at a
// limited rate. What decides the speed is then how many cycles of FMAs each
// line of A feeds: 4 for a 32 x 8 tile, 6 for 48 x 8 (24 FMAs on three lines).
// Timed in L1 and L2 alone (one 64-column tile reused, 1 thread, GFLOP/s): lda
// 2048 floats 32 x 8 187, 48 x 8 224, 32 x 12 224; lda 4096 168 / 217 / 208;
// off the power of two (2064) all three 222. A 16-column C with groups of 8
// columns runs the former; 48 x 8 keeps 24 accumulators, three A vectors and
// a broadcast in 28 of the 32 zmm registers.
#pragma once

#include <immintrin.h>

#include "kernels/avx512/skinny_tile_avx512.h"

namespace ridge {
namespace {

constexpr int kTallMR = kSkinnyTallMR;  // 48 (gemm_kernel.h)
constexpr int kTallNR = kSkinnyTallNR;  // 8

// acc[v][j]: rows 16v .. 16v+15 of column j. The third vector's rows are
// masked by mask_bottom (rows 32 .. mr-1) unless kFull.
template <typename Load, int NR, bool kPrefetch, bool kFull>
inline void accumulate_tall(int64_t kc, const typename Load::T* a, int64_t lda, const float* b, int64_t b_step,
                            const typename Load::T* a_next, __mmask16 mask_bottom, __m512 (&acc)[3][NR]) {
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) acc[0][j] = acc[1][j] = acc[2][j] = _mm512_setzero_ps();
#pragma GCC unroll 2
    for (int64_t p = 0; p < kc; ++p) {
        if (kPrefetch)
            for (int line = 0; line < kTallMR * Load::kBytes; line += 64)
                _mm_prefetch(reinterpret_cast<const char*>(a_next + p * lda) + line, _MM_HINT_T0);
        const typename Load::T* column = a + p * lda;
        const __m512 a0 = Load::template load<true>(column, 0);
        const __m512 a1 = Load::template load<true>(column + 16, 0);
        const __m512 a2 = Load::template load<kFull>(column + 32, mask_bottom);
#pragma GCC unroll 8
        for (int j = 0; j < NR; ++j) {
            const __m512 bj = _mm512_set1_ps(b[j]);
            acc[0][j] = _mm512_fmadd_ps(a0, bj, acc[0][j]);
            acc[1][j] = _mm512_fmadd_ps(a1, bj, acc[1][j]);
            acc[2][j] = _mm512_fmadd_ps(a2, bj, acc[2][j]);
        }
        b += b_step;
    }
}

template <typename Load, int NR, bool kFull>
void skinny_tall_tile(int64_t kc, float alpha, const void* a, int64_t lda, const float* b, int64_t b_step,
                      float beta, float* c, int64_t ldc, const void* a_next, __mmask16 mask_bottom) {
    using T = typename Load::T;
    __m512 acc[3][NR];
    if (a_next != nullptr)
        accumulate_tall<Load, NR, true, kFull>(kc, static_cast<const T*>(a), lda, b, b_step,
                                               static_cast<const T*>(a_next), mask_bottom, acc);
    else
        accumulate_tall<Load, NR, false, kFull>(kc, static_cast<const T*>(a), lda, b, b_step, nullptr,
                                                mask_bottom, acc);
    const __m512 valpha = _mm512_set1_ps(alpha);
    const __m512 vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) {
        float* cj = c + j * ldc;
        update_vector<true>(acc[0][j], valpha, vbeta, beta, cj, 0);
        update_vector<true>(acc[1][j], valpha, vbeta, beta, cj + 16, 0);
        update_vector<kFull>(acc[2][j], valpha, vbeta, beta, cj + 32, mask_bottom);
    }
}

using SkinnyTallTile = void (*)(int64_t, float, const void*, int64_t, const float*, int64_t, float, float*,
                                int64_t, const void*, __mmask16);

template <typename Load, bool kFull>
constexpr SkinnyTallTile kTallTileForNr[kTallNR + 1] = {
    nullptr,
    skinny_tall_tile<Load, 1, kFull>, skinny_tall_tile<Load, 2, kFull>, skinny_tall_tile<Load, 3, kFull>,
    skinny_tall_tile<Load, 4, kFull>, skinny_tall_tile<Load, 5, kFull>, skinny_tall_tile<Load, 6, kFull>,
    skinny_tall_tile<Load, 7, kFull>, skinny_tall_tile<Load, 8, kFull>};

// The tall kernel (GemmSkinnyUkr with mr <= 48, nr <= 8). A tile of at most
// 32 rows (the last of a sweep) runs the 32 x 12 tile's code, which has
// narrower forms for 16 rows or fewer.
template <typename Load>
void skinny_tall_kernel(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, int64_t lda,
                        const float* b, int64_t b_step, float beta, float* c, int64_t ldc, const void* a_next) {
    if (mr <= kMR)
        return skinny_kernel<RowsInOrder<Load>>(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, a_next);
    const SkinnyTallTile tile = mr == kTallMR ? kTallTileForNr<Load, true>[nr] : kTallTileForNr<Load, false>[nr];
    tile(kc, alpha, a, lda, b, b_step, beta, c, ldc, a_next, first_lanes(mr - 2 * 16));
}

}  // namespace
}  // namespace ridge
