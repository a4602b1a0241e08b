// GEMV kernels for AVX-512, fp32 and 16-bit matrices. GEMV reads every
// element of A once and does 2 flops with it: it is bound by the bandwidth
// of wherever A lives, so the kernels' job is to stream A at that bandwidth
// and touch nothing else (x and y stay in L1/L2).
//
// N: y += alpha*A*x, 8 columns at a time: 8 sequential streams (prefetchers
//    follow up to dozens) into a y block held in registers, y read and
//    written once per 8 columns (1/8 of A's traffic, from L1/L2); fp32
//    from memory in 256-bit halves (gemv_n_columns_in_halves).
// T: y += alpha*A^T*x, 4 columns at a time (fp32; 8 for 16-bit: see
//    kColsTransF32): dot products against x with independent accumulators,
//    reduced horizontally once per column.
// 16-bit matrices widen to fp32 in registers (fp16: vcvtph2ps; bf16: shift).
// With prefetch_elements, one prefetch per cache line of each column, that far
// ahead: from DRAM the hardware prefetchers alone left one core at 13 GB/s on a
// 16-bit A (bf16 16384^2 at 12.9-13.2 GFLOP/s) against 14-15 GB/s for fp32.
// Measured on this project's AVX-512 VM, 16384^2, 1 thread, GFLOP/s, alternating
// runs: bf16 none 12.9-13.2, 128 elements ahead 14.7, 256 15.1-15.8, 384 15.0,
// 512 14.0; fp32 none 7.2-7.4 (N and T), 128 elements ahead N 7.1-7.8 but T
// 6.4-6.9, 256 N 7.8-8.2 and T 7.7-7.9. In cache it costs the extra
// instructions (bf16 1024^2 40-41 -> 39), so the driver asks for it only for
// an A beyond the LLC, and a tuned profile may turn it off where the hardware
// prefetchers alone stream faster (paths.h: kGemvPrefetchElements).
#include "kernels/intrinsics.h"

#include "kernels/avx512/lanes_avx512.h"
#include "kernels/avx512/load_to_f32_avx512.h"

#include <algorithm>

#include "kernels/gemv_kernel.h"
#include "kernels/gemv_prefetch.h"

namespace ridge {
namespace {

constexpr int kCols = 8;  // columns per pass (N; T with 16-bit A)
// T with fp32 A: 4 columns per pass. On the Zen 4 VM (32 KiB 8-way L1d) 8
// columns of fp32 read 0.64-0.73x the GB/s of BLIS's and OpenBLAS's GEMV;
// OpenBLAS's own sgemv_t kernels take 4 columns. 4 against 8, one process
// alternating two builds (`RIDGE_NUM_THREADS=T gvab OLD NEW M N T 9`, a
// throwaway harness around cblas_sgemv; medians of the paired ratios): 1
// thread 16384^2 1.313-1.356, 8000^2 1.089, 4096^2 1.059-1.084, 2048^2
// 1.031, 1500^2 1.096, 1024^2 (A in L3) 1.261-1.268, 1000^2 1.172, but
// 2000 x 3000 0.962-0.973 and 3000 x 2000 0.994 (A 23 MiB, about the L3's
// size); 2 threads 16384^2 1.061. 2 columns 0.87-0.91x of 4, 6 columns
// 0.85-0.93x, 4 with two accumulators per column 0.65-1.01x; prefetching
// 512 elements ahead instead of 256 0.91-0.94x. A 16-bit A kept 8 columns:
// with 4, bf16 T 16384^2 0.963, 4096^2 0.881 (1024^2 1.108). With the
// software prefetch off (the Zen 4 VM's tuned profile: paths.h), 8
// against 4 from memory 0.955-1.048 (8000^2-16384^2, 2000 x 3000), in L3
// (1024^2) 0.748. With whole blocks unmasked (gemv_t_block below), 8 against
// 4 again (gvab, 41-61 rounds, two runs): A in L3 1000^2-1536^2 0.81-1.03
// (1024^2 0.81-0.89), 2000^2-4096^2 and 2000 x 3000 / 3000 x 2000 1.09-1.21,
// 16384^2 0.96-0.98: better only for an A about the L3's size or a few times
// it, kept at 4 (a size rule fitted to one noisy VM would not carry). bf16 A
// with 4 columns, unmasked, against 8: 1024^2 / 2048^2 1.03-1.04, 3000 x 2000
// 0.94, from memory (4096^2, 16384^2) 0.81-0.89: 8 kept. Not
// measured on the Zen 5 VM, where 8 columns ran ahead of both peers.
constexpr int kColsTransF32 = 4;


// N, one block of 16 rows (kWhole) or the last, partial one (through mask mk):
// y[i..i+15] += the block's row sums over C columns, accumulated from zero in
// column order and added to y once at the end (y's load off the FMA chain).
// Whole blocks load without masks. Against one chain from y with every load
// masked (`RIDGE_NUM_THREADS=1 gvab OLD NEW M N N 61`, a throwaway harness
// alternating two builds' cblas_sgemv in one process; medians of 61 paired
// ratios, two runs each; A where malloc puts it, 16 bytes past a line): on the
// Zen 4 VM 2048^2 1.036-1.110, 4096^2 1.020-1.041, 16384^2 1.026-1.037,
// 3000 x 2000 1.136-1.151, 2000 x 3000 1.144-1.151, in L2/L3 (1000^2,
// 1024^2) 0.990-1.000; bf16 A 1.047-1.099 (1024^2-16384^2, 3000 x 2000),
// fp16 A 1.057-1.093 (2048^2, 4096^2); 2 threads 1.005-1.030. Either change
// alone had measured 1.00-1.03. (Those runs summed even and odd columns in
// two chains; one chain measured the same, 0.996-1.008, and matches the
// halves below lane for lane.) Paired with Debian's OpenBLAS 0.3.21
// (Cooperlake kernels) the same way, at 2048^2 and 4096^2 its sgemv_n ran
// 1.012-1.103x ridge's before, 0.971-1.024x after (in several spells of the
// host, which moves both).
// Every row sees the same operations in the same order wherever its block
// falls, so the driver's split of rows among threads leaves y bit for bit.
template <typename L, int C, bool kWhole>
[[gnu::always_inline]] inline void gemv_n_block(const typename L::T* a, int64_t lda, int64_t i, __mmask16 mk,
                                               const __m512 (&xv)[C], float* y) {
    auto load = [&](int c) { return L::template load<kWhole>(a + c * lda + i, mk); };
    __m512 sum = _mm512_setzero_ps();
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) sum = _mm512_fmadd_ps(load(c), xv[c], sum);
    if (kWhole)
        _mm512_storeu_ps(y + i, _mm512_add_ps(_mm512_loadu_ps(y + i), sum));
    else
        _mm512_mask_storeu_ps(y + i, mk, _mm512_add_ps(_mm512_maskz_loadu_ps(mk, y + i), sum));
}

template <typename L, int C>
void gemv_n_columns(int64_t m, const typename L::T* a, int64_t lda, const float* xs, float* y, int64_t ahead) {
    __m512 xv[C];
    for (int c = 0; c < C; ++c) xv[c] = _mm512_set1_ps(xs[c]);
    int64_t i = 0;
    for (; i + 16 <= m; i += 16) {
        prefetch_gemv_columns<typename L::T, C>(a, lda, i, ahead);
        gemv_n_block<L, C, true>(a, lda, i, 0, xv, y);
    }
    if (i < m) gemv_n_block<L, C, false>(a, lda, i, first_lanes(m - i), xv, y);
}

// N for an A streamed from memory (the driver's choice, for an A at least the
// L3: GemvKernel::n_from_memory), fp32: every 16-row block as two 8-row
// halves, each column read by 256-bit loads, the same sums as gemv_n_block's
// lane for lane (so y is the same bits either way). On the Zen 4 VM, where a
// 512-bit operation runs as two 256-bit halves, the zmm loads streamed
// slower from DRAM with A on a cache-line boundary (as ridge-bench and
// 64-byte-aligned allocators place it): against gemv_n_columns (gvab as
// above, 31-41 rounds, 1 thread) 4096^2 1.093-1.126, 8192^2 1.114-1.131,
// 16384^2 1.140-1.158; A 16 bytes past a line (malloc's) 1.005-1.046; 2
// threads 0.984-1.035. From L3 it lost (2048^2 0.92-0.98, 3000 x 2000
// 0.89-0.93), hence only from memory; a 16-bit A lost from memory too
// (bf16 0.88-0.93: its zmm path already loads 256 bits a column), hence fp32
// only. The same halves for T measured 0.98-1.03 from memory: not taken.
// Against OpenBLAS's sgemv_n, A on a line boundary: 4096^2 0.987, 8192^2
// 0.927, 16384^2 0.875 (its speed over ridge's; 1.013-1.099 with the zmm loads).
template <typename L, int C>
void gemv_n_columns_in_halves(int64_t m, const typename L::T* a, int64_t lda, const float* xs, float* y,
                              int64_t ahead) {
    static_assert(sizeof(typename L::T) == 4, "an fp32 A: its loads are plain 256-bit ones");
    __m256 xh[C];
    for (int c = 0; c < C; ++c) xh[c] = _mm256_set1_ps(xs[c]);
    int64_t i = 0;
    for (; i + 16 <= m; i += 16) {
        prefetch_gemv_columns<typename L::T, C>(a, lda, i, ahead);
        __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) {
            lo = _mm256_fmadd_ps(_mm256_loadu_ps(a + c * lda + i), xh[c], lo);
            hi = _mm256_fmadd_ps(_mm256_loadu_ps(a + c * lda + i + 8), xh[c], hi);
        }
        _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_loadu_ps(y + i), lo));
        _mm256_storeu_ps(y + i + 8, _mm256_add_ps(_mm256_loadu_ps(y + i + 8), hi));
    }
    if (i < m) {
        __m512 xv[C];
        for (int c = 0; c < C; ++c) xv[c] = _mm512_set1_ps(xs[c]);
        gemv_n_block<L, C, false>(a, lda, i, first_lanes(m - i), xv, y);
    }
}

template <typename L, bool kInHalves>
void gemv_n(int64_t m, int64_t n, float alpha, const void* av, int64_t lda, const float* x, float* y, int64_t ahead) {
    const auto* a = static_cast<const typename L::T*>(av);
    int64_t j = 0;
    for (; j + kCols <= n; j += kCols) {
        float xs[kCols];
        for (int c = 0; c < kCols; ++c) xs[c] = alpha * x[j + c];
        if constexpr (kInHalves)
            gemv_n_columns_in_halves<L, kCols>(m, a + j * lda, lda, xs, y, ahead);
        else
            gemv_n_columns<L, kCols>(m, a + j * lda, lda, xs, y, ahead);
    }
    for (; j < n; ++j) {
        const float xs = alpha * x[j];
        if constexpr (kInHalves)
            gemv_n_columns_in_halves<L, 1>(m, a + j * lda, lda, &xs, y, ahead);
        else
            gemv_n_columns<L, 1>(m, a + j * lda, lda, &xs, y, ahead);
    }
}

// T, one block of 16 rows (kWhole: loads without masks) or the last, partial
// one; the sums are those of the masked loop before (the same bits). Whole
// blocks unmasked against every load masked (gvab OLD NEW M N T 61 / 31 as
// for N above, Zen 4 VM, 1 thread): fp32 2048^2 1.108-1.230, 4096^2
// 1.063-1.080, 3000 x 2000 1.061-1.073, 2000 x 3000 1.052, 16384^2
// 1.019-1.033, 1024^2 (in L3) 0.990-0.993; bf16 A 1.076 (16384^2) to 1.406
// (2048^2); 2 threads 1.033-1.038. Against OpenBLAS's sgemv_t the same way,
// 2048^2 / 4096^2: 1.121 / 1.020x ridge's before, 0.907 / 0.967x after.
template <typename L, int C, bool kWhole>
[[gnu::always_inline]] inline void gemv_t_block(const typename L::T* a, int64_t lda, int64_t i, __mmask16 mk,
                                               const float* x, __m512 (&acc)[C]) {
    const __m512 xv = kWhole ? _mm512_loadu_ps(x + i) : _mm512_maskz_loadu_ps(mk, x + i);
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c)
        acc[c] = _mm512_fmadd_ps(L::template load<kWhole>(a + c * lda + i, mk), xv, acc[c]);
}

template <typename L, int C>
void gemv_t_columns(int64_t m, const typename L::T* a, int64_t lda, float alpha, const float* x, float* y,
                    int64_t ahead) {
    __m512 acc[C];
    for (int c = 0; c < C; ++c) acc[c] = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= m; i += 16) {
        prefetch_gemv_columns<typename L::T, C>(a, lda, i, ahead);
        gemv_t_block<L, C, true>(a, lda, i, 0, x, acc);
    }
    if (i < m) gemv_t_block<L, C, false>(a, lda, i, first_lanes(m - i), x, acc);
    for (int c = 0; c < C; ++c) y[c] += alpha * _mm512_reduce_add_ps(acc[c]);
}

template <typename L>
void gemv_t(int64_t m, int64_t n, float alpha, const void* av, int64_t lda, const float* x, float* y, int64_t ahead) {
    const auto* a = static_cast<const typename L::T*>(av);
    int64_t j = 0;
    constexpr int kColsT = sizeof(typename L::T) == 4 ? kColsTransF32 : kCols;
    for (; j + kColsT <= n; j += kColsT) gemv_t_columns<L, kColsT>(m, a + j * lda, lda, alpha, x, y + j, ahead);
    for (; j < n; ++j) gemv_t_columns<L, 1>(m, a + j * lda, lda, alpha, x, y + j, ahead);
}

}  // namespace

void gemv_n_f32__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements) {
    gemv_n<LoadF32, false>(m, n, alpha, a, lda, x, y, prefetch_elements);
}
void gemv_n_f32_from_memory__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x,
                                    float* y, int64_t prefetch_elements) {
    gemv_n<LoadF32, true>(m, n, alpha, a, lda, x, y, prefetch_elements);
}
void gemv_t_f32__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements) {
    gemv_t<LoadF32>(m, n, alpha, a, lda, x, y, prefetch_elements);
}
void gemv_n_f16__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements) {
    gemv_n<LoadF16, false>(m, n, alpha, a, lda, x, y, prefetch_elements);
}
void gemv_t_f16__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements) {
    gemv_t<LoadF16>(m, n, alpha, a, lda, x, y, prefetch_elements);
}
void gemv_n_bf16__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements) {
    gemv_n<LoadBF16, false>(m, n, alpha, a, lda, x, y, prefetch_elements);
}
void gemv_t_bf16__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements) {
    gemv_t<LoadBF16>(m, n, alpha, a, lda, x, y, prefetch_elements);
}

}  // namespace ridge
