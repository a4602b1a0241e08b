// The per-call report: exact byte counts of the blocked schedule against the
// formulas the design states, invariants across thread counts, and the API.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "dispatch/dispatch.h"
#include "gemm/gemm.h"
#include "gemm/pack.h"
#include "ridge/ridge.h"
#include "tuning/topology.h"

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Problem {
    int64_t m, n, k;
    float beta;
};

// Runs one fp32 problem through the blocked driver with `bp` and returns what it counted.
ridge::Traffic run_blocked(const Problem& p, const ridge::BlockingParams& bp, int threads) {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    std::vector<float> a(p.m * p.k, 0.5f), b(p.k * p.n, 0.25f), c(p.m * p.n, 1.0f);
    ridge::GemmArgs g;
    g.m = p.m, g.n = p.n, g.k = p.k, g.alpha = 1.0f, g.beta = p.beta;
    g.a = a.data(), g.lda = p.m, g.b = b.data(), g.ldb = p.k, g.c = c.data(), g.ldc = p.m;
    ridge::Traffic t;
    ridge::GemmPlan plan;
    plan.kernel = ker;
    plan.blocking = bp;
    plan.threads = threads;
    plan.traffic = &t;
    EXPECT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
    return t;
}

ridge::BlockingParams small_blocking() {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    return {ker->MR, ker->NR, 64, 4 * ker->MR, 5 * ker->NR};  // every loop iterates several times
}

// DESIGN.md's schedule: B read once per (jc, pc); A once per jc; C written once
// and read and written once per later KC block (read at the first too when beta != 0).
// jc blocks: as few as allow each at most NC + NC/8 columns (no thin last block),
// each then rounded up to whole NR panels (blocked_schedule.cpp: nc_block), which
// can leave one block fewer (n = 250, NC = 30, NR = 6: 7 blocks of 36, not 8).
double expected_memory_bytes(const Problem& p, const ridge::BlockingParams& bp) {
    const int64_t kc = std::min(bp.KC, p.k);
    const int64_t equal = ceil_div(p.n, ceil_div(p.n, bp.NC + bp.NC / 8));
    const int64_t nc = ceil_div(equal, bp.NR) * bp.NR;
    const double jc_blocks = double(ceil_div(p.n, nc)), pc_blocks = double(ceil_div(p.k, kc));
    const double c_passes = (p.beta != 0.0f ? 2.0 : 1.0) + 2.0 * (pc_blocks - 1);
    return 4.0 * (double(p.m) * p.k * jc_blocks + double(p.k) * p.n + double(p.m) * p.n * c_passes);
}

TEST(Report, BlockedMemoryTrafficMatchesTheSchedule) {
    const ridge::BlockingParams bp = small_blocking();
    // With NC = 60 (5 x NR, NR = 12): n = 61 and 67 run as one jc block, 68 and 300 as several.
    for (const Problem& p : {Problem{100, 70, 150, 0.0f}, Problem{129, 61, 200, 1.5f}, Problem{33, 300, 64, 0.0f},
                             Problem{64, 67, 70, 0.0f}, Problem{64, 68, 70, 1.0f}}) {
        SCOPED_TRACE(std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k));
        const ridge::Traffic t = run_blocked(p, bp, 1);
        EXPECT_DOUBLE_EQ(expected_memory_bytes(p, bp), t.memory);
        // The B panel enters L2 once per block of A: at least once per (jc, pc).
        EXPECT_GE(t.l3_to_l2, 4.0 * p.k * p.n);
        // A streams into L1 once per B micro-panel: NR columns of C per pass.
        EXPECT_GE(t.l2_to_l1, 4.0 * double(p.m) * p.k * double(ceil_div(p.n, bp.NR)));
    }
}

// The memory traffic of `threads` slices of p, each a problem of its own: the
// columns (whole NR panels) or the rows (whole MR panels), the first shares
// one panel more.
double expected_slices_bytes(const Problem& p, const ridge::BlockingParams& bp, int threads, bool by_rows) {
    const int64_t size = by_rows ? p.m : p.n, unit = by_rows ? bp.MR : bp.NR;
    const int64_t panels = ceil_div(size, unit);
    double expected = 0;
    int64_t first = 0;  // the share's first panel
    for (int t = 0; t < threads; ++t) {
        const int64_t mine = panels / threads + (t < panels % threads ? 1 : 0);
        const int64_t share = std::min(size, (first + mine) * unit) - std::min(size, first * unit);
        const Problem slice = by_rows ? Problem{share, p.n, p.k, p.beta} : Problem{p.m, share, p.k, p.beta};
        expected += expected_memory_bytes(slice, bp);
        first += mine;
    }
    return expected;
}

TEST(Report, MemoryTrafficIsTheSameForAnyThreadCountWhenThreadsShareB) {
    // C taller than wide but with too few rows for every thread to take two MR
    // panels of its own (splits_rows): threads share each B panel and split the
    // packing and C, they never duplicate it: the memory traffic of the
    // schedule cannot depend on how many threads ran it.
    const ridge::BlockingParams bp = small_blocking();
    const int64_t MR = bp.MR;
    for (const Problem& p : {Problem{3 * MR + 5, MR + 3, 150, 0.0f}, Problem{2 * MR + 1, 37, 130, 2.0f}}) {
        const ridge::Traffic one = run_blocked(p, bp, 1);
        for (int threads : {2, 3}) {
            if (p.m >= threads * 2 * MR || p.n >= p.m) continue;  // (a slice of its own per thread)
            const ridge::Traffic many = run_blocked(p, bp, threads);
            EXPECT_DOUBLE_EQ(one.memory, many.memory) << threads << " threads";
            // Each group of threads brings the B panel into its own L2: never less than one.
            EXPECT_GE(many.l3_to_l2, one.l3_to_l2);
        }
    }
}

TEST(Report, ThreadsSplittingTheRowsEachReadAllOfB) {
    // C taller than wide, at least two MR panels of rows a thread: each thread
    // runs the five loops on its own share of the rows (whole MR panels, the
    // first shares one panel more), as a problem of its own: all of B read
    // once per share, A and C still once.
    const ridge::BlockingParams bp = small_blocking();
    for (const Problem& p : {Problem{300, 250, 150, 0.0f}, Problem{400, 37, 130, 2.0f}}) {
        const ridge::Traffic one = run_blocked(p, bp, 1);
        for (int threads : {2, 3}) {
            ASSERT_GE(p.m, threads * 2 * bp.MR);
            const ridge::Traffic many = run_blocked(p, bp, threads);
            EXPECT_DOUBLE_EQ(expected_slices_bytes(p, bp, threads, true), many.memory) << threads << " threads";
            EXPECT_GT(many.memory, one.memory) << threads << " threads";  // B again for every share
        }
    }
}

TEST(Report, ThreadsSplittingTheColumnsEachReadAllOfA) {
    // C at least as wide as tall: each thread runs the five loops on its own
    // share of the columns (whole NR panels, the first shares one panel more),
    // as a problem of its own: all of A read once per jc block of each share,
    // B and C still once.
    const ridge::BlockingParams bp = small_blocking();
    for (const Problem& p : {Problem{250, 300, 150, 0.0f}, Problem{37, 400, 130, 2.0f}}) {
        const ridge::Traffic one = run_blocked(p, bp, 1);
        for (int threads : {2, 3}) {
            const ridge::Traffic many = run_blocked(p, bp, threads);
            const double slices = expected_slices_bytes(p, bp, threads, false), whole = expected_memory_bytes(p, bp);
            EXPECT_DOUBLE_EQ(slices, many.memory) << threads << " threads";
            EXPECT_DOUBLE_EQ(whole, one.memory);
            // A again for every share's jc blocks: more than one thread reads
            // wherever the shares' blocks outnumber its blocks (whole NR panels a
            // block can leave them even: n = 300, NC = 30, NR = 6, 10 = 5 + 5).
            EXPECT_EQ(slices > whole, many.memory > one.memory) << threads << " threads";
        }
    }
}

// One reported call C = op(A) * B on A = 0.5 (lda floats between its columns;
// transposed: A stored k x m), B = 0.25, C written: its report, and whether
// every C(i, j) came out k / 8.
struct ReportedCall {
    ridge_report report = {};
    bool c_right = false;
};
ReportedCall reported_call(int64_t m, int64_t n, int64_t k, int64_t lda, bool trans_a = false) {
    std::vector<float> a(lda * (trans_a ? m : k), 0.5f), b(k * n, 0.25f), c(m * n, 0.0f);
    ReportedCall out;
    ridge_set_report(1);
    const ridge_status status = ridge_sgemm(RIDGE_COL_MAJOR, trans_a ? RIDGE_TRANS : RIDGE_NO_TRANS, RIDGE_NO_TRANS,
                                            m, n, k, 1.0f, a.data(), lda, b.data(), k, 0.0f, c.data(), m);
    ridge_set_report(0);
    if (status != RIDGE_SUCCESS || ridge_last_report(&out.report) != RIDGE_SUCCESS) return out;
    out.c_right = std::all_of(c.begin(), c.end(), [k](float x) { return x == 0.5f * 0.25f * float(k); });
    return out;
}

// The small path reads op(A) from L2 once per NR columns of C and B once: its
// report says so (and nothing about a blocking it did not use).
TEST(Report, SmallPathCountsAOncePerColumnTile) {
    if (ridge::runtime_config().gemm(ridge::Dtype::f32).kernel->small_f32 == nullptr) GTEST_SKIP() << "no small kernel";
    const int64_t m = 70, n = 50, k = 40;
    const ReportedCall call = reported_call(m, n, k, m);
    ASSERT_STREQ("small", call.report.path);
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    const double column_tiles = double(ceil_div(n, ker->NR));
    EXPECT_DOUBLE_EQ(4.0 * (double(m) * k * column_tiles + double(k) * n), call.report.l2_to_l1_bytes);
    EXPECT_DOUBLE_EQ(call.report.ideal_bytes, call.report.memory_bytes);
    EXPECT_EQ(0, call.report.KC);
    EXPECT_TRUE(call.c_right);
}

// Where op(A) outgrows the small path's block of rows (half of L2), B's
// columns are read once per block: the report counts them that many times.
// 500 x 100 x 512: op(A) 1000 KiB, a column tile of B 24 KiB (NR = 12),
// smaller than L1 (32 or 48 KiB); two blocks on a 1 MiB L2, one on a 2 MiB L2
// (skipped there). (At 512 rows, A's columns 2 KiB apart, the blocked path
// takes it: paths.cpp, small_path_reads_a_in_blocks_on_few_l1_sets.)
TEST(Report, SmallPathCountsBOncePerBlockOfRows) {
    const int64_t m = 500, n = 100, k = 512;
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (ker->small_f32 == nullptr) GTEST_SKIP() << ker->name << " has no small kernel";
    ridge::GemmArgs g;
    g.m = m, g.n = n, g.k = k, g.lda = m;
    const int64_t blocks = ridge::small_row_blocks(g, *ker, ridge::small_path_a_block_floats(*ker, k));
    if (blocks < 2) GTEST_SKIP() << "op(A) of " << m << " x " << k << " is one block of rows on this machine";
    const ReportedCall call = reported_call(m, n, k, m);
    ASSERT_STREQ("small", call.report.path);
    const double column_tiles = double(ceil_div(n, ker->NR));
    EXPECT_DOUBLE_EQ(4.0 * (double(m) * k * column_tiles + double(k) * n * double(blocks)), call.report.l2_to_l1_bytes);
    EXPECT_TRUE(call.c_right);
}

// Deep problems run the small path a KC step at a time over all
// of C (Kernels.DispatchTakesSmallPathForDeepProblems): C passes
// between L2 and L1 once more, read and written, per step after the first.
TEST(Report, SmallPathWithKStepsOutsideCountsCOncePerStep) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const ridge::GemmKernel* ker = cfg.gemm(ridge::Dtype::f32).kernel;
    if (ker->small_f32 == nullptr) GTEST_SKIP() << ker->name << " has no small kernel";
    // 128 x 128, op(A) four times half of L2 deep (KC well below k).
    const int64_t m = 128, n = 128, k = std::max<int64_t>(4 * cfg.small_a_block_floats / m, 4 * 1024) + 3;
    ridge_set_num_threads(1);
    const ReportedCall call = reported_call(m, n, k, m);
    ridge_set_num_threads(0);
    ASSERT_STREQ("small", call.report.path);
    ridge::GemmArgs g;
    g.m = m, g.n = n, g.k = k, g.lda = m, g.ldb = k;
    const double column_tiles = double(ceil_div(n, ridge::small_column_tile_width(g, *ker)));
    const double passes_over_k = double(call.report.l2_to_l1_bytes - 4.0 * (double(m) * k * column_tiles + double(k) * n)) /
                                 (8.0 * m * n);
    EXPECT_GE(passes_over_k, 3.0) << "C's extra passes, one per KC step after the first";
    EXPECT_EQ(passes_over_k, std::floor(passes_over_k));
    EXPECT_TRUE(call.c_right);
}

// Few rows on the blocked path with B larger than the last-level cache: KC
// grows by the times the model's block of A (MC rows) holds m's rows, at most
// 4 (paths.cpp, blocking_for_thin_m); a tall A, or a B that fits the cache,
// keeps the model's KC. The report gives the blocking the call used.
TEST(Report, FewRowsOnTheBlockedPathGrowKcWhenBComesFromMemory) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const ridge::BlockingParams model = cfg.gemm(ridge::Dtype::f32).blocking;
    for (int64_t m : {int64_t{96}, model.MC / 3, 2 * model.MC})
        for (bool b_from_memory : {true, false}) {
            // k: op(A) larger than the small path takes (and several model KC steps), a
            // multiple of 12 KC: no remainder for KC grown 2, 3 or 4 times, so
            // blocking_for_k_remainder leaves it alone.
            const int64_t small_k = int64_t(cfg.small_max_a_floats) / m + 1;
            const int64_t k = ceil_div(std::max(4 * model.KC + 3, small_k), 12 * model.KC) * 12 * model.KC;
            const int64_t llc_columns = int64_t(cfg.last_level_cache_bytes / (4.0 * double(k)));
            const int64_t n = b_from_memory ? llc_columns + 1 : std::max<int64_t>(100, llc_columns / 2);
            SCOPED_TRACE("m = " + std::to_string(m) + ", n = " + std::to_string(n) + ", k = " + std::to_string(k));
            // lda past 512 floats: a thin op(A) nearer takes the small path (thin_enough_for_small_path).
            const ReportedCall call = reported_call(m, n, k, std::max<int64_t>(m, 640));
            ASSERT_STREQ("blocked", call.report.path);
            const int64_t rows = ceil_div(m, model.MR) * model.MR;
            const int64_t times = std::min<int64_t>(4, model.MC / rows);
            EXPECT_EQ(b_from_memory && times >= 2 ? times * model.KC : model.KC, call.report.KC);
            EXPECT_TRUE(call.c_right);
        }
}

// One block of A (m <= MC) with op(B) transposed on one thread: the k steps
// run outside the jc loop with B panels sized for L2 (runs_k_steps_outside_jc
// in blocked_schedule.cpp). The report gives the smaller NC, a panel within half of
// L2, and the memory traffic shows A packed once per k step, not once per jc
// block: each matrix read once, C once per KC step.
TEST(Report, OneBlockWithBTransposedRunsItsKStepsOutsideJc) {
    const ridge::BlockingParams model = ridge::runtime_config().gemm(ridge::Dtype::f32).blocking;
    const double l2_bytes = double(ridge::machine_topology().l2.size_bytes);
    // More rows than the skinny path on C^T ever takes (kSkinnyMaxN), one block of A.
    const int64_t m = ridge::kSkinnyMaxN + 32, k = 2 * model.KC + model.KC / 2;  // a remainder blocking_for_k_remainder keeps
    const int64_t n = int64_t(l2_bytes / (4.0 * double(model.KC))) * 2 + 7;  // several L2-sized panels
    std::vector<float> a(m * k, 0.5f), b(n * k, 0.25f), c(m * n, 0.0f);
    ridge::set_thread_count_override(1);
    ridge_set_report(1);
    ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_TRANS, m, n, k, 1.0f, a.data(), m,
                                         b.data(), n, 0.0f, c.data(), m));
    ridge_set_report(0);
    ridge::set_thread_count_override(0);
    ridge_report r;
    ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
    ASSERT_STREQ("blocked", r.path);
    EXPECT_LT(r.NC, std::min<int64_t>(model.NC, n));
    EXPECT_GE(r.NC, r.NR);
    EXPECT_LE(double(r.NC) * double(r.KC) * 4.0, l2_bytes / 2);
    ASSERT_GT(n, r.NC + r.NC / 8);  // more than one jc block
    const double kc_steps = double(ceil_div(k, r.KC));
    EXPECT_DOUBLE_EQ(4.0 * (double(m) * k + double(k) * n + double(m) * n * (1.0 + 2.0 * (kc_steps - 1))),
                     r.memory_bytes);
    EXPECT_TRUE(std::all_of(c.begin(), c.end(), [k](float x) { return x == 0.5f * 0.25f * float(k); }));
}

// A last KC step of a few k steps is spread over the others where C is larger
// than the last-level cache (blocking_for_k_remainder in paths.cpp); with C
// in cache, or a remainder of a quarter of KC or more, KC stays the model's.
TEST(Report, SmallKRemainderSpreadOverTheStepsWhenCComesFromMemory) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const ridge::GemmChoice& choice = cfg.gemm(ridge::Dtype::f32);
    const ridge::BlockingParams model = choice.blocking;
    const int64_t group = choice.kernel->k_group;
    const int64_t m = model.MC / 2 + model.MR;  // more than half of MC: no thin-m rule (KC grown)
    const int64_t c_columns = int64_t(cfg.last_level_cache_bytes / (4.0 * double(m))) + 1;
    struct Case {
        int64_t n, k;
        int64_t expected_kc;
    } cases[] = {
        {c_columns, 2 * model.KC + 5, ceil_div(ceil_div(2 * model.KC + 5, 2), group) * group},  // C from memory
        {c_columns, 2 * model.KC + model.KC / 2, model.KC},  // a remainder of half of KC
        {c_columns / 2, 2 * model.KC + 5, model.KC},         // C in cache
    };
    for (const Case& cs : cases) {
        SCOPED_TRACE("n = " + std::to_string(cs.n) + ", k = " + std::to_string(cs.k));
        // lda past 512 floats: nearer, these few rows take the small path (thin_enough_for_small_path).
        const int64_t lda = std::max<int64_t>(m, 640);
        std::vector<float> a(lda * cs.k, 0.5f), b(cs.k * cs.n, 0.25f), c(m * cs.n, 0.0f);
        ridge_set_report(1);
        ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, cs.n, cs.k, 1.0f,
                                             a.data(), lda, b.data(), cs.k, 0.0f, c.data(), m));
        ridge_set_report(0);
        ridge_report r;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
        ASSERT_STREQ("blocked", r.path);
        EXPECT_EQ(cs.expected_kc, r.KC);
        const int64_t k = cs.k;
        EXPECT_TRUE(std::all_of(c.begin(), c.end(), [k](float x) { return x == 0.5f * 0.25f * float(k); }));
    }
}

// A k a little beyond KC (at most twice it) runs in one KC step where the
// micro-panel of B that deep takes at most three quarters of L1 and the block
// of A that deep (m rows, at most MC) no more than MC x KC floats, MC the
// model's (blocking_for_k_in_one_step in paths.cpp); a k past twice KC
// keeps the model's blocking, and so does a block of MC rows. The report
// gives the blocking the call used, and (one thread, one block of A) its
// memory traffic one pass over C, written once, never read.
TEST(Report, KALittleBeyondKcRunsInOneStep) {
    const ridge::GemmChoice& choice = ridge::runtime_config().gemm(ridge::Dtype::f32);
    const ridge::BlockingParams model = choice.blocking;
    const ridge::GemmKernel& ker = *choice.kernel;
    const int64_t l1_bytes = int64_t(ridge::machine_topology().l1.size_bytes);
    // Two thirds of MC rows (a block of A within MC x KC at 1.5 KC deep) and
    // more than MC; A's columns at least 648 floats apart, past what the small
    // path takes (512, or 640 for square-like shapes). C and B well inside the
    // cache: C within half of it (a C past it would spread a short last KC
    // step over the others: blocking_for_k_remainder; with the 48 KiB L1's MC
    // of 1792 and a 4 MiB cache, 300 columns of 2 MC rows would be past it).
    for (const int64_t m : {2 * model.MC / 3 - 5, 2 * model.MC + 7}) {
        for (const int64_t k : {model.KC + model.KC / 2, 2 * model.KC + 3}) {
            SCOPED_TRACE("m = " + std::to_string(m) + ", k = " + std::to_string(k));
            const double c_floats_in_half_cache = ridge::runtime_config().last_level_cache_bytes / 2 / 4.0;
            const int64_t n = std::min<int64_t>(300, int64_t(c_floats_in_half_cache / double(m)));
            const bool fits_l1 = 4 * ridge::panel_depth(k) * model.NR * ker.packed_bytes <= 3 * l1_bytes;
            const bool block_fits = std::min(m, model.MC) * k <= model.MC * model.KC;
            const bool one_step = k <= 2 * model.KC && fits_l1 && block_fits;
            ridge::set_thread_count_override(1);  // one thread: each matrix read once in all
            const ReportedCall call = reported_call(m, n, k, std::max<int64_t>(m, 648));
            ridge::set_thread_count_override(0);
            ASSERT_STREQ("blocked", call.report.path);
            const int64_t kc = ceil_div(k, ker.k_group) * ker.k_group;
            EXPECT_EQ(one_step ? kc : model.KC, call.report.KC);
            EXPECT_EQ(model.MC, call.report.MC);
            if (one_step)  // A and B read once, C written once
                EXPECT_DOUBLE_EQ(4.0 * (double(m) * k + double(k) * n + double(m) * n), call.report.memory_bytes);
            EXPECT_TRUE(call.c_right);
        }
    }
}

// Few columns of C (at most 128: about 10 micro-panels of B) keep two KC
// steps where the one step's block of A would take 3/8 of L2 or more (its
// source then falls out of L2 beside it: few_micro_panels_share_a_large_block
// in paths.cpp); 300 columns take the one step. 512 rows (a block of MC rows
// at most), k 1.5 KC, A's columns 648 floats apart (past the small path's).
TEST(Report, FewColumnsKeepTwoKcStepsForALargeBlockOfA) {
    const ridge::GemmChoice& choice = ridge::runtime_config().gemm(ridge::Dtype::f32);
    const ridge::BlockingParams model = choice.blocking;
    const ridge::GemmKernel& ker = *choice.kernel;
    const int64_t l1_bytes = int64_t(ridge::machine_topology().l1.size_bytes);
    const double l2_bytes = double(ridge::machine_topology().l2.size_bytes);
    const int64_t m = 512, k = model.KC + model.KC / 2;
    const bool fits_l1 = 4 * ridge::panel_depth(k) * model.NR * ker.packed_bytes <= 3 * l1_bytes;
    const int64_t rows = std::min(m, model.MC);
    if (!fits_l1 || rows * k > model.MC * model.KC) GTEST_SKIP() << "k = 1.5 KC is not one step for this kernel here";
    const bool large_block = double(ker.packed_bytes) * double(rows) * double(k) >= 3.0 / 8.0 * l2_bytes;
    for (const int64_t n : {int64_t{100}, int64_t{300}}) {
        SCOPED_TRACE("n = " + std::to_string(n) + (large_block ? ", a large block of A" : ""));
        ridge::set_thread_count_override(1);
        const ReportedCall call = reported_call(m, n, k, 648);
        ridge::set_thread_count_override(0);
        ASSERT_STREQ("blocked", call.report.path);
        const bool two_steps = n <= 128 && large_block;
        const int64_t kc = ceil_div(k, ker.k_group) * ker.k_group;
        EXPECT_EQ(two_steps ? model.KC : kc, call.report.KC);
        EXPECT_TRUE(call.c_right);
    }
}

// The same rule for fp16 and bf16 inputs where their kernel packs them to
// fp32 (packed_bytes 4: KC grows); a kernel with 16-bit panels keeps the
// model's KC. A and B hold 0.5 and 0.25 (exact in both formats).
TEST(Report, FewRowsGrowKcForSixteenBitInputsPackedToFp32) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    using Gemm16 = ridge_status (*)(ridge_layout, ridge_transpose, ridge_transpose, int64_t, int64_t, int64_t, float,
                                    const uint16_t*, int64_t, const uint16_t*, int64_t, float, float*, int64_t);
    struct Format {
        ridge::Dtype dtype;
        Gemm16 gemm;
        uint16_t half, quarter;  // 0.5 and 0.25
    };
    for (const Format& f : {Format{ridge::Dtype::f16, ridge_gemm_f16, 0x3800, 0x3400},
                            Format{ridge::Dtype::bf16, ridge_gemm_bf16, 0x3f00, 0x3e80}}) {
        const ridge::GemmChoice& choice = cfg.gemm(f.dtype);
        const ridge::BlockingParams model = choice.blocking;
        const int64_t m = 96, k = 12 * model.KC;  // no remainder (see above)
        for (bool b_from_memory : {true, false}) {
            const int64_t llc_columns = int64_t(cfg.last_level_cache_bytes / (2.0 * double(k)));
            const int64_t n = b_from_memory ? llc_columns + 1 : std::max<int64_t>(100, llc_columns / 2);
            SCOPED_TRACE(std::string(choice.kernel->name) + ", n = " + std::to_string(n));
            std::vector<uint16_t> a(m * k, f.half), b(k * n, f.quarter);
            std::vector<float> c(m * n, 0.0f);
            ridge_set_report(1);
            ASSERT_EQ(RIDGE_SUCCESS, f.gemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, n, k, 1.0f, a.data(), m,
                                            b.data(), k, 0.0f, c.data(), m));
            ridge_set_report(0);
            ridge_report r;
            ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
            ASSERT_STREQ("blocked", r.path);
            const int64_t rows = ceil_div(m, model.MR) * model.MR;
            const int64_t times = std::min<int64_t>(4, model.MC / rows);
            const bool grows = b_from_memory && choice.kernel->packed_bytes == 4 && times >= 2;
            EXPECT_EQ(grows ? times * model.KC : model.KC, r.KC);
            EXPECT_TRUE(std::all_of(c.begin(), c.end(), [k](float x) { return x == 0.5f * 0.25f * float(k); }));
        }
    }
}

// Between 24 and 48 columns of C the skinny path takes 320 rows and more
// where A does not fit L2 (paths.cpp: skinny_wide_min_rows), where past 24
// columns it otherwise wants 512: below the floor, with A within L2, or 64
// columns, the call stays off it, on one thread as on two (up to 64 only on a
// call too small for a team: the path must not change with the thread count).
TEST(Report, SkinnyPathFromFewerRowsWhereADoesNotFitL2) {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (ker->skinny == nullptr) GTEST_SKIP() << ker->name << " has no skinny kernel";
    const double l2_bytes = double(ridge::machine_topology().l2.size_bytes);
    auto k_for = [&](int64_t m, double l2s) { return int64_t(l2s * l2_bytes / (4.0 * double(m))); };
    auto path = [&](int64_t m, int64_t n, int64_t k, int threads) {
        ridge_set_num_threads(threads);
        const ReportedCall call = reported_call(m, n, k, m);
        ridge_set_num_threads(0);
        EXPECT_TRUE(call.c_right) << m << " x " << n << " x " << k;
        return std::string(call.report.path) + (call.report.threads > 1 ? " team" : "");
    };
    EXPECT_EQ("skinny", path(384, 32, k_for(384, 1.5), 1));
    EXPECT_EQ("skinny", path(320, 48, k_for(320, 1.5), 1));
    EXPECT_NE("skinny", path(384, 32, k_for(384, 0.75), 1));  // A within L2
    EXPECT_NE("skinny", path(256, 32, k_for(256, 1.5), 1));   // below the floor
    EXPECT_EQ("skinny team", path(384, 48, k_for(384, 1.5), 2));
    for (int threads : {1, 2}) {
        const std::string wide = path(384, 64, k_for(384, 1.5), threads);
        EXPECT_NE("skinny team", wide) << threads << " thread(s)";
        EXPECT_NE("skinny", wide) << threads << " thread(s)";
    }
}

// The few-rows path (outer-product form, 32 rows: groups of 12 columns) reads
// its packed 32 x k panel of A once per group and B once; its report says so.
TEST(Report, FewRowsPathCountsAOncePerColumnGroup) {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (ker->few_rows_outer == nullptr) GTEST_SKIP() << ker->name << " has no outer-product few-rows kernel";
    const int64_t m = 30, n = 200, k = 1000;
    const ReportedCall call = reported_call(m, n, k, 700);  // above 160^3, A's columns far apart: not the small path's
    ASSERT_STREQ("skinny_m", call.report.path);
    const double groups = double(ceil_div(n, 12));
    EXPECT_DOUBLE_EQ(4.0 * (32.0 * k * groups + double(k) * n), call.report.l2_to_l1_bytes);
    EXPECT_DOUBLE_EQ(call.report.ideal_bytes, call.report.memory_bytes);
    EXPECT_TRUE(call.c_right);
}

// Where its packed panel of A (40 rows: 48 x k) outgrows half of L2, the
// few-rows path reads it in passes over k, each group of columns its slice per
// pass: the panel still once per group, B once, and C read and written once
// more per pass after the first, which the report counts in memory traffic.
// Three passes: k just over two of the longest passes half of L2 allows.
TEST(Report, FewRowsPathInPassesCountsCOncePerPass) {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (ker->few_rows_outer == nullptr) GTEST_SKIP() << ker->name << " has no outer-product few-rows kernel";
    const int64_t m = 40, n = 100;
    const int64_t longest_pass = int64_t(ridge::machine_topology().l2.size_bytes) / 2 / (4 * 48) / 16 * 16;
    const int64_t k = 2 * longest_pass + 100;
    const ReportedCall call = reported_call(m, n, k, 600);  // A's columns far apart: not the small path's
    ASSERT_STREQ("skinny_m", call.report.path);
    const double groups = double(ceil_div(n, 8));  // three vectors of rows: 8 columns a group
    EXPECT_DOUBLE_EQ(4.0 * (48.0 * k * groups + double(k) * n), call.report.l2_to_l1_bytes);
    EXPECT_DOUBLE_EQ(call.report.ideal_bytes + 2 * 8.0 * m * n, call.report.memory_bytes);
    EXPECT_TRUE(call.c_right);
    // fp16 inputs take passes up to 32 rows only (paths.cpp: kOuterPassesMaxRows16Bit).
    for (int64_t rows : {int64_t{32}, int64_t{40}}) {
        const uint16_t half = 0x3800, quarter = 0x3400;  // 0.5 and 0.25 in fp16
        std::vector<uint16_t> a(600 * k, half), b(k * n, quarter);
        std::vector<float> c(rows * n, 0.0f);
        ridge_set_report(1);
        ASSERT_EQ(RIDGE_SUCCESS, ridge_gemm_f16(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, rows, n, k, 1.0f,
                                                a.data(), 600, b.data(), k, 0.0f, c.data(), rows));
        ridge_set_report(0);
        ridge_report r;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
        EXPECT_STREQ(rows <= 32 ? "skinny_m" : "blocked", r.path) << rows << " rows";
        EXPECT_TRUE(std::all_of(c.begin(), c.end(), [k](float x) { return x == 0.5f * 0.25f * float(k); }));
    }
}

// Few columns with A transposed run the few-rows path on C^T (30 columns: a
// 32-row panel of B^T, groups of 12 of A's 600 columns): the report counts
// the panel once per group and A once, and names the path.
TEST(Report, FewColumnsOfATransposedACountBOncePerGroupOfRows) {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (ker->few_rows_outer == nullptr) GTEST_SKIP() << ker->name << " has no outer-product few-rows kernel";
    const int64_t m = 600, n = 30, k = 1000;  // more than 512 rows: not the small path's
    const ReportedCall call = reported_call(m, n, k, k, true);
    ASSERT_STREQ("skinny_trans_a", call.report.path);
    const double groups = double(ceil_div(m, 12));
    EXPECT_DOUBLE_EQ(4.0 * (32.0 * k * groups + double(k) * m), call.report.l2_to_l1_bytes);
    EXPECT_DOUBLE_EQ(call.report.ideal_bytes, call.report.memory_bytes);
    EXPECT_TRUE(call.c_right);
}

// Few rows with B transposed run the skinny path on C^T (30 rows of C: 32-step
// chunks when B comes from memory, 64 from a cache): the report names the path
// and counts C^T read and written from L2 once per chunk; memory traffic is the
// ideal (each operand once).
TEST(Report, FewRowsOfBTransposedRunTheSkinnyPathOnCTransposed) {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (ker->skinny == nullptr) GTEST_SKIP() << ker->name << " has no skinny kernel";
    const int64_t m = 30, n = 700, k = 1000;  // more than 512 columns: not the small path's
    std::vector<float> a(m * k, 0.5f), b(n * k, 0.25f), c(m * n, 0.0f);
    ridge_set_report(1);
    ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_TRANS, m, n, k, 1.0f, a.data(), m,
                                         b.data(), n, 0.0f, c.data(), m));
    ridge_set_report(0);
    ridge_report r;
    ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
    ASSERT_STREQ("skinny_trans_b", r.path);
    // The sweep's A is B here: its chunk depends on whether B fits the last-level cache.
    const bool b_from_memory = ridge::exceeds_last_level_cache(ridge::runtime_config(), 4.0 * double(n) * double(k));
    ridge::GemmArgs g;
    g.m = m, g.n = n, g.k = k, g.trans_b = true, g.lda = m, g.ldb = n, g.ldc = m;
    const ridge::GemmKernel& kernel = *ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    const double chunks = double(ceil_div(k, ridge::skinny_sweep_chunk(g, kernel, b_from_memory, true)));
    EXPECT_DOUBLE_EQ(8.0 * m * n * chunks, r.l2_to_l1_bytes);
    EXPECT_DOUBLE_EQ(r.ideal_bytes, r.memory_bytes);
    EXPECT_TRUE(std::all_of(c.begin(), c.end(), [k](float x) { return x == 0.5f * 0.25f * float(k); }));
}

TEST(Report, ApiRecordsOnlyWhenAskedAndDescribesTheCall) {
    // 700 rows: taller than the small path takes (paths.cpp), so the blocked path runs.
    std::vector<float> a(700 * 200, 0.5f), b(200 * 250, 0.25f), c(700 * 250, 0.0f);
    ridge_report r;
    std::thread fresh([&] {  // a thread that never asked: nothing recorded
        ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, 700, 250, 200, 1.0f,
                                             a.data(), 700, b.data(), 200, 0.0f, c.data(), 700));
        EXPECT_EQ(RIDGE_INVALID_ARGUMENT, ridge_last_report(&r));
    });
    fresh.join();
    EXPECT_EQ(RIDGE_INVALID_ARGUMENT, ridge_last_report(nullptr));
    ridge_set_report(1);
    ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, 700, 250, 200, 1.0f,
                                         a.data(), 700, b.data(), 200, 0.0f, c.data(), 700));
    ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
    EXPECT_STREQ("gemm", r.routine);
    EXPECT_STREQ("f32", r.input);
    EXPECT_STREQ("blocked", r.path);
    EXPECT_EQ(700, r.m);
    EXPECT_EQ(250, r.n);
    EXPECT_EQ(200, r.k);
    EXPECT_DOUBLE_EQ(2.0 * 700 * 250 * 200, r.flops);
    EXPECT_DOUBLE_EQ(4.0 * (700.0 * 200 + 200.0 * 250 + 700.0 * 250), r.ideal_bytes);
    EXPECT_GE(r.memory_bytes, r.ideal_bytes);  // no schedule moves less than each matrix once
    EXPECT_GT(r.seconds, 0.0);
    EXPECT_NE(nullptr, r.hw_counters);
    if (r.measured_memory_bytes < 0) EXPECT_NE(nullptr, std::strstr(r.hw_counters, "unavailable"));

    // GEMV: A read once, and said so.
    std::vector<float> x(200, 1.0f), y(300, 0.0f);
    ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemv(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, 300, 200, 1.0f, a.data(), 300, x.data(), 1,
                                         0.0f, y.data(), 1));
    ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
    EXPECT_STREQ("gemv", r.routine);
    EXPECT_DOUBLE_EQ(2.0 * 300 * 200, r.flops);
    EXPECT_DOUBLE_EQ(r.ideal_bytes, r.memory_bytes);

    ridge_set_report(0);
    ridge_report before = r;
    ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, 10, 10, 10, 1.0f, a.data(),
                                         10, b.data(), 10, 0.0f, c.data(), 10));
    ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
    EXPECT_EQ(before.m, r.m) << "a call made with reporting off replaced the last report";
}

}  // namespace
