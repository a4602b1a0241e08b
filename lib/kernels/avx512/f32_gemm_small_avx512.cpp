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
#include "kernels/intrinsics.h"

#include "kernels/avx512/lanes_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

constexpr int kNR = 12;           // widest tile of 1 or 2 vectors
constexpr int kNRThreeVectors = 8;  // widest tile of 3 vectors (24 accumulators)
constexpr int kNRFourVectors = 6;   // widest tile of 4 vectors (24 accumulators)

// The tile's last vector of rows, whose operations the tile takes from one of
// these: 16 rows whole, 9-15 through the lane mask, or 1-8 in the low half (a
// 256-bit vector through the mask). Zen 4 runs a 512-bit FMA as two 256-bit
// halves, so a zmm FMA on 8 rows or fewer spends a half on lanes nothing
// reads, where a ymm FMA spends only the one: at 100^3, rows 32 + 32 + 36,
// the last tile's third vector holds 4 rows. (Where the pipes are 512 bits
// wide, a ymm FMA takes an issue slot as a zmm FMA does: nothing lost.)
// Measured on the Zen 4 against the masked zmm (`RIDGE_NUM_THREADS=T ridge-ab
// OLD NEW n n n 9-15 [TRANS]`): 1 thread 40^3 1.183, 72^3 1.107, 100^3 1.074
// (TN / NT 1.061 / 1.067), 136^3 1.056, 200^3 1.038, 360^3 1.022, 600^3
// 1.012; 2 threads 100^3 1.059, 200^3 1.032; no partial vector, 96^3 / 128^3
// / 512^3, 1.001 / 1.008 / 0.998.
struct LastWhole {
    using Vec = __m512;
    static Vec narrow(__m512 v) { return v; }
    static Vec zero() { return _mm512_setzero_ps(); }
    static Vec load(const float* p, __mmask16) { return _mm512_loadu_ps(p); }
    static void store(float* p, __mmask16, Vec v) { _mm512_storeu_ps(p, v); }
    static Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
    static Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
};
struct LastMasked {
    using Vec = __m512;
    static Vec narrow(__m512 v) { return v; }
    static Vec zero() { return _mm512_setzero_ps(); }
    static Vec load(const float* p, __mmask16 rows) { return _mm512_maskz_loadu_ps(rows, p); }
    static void store(float* p, __mmask16 rows, Vec v) { _mm512_mask_storeu_ps(p, rows, v); }
    static Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
    static Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
};
struct LastHalf {
    using Vec = __m256;
    static Vec narrow(__m512 v) { return _mm512_castps512_ps256(v); }
    static Vec zero() { return _mm256_setzero_ps(); }
    static Vec load(const float* p, __mmask16 rows) { return _mm256_maskz_loadu_ps(__mmask8(rows), p); }
    static void store(float* p, __mmask16 rows, Vec v) { _mm256_mask_storeu_ps(p, __mmask8(rows), v); }
    static Vec fmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
    static Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
};

// C[0:16*V, 0:NR] tile; the last vector's rows through `last_rows` (Last).
template <int V, int NR, typename Last>
void small_tile(int64_t k, float alpha, const float* a, int64_t a_step, const float* b, int64_t b_step,
                int64_t b_col, float beta, float* c, int64_t ldc, __mmask16 last_rows) {
    using LastVec = typename Last::Vec;
    constexpr int W = V - 1;  // whole vectors above the last
    __m512 acc[W > 0 ? W : 1][NR];
    LastVec acc_last[NR];
#pragma GCC unroll 12
    for (int j = 0; j < NR; ++j) {
#pragma GCC unroll 4
        for (int v = 0; v < W; ++v) acc[v][j] = _mm512_setzero_ps();
        acc_last[j] = Last::zero();
    }
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
    // The loop runs until a reaches a_end rather than on a count of k steps:
    // with a count GCC kept it on the stack (an add to memory every k step,
    // beside the 14 loads). Against the counted loop (`RIDGE_NUM_THREADS=1
    // ridge-ab OLD NEW n n n 11-21`, Intel VM): 32^3 1.012, 64^3 1.011, 96^3
    // 1.008, 128^3 1.010-1.013 (TN 1.006), 256^3 1.004, 512^3 1.024.
    const float* const a_end = a + k * a_step;
#pragma GCC unroll 4
    for (; a != a_end;) {
        __m512 col[W > 0 ? W : 1];
#pragma GCC unroll 4
        for (int v = 0; v < W; ++v) col[v] = _mm512_loadu_ps(a + 16 * v);
        const LastVec col_last = Last::load(a + 16 * W, last_rows);
#pragma GCC unroll 12
        for (int j = 0; j < NR; ++j) {
            const __m512 bj = _mm512_set1_ps(j < 6 ? b[j * b_col] : b_hi[(j - 6) * b_col]);
#pragma GCC unroll 4
            for (int v = 0; v < W; ++v) acc[v][j] = _mm512_fmadd_ps(col[v], bj, acc[v][j]);
            acc_last[j] = Last::fmadd(col_last, Last::narrow(bj), acc_last[j]);
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
        for (int v = 0; v < W; ++v) {
            float* cv = c + j * ldc + 16 * v;
            __m512 r = unit_alpha ? acc[v][j] : _mm512_mul_ps(valpha, acc[v][j]);
            if (beta != 0.0f)  // beta == 0: C is not read, a NaN in it does not survive
                r = _mm512_fmadd_ps(valpha, acc[v][j], _mm512_mul_ps(vbeta, _mm512_loadu_ps(cv)));
            _mm512_storeu_ps(cv, r);
        }
        float* cv = c + j * ldc + 16 * W;
        const LastVec la = Last::narrow(valpha), lb = Last::narrow(vbeta);
        LastVec r = unit_alpha ? acc_last[j] : Last::mul(la, acc_last[j]);
        if (beta != 0.0f) r = Last::fmadd(la, acc_last[j], Last::mul(lb, Last::load(cv, last_rows)));
        Last::store(cv, last_rows, r);
    }
}

using SmallTile = void (*)(int64_t, float, const float*, int64_t, const float*, int64_t, int64_t, float,
                           float*, int64_t, __mmask16);

// Widest tile of V vectors: V x NR accumulators, V A vectors and a broadcast
// within the 32 zmm registers.
template <int V>
constexpr int kWidest = V == 4 ? kNRFourVectors : V == 3 ? kNRThreeVectors : kNR;

// The instance for V vectors, the last one as Last, nr columns (1 to kWidest<V>).
template <int V, typename Last>
SmallTile tile_for(int64_t nr) {
    switch (nr) {
        case 1: return small_tile<V, 1, Last>;
        case 2: return small_tile<V, 2, Last>;
        case 3: return small_tile<V, 3, Last>;
        case 4: return small_tile<V, 4, Last>;
        case 5: return small_tile<V, 5, Last>;
        case 6: return small_tile<V, 6, Last>;
        default: break;
    }
    if constexpr (kWidest<V> >= 8) {
        switch (nr) {
            case 7: return small_tile<V, 7, Last>;
            case 8: return small_tile<V, 8, Last>;
            default: break;
        }
    }
    if constexpr (kWidest<V> >= 12) {
        switch (nr) {
            case 9: return small_tile<V, 9, Last>;
            case 10: return small_tile<V, 10, Last>;
            case 11: return small_tile<V, 11, Last>;
            case 12: return small_tile<V, 12, Last>;
            default: break;
        }
    }
    return nullptr;
}

template <int V>
SmallTile tile_with_last(int64_t last_rows, int64_t nr) {
    if (last_rows == 16) return tile_for<V, LastWhole>(nr);
    return last_rows > 8 ? tile_for<V, LastMasked>(nr) : tile_for<V, LastHalf>(nr);
}

SmallTile tile(int vectors, int64_t last_rows, int64_t nr) {
    switch (vectors) {
        case 1: return tile_with_last<1>(last_rows, nr);
        case 2: return tile_with_last<2>(last_rows, nr);
        case 3: return tile_with_last<3>(last_rows, nr);
        default: return tile_with_last<4>(last_rows, nr);
    }
}

}  // namespace

void ukr_f32_gemm_small_32x12__avx512(int64_t mr, int64_t nr, int64_t k, float alpha,
                                      const float* a, int64_t a_step, const float* b,
                                      int64_t b_step, int64_t b_col, float beta, float* c,
                                      int64_t ldc) {
    const int vectors = int((mr + 15) / 16);
    const int64_t last_rows = mr - 16 * (vectors - 1);
    const __mmask16 mask = first_lanes(last_rows);
    if (vectors < 3) {
        tile(vectors, last_rows, nr)(k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc, mask);
        return;
    }
    // 3 and 4 vectors take at most 8 and 6 columns: more run as two even halves (12 = 6 + 6).
    const int64_t widest = vectors == 3 ? kNRThreeVectors : kNRFourVectors;
    const int64_t first = nr <= widest ? nr : (nr + 1) / 2;
    tile(vectors, last_rows, first)(k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc, mask);
    if (first < nr)
        tile(vectors, last_rows, nr - first)(k, alpha, a, a_step, b + first * b_col, b_step, b_col, beta,
                                             c + first * ldc, ldc, mask);
}

}  // namespace ridge
