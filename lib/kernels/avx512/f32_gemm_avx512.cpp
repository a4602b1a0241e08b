// fp32 GEMM microkernel for AVX-512F: a 32 x 12 register tile.
//
// Why 32 x 12: each k step loads two 16-float columns of A and broadcasts 12
// values of B, then issues 24 independent FMAs into 24 zmm accumulators.
// With 2 FMA ports and a 4-cycle FMA latency a core needs at least 8
// independent accumulators to keep both ports busy (Low et al., TOMS 2016);
// 24 also hides load latency, and 24 + 2 (A) + 1 (B broadcast) fit in the 32
// zmm registers. Per k step: 24 FMAs against 2 vector loads and 12 broadcasts,
// well within two load ports. (BLIS's skx sgemm kernel uses the same shape.)
// Each value of B is broadcast into a register once and used by two FMAs, not
// folded into each FMA as a {1to16} memory operand: on Zen 5 the folded form
// (24 FMAs with embedded broadcasts, an inline-asm experiment) ran at half
// the rate, 0.504-0.509x at 1024^3 and 2048^3 (`ridge-ab OLD NEW N N N 15`).
// On the Zen 4 the two forms run alike: this k loop over panels in L1 (kc =
// 256, a throwaway program outside the tree, the loop in inline assembly) ran
// 117.3 GFLOP/s with either, the measured peak; so what the blocked path loses
// there (92-96% of peak at 1024^3-2048^3) is outside the k loop: the update of
// C, A from L2 and packing.
// On the Intel VM (model 207) the folded form lost too: 32 x 12 0.95-0.96 at
// 1024^3 / 2048^3, and a 48 x 8 tile with folded broadcasts 0.92-0.96 of the
// same tile broadcasting into registers (24 loads of B a step against 8).
// Why 32 x 12 and not oneDNN's 48 x 8 (11 loads a k step against 14): in that
// VM's slow spells (with every operand in L1 this k loop ran 25% slower while
// an FMA loop did not slow) the 48 x 8 k loop kept about 6% more of its rate.
// A 48 x 8 kernel with all of this file's twins (C streamed, A or B packed on
// the way, edges through the skinny tall tile; branch wip/f32-48x8, whose
// entry has no small, skinny or few-rows kernels, so those paths were off in
// it) against this one
// (`RIDGE_NUM_THREADS=1 ridge-ab THIS 48x8 N N N 15-21`): 1024^3 1.028,
// 2000^3 1.025, 2048^3 1.004 and 1.034 (reversed), 1536^3 0.977 and 1.004,
// 1000^3 1.004, 2048 x 512 x 2048 1.045, 512 x 2048 x 2048 1.043, TN / NT /
// TT at 1024^3 1.025 / 1.016 / 0.995, 3000 x 400 x 400 1.021, 2 threads
// 1024^3 / 2048^3 1.026 / 1.021; but 512^3 0.957, 640^3 0.989, 768^3 0.998,
// where this kernel's small-kernel reads (B in place from L2, A in place)
// and 32-row edges do better. Per spell (rounds with oneDNN sorted by its
// rate, a throwaway program): 1024^3 slow / fast 1.001-1.029 / 1.000-1.002,
// 1056^3 1.031 / 1.007, but 2048^3 1.028 / 0.994 in one run and 0.979 /
// 0.979 in the next. Then as the blocked path's second kernel (branch
// wip/f32-48x8-blocked: run where this kernel's schedule would pack both
// operands, at this kernel's KC so that C keeps its bits, the small, skinny
// and few-rows paths left to this kernel) against the library without it, in
// a fast spell: 1024^3 1.004, 2048^3 0.994, 1536^3 1.005, 896^3 1.007,
// 1000^3 0.998, 640^3 0.976-0.982, 3000 x 400 x 400 1.044, 2048 x 512 x 2048
// 0.976; per spell (thirds by oneDNN's rate) 1024^3 1.012 / 0.990 (slow /
// fast), 2048^3 0.997 / 0.998. No gain outside the slow spells, and those
// gave 1-3% where they came: not merged.
#include "kernels/intrinsics.h"

#include <algorithm>

#include "kernels/avx512/late_prefetch_c_avx512.h"
#include "kernels/avx512/store_tile_avx512.h"
#include "kernels/avx512/transpose_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {

namespace {
constexpr int kMR = 32;
constexpr int kNR = 12;
// How far ahead (in k steps) to prefetch the A micro-panel, which streams from L2.
// Without the prefetch: 0.996-1.005 at 1024^3 and 2048^3 on Zen 5 at the host's
// normal speed, 0.99-1.03 in a slow spell (`ridge-ab OLD NEW N N N 11-21`): kept.
constexpr int kPrefetchStepsA = 8;
}  // namespace

namespace {

inline void zero_tile(__m512 (&lo)[kNR], __m512 (&hi)[kNR]) {
#pragma GCC unroll 12
    for (int j = 0; j < kNR; ++j) {
        lo[j] = _mm512_setzero_ps();
        hi[j] = _mm512_setzero_ps();
    }
}

// The 24 FMAs of a k step: lo/hi += (a_lo, a_hi) * each of the 12 values of B at b.
inline void fmas_32x12(__m512 a_lo, __m512 a_hi, const float* b, __m512 (&lo)[kNR], __m512 (&hi)[kNR]) {
#pragma GCC unroll 12
    for (int j = 0; j < kNR; ++j) {
        const __m512 bj = _mm512_set1_ps(b[j]);
        lo[j] = _mm512_fmadd_ps(a_lo, bj, lo[j]);
        hi[j] = _mm512_fmadd_ps(a_hi, bj, hi[j]);
    }
}

// One k step: lo/hi += column p of the A panel (32 rows) * row p of the B
// panel (12 values), the A panel prefetched kPrefetchStepsA steps ahead.
inline void k_step_32x12(const float*& a, const float*& b, __m512 (&lo)[kNR], __m512 (&hi)[kNR]) {
    _mm_prefetch(reinterpret_cast<const char*>(a + kPrefetchStepsA * kMR), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(a + kPrefetchStepsA * kMR + 16), _MM_HINT_T0);
    const __m512 a_lo = _mm512_load_ps(a);
    const __m512 a_hi = _mm512_load_ps(a + 16);
    fmas_32x12(a_lo, a_hi, b, lo, hi);
    a += kMR;
    b += kNR;
}

// The tile of C is prefetched during the last late_k_steps (96: below) k steps, one column
// (2 lines, 3 off a line) every kStepsPerColumnOfC steps, with write intent (prefetchw: the
// lines arrive ready to be stored to). Prefetched at the start of the k loop
// instead, they sit in L1 for all of it, where the streaming A panel can evict
// them before the end (at a leading dimension that is a multiple of 1024
// floats all 24 lines fall into two L1 sets of 12 ways). 48 steps (about 600
// cycles at the FMA rate) still cover a fetch from L3. The C tiles still cost
// something: every tile in one L1 scratch instead (a timing-only probe) ran
// 1.033-1.038x at 2048^3 and 1.012x at 2064^3, and the macro-kernel alone
// (1024 x 2040, kc 256, C 2048 apart) 169 against 173 GFLOP/s. Running on a
// copy of C at ldc + 32 measured 0.993, so the power-of-two stride is not
// the whole of it there (Zen 5's L1 is 12-way: a tile's 12 columns fit a set).
// Measured against a prefetch at the start (paired medians,
// `ridge-ab OLD NEW M N K ROUNDS [TRANS [TYPE]]`, 1 thread unless said):
// 2048^3 0.995-1.015 over seven runs (median 1.008), 2064^3 1.008-1.010,
// 1024^3 1.003-1.011, NT 1.010, fp16 inputs 2048^3 1.017, 4096 x 128 x 4096
// 1.008, 2 threads 2048^3 1.009; prefetcht0 in place of prefetchw 2048^3
// 1.006. A column every 2 or 8 steps measured no different from every 4.
// Small, as the tile of C is one of several costs around the kernel.
//
// On Zen 4 (32 KiB, 8-way L1) an ldc that is a multiple of 1024 floats does
// cost. ldc padded by 16 floats ran 1.021-1.025x at 2048^3 and 1.016x at
// 1024^3, no faster at 512^3 / 256^3 (`LDC_PAD_B=16 ridge-ab LIB LIB n n n
// 11-21`, two copies of one build); the macro-kernel alone (a 2048 x 2040 C, B
// cycling in L2) 111.4 GFLOP/s at ldc 2048 against 115.2 at 2064. Not only
// because 12 columns cannot share a set of 8 ways: at 2048^3 ldc 3072, whose
// columns also share one set, ran 1.015, 2304 1.018, 2560 1.012, 4096 1.007; a
// single KC step (k = 320, C only written) lost nothing, two (k = 640) 2.5%. An
// rdtsc probe around the kernel's parts (2048^3, ldc 2048 against 2064): the k
// loop the same, the update of C 168 TSC cycles per tile against 83, and 30
// more between calls. Loading the tile of C before storing it
// (store_tile_avx512.h) took the update to 139 against 74; padding still ran
// 1.017 at 2048^3 and 1.009 at 1024^3 after it. Tried besides, at ldc 2048
// (the kernel's loop over a packed block, two variants alternated in one
// process): a 64 x 6 tile (6 lines per set) on 64-row A panels and 6-column B
// panels 1.013-1.025 at ldc 2048, 1.002-1.005 at 2064; 48 x 8 1.009 / 0.989
// (the 64 x 6 kernel as the library's fp32 kernel, in a throwaway build with a
// profile's KC 320 and MC 576: 1.001-1.010 at 2048^3 and 1.003 at 1024^3 for
// the whole GEMM, so not pursued); a 64 x 6 tile on this kernel's own panels
// (two A panels, half a B micro-panel) 0.997; prefetchw for 8 columns and
// prefetcht1 for the other 4 0.997; a column every 1, 2 or 8 steps 0.98-1.004;
// the tile also prefetched into L2 at the start 0.963; prefetcht1 in place of
// prefetchw 0.966, prefetchnta 0.995-1.007, no prefetch of C 0.969; the next
// tile's C prefetched a line every 8 steps 0.995-1.003; the columns updated in
// reverse order 1.005 (and no better with the loads first); B prefetched 8 or
// 16 steps ahead 0.97-1.01; C loaded into the accumulators before the k loop
// (beta = 1: not the same rounding, a throwaway probe) 0.974-0.993; a tile's
// update deferred into the next tile's k loop (a column every 4 steps, a
// prototype) 0.97-0.98; A loaded a step ahead of its FMAs 0.992-1.007; the
// last 8 or 16 k steps run as two halves of 6 columns, each half's update of C
// right after its steps (6 lines a set, the same sums) 1.000-1.003 / 0.996-1.001
// (padding C then gained 1.010 at 2048^3 instead of 1.017).
// All of the above is the five loops' order, which swept all n columns of C
// for each block of A. Since 1024^3 and 2048^3 run as one block of all of A's
// rows, B panels of 300 columns at a time (packs_all_rows_as_one_block in
// blocked_schedule.cpp), padding C gains nothing there (0.999 / 1.004, the same
// LDC_PAD_B command): the power-of-two ldc cost through that sweep, not
// through the tile's 12 columns sharing a set.
// In that order, on the Zen 4 (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K
// 7-21`, two copies of one build 0.996-1.003): oneDNN's 48 x 8 tile as the
// library's kernel (its own file and registry line, the prefetches as here, A
// panel prefetched 8 or 16 steps ahead, B through the general packer, m = 2016
// so that no tile is an edge) 0.994-0.998 with KC 320-480 by profile and 0.970
// with KC 640; the k loop below unrolled 1 or 2 times instead of 4 1.000-1.009;
// the last 48 steps unrolled (GCC then hoists the prefetches together
// and spills) 0.987-0.996, or run as the last 12 of one loop of 4-step groups,
// each group prefetching a column of C or (before them) a line of A,
// 0.992-1.001; this file built with -mtune=znver3 0.995-1.000. perf (cpu-clock)
// puts 82% of the kernel's samples at 2048^3 in the k loop, 17% in its last 48
// steps and 1.5% in the update of C. Timed alone (a throwaway rdtsc loop: A
// panels in L2, B in L1, C tiles in L1, kc 320) the kernel as built here ran
// 99-99.9% of the measured peak (97-99% in slower spells), copies of it
// compiled into the test program 1-3% less, in the same runs: what the blocked
// path loses inside the kernel (about 2% at 2048^3) is where its operands come
// from, and the code GCC emits is sensitive to how the loops are written.

// k steps per column of C in the late prefetch: 8, so 96 late steps (about
// 1150 cycles at Zen 5's FMA rate, a k step 12 cycles there). The figures
// above are from 4 (48 steps), where 2 and 8 measured no different on the
// Intel VM and the Zen 4 (at KC 256-320). On the Zen 5 at its profile's KC
// 512, 8 against 4 (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW N N N 11-15`, with
// the profile): 2048^3 1.017 / 1.008, 1024^3 1.008 / 1.023, 1536^3 1.015,
// 1024^3 NT 1.020; without a profile (KC 256) 2048^3 1.018, 1024^3 1.013; 16
// (192 steps) 1.020 at 1024^3 but 0.953 at 2048^3, 12 no better than 8
// (0.999 / 0.991). A Zen 5 k step takes half a Zen 4 step's time, so the
// same steps hide half the latency of C's fetch there.
constexpr int kStepsPerColumnOfC = 8;

// Below this depth the tile of C is not prefetched at all: a call of a few
// hundred cycles has no k steps to hide a fetch behind, and its prefetches
// only held fill buffers the A panel's loads wanted (C in ordinary stores,
// against prefetching it over all of a short k; 1 thread, `[BETA=1]
// RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K 11`): beta = 1 2048 x 2048 x 16
// 1.042, x 32 1.058, x 48 1.028, 1024 x 1024 x 16 1.051, x 64 1.029, 4096 x
// 4096 x 16 1.026, 2048 x 2048 x 96 1.002; beta = 0 2048 x 2048 x 64 1.030,
// 1024 x 1024 x 96 1.007. From 128 to 255 steps none was no different (2048 x
// 2048 x 128 / 192 1.009 / 1.000, 1024 x 1024 x 160 0.993, 1000^3 1.010), and
// at KC 256 the late prefetch is what was measured to pay (above).
constexpr int64_t kMinKcPrefetchingC = 128;

// The k loop of the kernel: lo/hi += A panel (32 x kc) * B panel (kc x 12).
// Inlined into both entry points below, which differ only in how C is written.
// kPrefetchC: bring the tile of C in before the end (it is read or updated in
// cache there); not when C is streamed out, where it would read C from memory
// for nothing.
template <bool kPrefetchC>
inline void accumulate_32x12(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             __m512 (&lo)[kNR], __m512 (&hi)[kNR]) {
    zero_tile(lo, hi);
    const int64_t late_steps = kPrefetchC && kc >= kMinKcPrefetchingC ? late_k_steps<kNR, kStepsPerColumnOfC>(kc) : 0;
#pragma GCC unroll 4
    for (int64_t p = 0; p < kc - late_steps; ++p) k_step_32x12(a, b, lo, hi);
    if (!kPrefetchC || late_steps == 0) return;
    run_late_k_steps_prefetching_c<kNR>(late_steps, c, ldc, [&] { k_step_32x12(a, b, lo, hi); });
}

// How far ahead (in k steps) the packing kernel below prefetches A's source:
// its k steps lie lda apart, a stride the hardware prefetchers do not follow.
constexpr int kPrefetchStepsSourceA = 8;

// One k step of the packing kernel: column p of A's 32 rows read where the
// caller keeps it (a, lda apart), stored into the packed panel as
// pack_panel_f32__avx512 lays it out (32 floats a step), then the same FMAs
// as k_step_32x12 on the same values: C comes out bit for bit as from the
// packed kernel.
inline void k_step_32x12_packing_a(const float*& a, int64_t lda, float*& a_panel, const float*& b,
                                   __m512 (&lo)[kNR], __m512 (&hi)[kNR]) {
    const float* ahead = a + kPrefetchStepsSourceA * lda;
    // The run's 128 bytes span three lines where A is off its cache lines
    // (glibc's malloc puts a large block 16 bytes past one): its first
    // float's, its 17th's and its last's cover them wherever it starts. With
    // the first and last alone the middle line came on demand from memory:
    // the twin ran 0.98-0.99x of the packing pass at 4096 x 96 x 4096 with A
    // 16 bytes past a line, 1.01-1.04x with this one (1.04-1.06x on a line
    // either way; a probe of the tuner's two plans, 1 thread, 9 rounds).
    _mm_prefetch(reinterpret_cast<const char*>(ahead), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(ahead + 16), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(ahead + kMR - 1), _MM_HINT_T0);
    const __m512 a_lo = _mm512_loadu_ps(a);
    const __m512 a_hi = _mm512_loadu_ps(a + 16);
    _mm512_store_ps(a_panel, a_lo);
    _mm512_store_ps(a_panel + 16, a_hi);
    fmas_32x12(a_lo, a_hi, b, lo, hi);
    a += lda;
    a_panel += kMR;
    b += kNR;
}

// 16 k steps of a micro-panel of B (12 columns ldb apart, each contiguous
// along k) packed at b_panel as pack_panel_f32__avx512 lays it out: one
// vector, a 64-byte line at most, of each column.
inline void pack_16_steps_of_b(const float* b, int64_t ldb, float* b_panel) {
    for (int g = 0; g < 3; ++g) {
        const float* col = b + 4 * g * ldb;
        const __m512 rows[4] = {_mm512_loadu_ps(col), _mm512_loadu_ps(col + ldb), _mm512_loadu_ps(col + 2 * ldb),
                                _mm512_loadu_ps(col + 3 * ldb)};
        store_16_steps_of_4_rows(rows, b_panel + 4 * g);
    }
}

// Steps [first, last) of the micro-panel of B packed one value at a time (the
// k steps after the last whole 16).
inline void pack_steps_of_b(const float* b, int64_t ldb, int64_t first, int64_t last, float* b_panel) {
    for (int64_t p = first; p < last; ++p)
        for (int j = 0; j < kNR; ++j) b_panel[p * kNR + j] = b[j * ldb + p];
}

}  // namespace

void ukr_f32_gemm_32x12_packing_a__avx512(int64_t kc, float alpha, const float* a, int64_t lda, void* a_panel,
                                          const void* b_panel, float beta, float* c, int64_t ldc) {
    __m512 lo[kNR];
    __m512 hi[kNR];
    zero_tile(lo, hi);
    auto* packed = static_cast<float*>(a_panel);
    const auto* b = static_cast<const float*>(b_panel);
    const int64_t late_steps = kc >= kMinKcPrefetchingC ? late_k_steps<kNR, kStepsPerColumnOfC>(kc) : 0;
#pragma GCC unroll 4
    for (int64_t p = 0; p < kc - late_steps; ++p) k_step_32x12_packing_a(a, lda, packed, b, lo, hi);
    if (late_steps > 0)
        run_late_k_steps_prefetching_c<kNR>(late_steps, c, ldc,
                                            [&] { k_step_32x12_packing_a(a, lda, packed, b, lo, hi); });
    store_tile_32xNR<kNR>(lo, hi, alpha, beta, c, ldc);
}

void ukr_f32_gemm_32x12_packing_b__avx512(int64_t kc, float alpha, const void* a_panel, const float* b, int64_t ldb,
                                          void* b_panel, float beta, float* c, int64_t ldc) {
    __m512 lo[kNR];
    __m512 hi[kNR];
    zero_tile(lo, hi);
    const auto* a = static_cast<const float*>(a_panel);
    auto* packed = static_cast<float*>(b_panel);
    const float* packed_step = packed;  // the k steps' B values, read back as the packed kernel reads them
    const int64_t late_steps = kc >= kMinKcPrefetchingC ? late_k_steps<kNR, kStepsPerColumnOfC>(kc) : 0;
    const int64_t blocks = (kc - late_steps) / 16;  // packed just before their 16 steps run
    for (int64_t block = 0; block < blocks; ++block) {
        pack_16_steps_of_b(b + block * 16, ldb, packed + block * 16 * kNR);
#pragma GCC unroll 4
        for (int p = 0; p < 16; ++p) k_step_32x12(a, packed_step, lo, hi);
    }
    // The steps after those (the late ones among them) packed before they run.
    int64_t p = blocks * 16;
    for (; p + 16 <= kc; p += 16) pack_16_steps_of_b(b + p, ldb, packed + p * kNR);
    pack_steps_of_b(b, ldb, p, kc, packed);
    for (int64_t q = blocks * 16; q < kc - late_steps; ++q) k_step_32x12(a, packed_step, lo, hi);
    if (late_steps > 0)
        run_late_k_steps_prefetching_c<kNR>(late_steps, c, ldc, [&] { k_step_32x12(a, packed_step, lo, hi); });
    store_tile_32xNR<kNR>(lo, hi, alpha, beta, c, ldc);
}

void ukr_f32_gemm_32x12__avx512(int64_t kc, float alpha, const void* a_packed, const void* b_packed,
                                float beta, float* c, int64_t ldc) {
    __m512 lo[kNR];  // rows 0-15 of each column of the tile
    __m512 hi[kNR];  // rows 16-31
    accumulate_32x12<true>(kc, static_cast<const float*>(a_packed), static_cast<const float*>(b_packed), c, ldc, lo, hi);
    store_tile_32xNR<kNR>(lo, hi, alpha, beta, c, ldc);
}

// The lines of the 32 x 12 tile at c (gemm_blocked.cpp: prefetch_next_tile_of_c).
inline void prefetch_tile_of_c(const float* c, int64_t ldc) {
#pragma GCC unroll 12
    for (int j = 0; j < kNR; ++j) {
        _mm_prefetch(reinterpret_cast<const char*>(c + j * ldc), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(c + j * ldc + 16), _MM_HINT_T0);
    }
}

void ukr_f32_gemm_32x12_tiles__avx512(int64_t tiles, int64_t kc, float alpha, const void* a_panels,
                                      int64_t a_panel_bytes, const void* b_panel, float beta, float* c, int64_t ldc,
                                      bool prefetch_next_c) {
    const auto* panel = static_cast<const char*>(a_panels);
    const auto* b = static_cast<const float*>(b_panel);
    for (int64_t t = 0; t < tiles; ++t, panel += a_panel_bytes, c += kMR) {
        if (prefetch_next_c) prefetch_tile_of_c(c + kMR, ldc);
        __m512 lo[kNR];
        __m512 hi[kNR];
        accumulate_32x12<true>(kc, reinterpret_cast<const float*>(panel), b, c, ldc, lo, hi);
        store_tile_32xNR<kNR>(lo, hi, alpha, beta, c, ldc);
    }
}

// C = alpha * A * B written with non-temporal stores: for a C larger than the
// last-level cache that is written once (beta = 0, one pass over k), a normal
// store first reads each line of C from memory (read for ownership), doubling
// the traffic of a shape that is bound by writing C (4096 x 4096 x 16 here: the
// tile pattern measured 13-14 GB/s written with stores, 24 GB/s with streaming
// stores).
void ukr_f32_gemm_32x12_stream_c__avx512(int64_t kc, float alpha, const void* a_packed,
                                         const void* b_packed, float /*beta*/, float* c, int64_t ldc) {
    __m512 lo[kNR];
    __m512 hi[kNR];
    accumulate_32x12<false>(kc, static_cast<const float*>(a_packed), static_cast<const float*>(b_packed), c, ldc, lo, hi);
    stream_tile_32xNR<kNR>(lo, hi, alpha, c, ldc);
}

}  // namespace ridge
