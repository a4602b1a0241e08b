// Edge sizes through the public entry points (cblas_sgemm in both layouts, and
// ridge_sgemm), through the driver forced onto each of its paths (blocked, and
// small-problem when the kernel has one), and tiny forced blockings through the
// blocked path. Every call checks
// the result against the double reference and that nothing outside the m x n
// matrix of C (leading-dimension padding, a guard band on both sides) changed,
// and that A and B were not written.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "dispatch/dispatch.h"
#include "gemm/gemm.h"
#include "gemm_check.h"
#include "ridge/cblas.h"
#include "ridge/ridge.h"

using namespace ridge_test;

namespace {

// The ways into a multiplication: the two public entry points, and the driver
// with the runtime's kernel and blocking forced onto its blocked path or onto its
// small-problem path (the public entry points choose between them by volume, so
// most edge shapes would otherwise only ever see the small path).
enum class Api { cblas, native, blocked, small };

const char* api_name(Api api) {
    switch (api) {
        case Api::cblas: return "cblas_sgemm";
        case Api::native: return "ridge_sgemm";
        case Api::blocked: return "gemm_f32 (blocked path)";
        case Api::small: return "gemm_f32 (small path)";
    }
    return "?";
}

// Every way the runtime kernel supports (not every kernel has a small-problem variant).
std::vector<Api> all_apis() {
    std::vector<Api> apis = {Api::cblas, Api::native, Api::blocked};
    if (ridge::runtime_config().gemm(ridge::Dtype::f32).kernel->small_f32 != nullptr) apis.push_back(Api::small);
    return apis;
}

// Calls through `api`; false when it reported an error (cblas_sgemm has no status, so
// its result is judged by C alone). The driver takes column-major problems: a row-major
// call is handed to it as the column-major product C^T = op(B)^T op(A)^T.
bool call_api(Api api, const Call& c, const float* a, const float* b, float* cc) {
    if (api == Api::cblas) {
        cblas_sgemm(c.row_major ? CblasRowMajor : CblasColMajor, c.ta ? CblasTrans : CblasNoTrans,
                    c.tb ? CblasTrans : CblasNoTrans, int(c.m), int(c.n), int(c.k), c.alpha, a,
                    int(c.lda()), b, int(c.ldb()), c.beta, cc, int(c.ldc()));
        return true;
    }
    if (api == Api::native)
        return ridge_sgemm(c.row_major ? RIDGE_ROW_MAJOR : RIDGE_COL_MAJOR, c.ta ? RIDGE_TRANS : RIDGE_NO_TRANS,
                           c.tb ? RIDGE_TRANS : RIDGE_NO_TRANS, c.m, c.n, c.k, c.alpha, a, c.lda(), b,
                           c.ldb(), c.beta, cc, c.ldc()) == RIDGE_SUCCESS;
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    ridge::GemmPlan plan;
    plan.kernel = cfg.gemm(ridge::Dtype::f32).kernel;
    plan.blocking = cfg.gemm(ridge::Dtype::f32).blocking;
    plan.threads = 1;
    plan.small_path = api == Api::small;
    ridge::GemmArgs g;
    g.k = c.k, g.alpha = c.alpha, g.beta = c.beta, g.c = cc, g.ldc = c.ldc();
    if (!c.row_major) {
        g.trans_a = c.ta, g.trans_b = c.tb, g.m = c.m, g.n = c.n;
        g.a = a, g.lda = c.lda(), g.b = b, g.ldb = c.ldb();
    } else {
        g.trans_a = c.tb, g.trans_b = c.ta, g.m = c.n, g.n = c.m;
        g.a = b, g.lda = c.ldb(), g.b = a, g.ldb = c.lda();
    }
    return ridge::gemm(g, plan) == RIDGE_SUCCESS;
}

// One call with operands drawn from `rng` (NaN in C when beta == 0, NaN in A and B
// when alpha == 0 or k == 0), checked in full.
::testing::AssertionResult run_case(Api api, const Call& call, std::mt19937& rng) {
    Operands ops(call, rng);
    const auto expect = expected_c(call, ops.a.data(), ops.b.data(), ops.c.data());
    if (!call_api(api, call, ops.a.data(), ops.b.data(), ops.c.data()))
        return ::testing::AssertionFailure() << api_name(api) << " " << call.describe() << ": error status";
    if (auto r = ops.a.untouched(); !r) return ::testing::AssertionFailure() << call.describe() << ": A " << r.message();
    if (auto r = ops.b.untouched(); !r) return ::testing::AssertionFailure() << call.describe() << ": B " << r.message();
    // With nothing to multiply the result is beta*C rounded once, exactly (netlib scales C).
    const bool exact = call.alpha == 0.0f || call.k == 0;
    auto r = matches(call, ops.c, expect, bound_for(call), exact);
    if (!r) return ::testing::AssertionFailure() << api_name(api) << " " << r.message();
    return r;
}

// alpha and beta cycled through the sweeps: plain product, accumulate, generic,
// and the two special cases (beta = 0 over NaN, alpha = 0 over NaN operands).
constexpr float kScalars[][2] = {{1.0f, 0.0f}, {1.0f, 1.0f}, {-0.5f, 0.75f}, {2.5f, -1.5f}, {0.0f, 0.5f}, {1.5f, 0.0f}};
constexpr int kNumScalars = 6;

// The guard check every test here leans on (gemm_check.h): a write to the
// guard before a matrix, to its leading-dimension padding or to the guard
// after it is named, with where it landed; a write inside the matrix is seen
// by untouched() only. Were it blind, every "nothing outside C was written"
// in the suite would pass vacuously.
TEST(Edges, GuardCheckNamesEveryWriteOutsideTheMatrix) {
    for (int64_t pad : {0, 3}) {
        SCOPED_TRACE("padding " + std::to_string(pad));
        const int64_t inner = 5, outer = 4, ld = inner + pad;
        Guarded g(Extent{inner, outer}, ld);
        std::mt19937 rng(test_seed());
        g.fill_random(rng);
        ASSERT_TRUE(g.untouched());
        g.at(inner - 1, outer - 1) = 2.0f;  // inside the matrix
        EXPECT_TRUE(g.untouched_outside());
        EXPECT_FALSE(g.untouched());
        g.snapshot();
        auto named = [&](float* where, const char* place) {
            *where = 2.0f;
            const ::testing::AssertionResult r = g.untouched_outside();
            EXPECT_FALSE(r) << place;
            EXPECT_NE(std::string(r.message()).find(place), std::string::npos) << r.message();
            g.snapshot();
        };
        named(g.data() - 1, "guard band");  // just before
        named(g.data() + ld * outer, "guard band");  // just after the last line's storage
        named(g.data() + ld * outer + 36, "guard band");  // the guard's last float (37 by default)
        if (pad > 0) named(&g.at(inner + pad - 1, 1), "leading-dimension padding");
    }
}

// Every value 0..33 of each of m, n and k, with every transpose pair, in both
// layouts and through every way in; the other two sizes drawn at random from 0..33.
TEST(Edges, EverySizeUpTo33ForEachDimension) {
    const uint32_t seed = test_seed();
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int64_t> size(0, 33), pad(0, 3);
    int serial = 0;
    for (Api api : all_apis())
        for (bool row : {false, true})
            for (int t = 0; t < 4; ++t)
                for (int dim = 0; dim < 3; ++dim)
                    for (int64_t v = 0; v <= 33; ++v) {
                        Call c;
                        c.row_major = row, c.ta = t & 1, c.tb = t & 2;
                        c.m = dim == 0 ? v : size(rng);
                        c.n = dim == 1 ? v : size(rng);
                        c.k = dim == 2 ? v : size(rng);
                        c.alpha = kScalars[serial % kNumScalars][0];
                        c.beta = kScalars[serial % kNumScalars][1];
                        ++serial;
                        c.lda_pad = pad(rng), c.ldb_pad = pad(rng), c.ldc_pad = pad(rng);
                        ASSERT_TRUE(run_case(api, c, rng));
                    }
}

// The whole cube 0..33 for m, n and k: each triple gets one transpose pair and layout,
// rotating so each pair meets every value of every dimension many times.
TEST(Edges, FullCubeUpTo33) {
    const uint32_t seed = test_seed() + 1;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const std::vector<Api> apis = all_apis();
    for (int64_t m = 0; m <= 33; ++m)
        for (int64_t n = 0; n <= 33; ++n)
            for (int64_t k = 0; k <= 33; ++k) {
                const int64_t r = m + 3 * n + 7 * k;
                Call c;
                c.m = m, c.n = n, c.k = k;
                c.ta = r & 1, c.tb = r & 2, c.row_major = r & 4;
                c.alpha = kScalars[r % kNumScalars][0], c.beta = kScalars[r % kNumScalars][1];
                c.ldc_pad = r % 3;
                ASSERT_TRUE(run_case(apis[size_t(r / 8) % apis.size()], c, rng));
            }
}

// 2^j - 1, 2^j and 2^j + 1 up to 513, and 520: each as m, n and k with the others
// small, with every transpose pair, both layouts and both APIs.
TEST(Edges, PowersOfTwoPlusMinusOne) {
    const uint32_t seed = test_seed() + 2;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::vector<int64_t> sizes;
    for (int j = 1; j <= 9; ++j)
        for (int64_t d : {-1, 0, 1}) sizes.push_back((int64_t{1} << j) + d);
    sizes.push_back(520);
    std::uniform_int_distribution<int64_t> small(1, 33);
    const std::vector<Api> apis = all_apis();
    int serial = 0;
    for (int64_t s : sizes)
        for (int dim = 0; dim < 3; ++dim)
            for (int t = 0; t < 4; ++t)
                for (bool row : {false, true}) {
                    Call c;
                    c.row_major = row, c.ta = t & 1, c.tb = t & 2;
                    c.m = dim == 0 ? s : small(rng);
                    c.n = dim == 1 ? s : small(rng);
                    c.k = dim == 2 ? s : small(rng);
                    c.alpha = kScalars[serial % kNumScalars][0], c.beta = kScalars[serial % kNumScalars][1];
                    c.lda_pad = serial % 2;
                    ASSERT_TRUE(run_case(apis[size_t(serial) % apis.size()], c, rng));
                    ++serial;
                }
    // A few with two or three large dimensions, where several blocks meet.
    const int64_t big[][3] = {{257, 255, 129}, {513, 65, 257}, {129, 513, 33}, {520, 511, 17}, {255, 257, 520}};
    for (const auto& s : big)
        for (int t = 0; t < 4; ++t) {
            Call c;
            c.m = s[0], c.n = s[1], c.k = s[2], c.ta = t & 1, c.tb = t & 2, c.row_major = t == 3;
            c.alpha = 1.25f, c.beta = t == 0 ? 0.0f : -0.5f;
            ASSERT_TRUE(run_case(apis[size_t(t) % apis.size()], c, rng));
        }
}

// Sizes one below, at and one above each block size of the plan this process
// actually runs (MR, NR from the kernel; KC, MC, NC from the model).
TEST(Edges, BlockSizesPlusMinusOne) {
    const uint32_t seed = test_seed() + 3;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const ridge::BlockingParams bp = ridge::runtime_config().gemm(ridge::Dtype::f32).blocking;
    SCOPED_TRACE("MR=" + std::to_string(bp.MR) + " NR=" + std::to_string(bp.NR) + " KC=" +
                 std::to_string(bp.KC) + " MC=" + std::to_string(bp.MC) + " NC=" + std::to_string(bp.NC));
    const std::vector<int64_t> ms = {bp.MR - 1, bp.MR, bp.MR + 1, 2 * bp.MR + 1, bp.MC - 1, bp.MC, bp.MC + 1};
    const std::vector<int64_t> ns = {bp.NR - 1, bp.NR, bp.NR + 1, bp.NC - 1, bp.NC, bp.NC + 1};
    const std::vector<int64_t> ks = {1, bp.KC - 1, bp.KC, bp.KC + 1, 2 * bp.KC + 1};
    int serial = 0;
    auto next = [&](int64_t m, int64_t n, int64_t k) {
        Call c;
        c.m = m, c.n = n, c.k = k;
        c.ta = serial & 1, c.tb = serial & 2, c.row_major = serial & 4;
        c.alpha = kScalars[serial % kNumScalars][0], c.beta = kScalars[serial % kNumScalars][1];
        c.ldb_pad = serial % 3;
        // The public call (small path or blocked, as the library decides), and the blocked
        // path itself, whose loops these sizes are about.
        const Api api = (serial & 8) ? Api::cblas : Api::native;
        ++serial;
        if (auto r = run_case(api, c, rng); !r) return r;
        return run_case(Api::blocked, c, rng);
    };
    for (int64_t m : ms)
        for (int64_t k : ks) ASSERT_TRUE(next(m, bp.NR + 1, k));
    for (int64_t n : ns)
        for (int64_t k : ks) ASSERT_TRUE(next(bp.MR + 1, n, k));
    // Both m and n across a block boundary at once (shallow, to stay fast).
    for (int64_t m : {bp.MC - 1, bp.MC + 1})
        for (int64_t n : {bp.NC - 1, bp.NC + 1}) ASSERT_TRUE(next(m, n, 3));
}

// Leading dimensions far above the minimum (and at it), in every layout and transpose.
TEST(Edges, PaddedLeadingDimensions) {
    const uint32_t seed = test_seed() + 4;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (int64_t pad : {0, 1, 17, 64})
        for (int t = 0; t < 8; ++t) {
            Call c;
            c.m = 45, c.n = 29, c.k = 37, c.ta = t & 1, c.tb = t & 2, c.row_major = t & 4;
            c.alpha = 0.5f, c.beta = 1.5f;
            c.lda_pad = pad, c.ldb_pad = pad + 3, c.ldc_pad = pad + 1;
            for (Api api : all_apis()) ASSERT_TRUE(run_case(api, c, rng));
        }
}

// beta = 0: C is output only, so a NaN in C before the call must not survive,
// on shapes made of full tiles, edge tiles and several KC blocks.
TEST(Edges, BetaZeroOverwritesNaN) {
    const uint32_t seed = test_seed() + 5;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const ridge::BlockingParams bp = ridge::runtime_config().gemm(ridge::Dtype::f32).blocking;
    const int64_t shapes[][3] = {{1, 1, 1}, {bp.MR, bp.NR, 5}, {bp.MR + 3, 2 * bp.NR - 1, bp.KC + 9}, {77, 41, 2 * bp.KC + 1}};
    const std::vector<Api> apis = all_apis();
    for (const auto& s : shapes)
        for (int t = 0; t < 8; ++t) {
            Call c;
            c.m = s[0], c.n = s[1], c.k = s[2], c.ta = t & 1, c.tb = t & 2, c.row_major = t & 4;
            c.alpha = t == 7 ? 0.0f : 1.0f, c.beta = 0.0f;
            c.ldc_pad = 2;
            Operands ops(c, rng);  // C is all NaN (beta == 0)
            const auto expect = expected_c(c, ops.a.data(), ops.b.data(), ops.c.data());
            ASSERT_TRUE(call_api(apis[size_t(t) % apis.size()], c, ops.a.data(), ops.b.data(), ops.c.data()));
            for (int64_t o = 0; o < ops.c.outer(); ++o)
                for (int64_t i = 0; i < ops.c.inner(); ++i)
                    ASSERT_FALSE(std::isnan(ops.c.at(i, o))) << c.describe() << ": NaN survived at " << i << "," << o;
            ASSERT_TRUE(matches(c, ops.c, expect, bound_for(c), c.alpha == 0.0f));
        }
}

// alpha = 0: A and B must not be read (they are all NaN here), and C becomes
// beta*C exactly, for beta = 0 (over NaN C), 1, and a generic value.
TEST(Edges, AlphaZeroNeverReadsAOrB) {
    const uint32_t seed = test_seed() + 6;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (float beta : {0.0f, 1.0f, 0.5f, -3.0f})
        for (int t = 0; t < 8; ++t) {
            Call c;
            c.m = 37, c.n = 19, c.k = 23, c.ta = t & 1, c.tb = t & 2, c.row_major = t & 4;
            c.alpha = 0.0f, c.beta = beta, c.lda_pad = 1, c.ldc_pad = 4;
            for (Api api : all_apis()) ASSERT_TRUE(run_case(api, c, rng));  // exact check
        }
}

// k = 0 with alpha != 0: nothing to add, C becomes beta*C exactly.
TEST(Edges, DepthZeroScalesC) {
    const uint32_t seed = test_seed() + 7;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (float beta : {0.0f, 1.0f, 0.25f})
        for (int t = 0; t < 8; ++t) {
            Call c;
            c.m = 13, c.n = 40, c.k = 0, c.ta = t & 1, c.tb = t & 2, c.row_major = t & 4;
            c.alpha = 2.0f, c.beta = beta, c.ldc_pad = 3;
            for (Api api : all_apis()) ASSERT_TRUE(run_case(api, c, rng));
        }
}

// The quick returns of netlib SGEMM: m = 0 or n = 0, and (alpha = 0 or k = 0) with
// beta = 1, leave C bit for bit as it was, NaNs and all (not even multiplied by 1).
TEST(Edges, QuickReturnsLeaveCUntouched) {
    const uint32_t seed = test_seed() + 8;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    struct Q {
        int64_t m, n, k;
        float alpha, beta;
    };
    const Q cases[] = {{0, 5, 7, 1.0f, 0.0f},  {6, 0, 7, 1.0f, 0.5f}, {0, 0, 0, 2.0f, 0.0f},
                       {9, 11, 7, 0.0f, 1.0f}, {9, 11, 0, 3.0f, 1.0f}, {9, 11, 0, 0.0f, 1.0f}};
    for (const Q& q : cases)
        for (int t = 0; t < 8; ++t)
            for (Api api : all_apis()) {
                Call c;
                c.m = q.m, c.n = q.n, c.k = q.k, c.alpha = q.alpha, c.beta = q.beta;
                c.ta = t & 1, c.tb = t & 2, c.row_major = t & 4, c.ldc_pad = 2;
                // C's own storage for this call, plus a column/row beyond it in case m or n is 0,
                // holds random values with a NaN and the sentinel mixed in.
                Guarded a(c.a_extent(), c.lda()), b(c.b_extent(), c.ldb());
                a.fill_random(rng);
                b.fill_random(rng);
                Guarded cc({c.ldc(), std::max<int64_t>(c.c_extent().outer, 1)}, c.ldc());
                cc.fill_random(rng);
                cc.at(0, 0) = quiet_nan();
                cc.snapshot();
                ASSERT_TRUE(call_api(api, c, a.data(), b.data(), cc.data())) << c.describe();
                ASSERT_TRUE(cc.untouched()) << api_name(api) << " " << c.describe();
            }
}

// A, B and C each end exactly at an inaccessible page (their last column or row
// unpadded, as BLAS allows), so a read or write one float past any of them kills
// the test. Edge tiles, masked tails and packing of partial panels are where that
// happens; every way in, every layout and transpose pair.
TEST(Edges, NothingReadOrWrittenPastTheOperands) {
    const uint32_t seed = test_seed() + 10;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const ridge::BlockingParams bp = ridge::runtime_config().gemm(ridge::Dtype::f32).blocking;
    const int64_t shapes[][3] = {{1, 1, 1},       {bp.MR - 1, bp.NR - 1, 3}, {bp.MR + 1, bp.NR + 1, 17},
                                 {3, 2, bp.KC + 1}, {2 * bp.MR + 5, 3, 9},       {5, 2 * bp.NR + 1, 33},
                                 {33, 31, 29}};
    int serial = 0;
    for (Api api : all_apis())
        for (const auto& s : shapes)
            for (int t = 0; t < 8; ++t) {
                Call c;
                c.m = s[0], c.n = s[1], c.k = s[2], c.ta = t & 1, c.tb = t & 2, c.row_major = t & 4;
                c.alpha = kScalars[serial % kNumScalars][0], c.beta = kScalars[serial % kNumScalars][1];
                c.lda_pad = serial % 2, c.ldc_pad = (serial / 2) % 2;
                ++serial;
                if (c.alpha == 0.0f) c.alpha = 1.0f;  // make A and B be read
                Fenced a(min_storage(c.a_extent(), c.lda())), b(min_storage(c.b_extent(), c.ldb())),
                    cc(min_storage(c.c_extent(), c.ldc()));
                const size_t na = min_storage(c.a_extent(), c.lda()), nb = min_storage(c.b_extent(), c.ldb()),
                             nc = min_storage(c.c_extent(), c.ldc());
                for (size_t i = 0; i < na; ++i) a.data()[i] = dist(rng);
                for (size_t i = 0; i < nb; ++i) b.data()[i] = dist(rng);
                for (size_t i = 0; i < nc; ++i) cc.data()[i] = dist(rng);
                const auto expect = expected_c(c, a.data(), b.data(), cc.data());
                ASSERT_TRUE(call_api(api, c, a.data(), b.data(), cc.data())) << api_name(api) << " " << c.describe();
                ASSERT_TRUE(values_match(c, cc.data(), expect, bound_for(c))) << api_name(api);
            }
}

// The driver's arguments for call c on its operands.
ridge::GemmArgs driver_args(const Call& c, Operands& ops) {
    ridge::GemmArgs g;
    g.trans_a = c.ta, g.trans_b = c.tb, g.m = c.m, g.n = c.n, g.k = c.k;
    g.alpha = c.alpha, g.beta = c.beta;
    g.a = ops.a.data(), g.lda = c.lda(), g.b = ops.b.data(), g.ldb = c.ldb();
    g.c = ops.c.data(), g.ldc = c.ldc();
    return g;
}

// --- The driver with blockings far below the model's ---
// KC, MC and NC of a few tiles make every one of the five loops run more than
// once (with ragged last blocks), with one thread and with two.
TEST(Edges, TinyForcedBlockingsEveryLoopIterates) {
    const uint32_t seed = test_seed() + 9;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    const int64_t MR = ker->MR, NR = ker->NR;
    struct B {
        int64_t KC, MC, NC;
    };
    const B blockings[] = {{1, MR, NR}, {8, 2 * MR, 2 * NR}, {13, 3 * MR, NR}, {16, MR, 3 * NR}};
    int serial = 0;
    for (const B& blk : blockings)
        for (int threads : {1, 2})
        for (int mode = 0; mode < 3; ++mode) {
            // 1: B from memory (first_tile_reads_b_source, runs_k_steps_outside_jc); 2: ir outside jr
            const bool b_from_memory = mode == 1;
            ridge::GemmPlan plan;
            plan.kernel = ker;
            plan.blocking = {MR, NR, blk.KC, blk.MC, blk.NC};
            plan.threads = threads;
            plan.b_from_memory = b_from_memory;
            plan.b_beyond_cache_share = b_from_memory;
            plan.b_panel_columns_in_l2 = b_from_memory ? NR : 0;
            plan.b_panel_columns_for_ir_outside_jr = mode == 2 ? 2 * blk.NC : 0;  // every jc block's panel
            plan.a_from_memory = mode == 2;
            SCOPED_TRACE(std::string(ker->name) + " KC=" + std::to_string(blk.KC) + " MC=" +
                         std::to_string(blk.MC) + " NC=" + std::to_string(blk.NC) +
                         " threads=" + std::to_string(threads) +
                         (mode == 1 ? " B from memory" : mode == 2 ? " ir outside jr" : ""));
            // m, n, k above two blocks each and ragged, so each loop runs at least three times
            // and ends with a partial block; the last two shapes put both threads on one row
            // block (the last: two full rows of tiles, one block where MC >= 2 MR).
            const int64_t shapes[][3] = {{2 * blk.MC + 1, 2 * blk.NC + 3, 2 * blk.KC + 1},
                                         {3 * blk.MC - 1, 2 * blk.NC + NR - 1, 3 * blk.KC + 2},
                                         {MR + 1, 3 * blk.NC + 1, 2 * blk.KC + 5},
                                         {2 * MR, 2 * blk.NC + 1, 2 * blk.KC + 3}};
            for (const auto& s : shapes)
                for (int t = 0; t < 4; ++t) {
                    Call c;
                    c.m = s[0], c.n = s[1], c.k = s[2], c.ta = t & 1, c.tb = t & 2;
                    c.alpha = kScalars[serial % 4][0], c.beta = kScalars[serial % 4][1];
                    c.ldc_pad = 1 + serial % 3;
                    ++serial;
                    ASSERT_GT(c.n, blk.NC);
                    ASSERT_GT(c.k, blk.KC);
                    Operands ops(c, rng);
                    const auto expect = expected_c(c, ops.a.data(), ops.b.data(), ops.c.data());
                    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(driver_args(c, ops), plan)) << c.describe();
                    ASSERT_TRUE(ops.a.untouched());
                    ASSERT_TRUE(ops.b.untouched());
                    ASSERT_TRUE(matches(c, ops.c, expect, bound_for(c)));
                }
        }
}

// --- The order of the ir and jr loops (runs_ir_outside_jr) ---
// A spy kernel records the packed A and B panels of its first calls. With the
// ir loop outside jr, consecutive tiles share their A panel and move along the
// B panel; in the five loops' order they share their B micro-panel and move
// down the block of A. The plan's limit on the B panel decides, for one thread
// streaming A from memory.
std::vector<std::pair<const void*, const void*>> g_first_panels;  // (A, B) of the first two calls
const ridge::GemmKernel* g_order_real_kernel = nullptr;
void order_spy_ukr(int64_t kc, float alpha, const void* a, const void* b, float beta, float* c, int64_t ldc) {
    if (g_first_panels.size() < 2) g_first_panels.emplace_back(a, b);
    g_order_real_kernel->ukr(kc, alpha, a, b, beta, c, ldc);
}

// The library's fp32 kernel with its microkernel replaced by `spy_ukr`, which
// records what it is given and calls the real one (g_order_real_kernel).
ridge::GemmKernel f32_kernel_spied_on_by(ridge::GemmUkr spy_ukr) {
    g_order_real_kernel = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    ridge::GemmKernel spy = *g_order_real_kernel;
    spy.ukr = spy_ukr;
    spy.ukr_tiles = nullptr;  // one call per tile, so that the spy sees every tile
    return spy;
}

TEST(Edges, IrLoopOutsideJrWhereTheBPanelFitsItsShare) {
    const uint32_t seed = test_seed() + 10;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const ridge::GemmKernel spy = f32_kernel_spied_on_by(&order_spy_ukr);
    const int64_t MR = spy.MR, NR = spy.NR;
    for (int t = 0; t < 4; ++t)
        for (int with_limit = 0; with_limit < 4; ++with_limit) {
            const int64_t limit = with_limit < 2 ? 3 * NR : with_limit == 2 ? 2 * NR : 0;
            const bool a_from_memory = with_limit != 1;
            const bool ir_outside = limit >= 3 * NR && a_from_memory;  // the panel: 3 NR columns (NC 4 NR)
            Call c;
            c.m = 4 * MR, c.n = 3 * NR, c.k = 20, c.ta = t & 1, c.tb = t & 2;  // two blocks of A (MC 2 MR)
            c.alpha = 1.5f, c.beta = 0.5f, c.lda_pad = 3;
            SCOPED_TRACE(c.describe() + " limit " + std::to_string(limit) + " columns" +
                         (a_from_memory ? ", A from memory" : ", A in cache"));
            Operands ops(c, rng);
            const auto expect = expected_c(c, ops.a.data(), ops.b.data(), ops.c.data());
            ridge::GemmPlan plan{&spy, {MR, NR, 16, 2 * MR, 4 * NR}, 1};
            plan.b_panel_columns_for_ir_outside_jr = limit;
            plan.a_from_memory = a_from_memory;
            g_first_panels.clear();
            ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(driver_args(c, ops), plan));
            ASSERT_TRUE(matches(c, ops.c, expect, bound_for(c)));
            ASSERT_EQ(2u, g_first_panels.size());
            EXPECT_EQ(ir_outside, g_first_panels[1].first == g_first_panels[0].first) << "the same A panel";
            EXPECT_EQ(!ir_outside, g_first_panels[1].second == g_first_panels[0].second) << "the same B micro-panel";
        }
}

// --- One block of all of op(A)'s rows (packs_all_rows_as_one_block) ---
// With more rows than MC, one thread packs each KC step's op(A) whole and runs
// the k steps outside jc, where the plan's L3 limit and its floor (a block
// past L2: GemmPlan::a_rows_past_l2) admit m: the first B
// micro-panel then meets every A panel before the second micro-panel starts,
// past the MC rows where the five loops' order moves on to it. C comes out
// bit for bit as in the five loops, on one thread or two (each row slice of
// three A panels then one block), and matches the reference.
std::vector<const void*> g_first_b_panels;  // B panel of each of the first calls
void rows_spy_ukr(int64_t kc, float alpha, const void* a, const void* b, float beta, float* c, int64_t ldc) {
    if (g_first_b_panels.size() < 8) g_first_b_panels.push_back(b);
    g_order_real_kernel->ukr(kc, alpha, a, b, beta, c, ldc);
}

TEST(Edges, AllRowsOfAOneBlockWhereTheyFitTheL3Limit) {
    const uint32_t seed = test_seed() + 11;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const ridge::GemmKernel spy = f32_kernel_spied_on_by(&rows_spy_ukr);
    const int64_t MR = spy.MR, NR = spy.NR;
    for (int t = 0; t < 4; ++t) {
        Call c;
        // Six A panels (three blocks of MC = 2 MR), three B micro-panels per
        // L2-sized panel of 2 NR columns (two panels), three KC steps.
        c.m = 6 * MR, c.n = 4 * NR - 1, c.k = 40, c.ta = t & 1, c.tb = t & 2;
        c.alpha = 1.5f, c.beta = 0.5f, c.ldc_pad = 5;
        std::vector<float> first_c;  // C of the first run (limit 0: the five loops)
        struct Run {
            int64_t limit;
            int threads;
            int64_t floor = 0;  // GemmPlan::a_rows_past_l2
        };
        for (const Run run : {Run{0, 1}, Run{3 * MR, 1}, Run{6 * MR, 1}, Run{64 * MR, 1}, Run{64 * MR, 2},
                              Run{64 * MR, 1, 6 * MR}, Run{64 * MR, 1, 6 * MR + 1}}) {
            const bool one_block = run.limit >= c.m && run.floor <= c.m;
            SCOPED_TRACE(c.describe() + " limit " + std::to_string(run.limit) + " rows, floor " +
                         std::to_string(run.floor) + ", " + std::to_string(run.threads) + " thread(s)");
            std::mt19937 same = rng;  // every run on the same operands
            Operands ops(c, same);
            const auto expect = expected_c(c, ops.a.data(), ops.b.data(), ops.c.data());
            // Two threads split the rows (m > n): the spy's record is one thread's alone.
            ridge::GemmPlan plan{run.threads == 1 ? &spy : g_order_real_kernel, {MR, NR, 16, 2 * MR, 64 * NR},
                                 run.threads};
            plan.a_rows_in_l3 = run.limit;
            plan.a_rows_past_l2 = run.floor;
            plan.b_panel_columns_in_l2 = 2 * NR;
            g_first_b_panels.clear();
            ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(driver_args(c, ops), plan));
            ASSERT_TRUE(matches(c, ops.c, expect, bound_for(c)));
            ASSERT_TRUE(ops.c.untouched_outside());
            if (run.threads == 1) {
                ASSERT_EQ(8u, g_first_b_panels.size());
                // Calls 0-1 are the first block's A panels on the first micro-panel; call 2 is the
                // third A panel on it (one block of all rows) or the second micro-panel (the five loops).
                EXPECT_EQ(g_first_b_panels[0], g_first_b_panels[1]);
                EXPECT_EQ(one_block, g_first_b_panels[2] == g_first_b_panels[0]) << "the same B micro-panel";
            }
            const std::vector<float> this_c(ops.c.data(), ops.c.data() + c.ldc() * c.n);
            if (first_c.empty())
                first_c = this_c;
            else
                for (size_t i = 0; i < this_c.size(); ++i)
                    ASSERT_TRUE(same_bits(first_c[i], this_c[i])) << "C differs from the five loops' at " << i;
        }
        rng.discard(1);
    }
}

}  // namespace
