// The per-call path rules: which path a call takes (small, skinny, few rows, rows
// in place, blocked), the blocked path's blocking for it and its threads, each
// with what it was measured on.
#include "dispatch/paths.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "gemm/l1_sets.h"
#include "gemm/pack.h"
#include "tuning/topology.h"

namespace ridge {
namespace {

// Up to this volume m*n*k, reading A and B in place beats packing them.
// Measured on this project's AVX-512 machine (square shapes, each path
// forced through a profile, ridge-bench, alternating runs), small / blocked:
// 1 thread NN 128^3 1.07, 192^3 1.10-1.14, 256^3 1.07-1.13, 384^3 1.05,
// 512^3 1.00-1.06, TN 256^3 1.09-1.16; 2 threads NN 192^3 1.56-1.68, 256^3
// 1.32-1.50, 384^3 1.13, 512^3 1.02-1.12, TN 256^3 1.26-1.47, TT 192^3 1.40.
// (With the small path on one thread only, the blocked path's second thread
// won from 192^3; 160^3 was the limit then.) A profile may move it (ridge-tune
// measures it). 640^3 since the small path blocks op(A)'s rows at k up to
// L1's worth of B's column tile (31e00be): on the Zen 4 VM (32 KiB L1, 1 MiB
// L2), the small path against the blocked path beyond 512^3 (one build each,
// `RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N K 9-11`), 1 thread: 528^3 1.022-1.024,
// 560^3 1.020-1.023, 600^3 1.021-1.031, 640^3 1.020-1.023, 576 x 1024 x 384
// 1.020, 640 x 640 x 512 1.025, 512 x 768 x 640 1.018, 600 x 800 x 500 1.010,
// 600^3 TN 1.007; 2 threads 576^3 1.045, 600^3 1.032 (TN 1.003), 640^3
// 1.037. Further it fades (704^3 1.008, 768^3 1.004, 896^3 1.003) and at
// 1024^3, A's columns 4 KiB apart, it loses (0.883): past 512 rows only
// squares (kSmallPathMaxSquare). Shapes of at most 512 rows the larger volume
// takes too: 49 x 4096 x 1024 1.118, 64 x 4096 x 1000 1.166, 128 x 2048 x 1000
// 1.072, 512 x 1000 x 512 1.011, 256 x 4096 x 250 1.028; and a C larger than
// the last-level cache goes to the blocked path's streamed stores, which the
// small path has not (512 x 20000 x 12, the small path's before, 1.479).
// Not measured on the Zen 5 beyond 512^3 (parity there).
constexpr double kSmallPathMaxVolume = 640.0 * 640.0 * 640.0;

// Up to this volume (the small path's limit before it had threads) it takes
// every shape. Above it, only shapes like the squares it was measured on:
// - not the skinny paths' shapes (m <= 16, or few columns), which those
//   paths' own kernels take (the 32-row tile wastes half itself on m = 16);
// - B not transposed, or transposed up to kSmallTransBMaxVolume: transposed,
//   each k step of a 12-column tile of B is on its own cache line (on the
//   Zen VMs 512^3 TT ran 0.80-0.86x the blocked path);
// - at most kSmallPathMaxRows rows, and A's columns (read in place when A is
//   not transposed, one short run per k step) at most that many floats
//   apart: taller, they lie a page or more apart and C is tall enough for
//   the blocked path's streamed stores (1 thread, small / blocked, lda = m:
//   1024 x 1024 x 128 0.92-0.98, 4096 x 512 x 64 0.83-0.92, 2048^2 x 16
//   0.88-0.94; shorter and wide it wins: 128 x 2048 x 512 1.14-1.23,
//   64 x 8192 x 256 1.31-1.37, 256 x 4096 x 128 on 2 threads 1.24-1.30);
// - or, past those, m, n and A's column stride all at most kSmallPathMaxSquare:
//   the squares from 513 to 640 (kSmallPathMaxVolume), whose op(A) is read in
//   blocks of rows; not a wide C there;
// - C within the last-level cache: larger, the blocked path streams it out
//   (beta = 0, one KC step; the only such C within the volume has k < 32).
constexpr double kSmallAnyShapeMaxVolume = 160.0 * 160.0 * 160.0;
// B transposed (NT, TT) on the small path up to this volume, with a kernel
// whose small kernel has no limit of its own (AVX-512's 32 x 12). On the
// Intel VM the blocked path ran those shapes 0.91-0.94x oneDNN where NN on
// the small path ran even with it (384^3 / 512^3 NT, `ridge-bench paired M N
// K NT 1 11`). Measured there against the blocked path (an experiment build
// switching the rule, `XNT=1 RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N K 11-15
// NT|TT`), 1 thread: NT 256^3 1.032, 320^3 1.067, 384^3 1.052-1.063, 448^3
// 1.029, 480^3 1.041, 160 x 400 x 300 1.104, 200 x 300 x 400 1.066, 500 x 200
// x 300 1.046, 256 x 512 x 256 1.048, 512 x 256 x 512 1.026; TT 256^3 1.042,
// 384^3 1.049; 2 threads (within the team's limit) NT 192^3 1.053, 256^3
// 1.026, 320^3 1.012, 384^3 1.023, TT 384^3 1.020. Past it the blocked path
// wins: 500^3 0.990, 512^3 0.928-0.971, 600^3 0.939. AVX2's small kernel
// lost at once (`RIDGE_ISA=avx2`: 256^3 NT 0.979, 384^3 0.888). Few rows
// of C below it gain most (30 x 400 x 1000 NT 1.404, 40 x 500 x 800 1.329,
// 64 x 400 x 1000 1.202), but not those the skinny path on C^T takes
// (use_skinny_trans_b_path; 24 x 300 x 1000 TT ran 0.786 of it).
constexpr double kSmallTransBMaxVolume = 480.0 * 480.0 * 480.0;
constexpr int64_t kSmallPathMaxRows = 512;
constexpr int64_t kSmallPathMaxSquare = 640;

// Skinny (few columns of C, A untransposed): reading A once in place beats
// packing it while the packed path would reuse each element of A only a few
// NR times. Measured, 1 thread, 4096 x n x 4096 fp32 on this project's AVX-512
// VM (GFLOP/s, skinny / blocked, alternating runs): n = 16 116 / 46, 32 126 / 90,
// 64 119-127 / 115, 128 95-110 / 142 (C, m x n, no longer fits L2 beside the
// chunk of A). See bench/shapes/decode.txt. A profile may move it (ridge-tune
// measures the same shape); the driver holds at most kSkinnyMaxN.
// On the Zen 5 VM, after the sweep's smaller blocks of C for an A from memory
// (gemm_skinny.cpp), the skinny path won past 64 columns too, on one thread
// (skinny / blocked, paired: `ridge-ab` with profiles forcing each, 9 rounds):
// 4096 x n x 4096 n = 72 1.10, 80 1.09, 96 1.04-1.06, 100 1.03, 112 1.07, 128
// 1.03-1.04; 4000 x 128 x 4000 1.08, 2048 x 128 x 2048 1.00. The figure (built
// in, or measured on that one-thread decode shape) holds for teams and for an A
// in a cache as well, given more than kSkinnyWideMinRows rows and A's columns
// not a multiple of 8 KiB apart (use_skinny_path). Measured, skinny up to 128
// columns / up to kSkinnyMaxColumnsShared (the limit there before; an
// experiment build, `RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N K 9`, lda = M), 2
// threads, runs spread over an hour: 704 x 96 x 5000 1.09-1.26 (the blocked
// path's row slices, each packing its rows of A, ran 1.42x one thread; oneDNN
// 1.91x), 2000 x 96 x 2000 1.11-1.17, 4000 x 96 x 4000 1.13-1.19, 1024 x 96 x
// 1024 1.02-1.23, 1024 x 96 x 8192 1.10-1.23, 3072 x 96 x 2048 (12 KiB)
// 0.98-1.08, 5120 x 96 x 1024 (20 KiB) 0.97-1.03, 2560 x 96 x 2048 1.01-1.13,
// 4000 x 128 x 4000 1.07-1.10, 1024 x 128 x 1024 1.00-1.18; once or twice: 704
// x 128 x 5000 1.10-1.17, 2000 x 80 / 128 x 2000 1.14-1.16 / 1.09-1.10, 3000 x
// 96 x 1000 1.08-1.17, 1000 x 100 x 1000 1.02-1.07, 576 x 96 x 1024 1.06, 640 x
// 128 x 2048 1.03, 640 x 100 x 640 1.04, 768 x 128 x 768 1.04, 600 x 96 x 4096
// 1.00. Columns a multiple of 8 KiB apart swung with the hour, a few percent up
// in some runs and 8-18% down in others: 2048 x 96 x 2048 0.92-1.08, 2048 x 128
// x 2048 0.82-1.03, 4096 x 96 x 4096 0.89-1.12, 6144 x 96 x 1024 0.89-1.09,
// 8192 x 96 x 1024 0.89-1.08; they keep the blocked path (and so does 4096 x
// 128 x 4096, 1.00-1.07). 1 thread, A in a cache: 1024 x 96 x 1024 1.02-1.05,
// 1024 x 128 x 1024 0.99-1.00, 576 x 96 x 1024 1.04, 640 x 100 x 640 1.05, 768
// x 128 x 768 1.03, 640 x 128 x 2048 1.01, 600 x 96 x 4096 1.00, 2048 x 96 x
// 512 1.01. At 512 rows it lost, to the blocked path's A read in place (lda <=
// 2/3 MC, reads_a_in_place) or the small path (up to 512 rows): 512 x 100 x 512
// 0.93 on 1 and 2 threads, 512 x 128 x 512 0.94 / 0.88 (1 / 2 threads), 512 x
// 80 x 256 0.95 / 0.96, 512 x 96 x 1024 0.97 / 0.99, 512 x 128 x 2048 0.99 /
// 0.96.
constexpr int64_t kSkinnyMaxColumns = 128;
// 16-bit A: half the bytes to stream, but the blocked path's packing widens A
// once where the skinny kernel widens it for every column group, so the
// crossover comes earlier, and earlier for fp16 (a conversion instruction)
// than for bf16 (a shift and a mask, b6f4ca6). Measured, 1 thread,
// 4096 x n x 4096, skinny / blocked (paired, ridge-ab with profiles forcing
// each): bf16 n = 32 1.24, 48 1.07, 64 1.03, 80 0.96; fp16 32 1.14, 48 0.96,
// 64 0.96, 80 0.83. On the Zen 5 VM, after 88b59cb's blocks and ef4e0ae's
// prefetch, fp16 up to 64 as well: skinny up to 64 / up to 32 columns, paired
// (`ridge-ab` with profiles setting each, 7 rounds, 1 thread unless said):
// 4096 x n x 4096 n = 40 1.25, 48 1.13 / 1.13 (both orders), 64 1.10, 2
// threads 1.03; A in a cache 2048 x 48 x 512 1.00, 1024 x 64 x 1024 1.04, 512
// x 64 x 2048 1.03 (ridge-tune there: 96 and 128 columns at 1.01).
constexpr int64_t kSkinnyMaxColumnsBf16 = 64;
constexpr int64_t kSkinnyMaxColumnsF16 = 64;

// Above 24 columns the blocked path repays its packing unless A's columns are
// long: the sweep streams each column run of a chunk once, and short runs
// give the prefetchers nothing to follow. Measured (skinny / blocked, 1
// thread): 300 x 60 x 5000 0.90, 512 x 32 x 4096 1.20, 512 x 64 x 4096 1.00,
// 768 x 48 x 2048 1.02, 1000 x 64 x 1000 1.07. Up to 24 columns the skinny
// path wins at any height (packing A repays nothing there). An A beyond L2
// takes it from fewer rows (skinny_wide_min_rows: on the Intel VM 300 x 60 x
// 5000 ran 1.06 on it, against the 0.90 above).
constexpr int64_t kSkinnyNarrowColumns = 24;
// The skinny path's shape: A untransposed, at most `widest` columns (and no
// more than the kernel's own limit, GemmKernel::skinny_max_columns), and past
// kSkinnyNarrowColumns columns at least `wide_min_rows` rows.
bool skinny_shape(const GemmKernel& kernel, const GemmArgs& g, int64_t widest, int64_t wide_min_rows) {
    const int64_t min_rows = g.n <= kSkinnyNarrowColumns ? 2 * kernel.MR : wide_min_rows;
    const int64_t kernel_widest = kernel.skinny_max_columns > 0 ? kernel.skinny_max_columns : kSkinnyMaxN;
    return kernel.skinny != nullptr && !g.trans_a && g.n <= std::min({widest, kSkinnyMaxN, kernel_widest}) &&
           g.m >= min_rows;
}

// Whether the call runs on one thread whatever the thread count asked for:
// too little work for two at the blocked path's rate (threads_for). Not
// whether this call runs on one: the skinny path's bits differ from the
// blocked and small paths' (its k chunks update C), so its choice must not
// change with RIDGE_NUM_THREADS or a caller's parallel region, or one thread
// and a team would give C different bits. Found on the Intel VM: 384 x 60 x
// 1474 took the skinny path on one thread (A beyond L2, up to 64 columns) and
// the small path on two (up to 48 columns there); now the team's widths on
// one thread too, wherever a team would run the call.
bool runs_on_one_thread(const RuntimeConfig& cfg, const GemmArgs& g) {
    const double flops = 2.0 * double(g.m) * double(g.n) * double(g.k);
    return flops < 2.0 * cfg.min_flops_per_thread;
}

// One thread streaming op(A) from memory: the decode shape the skinny
// crossover is measured on (kSkinnyMaxColumns), on a call too small for a
// team (runs_on_one_thread: with A beyond the L3, only a profile's very large
// min_flops_per_thread makes one). A decode call on one thread of a larger
// team's worth goes by the team's widths (kSkinnyMaxColumnsShared).
bool one_thread_streams_a(const RuntimeConfig& cfg, const GemmArgs& g) {
    return a_comes_from_memory(cfg, g) && runs_on_one_thread(cfg, g);
}

// Whether A's columns lie a multiple of 8 KiB apart, where the skinny sweep
// of a team (or from a cache) past kSkinnyMaxColumnsShared columns measured
// unstable (kSkinnyMaxColumns). The presumed mechanism: the 64 columns of a
// sweep's chunk then start in at most 16 different sets of a 1 MiB 8-way L2
// (2048 sets, 128 KiB a way), where 4 KiB or 12 KiB apart they spread over 32.
constexpr int64_t kSkinnyTeamStrideBytes = 8192;
bool a_columns_multiple_of_8_kib_apart(const GemmArgs& g) {
    return g.lda * int64_t(dtype_bytes(g.input)) % kSkinnyTeamStrideBytes == 0;
}

// Below kSkinnyWideMinRows rows, an A that does not fit L2 still takes the
// skinny path from kSkinnyMinRowsABeyondL2 rows on, up to 64 columns on a
// call too small for a team (runs_on_one_thread) and 48 on any other, one
// thread or a team: the blocked path packs such an A from L3 in a pass
// (18-19 GB/s, 18% of a 500 x 64 x 2048 call by perf) to reuse each element
// n times, where the sweep reads it once, in place. Measured on the Intel VM,
// skinny / the blocked path (`RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N K 7-9`,
// an experiment build reading the floor from the environment, then this
// rule), 1 thread, n = 32 / 48 / 64: k = 2048, m = 320 1.04 / 1.09 / 1.00,
// 384 1.24 / 1.17 / 1.10, 448 1.18-1.22 / 1.15 / 1.07-1.09, 500 1.07 / 1.09 /
// 0.99-1.00; k = 4096, m = 320 1.09 / 1.07 / 1.04, 384 1.25 / 1.15 / 1.12,
// 448 1.24 / 1.13 / 1.08, 500 1.13 / 1.06 / 1.02; 300 x 60 x 5000 1.06;
// AVX2 384 x 32 x 2048 1.19. 2 threads: n = 32 1.01-1.15, 48 1.01-1.10, but
// 64 0.86-0.98 (hence 48 there). Not from fewer rows (256 x 48 / 64 x 2048
// 0.97), nor with A within L2 (k = 1000: 256 x 48 / 64 0.95, 320 x 48 / 64
// 0.98, 384 x 64 0.84; 192 x 64 x 2048 0.95). Since the path's choice must
// not depend on the thread count asked for (runs_on_one_thread), one thread of
// a call a team would run goes by 48 too: it ran 0.88-0.92 of the skinny path
// at 384 x 56 / 64 x 2048 and 448 x 64 x 4096, where the team on the skinny
// path ran 0.85-0.93 of the path it takes (`RIDGE_NUM_THREADS=1|2 ridge-ab
// OLD NEW M N K 9`, an experiment build).
constexpr int64_t kSkinnyMinRowsABeyondL2 = 320;
constexpr int64_t kSkinnyABeyondL2MaxColumns = 64;
constexpr int64_t kSkinnyABeyondL2MaxColumnsTeam = 48;
int64_t skinny_wide_min_rows(const RuntimeConfig& cfg, const GemmArgs& g) {
    const int64_t widest = runs_on_one_thread(cfg, g) ? kSkinnyABeyondL2MaxColumns : kSkinnyABeyondL2MaxColumnsTeam;
    return !a_within_l2(g) && g.n <= widest ? kSkinnyMinRowsABeyondL2 : kSkinnyWideMinRows;
}

}  // namespace

// The skinny path up to the measured width (kSkinnyMaxColumns) where one
// thread streams A from memory, or where A has more than kSkinnyWideMinRows
// rows and its columns are not a multiple of 8 KiB apart; else up to
// kSkinnyMaxColumnsShared.
//
// A kernel without the tall tiles (GemmKernel::skinny_tall) keeps an A whose
// columns lie a multiple of 4 KiB apart to kSkinnyNarrowColumns: each of its
// tiles then reads its chunk's columns from one L1 set (the tall tiles' reason,
// skinny_tall_tile_avx512.h), re-read for every column group. The AVX2 kernel,
// 16-row tiles, 2 threads, `RIDGE_ISA=avx2 RIDGE_NUM_THREADS=2 ridge-ab OLD NEW
// 4096 n 4096 7` against packing: n = 24 1.32, 28 1.08, 32 0.95 (4000 x 32 x
// 4000 1.32).
bool use_skinny_path(const RuntimeConfig& cfg, const GemmKernel& kernel, const GemmArgs& g) {
    const int64_t measured = cfg.skinny_max_columns[int(g.input)];
    const bool full_width =
        one_thread_streams_a(cfg, g) || (g.m > kSkinnyWideMinRows && !a_columns_multiple_of_8_kib_apart(g));
    int64_t widest = full_width ? measured : std::min(measured, kSkinnyMaxColumnsShared);
    if (kernel.skinny_tall == nullptr && g.lda * int64_t(dtype_bytes(g.input)) % kL1SetPeriodBytes == 0)
        widest = std::min(widest, kSkinnyNarrowColumns);
    return skinny_shape(kernel, g, widest, skinny_wide_min_rows(cfg, g));
}

namespace {

// Few rows (m <= 16): B, the large operand, is read once in place, down its
// columns, against A packed once (gemm_skinny_m.cpp: outer products for 9-16
// rows, dot products up to 8; the dot-product kernel alone is enough for the
// path, any m); the 32-row kernels would waste half their tile and pack all of
// B first. Measured in bench/shapes/skinny.txt.
constexpr int64_t kSkinnyMaxRows = 16;

// With the outer-product kernel the path takes up to 48 rows: packing B would
// still reuse each of its elements at most twice (m / MR) for a read and a
// write of all of B. Measured, 1 thread, ridge-bench, m x 4096 x 4096 (GFLOP/s,
// this path / the blocked path, alternating builds; oneDNN in one run):
// m = 24 116 / 53-56 (oneDNN 78), 32 155-158 / 74-79 (109), 48 166-168 / 76-81
// (121); 40 x 1024 x 2048 153 (oneDNN 133). Only what the small path does not
// take (see use_small_path): on the Intel VM its thin rule ran ahead from 24
// rows wherever op(B) outgrows L2, and from 17 where op(B) also fits the
// last-level cache (thin_enough_for_small_path), so fp32 keeps this path for
// 17-23 rows with B from memory and for a B within L2. Where the packed panel of A (m rounded up to 16,
// times k) outgrows half of L2, it is read in passes over k
// (few_rows_k_pass): for fp32 at any m up to 48, for 16-bit inputs only up to
// 32 rows, where the kernel's widening of B in three vectors' tiles lost to
// the blocked path's converting packer (fp16, passes / blocked: 48 x 4096 x
// 4096 0.908, TN 4096 x 48 x 4096 0.911, 40 x 4096 x 4096 0.951; 32 x 4096 x
// 8192 1.238, 24 x 4096 x 16384 1.260).
constexpr int64_t kOuterMaxRows = 48;
constexpr int64_t kOuterPassesMaxRows16Bit = 32;

// The outer kernel's packed fp32 panel of `rows` rows (rounded up to 16) and k
// columns within half of L2.
bool outer_panel_fits(int64_t rows, int64_t k) {
    const double panel_bytes = 4.0 * double((rows + 15) / 16 * 16) * double(k);
    return panel_bytes <= double(machine_topology().l2.size_bytes) / 2;
}

// The few-rows path's shape up to `max_rows` rows (for the outer form). B
// transposed is left to the blocked path: its columns are then strided, and
// the few-rows path would have to gather each of them first.
bool few_rows_shape(const GemmKernel& kernel, const GemmArgs& g, int64_t max_rows) {
    if (g.trans_b || kernel.few_rows == nullptr) return false;  // (a kernel row exists per input type)
    if (g.m <= kSkinnyMaxRows) return true;
    if (kernel.few_rows_outer == nullptr || g.m > max_rows) return false;
    return g.input == Dtype::f32 || g.m <= kOuterPassesMaxRows16Bit || outer_panel_fits(g.m, g.k);
}

}  // namespace

bool use_skinny_m_path(const GemmKernel& kernel, const GemmArgs& g) {
    return few_rows_shape(kernel, g, kOuterMaxRows);
}

// k steps per pass of the few-rows path's outer form over `rows` rows (m, or n
// on C^T): every group of columns reads the whole packed fp32 panel of op(A)
// (rows rounded up to 16, times k) again, so each pass keeps its slice within
// half of L2, the rest left to B's lines and C; equal passes, each a whole
// number of 16-step vectors along k. Before, the path stopped where the whole
// panel outgrew half of L2 and the blocked path took those shapes (its 32-row
// tiles half empty at 48 rows). Measured, 1 thread, two builds alternated call
// by call (`ridge-ab OLD NEW M N K 11`, medians of the paired ratios), passes
// against the blocked path: 48 x 4096 x 4096 1.133, 40 x 4096 x 4096 1.142,
// 33 x 4096 x 4096 1.140, 48 x 2048 x 8192 1.119; against the few-rows path in
// one pass (the panel from beyond L2): 48 x 4096 x 4096 1.04, 40 x 4096 x 4096
// 1.04, 48 x 2048 x 8192 1.09; against passes within a quarter of L2: 1.02,
// 1.02, 1.04. Not for rows in one vector (up to 16, on this path at any k
// before), where each line of the panel feeds 16 columns' FMAs and one pass
// measured 1-1.5% better (16 x 2048 x 16384 0.987-0.994 with passes, 12 x 4096
// x 12288 0.989): 0, one pass.
int64_t few_rows_k_pass(int64_t rows, int64_t k) {
    constexpr int64_t kLanes = 16, kStep = 16;  // rows per vector; k steps per vector of a row
    if (rows <= kLanes) return 0;
    const int64_t row_bytes = 4 * ((rows + kLanes - 1) / kLanes * kLanes);
    const int64_t most = std::max(kStep, int64_t(machine_topology().l2.size_bytes) / 2 / row_bytes / kStep * kStep);
    const int64_t passes = (k + most - 1) / most;
    return ((k + passes - 1) / passes + kStep - 1) / kStep * kStep;
}

// Few columns with A transposed: the layout of a decode step written row-major
// as x * W^T with W stored [outputs][inputs] (a linear layer's weight), which
// reaches column-major ridge as A^T * B with A = W^T's storage. The skinny path
// above needs A untransposed (it broadcasts B into columns of A); here C^T =
// op(B)^T * A is a few-rows problem whose large operand, A, is read in place
// down its columns, each a contiguous row of op(A). Same limits as the few-rows
// path with m and n swapped. Measured, 1 thread, ridge-bench, 4096 x n x 4096
// TN (GFLOP/s, the blocked path / this path; oneDNN in the same run as this
// path): n = 2 7.5-7.9 / 20.7 (26), 4 15.3-15.6 / 41.5 (25), 8 29.5 / 84 (35),
// 16 48 / 118 (57), 32 78 / 147 (96), 48 - / 157 (117).
//
// Past 48 columns, up to the outer kernel's 64 (four vectors of rows, 6
// columns of C^T a group), where A does not fit L2: the blocked path then
// packs op(A) (A's columns, k contiguous values each, transposed 16 x 16 as
// they are packed) from L3, which took 29% of a 1000 x 64 x 1000 TN call
// (perf, cpu-clock). Measured on the Intel VM against it (`RIDGE_NUM_THREADS=T
// ridge-ab OLD NEW M N K 9 TN [TYPE]`), 1 thread: 1000 x 64 x 1000 1.200 (TT
// 1.367), 2000 x 56 x 1000 1.296, 4096 x 64 x 4096 1.468, 2000 x 60 x 2000
// 1.375, 600 x 64 x 4096 1.170, 700 x 64 x 1000 1.134, 2000 x 64 x 300 1.097,
// 4096 x 64 x 256 1.089, 1000 x 52 x 600 1.079, 1500 x 50 x 800 1.273; fp16
// 4096 x 64 x 4096 1.439, 1000 x 64 x 1000 1.008; 2 threads 4096 x 64 x 4096
// 1.370, 2000 x 56 x 1000 1.143, 1000 x 64 x 1000 1.054. With A within L2 the
// blocked path's packing is cheap and it stays ahead (700 x 64 x 500 / 300
// 0.911 / 0.900, 1000 x 64 x 128 0.979), and bf16 keeps 48 (AMX's blocked
// path 1000 x 64 x 1000 ran 0.914 of it).
namespace {
bool wide_trans_a_pays(const GemmArgs& g) { return g.input != Dtype::bf16 && !a_within_l2(g); }
}  // namespace

bool use_skinny_trans_a_path(const GemmKernel& kernel, const GemmArgs& g) {
    if (!g.trans_a) return false;
    // 16-bit inputs alike (the kernels widen A's columns as they read them).
    // Measured, fp16, 4096 x n x 4096 TN, 1 thread (GFLOP/s, blocked / this
    // path): n = 12 51 / 97, 16 49 / 127, 32 81 / 139, 48 99 / 139.
    GemmArgs transposed = g;  // only the shape and op(B') = A (untransposed) matter here
    transposed.m = g.n, transposed.n = g.m, transposed.trans_b = false;
    return few_rows_shape(kernel, transposed, wide_trans_a_pays(g) ? kFewRowsOuterMaxRows : kOuterMaxRows);
}

namespace {
// Few rows with B transposed: C^T = B * op(A)^T is a few-columns problem
// whose large operand, B, is untransposed there and read in place down its
// columns by the skinny path (gemm_skinny_m_trans_b). The few-rows path reads
// B in place only untransposed (each column of op(B) a run of k values); with
// B transposed those runs are a row of B each, ldb apart, and the blocked
// path packed all of B for a few rows of A. Each block of C^T is gathered
// from C and scattered back once (the kernel's transposing copy), a cost that
// only enough k steps repay: k at least 2 m. Measured, 1 thread, against the
// blocked path (`ridge-ab OLD NEW m n k 9-15 NT`, medians of paired ratios):
// m x 4096 x 4096, m = 2 3.98, 8 2.89, 16 1.91, 24 2.12, 64 TT 1.23, 96 1.18;
// fp16 16 rows 1.88, bf16 64 rows 1.16; 2 threads 16 / 64 rows 1.89 / 1.28;
// 32 x 1024 x 1024 1.48. Short k, the path forced: 96 x 4096 x 96 0.92, x 192
// 1.02, x 288 1.01; 48 x 4096 x 48 / 96 / 144 1.15 / 1.15 / 1.20; 32 x 4096 x
// 32 / 64 1.15 / 1.26; 16 x 4096 x 16 / 32 1.00 / 1.00; 64 x 1024 x 128 1.18.
// (With plain loops for the copies instead, the break-even was k = 4 m.)
// How many rows: for fp32 all the path holds (kSkinnyMaxN), past the
// crossover measured with B untransposed (skinny_max_columns), since the
// blocked path does worse with B transposed: against it (ridge-ab with
// profiles setting that crossover to 64 and 128, 1 thread) 80 / 96 / 112 /
// 128 x 4096 x 4096 NT 1.21 / 1.14 / 1.12 / 1.10, 128 x 1024 x 1024 1.08.
// 16-bit inputs keep their crossover: fp16 48 rows 1.13, 64 1.00, 128 0.87,
// bf16 128 rows 0.96.
constexpr int64_t kTransBMinKPerRow = 2;
}  // namespace
bool use_skinny_trans_b_path(const RuntimeConfig& cfg, const GemmKernel& kernel, const GemmArgs& g) {
    if (!g.trans_b || kernel.transpose_c == nullptr || g.k < kTransBMinKPerRow * g.m) return false;
    GemmArgs transposed = g;  // only the shape and the transposes matter here
    transposed.m = g.n, transposed.n = g.m, transposed.trans_a = false, transposed.trans_b = !g.trans_a;
    const int64_t widest = g.input == Dtype::f32 ? kSkinnyMaxN : cfg.skinny_max_columns[int(g.input)];
    return skinny_shape(kernel, transposed, widest, kSkinnyWideMinRows);
}

namespace {
// Few columns with A transposed for a kernel that reads op(A)'s rows in place
// (bf16 on AMX: the same decode layout as above, with 16-bit weights): A is
// streamed once instead of pair-packed, while op(B)'s packed panels stay
// within half of L2 (every block of 32 rows reads them all).
constexpr int64_t kRowsInPlaceMaxN = 128;
}  // namespace
bool use_rows_in_place_path(const GemmKernel& kernel, const GemmArgs& g) {
    return kernel.rows_in_place != nullptr && g.trans_a && g.n <= kRowsInPlaceMaxN &&
           double(rows_in_place_packed_b_bytes(g.n, g.k)) <= double(machine_topology().l2.size_bytes) / 2;
}

namespace {

// Whether the blocked path would write C with non-temporal stores
// (use_streaming_c, below, which has the why): the kernel has a streaming
// variant, C is written exactly once (beta = 0, k within one KC step), at
// least as large as the last-level cache and aligned for whole-line stores.
bool streams_c_out(const RuntimeConfig& cfg, const GemmKernel& kernel, const GemmArgs& g, int64_t KC) {
    const bool aligned = reinterpret_cast<uintptr_t>(g.c) % sizeof(float) == 0 && g.ldc % 16 == 0;
    return kernel.ukr_stream_c != nullptr && aligned && g.beta == 0.0f && g.k <= KC &&
           4.0 * double(g.m) * double(g.n) >= cfg.stream_c_min_bytes;
}

// A short k (all of it one KC step of at most ~32) makes each microkernel call
// a few dozen cycles of FMAs, and the block of A the model sizes for L2 is
// then better kept in L1: two thirds of L1, when that still holds at least 8
// MR-row panels (for the 48 KiB L1 here: 256 rows at k = 32, 512 at k = 16). Measured, 1
// thread, RIDGE_PROFILE with MC forced, ridge-bench: 4096 x 4096 x 16 MC=1792
// (the model) 130-135 GFLOP/s, 512 130-134, 256 165-167, 192 157-164, 128
// 152-156; 4096 x 4096 x 32: 173-175 against 188-195 at MC=256; at k = 64 the
// 256-row block no longer fits and MC=256 was no better (and is not taken).
// For the fp32 panels the measurement covers (fp32, and fp16/bf16 converted).
// Only where C is streamed out, as it was there: with ordinary stores each
// block's pass over C reads it for ownership, and more blocks of fewer rows
// cut C's columns into more, shorter runs (a column of a 2048-row C is two 4
// KiB pages, visited once per block). On the Intel VM (48 KiB L1: 256 rows at
// k = 16 while panels were 32 steps deep), the model's MC against the L1
// block, C in ordinary stores (1 thread, one process alternating ridge with
// oneDNN on the same C, GFLOP/s medians): 2048 x 2048 x 16 beta = 1 112
// against 101 (oneDNN 130), 2048 x 2048 x 32 beta = 1 144 against 128, 2048 x
// 2040 x 16 with C's streaming switched off 119 against 105; where C streamed
// out, the L1 block kept its lead (2048 x 2040 x 16 130 against 105, 4096 x
// 4096 x 16 125 against 104).
// A row of the block is what it takes packed (packed_depth): since fp32
// panels are packed without rounding k up to 32 steps, 512 rows at k = 16 on
// the 48 KiB L1 where the rounded depth gave 256 (streamed C, 1 thread,
// `ridge-ab OLD NEW M N K 11`): 4096 x 4096 x 16 1.052, 8192 x 8192 x 16
// 1.057, 4096 x 4096 x 32 0.995.
BlockingParams blocking_for_short_k(BlockingParams bp, const GemmKernel& kernel, const GemmArgs& g,
                                    bool c_streamed_out) {
    if (kernel.packed_bytes != 4 || g.k < 1 || g.k > bp.KC || !c_streamed_out) return bp;  // (k = 0 only scales C)
    const int64_t block_row_bytes = packed_depth(bp.MR, g.k, kernel.packed_bytes) * kernel.packed_bytes;
    const int64_t l1_rows = 2 * machine_topology().l1.size_bytes / 3 / block_row_bytes / bp.MR * bp.MR;
    if (l1_rows >= 8 * bp.MR) bp.MC = std::min(bp.MC, l1_rows);
    return bp;
}

// Few rows of A on the blocked path, op(B) larger than the last-level cache
// (b_from_memory), not transposed, fp32 panels (fp32 inputs, or fp16 / bf16
// converted while packing): the block of A the model sizes for L2
// (MC x KC) holds m's rows several times over, so KC grows by that factor (at
// most 4) and the block stays within the same L2 budget. A micro-panel of B,
// read from memory, then covers more of k: fewer and longer runs of B per
// micro-panel (4 KiB per column at KC = 1024) and fewer passes over C, though
// the micro-panel no longer fits L1 with room to spare. Measured against the
// model's KC 256 (ridge-ab, 1 thread; a profile forcing KC, then this rule):
// 64 x 4096 x 4096 KC 1024 1.155, 128 x 4096 x 4096 1.09-1.100 (KC 2048
// 1.090, KC 4096 0.993), its TN 1.094-1.099, 2 threads 1.112, 96 x 2048 x
// 2048 1.064, 256 x 4096 x 4096 1.043-1.057, 512 x 4096 x 4096 KC 768 1.021,
// 600 x 4096 x 4096 KC 512 1.047, 896 x 4096 x 4096 KC 512 1.018; the rule
// against none (an experiment build switching it by profile name, same code
// both sides): 600 x 2048 x 2048 1.022, 700 x 2048 x 2048 1.014, 896 x 2048 x
// 2048 0.990-0.994 (its one loss: twice KC at exactly half of MC). fp16 / bf16
// inputs, the rule against none the same way: 64 x 4096 x 4096 1.070 /
// 1.070, 128 x 4096 x 4096 1.063 / 1.072 (2 threads 1.062 / 1.084), 256 x
// 4096 x 4096 1.042 / 1.032 (TN 1.048 / 1.037), 512 x 4096 x 4096 1.019 /
// 1.007, 896 x 4096 x 4096 1.017 / 1.012, 96 x 2048 x 2048 1.028 / 1.002,
// 896 x 2048 x 2048 1.007 / 1.012, with op(B) just over 4 MiB (128 x 1536 x
// 1536) 0.992-1.011. Not with B in cache, where the longer KC measured 0.979
// (768^3), 0.991 (640^3), 0.992 (896^3), nor with op(B) transposed (its panel
// packed whole, KC x NC): 128 x 4096 x 4096 NT 0.971.
constexpr int64_t kThinMaxKcFactor = 4;
BlockingParams blocking_for_thin_m(BlockingParams bp, const GemmKernel& kernel, const GemmArgs& g,
                                   bool b_from_memory) {
    if (!b_from_memory || kernel.packed_bytes != 4 || g.trans_b || g.m < 1) return bp;
    const int64_t rows = (g.m + bp.MR - 1) / bp.MR * bp.MR;
    const int64_t times = std::min(kThinMaxKcFactor, bp.MC / rows);
    if (times >= 2) bp.KC *= times;
    return bp;
}

// A last KC step of a few k steps costs a whole pass over C, read and written,
// for little work; where C is larger than the last-level cache that pass goes
// to memory. There, a remainder under a quarter of KC is spread over the
// other steps instead (each at most a quarter deeper than KC; the block of A
// outgrows the model's L2 share by as much, which measured no different:
// 4096 x 4096 x 300 at KC 300 with MC 1792 or 1536). KC stays a multiple of
// the kernel's k group. One process switching the rule call by call (1
// thread, medians of 15-25 paired ratios): 4096 x 4096 x 260 1.091, x 270
// 1.052 (2 threads 1.051), x 300 1.007; 2048 x 2048 x 300 1.012, x 800 1.009,
// x 1030 1.006; with C in cache it lost a little (1024 x 1024 x 300 0.994, 1000
// x 1000 x 1050 0.992), hence the condition. Nor do equal steps pay at the
// square sizes, whose last step is 2/5 (2048) or 1/5 (1024) of KC 320 with C
// in L3: KC 342 (six steps at 2048^3, three at 1024^3) ran 1.001 / 1.000 and
// KC 293 (seven steps / three and a last of 145) 0.992 / 0.994 against 320
// (Zen 4, a profile forcing KC, `RIDGE_NUM_THREADS=1 ridge-ab OLD NEW N N N
// 11-15`).
BlockingParams blocking_for_k_remainder(BlockingParams bp, const GemmKernel& kernel, const GemmArgs& g,
                                        const RuntimeConfig& cfg) {
    const int64_t steps = g.k / bp.KC, remainder = g.k % bp.KC;
    const bool c_from_memory = exceeds_last_level_cache(cfg, 4.0 * double(g.m) * double(g.n));
    if (!c_from_memory || steps < 1 || remainder == 0 || 4 * remainder >= bp.KC) return bp;
    const int64_t group = kernel.k_group;
    bp.KC = ((g.k + steps - 1) / steps + group - 1) / group * group;
    return bp;
}

}  // namespace

int64_t deepest_kc_in_l1(const GemmKernel& kernel) {
    const int64_t share_bytes = 3 * int64_t(machine_topology().l1.size_bytes) / 4;
    const int64_t depth = share_bytes / (kernel.NR * kernel.packed_bytes);
    return std::max(kPanelDepthAlign, depth / kPanelDepthAlign * kPanelDepthAlign);
}

namespace {

// A k a little beyond KC (at most twice it) in one step rather than two,
// where the micro-panel of B that deep still takes at most three quarters of
// L1 (k <= 512 for the 32 x 12 fp32 kernel in 32 KiB, 1024 for its bf16-pair
// twin): the second step costs a whole pass over C, read and written, for a
// fraction of the work (at 512^3 and KC 320, 192 of 512 k steps). Any kernel
// whose micro-panel fits; AMX's 32 columns never do (k <= 384 in 32 KiB, below
// its KC of 1024). Against two steps (one thread, `RIDGE_NUM_THREADS=1
// ridge-ab OLD NEW M N K 11 [TRANS [TYPE]]`): 512^3 1.009 (small path), 384^3
// 1.011, 448^3 1.007, 1024 x 1024 x
// 512 1.009, 2048 x 2048 x 512 1.011, 600 x 2000 x 500 1.004; TN / NT / TT
// 512^3 1.002 / 0.997 / 1.000; fp16 inputs 512^3 1.006; 2 threads 512^3
// 1.014, 1024 x 1024 x 512 1.011; RIDGE_ISA=avx2 512^3 0.994-1.006, 384^3
// 1.000. MC stays the model's: shrunk by the factor KC grows (the block of A
// keeping its L2 footprint), m between the two MCs went to the one-block
// order (packs_all_rows_as_one_block in blocked_schedule.cpp) and lost there
// against MC kept (512 x 2048 x 512 0.991-0.993, 576 x 1536 x 400
// 0.987-0.990, 600 x 2000 x 500 0.989-0.998), and the AVX2 kernel at 512^3
// was no faster for it (0.975-0.988). Beyond the L1 limit one step lost or
// gained nothing (a profile with KC 640: 2048 x 2048 x 640 0.983, 1024 x 1024
// x 640 1.002, 640^3 1.003, 576^3 1.004). bf16 pairs (the rule was fp32's
// alone before 27ae0c0), at KC 800 on the Zen 4 against two steps: 1024^3
// 1.008-1.016 over three runs
// (1.008-1.025 over three more, a profile forcing KC 1024),
// TN / NT / TT 1.016 / 1.014 / 1.013, 2 threads 1.001 / 1.021 (two copies of
// one build 1.006 / 1.012), 2048 x 2048 x 1024 1.012, 1024 x 1024 x 900
// 0.995 / 1.014, 768 x 768 x 1000 1.006, 1536 x 1536 x 1000 1.003, 512 x 512
// x 1024 1.005, 4096 x 512 x 1024 0.999.
// And only where the block of A that deep (m rows, at most MC) keeps within
// the model's block of MC x KC, its share of L2: on the Intel VM (2 MiB L2,
// KC 256 / MC 1792 for AVX-512, 512 / 896 for AVX2) the deeper block of a
// large m outgrew L2, and two steps beat one (`RIDGE_NUM_THREADS=1 ridge-ab
// OLD NEW M N K 7`, an experiment build without the one step): AVX-512 1024 x
// 1024 x 512 1.052, 1024 x 1024 x 400 1.048, 2048 x 2048 x 512 1.083 (512^3,
// its block within, 0.989); `RIDGE_ISA=avx2` 1024^3 1.116, 2048 x 1024 x
// 1024 1.163, 1024 x 2048 x 1024 1.113, 768^3 1.060 (600^3, within, 0.991).
// Nor where few micro-panels of B (n up to kFewColumnsForTwoSteps, about
// 10 NR panels) share the packing of a large block of A (that deep, at least
// 3/8 of L2): the first micro-panel's tiles pack it from A's source, which
// with the block in one step no longer stays in L2 beside it from call to
// call, and two steps halve the block. Measured on the Intel VM against one
// step (`RIDGE_NUM_THREADS=1 build/bench/ridge-ab OLD NEW M N K 11`, an
// experiment build with two steps throughout): 512 x 100 x 512 1.045, 512 x
// 128 x 512 1.036, 480 x 100 x 480 1.035, 448 x 100 x 448 1.022, 384 x 128 x
// 512 1.014, 600 x 100 x 400 1.012; a smaller block kept one step (256 x 128
// x 512 0.989), and so did more columns (448^3 0.985, 512 x 768 x 512 0.982;
// 512 x 200 / 256 / 384 x 512 1.012 / 1.004 / 1.001).
constexpr int64_t kFewColumnsForTwoSteps = 128;
constexpr double kLargeBlockOfAInL2s = 3.0 / 8.0;
bool few_micro_panels_share_a_large_block(const GemmKernel& kernel, int64_t m, int64_t n, int64_t k) {
    const double block_bytes = double(kernel.packed_bytes) * double(m) * double(k);
    return n <= kFewColumnsForTwoSteps &&
           block_bytes >= kLargeBlockOfAInL2s * double(machine_topology().l2.size_bytes);
}
BlockingParams blocking_for_k_in_one_step(BlockingParams bp, const GemmKernel& kernel, int64_t m, int64_t n,
                                          int64_t k) {
    if (k <= bp.KC || k > 2 * bp.KC || k > deepest_kc_in_l1(kernel)) return bp;
    if (double(std::min(m, bp.MC)) * double(k) > double(bp.MC) * double(bp.KC)) return bp;
    if (few_micro_panels_share_a_large_block(kernel, std::min(m, bp.MC), n, k)) return bp;
    bp.KC = (k + kernel.k_group - 1) / kernel.k_group * kernel.k_group;
    return bp;
}

// Columns of a KC-deep packed B panel in the share of L2 it gets where the
// blocked driver runs the k steps outside the jc loop (GemmPlan::
// b_panel_columns_in_l2; runs_k_steps_outside_jc in blocked_schedule.cpp): 3/8 of
// L2, beside a block of A of at most MC rows. The share was measured (128 x
// 4096 x 4096 NT, 1 thread, each panel size against one 4096-column panel in
// the five loops' order, switched call by call; with KC 256 fp32 a column is
// 1 KiB, so 768 columns are 3/8 of this 2 MiB L2): 384 columns 1.086, 576
// 1.108, 768 1.106-1.113, 1024 1.060; the largest of the best.
int64_t b_panel_columns_in_l2(const BlockingParams& bp, const GemmKernel& kernel) {
    const int64_t share_bytes = 3 * machine_topology().l2.size_bytes / 8;
    const int64_t columns = share_bytes / (bp.KC * kernel.packed_bytes) / bp.NR * bp.NR;
    return std::max(bp.NR, columns);
}

}  // namespace

// Rows of op(A) whose KC-deep packed block fits a quarter of the core's share
// of L3 (GemmPlan::a_rows_in_l3; packs_all_rows_as_one_block in
// blocked_schedule.cpp): 3264 rows at KC 320 fp32 of 16 MiB. Measured (1 thread,
// paired against the five loops' blocks of MC rows): 3000^3 (3.8 MB packed)
// 1.009, 3072 x 2048 x 1024 1.011; past the quarter 4096 x 2048 x 1024 (5.2
// MB) 1.006 but 4096^3 0.967, 6144 x 1024 x 1024 0.991, 8192 x 1024 x 1024
// 0.955 (the block streams from L3 once per B micro-panel, and a VM's L3 is
// shared with other guests).
int64_t a_rows_in_l3(const BlockingParams& bp, const GemmKernel& kernel) {
    const int64_t share_bytes = machine_topology().l3.size_bytes / 4;
    return share_bytes / (bp.KC * kernel.packed_bytes) / bp.MR * bp.MR;
}

// The fewest rows of op(A) whose KC-deep packed block is at least one and a
// half times L2 (GemmPlan::a_rows_past_l2; packs_all_rows_as_one_block in
// blocked_schedule.cpp): 1536 rows at KC 256 fp32 of 1 MiB.
int64_t a_rows_past_l2(const BlockingParams& bp, const GemmKernel& kernel) {
    const int64_t bytes = 3 * machine_topology().l2.size_bytes / 2;
    const int64_t rows = (bytes + bp.KC * kernel.packed_bytes - 1) / (bp.KC * kernel.packed_bytes);
    return (rows + bp.MR - 1) / bp.MR * bp.MR;
}

// Columns of a KC-deep packed B panel that stay in L2 while the blocked
// driver runs a block's ir loop outside its jr loop (GemmPlan::
// b_panel_columns_for_ir_outside_jr; runs_ir_outside_jr in blocked_schedule.cpp):
// a quarter of L2, rounded up to whole micro-panels (264 columns at KC 256 of
// 1 MiB). Measured with the limit as a parameter (1 thread, against the five
// loops' order, `ridge-ab OLD NEW M N K 9`): panels of 192-264 columns gained
// 2-7% (3000 x 192 x 3000, 4000 x 240 x 2000, 2000 x 256 x 2000); 300 columns
// swung from run to run (3000 x 300 x 3000 0.951-1.031), 384 lost in five runs
// of six (3000 x 384 x 3000 0.954-0.978; 1.013 once), 480 too (0.967-0.997).
int64_t b_panel_columns_for_ir_outside_jr(const BlockingParams& bp, const GemmKernel& kernel) {
    const int64_t share_bytes = machine_topology().l2.size_bytes / 4;
    const int64_t columns = share_bytes / (bp.KC * kernel.packed_bytes);
    return (columns + bp.NR - 1) / bp.NR * bp.NR;
}

// Non-temporal stores for C (blocked path) only where they cannot hurt: C is
// written exactly once (beta = 0 and all of k in one KC step, so no pass reads
// it back) and it is larger than the last-level cache, so whoever reads it next
// would find it in memory anyway. Then a normal store's read for ownership only
// doubles the traffic of a shape bound by writing C, like m x n x 16.
// Non-temporal stores write whole 64-byte lines, so every column of C must
// start at the same offset in a line (ldc a multiple of 16 floats): from C's
// first aligned row on, every full tile is then aligned, and gemm_blocked runs
// the rows above it (at most 15) apart. A malloc'ed C, 16 bytes into a line,
// measured 87 against 138 GFLOP/s when it was left to ordinary stores
// (4096 x 4096 x 16, 1 thread).
// "Larger than the last-level cache" is RuntimeConfig::stream_c_min_bytes: the
// library's L3, or where hwloc's was rejected the one ridge-tune measured (a
// profile's stream_c). A C within the real L3 is often in it when the call
// starts, dirty (a caller that zeroed it, or wrote it last call with ordinary
// stores), and non-temporal stores to cached lines run slowly: on the Intel VM
// (fallback 4 MiB, measured 45 MiB) one core streamed 22 GB/s over lines not
// cached, 14 GB/s over a dirty 16 MiB, 4.9 over a dirty 1 MiB (a throwaway
// loop). 1 thread, the fallback's threshold against the measured one (C
// streamed against ordinary stores), GFLOP/s: 2048 x 2048 x 16 131 / 121 in a
// loop of calls, 78 / 124 with C zeroed before each call, 127 / 124 with C read
// after each; 3072 x 3072 x 16 129 / 123, 103 / 113, 118 / 112; 2048 x 2048 x
// 64 158 / 165, 165 / 173, 173 / 176; 2 threads 2048 x 2048 x 16 236 / 226 and
// 137 / 222 zeroed. Beside oneDNN on the same C (`RIDGE_PROFILE=P ridge-bench
// paired M N K NN 1 7`): 2048 x 2048 x 16 0.693 -> 0.825, x 64 0.856 -> 0.954,
// 3072 x 3072 x 32 0.783 -> 0.892. Past the measured L3 streaming still wins
// (4096 x 4096 x 16 in all three patterns, 8192 x 8192 x 16 by 1.3x).
// That measured L3 was half the read-bandwidth knee (ridge-tune kept a
// cores-sharing count of 1 beside the per-core share, 1244914); on the VM of
// family 6 model 207 (knee 128 MiB) ordinary stores beat streaming at 64 MiB
// of C by 1.06-1.43x in the same three patterns, tied at 96 MiB, and lost by
// up to 8% at 128 MiB and 7-12% at 256 MiB: the threshold is now the whole
// knee, which on the VM above would put 4096 x 4096 x 16 on ordinary stores
// (not measured there since). Those figures alternate two builds every five
// calls (ridge-ab), so each build's calls often start on a C the other left:
// streaming over the lines ordinary stores left dirty in the L3 is the slow
// case named above. One path call after call, each in its own process (40
// calls of 4096 x 4096 x 16, C on a line), streaming ran 107 against 101-104
// GFLOP/s in a fast spell and 75 against 84 in a slow one; timed in ridge-tune's
// way (one library, the two plans interleaved, five calls a sample) streaming
// ran 1.11-1.22x at 64 MiB. A C the L3 can hold is written with ordinary
// stores because it may be there, dirty, when the call starts, not because a
// loop of calls runs faster so.
bool use_streaming_c(const RuntimeConfig& cfg, const GemmPlan& plan, const GemmArgs& g) {
    return !plan.small_path && !plan.skinny_path && !plan.skinny_m_path && !plan.skinny_trans_a_path &&
           !plan.rows_in_place_path && streams_c_out(cfg, *plan.kernel, g, plan.blocking.KC);
}

// Whether op(B) is larger than the last-level cache (GemmPlan::b_from_memory).
bool b_comes_from_memory(const RuntimeConfig& cfg, const GemmArgs& g) {
    return exceeds_last_level_cache(cfg, double(dtype_bytes(g.input)) * double(g.k) * double(g.n));
}

// Whether C is larger than a quarter of the last-level cache
// (GemmPlan::c_outgrows_cache), the cache as the streaming rule sees it
// (RuntimeConfig::stream_c_min_bytes: the library's L3, or where hwloc's was
// rejected the one ridge-tune measured). A quarter, not the whole, from where
// the blocked path's prefetch of the next tile of C (Schedule::
// prefetch_c_below_kc) was measured to start paying on the Intel VM, whose
// measured L3 is 128 MiB (a one-thread k = 16 sweep, the prefetch against none,
// medians of 11-21 paired ratios; the prefetch issued from the kernel then,
// which measured the same as from the driver): 1.009 at 24 MiB of C (2048 x 3072),
// 1.007-1.012 at 32 MiB, 1.11-1.14 at 36-48 MiB, 1.19-1.31 at 64 MiB, 1.31 at
// 96 MiB; below it lost 0.94-0.97 at 16 MiB (1024 x 4096 x 32, 2048 x 2048 x
// 16), where C's lines come from the L3 soon enough without it. With the
// library's 4 MiB fallback L3 there the prefetch ran at 16 MiB: 0.95-0.96.
bool c_outgrows_cache(const RuntimeConfig& cfg, const GemmArgs& g) {
    const double c_bytes = sizeof(float) * double(g.m) * double(g.n);
    return 4.0 * c_bytes > cfg.stream_c_min_bytes;
}

// The blocking the blocked path runs a call with: the kernel's, adjusted for short k, few rows, k a
// little beyond KC and a short last KC step.
BlockingParams blocked_path_blocking(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& g,
                                     bool b_from_memory) {
    const bool c_streamed_out = streams_c_out(cfg, *choice.kernel, g, choice.blocking.KC);
    const BlockingParams bp = blocking_for_k_in_one_step(
        blocking_for_thin_m(blocking_for_short_k(choice.blocking, *choice.kernel, g, c_streamed_out), *choice.kernel,
                            g, b_from_memory),
        *choice.kernel, g.m, g.n, g.k);
    return blocking_for_k_remainder(bp, *choice.kernel, g, cfg);
}

// The small path's blocking: only its KC matters, the depth of its kernel
// calls (gemm_small_f32's k_step), which is the blocked path's for the same
// call, so that either path gives C the same bits (small_path_alone). The
// adjustments only ever deepen KC, so within the kernel's KC there is one
// step and nothing to work out (the usual small call, planned in a few
// hundred cycles).
BlockingParams small_path_k_steps(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& g) {
    if (g.k <= choice.blocking.KC) return choice.blocking;
    return blocked_path_blocking(cfg, choice, g, b_comes_from_memory(cfg, g));
}

// The kernel the in-place paths (few rows or columns) take their kernels from:
// the chosen one, or its sibling where it has none, for narrow enough C.
const GemmKernel& in_place_reader(const GemmChoice& choice, const GemmArgs& g) {
    const bool sibling = choice.in_place_sibling != nullptr && std::min(g.m, g.n) <= kInPlaceSiblingMaxWidth;
    return sibling ? *choice.in_place_sibling : *choice.kernel;
}

int64_t a_rows_within_l2(const GemmArgs& g) {
    const int64_t row_bytes = int64_t(dtype_bytes(g.input)) * g.k;
    return row_bytes <= 0 ? INT64_MAX : int64_t(machine_topology().l2.size_bytes) / row_bytes;
}
bool a_within_l2(const GemmArgs& g) { return g.m <= a_rows_within_l2(g); }

// The rows of op(A) whose blocks the first micro-panel's tiles pack
// (blocked_schedule.cpp: packs_a_in_first_micro_panel): those within L2, and
// for a C of at most kTwinFromCacheMaxColumns columns those within the
// last-level cache. The twin saves the packing pass, a share of the call
// that shrinks as n grows (A is packed once per jc block for n / NR
// micro-panels), and reads A's columns a page apart where the pass sweeps
// them in order; from the last-level cache the saving wins only for few
// columns. Measured on the Intel VM against rows within L2 alone (an
// experiment build, `XROWS=8 RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N K
// 11-15`), 1 thread: 2000 x 300 x 300 1.032-1.040, 3000 x 300 x 300 1.039,
// 2000 x 300 x 1000 1.035, 2000 x 512 x 500 1.022, 2000 x 600 x 600 1.028,
// 4000 x 300 x 300 1.022; 2 threads (row slices) 2000 x 600 x 600 1.019, 6000
// x 300 x 500 1.023, 4000 x 300 x 300 1.008. Wider C gained nothing or lost:
// 2000 x 768 / 1024 x 500 1.002 / 1.000, 1000^3 0.991-0.993, 1024^3
// 0.996-0.997, 3000 x 1000 x 1000 0.969; and A from memory (8192 x 256 x
// 4096, 128 MiB) 0.981, as in the rule's first measurements.
// From memory the twin reads each of kc columns in 128-byte runs a page
// apart, but for few columns of C the pass it saves is a large share of the
// call (A packed for n / NR micro-panels): on the Zen 4 VM, 1 thread, 4096 x
// n x 4096 (64 MiB of A; perf, cpu-clock: the pass 16% of the call at n =
// 96), all rows against the rule above (an experiment build, `RIDGE_NUM_THREADS=1
// ridge-ab OLD NEW M N K 7-11`): n = 80 1.067, 96 1.046, 128 1.038, 192
// 1.031, 256 1.038, 384 1.009, 512 1.020, 1024 1.007 (the twin's prefetch of
// A's source 32 or 64 k steps ahead instead of 8: 0.96 / 0.89; 4 steps
// 1.004). Those rows were A's columns 16 KiB apart, where the pass's chunks
// (pack.cpp: 16 columns across all panels) fall on one L1 set; off a multiple
// of 4 KiB the pass ran 1.1x as fast and the twin gained nothing (96 columns:
// 4000 / 5000 / 6528 rows 1.001 / 1.001 / 0.994, ridge-tune's 6528 rows
// 0.905; 8192 rows 1.046). On the Intel VM 8192 x 256 x 4096 lost (above),
// so it is a profile's to turn on, up to kTwinFromMemoryMaxColumns columns
// at a stride of a multiple of 4 KiB, where ridge-tune times it
// (tune/a_packed_while_computing.cpp).
constexpr int64_t kTwinFromCacheMaxColumns = 512;
constexpr int64_t kTwinFromMemoryMaxColumns = 256;
namespace {
bool twin_from_memory(const RuntimeConfig& cfg, const GemmArgs& g) {
    const int64_t column_bytes = g.lda * int64_t(dtype_bytes(g.input));
    return cfg.blocked_a_packed_while_computing_from_memory && g.n <= kTwinFromMemoryMaxColumns && !g.trans_a &&
           column_bytes % kL1SetPeriodBytes == 0;
}
}  // namespace
int64_t a_rows_within_cache(const RuntimeConfig& cfg, const GemmArgs& g) {
    const int64_t row_bytes = int64_t(dtype_bytes(g.input)) * g.k;
    if (twin_from_memory(cfg, g)) return INT64_MAX;
    if (g.n > kTwinFromCacheMaxColumns || row_bytes <= 0) return a_rows_within_l2(g);
    return std::max(a_rows_within_l2(g), int64_t(cfg.last_level_cache_bytes / double(row_bytes)));
}
bool b_within_l2(const GemmArgs& g) {
    return double(dtype_bytes(g.input)) * double(g.k) * double(g.n) <= double(machine_topology().l2.size_bytes);
}

// Whether op(A) is larger than the last-level cache (GemmPlan::a_from_memory).
bool a_comes_from_memory(const RuntimeConfig& cfg, const GemmArgs& g) {
    return exceeds_last_level_cache(cfg, double(dtype_bytes(g.input)) * double(g.m) * double(g.k));
}

void set_blocked_path_limits(GemmPlan* plan) {
    plan->a_in_place_max_lda = runtime_config().blocked_a_in_place ? 2 * plan->blocking.MC / 3 : 0;
    plan->b_panel_columns_in_l2 = b_panel_columns_in_l2(plan->blocking, *plan->kernel);
    plan->a_rows_in_l3 = runtime_config().blocked_one_block_of_a ? a_rows_in_l3(plan->blocking, *plan->kernel) : 0;
    plan->a_rows_past_l2 = a_rows_past_l2(plan->blocking, *plan->kernel);
    plan->slice_panels_to_share = kSlicePanelsToShare;
    plan->b_panel_columns_for_ir_outside_jr =
        runtime_config().blocked_ir_outside_jr ? b_panel_columns_for_ir_outside_jr(plan->blocking, *plan->kernel) : 0;
}

namespace {
// Whether the small path blocks op(A)'s rows at depth k (small_path_a_block_floats).
bool small_path_blocks_rows(const GemmKernel& kernel, int64_t k) {
    const double b_tile_bytes = double(sizeof(float)) * double(k) * double(kernel.NR);
    return b_tile_bytes < double(machine_topology().l1.size_bytes);
}
int64_t small_path_a_block_floats(const RuntimeConfig& cfg, const GemmKernel& kernel, int64_t k) {
    return small_path_blocks_rows(kernel, k) ? cfg.small_a_block_floats : 0;
}

}  // namespace

int64_t small_path_a_block_floats(const GemmKernel& kernel, int64_t k) {
    return small_path_a_block_floats(runtime_config(), kernel, k);
}

namespace {

// Few rows of C (kThinSmallPathMinRows, or kThinSmallPathMinRowsBInCache, to
// kThinSmallPathMaxRows), an op(A) of at most half the last-level cache
// (`a_floats`: an upper bound on its floats; transposed, each thread packs all
// of it) and an op(B) larger than L2 take the small path at any volume: the
// blocked path packs every element of B for so few rows that reuse it (m / MR
// row tiles), and reads it from memory or L3 before any FMA can use it; the
// small path copies no more than a column tile of B at a time (its kernel
// streaming B's columns as it computes) and reads op(A) once per column tile,
// from L2 or L3. (A B within L2 leaves the choice to the small path's volume
// limit, which a profile may set.) Measured on the Zen 4 against the blocked
// path (a profile lifting the small path's limits, `PROFILE_B=...
// RIDGE_NUM_THREADS=T ridge-ab LIB LIB M N K 5-7`), 1 thread: 64 x 2048 x 2048
// 1.12, 96 x 4000 x 1000 1.14, 128 x 2064 x 2064 1.11, 128 x 1000 x 4000 1.12,
// 128 x 8192 x 8192 1.05, 160 x 1500 x 1500 1.06, 192 x 2064 x 2064 1.10, 192 x
// 1024 x 8192 1.04, 256 x 4096 x 4096 1.13, 320 x 2064 x 2064 1.06, 384 x 2064
// x 2064 1.03; 2 threads 128 / 256 / 320 x 2064 x 2064 1.01 / 1.03 / 1.05, 192
// x 4096 x 4096 1.09. Past 384 rows it fades: 512 x 2064 x 2064 1.02, 512 x
// 4096 x 4096 0.98, 768 x 2064 x 2064 1.00. (oneDNN ran 108-111 GFLOP/s at
// 96-192 x 2048 x 2048 where the blocked path ran 97-105.) A transposed the
// same way: 64 / 128 / 256 x 4096 x 4096 TN 1.01 / 1.05 / 1.12, 128 / 384 x
// 2048 x 2048 TN 1.01 / 1.01 (ridge's blocked path had run 0.94x oneDNN at 256
// x 4096 x 4096 TN).
// A transposed op(A) is a copy in every thread's workspace, which stays with
// the thread: at most kThinPackedAInL2s L2s of it (8 MiB here), not half the
// last-level cache per thread of a large team (packed_a_too_large; the deep
// rule below takes no transposed A at all).
// From 24 rows, not from 49 (where the few-rows path's outer form, which
// takes up to kOuterMaxRows, stopped before): the outer form keeps its panel
// of A in L2 and copies each group of B's columns into L1 before its FMAs,
// where the small path broadcasts B from its columns in place as it computes.
// Measured on the Intel VM, 1 thread, against the outer form (`RIDGE_NUM_THREADS=T
// build/bench/ridge-ab OLD NEW M N K 9-11 [TN]`): B from L3, 32 / 48 x 1000 x
// 1000 1.155 / 1.116 (the outer form ran 0.93 / 0.89x oneDNN there, paired),
// 24 x 1000 x 1000 1.121, 32 x 2048 x 2048 1.134-1.150, 32 x 768 x 768 1.138,
// 40 x 800 x 1000 1.035, 32 x 1000 x 1000 TN 1.233; B from memory, 32 / 48 x
// 4096 x 4096 1.108 / 1.099 (48 TN 1.126), 24 / 28 / 33 / 40 x 4096 x 4096
// 1.023 / 0.985 / 1.019 / 1.060; 2 threads 32 x 1000 x 1000 1.202, 24 x 1000 x
// 1000 1.162, 32 x 2048 x 2048 1.155, 48 x 4096 x 4096 1.074, 24 x 4096 x 4096
// 1.009, 40 x 2000 x 2000 1.009. Below 24 rows, their second vector mostly
// empty, the outer form kept up with B from memory (17 / 18 / 20 x 4096 x 4096
// 0.970 / 0.962 / 0.995; 17 x 2048 x 2048 0.983, its 16 MiB B in the VM's
// L3 but past the library's 4 MiB); at 16 rows and fewer the few-rows path's dot form runs (16 / 12 x
// 4096 x 4096 0.834 / 0.902 on the small path instead, 8 x 1000 x 1000 0.837).
// With op(B) within the last-level cache (the library's: on the Intel VM the
// 4 MiB fallback) 17-23 rows gain too, from the first row past the dot form's
// 16 (kSkinnyMaxRows): against the outer form, 17 / 20 / 23 x 1000 x 1000
// 1.017-1.039 / 1.072 / 1.034, 18 x 1024 x 900 1.059, 20 x 800 x 1200 1.048,
// 23 x 900 x 1100 1.030, 20 x 1000 x 1000 TN 1.123; 2 threads 17 / 20 / 23 x
// 1000 x 1000 1.074 / 1.100 / 1.064.
constexpr int64_t kThinSmallPathMinRows = 24;
constexpr int64_t kThinSmallPathMinRowsBInCache = kSkinnyMaxRows + 1;
constexpr int64_t kThinSmallPathMaxRows = 384;
constexpr double kThinPackedAInL2s = 8.0;
bool packed_a_too_large(const GemmArgs& g, double a_floats) {
    const double l2_bytes = double(machine_topology().l2.size_bytes);
    return g.trans_a && double(sizeof(float)) * a_floats > kThinPackedAInL2s * l2_bytes;
}
bool thin_enough_for_small_path(const RuntimeConfig& cfg, const GemmArgs& g, double a_floats) {
    const double l2_bytes = double(machine_topology().l2.size_bytes);
    const double a_bytes = double(sizeof(float)) * a_floats, b_bytes = double(sizeof(float)) * double(g.k) * double(g.n);
    if (packed_a_too_large(g, a_floats)) return false;
    const int64_t min_rows =
        exceeds_last_level_cache(cfg, b_bytes) ? kThinSmallPathMinRows : kThinSmallPathMinRowsBInCache;
    return g.m >= min_rows && g.m <= kThinSmallPathMaxRows && b_bytes > l2_bytes &&
           !exceeds_last_level_cache(cfg, 2.0 * a_bytes);
}

// The thin rule of a kernel whose small kernel has a volume limit of its own
// (GemmKernel::small_thin_max_rows; registry.cpp has AVX2's figures): op(B)
// larger than L2 as above, but op(A), padded to whole MR-row panels, within
// L2, and rows from 1 (such a kernel has no few-rows path: AVX2's few rows
// took the blocked path, 32 x 2048 x 2048 at 0.72x the small path).
bool thin_enough_for_capped_small_kernel(const GemmKernel& kernel, const GemmArgs& g) {
    const double l2_bytes = double(machine_topology().l2.size_bytes);
    const double a_panels = std::ceil(double(g.m) / double(kernel.MR));
    const double a_bytes = double(sizeof(float)) * a_panels * double(kernel.MR) * double(g.k);
    const double b_bytes = double(sizeof(float)) * double(g.k) * double(g.n);
    return g.m <= kernel.small_thin_max_rows && a_bytes <= l2_bytes && b_bytes > l2_bytes;
}

// Few columns of a transposed A that the few-rows path on C^T takes
// (use_skinny_trans_a_path) are left to it: the small path copies op(A)
// transposed, m x k for only n columns of FMAs, where that path reads A's
// columns in place. Where it pays, measured on the Intel VM (48 KiB L1, 2 MiB
// L2) against the small path (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K 9 TN`,
// an experiment build switching the rule by an environment variable; the kept
// build against the one before: 128 x 4 x 128 1.87, 600 x 30 x 1000 1.54):
// up to 16 columns at m and k of 128 and more, 128 x 4 x 128 1.83, 128 x 8 x
// 128 1.26, 128 x 16 x 128 1.14, 200 x 8 x 200 1.35, 160 x 16 x 160 1.28, 300
// x 16 x 300 1.35, 700 x 5 x 900 TT 3.93 (smaller, the small path's: 96 x 16
// x 96 0.92, 64 x 8 x 64 0.70, 32 x 4 x 256 0.38, 256 x 4 x 32 0.85); 17-48
// columns past the small path's tall side (more than 512 rows), 520 x 32 x 300
// 1.18, 550 x 40 x 800 1.34, 600 x 17 x 1000 1.52, 600 x 30 x 1000 1.53, 640 x
// 48 x 640 1.31 (within it mixed: 256 x 32 x 256 1.13, 200 x 24 x 1000 0.87,
// 300 x 32 x 500 0.94). On the Zen 4 (32 KiB L1) the small path's A bound kept
// these shapes out already.
constexpr int64_t kFewColumnsTransAMinRowsAndDepth = 128;
bool few_columns_of_transposed_a(const GemmKernel& kernel, const GemmArgs& g) {
    if (!g.trans_a || !use_skinny_trans_a_path(kernel, g)) return false;
    if (g.n <= kSkinnyMaxRows) return g.m >= kFewColumnsTransAMinRowsAndDepth && g.k >= kFewColumnsTransAMinRowsAndDepth;
    return g.m > kSmallPathMaxRows;
}

}  // namespace

// The in-place paths in the order the dispatcher's plan asks them, each with
// the kernel whose skinny and few-rows kernels it runs (in_place_reader; rows
// in place on the chosen kernel's own).
InPlacePath in_place_path(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& g) {
    const GemmKernel& reader = in_place_reader(choice, g);
    if (use_skinny_m_path(reader, g)) return InPlacePath::skinny_m;
    if (use_skinny_path(cfg, reader, g)) return InPlacePath::skinny;
    if (use_skinny_trans_a_path(reader, g)) return InPlacePath::skinny_trans_a;
    if (use_rows_in_place_path(*choice.kernel, g)) return InPlacePath::rows_in_place;
    if (use_skinny_trans_b_path(cfg, reader, g)) return InPlacePath::skinny_trans_b;
    return InPlacePath::none;
}

// Whether the small path would read an op(A) of more than half of L2 in
// place, its columns a multiple of 1 KiB apart, across more columns of C than
// its tall tiles take (gemm_small.cpp: tile_height, up to 16), past the
// volume where the small path takes any shape (kSmallAnyShapeMaxVolume) and
// within its volume limit (max_volume):
// then, on one thread, the small path in its usual order does not take the
// call (takes_small_path, small_path_alone): the blocked path
// does, which packs A, or the small path a KC step at a time over all of C
// where C is small enough for that (deep_enough_for_small_path: each step's
// slice of A stays in L2). Such an A the small path in its usual order reads
// in blocks of rows of half of L2 (cfg.small_a_block_floats), each once per
// column tile of C, whose B (k x NR floats: 24 KiB at k = 512) stays in L1;
// with 32-row tiles each k step's two lines of A land on 4 of the L1's 64 set
// offsets (l1_sets.h), where B's lines sit too. Packed, A's panels are
// contiguous. What it buys is steadiness more than speed: on the Zen 5 VM the
// blocked path held 179-213 GFLOP/s at 512^3 through the host's spells while
// the small path ran 166-214 (the presumed cause, a guest on the core's other
// hardware thread sharing its L1 and L2, is not something a VM can see).
// Measured, 1 thread, lda = m: a profile turning the small path off against
// the same build without it (`PROFILE_A=P PROFILE_B=P_NO_SMALL
// RIDGE_NUM_THREADS=1 ridge-ab LIB LIB2 M N K 11-31`), then this build against
// the one before (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K 21`): 512^3
// 0.974-1.058 over seventeen runs (median 1.01; 1.01-1.06 in the seven runs
// of slower spells, 0.97-1.02 in the ten others; the session before, 384^3-
// 512^3 together, 0.983-0.989), A 16 bytes past a line 1.001-1.109 over
// five, 512 x 512 x 480 1.001-1.021, 512 x 256 x 512 0.980-1.046 over seven
// (median 0.993), 512 x 128 x 512 1.018; 256 x 256 x 1000 (now on the small
// path's KC steps) 1.108-1.120, 256 x 256 x 768 1.011. With A within
// half of L2 the small path stays ahead (512 x 512 x 256 0.990, 256^3 0.969,
// 1024 x 1024 x 128 0.984), and so it does at other strides (496 x 512 x 512
// 0.982-0.994, 480^3 0.993, 448^3 0.983, 544^3 0.954) and with AVX2's 16-row
// tiles, one line a column (`RIDGE_ISA=avx2`: 512^3 0.997, 512 x 256 x 512
// 0.976). Up to the small path's bound for A read whole
// (cfg.small_max_a_floats), the A measured. Not on a team, where the small
// path splits C's columns and the blocked team shares its panels: 2 threads
// 512^3 without a profile (whose built-in limit gives teams the small path
// there) 0.909 with the rule. Nor past the small path's volume limit
// (max_volume), where it takes thin problems by their own rule
// (thin_enough_for_small_path): there the blocked path ran 256 x 4096 x 768
// 1.18x, 256 x 4096 x 1000 1.04x but 256 x 4096 x 1024 0.88x (B's columns 4
// KiB apart), not enough to draw a line by.
bool small_path_reads_a_in_blocks_on_few_l1_sets(const RuntimeConfig& cfg, const GemmKernel& kernel,
                                                 const GemmArgs& g, double max_volume) {
    const double volume = double(g.m) * double(g.n) * double(g.k);
    if (volume <= kSmallAnyShapeMaxVolume || volume > max_volume) return false;
    if (g.trans_a || g.n <= kTallTilesMaxColumns) return false;  // transposed A is packed
    if (kernel.MR * int64_t(sizeof(float)) < kTwoCacheLinesBytes) return false;
    if ((g.lda * int64_t(sizeof(float))) % kFewL1SetsStrideBytes != 0) return false;
    const double a_floats = double(g.m) * double(g.k);
    return a_floats > double(cfg.small_a_block_floats) && a_floats <= cfg.small_max_a_floats;
}

// The cheap tests first: this runs on every call, and at 32^3 a call is ~1300 cycles.
// Up to max_volume m*n*k (cfg.small_max_volume, or see small_path_alone).
bool use_small_path(const RuntimeConfig& cfg, const GemmKernel& kernel, const GemmArgs& g, double max_volume) {
    if (g.input != Dtype::f32 || kernel.small_f32 == nullptr) return false;
    if (few_columns_of_transposed_a(kernel, g)) return false;
    const double volume = double(g.m) * double(g.n) * double(g.k);
    // op(A) padded to whole MR-row panels; in doubles, as m + MR - 1 would
    // overflow int64 for m near 2^63. (m + MR) * k bounds it from above and
    // settles the usual case without the division.
    const double bound_a = (double(g.m) + double(kernel.MR)) * double(g.k);
    // A kernel whose small kernel serves the small path alone (GemmKernel::
    // small_kernel_max_volume) takes it up to its own limit and for thin
    // problems by its own rule, and not for an A whose columns lie a multiple of 4 KiB apart:
    // the small path's tall tiles there (gemm_small.cpp: tile_height) were
    // measured with AVX-512's 32-row tiles; AVX2's read a line a column, all
    // in one L1 set, and ran 0.55-0.83x packing at 1024 x 6-16 x 64-512
    // (`RIDGE_ISA=avx2 RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K 9`; at lda =
    // 1040 the same shapes ran 1.48-1.89x).
    const bool kernel_capped = kernel.small_kernel_max_volume > 0;
    if (kernel_capped && !g.trans_a && (g.lda * int64_t(sizeof(float))) % kL1SetPeriodBytes == 0) return false;
    if (kernel_capped) max_volume = std::min(max_volume, kernel.small_kernel_max_volume);
    const bool beyond_volume = volume > max_volume;  // then only a thin problem, which bounds op(A) itself
    if (beyond_volume && !(kernel_capped ? thin_enough_for_capped_small_kernel(kernel, g)
                                         : thin_enough_for_small_path(cfg, g, bound_a)))
        return false;
    // A larger op(A) only where its rows are blocked (each block within L2).
    if (!beyond_volume && bound_a > cfg.small_max_a_floats && !small_path_blocks_rows(kernel, g.k)) {
        const double panels = std::ceil(double(g.m) / double(kernel.MR));
        if (panels * double(kernel.MR) * double(g.k) > cfg.small_max_a_floats) return false;
    }
    if (volume <= kSmallAnyShapeMaxVolume) return true;
    // (17-48 rows stay here: within its volume the small path, B broadcast in
    // place, beat the few-rows path's L1 copy of B: 32 x 1024 x 512 171-175
    // against 136, 48 x 2048 x 1024 181-183 against 162-167 GFLOP/s.)
    const bool few_rows = g.m <= kSkinnyMaxRows && use_skinny_m_path(kernel, g);
    const bool tall_side = g.m <= kSmallPathMaxRows && (g.trans_a || g.lda <= kSmallPathMaxRows);
    const bool square = g.m <= kSmallPathMaxSquare && g.n <= kSmallPathMaxSquare &&
                        (g.trans_a || g.lda <= kSmallPathMaxSquare);
    // (Nor a C larger than the last-level cache: the blocked path streams it out where beta = 0.)
    const bool c_fits_cache = 4.0 * double(g.m) * double(g.n) <= cfg.stream_c_min_bytes;
    const bool b_transposed_within_limit =
        !g.trans_b ||
        (!kernel_capped && volume <= kSmallTransBMaxVolume && !use_skinny_trans_b_path(cfg, kernel, g));
    return !few_rows && !use_skinny_path(cfg, kernel, g) && b_transposed_within_limit && (tall_side || square) &&
           c_fits_cache;
}

namespace {
// Whether a call the blocked path would run alone (one thread) takes the
// small path instead, up to its one-thread limit (small_path_limit_alone)
// rather than cfg.small_max_volume, which a call the small path would run on
// a team goes by (takes_small_path). ridge-tune measures them apart; where
// the profile has no figure for one thread (a search cut short, a profile
// from before it), the built-in kSmallPathMaxVolume applies, as without a
// profile. Both paths give C the same bits: each element is one chain of
// FMAs per KC step, from zero, then the same alpha and beta finish, the
// first step scaling C by beta and the others adding to it (the small path
// runs the blocked path's KC steps: small_path_k_steps;
// Kernels.SmallAndBlockedPathsSameBits). So a one-thread call may take
// either path where the other serves a team. Only where the blocked path
// would run its five loops, not a skinny path's kernels.
bool runs_five_loops(const GemmPlan& plan) {
    return !plan.skinny_m_path && !plan.skinny_path && !plan.skinny_trans_a_path && !plan.rows_in_place_path &&
           !plan.skinny_trans_b_path;
}

// Whether every column of op(A) as the small path reads it starts on a
// 64-byte cache line: an untransposed A's own columns, read in place, or a
// transposed A's, which the small path packs into aligned panels. Off a
// line, each MR-row run of a column spans a line more and its vector loads
// split across two: on the Intel VM the small path at 128^3 ran 0.936x with
// A 16 bytes past a line (where glibc's malloc puts a large block), 0.998x
// with B there and 0.991x with C there, 0.899-0.909x with all three (64^3-
// 256^3: 0.89-0.93), where the blocked path, which packs A, ran 0.99-1.01x (a
// throwaway program calling ridge_sgemm on matrices at both places in turn).
// Packing an A that is off its lines on the small path instead ran 0.93-0.97
// at 32^3-150^3 (an experiment build): the pack costs what the loads gain.
// So ridge-tune measures the one-thread limit both ways (search.cpp:
// search_small_crossover, search_small_crossover_lined_a). On the Intel VM,
// A off lines kept up to 64^3 (the library's blocked path, packing A, ran
// 96^3-192^3 at 1.02-1.08x: 0.92-0.98 in the tuner's rounds), A on lines to
// 448^3-512^3 (256^3-448^3 1.00-1.05x the blocked path in its rounds).
constexpr uintptr_t kCacheLineBytes = 64;
bool small_path_reads_a_on_lines(const GemmArgs& g) {
    if (g.trans_a) return true;
    const int64_t line_elements = int64_t(kCacheLineBytes) / dtype_bytes(g.input);  // (lda * bytes could overflow)
    return reinterpret_cast<uintptr_t>(g.a) % kCacheLineBytes == 0 && g.lda % line_elements == 0;
}

// Whether op(A) (m x k, as the caller has it) fits the small path's bound
// for A read whole (cfg.small_max_a_floats, half of L2 here): the lined limit
// was measured on squares up to that size (512^3 is exactly 1 MiB), and past
// it the small path reads A in blocks of rows, every block once per 12
// columns of C from L2 in short runs a column apart, where the blocked path
// streams packed panels. On the Intel VM (1 thread, A on lines, the lined
// limit against the off-lines one: `PROFILE_A=P PROFILE_B=Q
// RIDGE_NUM_THREADS=1 ridge-ab LIB LIB2 M N K 7-9 [TN]`, two copies of one
// build) every shape past it ran faster on the blocked path: 320 / 384 / 480
// / 512 x 96 x 1000 1.025 / 1.077 / 1.106 / 1.627 (A's columns 2 KiB apart
// at 512; 1.13-1.16 at lda 528-640), 512 x 128 / 256 x 1000 1.626 / 1.655,
// 448 x 96 x 800 1.041, 512 x 96 / 200 x 640 1.262 / 1.162, 640 x 96 x 800
// 1.133, TN 384 / 512 x 96 x 1000 1.024 / 1.023 (the ridge-bench paired run
// had 512 x 96 x 1000 at 0.55x oneDNN on the small path); within it the
// small path stays ahead: 256 x 96 x 1000 0.949, 384 x 96 x 680 0.956, 512 x
// 96 x 500 0.963, 512 x 128 x 512 0.965, 256 x 512 x 1000 0.950, 256 x 200 x
// 1024 0.958. Unpadded: 512^3 padded to whole MR panels would just miss it.
bool a_within_small_path_bound(const RuntimeConfig& cfg, const GemmArgs& g) {
    return double(g.m) * double(g.k) <= cfg.small_max_a_floats;
}
}  // namespace
double small_path_limit_alone(const RuntimeConfig& cfg, const GemmArgs& g) {
    const bool lined = small_path_reads_a_on_lines(g) && a_within_small_path_bound(cfg, g);
    return lined ? cfg.small_max_volume_alone_lined_a : cfg.small_max_volume_alone;
}
bool small_path_alone(const RuntimeConfig& cfg, const GemmPlan& plan, const GemmArgs& g) {
    if (plan.threads != 1 || !runs_five_loops(plan)) return false;
    const double limit = small_path_limit_alone(cfg, g);
    return use_small_path(cfg, *plan.kernel, g, limit) &&
           !small_path_reads_a_in_blocks_on_few_l1_sets(cfg, *plan.kernel, g, limit);
}

// A small C over a deep k, past the volume limits: where the blocked path
// runs more than one KC step (k beyond the plan's KC, after the one-step
// rule), C has at most kSmallCDeepKMaxFloats elements on a team
// (kSmallCDeepKMaxFloatsAlone on one thread; both in paths.h) and the small
// path reads op(A) whole (within cfg.small_max_a_floats, 1 MiB here; beyond
// it deep_enough_for_small_path decides), the small path takes the call
// where use_small_path agrees. The blocked team splits such a C into slices
// of a few micro-panels each (gemm_blocked.cpp: splits_columns), every thread
// packing all of op(A) for its share, at every KC step: 96 x 96 x 1024 ran
// 263 GFLOP/s on 2 threads against 292 at k = 512 (one step). The small path
// packs nothing, and its team claims tiles with no barrier. (ridge-tune
// measures the volume limits on squares, k = m = n, where past 80^3-128^3
// the small path's team lost with A off cache lines.) Measured on the Intel
// VM, 2 threads, A 16 bytes past a line (`OFFSET=4 PROFILE_A=HOME
// PROFILE_B=Q RIDGE_NUM_THREADS=2 ridge-ab LIB LIB2 M N K 9`, Q the
// machine's profile with the volume limits raised, two copies of one build):
// 64 x 64 x 640 / 1000 1.054 / 1.122, 96 x 96 x 768 / 1024 / 2000 1.071 /
// 1.117 / 1.113, 128 x 128 x 640 / 768 / 1024 / 2048 1.088 / 1.070 / 1.135 /
// 1.175, 64 x 256 x 1000 1.103, 192 x 64 x 1024 1.237, 100 x 400 x 1000
// 1.128, 256 x 128 x 1024 1.148, 128 x 256 x 1024 1.051, 200 x 200 x 600 /
// 1000 1.013 / 1.049, 192 x 192 x 1024 1.018, 224 x 224 x 1024 1.031, 256 x
// 192 x 1024 1.037; a larger C lost, 256 x 256 x 1024 / 2000 0.949 / 0.973
// (on lines 1.031 at 1024; 128 x 128 x 1024 1.144 there; TN 128 x 128 x 1024
// 1.166, 96 x 96 x 2000 1.130), and within one KC step the blocked team kept
// up: 128 x 128 x 256 / 384 / 512 0.994 / 1.008 / 0.980, 96 x 96 x 512
// 0.981, 256 x 256 x 512 0.940. One thread (A off lines; on lines the lined
// limit takes these already): 64 x 64 x 640 1.090, 96 x 96 x 1024 1.052, 64 x
// 256 x 1000 1.082, 192 x 64 x 1024 1.054, 128 x 128 x 768 / 1024 / 2048
// 1.009 / 1.016 / 1.050, 128 x 256 x 1024 1.030, 192 x 192 x 1024 1.013, but
// 256 x 128 x 1024 0.966 and 256 x 256 x 1024 0.940: a smaller C there. The
// kept build against the one before (`OFFSET=4 RIDGE_NUM_THREADS=2|1
// ridge-ab OLD NEW M N K 9`, the machine's profile), 2 / 1 threads: 128 x
// 128 x 1000 1.117 / 1.029, 96 x 96 x 2000 1.096 / 1.042, 64 x 256 x 1000
// 1.083 / 1.082, 200 x 200 x 1000 1.028 / 1.003, 256 x 192 x 1024 1.034 /
// 1.003; unchanged 256 x 256 x 1024 0.997 / 0.999, 128 x 128 x 512 0.995 /
// 0.999, 1024^3 0.989 / 1.009. The small path gives C the blocked path's
// bits (see small_path_alone), so a team and one thread agree.
bool small_c_deep_k(const RuntimeConfig& cfg, const GemmPlan& plan, const GemmArgs& g) {
    if (!runs_five_loops(plan) || g.k <= plan.blocking.KC) return false;
    const double c_floats = double(g.m) * double(g.n);
    if (c_floats > (plan.threads > 1 ? kSmallCDeepKMaxFloats : kSmallCDeepKMaxFloatsAlone)) return false;
    const double a_panels = std::ceil(double(g.m) / double(plan.kernel->MR));  // op(A) in whole MR-row panels
    if (a_panels * double(plan.kernel->MR) * double(g.k) > cfg.small_max_a_floats) return false;
    return use_small_path(cfg, *plan.kernel, g, std::numeric_limits<double>::infinity());
}

// Deep problems: op(A) larger than half of L2 (the small path's
// block of rows, cfg.small_a_block_floats) and C within it (for a kernel whose
// small kernel has a volume limit of its own, AVX2's, also C and op(A)'s slice
// of one KC step together within L2). The small path then runs each KC step over all of
// C before the next (GemmPlan::small_k_steps_outside), its kernel reading A
// and B in place: the step's slice of A stays in L2 across the column tiles
// and B's columns stream through L1, where the blocked path packs B in a pass
// of its own (at 128 x 128 x 4096 5% of the call: perf, cpu-clock) and the
// small path in its usual order reads all of op(A) from L3 once per column
// tile. The blocked path's KC steps: the same bits either way. Not where the
// small path would copy B's column tiles (small_path_copies_b, for all of k).
// Measured on the Zen 4 against the previous build (`RIDGE_NUM_THREADS=1
// ridge-ab OLD NEW M N K 7 [TN]`): 128 x 128 x 4096 1.048 (TN 1.033; 4000
// deep 1.051), 96 x 512 x 4096 1.075, 160 x 160 x 2048 1.036, 512 x 256 x 4096
// 1.026, 32 x 32 x 8192 1.014, 64 x 64 x 4096 1.011, 256 x 256 x 4096 1.012
// (TN 1.003), 256 x 512 x 2048 1.011, 200 x 200 x 8192 1.011, 300 x 300 x 3000
// 1.010, 384 x 128 x 8192 1.009, 128 x 1000 x 4000 1.005. With a larger C
// the steps' passes over it lost (the small path's own order against this
// one: 128 x 2048 x 2048 0.97, 256 x 4096 x 4096 0.94), as where op(A) fits
// L2 anyway (64 x 2048 x 2048 0.94, 48 x 2048 x 1024 0.995). The AVX2 small
// kernel too, past its own volume limit (`RIDGE_ISA=avx2`, the same command):
// 128 x 128 x 4096 1.127 (TN 1.038), 96 x 96 x 4096 1.124, 96 x 512 x 4096
// 1.095, 200 x 200 x 8192 1.092, 160 x 160 x 2048 1.070, 128 x 1000 x 4000
// 1.062, 256 x 256 x 4096 1.024, 64 x 64 x 4096 0.990-1.005, 300 x 300 x
// 3000 1.001, 512 x 256 x 4096 0.994, 32 x 32 x 8192 0.989 (quartiles
// 0.95-1.01). A team claims the tiles of each KC step (the small path's
// claims, a barrier between steps: gemm_small.cpp); 2 threads against the
// blocked path's team (`RIDGE_NUM_THREADS=2`, the same command): 128 x 128 x
// 4096 1.033, 96 x 512 x 4096 1.088, 160 x 160 x 2048 1.039, 256 x 256 x 4096
// 1.001 (a fixed split of the column tiles instead ran 1.5-2% faster than
// the claims with both cores free, but leaves a core that is slowed waiting).
// The slice and C together within L2, not the slice within half of it: 300 x
// 40 x 1000 (a slice of 320 x 512 at KC 512) 1.154 on 1 thread and 2.79 on 2,
// where the blocked path's team, each thread 150 rows and the B panel shared
// at each of two KC steps, ran 63-69 GFLOP/s against one thread's 96 (and
// 154 in another run: ridge-bench paired); 400 x 100 x 1500 1.066 / 1.63, 512
// x 64 x 2048 1.005 / 1.006, 384 x 128 x 8192 0.992 / 0.983. Then with the
// AVX-512 kernel no bound on the slice at all (1 / 2 threads): 500 x 64 x
// 1000 1.117 / 1.060, 450 x 96 x 700 1.074 / 1.130, 512 x 100 x 2000 1.082,
// 480 x 272 x 1500 1.067, 400 x 200 x 1200 1.044, 512 x 256 x 2048 1.004 /
// 0.999, 512 x 128 x 1024 1.002, 512 x 32 x 4096 0.999; but RIDGE_ISA=avx2
// 512 x 256 x 2048 0.922 (500 x 64 x 1000 0.996), so AVX2's keeps it.
// On the Intel VM (2 MiB L2) the rule lost with A transposed, which the
// small path packs whole, per thread, from L3 before its first FMA, and past
// kDeepSmallPathMaxRows rows; the blocked path against it (an experiment
// build turning the rule off, `RIDGE_NUM_THREADS=1|2 ridge-ab OLD NEW M N K
// 9 [TN]`), 1 / 2 threads: TN 512 x 96 x 1000 1.099 / 1.296, 300 x 300 x 3000
// 1.076 / 1.126, 256 x 96 x 2000 1.081 / 1.218, 128 x 128 x 4096 1.062 /
// 1.099, 384 x 128 x 1500 1.067 / 1.173; NN 512 x 96 x 1000 1.043 / 1.114,
// 300 x 300 x 3000 1.032 / 1.052, 384 x 128 x 1500 0.982 / 1.090, 512 x 64 x
// 2048 1.007 / 0.996, 320 x 128 x 2000 0.950 / 1.087; up to 288 rows (nine
// MR tiles) the small path held: 128 x 128 x 4096 0.941 / 0.934, 96 x 96 x
// 4096 0.915 / 0.916, 200 x 150 x 3000 0.936 / 0.825, 160 x 160 x 3000 0.953
// / 0.986, 224 x 128 x 3000 0.918 / 0.927, 256 x 256 x 4096 0.978 / 0.960,
// 256 x 128 x 2048 0.994 / 0.966, 256 x 256 x 2048 1.000 / 0.975, 128 x 256
// x 2048 1.001 / 1.000, 288 x 96 x 3000 0.935 / 0.978, 288 x 200 x 2000
// 0.960 / 0.946. (The Zen 4's TN gains above were 0.3-3.8%.)
// B transposed too (NT; TT keeps A transposed out): each k step of a column
// tile is then a run of a row of B, 48 bytes of a line for the 12-column
// tile, and a step's slice of B (KC rows of B^T) comes from L2 once per
// column tile where the blocked path packs it. On the Intel VM of model 207,
// with the rule against without it (an experiment build, `RIDGE_NUM_THREADS=1|2
// ridge-ab OLD NEW M N K 9 NT`), 1 / 2 threads: 128 x 128 x 8192 1.159 /
// 1.312, 96 x 96 x 4096 1.080 / 1.092, 256 x 256 x 4096 1.015 / 1.104, 200 x
// 150 x 3000 0.959-1.034 / 1.323, 64 x 64 x 4096 1.028 / 1.015-1.017, 288 x
// 96 x 3000 0.956-1.067 / 0.985-1.003, 128 x 64 x 8192 1.161, 128 x 256 x
// 4096 1.088, 256 x 128 x 4096 1.049, 192 x 96 x 4096 1.076, 224 x 128 x
// 3000 1.084, 160 x 160 x 3000 1.056 / 1.006, 128 x 128 x 2048 1.010 /
// 1.006, 32 x 32 x 8192 0.989 (ridge-bench paired had 128 x 128 x 8192 NT
// at 0.82x / 0.86x oneDNN without it, NN at 0.95x / 1.04x). The AVX2 kernel
// (RIDGE_ISA=avx2, 6-column tiles: 24 bytes of a line a step) the same way
// up to a C of 128 x 256 (kDeepTransBMaxCFloatsCapped): 128 x 128 x 8192
// 1.124, 96 x 96 x 4096 1.168, 200 x 150 x 3000 1.102, 288 x 96 x 3000
// 1.039, 128 x 256 x 4096 1.074, 256 x 128 x 4096 1.004, but 256 x 256 x
// 4096 0.889-0.904.
constexpr int64_t kDeepSmallPathMaxRows = 288;
constexpr double kDeepTransBMaxCFloatsCapped = 128.0 * 256.0;
bool deep_enough_for_small_path(const RuntimeConfig& cfg, const GemmPlan& plan, const GemmArgs& g) {
    const GemmKernel& ker = *plan.kernel;
    const bool takes_it = g.input == Dtype::f32 && ker.small_f32 != nullptr && runs_five_loops(plan);
    if (!takes_it || g.trans_a || g.k <= plan.blocking.KC || g.m > kDeepSmallPathMaxRows) return false;
    const bool kernel_capped = ker.small_kernel_max_volume > 0;  // (AVX2's: registry.cpp)
    if (g.trans_b && kernel_capped && double(g.m) * double(g.n) > kDeepTransBMaxCFloatsCapped) return false;
    if (g.lda > kSmallPathMaxRows || small_path_copies_b(g, ker)) return false;
    const double rows = std::ceil(double(g.m) / double(ker.MR)) * double(ker.MR);  // op(A) in whole MR-row tiles
    const double half_l2_floats = double(cfg.small_a_block_floats);
    const double a_step_floats = rows * double(plan.blocking.KC), c_floats = double(g.m) * double(g.n);
    const bool step_within_l2 = a_step_floats + c_floats <= 2.0 * half_l2_floats;
    return rows * double(g.k) > half_l2_floats && c_floats <= half_l2_floats && (step_within_l2 || !kernel_capped);
}

int threads_for(double flops, double min_flops_per_thread) {
    const double useful = flops / min_flops_per_thread;
    // Work for one thread: one, whatever the settings (decided before asking
    // OpenMP or the thread-local override, a call into libgomp and a TLS
    // lookup that a 32^3 call notices).
    if (useful < 2.0) return 1;
    if (omp_in_parallel()) return 1;  // never nest teams inside a caller's parallel region
    const int wanted = wanted_thread_count();
    return static_cast<int>(std::min<double>(wanted, useful));
}

int threads_for(double flops) { return threads_for(flops, runtime_config().min_flops_per_thread); }

// The small path's m*n*k limit for a call on `threads` threads (flops: 2mnk),
// or kNotTheSmallPath: a team goes by the team's limit (cfg.small_max_volume,
// measured on squares against the blocked path's team), one thread by the
// one-thread limits (small_path_limit_alone), except where the two disagree on
// a call the small path would run on a team (flops for two threads at its
// rate, cfg.small_min_flops_per_thread; RIDGE_NUM_THREADS=1 or a caller's
// parallel region keeps it on one) and one of the in-place paths, whose bits
// differ from the small path's, would take it otherwise (in_place_path): there
// one thread and a team take the same path: the small path up to the larger
// limit where the other is the few-rows path (skinny_m), else the path a team
// takes by its own limit. (Where the other is the five loops, either path
// gives the same bits.) Found on the Intel VM with its profile (team limit 80^3, one thread's
// 112^3, 448^3 with A on lines): 48 x 300 x 80 ran the small path on one
// thread and the few-rows path on two, 200 x 16 x 300 the skinny path on two,
// and C differed in its last bits; a later ridge-tune run put the team's limit
// above one thread's (160^3 against 80^3), the other way round. Measured there
// (`RIDGE_NUM_THREADS=2 PROFILE_A=HOME PROFILE_B=Q ridge-ab LIB LIB2 M N K 11
// [TRANS]`, Q with the team's limit raised, two copies of one build), the
// small path's team against the in-place path's: few rows 48 x 300 x 80 1.489,
// 48 x 1000 x 80 1.151, 16 x 300 x 200 1.457, 16 x 1000 x 100 1.290, 40 x 500
// x 60 1.259, 8 x 2000 x 200 1.146 (on one thread the small path was ahead
// too: the in-place path ran 0.908, 0.925, 0.872 and 0.992 of it); few columns
// 200 x 16 x 300 0.945, 1000 x 16 x 200 0.810, 300 x 40 x 100 0.951, 1000 x 40
// x 30 1.078, B transposed 16 x 300 x 200 NT 1.042, A transposed 300 x 16 x
// 300 TN 1.049, where one thread taking the in-place path ran 0.974 (200 x 16
// x 300), 1.006, 1.054, 1.021 and 1.005 of the small path
// (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K 11`). With the later profile
// (team's limit 160^3 above one thread's 80^3, and the blocked path's team
// from 2.1 MFLOP a thread against the small path's 0.88) the same few-column
// shapes' small team ran 1.143, 1.244, 0.813, 1.324, 1.291 and 1.013 of the
// in-place path, which then ran on one thread (`PROFILE_A=P PROFILE_B=Q
// RIDGE_NUM_THREADS=2 ridge-ab LIB LIB2 M N K 9 [TRANS]`, P with both limits
// at 80^3, Q at 160^3): the few-column shapes follow the team's own limit.
constexpr double kNotTheSmallPath = -1.0;
double small_path_limit(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& g, int threads,
                        double flops) {
    const double team = cfg.small_max_volume, alone = small_path_limit_alone(cfg, g);
    const double limit = threads > 1 ? team : alone, volume = flops / 2.0;
    const bool limits_agree = volume <= std::min(team, alone) || volume > std::max(team, alone);
    if (limits_agree || flops < 2.0 * cfg.small_min_flops_per_thread) return limit;
    switch (in_place_path(cfg, choice, g)) {
    case InPlacePath::none: return limit;
    case InPlacePath::skinny_m: return std::max(team, alone);
    default: return volume <= team ? std::max(team, alone) : kNotTheSmallPath;  // as a team takes it
    }
}

// The small path's plan in one call, the rules it asks inlined here: a 16^3
// call takes about 100 ns, 32^3 about 450. Against dispatch.cpp as one file
// (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW n n n 21-31`; two copies of one
// build 1.000-1.008), each rule a call of its own from dispatch.cpp ran
// 0.983-0.986 at 16^3 and 0.990-0.994 at 32^3; this one call 0.986-0.993 and
// 0.993-1.005.
// Its volume limit: small_path_limit.
bool takes_small_path(const RuntimeConfig& cfg, const GemmChoice& choice, const GemmArgs& g, SmallPathCall* call) {
    const GemmKernel& kernel = *choice.kernel;
    if (g.input != Dtype::f32 || kernel.small_f32 == nullptr) return false;  // (before asking for threads)
    const double flops = 2.0 * double(g.m) * double(g.n) * double(g.k);
    const int threads = threads_for(flops, cfg.small_min_flops_per_thread);
    const double limit = small_path_limit(cfg, choice, g, threads, flops);
    if (limit == kNotTheSmallPath || !use_small_path(cfg, kernel, g, limit)) return false;
    if (threads == 1 && small_path_reads_a_in_blocks_on_few_l1_sets(cfg, kernel, g, limit)) return false;
    call->a_block_floats = small_path_a_block_floats(cfg, kernel, g.k);
    call->threads = threads;
    call->k_steps = small_path_k_steps(cfg, choice, g);
    return true;
}

BuiltInCrossovers builtin_crossovers() {
    BuiltInCrossovers b{kSmallPathMaxVolume, {}, kGemvPrefetchElements};
    b.skinny_max_columns[int(Dtype::f32)] = kSkinnyMaxColumns;
    b.skinny_max_columns[int(Dtype::bf16)] = kSkinnyMaxColumnsBf16;
    b.skinny_max_columns[int(Dtype::f16)] = kSkinnyMaxColumnsF16;
    return b;
}

}  // namespace ridge
