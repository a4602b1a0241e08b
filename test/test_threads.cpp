// Threading: results independent of the thread count (bit for bit), work really
// shared when asked, calls from several threads at once, and calls from inside a
// caller's OpenMP parallel region.
//
// The tests named CallerParallel* run in their own ctest entry (see CMakeLists.txt):
// a deadlock there is detected by a watchdog, and the threads it leaves stuck must
// not be in the same process as the other tests. Env.* needs an environment
// variable set, and runs in an entry of its own too.
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dispatch/dispatch.h"
#include "gemm/claim.h"
#include "gemm/gemm.h"
#include "gemm_check.h"
#include "ridge/cblas.h"
#include "ridge/ridge.h"
#include "tuning/topology.h"

using namespace ridge_test;

namespace {

// ridge_sgemm on column-major operands of `call` (C's storage given separately).
ridge_status native(const Call& c, const float* a, const float* b, float* cc) {
    return ridge_sgemm(RIDGE_COL_MAJOR, c.ta ? RIDGE_TRANS : RIDGE_NO_TRANS, c.tb ? RIDGE_TRANS : RIDGE_NO_TRANS,
                       c.m, c.n, c.k, c.alpha, a, c.lda(), b, c.ldb(), c.beta, cc, c.ldc());
}

ridge::GemmArgs args_for(const Call& c, const float* a, const float* b, float* cc) {
    ridge::GemmArgs g;
    g.trans_a = c.ta, g.trans_b = c.tb, g.m = c.m, g.n = c.n, g.k = c.k;
    g.alpha = c.alpha, g.beta = c.beta;
    g.a = a, g.lda = c.lda(), g.b = b, g.ldb = c.ldb(), g.c = cc, g.ldc = c.ldc();
    return g;
}

// Restores the calling thread's default thread count when a test ends, however it ends.
struct ThreadCountGuard {
    ~ThreadCountGuard() { ridge_set_num_threads(0); }
};

// The call `c` with 1 and then 2 threads (ridge_set_num_threads): C must be
// identical bit for bit, and right. The shape must be big enough for the
// library to really use two threads, which this checks through threads_for().
void expect_one_and_two_threads_bit_identical(const Call& c, std::mt19937& rng) {
    SCOPED_TRACE(c.describe());
    ridge_set_num_threads(2);
    ASSERT_EQ(2, ridge::threads_for(2.0 * double(c.m) * double(c.n) * double(c.k)))
        << "shape too small: the library would not use two threads";
    Operands ops(c, rng);
    Guarded c2 = ops.c;  // the same starting C for the second run
    const auto expect = expected_c(c, ops.a.data(), ops.b.data(), ops.c.data());

    ridge_set_num_threads(1);
    ASSERT_EQ(RIDGE_SUCCESS, native(c, ops.a.data(), ops.b.data(), ops.c.data()));
    ridge_set_num_threads(2);
    ASSERT_EQ(RIDGE_SUCCESS, native(c, ops.a.data(), ops.b.data(), c2.data()));

    ASSERT_TRUE(matches(c, ops.c, expect, bound_for(c)));
    ASSERT_TRUE(c2.untouched_outside());
    ASSERT_EQ(0, std::memcmp(ops.c.data(), c2.data(), sizeof(float) * size_t(c.ldc() * c.n)))
        << "1 and 2 threads differ";
}

TEST(Threads, OneAndTwoThreadsBitIdentical) {
    ASSERT_GE(omp_get_thread_limit(), 2) << "OpenMP may not start two threads here";
    const uint32_t seed = test_seed();
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    ThreadCountGuard restore;
    struct S {
        int64_t m, n, k;
    };
    std::vector<S> shapes = {{300, 300, 300}, {37, 1000, 300}, {1000, 13, 800}, {64, 2100, 64}, {513, 257, 129}};
    // 250^3 is 31 MFLOP: enough for two threads at any draw.
    std::uniform_int_distribution<int64_t> dim(250, 450);
    for (int i = 0; i < 3; ++i) shapes.push_back({dim(rng), dim(rng), dim(rng)});
    int serial = 0;
    for (const S& s : shapes) {
        Call c;
        c.m = s.m, c.n = s.n, c.k = s.k, c.ta = serial & 1, c.tb = serial & 2;
        c.alpha = 1.5f, c.beta = serial % 3 == 0 ? 0.0f : -0.5f, c.ldc_pad = serial % 2;
        ++serial;
        expect_one_and_two_threads_bit_identical(c, rng);
        if (HasFatalFailure()) return;
    }
}

// Which path a call takes must not change with the thread count asked for,
// where the paths' bits differ: the skinny path (few columns, its k chunks
// each updating C) against the blocked or small paths (KC steps). 384 rows by
// 49-64 columns with A beyond L2 took the skinny path on one thread (up to 64
// columns there) and not on two (up to 48), and C differed (paths.cpp:
// runs_on_one_thread). A as stored, B either way.
TEST(Threads, PathDoesNotFollowTheThreadCountAsked) {
    ASSERT_GE(omp_get_thread_limit(), 2) << "OpenMP may not start two threads here";
    const uint32_t seed = test_seed();
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    ThreadCountGuard restore;
    const int64_t m = 384, l2_floats = ridge::machine_topology().l2.size_bytes / 4;
    const int64_t k_beyond_l2 = l2_floats * 5 / 4 / m + 7;
    for (const int64_t n : {int64_t{56}, int64_t{60}})
        for (const bool tb : {false, true}) {
            Call c;
            c.m = m, c.n = n, c.k = k_beyond_l2, c.ta = false, c.tb = tb;
            c.alpha = 0.75f, c.beta = tb ? 0.0f : -0.5f;
            expect_one_and_two_threads_bit_identical(c, rng);
            if (HasFatalFailure()) return;
        }
}

// A C written once and larger than the LLC is streamed out (non-temporal
// stores) and its panels are claimed in shrinking batches: 1 and 2 threads
// give the same bits, every element right, nothing outside C written.
TEST(Threads, StreamedCOneAndTwoThreadsBitIdentical) {
    ASSERT_GE(omp_get_thread_limit(), 2) << "OpenMP may not start two threads here";
    const ridge::GemmChoice& choice = ridge::runtime_config().gemm(ridge::Dtype::f32);
    if (choice.kernel->ukr_stream_c == nullptr) GTEST_SKIP() << choice.kernel->name << " has no C-streaming twin";
    const uint32_t seed = test_seed() + 31;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    ThreadCountGuard restore;
    const int64_t m = 1024, k = 24, ldc = 1040;  // ldc: whole 64-byte lines, rows past m never written
    const int64_t n = int64_t(ridge::runtime_config().stream_c_min_bytes / (4.0 * m)) + 37;
    std::vector<float> a(size_t(m * k)), b(size_t(k * n));
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    const size_t c_floats = size_t(ldc * n);
    using CBuffer = std::unique_ptr<float, decltype(&std::free)>;
    const CBuffer one(static_cast<float*>(std::aligned_alloc(64, c_floats * 4)), &std::free);
    const CBuffer two(static_cast<float*>(std::aligned_alloc(64, c_floats * 4)), &std::free);
    ASSERT_TRUE(one && two);
    for (float* c : {one.get(), two.get()}) {
        for (size_t i = 0; i < c_floats; ++i) c[i] = quiet_nan();
        ridge::GemmArgs g;
        g.m = m, g.n = n, g.k = k, g.alpha = 0.5f, g.beta = 0.0f;
        g.a = a.data(), g.lda = m, g.b = b.data(), g.ldb = k, g.c = c, g.ldc = ldc;
        ridge_set_num_threads(c == one.get() ? 1 : 2);
        ridge_set_report(1);
        ASSERT_EQ(RIDGE_SUCCESS, ridge::dispatch_gemm(g));
        ridge_set_report(0);
        ridge_report r;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
        EXPECT_STREQ("blocked_stream_c", r.path);
        EXPECT_EQ(c == one.get() ? 1 : 2, r.threads);
    }
    ASSERT_EQ(0, std::memcmp(one.get(), two.get(), c_floats * sizeof(float))) << "1 and 2 threads differ";
    const double bound = gemm_error_bound(k, 0.5f, 1.0, 1.0, 0.0f, 1.0);
    for (int64_t j = 0; j < n; j += 61)
        for (int64_t i = 0; i < ldc; ++i) {
            const float got = two.get()[i + j * ldc];
            if (i >= m) {
                ASSERT_TRUE(std::isnan(got)) << "row " << i << " of the padding written";
                continue;
            }
            double want = 0.0;
            for (int64_t p = 0; p < k; ++p) want += 0.5 * double(a[size_t(i + p * m)]) * b[size_t(p + j * k)];
            ASSERT_NEAR(want, got, bound) << "C(" << i << "," << j << ")";
        }
}

// Per-thread setting: ridge_set_num_threads changes only the calling thread's
// count, and 0 restores the default.
TEST(Threads, SetNumThreadsIsPerThread) {
    ThreadCountGuard restore;
    const int dflt = ridge_get_num_threads();
    ASSERT_GE(dflt, 1);
    ridge_set_num_threads(3);
    EXPECT_EQ(3, ridge_get_num_threads());
    int seen_elsewhere = -1;
    std::thread([&] { seen_elsewhere = ridge_get_num_threads(); }).join();
    EXPECT_EQ(dflt, seen_elsewhere);
    ridge_set_num_threads(0);
    EXPECT_EQ(dflt, ridge_get_num_threads());
}

// Restores the process-wide thread count when a test ends, however it ends.
struct GlobalThreadCountGuard {
    ~GlobalThreadCountGuard() { ridge_set_global_num_threads(0); }
};

// The count a call from a new thread would use, and the threads it would plan for a big problem.
struct SeenElsewhere {
    int count = -1, planned = -1;
};
SeenElsewhere seen_from_another_thread() {
    SeenElsewhere seen;
    std::thread([&] {
        seen.count = ridge_get_num_threads();
        seen.planned = ridge::threads_for(1e12);
    }).join();
    return seen;
}

// The global count (ridge's, OpenBLAS's and MKL's setters) reaches every
// thread without a count of its own, and the planner uses it; a thread's own
// count still wins; values the other libraries ignore are ignored.
TEST(ThreadControl, GlobalCountReachesEveryThread) {
    ThreadCountGuard restore;
    GlobalThreadCountGuard restore_global;
    const int dflt = ridge_get_num_threads();
    const std::vector<std::pair<const char*, std::function<void(int)>>> setters = {
        {"ridge_set_global_num_threads", [](int t) { ridge_set_global_num_threads(t); }},
        {"openblas_set_num_threads", [](int t) { openblas_set_num_threads(t); }},
        {"goto_set_num_threads", [](int t) { goto_set_num_threads(t); }},
        {"mkl_set_num_threads", [](int t) { mkl_set_num_threads(t); }},
        {"MKL_Set_Num_Threads", [](int t) { MKL_Set_Num_Threads(t); }},
    };
    int want = dflt;
    for (const auto& [name, set] : setters) {
        SCOPED_TRACE(name);
        want = want == 3 ? 5 : 3;  // not the count before: each setter's own effect is what is seen
        set(want);
        EXPECT_EQ(want, ridge_get_num_threads());
        EXPECT_EQ(want, openblas_get_num_threads());
        EXPECT_EQ(want, mkl_get_max_threads());
        EXPECT_EQ(want, MKL_Get_Max_Threads());
        const SeenElsewhere seen = seen_from_another_thread();
        EXPECT_EQ(want, seen.count);
        EXPECT_EQ(want, seen.planned);
        if (std::string(name) != "ridge_set_global_num_threads") {
            set(0);  // OpenBLAS and MKL ignore counts below 1
            set(-2);
            EXPECT_EQ(want, ridge_get_num_threads());
        }
    }
    ridge_set_num_threads(1);  // this thread's own count wins
    EXPECT_EQ(1, ridge_get_num_threads());
    EXPECT_EQ(1, ridge::threads_for(1e12));
    EXPECT_EQ(want, seen_from_another_thread().count);
    ridge_set_num_threads(0);
    ridge_set_global_num_threads(0);  // back to the default, on every thread
    EXPECT_EQ(dflt, ridge_get_num_threads());
    EXPECT_EQ(dflt, seen_from_another_thread().count);
}

// MKL's thread-local setter is ridge's per-thread count: it returns the
// previous thread-local count (0: none), 0 hands the thread back to the global
// count, a negative count changes nothing.
TEST(ThreadControl, MklThreadLocalCount) {
    ThreadCountGuard restore;
    GlobalThreadCountGuard restore_global;
    mkl_set_num_threads(4);
    EXPECT_EQ(0, mkl_set_num_threads_local(3));
    EXPECT_EQ(3, mkl_get_max_threads());
    EXPECT_EQ(4, seen_from_another_thread().count);
    EXPECT_EQ(3, MKL_Set_Num_Threads_Local(-1));
    EXPECT_EQ(3, ridge_get_num_threads());
    EXPECT_EQ(3, MKL_Set_Num_Threads_Local(0));
    EXPECT_EQ(4, ridge_get_num_threads());
    ridge_set_num_threads(6);  // the same per-thread count as ridge's own setter
    EXPECT_EQ(6, mkl_set_num_threads_local(0));
    EXPECT_EQ(4, ridge_get_num_threads());
}

// What OpenBLAS's remaining queries answer: the processors OpenMP sees, and 2
// (OpenBLAS's code for an OpenMP build).
TEST(ThreadControl, OpenBlasQueries) {
    EXPECT_EQ(omp_get_num_procs(), openblas_get_num_procs());
    EXPECT_EQ(2, openblas_get_parallel());
}

// `plan` run with 1, 2 and 3 threads on the same operands: the result right, A and B
// untouched, nothing outside C written, and the same bits from every thread count.
void expect_same_bits_for_one_two_three_threads(const Call& c, Operands& ops, ridge::GemmPlan plan) {
    const auto expect = expected_c(c, ops.a.data(), ops.b.data(), ops.c.data());
    std::vector<Guarded> results;
    for (int threads : {1, 2, 3}) {
        Guarded cc = ops.c;
        plan.threads = threads;
        ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(args_for(c, ops.a.data(), ops.b.data(), cc.data()), plan));
        results.push_back(cc);
    }
    ASSERT_TRUE(ops.a.untouched());
    ASSERT_TRUE(ops.b.untouched());
    ASSERT_TRUE(matches(c, results[0], expect, bound_for(c)));
    for (size_t t = 1; t < results.size(); ++t) {
        ASSERT_TRUE(results[t].untouched_outside()) << t + 1 << " threads";
        ASSERT_EQ(0, std::memcmp(results[0].data(), results[t].data(), sizeof(float) * size_t(c.ldc() * c.n)))
            << "1 and " << t + 1 << " threads differ";
    }
}

// Plans with 1, 2 and 3 threads and tiny blockings, through the driver: every
// thread count gives the same bits. Shapes cover both ways the driver splits work
// (rows of A when m >= threads * 2 * MR, else the NR panels of B).
TEST(Threads, PlansWithOneTwoThreeThreadsBitIdentical) {
    const uint32_t seed = test_seed() + 1;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    const int64_t MR = ker->MR, NR = ker->NR;
    // (The last, 2 MR + 7 rows x NR + 1 columns with B untransposed at MC = 3 MR: one
    // thread reads B in place for every tile, the partial last row of tiles too; two or
    // three split a packed B's panels and run that row through the edge kernel.)
    const int64_t shapes[][3] = {{7 * MR + 5, 5 * NR + 1, 29}, {13, 7 * NR + 2, 31}, {2 * MR + 1, 1, 17},
                                 {6 * MR, 2 * NR, 1}, {3 * MR + 2, 9 * NR - 1, 40}, {MR + 3, 3 * NR + 1, 19},
                                 {2 * MR + 7, NR + 1, 33}};
    const ridge::BlockingParams blockings[] = {{MR, NR, 8, 2 * MR, 2 * NR}, {MR, NR, 16, 3 * MR, 3 * NR}};
    int serial = 0;
    for (const auto& bp : blockings)
        for (const auto& s : shapes) {
            Call c;
            c.m = s[0], c.n = s[1], c.k = s[2], c.ta = serial & 1, c.tb = serial & 2;
            c.alpha = 0.75f, c.beta = serial % 2 ? 0.0f : 1.25f, c.ldc_pad = 2;
            ++serial;
            SCOPED_TRACE(c.describe() + " KC=" + std::to_string(bp.KC) + " MC=" + std::to_string(bp.MC));
            Operands ops(c, rng);
            // b_from_memory: one-thread schedules then run each micro-panel's first tile
            // through the small kernel (first_tile_reads_b_source), and one-block ones
            // with op(B) transposed their k steps outside jc, B panels of one micro-panel
            // (runs_k_steps_outside_jc); ir outside jr: one-thread schedules of several
            // blocks of A run each block panel of A by panel of A (runs_ir_outside_jr).
            // The bits must not move.
            for (int mode = 0; mode < 3; ++mode) {
                const bool b_from_memory = mode == 1;
                ridge::GemmPlan plan{ker, bp, 1};
                plan.b_from_memory = b_from_memory;
                plan.b_beyond_cache_share = b_from_memory;
                plan.b_panel_columns_in_l2 = b_from_memory ? NR : 0;
                plan.b_panel_columns_for_ir_outside_jr = mode == 2 ? c.n + NR : 0;
                plan.a_from_memory = mode == 2;
                SCOPED_TRACE(mode == 0 ? "B in cache" : mode == 1 ? "B from memory" : "ir outside jr");
                expect_same_bits_for_one_two_three_threads(c, ops, plan);
                if (HasFatalFailure()) return;
            }
        }
}

// The small path with 1, 2 and 3 threads (tiles of C split between them; op(A)
// packed by every thread when transposed): the same bits, every transpose pair,
// ragged edges, fewer column tiles than threads, beta 0 over NaN, and op(A) in
// one block of rows, in blocks of one row tile, and of two (taking turns);
// then again a KC step at a time over all of C (GemmPlan::small_k_steps_outside).
TEST(Threads, PlansWithOneTwoThreeThreadsOnTheSmallPath) {
    const uint32_t seed = test_seed() + 5;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (ker->small_f32 == nullptr) GTEST_SKIP() << ker->name << " has no small path";
    const int64_t MR = ker->MR, NR = ker->NR;
    const int64_t shapes[][3] = {{3 * MR + 5, 7 * NR + 1, 29}, {MR, 2 * NR, 64}, {2 * MR - 1, NR + 1, 1},
                                 {MR + 1, 2 * NR - 1, 100}, {5, 3 * NR, 7}, {4 * MR, 11 * NR + 5, 33}};
    int serial = 0;
    for (const auto& s : shapes)
        for (int t = 0; t < 4; ++t) {
            Call c;
            c.m = s[0], c.n = s[1], c.k = s[2], c.ta = t & 1, c.tb = t & 2;
            c.alpha = -0.75f, c.beta = serial % 2 ? 0.0f : 1.25f, c.lda_pad = t, c.ldc_pad = 3;
            const int64_t block_floats[] = {0, 1, 2 * MR * c.k};
            ridge::GemmPlan plan{ker, ridge::runtime_config().gemm(ridge::Dtype::f32).blocking, 1};
            plan.small_path = true;
            plan.small_a_block_floats = block_floats[serial % 3];
            ++serial;
            SCOPED_TRACE(c.describe() + ", op(A) blocks of " + std::to_string(plan.small_a_block_floats) + " floats");
            Operands ops(c, rng);
            expect_same_bits_for_one_two_three_threads(c, ops, plan);
            if (HasFatalFailure()) return;
            // The same with k steps of 16 outside the tiles (deep problems), claimed step by step.
            plan.small_k_steps_outside = true;
            plan.blocking.KC = 16;
            SCOPED_TRACE("KC steps of 16 outside the tiles");
            expect_same_bits_for_one_two_three_threads(c, ops, plan);
            if (HasFatalFailure()) return;
        }
}

// With plan.threads = 2 both OpenMP threads run microkernels (the work is shared,
// not done twice or by one thread): a spy kernel records which threads called it.
// Threads that find work left over take it (see FastThreadRunsSlowThreadsPanelsSameBits),
// so a thread that starts late could legitimately find none left: each thread's
// first spied call waits (up to 2 s) until another thread has called the kernel
// too, which a library that shares the work lets happen, and one that runs it
// all on one thread does not.
std::atomic<unsigned> g_threads_seen{0};
const ridge::GemmKernel* g_real_kernel = nullptr;
void meet_the_other_thread() {
    const unsigned me = 1u << (omp_get_thread_num() & 31);
    if (g_threads_seen.fetch_or(me) & me) return;  // not this thread's first call
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while ((g_threads_seen.load() & ~me) == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
}
void thread_spy_ukr(int64_t kc, float alpha, const void* a, const void* b, float beta, float* c, int64_t ldc) {
    meet_the_other_thread();
    g_real_kernel->ukr(kc, alpha, a, b, beta, c, ldc);
}
// The small kernel, spied on both by the small path and by the blocked path,
// which runs the first tile of a micro-panel packed per micro-panel through it
// (B read in place; at m = MR that is every tile).
void thread_spy_small(int64_t mr, int64_t nr, int64_t k, float alpha, const float* a, int64_t a_step,
                      const float* b, int64_t b_step, int64_t b_col, float beta, float* c, int64_t ldc) {
    meet_the_other_thread();
    g_real_kernel->small_f32(mr, nr, k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc);
}

// The kernel packing B in a micro-panel's first tile (packs_b_in_first_tile),
// which at m = MR runs every tile.
void thread_spy_packing_b(int64_t kc, float alpha, const void* a, const float* b, int64_t ldb, void* b_panel,
                          float beta, float* c, int64_t ldc) {
    meet_the_other_thread();
    g_real_kernel->ukr_packing_b(kc, alpha, a, b, ldb, b_panel, beta, c, ldc);
}

TEST(Threads, TwoThreadPlanRunsKernelsOnBothThreads) {
    if (omp_get_thread_limit() < 2) GTEST_SKIP() << "OMP_THREAD_LIMIT < 2: one thread is all OpenMP allows";
    const uint32_t seed = test_seed() + 2;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    g_real_kernel = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    ridge::GemmKernel spy = *g_real_kernel;
    spy.ukr = &thread_spy_ukr;
    spy.ukr_tiles = nullptr;  // one call per tile, so that the spy sees every tile
    if (spy.small_f32 != nullptr) spy.small_f32 = &thread_spy_small;
    if (spy.ukr_packing_b != nullptr) spy.ukr_packing_b = &thread_spy_packing_b;
    const int64_t MR = spy.MR, NR = spy.NR;
    // Row split (m large) and panel split (m of one tile).
    for (int64_t m : {8 * MR, MR}) {
        Call c;
        c.m = m, c.n = 8 * NR, c.k = 40, c.beta = 0.5f;
        Operands ops(c, rng);
        const auto expect = expected_c(c, ops.a.data(), ops.b.data(), ops.c.data());
        g_threads_seen = 0;
        ridge::GemmPlan plan{&spy, {MR, NR, 16, 2 * MR, 4 * NR}, 2};
        plan.b_from_memory = true;  // the small kernel's first tiles run under the spy too
        ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(args_for(c, ops.a.data(), ops.b.data(), ops.c.data()), plan));
        ASSERT_TRUE(matches(c, ops.c, expect, bound_for(c)));
        EXPECT_EQ(3u, g_threads_seen.load()) << "bitmask of OpenMP thread numbers that ran the kernel, m=" << m;
    }
}

// A team of two splits the rows of C, not its columns, where every row slice
// reads op(B) in place (row_slices_read_b_in_place in gemm_blocked.cpp: op(B)
// within L2, one KC step, beta = 0, at least five MR panels a slice), even
// with C wider than tall: each thread then packs only its own panels of A (in
// its first micro-panel's tiles, through the A-packing twin), where column
// slices would each pack all of A. A spy on the twin counts the panels packed;
// C comes out bit for bit as on one thread (three threads, too few panels for
// the rule, split the columns). With beta != 0 the first step reads C, B is
// not read in place, and the columns are split as before.
std::atomic<int> g_a_panels_packed{0};
void counting_packing_a(int64_t kc, float alpha, const float* a, int64_t lda, void* a_panel, const void* b_panel,
                        float beta, float* c, int64_t ldc) {
    ++g_a_panels_packed;
    g_real_kernel->ukr_packing_a(kc, alpha, a, lda, a_panel, b_panel, beta, c, ldc);
}

TEST(Threads, RowSlicesReadingBInPlacePackEachPanelOfAOnceWithOneThreadsBits) {
    if (omp_get_thread_limit() < 2) GTEST_SKIP() << "OMP_THREAD_LIMIT < 2: one thread is all OpenMP allows";
    const uint32_t seed = test_seed() + 9;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    g_real_kernel = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    const ridge::GemmKernel& real = *g_real_kernel;
    if (real.ukr_packing_a == nullptr || real.small_f32 == nullptr || real.small_kernel_max_volume > 0)
        GTEST_SKIP() << real.name << " reads no B in place through its small kernel or packs no A as it goes";
    ridge::GemmKernel spy = real;
    spy.ukr_packing_a = &counting_packing_a;
    const int64_t MR = spy.MR, NR = spy.NR;
    const int64_t full_panels = 10;
    for (float beta : {0.0f, 0.5f}) {
        Call c;
        c.m = full_panels * MR + 5, c.n = 28 * NR + 5, c.k = 40, c.beta = beta, c.ldc_pad = 1;  // C wider than tall
        SCOPED_TRACE(c.describe());
        Operands ops(c, rng);
        ridge::GemmPlan plan{&spy, ridge::runtime_config().gemm(ridge::Dtype::f32).blocking, 1};
        ridge::set_blocked_path_limits(&plan);
        plan.a_rows_within_cache = c.m;
        plan.b_within_l2 = true;
        ASSERT_GE(plan.blocking.KC, c.k) << "the test wants one KC step";
        ASSERT_LE(c.m, plan.blocking.MC) << "the test wants one block of A";
        expect_same_bits_for_one_two_three_threads(c, ops, plan);
        if (HasFatalFailure()) return;
        for (int threads : {1, 2}) {
            Guarded cc = ops.c;
            plan.threads = threads;
            g_a_panels_packed = 0;
            ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(args_for(c, ops.a.data(), ops.b.data(), cc.data()), plan));
            const int expected = threads == 2 && beta != 0.0f ? 2 * full_panels : full_panels;
            EXPECT_EQ(expected, g_a_panels_packed.load())
                << "full panels of A packed by the twin, " << threads << " thread(s)"
                << (threads == 2 && beta == 0.0f ? ": row slices pack each once" : "");
        }
    }
}

// Row slices (C taller than wide: splits_rows in gemm_blocked.cpp) let the
// first micro-panel's tiles pack A where a slice's rows fit L2, even where all
// of op(A) does not (GemmPlan::a_rows_within_cache): with the limit at a slice's
// rows both threads pack each of their full panels that way, one row short of
// it none do, and one thread (all rows) none either. C bit for bit as on one thread.
TEST(Threads, RowSlicesPackTheirAInTheFirstMicroPanelWhereTheSliceFitsL2) {
    if (omp_get_thread_limit() < 2) GTEST_SKIP() << "OMP_THREAD_LIMIT < 2: one thread is all OpenMP allows";
    const uint32_t seed = test_seed() + 10;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    g_real_kernel = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (g_real_kernel->ukr_packing_a == nullptr) GTEST_SKIP() << g_real_kernel->name << " packs no A as it goes";
    ridge::GemmKernel spy = *g_real_kernel;
    spy.ukr_packing_a = &counting_packing_a;
    const int64_t MR = spy.MR, NR = spy.NR;
    Call c;
    c.m = 8 * MR, c.n = 3 * NR, c.k = 40, c.beta = 0.5f, c.ldc_pad = 2;  // two slices of 4 MR panels
    Operands ops(c, rng);
    ridge::GemmPlan plan{&spy, ridge::runtime_config().gemm(ridge::Dtype::f32).blocking, 1};
    ridge::set_blocked_path_limits(&plan);
    ASSERT_GE(plan.blocking.KC, c.k) << "the test wants one KC step";
    ASSERT_LE(c.m, plan.blocking.MC) << "the test wants one block of A";
    Guarded one = ops.c;
    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(args_for(c, ops.a.data(), ops.b.data(), one.data()), plan));
    const struct {
        int threads;
        int64_t rows_within_l2;
        int panels_by_twin;
    } cases[] = {{2, 4 * MR, 8}, {2, 4 * MR - 1, 0}, {1, 4 * MR, 0}};
    for (const auto& cs : cases) {
        SCOPED_TRACE(std::to_string(cs.threads) + " thread(s), " + std::to_string(cs.rows_within_l2) +
                     " rows within L2");
        plan.threads = cs.threads;
        plan.a_rows_within_cache = cs.rows_within_l2;
        Guarded cc = ops.c;
        g_a_panels_packed = 0;
        ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(args_for(c, ops.a.data(), ops.b.data(), cc.data()), plan));
        EXPECT_EQ(cs.panels_by_twin, g_a_panels_packed.load()) << "full panels of A packed by the twin";
        ASSERT_TRUE(cc.untouched_outside());
        EXPECT_EQ(0, std::memcmp(one.data(), cc.data(), sizeof(float) * size_t(c.ldc() * c.n)))
            << "differs from one thread packing A first";
    }
}

// Threads with work of their own share out micro-panels: when one thread is
// slow (here its kernel calls sleep), the other, done with its own work, runs
// tiles of the slow one's. C must come out bit for bit as on one thread,
// through several jc, KC and MC steps (tiny blocking). Columns of C split:
// edges in m and n, the fast thread joining steps already under way, with B
// packed in full (two blocks of A per KC step) and one micro-panel at a time
// (one block). Rows split (C taller than wide: a team sharing each B panel,
// one block of A per thread at a time): the fast thread helps before each KC
// step's barrier. The helper sleeps too before each tile it took over, so the
// owner runs out of panels first: it must wait for the helper's before it
// repacks A or B for its next step (else the helper multiplies the next
// step's operands). With the ir loop outside jr (runs_ir_outside_jr) the
// helper claims A panels instead, packs them into its own buffer and runs
// them against the slow thread's B panel: no packed A panel of the slow
// thread's may then reach it (and without that order, the helper runs the
// slow thread's packed A).
std::atomic<int64_t> g_slow_thread_tiles{0};   // tiles run on OpenMP thread 1
std::atomic<int64_t> g_helped_tiles{0};        // tiles of thread 1's share run by thread 0
float *g_spy_c = nullptr, *g_spy_c_end = nullptr;  // C, ldc x n
int64_t g_spy_ldc = 0, g_spy_first_slow_row = 0, g_spy_first_slow_column = 0;  // thread 1's share
std::mutex g_spy_a_mutex;
std::set<const void*> g_slow_thread_a, g_helper_a;  // packed A panels thread 1 ran, and thread 0 on its share
void slow_thread_ukr(int64_t kc, float alpha, const void* a, const void* b, float beta, float* c, int64_t ldc) {
    const bool slow_thread = omp_get_thread_num() == 1;
    // A kernel without an edge kernel (AVX2's) runs partial tiles into a scratch
    // tile outside C, which is nobody's share (and whose address says nothing).
    const int64_t offset = c - g_spy_c;
    const bool in_c = c >= g_spy_c && c < g_spy_c_end;
    const bool slow_share =
        in_c && offset / g_spy_ldc >= g_spy_first_slow_column && offset % g_spy_ldc >= g_spy_first_slow_row;
    if (slow_thread || slow_share) {
        std::lock_guard<std::mutex> lock(g_spy_a_mutex);
        (slow_thread ? g_slow_thread_a : g_helper_a).insert(a);
    }
    if (slow_thread) {
        // The first call holds thread 1 (up to 2 s) until thread 0 has taken a
        // tile over, so that the test does not depend on how the OS schedules
        // the two; the later ones sleep.
        if (g_slow_thread_tiles.fetch_add(1) == 0) {
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
            while (g_helped_tiles.load() == 0 && std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        std::this_thread::sleep_for(std::chrono::microseconds(300));
    } else if (slow_share) {
        g_helped_tiles.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::microseconds(1000));
    }
    g_real_kernel->ukr(kc, alpha, a, b, beta, c, ldc);
}
void slow_thread_edge(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, const void* b, float beta,
                      float* c, int64_t ldc) {
    if (omp_get_thread_num() == 1) std::this_thread::sleep_for(std::chrono::microseconds(300));
    g_real_kernel->ukr_edge(mr, nr, kc, alpha, a, b, beta, c, ldc);
}

// The real fp32 kernel with its tiles slowed on thread 1 (slow_thread_ukr, slow_thread_edge).
ridge::GemmKernel slow_thread_spy() {
    g_real_kernel = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    ridge::GemmKernel spy = *g_real_kernel;
    spy.ukr = &slow_thread_ukr;
    spy.ukr_tiles = nullptr;  // one call per tile, so that the spy sees every tile
    if (spy.ukr_edge != nullptr) spy.ukr_edge = &slow_thread_edge;
    return spy;
}

// Before a run of the spy writing C (ldc x n at c): thread 1's share from
// (first_slow_row, first_slow_column) on, and nothing counted yet.
void watch_slow_share(float* c, int64_t ldc, int64_t n, int64_t first_slow_row, int64_t first_slow_column) {
    g_spy_c = c, g_spy_c_end = c + ldc * n, g_spy_ldc = ldc;
    g_spy_first_slow_row = first_slow_row, g_spy_first_slow_column = first_slow_column;
    g_slow_thread_tiles = 0, g_helped_tiles = 0;
    g_slow_thread_a.clear(), g_helper_a.clear();
}

TEST(Threads, FastThreadRunsSlowThreadsPanelsSameBits) {
    if (omp_get_thread_limit() < 2) GTEST_SKIP() << "OMP_THREAD_LIMIT < 2: one thread is all OpenMP allows";
    const uint32_t seed = test_seed() + 7;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const ridge::GemmKernel spy = slow_thread_spy();
    const int64_t MR = spy.MR, NR = spy.NR;
    const int64_t column_panels = 17;  // n = 16 NR + 5: thread 1 takes the upper 8 panels
    struct Case {
        int64_t m, n, mc;
        int64_t first_slow_row, first_slow_column;
        bool trans_b = false;  // with one block of A: the k steps outside jc (runs_k_steps_outside_jc)
        bool ir_outside_jr = false;  // A from memory, the B panel within the limit (runs_ir_outside_jr)
    } cases[] = {
        {2 * MR + 3, 16 * NR + 5, 3 * MR, 0, (column_panels - column_panels / 2) * NR},  // one block of A
        {5 * MR, 16 * NR + 5, 3 * MR, 0, (column_panels - column_panels / 2) * NR},      // two blocks
        {8 * MR, 3 * NR + 1, 2 * MR, 4 * MR, 0},  // rows: two blocks of 2 MR per thread, thread 1 from 4 MR
        {2 * MR + 3, 16 * NR + 5, 3 * MR, 0, (column_panels - column_panels / 2) * NR, true},  // one block, B^T
        // ir outside jr, rows: two blocks of 4 MR a thread, so that the slow thread,
        // whose tiles are the quicker, runs panels of both parities (both its buffers)
        {16 * MR, 3 * NR + 1, 4 * MR, 8 * MR, 0, false, true},
        // columns, ir outside jr: blocks of 4 A panels, so that a helper has some
        // to take besides the last two it leaves to their owner (StepClaims);
        // n = 24 NR + 1 (C no taller than wide, so columns are split): thread 1
        // takes the upper 12 of 25 panels, in two B panels of at most 6 NR
        {8 * MR, 24 * NR + 1, 4 * MR, 0, 13 * NR, false, true},
    };
    for (const Case& cs : cases) {
        Call c;
        c.m = cs.m, c.n = cs.n, c.k = 40, c.alpha = 0.75f, c.beta = 1.25f, c.ldc_pad = 3, c.tb = cs.trans_b;
        SCOPED_TRACE(c.describe() + (cs.ir_outside_jr ? ", ir outside jr" : ""));
        Operands ops(c, rng);
        const ridge::BlockingParams tiny{MR, NR, 16, cs.mc, 6 * NR};
        Guarded one = ops.c, two = ops.c;
        ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(args_for(c, ops.a.data(), ops.b.data(), one.data()),
                                             ridge::GemmPlan{g_real_kernel, tiny, 1}));
        watch_slow_share(two.data(), c.ldc(), c.n, cs.first_slow_row, cs.first_slow_column);
        ridge::GemmPlan shared{&spy, tiny, 2};
        // Taken only with B transposed: steps of 4 micro-panels, so that a helper
        // has some to take besides the last two it leaves to their owner (StepClaims).
        shared.b_panel_columns_in_l2 = 4 * NR;
        shared.a_from_memory = cs.ir_outside_jr;
        shared.b_panel_columns_for_ir_outside_jr = cs.ir_outside_jr ? 6 * NR : 0;
        ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(args_for(c, ops.a.data(), ops.b.data(), two.data()), shared));
        ASSERT_TRUE(two.untouched_outside());
        ASSERT_TRUE(matches(c, two, expected_c(c, ops.a.data(), ops.b.data(), ops.c.data()), bound_for(c)));
        EXPECT_EQ(0, std::memcmp(one.data(), two.data(), sizeof(float) * size_t(c.ldc() * c.n)))
            << "one thread and two sharing panels differ";
        EXPECT_GT(g_helped_tiles.load(), 0) << "thread 0 ran no tile of thread 1's share ("
                                            << g_slow_thread_tiles.load() << " tiles ran on thread 1)";
        int64_t shared_a_panels = 0;
        for (const void* a : g_helper_a) shared_a_panels += int64_t(g_slow_thread_a.count(a));
        EXPECT_EQ(cs.ir_outside_jr, shared_a_panels == 0)
            << shared_a_panels << " packed A panels of thread 1's ran on its share on thread 0 too";
    }
}

// The dispatcher's plans share a slice team's micro-panels only where a step
// of the widest slice has kSlicePanelsToShare of them (gemm.h): with steps of
// at most 6 panels (NC = 6 NR), thread 0 runs none of the slow thread's tiles
// (which wait up to 2 s for a helper that never comes), and C is still one
// thread's bit for bit.
TEST(Threads, SlicesWithFewPanelsAStepKeepTheirOwn) {
    if (omp_get_thread_limit() < 2) GTEST_SKIP() << "OMP_THREAD_LIMIT < 2: one thread is all OpenMP allows";
    const uint32_t seed = test_seed() + 8;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const ridge::GemmKernel spy = slow_thread_spy();
    const int64_t MR = spy.MR, NR = spy.NR, column_panels = 17;
    Call c;
    c.m = 2 * MR + 3, c.n = 16 * NR + 5, c.k = 40, c.alpha = 0.75f, c.beta = 1.25f, c.ldc_pad = 3;
    Operands ops(c, rng);
    const ridge::BlockingParams tiny{MR, NR, 16, 3 * MR, 6 * NR};
    Guarded one = ops.c, two = ops.c;
    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(args_for(c, ops.a.data(), ops.b.data(), one.data()),
                                         ridge::GemmPlan{g_real_kernel, tiny, 1}));
    watch_slow_share(two.data(), c.ldc(), c.n, 0, (column_panels - column_panels / 2) * NR);
    ridge::GemmPlan dispatched{&spy, tiny, 2};
    dispatched.slice_panels_to_share = ridge::kSlicePanelsToShare;
    ASSERT_GT(ridge::kSlicePanelsToShare, 6);
    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(args_for(c, ops.a.data(), ops.b.data(), two.data()), dispatched));
    ASSERT_TRUE(two.untouched_outside());
    EXPECT_EQ(0, std::memcmp(one.data(), two.data(), sizeof(float) * size_t(c.ldc() * c.n)))
        << "one thread and two slices differ";
    EXPECT_GT(g_slow_thread_tiles.load(), 0) << "thread 1 ran none of its own tiles";
    EXPECT_EQ(0, g_helped_tiles.load()) << "thread 0 ran tiles of thread 1's share (thread 1 ran "
                                         << g_slow_thread_tiles.load() << ")";
}

// Claims on a posted step of micro-panels (StepClaims, the blocked path's
// panel sharing): every panel claimed once, in order, in guided shares; a
// helper's claims (`leave` 2: gemm_blocked.cpp's kPanelsLeftToOwner) never
// take a step's last two panels, which its owner then claims; a new step's
// claims start afresh.
TEST(Threads, StepClaimsLeaveTheLastPanelsToTheOwner) {
    ridge::StepClaims claims;
    int64_t first = -1;
    EXPECT_EQ(0, claims.claim(2, &first)) << "nothing is posted yet";
    claims.post(40, 0);
    ASSERT_EQ(10, claims.claim(2, &first)) << "a guided share: a quarter of 40 on 2 threads";
    EXPECT_EQ(0, first);
    int64_t next = 10;
    for (int64_t n; (n = claims.claim(2, &first, 2)) > 0; next += n) {
        EXPECT_EQ(next, first) << "claims run in order";
        EXPECT_LE(first + n, 38) << "a helper took one of the last two panels";
    }
    EXPECT_EQ(38, next) << "the helper left more than the last two panels";
    for (int64_t n; (n = claims.claim(2, &first)) > 0; next += n) EXPECT_EQ(next, first);
    EXPECT_EQ(40, next) << "the owner's claims end at the step's last panel";

    claims.post(3, 1);  // the next step, its first panel run by the owner before posting
    EXPECT_EQ(0, claims.claim(2, &first, 2)) << "panels 1 and 2 are the last two: nothing for a helper";
    ASSERT_EQ(1, claims.claim(2, &first));
    EXPECT_EQ(1, first);
    ASSERT_EQ(1, claims.claim(2, &first));
    EXPECT_EQ(2, first);
    EXPECT_EQ(0, claims.claim(2, &first));
}

// The same on the small path: both threads run small kernels, with A read in
// place and with A transposed (packed by each thread).
TEST(Threads, TwoThreadSmallPathRunsKernelsOnBothThreads) {
    if (omp_get_thread_limit() < 2) GTEST_SKIP() << "OMP_THREAD_LIMIT < 2: one thread is all OpenMP allows";
    const uint32_t seed = test_seed() + 6;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    g_real_kernel = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (g_real_kernel->small_f32 == nullptr) GTEST_SKIP() << g_real_kernel->name << " has no small path";
    ridge::GemmKernel spy = *g_real_kernel;
    spy.small_f32 = &thread_spy_small;
    for (bool ta : {false, true}) {
        Call c;
        c.m = 2 * spy.MR + 3, c.n = 4 * spy.NR, c.k = 40, c.beta = 0.5f, c.ta = ta;
        Operands ops(c, rng);
        const auto expect = expected_c(c, ops.a.data(), ops.b.data(), ops.c.data());
        g_threads_seen = 0;
        ridge::GemmPlan plan{&spy, ridge::runtime_config().gemm(ridge::Dtype::f32).blocking, 2};
        plan.small_path = true;
        ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(args_for(c, ops.a.data(), ops.b.data(), ops.c.data()), plan));
        ASSERT_TRUE(matches(c, ops.c, expect, bound_for(c)));
        EXPECT_EQ(3u, g_threads_seen.load()) << "bitmask of OpenMP thread numbers that ran the kernel, ta=" << ta;
    }
}

// On the small path too a slow thread's share goes to the other: thread 1's
// calls wait, so thread 0 runs most of the column tiles rather than the half a
// split made in advance would give it; C as on one thread.
std::atomic<int64_t> g_fast_thread_calls{0}, g_all_calls{0};
void slow_thread_small(int64_t mr, int64_t nr, int64_t k, float alpha, const float* a, int64_t a_step,
                       const float* b, int64_t b_step, int64_t b_col, float beta, float* c, int64_t ldc) {
    g_all_calls.fetch_add(1);
    if (omp_get_thread_num() == 1) {
        // Held (up to 2 s) until thread 0 has run 6 tiles, which it can only
        // by taking some of thread 1's share: the test then does not depend on
        // how the OS schedules the two.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (g_fast_thread_calls.load() < 6 && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::microseconds(50));
    } else {
        g_fast_thread_calls.fetch_add(1);
    }
    g_real_kernel->small_f32(mr, nr, k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc);
}

TEST(Threads, SmallPathFastThreadTakesSlowThreadsTiles) {
    if (omp_get_thread_limit() < 2) GTEST_SKIP() << "OMP_THREAD_LIMIT < 2: one thread is all OpenMP allows";
    const uint32_t seed = test_seed() + 8;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    g_real_kernel = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (g_real_kernel->small_f32 == nullptr) GTEST_SKIP() << g_real_kernel->name << " has no small path";
    ridge::GemmKernel spy = *g_real_kernel;
    spy.small_f32 = &slow_thread_small;
    Call c;
    c.m = spy.MR, c.n = 8 * spy.NR - 3, c.k = 33, c.beta = 0.5f;  // 8 column tiles of one call each
    Operands ops(c, rng);
    ridge::GemmPlan plan{g_real_kernel, ridge::runtime_config().gemm(ridge::Dtype::f32).blocking, 1};
    plan.small_path = true;
    Guarded one = ops.c, two = ops.c;
    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(args_for(c, ops.a.data(), ops.b.data(), one.data()), plan));
    g_fast_thread_calls = 0, g_all_calls = 0;
    plan.kernel = &spy, plan.threads = 2;
    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(args_for(c, ops.a.data(), ops.b.data(), two.data()), plan));
    ASSERT_TRUE(two.untouched_outside());
    EXPECT_EQ(0, std::memcmp(one.data(), two.data(), sizeof(float) * size_t(c.ldc() * c.n)));
    EXPECT_EQ(8, g_all_calls.load());
    EXPECT_GE(g_fast_thread_calls.load(), 6) << "of 8 column tiles, thread 0 ran";
}

// The small path wakes a second thread for much less work than the blocked
// path (its team shares no packing): built in, from 96^3 on. 128^3 gets two
// threads there, where the blocked path's threshold would give it one; 64^3
// stays on one. Both results right.
TEST(Threads, SmallPathHasItsOwnThreadThreshold) {
    if (omp_get_thread_limit() < 2) GTEST_SKIP() << "OMP_THREAD_LIMIT < 2: one thread is all OpenMP allows";
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    if (cfg.gemm(ridge::Dtype::f32).kernel->small_f32 == nullptr) GTEST_SKIP() << "no small path here";
    ASSERT_LT(cfg.small_min_flops_per_thread, cfg.min_flops_per_thread) << "the built-in figures (no profile)";
    std::mt19937 rng(test_seed() + 7);
    ridge_set_num_threads(2);
    for (const auto& [n, threads] : {std::pair<int64_t, int>{128, 2}, {64, 1}}) {
        SCOPED_TRACE("n=" + std::to_string(n));
        Call c;
        c.m = c.n = c.k = n, c.beta = 0.5f;
        Operands ops(c, rng);
        const auto expect = expected_c(c, ops.a.data(), ops.b.data(), ops.c.data());
        ridge_set_report(1);
        ASSERT_TRUE(native(c, ops.a.data(), ops.b.data(), ops.c.data()) == RIDGE_SUCCESS);
        ridge_set_report(0);
        ridge_report r;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
        EXPECT_STREQ("small", r.path);
        EXPECT_EQ(threads, r.threads);
        EXPECT_TRUE(matches(c, ops.c, expect, bound_for(c)));
    }
    EXPECT_EQ(1, ridge::threads_for(2.0 * 128 * 128 * 128)) << "the blocked path's threshold";
    ridge_set_num_threads(0);
}

// OpenMP may start fewer threads than asked; the driver then does the whole problem
// on one thread. Run under OMP_THREAD_LIMIT=1 (a separate ctest entry) this takes that
// path on every call; without it, it is one more 2- and 3-thread check.
TEST(Threads, ShortTeamStillCorrect) {
    if (const char* limit = std::getenv("OMP_THREAD_LIMIT")) {
        ASSERT_EQ(std::atoi(limit), omp_get_thread_limit()) << "the environment did not reach OpenMP";
    }
    const uint32_t seed = test_seed() + 3;
    SCOPED_TRACE(seed_note(seed));
    SCOPED_TRACE("omp_get_thread_limit()=" + std::to_string(omp_get_thread_limit()));
    std::mt19937 rng(seed);
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    const int64_t MR = ker->MR, NR = ker->NR;
    Call c;
    c.m = 6 * MR + 3, c.n = 5 * NR + 2, c.k = 50, c.alpha = -1.0f, c.beta = 0.0f, c.ta = true;
    Operands ops(c, rng);
    ridge::GemmPlan plan{ker, {MR, NR, 16, 2 * MR, 2 * NR}, 1};
    {
        SCOPED_TRACE("blocked path");
        expect_same_bits_for_one_two_three_threads(c, ops, plan);
    }
    {
        SCOPED_TRACE("blocked path, C wider than tall (a team splits its columns)");
        Call wide = c;
        wide.m = 2 * MR + 3, wide.n = 9 * NR + 2;
        Operands wide_ops(wide, rng);
        expect_same_bits_for_one_two_three_threads(wide, wide_ops, plan);
    }
    if (ker->small_f32 == nullptr) return;
    SCOPED_TRACE("small path");  // its team splits the columns of C, each thread packs A
    plan.small_path = true;
    expect_same_bits_for_one_two_three_threads(c, ops, plan);
}

// A problem prepared on the main thread for a worker: operands, expected C.
struct Job {
    Call call;
    std::unique_ptr<Operands> ops;
    std::vector<double> expect;
    ridge_status status = RIDGE_OUT_OF_MEMORY;  // anything but success until the worker ran
};

std::vector<Job> make_jobs(int count, std::mt19937& rng, int variant) {
    std::vector<Job> jobs(static_cast<size_t>(count));
    std::uniform_int_distribution<int64_t> small(1, 90);
    for (int i = 0; i < count; ++i) {
        Job& j = jobs[size_t(i)];
        Call& c = j.call;
        if ((i + variant) % 3 == 0) {  // big enough that the worker's own call may use 2 threads
            c.m = 200 + 7 * variant, c.n = 210 - 3 * i, c.k = 190 + i;
        } else {
            c.m = small(rng), c.n = small(rng), c.k = small(rng);
        }
        c.ta = (i + variant) & 1, c.tb = (i + variant) & 2, c.alpha = 1.0f + 0.25f * variant;
        c.beta = i % 2 ? 0.0f : -0.75f, c.ldc_pad = variant;
        j.ops = std::make_unique<Operands>(c, rng);
        j.expect = expected_c(c, j.ops->a.data(), j.ops->b.data(), j.ops->c.data());
    }
    return jobs;
}

// Four std::threads call ridge at the same time, each its own sequence of different
// problems (and its own thread-count setting): every result right, nothing outside
// C written. The per-thread packing buffers and thread counts must not leak between them.
TEST(Threads, ConcurrentCallersFromStdThreads) {
    const uint32_t seed = test_seed() + 4;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    constexpr int kWorkers = 4, kJobs = 6;
    std::vector<std::vector<Job>> work;
    for (int w = 0; w < kWorkers; ++w) work.push_back(make_jobs(kJobs, rng, w));
    std::atomic<int> ready{0};
    std::vector<std::thread> workers;
    for (int w = 0; w < kWorkers; ++w)
        workers.emplace_back([&, w] {
            ridge_set_num_threads(1 + w % 2);  // this worker's own setting
            ready.fetch_add(1);
            while (ready.load() < kWorkers) std::this_thread::yield();  // start together
            for (Job& j : work[size_t(w)])
                j.status = native(j.call, j.ops->a.data(), j.ops->b.data(), j.ops->c.data());
        });
    for (auto& t : workers) t.join();
    for (int w = 0; w < kWorkers; ++w)
        for (Job& j : work[size_t(w)]) {
            SCOPED_TRACE("worker " + std::to_string(w));
            ASSERT_EQ(RIDGE_SUCCESS, j.status) << j.call.describe();
            ASSERT_TRUE(matches(j.call, j.ops->c, j.expect, bound_for(j.call)));
        }
}

// A multi-threaded call leaves the caller's OpenMP settings alone.
TEST(Threads, CallDoesNotChangeCallersMaxThreads) {
    const uint32_t seed = test_seed() + 5;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    ThreadCountGuard restore;
    const int before = omp_get_max_threads();
    omp_set_num_threads(3);
    ridge_set_num_threads(2);
    Call c;
    c.m = c.n = c.k = 300;
    Operands ops(c, rng);
    ASSERT_EQ(RIDGE_SUCCESS, native(c, ops.a.data(), ops.b.data(), ops.c.data()));
    EXPECT_EQ(3, omp_get_max_threads());
    omp_set_num_threads(before);
}

// RIDGE_NUM_THREADS sets the default thread count (read once per process, so this
// runs in its own ctest entry, test_threads_env, with RIDGE_NUM_THREADS=3), and the
// library then really plans that many threads for a big enough problem.
TEST(Env, DefaultThreadsFollowRidgeNumThreads) {
    const char* v = std::getenv("RIDGE_NUM_THREADS");
    ASSERT_NE(nullptr, v) << "run through the ctest entry that sets RIDGE_NUM_THREADS";
    const int want = std::atoi(v);
    EXPECT_EQ(want, ridge_get_num_threads());
    EXPECT_EQ(want, ridge::runtime_config().default_threads);
    EXPECT_EQ(want, ridge::threads_for(1e12));
    // A per-thread setting still wins over the environment.
    ridge_set_num_threads(1);
    EXPECT_EQ(1, ridge::threads_for(1e12));
    ridge_set_num_threads(0);
}

// --- Calls from inside a caller's parallel region (own ctest entry) ---

// Runs `body` on a fresh thread and waits at most `limit`. A body still running then
// is a deadlock: it is abandoned (a thread blocked in a barrier cannot be stopped),
// which is why these tests run in a process of their own. Everything the body
// touches is owned by the body, so an abandoned body never points into a dead frame.
::testing::AssertionResult finishes_within(std::chrono::seconds limit, std::function<void()> body) {
    auto done = std::make_shared<std::promise<void>>();
    std::future<void> finished = done->get_future();
    std::thread([body = std::move(body), done] {
        body();
        done->set_value();
    }).detach();
    if (finished.wait_for(limit) == std::future_status::ready) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "still running after " << limit.count()
                                         << " s: deadlock (the thread is abandoned)";
}

// What each thread of the caller's region does and finds.
struct RegionState {
    std::vector<Job> jobs;
    std::vector<int> max_threads_before;  // omp_get_max_threads() of each caller thread before its call
    std::vector<int> max_threads_after;   // and after it
    std::vector<int> called;             // 1 when that thread made its call
    int max_threads_outside_after = -1;
};

// Two problems of m x n and depths k0 and k1, one per thread of the caller's region.
std::shared_ptr<RegionState> make_region_state(int64_t m, int64_t n, int64_t k0, int64_t k1, uint32_t seed) {
    auto st = std::make_shared<RegionState>();
    std::mt19937 rng(seed);
    for (int64_t k : {k0, k1}) {
        Job j;
        j.call.m = m, j.call.n = n, j.call.k = k, j.call.alpha = 1.5f, j.call.beta = 0.5f;
        j.ops = std::make_unique<Operands>(j.call, rng);
        j.expect = expected_c(j.call, j.ops->a.data(), j.ops->b.data(), j.ops->c.data());
        st->jobs.push_back(std::move(j));
    }
    st->max_threads_before.assign(2, -2);
    st->max_threads_after.assign(2, -1);
    st->called.assign(2, 0);
    return st;
}

// How a thread of the region multiplies: through ridge_sgemm, or straight into the
// blocked driver with the plan dispatch would make there (runtime kernel and
// blocking, threads_for() threads), whatever the small-problem threshold is.
enum class Via { api, blocked_driver };

ridge_status multiply(const Job& j, Via via) {
    if (via == Via::api) return native(j.call, j.ops->a.data(), j.ops->b.data(), j.ops->c.data());
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    ridge::GemmPlan plan;
    plan.kernel = cfg.gemm(ridge::Dtype::f32).kernel;
    plan.blocking = cfg.gemm(ridge::Dtype::f32).blocking;
    plan.threads = ridge::threads_for(2.0 * double(j.call.m) * double(j.call.n) * double(j.call.k));
    plan.small_path = false;
    return ridge::gemm(args_for(j.call, j.ops->a.data(), j.ops->b.data(), j.ops->c.data()), plan);
}

// A `#pragma omp parallel num_threads(2)` region in which thread t runs jobs[t]
// (only thread 0 when `only_thread0`), recording the caller's ICVs around the call.
void run_region(const std::shared_ptr<RegionState>& st, bool only_thread0, Via via) {
    omp_set_num_threads(2);
#pragma omp parallel num_threads(2)
    {
        const int t = omp_get_thread_num();
        st->max_threads_before[size_t(t)] = omp_get_max_threads();
        if (!only_thread0 || t == 0) {
            Job& j = st->jobs[size_t(t)];
            j.status = multiply(j, via);
            st->called[size_t(t)] = 1;
        }
        st->max_threads_after[size_t(t)] = omp_get_max_threads();
    }
    st->max_threads_outside_after = omp_get_max_threads();
}

void check_region(const RegionState& st, bool only_thread0) {
    for (int t = 0; t < 2; ++t) {
        SCOPED_TRACE("caller thread " + std::to_string(t));
        if (only_thread0 && t == 1) continue;
        ASSERT_EQ(1, st.called[size_t(t)]);
        const Job& j = st.jobs[size_t(t)];
        ASSERT_EQ(RIDGE_SUCCESS, j.status);
        ASSERT_TRUE(matches(j.call, j.ops->c, j.expect, bound_for(j.call)));
        EXPECT_EQ(st.max_threads_before[size_t(t)], st.max_threads_after[size_t(t)])
            << "the call changed the caller's omp_get_max_threads()";
    }
    EXPECT_EQ(2, st.max_threads_outside_after) << "omp_set_num_threads(2) of the caller was changed";
}

// The shapes below are well above the volume ridge multiplies without packing
// (160^3 today), so the API calls take the blocked path too; the Via::blocked_driver
// variants make sure of it whatever that threshold becomes.
constexpr int64_t kRegionM = 320, kRegionN = 320;

// Every thread of the region runs the same shape (same sequence of blocks).
TEST(CallerParallel, SameShapeOnEveryThread) {
    const uint32_t seed = test_seed() + 6;
    SCOPED_TRACE(seed_note(seed));
    for (Via via : {Via::api, Via::blocked_driver}) {
        SCOPED_TRACE(via == Via::api ? "ridge_sgemm" : "blocked driver");
        auto st = make_region_state(kRegionM, kRegionN, 300, 300, seed);
        ASSERT_TRUE(finishes_within(std::chrono::seconds(5), [st, via] { run_region(st, false, via); }));
        check_region(*st, false);
    }
}

// The threads of the region run different depths, so each call walks a different
// number of KC blocks. The driver must not synchronize with the caller's team.
TEST(CallerParallel, DifferentShapesOnEachThread) {
    const uint32_t seed = test_seed() + 7;
    SCOPED_TRACE(seed_note(seed));
    const int64_t KC = ridge::runtime_config().gemm(ridge::Dtype::f32).blocking.KC;
    for (Via via : {Via::api, Via::blocked_driver}) {
        SCOPED_TRACE(via == Via::api ? "ridge_sgemm" : "blocked driver");
        auto st = make_region_state(kRegionM, kRegionN, 64, 3 * KC + 5, seed);
        ASSERT_TRUE(finishes_within(std::chrono::seconds(5), [st, via] { run_region(st, false, via); }));
        check_region(*st, false);
    }
}

// Only one thread of the region calls ridge (the others go straight to the
// region's end), as in `if (omp_get_thread_num() == 0) sgemm(...)`.
TEST(CallerParallel, OnlyOneThreadOfTheRegionCalls) {
    const uint32_t seed = test_seed() + 8;
    SCOPED_TRACE(seed_note(seed));
    for (Via via : {Via::api, Via::blocked_driver}) {
        SCOPED_TRACE(via == Via::api ? "ridge_sgemm" : "blocked driver");
        auto st = make_region_state(kRegionM, kRegionN, 300, 300, seed);
        ASSERT_TRUE(finishes_within(std::chrono::seconds(5), [st, via] { run_region(st, true, via); }));
        check_region(*st, true);
    }
}

// Inside a caller's region the library uses one thread (no nested team); outside,
// the same request gets the two threads asked for.
TEST(CallerParallel, ThreadsForIsOneInsideARegion) {
    ThreadCountGuard restore;
    ridge_set_num_threads(2);
    int inside = -1;
#pragma omp parallel num_threads(2)
    {
#pragma omp single
        {
            ridge_set_num_threads(2);  // the setting is per thread: ask on the one that calls
            inside = ridge::threads_for(1e12);
            ridge_set_num_threads(0);
        }
    }
    EXPECT_EQ(1, inside);
    EXPECT_EQ(2, ridge::threads_for(1e12));
}

}  // namespace
