// Few rows of C (9 to 64 of them), AVX-512, in outer-product form, for B in any
// input type (converted to fp32 as it is copied to the kernel's buffer, by
// `Load`). Header-only: each input type's file
// (<dtype>_gemm_few_rows_outer_avx512.cpp) instantiates it. The rows
// of a column of C are 1 to 4 zmm, so a k step loads that many vectors of
// op(A)'s column (from a packed panel in L2) and multiplies them by B's
// element of each column of the tile, broadcast from memory (with one vector
// the broadcast is the FMA's embedded operand: one uop).
//
// Why not the dot-product kernel (f32_gemm_few_rows_avx512.cpp) for 9-16 rows:
// it loads 8 rows of A and 3 columns of B (11 vectors) per 24 FMAs, and with
// m = 16 it reads A's 16 x k from L2 again for every 3 columns of B; it reached
// 120-132 GFLOP/s at 16 x 264 x 1024 (B in L2) where this form reached
// 140-150, and 83-97 against 106-121 at 16 x 4104 x 4096 (B from memory), 1
// thread, standalone, alternating. With 8 rows or fewer the dot products stay
// better: this form always spends 16 lanes per FMA. Why not the blocked path
// for 17-64 rows: it packs all of B to reuse each element at most twice.
//
// B is read in place, down its columns, but not broadcast straight from it:
// a tile's 24 columns are ldb apart, and when ldb is a multiple of 1 KiB
// floats (4096 in the decode shapes) the same k step of every column falls
// into one L1 set, 24 lines into 12 ways (measured: 95-99 GFLOP/s broadcasting
// in place with ldb = 1024 against 149 with ldb padded by 16). So every 16 k
// steps the kernel copies the tile's next 16 values of each column (one line
// each, read once from memory) into a buffer of one line per column on the
// stack (16-bit B widened to fp32 on the way), and broadcasts from there.
// With 12 or 16 columns the hardware prefetchers alone do not keep that many
// streams ahead: the kernel also prefetches each column 256 bytes (4 lines)
// ahead, one prefetch per run it copies (a line of fp32, half a line of a
// 16-bit B; see prefetch_columns).
//
// Tiles: 16 rows x 16 columns (16 accumulators: the driver's groups for one
// vector of rows are 16 columns, fewer streams of B at once than 24; see
// gemm_skinny_m.cpp), 32 x 12, 48 x 8 or 64 x 6 (24 accumulators); the last
// vector of rows masked. Narrower remainders run as at most one tile of each
// narrower width (8, 4, 2, 1 columns).
#pragma once

#include "kernels/intrinsics.h"

#include "kernels/avx512/lanes_avx512.h"
#include "kernels/avx512/load_to_f32_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
// Internal linkage: each kernel file gets its own copy.
namespace {

constexpr int kLanes = 16;         // fp32 lanes of a zmm: rows per vector of the tile
constexpr int kStepsPerCopy = 16;  // k steps per copy of B: one line of each column

// `steps` k steps of the tile (16, or the last k % 16 when kSteps is 0), the
// panel and B at their first: copy each column's values to the buffer (masked
// past k: never reads beyond the column), then per step V loads of A's column
// and NJ broadcasts, each feeding V FMAs (with V = 1 the broadcast folds into
// the FMA as its embedded-broadcast operand). With kHalfLast the last of the V
// vectors holds 8 rows or fewer and runs as a 256-bit vector in acc_half (see
// tile); acc[V - 1] is then unused.
template <typename Load, int V, int NJ, int kSteps, bool kHalfLast>
inline void accumulate_steps(int64_t steps, const float* panel, const typename Load::T* b, int64_t ldb,
                             float* buffer, __m512 (&acc)[V][NJ], __m256 (&acc_half)[NJ]) {
    constexpr int W = kHalfLast ? V - 1 : V;  // whole zmm vectors of rows
    const __mmask16 valid = first_lanes(steps);
    // One column at a time through a running pointer: unrolled across all
    // columns, GCC keeps every column's address in a register of its own and
    // spills the accumulators.
#pragma GCC unroll 4
    for (int j = 0; j < NJ; ++j) {
        _mm512_store_ps(buffer + j * kStepsPerCopy, Load::template load<kSteps == kStepsPerCopy>(b + j * ldb, valid));
    }
    const int64_t count = kSteps == kStepsPerCopy ? kStepsPerCopy : steps;
#pragma GCC unroll 4
    for (int64_t q = 0; q < count; ++q) {
        __m512 a_column[V];
#pragma GCC unroll 4
        for (int v = 0; v < W; ++v) a_column[v] = _mm512_load_ps(panel + (q * V + v) * kLanes);
        const __m256 a_half = kHalfLast ? _mm256_load_ps(panel + (q * V + W) * kLanes) : _mm256_setzero_ps();
#pragma GCC unroll 24
        for (int j = 0; j < NJ; ++j) {
            const __m512 bj = _mm512_set1_ps(buffer[j * kStepsPerCopy + q]);
#pragma GCC unroll 4
            for (int v = 0; v < W; ++v) acc[v][j] = _mm512_fmadd_ps(a_column[v], bj, acc[v][j]);
            if (kHalfLast) acc_half[j] = _mm256_fmadd_ps(a_half, _mm512_castps512_ps256(bj), acc_half[j]);
        }
    }
}

// Software prefetch down each of the tile's columns, kPrefetchAheadBytes past
// the run about to be copied, into L1. Measured on the Zen 5 VM (ridge-bench,
// oneDNN in the same run, medians of 5; 1 thread; no prefetch -> 256 bytes
// ahead): 16 x 4096 x 4096 98.5 -> 143.3 GFLOP/s (0.89 -> 1.25-1.38x oneDNN),
// 32 x 4096 x 4096 159.6 -> 187.2 (0.93 -> 1.07-1.18x); 2, 3 and 6 lines ahead
// were within a few percent of 4, into L2 (prefetcht1) slower (126-129 at 16
// rows), and the next tile's columns fetched a whole tile ahead gained 4-7%.
// With 8 columns (48 rows) the hardware prefetchers keep up alone: prefetching
// there measured 0.88-0.94x oneDNN against 0.95 without.
constexpr int kMinColumnsToPrefetch = 12;
constexpr int64_t kPrefetchAheadBytes = 256;

template <typename Load, int NJ>
inline void prefetch_columns(const typename Load::T* b, int64_t ldb) {
    if constexpr (NJ >= kMinColumnsToPrefetch) {
        constexpr int64_t ahead = kPrefetchAheadBytes / sizeof(typename Load::T);
        // Past the end of a column this fetches the next column's head (or
        // nothing useful past B's end): a prefetch never faults.
#pragma GCC unroll 16
        for (int j = 0; j < NJ; ++j) _mm_prefetch(reinterpret_cast<const char*>(b + j * ldb + ahead), _MM_HINT_T0);
    }
}

// Steps before B's columns reach a boundary of kStepsPerCopy elements (a
// 64-byte line of fp32), when all columns are equally far from one; else 0.
// A malloc'ed B starts 16 bytes into a line: without this every copy of a
// column straddles two lines.
template <typename Load>
int64_t steps_to_aligned_run(const typename Load::T* b, int64_t ldb) {
    constexpr int64_t bytes = sizeof(typename Load::T), run = kStepsPerCopy * bytes;
    const int64_t offset = int64_t(reinterpret_cast<uintptr_t>(b) % uintptr_t(run));
    if (offset == 0 || offset % bytes != 0 || (ldb * bytes) % run != 0) return 0;
    return (run - offset) / bytes;
}

// C[0:m, 0:NJ] = alpha * A[0:m, 0:k] * B[0:k, 0:NJ] + beta * C, 16 * (V - 1) < m <= 16 * V;
// with kHalfLast, m <= 16 * (V - 1) + 8: the last vector's rows fit a 256-bit
// vector, whose FMAs Zen 4 runs in one 256-bit half where a zmm FMA takes both
// (its 512-bit FMAs are two halves), so those FMAs cost half as much. The
// panel keeps its V * 16 rows a step; the ymm reads the first 8 of the last 16.
// Same FMAs per element in the same order: C bit for bit the same. Measured
// against the masked zmm (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M 4096 4096 7
// [NN f16]`): 20 rows 1.143 (fp16 B 1.154), 24 rows 1.123, 36 rows 1.170, 40
// rows 1.168; no partial vector, 32 / 44 rows 1.021 / 0.997.
template <typename Load, int V, int NJ, bool kHalfLast>
void tile(int64_t m, int64_t k, float alpha, const float* panel, const void* b_in, int64_t ldb, float beta,
          float* c, int64_t ldc) {
    constexpr int W = kHalfLast ? V - 1 : V;  // whole zmm vectors of rows
    const auto* b = static_cast<const typename Load::T*>(b_in);
    alignas(64) float buffer[NJ * kStepsPerCopy];
    __m512 acc[V][NJ];
    __m256 acc_half[NJ];
#pragma GCC unroll 24
    for (int j = 0; j < NJ; ++j) {
#pragma GCC unroll 4
        for (int v = 0; v < W; ++v) acc[v][j] = _mm512_setzero_ps();
        acc_half[j] = _mm256_setzero_ps();
    }
    // The steps up to B's next aligned run first (none when B is aligned or its columns are not alike).
    const int64_t head = steps_to_aligned_run<Load>(b, ldb);
    int64_t p = 0;
    if (head > 0 && head < k) {
        accumulate_steps<Load, V, NJ, 0, kHalfLast>(head, panel, b, ldb, buffer, acc, acc_half);
        p = head;
    }
    for (; p + kStepsPerCopy <= k; p += kStepsPerCopy) {
        prefetch_columns<Load, NJ>(b + p, ldb);
        accumulate_steps<Load, V, NJ, kStepsPerCopy, kHalfLast>(kStepsPerCopy, panel + p * V * kLanes, b + p, ldb,
                                                                buffer, acc, acc_half);
    }
    if (p < k)
        accumulate_steps<Load, V, NJ, 0, kHalfLast>(k - p, panel + p * V * kLanes, b + p, ldb, buffer, acc, acc_half);
    const __m512 valpha = _mm512_set1_ps(alpha);
#pragma GCC unroll 24
    for (int j = 0; j < NJ; ++j) {
#pragma GCC unroll 4
        for (int v = 0; v < W; ++v) {
            const __mmask16 rows = first_lanes(m - v * kLanes);
            float* cv = c + j * ldc + v * kLanes;
            __m512 out = _mm512_mul_ps(valpha, acc[v][j]);
            if (beta != 0.0f)  // beta == 0: C is written, never read
                out = _mm512_fmadd_ps(_mm512_set1_ps(beta), _mm512_maskz_loadu_ps(rows, cv), out);
            _mm512_mask_storeu_ps(cv, rows, out);
        }
        if (kHalfLast) {
            const __mmask8 rows = __mmask8(first_lanes(m - W * kLanes));
            float* cv = c + j * ldc + W * kLanes;
            __m256 out = _mm256_mul_ps(_mm512_castps512_ps256(valpha), acc_half[j]);
            if (beta != 0.0f) out = _mm256_fmadd_ps(_mm256_set1_ps(beta), _mm256_maskz_loadu_ps(rows, cv), out);
            _mm256_mask_storeu_ps(cv, rows, out);
        }
    }
}

using Tile = void (*)(int64_t, int64_t, float, const float*, const void*, int64_t, float, float*, int64_t);
struct Width {
    int64_t columns;
    Tile tile;
};

// Whole tiles of the widest width (16, 12, 8 or 6 columns for 1, 2, 3 or 4
// vectors of rows), then a remainder as at most one tile of each narrower width.
template <typename Load, size_t N>
void run_widths(const Width (&widths)[N], int64_t m, int64_t nr, int64_t k, float alpha, const float* panel,
                const void* b, int64_t ldb, float beta, float* c, int64_t ldc) {
    const auto* columns = static_cast<const typename Load::T*>(b);
    int64_t j = 0;
    for (const Width& w : widths)
        for (; nr - j >= w.columns; j += w.columns)
            w.tile(m, k, alpha, panel, columns + j * ldb, ldb, beta, c + j * ldc, ldc);
}

template <typename Load>
constexpr Width kOneVector[] = {{16, tile<Load, 1, 16, false>}, {8, tile<Load, 1, 8, false>},
                                {4, tile<Load, 1, 4, false>},   {2, tile<Load, 1, 2, false>},
                                {1, tile<Load, 1, 1, false>}};
template <typename Load, bool kHalfLast>
constexpr Width kTwoVectors[] = {{12, tile<Load, 2, 12, kHalfLast>}, {8, tile<Load, 2, 8, kHalfLast>},
                                 {4, tile<Load, 2, 4, kHalfLast>},   {2, tile<Load, 2, 2, kHalfLast>},
                                 {1, tile<Load, 2, 1, kHalfLast>}};
template <typename Load, bool kHalfLast>
constexpr Width kThreeVectors[] = {{8, tile<Load, 3, 8, kHalfLast>}, {4, tile<Load, 3, 4, kHalfLast>},
                                   {2, tile<Load, 3, 2, kHalfLast>}, {1, tile<Load, 3, 1, kHalfLast>}};
template <typename Load, bool kHalfLast>
constexpr Width kFourVectors[] = {{6, tile<Load, 4, 6, kHalfLast>}, {4, tile<Load, 4, 4, kHalfLast>},
                                  {2, tile<Load, 4, 2, kHalfLast>}, {1, tile<Load, 4, 1, kHalfLast>}};

// The kernel of GemmFewRowsOuterUkr (gemm_kernel.h) for B of Load's type: the
// tiles of 1, 2, 3 or 4 vectors of rows, the last as a 256-bit vector where it
// holds 8 rows or fewer (17-24, 33-40 and 49-56 rows; 9-16 never do).
template <typename Load>
void few_rows_outer_kernel(int64_t m, int64_t nr, int64_t k, float alpha, const float* panel, const void* b,
                           int64_t ldb, float beta, float* c, int64_t ldc) {
    const bool half_last = (m - 1) % kLanes < kLanes / 2;  // rows of the last vector: 1..8
    if (m <= kLanes)
        run_widths<Load>(kOneVector<Load>, m, nr, k, alpha, panel, b, ldb, beta, c, ldc);
    else if (m <= 2 * kLanes && half_last)
        run_widths<Load>(kTwoVectors<Load, true>, m, nr, k, alpha, panel, b, ldb, beta, c, ldc);
    else if (m <= 2 * kLanes)
        run_widths<Load>(kTwoVectors<Load, false>, m, nr, k, alpha, panel, b, ldb, beta, c, ldc);
    else if (m <= 3 * kLanes && half_last)
        run_widths<Load>(kThreeVectors<Load, true>, m, nr, k, alpha, panel, b, ldb, beta, c, ldc);
    else if (m <= 3 * kLanes)
        run_widths<Load>(kThreeVectors<Load, false>, m, nr, k, alpha, panel, b, ldb, beta, c, ldc);
    else if (half_last)
        run_widths<Load>(kFourVectors<Load, true>, m, nr, k, alpha, panel, b, ldb, beta, c, ldc);
    else
        run_widths<Load>(kFourVectors<Load, false>, m, nr, k, alpha, panel, b, ldb, beta, c, ldc);
}

}  // namespace
}  // namespace ridge
