// fp32 GEMM for small problems on AVX-512F, without packing: one call
// computes an mr x nr tile (mr <= 64, nr <= 12) of C straight from A and B.
//
// Packing pays for itself only when a panel is reused many times; in a small
// GEMM it is not, and copying costs as much as computing (at 32^3 a packed
// multiply spends a third of its time packing). Here A is read in place: each
// k step is one column of op(A), rows contiguous (the caller packs A first
// when it is transposed). B needs no packing at all: each of its values is
// broadcast from memory, which costs one scalar load at any stride.
//
// The register tile is 16 * vectors rows by up to 12 columns: 2 vectors x 12
// is the 32 x 12 kernel's tile and reasoning (f32_gemm_avx512.cpp); 1 vector
// (mr <= 16) computes no rows it does not need; 3 vectors x at most 8 columns
// (24 accumulators, 3 A vectors and a broadcast in the 32 zmm registers) take
// 33..48 rows in one pass, so the last rows of m = 48, 80, 112, ... do not run
// a 32-row tile half empty (48^3 ran at 0.84x OpenBLAS with 32 + masked 16),
// and are the 8-column tiles the driver asks for where ldb puts B's columns on
// the same L1 set (gemm_small.cpp: narrow_b_tiles);
// 4 vectors x at most 6 columns take 49..64 rows, the tall tiles the driver
// asks for where lda puts a tile's columns on the same L1 sets (gemm_small.cpp:
// tile_height). Wider tiles of 3 or 4 vectors run as two column halves.
// Rows past mr are masked off in the last vector only; columns past nr are
// never computed (one instance per width). C is updated column by column: the
// whole tile loaded before any of it is stored, as the 32 x 12 kernel does
// (store_tile_avx512.h), ran 0.992-0.998 at 64^3-384^3 and 1.000 / 1.011 at
// 512^3 / 448^3 on the Zen 4 (`ridge-ab OLD NEW n n n 21-31`), not kept.
#include <immintrin.h>

#include "kernels/avx512/lanes_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

constexpr int kNR = 12;           // widest tile of 1 or 2 vectors
constexpr int kNRThreeVectors = 8;  // widest tile of 3 vectors (24 accumulators)
constexpr int kNRFourVectors = 6;   // widest tile of 4 vectors (24 accumulators)

// C[0:16*V, 0:NR] tile; the last vector's rows through `last_rows` when !kFull.
template <int V, int NR, bool kFull>
void small_tile(int64_t k, float alpha, const float* a, int64_t a_step, const float* b, int64_t b_step,
                int64_t b_col, float beta, float* c, int64_t ldc, __mmask16 last_rows) {
    __m512 acc[V][NR];
#pragma GCC unroll 12
    for (int j = 0; j < NR; ++j)
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[v][j] = _mm512_setzero_ps();
    // B's columns through two base pointers, b for columns 0-5 and b_hi for 6-11,
    // sharing the offsets j * b_col: one base for 12 columns needs 11 offsets in
    // general registers, and the compiler spilled three of them, reloading them
    // every k step (so each broadcast waited on a reload). Measured, ridge-bench
    // alternating builds, 1 thread: 64^3 156-170 -> 169-173, 96^3 165-172 ->
    // 175-181, 128^3 169-179 -> 178-182 GFLOP/s. The k loop unrolled 4 times
    // rather than 2: +1-3% at 32^3-128^3 (three alternating runs each).
    // No prefetch of C: the blocked kernel's late prefetchw of the tile (its
    // last 48 k steps, a column every 4) here for k >= 192, on the Zen 4
    // (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW n n n 21`): in every tile, 512^3
    // 1.004 (three runs), 640^3 1.007, but 64^3-128^3 0.996-0.998 (no late
    // steps there: the code around the loop alone); only in the full 32 x 12
    // tile, through a template flag, 512^3 / 640^3 1.000 and 64^3 0.996.
    const float* b_hi = NR > 6 ? b + 6 * b_col : b;  // (never formed past B for narrow tiles)
#pragma GCC unroll 4
    for (int64_t p = 0; p < k; ++p) {
        __m512 col[V];
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v)
            col[v] = v < V - 1 ? _mm512_loadu_ps(a + 16 * v) : load_lanes<kFull>(a + 16 * v, last_rows);
#pragma GCC unroll 12
        for (int j = 0; j < NR; ++j) {
            const __m512 bj = _mm512_set1_ps(j < 6 ? b[j * b_col] : b_hi[(j - 6) * b_col]);
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) acc[v][j] = _mm512_fmadd_ps(col[v], bj, acc[v][j]);
        }
        a += a_step;
        b += b_step;
        b_hi += b_step;
    }
    const __m512 valpha = _mm512_set1_ps(alpha);
    const __m512 vbeta = _mm512_set1_ps(beta);
    // alpha == 1 skips the multiply by alpha (exact; see store_tile_avx512.h).
    const bool unit_alpha = alpha == 1.0f;
#pragma GCC unroll 12
    for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
            float* cv = c + j * ldc + 16 * v;
            const bool full = kFull || v < V - 1;
            __m512 r = unit_alpha ? acc[v][j] : _mm512_mul_ps(valpha, acc[v][j]);
            if (beta != 0.0f)  // beta == 0: C is not read, a NaN in it does not survive
                r = _mm512_fmadd_ps(valpha, acc[v][j],
                                    _mm512_mul_ps(vbeta, full ? _mm512_loadu_ps(cv) : _mm512_maskz_loadu_ps(last_rows, cv)));
            if (full)
                _mm512_storeu_ps(cv, r);
            else
                _mm512_mask_storeu_ps(cv, last_rows, r);
        }
    }
}

using SmallTile = void (*)(int64_t, float, const float*, int64_t, const float*, int64_t, int64_t, float,
                           float*, int64_t, __mmask16);

// Widest tile of V vectors: V x NR accumulators, V A vectors and a broadcast
// within the 32 zmm registers.
template <int V>
constexpr int kWidest = V == 4 ? kNRFourVectors : V == 3 ? kNRThreeVectors : kNR;

// The instance for V vectors, last vector whole or masked, nr columns (1 to kWidest<V>).
template <int V, bool kFull>
SmallTile tile_for(int64_t nr) {
    switch (nr) {
        case 1: return small_tile<V, 1, kFull>;
        case 2: return small_tile<V, 2, kFull>;
        case 3: return small_tile<V, 3, kFull>;
        case 4: return small_tile<V, 4, kFull>;
        case 5: return small_tile<V, 5, kFull>;
        case 6: return small_tile<V, 6, kFull>;
        default: break;
    }
    if constexpr (kWidest<V> >= 8) {
        switch (nr) {
            case 7: return small_tile<V, 7, kFull>;
            case 8: return small_tile<V, 8, kFull>;
            default: break;
        }
    }
    if constexpr (kWidest<V> >= 12) {
        switch (nr) {
            case 9: return small_tile<V, 9, kFull>;
            case 10: return small_tile<V, 10, kFull>;
            case 11: return small_tile<V, 11, kFull>;
            case 12: return small_tile<V, 12, kFull>;
            default: break;
        }
    }
    return nullptr;
}

SmallTile tile(int vectors, bool full, int64_t nr) {
    switch (vectors) {
        case 1: return full ? tile_for<1, true>(nr) : tile_for<1, false>(nr);
        case 2: return full ? tile_for<2, true>(nr) : tile_for<2, false>(nr);
        case 3: return full ? tile_for<3, true>(nr) : tile_for<3, false>(nr);
        default: return full ? tile_for<4, true>(nr) : tile_for<4, false>(nr);
    }
}

}  // namespace

void ukr_f32_gemm_small_32x12__avx512(int64_t mr, int64_t nr, int64_t k, float alpha,
                                      const float* a, int64_t a_step, const float* b,
                                      int64_t b_step, int64_t b_col, float beta, float* c,
                                      int64_t ldc) {
    const int vectors = int((mr + 15) / 16);
    const int64_t last_rows = mr - 16 * (vectors - 1);
    const bool full = last_rows == 16;
    const __mmask16 mask = first_lanes(last_rows);
    if (vectors < 3) {
        tile(vectors, full, nr)(k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc, mask);
        return;
    }
    // 3 and 4 vectors take at most 8 and 6 columns: more run as two even halves (12 = 6 + 6).
    const int64_t widest = vectors == 3 ? kNRThreeVectors : kNRFourVectors;
    const int64_t first = nr <= widest ? nr : (nr + 1) / 2;
    tile(vectors, full, first)(k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc, mask);
    if (first < nr)
        tile(vectors, full, nr - first)(k, alpha, a, a_step, b + first * b_col, b_step, b_col, beta, c + first * ldc,
                                        ldc, mask);
}

}  // namespace ridge
