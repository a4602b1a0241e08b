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
// A 16 x 16 tile instead (the loop below with one A vector and 16 columns: a
// line of A feeds 16 FMAs, and a 16-column C is one group, so each line is read
// once) measured 0.82 / 0.86 / 0.85 of 48 x 8 at 4096 x 16 / 32 / 64 x 4096
// (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW 4096 n 4096 9`).
#pragma once

#include "kernels/intrinsics.h"

#include "kernels/avx512/skinny_tile_avx512.h"
#include "kernels/skinny_prefetch.h"

namespace ridge {
namespace {

constexpr int kTallMR = kSkinnyTallMR;  // 48 (gemm_kernel.h)
constexpr int kTallNR = kSkinnyTallNR;  // 8

// Where the tile prefetches the next tile of A (SkinnyPrefetch, whole columns
// or spread), as __builtin_prefetch's locality: 3 into L1 (prefetcht0), 1
// into L2 only (prefetcht2).
// Into L2 from kPrefetchIntoL2MinSteps k steps on: a tile of 64 steps is 192
// lines (fp32), a quarter of L1, and the current tile's B chunk and C lines
// are what L1 has to give up for them; the next tile's loads then come from
// L2, which the kernel hides. Shorter tiles are prefetched further ahead in
// tiles (prefetch_tiles_ahead) and there L2 alone lost. Measured, paired
// against prefetcht0 for every tile (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N
// K 9 [TRANS [TYPE]]`, 1 thread; chunks of 64 steps unless said): fp32 4096 x
// 64 x 4096 1.036-1.042 over six runs in both orders, 8192 x 64 x 8192 1.030,
// 64 x 4096 x 4096 NT (the sweep on C^T) 1.039, A in a cache 2048 x 16 x 512
// 1.022 and 512 x 16 x 2048 1.020, bf16 4096 x 16 x 4096 1.017, fp16 4096 x 8
// x 4096 1.023. For every tile instead: 4096 x 32 x 4096 (chunks of 32) 0.93-1.07 from
// run to run, 4096 x 16 x 4096 (chunks of 16, 4 tiles ahead) 0.88-1.05, 16 x
// 4096 x 4096 NT 0.87-0.88 in both orders.
constexpr int kPrefetchIntoL1 = 3;
constexpr int kPrefetchIntoL2 = 1;
constexpr int64_t kPrefetchIntoL2MinSteps = 64;

// The spread prefetch of a tall tile's column: the lines of its 48 rows.
template <typename Load, int kLocality>
using TallSpreadPrefetch = std::conditional_t<Load::kBytes == 4, SpreadPrefetch<kLocality, 0, 64, 128>,
                                              SpreadPrefetch<kLocality, 0, 64>>;

// acc[v][j]: rows 16v .. 16v+15 of column j. The third vector's rows are
// masked by mask_bottom (rows 32 .. mr-1) unless kFull. next is prefetched as
// kMode says (skinny_prefetch.h), with kLocality.
template <typename Load, int NR, PrefetchMode kMode, int kLocality, bool kFull>
inline void accumulate_tall(int64_t kc, const typename Load::T* a, int64_t lda, const float* b, int64_t b_step,
                            SkinnyPrefetch next, __mmask16 mask_bottom, __m512 (&acc)[3][NR]) {
    const auto* a_next = static_cast<const typename Load::T*>(next.a);
    TallSpreadPrefetch<Load, kLocality> spread(next, lda * Load::kBytes);
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) acc[0][j] = acc[1][j] = acc[2][j] = _mm512_setzero_ps();
#pragma GCC unroll 2
    for (int64_t p = 0; p < kc; ++p) {
        if constexpr (kMode == PrefetchMode::whole_columns)
            for (int line = 0; line < kTallMR * Load::kBytes; line += 64)
                __builtin_prefetch(reinterpret_cast<const char*>(a_next + p * lda) + line, 0, kLocality);
        if constexpr (kMode == PrefetchMode::spread) spread.step();
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
    if constexpr (kMode == PrefetchMode::spread) spread.finish();
}

// The k loop for next's prefetch mode, into L2 from kPrefetchIntoL2MinSteps steps.
template <typename Load, int NR, PrefetchMode kMode, bool kFull>
inline void accumulate_tall_prefetching(int64_t kc, const typename Load::T* a, int64_t lda, const float* b,
                                        int64_t b_step, SkinnyPrefetch next, __mmask16 mask_bottom,
                                        __m512 (&acc)[3][NR]) {
    if (kc >= kPrefetchIntoL2MinSteps)
        accumulate_tall<Load, NR, kMode, kPrefetchIntoL2, kFull>(kc, a, lda, b, b_step, next, mask_bottom, acc);
    else
        accumulate_tall<Load, NR, kMode, kPrefetchIntoL1, kFull>(kc, a, lda, b, b_step, next, mask_bottom, acc);
}

template <typename Load, int NR, bool kFull>
void skinny_tall_tile(int64_t kc, float alpha, const void* a, int64_t lda, const float* b, int64_t b_step,
                      float beta, float* c, int64_t ldc, SkinnyPrefetch next, __mmask16 mask_bottom) {
    using T = typename Load::T;
    __m512 acc[3][NR];
    const T* a_tile = static_cast<const T*>(a);
    switch (prefetch_mode(next)) {
        case PrefetchMode::none:
            accumulate_tall<Load, NR, PrefetchMode::none, 0, kFull>(kc, a_tile, lda, b, b_step, next, mask_bottom,
                                                                    acc);
            break;
        case PrefetchMode::whole_columns:
            accumulate_tall_prefetching<Load, NR, PrefetchMode::whole_columns, kFull>(kc, a_tile, lda, b, b_step,
                                                                                      next, mask_bottom, acc);
            break;
        case PrefetchMode::spread:
            accumulate_tall_prefetching<Load, NR, PrefetchMode::spread, kFull>(kc, a_tile, lda, b, b_step, next,
                                                                               mask_bottom, acc);
            break;
    }
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
                                int64_t, SkinnyPrefetch, __mmask16);

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
                        const float* b, int64_t b_step, float beta, float* c, int64_t ldc, SkinnyPrefetch next) {
    if (mr <= kMR)
        return skinny_kernel<RowsInOrder<Load>, kTallMR>(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, next);
    const SkinnyTallTile tile = mr == kTallMR ? kTallTileForNr<Load, true>[nr] : kTallTileForNr<Load, false>[nr];
    tile(kc, alpha, a, lda, b, b_step, beta, c, ldc, next, first_lanes(mr - 2 * 16));
}

}  // namespace
}  // namespace ridge
