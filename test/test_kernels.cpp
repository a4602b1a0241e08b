// Every microkernel in the registry that this CPU can run: called directly on
// hand-packed panels, and through the blocked driver with a plan that uses it,
// on the shapes where kernels go wrong (k = 1, k around KC, partial tiles,
// strided C, beta = 0 over NaN). Also each kernel's panel packer, the
// small-problem kernels and the driver's small path, and the driver's side of
// the microkernel contract (a spy kernel records what it is handed).
// Kernels the CPU lacks are skipped, not passed.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <initializer_list>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dispatch/cpu_features.h"
#include "dispatch/dispatch.h"
#include "dispatch/paths.h"
#include "dispatch/registry.h"
#include "gemm/blocked_schedule.h"
#include "gemm/gemm.h"
#include "gemm/l1_sets.h"
#include "gemm/pack.h"
#include "gemm_check.h"
#include "tuning/model.h"
#include "tuning/topology.h"

using namespace ridge_test;

namespace {

// GemmPlan::a_rows_within_cache for a plan whose op(A) counts as within the cache whatever its rows.
constexpr int64_t kAllRows = INT64_MAX;

// Memory the microkernel contract asks for: 64-byte aligned packed panels.
struct AlignedFloats {
    explicit AlignedFloats(size_t count)
        : p(static_cast<float*>(std::aligned_alloc(64, (count * sizeof(float) + 63) / 64 * 64))) {}
    ~AlignedFloats() { std::free(p); }
    AlignedFloats(const AlignedFloats&) = delete;
    AlignedFloats& operator=(const AlignedFloats&) = delete;
    float* p;
};

class KernelTest : public ::testing::TestWithParam<size_t> {
protected:
    void SetUp() override {
        kernel_ = &ridge::gemm_kernels()[GetParam()];
        if (!ridge::cpu_supports(kernel_->isa))
            GTEST_SKIP() << kernel_->name << ": this CPU (or OS) lacks " << ridge::isa_name(kernel_->isa);
    }
    // The plan the library would build for this kernel on this machine.
    ridge::GemmPlan model_plan() const {
        ridge::GemmPlan plan;
        plan.kernel = kernel_;
        plan.blocking = ridge::blocking_from_model(ridge::machine_topology(), kernel_->MR, kernel_->NR,
                                                   sizeof(float));
        plan.threads = 1;
        return plan;
    }
    // A plan whose blocks are a few tiles, so every loop around the kernel runs several times.
    ridge::GemmPlan tiny_plan(int64_t kc) const {
        ridge::GemmPlan plan;
        plan.kernel = kernel_;
        plan.blocking = {kernel_->MR, kernel_->NR, kc, 2 * kernel_->MR, 2 * kernel_->NR};
        plan.threads = 1;
        return plan;
    }
    const ridge::GemmKernel* kernel_ = nullptr;
};

// Runs one column-major problem through gemm_f32 with `plan` and checks C
// against the double reference, including C's padding rows and guard band.
// A one-thread plan for `ker` with the model's blocking for this machine; tests set the path.
ridge::GemmPlan plan_with_model_blocking(const ridge::GemmKernel& ker) {
    ridge::GemmPlan plan;
    plan.kernel = &ker;
    plan.blocking = ridge::blocking_from_model(ridge::machine_topology(), ker.MR, ker.NR, sizeof(float));
    return plan;
}

// Whether `ker` has a small-problem kernel this CPU can run.
bool runs_small_kernel(const ridge::GemmKernel& ker) {
    return ker.small_f32 != nullptr && ridge::cpu_supports(ker.isa);
}

// A one-thread plan for `ker` that takes the small path (of its blocking only KC matters: the depth of its k steps).
ridge::GemmPlan small_path_plan(const ridge::GemmKernel& ker) {
    ridge::GemmPlan plan = plan_with_model_blocking(ker);
    plan.small_path = true;
    return plan;
}

// The driver's arguments for a column-major call on these operands, C at `c`.
ridge::GemmArgs driver_args(const Call& call, Operands& ops, float* c) {
    ridge::GemmArgs g;
    g.trans_a = call.ta, g.trans_b = call.tb;
    g.m = call.m, g.n = call.n, g.k = call.k;
    g.alpha = call.alpha, g.beta = call.beta;
    g.a = ops.a.data(), g.lda = call.lda();
    g.b = ops.b.data(), g.ldb = call.ldb();
    g.c = c, g.ldc = call.ldc();
    return g;
}

::testing::AssertionResult run_driver(const Call& call, const ridge::GemmPlan& plan, std::mt19937& rng) {
    Operands ops(call, rng);
    const auto expect = expected_c(call, ops.a.data(), ops.b.data(), ops.c.data());
    const ridge::GemmArgs g = driver_args(call, ops, ops.c.data());
    const ridge_status st = ridge::gemm(g, plan);
    if (st != RIDGE_SUCCESS) return ::testing::AssertionFailure() << call.describe() << ": status " << st;
    if (auto r = ops.a.untouched(); !r) return ::testing::AssertionFailure() << "A written: " << r.message();
    if (auto r = ops.b.untouched(); !r) return ::testing::AssertionFailure() << "B written: " << r.message();
    return matches(call, ops.c, expect, bound_for(call));
}

// The shapes, relative to the kernel's tile and the plan's KC, that test each edge of the kernel.
std::vector<Call> driver_shapes(int64_t MR, int64_t NR, int64_t KC) {
    struct S {
        int64_t m, n, k;
    };
    const S shapes[] = {
        {MR, NR, 1},                            // k = 1: one rank-1 update
        {1, 1, 1},                              // smallest tile: everything is edge
        {MR - 1, NR - 1, 1},                    // partial tile in both directions
        {MR, NR, std::max<int64_t>(KC - 1, 1)}, // k < KC: one block, odd depth
        {MR - 1, NR, KC},                       // m < MR, k exactly KC
        {MR, NR - 1, KC + 1},                   // n < NR, one KC block and a 1-deep remainder
        {2 * MR + 1, 2 * NR + 1, 3},            // m, n just above multiples of the tile
        {3 * MR, 3 * NR, 3 * KC + 5},           // several KC blocks, full tiles only
        {2 * MR + 3, NR + 2, 2 * KC + 7},       // ragged in every direction
        {5, 3 * NR + 1, 2 * KC},                // thin: one partial row of tiles, two full KC blocks
        {2 * MR, 2 * NR + 3, 2 * KC + 1},       // two full rows of tiles (one block at MC >= 2 MR)
    };
    std::vector<Call> calls;
    for (const S& s : shapes) {
        Call c;
        c.m = s.m, c.n = s.n, c.k = s.k;
        calls.push_back(c);
    }
    return calls;
}

// alpha and beta pairs: plain product over NaN (beta = 0 must not read C), generic
// scalings, accumulation (beta = 1), and a negative beta.
constexpr float kScalars[][2] = {{1.0f, 0.0f}, {-1.25f, 0.75f}, {1.0f, 1.0f}, {0.5f, -2.0f}};

TEST_P(KernelTest, DriverWithModelBlocking) {
    const uint32_t seed = test_seed();
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const ridge::GemmPlan plan = model_plan();
    SCOPED_TRACE(std::string(kernel_->name) + " KC=" + std::to_string(plan.blocking.KC));
    for (Call call : driver_shapes(kernel_->MR, kernel_->NR, plan.blocking.KC))
        for (int t = 0; t < 4; ++t)
            for (const auto& s : kScalars) {
                call.ta = t & 1, call.tb = t & 2;
                call.alpha = s[0], call.beta = s[1];
                // Strided C every other time: padding rows between m and ldc must survive.
                call.ldc_pad = (t % 2 == 0) ? 5 : 0;
                call.lda_pad = t, call.ldb_pad = 3 - t;
                ASSERT_TRUE(run_driver(call, plan, rng));
            }
}

TEST_P(KernelTest, DriverWithTinyBlocking) {
    const uint32_t seed = test_seed() + 1;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (int64_t kc : {1, 8, 24})
        for (bool b_from_memory : {false, true}) {
            // B from memory: first tiles read B in place (first_tile_reads_b_source), and
            // one-block problems with op(B) transposed run their k steps outside jc with
            // one-micro-panel B panels (runs_k_steps_outside_jc).
            ridge::GemmPlan plan = tiny_plan(kc);
            plan.b_from_memory = b_from_memory;
            plan.b_beyond_cache_share = b_from_memory;
            plan.b_panel_columns_in_l2 = b_from_memory ? kernel_->NR : 0;
            SCOPED_TRACE(std::string(kernel_->name) + " tiny KC=" + std::to_string(kc) +
                         (b_from_memory ? ", B from memory" : ""));
            for (Call call : driver_shapes(kernel_->MR, kernel_->NR, kc))
                for (int t = 0; t < 4; ++t) {
                    call.ta = t & 1, call.tb = t & 2;
                    call.alpha = kScalars[t][0], call.beta = kScalars[t][1];
                    call.ldc_pad = 3;
                    ASSERT_TRUE(run_driver(call, plan, rng));
                }
        }
}

// fp32 panels as the packers lay them out, kc steps deep, random in [-1, 1):
// A(i, p) = a.p[p*MR + i], B(p, j) = b.p[p*NR + j].
struct RandomPanels {
    RandomPanels(int64_t kc, int64_t MR, int64_t NR, std::mt19937& rng) : a(size_t(kc * MR)), b(size_t(kc * NR)) {
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        for (int64_t i = 0; i < kc * MR; ++i) a.p[i] = dist(rng);
        for (int64_t i = 0; i < kc * NR; ++i) b.p[i] = dist(rng);
    }
    AlignedFloats a, b;
};

// C[0:mr, 0:nr] = alpha * A * B + beta * (C as it was), checked in double.
::testing::AssertionResult tile_matches_panels(const Guarded& c, int64_t MR, int64_t NR, int64_t mr, int64_t nr,
                                               int64_t kc, float alpha, const RandomPanels& panels, float beta) {
    const float* a = panels.a.p;
    const float* b = panels.b.p;
    const double bound = gemm_error_bound(kc, alpha, 1.0, 1.0, beta, 1.0);
    for (int64_t j = 0; j < nr; ++j)
        for (int64_t i = 0; i < mr; ++i) {
            double sum = 0.0;
            for (int64_t p = 0; p < kc; ++p) sum += double(a[p * MR + i]) * double(b[p * NR + j]);
            const double want = double(alpha) * sum + (beta == 0.0f ? 0.0 : double(beta) * double(c.saved_at(i, j)));
            if (std::abs(want - double(c.at(i, j))) > bound)
                return ::testing::AssertionFailure() << "tile element (" << i << "," << j << "): " << c.at(i, j)
                                                     << ", expected " << want << " within " << bound;
        }
    return ::testing::AssertionSuccess();
}

// The microkernel alone, on panels packed here by hand: C = alpha A B + beta C on
// one MR x NR tile, checked in double, with C's padding rows and guards untouched.
TEST_P(KernelTest, MicrokernelOnHandPackedPanels) {
    const uint32_t seed = test_seed() + 2;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const int64_t MR = kernel_->MR, NR = kernel_->NR;
    for (int64_t kc : {1, 2, 3, 8, 17, 64, 257})
        for (int64_t ldc : {MR, MR + 1, MR + 16})
            for (const auto& s : kScalars) {
                const float alpha = s[0], beta = s[1];
                SCOPED_TRACE(std::string(kernel_->name) + " kc=" + std::to_string(kc) +
                             " ldc=" + std::to_string(ldc) + " alpha=" + std::to_string(alpha) +
                             " beta=" + std::to_string(beta));
                const RandomPanels panels(kc, MR, NR, rng);
                Guarded c({MR, NR}, ldc);
                c.fill_random(rng);
                if (beta == 0.0f) c.fill(quiet_nan());  // must be overwritten, never read

                kernel_->ukr(kc, alpha, panels.a.p, panels.b.p, beta, c.data(), ldc);
                ASSERT_NE(1, ridge::upper_vector_state_in_use()) << "returned with the upper vector state in use";

                ASSERT_TRUE(tile_matches_panels(c, MR, NR, MR, NR, kc, alpha, panels, beta));
                ASSERT_TRUE(c.untouched_outside());
            }
}

// The edge twin alone, on hand-packed panels: every partial tile mr x nr,
// checked in double against the panels' first mr rows and nr columns (the rest
// of the panels hold values that must not leak in), C beyond mr x nr untouched
// (its padding rows and guards), beta = 0 over NaN; and bit for bit what the
// full kernel writes to those mr x nr elements of a whole tile, since a
// schedule may run a tile through either (or the small kernel, which the
// thread tests tie to the edge twin).
TEST_P(KernelTest, EdgeTwinComputesOnlyItsPartOfTheTile) {
    if (kernel_->ukr_edge == nullptr) GTEST_SKIP() << kernel_->name << " has no edge twin";
    const uint32_t seed = test_seed() + 12;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const int64_t MR = kernel_->MR, NR = kernel_->NR;
    int serial = 0;
    for (int64_t mr = 1; mr <= MR; ++mr)
        for (int64_t nr = 1; nr <= NR; ++nr) {
            if (mr == MR && nr == NR) continue;  // a full tile is the kernel's own
            const int64_t kc = int64_t{1} + (serial * 7) % 40;
            const float alpha = kScalars[serial % 4][0], beta = kScalars[serial % 4][1];
            const int64_t ldc = mr + serial % 3;
            ++serial;
            SCOPED_TRACE(std::string(kernel_->name) + " mr=" + std::to_string(mr) + " nr=" + std::to_string(nr) +
                         " kc=" + std::to_string(kc) + " alpha=" + std::to_string(alpha) +
                         " beta=" + std::to_string(beta));
            const RandomPanels panels(kc, MR, NR, rng);
            Guarded c({mr, nr}, ldc);
            c.fill_random(rng);
            if (beta == 0.0f) c.fill(quiet_nan());

            std::vector<float> whole(size_t(MR * NR), 0.0f);  // the full kernel's tile, ldc = MR
            for (int64_t j = 0; j < nr; ++j)
                for (int64_t i = 0; i < mr; ++i) whole[size_t(i + j * MR)] = c.at(i, j);

            kernel_->ukr_edge(mr, nr, kc, alpha, panels.a.p, panels.b.p, beta, c.data(), ldc);
            kernel_->ukr(kc, alpha, panels.a.p, panels.b.p, beta, whole.data(), MR);

            ASSERT_TRUE(tile_matches_panels(c, MR, NR, mr, nr, kc, alpha, panels, beta));
            ASSERT_TRUE(c.untouched_outside());
            for (int64_t j = 0; j < nr; ++j)
                for (int64_t i = 0; i < mr; ++i)
                    ASSERT_EQ(0, std::memcmp(&whole[size_t(i + j * MR)], &c.at(i, j), sizeof(float)))
                        << "C(" << i << ", " << j << "): edge twin " << c.at(i, j) << ", full kernel "
                        << whole[size_t(i + j * MR)];
        }
}

// The packing twin (GemmKernel::ukr_packing_a) on A where a caller keeps it
// (lda past MR, the first element off a 64-byte boundary): the panel it
// stores is the kernel's packer's panel, bit for bit, and the tile it writes
// is what the kernel writes from that panel, bit for bit, beta = 0 over NaN
// among the scalars; every full tile of the blocked path's first micro-panel
// takes it.
TEST_P(KernelTest, PackingTwinStoresThePackersPanelAndWritesTheKernelsBits) {
    if (kernel_->ukr_packing_a == nullptr) GTEST_SKIP() << kernel_->name << " has no packing twin";
    const uint32_t seed = test_seed() + 23;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const int64_t MR = kernel_->MR, NR = kernel_->NR;
    for (int64_t kc : {1, 3, 8, 17, 64, 257})
        for (const auto& s : kScalars) {
            const float alpha = s[0], beta = s[1];
            const int64_t lda = MR + 1 + kc % 5;
            SCOPED_TRACE(std::string(kernel_->name) + " kc=" + std::to_string(kc) + " alpha=" + std::to_string(alpha) +
                         " beta=" + std::to_string(beta));
            const std::vector<float> a_store = random_matrix(1 + lda * kc, rng);  // A starts one float in
            const float* a = a_store.data() + 1;
            const RandomPanels panels(kc, MR, NR, rng);  // its B panel; its A panel is overwritten below
            kernel_->pack_panel(a, lda, true, MR, kc, MR, panels.a.p);
            const std::vector<float> c0 = beta == 0.0f ? std::vector<float>(size_t(MR * NR), quiet_nan())
                                                       : random_matrix(MR * NR, rng);
            std::vector<float> c_kernel = c0, c_twin = c0;
            kernel_->ukr(kc, alpha, panels.a.p, panels.b.p, beta, c_kernel.data(), MR);
            const AlignedFloats packed(size_t(MR * kc));
            kernel_->ukr_packing_a(kc, alpha, a, lda, packed.p, panels.b.p, beta, c_twin.data(), MR);
            ASSERT_NE(1, ridge::upper_vector_state_in_use()) << "returned with the upper vector state in use";
            ASSERT_EQ(0, std::memcmp(panels.a.p, packed.p, sizeof(float) * size_t(MR * kc))) << "not the packer's panel";
            ASSERT_EQ(0, std::memcmp(c_kernel.data(), c_twin.data(), sizeof(float) * c0.size())) << "not the kernel's tile";
        }
}

// The B-packing twin (GemmKernel::ukr_packing_b) on B where a caller keeps it
// (NN: NR columns ldb apart, the first element off a 64-byte boundary): the
// micro-panel it stores is the kernel's packer's, bit for bit, and the tile
// it writes is what the kernel writes from that panel, bit for bit, beta = 0
// over NaN among the scalars; k depths on both sides of its 16-step blocks
// and of the C prefetch's late steps.
TEST_P(KernelTest, PackingBTwinStoresThePackersPanelAndWritesTheKernelsBits) {
    if (kernel_->ukr_packing_b == nullptr) GTEST_SKIP() << kernel_->name << " has no B-packing twin";
    const uint32_t seed = test_seed() + 25;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const int64_t MR = kernel_->MR, NR = kernel_->NR;
    for (int64_t kc : {1, 3, 15, 16, 17, 33, 64, 127, 128, 129, 176, 257})
        for (const auto& s : kScalars) {
            const float alpha = s[0], beta = s[1];
            const int64_t ldb = kc + 1 + kc % 5;
            SCOPED_TRACE(std::string(kernel_->name) + " kc=" + std::to_string(kc) + " alpha=" + std::to_string(alpha) +
                         " beta=" + std::to_string(beta));
            const std::vector<float> b_store = random_matrix(1 + ldb * NR, rng);  // B starts one float in
            const float* b = b_store.data() + 1;
            const RandomPanels panels(kc, MR, NR, rng);  // its A panel; its B panel is overwritten below
            kernel_->pack_panel_b(b, ldb, false, NR, kc, NR, panels.b.p);
            const std::vector<float> c0 = beta == 0.0f ? std::vector<float>(size_t(MR * NR), quiet_nan())
                                                       : random_matrix(MR * NR, rng);
            std::vector<float> c_kernel = c0, c_twin = c0;
            kernel_->ukr(kc, alpha, panels.a.p, panels.b.p, beta, c_kernel.data(), MR);
            const AlignedFloats packed(size_t(NR * kc));
            kernel_->ukr_packing_b(kc, alpha, panels.a.p, b, ldb, packed.p, beta, c_twin.data(), MR);
            ASSERT_NE(1, ridge::upper_vector_state_in_use()) << "returned with the upper vector state in use";
            ASSERT_EQ(0, std::memcmp(panels.b.p, packed.p, sizeof(float) * size_t(NR * kc))) << "not the packer's panel";
            ASSERT_EQ(0, std::memcmp(c_kernel.data(), c_twin.data(), sizeof(float) * c0.size())) << "not the kernel's tile";
        }
}

// The kernel running a micro-panel's tiles in one call (GemmKernel::ukr_tiles):
// each tile of C is what one call of the kernel on its A panel writes, bit
// for bit, beta = 0 over NaN among the scalars, with and without its prefetch
// of the next tile; the rows around the tiles (ldc past them) are untouched.
TEST_P(KernelTest, TilesInOneCallWriteTheKernelsBits) {
    if (kernel_->ukr_tiles == nullptr) GTEST_SKIP() << kernel_->name << " has no tiles-in-one-call entry";
    const uint32_t seed = test_seed() + 27;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const int64_t MR = kernel_->MR, NR = kernel_->NR;
    for (int64_t tiles : {1, 3})
        for (int64_t kc : {1, 3, 16, 17, 100, 127, 128, 129})
            for (const auto& s : kScalars)
                for (bool prefetch : {false, true}) {
                    const float alpha = s[0], beta = s[1];
                    SCOPED_TRACE(std::string(kernel_->name) + " tiles=" + std::to_string(tiles) + " kc=" +
                                 std::to_string(kc) + " alpha=" + std::to_string(alpha) + " beta=" +
                                 std::to_string(beta) + (prefetch ? " prefetching" : ""));
                    const int64_t panel = ridge::panel_bytes(MR, kc, kernel_->packed_bytes);
                    const AlignedFloats a(size_t(tiles * panel) / sizeof(float));
                    for (size_t i = 0; i < size_t(tiles * panel) / sizeof(float); ++i) a.p[i] = dist(rng);
                    const RandomPanels b(kc, MR, NR, rng);  // its B panel
                    const int64_t ldc = tiles * MR + 5;     // rows past the tiles, never written
                    std::vector<float> c0 = random_matrix(ldc * NR, rng);
                    if (beta == 0.0f)
                        for (int64_t j = 0; j < NR; ++j)
                            for (int64_t i = 0; i < tiles * MR; ++i) c0[size_t(i + j * ldc)] = quiet_nan();
                    std::vector<float> c_calls = c0, c_one = c0;
                    const char* panels = reinterpret_cast<const char*>(a.p);
                    for (int64_t t = 0; t < tiles; ++t)
                        kernel_->ukr(kc, alpha, panels + t * panel, b.b.p, beta, c_calls.data() + t * MR, ldc);
                    kernel_->ukr_tiles(tiles, kc, alpha, panels, panel, b.b.p, beta, c_one.data(), ldc, prefetch);
                    ASSERT_NE(1, ridge::upper_vector_state_in_use()) << "returned with the upper vector state in use";
                    ASSERT_EQ(0, std::memcmp(c_calls.data(), c_one.data(), sizeof(float) * c0.size()))
                        << "not the kernel's tiles";
                }
}

// A column-major fp32 call through the dispatcher with reporting on; *r its report.
::testing::AssertionResult dispatch_with_report(const Call& call, Operands& ops, ridge_report* r) {
    ridge::GemmArgs g;
    g.m = call.m, g.n = call.n, g.k = call.k, g.alpha = call.alpha, g.beta = call.beta;
    g.trans_a = call.ta, g.trans_b = call.tb;
    g.a = ops.a.data(), g.lda = call.lda(), g.b = ops.b.data(), g.ldb = call.ldb();
    g.c = ops.c.data(), g.ldc = call.ldc();
    ridge_set_report(1);
    const ridge_status status = ridge::dispatch_gemm(g);
    ridge_set_report(0);
    if (status != RIDGE_SUCCESS) return ::testing::AssertionFailure() << "dispatch_gemm: " << ridge_status_string(status);
    if (ridge_last_report(r) != RIDGE_SUCCESS) return ::testing::AssertionFailure() << "no report";
    return ::testing::AssertionSuccess();
}

// `call` (operands drawn from rng) through the dispatcher: it takes `path` and the result is right.
::testing::AssertionResult dispatched_on(const char* path, const Call& call, std::mt19937& rng) {
    Operands ops(call, rng);
    const auto expect = expected_c(call, ops.a.data(), ops.b.data(), ops.c.data());
    ridge_report r;
    if (auto ok = dispatch_with_report(call, ops, &r); !ok) return ok;
    if (std::string(path) != r.path)
        return ::testing::AssertionFailure() << call.describe() << ": path " << r.path << ", expected " << path;
    return matches(call, ops.c, expect, bound_for(call));
}

// A shape dispatch must send down `path` (both operands as stored unless
// transposed; lda_pad added to A's smallest leading dimension).
struct DispatchCase {
    int64_t m, n, k;
    bool ta, tb;
    int64_t lda_pad;
    const char* path;
};

// Every case through the dispatcher with alpha and beta: each on its path, each result right.
void expect_paths(std::initializer_list<DispatchCase> cases, float alpha, float beta, std::mt19937& rng) {
    for (const DispatchCase& c : cases) {
        Call call;
        call.m = c.m, call.n = c.n, call.k = c.k, call.ta = c.ta, call.tb = c.tb, call.lda_pad = c.lda_pad;
        call.alpha = alpha, call.beta = beta;
        EXPECT_TRUE(dispatched_on(c.path, call, rng));
    }
}

// A kernel's C-streaming twin (non-temporal stores) writes exactly what the
// kernel writes with beta = 0, bit for bit, over NaN it must not read, and
// nothing else: not the padding rows between MR and ldc, not the line before
// or after the tile. C is 64-byte aligned, ldc a multiple of 16, as the twin requires.
TEST_P(KernelTest, StreamingTwinWritesWhatTheKernelWritesWithBetaZero) {
    if (kernel_->ukr_stream_c == nullptr) GTEST_SKIP() << kernel_->name << " has no C-streaming twin";
    const uint32_t seed = test_seed() + 11;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const int64_t MR = kernel_->MR, NR = kernel_->NR, guard = 16;
    for (int64_t kc : {1, 16, 257})
        for (int64_t ldc : {MR, MR + 16})
            for (float alpha : {1.0f, -0.75f}) {
                SCOPED_TRACE(std::string(kernel_->name) + " kc=" + std::to_string(kc) + " ldc=" + std::to_string(ldc));
                AlignedFloats a(size_t(kc * MR)), b(size_t(kc * NR));
                for (int64_t i = 0; i < kc * MR; ++i) a.p[i] = dist(rng);
                for (int64_t i = 0; i < kc * NR; ++i) b.p[i] = dist(rng);
                const size_t floats = size_t(2 * guard + ldc * NR);
                AlignedFloats streamed(floats), stored(floats);
                for (size_t i = 0; i < floats; ++i) streamed.p[i] = stored.p[i] = quiet_nan();

                kernel_->ukr_stream_c(kc, alpha, a.p, b.p, 0.0f, streamed.p + guard, ldc);
                kernel_->ukr(kc, alpha, a.p, b.p, 0.0f, stored.p + guard, ldc);

                for (size_t i = 0; i < floats; ++i) {
                    const int64_t at = int64_t(i) - guard;  // position relative to C
                    const bool in_tile = at >= 0 && at < ldc * NR && at % ldc < MR;
                    if (in_tile) {
                        ASSERT_FALSE(std::isnan(streamed.p[i])) << "C(" << at % ldc << "," << at / ldc << ") not written";
                        ASSERT_EQ(0, std::memcmp(&streamed.p[i], &stored.p[i], sizeof(float)))
                            << "C(" << at % ldc << "," << at / ldc << "): " << streamed.p[i] << " vs " << stored.p[i];
                    } else {
                        ASSERT_TRUE(std::isnan(streamed.p[i])) << "wrote outside the tile at offset " << at;
                    }
                }
            }
}

// The dispatcher streams C out only where that cannot hurt: beta = 0, k within
// one KC step, C at least the last-level cache, and every column of C the same
// distance from a cache line (ldc a multiple of 16 floats). Such a call gives
// the right product (over NaN in C) and says so in its report, also when C
// starts 1, 4 (malloc's 16 bytes) or 15 floats into a line, and then C is bit
// for bit the aligned call's (the rows above the first aligned one run apart,
// with the same arithmetic; A transposed too, its rows being A^T's columns).
// With beta != 0, or with columns misaligned unevenly (ldc = 520), the same
// call takes the ordinary path.
TEST(Kernels, DispatchStreamsCOutOnlyForLargeWriteOnceC) {
    const ridge::GemmChoice& choice = ridge::runtime_config().gemm(ridge::Dtype::f32);
    if (choice.kernel->ukr_stream_c == nullptr) GTEST_SKIP() << choice.kernel->name << " has no C-streaming twin";
    const uint32_t seed = test_seed() + 12;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const int64_t m = 515, k = 16;  // m: 16 full 32-row tiles and an edge
    const int64_t n = int64_t(ridge::runtime_config().stream_c_min_bytes / (4.0 * m)) + 13;
    std::vector<float> a(size_t(m * k)), b(size_t(k * n));
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    std::vector<float> a_t(size_t(k * m));  // A^T, k x m
    for (int64_t i = 0; i < m; ++i)
        for (int64_t p = 0; p < k; ++p) a_t[size_t(p + i * k)] = a[size_t(i + p * m)];
    AlignedFloats c_buf(size_t(528 * n + 16));
    struct Case {
        float beta;
        int64_t c_offset;  // floats from a 64-byte boundary
        int64_t ldc;       // 528 and 520: a multiple of 16 above m, and not
        const char* path;
        bool trans_a = false;
    };
    std::vector<float> aligned_result;  // C (m x n) of the first case
    for (const Case& cs : {Case{0.0f, 0, 528, "blocked_stream_c"}, Case{0.5f, 0, 528, "blocked"},
                           Case{0.0f, 1, 528, "blocked_stream_c"}, Case{0.0f, 4, 528, "blocked_stream_c"},
                           Case{0.0f, 15, 528, "blocked_stream_c"}, Case{0.0f, 4, 520, "blocked"},
                           Case{0.0f, 4, 528, "blocked_stream_c", true}}) {
        SCOPED_TRACE(std::string("beta=") + std::to_string(cs.beta) + " C offset " + std::to_string(cs.c_offset) +
                     " ldc " + std::to_string(cs.ldc) + (cs.trans_a ? " A transposed" : ""));
        const int64_t ldc = cs.ldc;
        float* c = c_buf.p + cs.c_offset;
        for (int64_t i = 0; i < ldc * n; ++i) c[i] = cs.beta == 0.0f ? quiet_nan() : 1.0f;
        ridge::GemmArgs g;
        g.m = m, g.n = n, g.k = k, g.alpha = 1.5f, g.beta = cs.beta;
        g.a = a.data(), g.lda = m, g.b = b.data(), g.ldb = k, g.c = c, g.ldc = ldc;
        if (cs.trans_a) g.trans_a = true, g.a = a_t.data(), g.lda = k;
        ridge_set_report(1);
        ASSERT_EQ(RIDGE_SUCCESS, ridge::dispatch_gemm(g));
        ridge_set_report(0);
        ridge_report r;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
        EXPECT_STREQ(cs.path, r.path);
        const double bound = gemm_error_bound(k, g.alpha, 1.0, 1.0, cs.beta, 1.0);
        for (int64_t j = 0; j < n; j += 97)  // a sample of columns, every row and the padding
            for (int64_t i = 0; i < ldc; ++i) {
                const float got = c[i + j * ldc];
                if (i >= m) {
                    ASSERT_TRUE(cs.beta == 0.0f ? std::isnan(got) : got == 1.0f) << "padding row " << i << " written";
                    continue;
                }
                double want = cs.beta == 0.0f ? 0.0 : double(cs.beta) * 1.0;
                for (int64_t p = 0; p < k; ++p) want += double(g.alpha) * a[size_t(i + p * m)] * b[size_t(p + j * k)];
                ASSERT_NEAR(want, got, bound) << "C(" << i << "," << j << ")";
            }
        if (cs.beta != 0.0f) continue;
        if (aligned_result.empty()) {
            for (int64_t j = 0; j < n; ++j) aligned_result.insert(aligned_result.end(), c + j * ldc, c + j * ldc + m);
            continue;
        }
        for (int64_t j = 0; j < n; ++j)
            ASSERT_EQ(0, std::memcmp(c + j * ldc, &aligned_result[size_t(j * m)], size_t(m) * sizeof(float)))
                << "column " << j << " differs from the aligned call's";
    }
}

// With a short k and C streamed out (beta = 0, C at least the last-level
// cache, ldc a multiple of 16) the dispatcher keeps the block of A in L1 (two
// thirds of it, when that is at least 8 MR-row panels) instead of the model's
// L2-sized MC; with C in ordinary stores (the same shape with beta != 0), and
// with a k of a few hundred (KC itself: one step, which no rule deepens), the
// model's MC stands. Every call gives the right product.
TEST(Kernels, ShortKKeepsTheBlockOfAInL1WhereCStreamsOut) {
    const ridge::GemmChoice& choice = ridge::runtime_config().gemm(ridge::Dtype::f32);
    if (choice.kernel->packed_bytes != 4) GTEST_SKIP() << choice.kernel->name << " packs 16-bit panels";
    if (choice.kernel->ukr_stream_c == nullptr) GTEST_SKIP() << choice.kernel->name << " has no C-streaming twin";
    std::mt19937 rng(test_seed() + 13);
    const int64_t l1_two_thirds = 2 * ridge::machine_topology().l1.size_bytes / 3;
    const int64_t m = 704;  // a multiple of 16, taller than the small path takes: the blocked path
    const int64_t streamed_n = int64_t(ridge::runtime_config().stream_c_min_bytes / (4.0 * m)) + 13;
    for (int64_t k : {int64_t{16}, int64_t{32}, choice.blocking.KC})
        for (float beta : {0.0f, 0.5f}) {
            Call call;
            call.m = m, call.n = k <= 32 ? streamed_n : 710, call.k = k;
            call.alpha = 1.0f, call.beta = beta;
            Operands ops(call, rng);
            const auto expect = expected_c(call, ops.a.data(), ops.b.data(), ops.c.data());
            ridge_report r;
            ASSERT_TRUE(dispatch_with_report(call, ops, &r));
            // (k = KC: C of 704 x 710 is streamed only where the last-level cache is smaller than it)
            const bool streamed =
                beta == 0.0f && 4.0 * double(m) * double(call.n) >= ridge::runtime_config().stream_c_min_bytes;
            ASSERT_STREQ(streamed ? "blocked_stream_c" : "blocked", r.path) << call.describe();
            const int64_t block_row_bytes = ridge::packed_depth(r.MR, k, 4) * 4;
            const bool fits = l1_two_thirds / block_row_bytes >= 8 * r.MR && k <= choice.blocking.KC;
            if (streamed && fits) {
                EXPECT_LE(r.MC * block_row_bytes, l1_two_thirds) << call.describe();
                EXPECT_GE(r.MC, 8 * r.MR) << call.describe();
            } else {
                EXPECT_EQ(choice.blocking.MC, r.MC) << call.describe();
            }
            ASSERT_TRUE(matches(call, ops.c, expect, bound_for(call))) << call.describe();
        }
}

// Packed panels follow one another with a stride that keeps each on a 64-byte
// boundary (the kernels load A panels aligned), holds every k step the packer
// writes (whole k groups for 16-bit panels) and, for fp32 panels, pads k by
// less than one alignment step: a 32-row panel by nothing, a 12-column one by
// at most 3 steps.
TEST(Packing, PanelStrideIsAlignedAndTight) {
    for (const ridge::GemmKernel& ker : ridge::gemm_kernels())
        for (int64_t width : {int64_t{ker.MR}, int64_t{ker.NR}})
            for (int64_t kc = 1; kc <= 100; ++kc) {
                SCOPED_TRACE(std::string(ker.name) + " width " + std::to_string(width) + " kc " + std::to_string(kc));
                const int64_t depth = ridge::packed_depth(width, kc, ker.packed_bytes);
                EXPECT_EQ(ridge::panel_bytes(width, kc, ker.packed_bytes), width * depth * ker.packed_bytes);
                EXPECT_EQ(0, ridge::panel_bytes(width, kc, ker.packed_bytes) % 64);
                EXPECT_GE(depth, (kc + ker.k_group - 1) / ker.k_group * ker.k_group);
                if (ker.packed_bytes == 4) {
                    int64_t fewest = 1;  // k steps per 64-byte multiple
                    while ((width * fewest * 4) % 64 != 0) ++fewest;
                    EXPECT_LT(depth - kc, fewest);
                }
            }
    EXPECT_EQ(16, ridge::packed_depth(32, 16, 4));  // the 32 x 12 kernel's A panel at k = 16: no padding
    EXPECT_EQ(20, ridge::packed_depth(12, 17, 4));  // its B panel: 12 x 4 steps x 4 bytes = 192 = 3 lines
}

// The kernel's panel packer, as gemm_kernel.h defines it: dst[p*width + i] = X(i, p)
// for i < rows and exactly 0 for rows <= i < width, nothing written past
// width*kc floats, nothing read past the source (it ends at an inaccessible page).
// Widths MR and NR, and MR/2 + 4, which no driver passes: a last group of
// vector lanes only partly inside the panel after a whole one (the packers
// store such a group masked, where a whole panel's lanes go out unmasked).
TEST_P(KernelTest, PackPanelLayout) {
    const uint32_t seed = test_seed() + 6;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    ASSERT_NE(nullptr, kernel_->pack_panel);
    for (int64_t width : {int64_t{kernel_->MR}, int64_t{kernel_->NR}, int64_t{kernel_->MR / 2 + 4}})
        for (int64_t rows = 1; rows <= width; ++rows)
            for (int64_t kc : {1, 2, 15, 16, 17, 33})
                for (bool contiguous : {true, false}) {
                    // contiguous: X(i, p) = src[i + p*ld]; strided: X(i, p) = src[p + i*ld].
                    const int64_t ld = (contiguous ? rows : kc) + (rows % 3);
                    const Extent e = contiguous ? Extent{rows, kc} : Extent{kc, rows};
                    Fenced src(min_storage(e, ld));
                    const size_t n_src = min_storage(e, ld);
                    for (size_t i = 0; i < n_src; ++i) src.data()[i] = dist(rng);
                    const int64_t guard = 64;
                    AlignedFloats dst(size_t(width * kc + guard));
                    for (int64_t i = 0; i < width * kc + guard; ++i) dst.p[i] = sentinel();

                    kernel_->pack_panel(src.data(), ld, contiguous, rows, kc, width, dst.p);

                    SCOPED_TRACE(std::string(kernel_->name) + " width=" + std::to_string(width) +
                                 " rows=" + std::to_string(rows) + " kc=" + std::to_string(kc) +
                                 (contiguous ? " rows contiguous" : " rows strided") + " ld=" + std::to_string(ld));
                    for (int64_t p = 0; p < kc; ++p)
                        for (int64_t i = 0; i < width; ++i) {
                            const float want = i < rows ? src.data()[contiguous ? i + p * ld : p + i * ld] : 0.0f;
                            ASSERT_TRUE(same_bits(want, dst.p[p * width + i]))
                                << "dst[" << p << "*width + " << i << "] = " << dst.p[p * width + i] << ", want " << want;
                        }
                    for (int64_t i = width * kc; i < width * kc + guard; ++i)
                        ASSERT_TRUE(same_bits(sentinel(), dst.p[i])) << "written past the panel at +" << i - width * kc;
                }
}

// The small-problem kernel (for kernels that have one) on operands read in place:
// every tile size mr x nr up to 2 MR x NR, B as stored both ways, C's rows past mr
// (up to ldc) and its guard band untouched, A and B ending at an inaccessible page.
TEST(Kernels, SmallKernelsOnInPlaceOperands) {
    const uint32_t seed = test_seed() + 7;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (const ridge::GemmKernel& ker : ridge::gemm_kernels()) {
        if (!runs_small_kernel(ker)) continue;
        int serial = 0;
        for (int64_t mr = 1; mr <= 2 * ker.MR; ++mr)  // the contract's tallest: gemm_small.cpp's tall tiles
            for (int64_t nr = 1; nr <= ker.NR; ++nr)
                for (int64_t k : {1, 7}) {
                    for (bool b_trans : {false, true}) {
                        const float alpha = kScalars[serial % 4][0], beta = kScalars[serial % 4][1];
                        ++serial;
                        const int64_t a_step = mr + serial % 3;
                        // op(B)(p, j) = b[p*b_step + j*b_col]: columns of B, or rows of B^T.
                        const int64_t b_step = b_trans ? nr + 1 : 1, b_col = b_trans ? 1 : k + 2;
                        const size_t na = size_t(a_step * (k - 1) + mr);
                        const size_t nb = size_t((k - 1) * b_step + (nr - 1) * b_col + 1);
                        Fenced a(na), b(nb);
                        for (size_t i = 0; i < na; ++i) a.data()[i] = dist(rng);
                        for (size_t i = 0; i < nb; ++i) b.data()[i] = dist(rng);
                        Guarded c({mr, nr}, mr + 3);
                        c.fill_random(rng);
                        if (beta == 0.0f) c.fill(quiet_nan());

                        ker.small_f32(mr, nr, k, alpha, a.data(), a_step, b.data(), b_step, b_col, beta, c.data(),
                                      c.ld());
                        const int upper_dirty = ridge::upper_vector_state_in_use();

                        SCOPED_TRACE(std::string(ker.name) + " small mr=" + std::to_string(mr) + " nr=" +
                                     std::to_string(nr) + " k=" + std::to_string(k) + (b_trans ? " B^T" : " B") +
                                     " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta));
                        ASSERT_NE(1, upper_dirty) << "returned with the upper vector state in use (no vzeroupper)";
                        const double bound = gemm_error_bound(k, alpha, 1.0, 1.0, beta, 1.0);
                        for (int64_t j = 0; j < nr; ++j)
                            for (int64_t i = 0; i < mr; ++i) {
                                double sum = 0.0;
                                for (int64_t p = 0; p < k; ++p)
                                    sum += double(a.data()[i + p * a_step]) * double(b.data()[p * b_step + j * b_col]);
                                const double want = double(alpha) * sum +
                                                    (beta == 0.0f ? 0.0 : double(beta) * double(c.saved_at(i, j)));
                                ASSERT_NEAR(want, c.at(i, j), bound) << "(" << i << "," << j << ")";
                            }
                        ASSERT_TRUE(c.untouched_outside());
                    }
                }
    }
}

// The skinny kernels (for kernels that have them): A read in place at a
// column stride, B as a k-major chunk with a row stride above nr; every tile
// size mr x nr up to the tile's (MR x NR for GemmKernel::skinny, 48 x 8 for
// skinny_tall, whose tiles of at most 32 rows run the other's code), k around
// the kernel's unrolling, beta = 0 (NaN in C must not survive), 1 (the chunks
// after the first) and others, the A prefetch on and off; C's rows past mr and
// its guard band untouched, A and B ending at an inaccessible page.
void check_skinny_kernel(ridge::GemmSkinnyUkr skinny, const std::string& name, int64_t MR, int64_t NR,
                         std::mt19937& rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const float scalars[][2] = {{1.0f, 0.0f}, {1.0f, 1.0f}, {-0.5f, 1.0f}, {2.0f, -1.5f}, {0.75f, 0.0f}};
    int serial = 0;
    for (int64_t mr = 1; mr <= MR; ++mr)
        for (int64_t nr = 1; nr <= NR; ++nr)
            for (int64_t k : {1, 2, 7, 16}) {
                const float alpha = scalars[serial % 5][0], beta = scalars[serial % 5][1];
                const bool prefetch = serial % 2 == 1;
                ++serial;
                const int64_t lda = mr + serial % 3;
                const int64_t b_step = nr + serial % 4;  // the chunk holds all n >= nr columns
                const size_t na = size_t(lda * (k - 1) + mr);
                const size_t nb = size_t((k - 1) * b_step + nr);
                Fenced a(na), b(nb);
                for (size_t i = 0; i < na; ++i) a.data()[i] = dist(rng);
                for (size_t i = 0; i < nb; ++i) b.data()[i] = dist(rng);
                Guarded c({mr, nr}, mr + 3);
                c.fill_random(rng);
                if (beta == 0.0f) c.fill(quiet_nan());

                // The prefetch on: whole columns, or spread over 2 (fewer steps than a tall tile's
                // lines), 3 or 8 steps a column.
                const int64_t spread_steps[] = {1, 2, 3, 8};
                const ridge::SkinnyPrefetch next =
                    prefetch ? ridge::SkinnyPrefetch{a.data(), spread_steps[serial % 4]} : ridge::SkinnyPrefetch{};
                skinny(mr, nr, k, alpha, a.data(), lda, b.data(), b_step, beta, c.data(), c.ld(), next);
                const int upper_dirty = ridge::upper_vector_state_in_use();

                SCOPED_TRACE(name + " mr=" + std::to_string(mr) + " nr=" + std::to_string(nr) + " k=" +
                             std::to_string(k) + " alpha=" + std::to_string(alpha) + " beta=" +
                             std::to_string(beta) + (prefetch ? " prefetch" : ""));
                ASSERT_NE(1, upper_dirty) << "returned with the upper vector state in use (no vzeroupper)";
                const double bound = gemm_error_bound(k, alpha, 1.0, 1.0, beta, 1.0);
                for (int64_t j = 0; j < nr; ++j)
                    for (int64_t i = 0; i < mr; ++i) {
                        double sum = 0.0;
                        for (int64_t p = 0; p < k; ++p)
                            sum += double(a.data()[i + p * lda]) * double(b.data()[p * b_step + j]);
                        const double want =
                            double(alpha) * sum + (beta == 0.0f ? 0.0 : double(beta) * double(c.saved_at(i, j)));
                        ASSERT_NEAR(want, c.at(i, j), bound) << "(" << i << "," << j << ")";
                    }
                ASSERT_TRUE(c.untouched_outside());
            }
}

TEST(Kernels, SkinnyKernelsOnInPlaceOperands) {
    const uint32_t seed = test_seed() + 10;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int kernels = 0;
    for (const ridge::GemmKernel& ker : ridge::gemm_kernels()) {
        if (ker.skinny == nullptr || ker.input != ridge::Dtype::f32 || !ridge::cpu_supports(ker.isa)) continue;
        ++kernels;
        check_skinny_kernel(ker.skinny, std::string(ker.name) + " skinny", ker.MR, ker.NR, rng);
        if (ker.skinny_tall != nullptr)
            check_skinny_kernel(ker.skinny_tall, std::string(ker.name) + " skinny_tall", ridge::kSkinnyTallMR,
                                ridge::kSkinnyTallNR, rng);
    }
    if (kernels == 0) GTEST_SKIP() << "no kernel with a skinny kernel runs on this CPU";
}

// The registered kernels that run on this CPU and have what `has` asks for.
template <typename Has>
std::vector<const ridge::GemmKernel*> kernels_here(Has has) {
    std::vector<const ridge::GemmKernel*> out;
    for (const ridge::GemmKernel& ker : ridge::gemm_kernels())
        if (has(ker) && ridge::cpu_supports(ker.isa)) out.push_back(&ker);
    return out;
}
std::vector<const ridge::GemmKernel*> kernels_with_skinny_path() {  // fp32 (16-bit ones: test_kernels16)
    return kernels_here([](const ridge::GemmKernel& k) { return k.skinny != nullptr && k.input == ridge::Dtype::f32; });
}
std::vector<const ridge::GemmKernel*> kernels_with_few_rows_path() {  // fp32 (16-bit ones: test_kernels16)
    return kernels_here([](const ridge::GemmKernel& k) { return k.few_rows != nullptr && k.input == ridge::Dtype::f32; });
}

// C = 0.75 op(A) op(B) (m x n x k, random operands, tight leading dimensions)
// through `plan` on one thread, then bit for bit the same on 2 and 3.
void expect_same_bits_on_2_and_3_threads(ridge::GemmPlan plan, int64_t m, int64_t n, int64_t k, bool ta, bool tb,
                                         std::mt19937& rng) {
    std::vector<float> a(size_t(k * m)), b(size_t(k * n)), c1(size_t(m * n));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    ridge::GemmArgs g;
    g.trans_a = ta, g.trans_b = tb, g.m = m, g.n = n, g.k = k, g.alpha = 0.75f, g.beta = 0.0f;
    g.a = a.data(), g.lda = ta ? k : m, g.b = b.data(), g.ldb = tb ? n : k, g.c = c1.data(), g.ldc = m;
    plan.threads = 1;
    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
    for (int threads : {2, 3}) {
        std::vector<float> ct(c1.size(), quiet_nan());
        g.c = ct.data();
        plan.threads = threads;
        ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
        EXPECT_EQ(0, std::memcmp(ct.data(), c1.data(), c1.size() * sizeof(float))) << threads << " threads";
    }
}

// The chunk of k steps the skinny sweep runs for a problem of m x n C with
// `ker`, A (fp32 unless said) with its columns lda apart.
int64_t sweep_chunk_for(const ridge::GemmKernel& ker, int64_t m, int64_t n, int64_t lda, bool a_from_memory,
                        ridge::Dtype input = ridge::Dtype::f32) {
    ridge::GemmArgs g;
    g.m = m, g.n = n, g.lda = lda, g.input = input;
    return ridge::skinny_sweep_chunk(g, ker, a_from_memory, false);
}

// The driver's skinny path (few columns, A untransposed, read in place) with
// each kernel that has one: m around the MR tiles and the prefetch distance,
// every n up to the widest the path takes in a spread (column groups of
// uneven widths, one to eleven groups), k around the chunk lengths (8, 16, 32
// and 64 steps: A streamed from memory, at a column stride of 4 KiB too, and
// from a cache), B as stored both ways, padded leading dimensions, and 1 and 3
// threads (rows split between them).
TEST(Kernels, DriverSkinnyPathForEachKernelThatHasOne) {
    const uint32_t seed = test_seed() + 11;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const std::vector<const ridge::GemmKernel*> kernels = kernels_with_skinny_path();
    if (kernels.empty()) GTEST_SKIP() << "no kernel with a skinny kernel runs on this CPU";
    for (const ridge::GemmKernel* ker : kernels) {
        ridge::GemmPlan plan = plan_with_model_blocking(*ker);
        plan.skinny_path = true;
        SCOPED_TRACE(std::string(ker->name) + " skinny path");
        const int64_t MR = ker->MR;
        const int64_t ms[] = {MR * 2, MR * 2 + 1, MR * 5 - 3, MR * 7 + 17};
        const int64_t ns[] = {1, 2, 11, 12, 13, 16, 17, 24, 25, 32, 37, 64, ridge::kSkinnyMaxN};
        // A from memory; from memory with its columns 4 KiB apart (lda 1024: 8-step
        // chunks up to 8 columns of C); from a cache.
        const char* regimes[] = {"A from memory", "A from memory, lda 1024", "A from a cache"};
        for (int regime : {0, 1, 2})
        for (int64_t m : ms)
            for (int64_t n : ns)
                for (int64_t k : {1, 15, 16, 17, 33, 70}) {
                    SCOPED_TRACE(regimes[regime]);
                    plan.a_from_memory = regime < 2;
                    Call call;
                    call.m = m, call.n = n, call.k = k;
                    const int t = int((m + n + k) % 4);
                    call.tb = t & 1;
                    call.alpha = kScalars[t][0], call.beta = kScalars[t][1];
                    call.lda_pad = regime == 1 ? 1024 - m : t, call.ldb_pad = 3 - t, call.ldc_pad = (n % 2) ? 5 : 0;
                    if (regime == 1 && n <= 8)
                        ASSERT_EQ(8, sweep_chunk_for(*ker, m, n, call.lda(), true));
                    plan.threads = (k % 2 == 1) ? 3 : 1;
                    ASSERT_TRUE(run_driver(call, plan, rng));
                }
    }
}

// A one-thread plan on the skinny path whose kernel is spy: real with its
// skinny tiles (its own and the tall one) replaced by `own` and `tall`.
ridge::GemmPlan one_thread_skinny_plan(const ridge::GemmKernel& real, ridge::GemmKernel& spy, ridge::GemmSkinnyUkr own,
                                       ridge::GemmSkinnyUkr tall) {
    spy.skinny = own;
    spy.skinny_tall = tall;
    ridge::GemmPlan plan = plan_with_model_blocking(real);
    plan.kernel = &spy;
    plan.skinny_path = true;
    plan.threads = 1;
    return plan;
}

// Which tile the skinny sweep runs (gemm_skinny.cpp, uses_tall_tiles): a spy
// kernel counts the calls to each of the kernel's two skinny kernels, which it
// forwards, so C is still checked.
struct SkinnySpy {
    const ridge::GemmKernel* real = nullptr;
    int own = 0, tall = 0;
};
SkinnySpy g_skinny_spy;  // one thread only (plan.threads = 1)
void spy_skinny_own(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, int64_t lda, const float* b,
                    int64_t b_step, float beta, float* c, int64_t ldc, ridge::SkinnyPrefetch next) {
    ++g_skinny_spy.own;
    g_skinny_spy.real->skinny(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, next);
}
void spy_skinny_tall(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, int64_t lda, const float* b,
                     int64_t b_step, float beta, float* c, int64_t ldc, ridge::SkinnyPrefetch next) {
    ++g_skinny_spy.tall;
    g_skinny_spy.real->skinny_tall(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, next);
}

// The tall tile where its groups of 8 columns are full and the kernel's own
// are narrower than 12 (or n <= 8); for an fp32 A from memory wherever its
// groups are full past 20 columns, and at a column stride of a multiple of
// 4 KiB past 8; the kernel's own tile everywhere else.
TEST(Kernels, DriverSkinnyPathTakesTheTallTileWhereItPays) {
    const uint32_t seed = test_seed() + 16;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int kernels = 0;
    for (const ridge::GemmKernel* real : kernels_with_skinny_path()) {
        if (real->skinny_tall == nullptr || real->NR != 12) continue;
        ++kernels;
        ridge::GemmKernel spy = *real;
        ridge::GemmPlan plan = one_thread_skinny_plan(*real, spy, &spy_skinny_own, &spy_skinny_tall);
        struct Case {
            bool from_memory;
            int64_t n, lda;
            bool tall;
        };
        const Case cases[] = {
            {false, 4, 200, true},    {false, 8, 1024, true},   {false, 16, 200, true},  {false, 32, 1024, true},
            {false, 64, 200, true},   {false, 12, 1024, false}, {false, 20, 200, false}, {false, 24, 1024, false},
            {false, 48, 200, false},  {true, 16, 1024, true},   {true, 64, 2048, true},  {true, 8, 1024, false},
            {true, 4, 1024, false},   {true, 16, 1028, false},  {true, 24, 1024, true},  {true, 12, 1024, false},
            {true, 24, 1028, true},   {true, 48, 1028, true},   {true, 36, 1028, false}, {true, 20, 1024, false},
        };
        for (const Case& t : cases) {
            SCOPED_TRACE(std::string(real->name) + (t.from_memory ? " A from memory" : " A from a cache") +
                         " n=" + std::to_string(t.n) + " lda=" + std::to_string(t.lda));
            g_skinny_spy = SkinnySpy{real};
            plan.a_from_memory = t.from_memory;
            Call call;
            call.m = 150, call.n = t.n, call.k = 70;
            call.lda_pad = t.lda - call.m;
            ASSERT_TRUE(run_driver(call, plan, rng));
            EXPECT_EQ(t.tall, g_skinny_spy.tall > 0) << g_skinny_spy.tall << " tall calls";
            EXPECT_EQ(t.tall, g_skinny_spy.own == 0) << g_skinny_spy.own << " calls of the kernel's own tile";
        }
    }
    if (kernels == 0) GTEST_SKIP() << "no kernel with a 48 x 8 skinny tile runs on this CPU";
}

// The prefetch of the tile ahead on the skinny sweep (gemm_skinny.cpp:
// group_prefetch). A spy records each tile call's A and SkinnyPrefetch; the
// test plays the kernels' contract (gemm_kernel.h: column p / steps of next
// at k step p, line l at the column's step l mod steps) and checks that every
// line a tile reads from the second chunk of k on was prefetched by the calls
// before it, and by which calls: on one thread with A from memory, past two
// column groups (and a chunk of 64 steps or more), all of a tile's groups up
// to 8, the tile spread over them; otherwise the first group alone, a whole
// column a step.
struct PrefetchCall {
    const char* a;
    int64_t mr, kc, lda_bytes;
    int lines;  // the lines of a column of the tile ahead it prefetches: its kernel's 48 or 32 rows
    ridge::SkinnyPrefetch next;
};
std::vector<PrefetchCall> g_prefetch_calls;  // one thread only (plan.threads = 1)
const ridge::GemmKernel* g_prefetch_real = nullptr;
void record_prefetch(const void* a, int64_t mr, int64_t kc, int64_t lda, int lines, ridge::SkinnyPrefetch next) {
    g_prefetch_calls.push_back({static_cast<const char*>(a), mr, kc, lda * 4, lines, next});
}
void spy_prefetch_own(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, int64_t lda, const float* b,
                      int64_t b_step, float beta, float* c, int64_t ldc, ridge::SkinnyPrefetch next) {
    record_prefetch(a, mr, kc, lda, 2, next);
    g_prefetch_real->skinny(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, next);
}
void spy_prefetch_tall(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, int64_t lda, const float* b,
                       int64_t b_step, float beta, float* c, int64_t ldc, ridge::SkinnyPrefetch next) {
    record_prefetch(a, mr, kc, lda, 3, next);
    g_prefetch_real->skinny_tall(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, next);
}

TEST(Kernels, DriverSkinnySweepSpreadsTheTileAheadOverItsColumnGroups) {
    const uint32_t seed = test_seed() + 23;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int kernels = 0;
    for (const ridge::GemmKernel* real : kernels_with_skinny_path()) {
        if (real->skinny_tall == nullptr || real->NR != 12 || real->input != ridge::Dtype::f32) continue;
        ++kernels;
        ridge::GemmKernel spy = *real;
        ridge::GemmPlan plan = one_thread_skinny_plan(*real, spy, &spy_prefetch_own, &spy_prefetch_tall);
        g_prefetch_real = real;
        struct Case {
            bool from_memory;
            int64_t n, groups, steps;  // column groups of a tile, steps a column (1: the first group alone)
        };
        // 288 rows (A starts off a cache line: a head tile, then tiles of 48 or 32 rows), lda off the
        // multiples of 1 KiB: chunks of 256 and 80 steps on the tall tiles from memory, 64 on the
        // kernel's own (n = 36).
        const Case cases[] = {{true, 64, 8, 8}, {true, 24, 3, 3}, {true, 48, 6, 6},  {true, 128, 16, 8},
                              {true, 36, 3, 3}, {true, 16, 2, 1}, {false, 64, 8, 1}, {false, 40, 5, 1}};
        for (const Case& t : cases) {
            SCOPED_TRACE(std::string(real->name) + (t.from_memory ? " A from memory" : " A from a cache") +
                         " n=" + std::to_string(t.n));
            g_prefetch_calls.clear();
            plan.a_from_memory = t.from_memory;
            Call call;
            call.m = 288, call.n = t.n, call.k = 336;
            call.lda_pad = 16;
            ASSERT_TRUE(run_driver(call, plan, rng));
            ASSERT_FALSE(g_prefetch_calls.empty());
            // Every call's groups: which of them prefetch, at how many steps a column.
            ASSERT_EQ(0u, g_prefetch_calls.size() % size_t(t.groups));
            for (size_t i = 0; i < g_prefetch_calls.size(); ++i) {
                const int64_t grp = int64_t(i) % t.groups;
                const ridge::SkinnyPrefetch& next = g_prefetch_calls[i].next;
                const int64_t steps = g_prefetch_calls[i].kc >= 64 ? t.steps : 1;
                // The sweep's last tiles (up to 4: gemm_skinny.cpp, prefetch_tiles_ahead) have none ahead.
                const bool last_tile = i + size_t(4 * t.groups) >= g_prefetch_calls.size();
                const int64_t prefetching_groups = steps == 1 ? 1 : std::min(steps, t.groups);
                if (!last_tile)
                    EXPECT_EQ(grp < prefetching_groups, next.a != nullptr) << "call " << i << ", group " << grp;
                else if (grp >= prefetching_groups)
                    EXPECT_EQ(nullptr, next.a) << "call " << i << ", group " << grp;
                if (next.a != nullptr) EXPECT_EQ(steps, next.steps_per_column) << "call " << i;
            }
            // The lines (address / 64) each call prefetches, as the kernels' contract has it, and
            // the lines each reads.
            auto line_of = [](const char* p) { return uintptr_t(p) / 64; };
            std::set<uintptr_t> prefetched;
            int64_t checked = 0;
            for (size_t i = 0; i < g_prefetch_calls.size(); ++i) {
                const PrefetchCall& c = g_prefetch_calls[i];
                // From the second chunk on (its first tiles come ahead of the first chunk's last ones).
                if ((c.a - g_prefetch_calls.front().a) / c.lda_bytes > 0)
                    for (int64_t p = 0; p < c.kc; ++p) {
                        const char* column = c.a + p * c.lda_bytes;
                        for (uintptr_t l = line_of(column); l <= line_of(column + 4 * c.mr - 1); ++l, ++checked) {
                            ASSERT_TRUE(prefetched.count(l))
                                << "call " << i << " (" << c.mr << " rows): column " << p << ", line "
                                << l - line_of(column) << " not prefetched";
                        }
                    }
                if (c.next.a == nullptr) continue;
                const char* next = static_cast<const char*>(c.next.a);
                const int64_t steps = c.next.steps_per_column;
                for (int64_t p = 0; p < c.kc; ++p)
                    for (int64_t l = p % steps; l < c.lines; l += steps)
                        prefetched.insert(line_of(next + p / steps * c.lda_bytes + 64 * l));
                if (c.kc % steps != 0)  // the last column's lines its steps did not reach, after them
                    for (int64_t l = 0; l < c.lines; ++l)
                        prefetched.insert(line_of(next + c.kc / steps * c.lda_bytes + 64 * l));
            }
            EXPECT_GT(checked, 0);
        }
    }
    if (kernels == 0) GTEST_SKIP() << "no fp32 kernel with a 48 x 8 skinny tile runs on this CPU";
}

// A team's thread copies each chunk of B once (gemm_skinny.cpp: BChunks), not
// once for every piece of rows it claims: a spy on the kernel's transposing
// copy (which copies an untransposed B's chunks, one call per column group)
// counts the copies. Two threads, four pieces a share, four chunks of k: at
// most 2 x 4 copies of each group, where a copy per piece and chunk would be 32.
std::atomic<int> g_b_chunk_copies{0};
const ridge::GemmKernel* g_transpose_real = nullptr;
void spy_transpose(int64_t rows, int64_t cols, const float* src, int64_t lds, float* dst, int64_t ldd) {
    ++g_b_chunk_copies;
    g_transpose_real->transpose_c(rows, cols, src, lds, dst, ldd);
}

TEST(Kernels, DriverSkinnyTeamCopiesEachChunkOfBOncePerThread) {
    const uint32_t seed = test_seed() + 19;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int kernels = 0;
    for (const ridge::GemmKernel* real : kernels_with_skinny_path()) {
        if (real->transpose_c == nullptr) continue;
        ++kernels;
        SCOPED_TRACE(real->name);
        ridge::GemmKernel spy = *real;
        spy.transpose_c = &spy_transpose;
        g_transpose_real = real;
        ridge::GemmPlan plan = plan_with_model_blocking(*real);
        plan.kernel = &spy;
        plan.skinny_path = true;
        plan.a_from_memory = false;
        plan.threads = 2;
        Call call;
        call.m = 24 * real->MR, call.n = 16;
        const int64_t chunk = sweep_chunk_for(*real, call.m, call.n, call.m, false);
        call.k = 3 * chunk + 5;
        g_b_chunk_copies = 0;
        ASSERT_TRUE(run_driver(call, plan, rng));
        const int groups = int((call.n + real->NR - 1) / real->NR);
        EXPECT_GE(g_b_chunk_copies, 4 * groups);
        EXPECT_LE(g_b_chunk_copies, 2 * 4 * groups);
    }
    if (kernels == 0) GTEST_SKIP() << "no kernel with a skinny kernel and a transposing copy runs on this CPU";
}

// The skinny path over several blocks of rows (each block runs all its chunks
// of k before the next): m two blocks and a partial one, k over several chunks
// and a partial one, beta applied once per element (0 with NaN in C, others),
// 1 and 3 threads (a thread's rows may begin inside a block), taking turns
// by pairs of calls (both row counts of a width on one of them): each call's
// product in double is what this test spends its time on (under ASan it was
// the suite's longest test but one).
TEST(Kernels, DriverSkinnyPathOverSeveralBlocksOfRows) {
    const uint32_t seed = test_seed() + 15;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const std::vector<const ridge::GemmKernel*> kernels = kernels_with_skinny_path();
    if (kernels.empty()) GTEST_SKIP() << "no kernel with a skinny kernel runs on this CPU";
    for (const ridge::GemmKernel* ker : kernels) {
        ridge::GemmPlan plan = plan_with_model_blocking(*ker);
        plan.skinny_path = true;
        SCOPED_TRACE(std::string(ker->name) + " skinny path, several blocks of rows");
        int serial = 0;
        for (bool from_memory : {true, false})  // the chunks for A from memory, and from a cache
        for (int64_t n : {int64_t{12}, int64_t{40}, int64_t{64}, ridge::kSkinnyMaxN}) {
            const int64_t block = ridge::skinny_block_rows(n, ker->MR, from_memory);
            ASSERT_EQ(block % ker->MR, 0);
            plan.a_from_memory = from_memory;
            for (int64_t m : {2 * block + ker->MR * 3 + 5, block + 1}) {
                const int t = serial++ % 4;
                const int64_t k = 2 * sweep_chunk_for(*ker, m, n, m + t, from_memory) + 7;
                Call call;
                call.m = m, call.n = n, call.k = k;
                call.tb = t & 1;
                call.alpha = kScalars[t][0], call.beta = kScalars[t][1];
                call.lda_pad = t, call.ldc_pad = 3;
                plan.threads = t < 2 ? 1 : 3;
                ASSERT_TRUE(run_driver(call, plan, rng)) << m << " x " << n << " x " << k << ", " << plan.threads;
            }
        }
    }
}

// Whether C (m x n, ldc) is alpha * A * B within the error bound for k, A
// (m x k, lda) and B (k x n, ldb) untransposed with elements at most 1 in
// magnitude, the product taken in double; names the first element that is not.
testing::AssertionResult near_exact_product(const float* c, int64_t ldc, const float* a, int64_t lda,
                                            const float* b, int64_t ldb, int64_t m, int64_t n, int64_t k,
                                            float alpha) {
    const double bound = gemm_error_bound(k, alpha, 1.0, 1.0, 0.0f, 1.0);
    // A column of the product at a time, down A's columns (contiguous): the
    // same sums in the same order as an inner loop over k, without a stride of
    // lda per term (4000 rows x 64 x 400 took seconds that way, a minute and a
    // half under ASan).
    std::vector<double> want(static_cast<size_t>(m));
    for (int64_t j = 0; j < n; ++j) {
        std::fill(want.begin(), want.end(), 0.0);
        for (int64_t p = 0; p < k; ++p) {
            const double b_pj = b[p + j * ldb];
            const float* a_p = a + p * lda;
            for (int64_t i = 0; i < m; ++i) want[size_t(i)] += double(a_p[i]) * b_pj;
        }
        for (int64_t i = 0; i < m; ++i) {
            const double got = c[i + j * ldc];
            if (!(std::abs(alpha * want[size_t(i)] - got) <= bound))
                return testing::AssertionFailure() << "C(" << i << "," << j << ") = " << got << ", want "
                                                   << alpha * want[size_t(i)] << " within " << bound;
        }
    }
    return testing::AssertionSuccess();
}

// The skinny sweep on a team, with one thread slowed: a spy kernel forwards
// every tile to the real one and sleeps 2 ms after each tile of thread 0.
// With the rows split in advance each thread would run its half (32 of the 64
// tiles here); claimed in pieces (gemm_skinny.cpp, kPieceEndsInEighths), thread 1
// takes over the pieces of thread 0's share that it has not started, so
// thread 0 runs fewer than half. C is bit for bit the one-thread result and
// within the error bound of the exact product.
struct SkinnyTeamSpy {
    const ridge::GemmKernel* real = nullptr;
    std::atomic<int> tiles[2] = {};
};
SkinnyTeamSpy g_skinny_team_spy;
void spy_skinny_slow_thread_zero(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, int64_t lda,
                                 const float* b, int64_t b_step, float beta, float* c, int64_t ldc,
                                 ridge::SkinnyPrefetch next) {
    g_skinny_team_spy.real->skinny(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, next);
    const int t = omp_get_thread_num();
    ++g_skinny_team_spy.tiles[t == 0 ? 0 : 1];
    if (t == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

TEST(Kernels, DriverSkinnyTeamTakesOverTheSlowThreadsPieces) {
    const uint32_t seed = test_seed() + 19;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const std::vector<const ridge::GemmKernel*> kernels = kernels_with_skinny_path();
    if (kernels.empty()) GTEST_SKIP() << "no kernel with a skinny kernel runs on this CPU";
    const ridge::GemmKernel* real = kernels.front();
    ridge::GemmKernel spy = *real;
    spy.skinny = &spy_skinny_slow_thread_zero;
    spy.skinny_tall = nullptr;  // every tile through the spy
    ridge::GemmPlan plan = plan_with_model_blocking(*real);
    plan.skinny_path = true;
    plan.a_from_memory = false;
    // 64 tiles of rows, one column group, one chunk of k (at least 64 columns a chunk from a cache): 64 kernel calls.
    const int64_t tiles = 64, m = tiles * real->MR, n = real->NR, k = 64;
    ASSERT_LE(k, sweep_chunk_for(*real, m, n, m, false));
    AlignedFloats a(size_t(m * k)), b(size_t(k * n)), c_team(size_t(m * n)), c_one(size_t(m * n));
    for (int64_t i = 0; i < m * k; ++i) a.p[i] = dist(rng);
    for (int64_t i = 0; i < k * n; ++i) b.p[i] = dist(rng);
    ridge::GemmArgs g;
    g.m = m, g.n = n, g.k = k, g.alpha = 0.75f, g.beta = 0.0f;
    g.a = a.p, g.lda = m, g.b = b.p, g.ldb = k, g.ldc = m;

    g.c = c_one.p;
    plan.threads = 1;
    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
    ASSERT_TRUE(near_exact_product(c_one.p, m, a.p, m, b.p, k, m, n, k, g.alpha));

    g_skinny_team_spy.real = real;
    g_skinny_team_spy.tiles[0] = g_skinny_team_spy.tiles[1] = 0;
    plan.kernel = &spy;
    plan.threads = 2;
    g.c = c_team.p;
    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
    const int on_zero = g_skinny_team_spy.tiles[0], on_one = g_skinny_team_spy.tiles[1];
    EXPECT_EQ(tiles, on_zero + on_one);
    EXPECT_LT(on_zero, tiles / 2) << "thread 0 ran " << on_zero << " tiles, thread 1 " << on_one;
    EXPECT_EQ(0, std::memcmp(c_team.p, c_one.p, size_t(m * n) * sizeof(float))) << "C differs from one thread's";
}

// The skinny sweep's blocks of rows: as few as the largest block allows, equal
// to within a tile each (a malloc'ed A's head tile must not leave a block of
// one tile at the end), and never more rows than the scratch copy of C holds.
TEST(Kernels, SkinnySweepBlocksAreEqualAndFitTheScratch) {
    for (bool from_memory : {true, false})
    for (int64_t MR : {int64_t{16}, int64_t{32}, int64_t{48}}) {
        for (int64_t n : {int64_t{8}, int64_t{40}, int64_t{64}, ridge::kSkinnyMaxN}) {
            const int64_t nominal = ridge::skinny_block_rows(n, MR, from_memory) / MR;
            const int64_t largest = ridge::skinny_largest_block_rows(n, MR, from_memory) / MR;
            ASSERT_GE(largest, nominal);
            for (int64_t tiles = 1; tiles <= 4 * largest + 3; ++tiles) {
                SCOPED_TRACE("MR " + std::to_string(MR) + ", n " + std::to_string(n) + ", tiles " +
                             std::to_string(tiles) + (from_memory ? ", A from memory" : ", A cached"));
                const int64_t per = ridge::skinny_tiles_per_block(tiles, n, MR, from_memory);
                ASSERT_GE(per, 1);
                EXPECT_LE(per, largest);
                const int64_t blocks = (tiles + per - 1) / per;
                EXPECT_EQ(blocks, (tiles + largest - 1) / largest);
                const int64_t last = tiles - (blocks - 1) * per;
                EXPECT_GT(last, 0);
                EXPECT_LT(per - last, blocks);
            }
        }
    }
}

// The skinny sweep's chunks of k where A's columns lie a multiple of 4 KiB
// apart, or for fp32 of 1 KiB: 64 columns, on the tall tiles for an fp32 A
// from memory and for an A from a cache (longer chunks share a few sets of L1,
// and of L2 on 2 MiB pages: gemm_skinny.cpp, columns_on_few_l1_sets); longer
// ones off those strides, and for a 16-bit A 1 KiB apart, where they measured
// faster.
// Then C through two such chunks and a partial one (k = 135 at lda 1024), A
// from a cache and from memory, beta 0.5: within the error bound of the exact
// product, A and B untouched (run_driver).
// An fp32 A in a cache on the skinny sweep's tall tiles (48 x 8, 32 or 40
// columns of C: not a multiple of the kernel's NR) takes chunks of 256
// columns (gemm_skinny.cpp, kCachedTallChunkColumnsF32); on the kernel's own
// tiles (48 columns), or a 16-bit A, chunks stay 512.
TEST(Kernels, SkinnySweepOfACachedFp32AOnTallTilesTakes256Columns) {
    int kernels = 0;
    for (const ridge::GemmKernel* ker : kernels_with_skinny_path()) {
        if (ker->skinny_tall == nullptr || ker->NR != 12) continue;
        ++kernels;
        SCOPED_TRACE(ker->name);
        for (int64_t lda : {int64_t{448}, int64_t{1000}, int64_t{4000}}) {
            EXPECT_EQ(256, sweep_chunk_for(*ker, lda, 32, lda, false)) << "n 32, lda " << lda;
            EXPECT_EQ(256, sweep_chunk_for(*ker, lda, 40, lda, false)) << "n 40, lda " << lda;
            EXPECT_EQ(512, sweep_chunk_for(*ker, lda, 48, lda, false)) << "n 48 (12-column tiles), lda " << lda;
            EXPECT_EQ(512, sweep_chunk_for(*ker, lda, 32, lda, false, ridge::Dtype::f16)) << "fp16, lda " << lda;
        }
    }
    if (kernels == 0) GTEST_SKIP() << "no kernel with 48 x 8 tall tiles beside 12-column tiles runs on this CPU";
}

TEST(Kernels, SkinnySweepTakesShortChunksWhereAsColumnsAre4KiBApart) {
    const uint32_t seed = test_seed() + 32;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int kernels = 0;
    for (const ridge::GemmKernel* ker : kernels_with_skinny_path()) {
        ++kernels;
        for (int64_t n : {int64_t{8}, int64_t{16}, int64_t{24}, int64_t{32}, int64_t{48}, int64_t{64}}) {
            SCOPED_TRACE(std::string(ker->name) + " n=" + std::to_string(n));
            // fp32 columns 1, 2, 3, 4, 10, 12 and 16 KiB apart; then 2.5 KiB, 4112 and 16000 bytes.
            for (int64_t lda : {int64_t{256}, int64_t{512}, int64_t{768}, int64_t{1024}, int64_t{2560}, int64_t{3072},
                                int64_t{4096}})
                EXPECT_EQ(64, sweep_chunk_for(*ker, lda, n, lda, false)) << "A from a cache, lda " << lda;
            for (int64_t lda : {int64_t{640}, int64_t{1028}, int64_t{4000}})
                EXPECT_GT(sweep_chunk_for(*ker, lda, n, lda, false), 64) << "A from a cache, lda " << lda;
            // A 16-bit A 1 KiB apart keeps the long chunk; 4 KiB apart it does not.
            EXPECT_GT(sweep_chunk_for(*ker, 512, n, 512, false, ridge::Dtype::f16), 64) << "fp16 A, lda 512";
            EXPECT_EQ(64, sweep_chunk_for(*ker, 2048, n, 2048, false, ridge::Dtype::f16)) << "fp16 A, lda 2048";
            if (ker->skinny_tall == nullptr || n < 24) continue;  // the tall tiles from memory
            for (int64_t lda : {int64_t{512}, int64_t{1024}, int64_t{2560}, int64_t{3072}, int64_t{4096}})
                EXPECT_EQ(64, sweep_chunk_for(*ker, lda, n, lda, true)) << "A from memory, lda " << lda;
            for (int64_t lda : {int64_t{640}, int64_t{1028}, int64_t{4000}})
                EXPECT_GT(sweep_chunk_for(*ker, lda, n, lda, true), 64) << "A from memory, lda " << lda;
        }
        ridge::GemmPlan plan = plan_with_model_blocking(*ker);
        plan.skinny_path = true;
        plan.threads = 1;
        for (bool from_memory : {false, true})
            for (int64_t n : {int64_t{16}, int64_t{64}}) {
                SCOPED_TRACE(std::string(ker->name) + (from_memory ? " A from memory" : " A from a cache") +
                             " n=" + std::to_string(n));
                plan.a_from_memory = from_memory;
                Call call;
                call.m = 150, call.n = n, call.k = 135;
                call.lda_pad = 1024 - call.m;
                call.beta = 0.5f;
                ASSERT_TRUE(run_driver(call, plan, rng));
            }
    }
    if (kernels == 0) GTEST_SKIP() << "no kernel with a skinny kernel runs on this CPU";
}

// The skinny path with A's columns starting 1, 4 (malloc's 16 bytes) or 15
// floats into a cache line, lda a multiple of 16 (the sweep then starts with a
// tile up to the first aligned row) or not: C is bit for bit what the aligned
// A gives (the tiles group rows differently, each element's sum is the same)
// and within the error bound of the exact product; 1 and 3 threads, m around
// the head tile (fewer rows than the head, one tile, several).
TEST(Kernels, DriverSkinnyPathWithAStartingInsideACacheLine) {
    const uint32_t seed = test_seed() + 14;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const std::vector<const ridge::GemmKernel*> kernels = kernels_with_skinny_path();
    if (kernels.empty()) GTEST_SKIP() << "no kernel with a skinny kernel runs on this CPU";
    for (const ridge::GemmKernel* ker : kernels) {
        ridge::GemmPlan plan = plan_with_model_blocking(*ker);
        plan.skinny_path = true;
        SCOPED_TRACE(std::string(ker->name) + " skinny path");
        const int64_t MR = ker->MR;
        for (int64_t m : {int64_t{3}, MR + 5, MR * 5 - 3})
            for (int64_t lda : {(m + 15) / 16 * 16 + 16, m + 3})
                for (int threads : {1, 3}) {
                    const int64_t n = 13, k = 40, ldc = m;
                    SCOPED_TRACE("m=" + std::to_string(m) + " lda=" + std::to_string(lda) +
                                 " threads=" + std::to_string(threads));
                    std::vector<float> a(size_t(lda * k)), b(size_t(k * n));
                    for (float& x : a) x = dist(rng);
                    for (float& x : b) x = dist(rng);
                    AlignedFloats a_buf(size_t(lda * k + 16));
                    std::vector<float> c(size_t(ldc * n)), aligned_c;
                    plan.threads = threads;
                    for (int64_t offset : {0, 1, 4, 15}) {
                        SCOPED_TRACE("A offset " + std::to_string(offset));
                        std::copy(a.begin(), a.end(), a_buf.p + offset);
                        std::fill(c.begin(), c.end(), quiet_nan());
                        ridge::GemmArgs g;
                        g.m = m, g.n = n, g.k = k, g.alpha = 1.25f, g.beta = 0.0f;
                        g.a = a_buf.p + offset, g.lda = lda, g.b = b.data(), g.ldb = k, g.c = c.data(), g.ldc = ldc;
                        ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
                        if (offset == 0) {
                            ASSERT_TRUE(near_exact_product(c.data(), ldc, a.data(), lda, b.data(), k, m, n, k, g.alpha));
                            aligned_c = c;
                            continue;
                        }
                        ASSERT_EQ(0, std::memcmp(c.data(), aligned_c.data(), c.size() * sizeof(float)))
                            << "C differs from the aligned A's";
                    }
                }
    }
}

// The skinny path through its scratch copy of C (ldc a multiple of 256 floats,
// at least 8 chunks of k: gemm_skinny.cpp): C bit for bit what the same call
// gives at ldc + 1 (C updated in place), the rows between m and ldc untouched,
// and with beta = 0 within the error bound of the exact product and no NaN of
// C left; beta = 0 over NaN (C not copied in) and 0.5 (copied in), A aligned
// and 16 bytes into a line (the copy shifted to the tiles' alignment), 1 and 3
// threads, in four calls that hold every pair of those (the eight
// combinations made this the suite's longest test under ASan, 93 s); one block
// of rows and three. The sweep as for an A from memory, A's columns a multiple
// of 1 KiB apart: its shortest chunks of k there (64 columns) and blocks (1024
// rows) make the 8 chunks and three blocks a product 16 times smaller than an
// A in a cache would (512 columns, 2048 rows at 64 columns of C: 21 s of the
// test_kernels' 60 under ASan), and whole-line columns give the A that starts
// 16 bytes into a line its head tile (RowTiles).
TEST(Kernels, DriverSkinnyPathThroughTheScratchCopyOfC) {
    const uint32_t seed = test_seed() + 16;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const std::vector<const ridge::GemmKernel*> kernels = kernels_with_skinny_path();
    if (kernels.empty()) GTEST_SKIP() << "no kernel with a skinny kernel runs on this CPU";
    constexpr float kUntouched = 7.0f;  // C's rows past m
    for (const ridge::GemmKernel* ker : kernels) {
        ridge::GemmPlan plan = plan_with_model_blocking(*ker);
        plan.skinny_path = true;
        plan.a_from_memory = true;
        SCOPED_TRACE(std::string(ker->name) + " skinny path, C through a scratch copy");
        const int64_t n_wide = 64, block = ridge::skinny_block_rows(n_wide, ker->MR, plan.a_from_memory);
        const std::pair<int64_t, int64_t> shapes[] = {{ker->MR * 5 - 3, 13}, {2 * block + ker->MR + 5, n_wide}};
        for (const auto& [m, n] : shapes) {
            const int64_t lda = (m + 16 + 255) / 256 * 256, ldc = (m + 255) / 256 * 256;
            const int64_t k = 8 * sweep_chunk_for(*ker, m, n, lda, plan.a_from_memory) + 5;
            std::vector<float> a(size_t(lda * k)), b(size_t(k * n)), c0(size_t(ldc * n));
            for (float& x : a) x = dist(rng);
            for (float& x : b) x = dist(rng);
            for (float& x : c0) x = dist(rng);
            AlignedFloats a_buf(size_t(lda * k + 16));
            struct Variant {
                int64_t offset;
                float beta;
                int threads;
            };
            for (const auto& [offset, beta, threads] :
                 {Variant{0, 0.0f, 1}, Variant{0, 0.5f, 3}, Variant{4, 0.0f, 3}, Variant{4, 0.5f, 1}}) {
                SCOPED_TRACE("m=" + std::to_string(m) + " n=" + std::to_string(n) + " A offset " +
                             std::to_string(offset) + " beta " + std::to_string(beta) + " threads " +
                             std::to_string(threads));
                std::copy(a.begin(), a.end(), a_buf.p + offset);
                plan.threads = threads;
                // C at ldc (through the scratch) and at ldc + 1 (in place): NaN where beta = 0
                // must not read it, C's values otherwise; kUntouched below row m.
                std::vector<float> c_by_ld[2];
                for (int in_place = 0; in_place < 2; ++in_place) {
                    const int64_t ld = ldc + in_place;
                    std::vector<float>& c = c_by_ld[in_place];
                    c.assign(size_t(ld * n), kUntouched);
                    for (int64_t j = 0; j < n; ++j)
                        for (int64_t i = 0; i < m; ++i) c[i + j * ld] = beta == 0.0f ? quiet_nan() : c0[i + j * ldc];
                    ridge::GemmArgs g;
                    g.m = m, g.n = n, g.k = k, g.alpha = 1.25f, g.beta = beta;
                    g.a = a_buf.p + offset, g.lda = lda, g.b = b.data(), g.ldb = k, g.c = c.data(), g.ldc = ld;
                    ASSERT_EQ(in_place == 0, ridge::skinny_uses_c_scratch(g, *ker, plan.a_from_memory));
                    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
                }
                for (int64_t j = 0; j < n; ++j) {
                    for (int64_t i = 0; i < m; ++i)
                        ASSERT_EQ(0, std::memcmp(&c_by_ld[0][i + j * ldc], &c_by_ld[1][i + j * (ldc + 1)],
                                                 sizeof(float)))
                            << "C(" << i << "," << j << ") " << c_by_ld[0][i + j * ldc] << " through the copy, "
                            << c_by_ld[1][i + j * (ldc + 1)] << " in place";
                    for (int64_t i = m; i < ldc; ++i)
                        ASSERT_EQ(kUntouched, c_by_ld[0][i + j * ldc]) << "row " << i << " past m, column " << j;
                }
                if (beta == 0.0f && offset == 0 && threads == 1)
                    ASSERT_TRUE(near_exact_product(c_by_ld[0].data(), ldc, a.data(), lda, b.data(), k, m, n, k,
                                                   1.25f));
            }
        }
    }
}

// The driver's small-problem path with each kernel that has one, on the same edge
// shapes as the blocked path (it has no blocking: the shapes only need to be ragged),
// and around the merged last row tile (a remainder of up to MR/2 rows joins the
// tile before it: m = MR + MR/2 is one tile, one more row is two). The calls
// take turns at op(A) in one block of rows, blocks of one row tile, and of two.
TEST(Kernels, DriverSmallPathForEachKernelThatHasOne) {
    const uint32_t seed = test_seed() + 8;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (const ridge::GemmKernel& ker : ridge::gemm_kernels()) {
        if (!runs_small_kernel(ker)) continue;
        ridge::GemmPlan plan = small_path_plan(ker);
        SCOPED_TRACE(std::string(ker.name) + " small path");
        std::vector<Call> shapes = driver_shapes(ker.MR, ker.NR, 40);
        for (int64_t m : {ker.MR + ker.MR / 2, ker.MR + ker.MR / 2 + 1, 2 * ker.MR + ker.MR / 2, ker.MR + 1}) {
            Call c;
            c.m = m, c.n = 2 * ker.NR - 3, c.k = 9 + m % 5;
            shapes.push_back(c);
        }
        int serial = 0;
        for (Call call : shapes)
            for (int t = 0; t < 4; ++t)
                for (const auto& s : kScalars) {
                    call.ta = t & 1, call.tb = t & 2;
                    call.alpha = s[0], call.beta = s[1];
                    call.ldc_pad = (t % 2 == 0) ? 5 : 0;
                    call.lda_pad = t, call.ldb_pad = 3 - t;
                    const int64_t block_floats[] = {0, 1, 2 * ker.MR * call.k};
                    plan.small_a_block_floats = block_floats[serial++ % 3];
                    SCOPED_TRACE("op(A) blocks of " + std::to_string(plan.small_a_block_floats) + " floats");
                    ASSERT_TRUE(run_driver(call, plan, rng));
                }
    }
}

// The small path where lda is a multiple of 4 KiB (gemm_small.cpp: tall tiles
// of 2 MR rows, or MR + MR/2 at 7-8 columns, up to 16 columns of C): row counts
// around those heights and their multiples, column counts around the kernel's
// halves and the limit, A untransposed (the tall tiles) and transposed (packed,
// MR rows as before), blocks of rows of one and two tiles and none, C outside
// untouched and equal to the reference; and the same C on 1, 2 and 3 threads.
TEST(Kernels, SmallPathTallTilesAtPowerOfTwoLda) {
    const uint32_t seed = test_seed() + 15;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (const ridge::GemmKernel& ker : ridge::gemm_kernels()) {
        if (!runs_small_kernel(ker)) continue;
        ridge::GemmPlan plan = small_path_plan(ker);
        SCOPED_TRACE(std::string(ker.name) + " small path, lda a multiple of 1024 floats");
        const int64_t MR = ker.MR;
        int serial = 0;
        for (int64_t m : {int64_t(1), MR - 1, MR + MR / 2, MR + MR / 2 + 1, 2 * MR, 2 * MR + 1, 4 * MR + 5})
            for (int64_t n : {1, 2, 6, 7, 8, 9, 12, 13, 16, 17, 40})
                for (int t = 0; t < 2; ++t) {
                    Call call;
                    call.m = m, call.n = n, call.k = 5 + serial % 7;
                    call.ta = t == 1;
                    // op(A) is m x k: A untransposed stores m rows a column, transposed k.
                    call.lda_pad = 1024 - (call.ta ? call.k : m);
                    call.ldc_pad = serial % 3;
                    call.alpha = kScalars[serial % 4][0], call.beta = kScalars[serial % 4][1];
                    const int64_t block_floats[] = {0, 1, 2 * MR * call.k};
                    plan.small_a_block_floats = block_floats[serial++ % 3];
                    SCOPED_TRACE(call.describe() + ", op(A) blocks of " + std::to_string(plan.small_a_block_floats) +
                                 " floats");
                    ASSERT_TRUE(run_driver(call, plan, rng));
                }
        // lda = m = 1024: tall tiles in blocks of two (so that every n has several
        // pieces to share) on 2 and 3 threads, C bit for bit as on one.
        ridge::GemmPlan blocked_rows = small_path_plan(ker);
        blocked_rows.small_a_block_floats = 2 * (2 * MR) * 9;
        for (int64_t n : {4, 8, 16}) {
            SCOPED_TRACE("1024 x " + std::to_string(n) + " x 9 on 1, 2 and 3 threads");
            expect_same_bits_on_2_and_3_threads(blocked_rows, 1024, n, 9, false, false, rng);
        }
    }
}

// Calls of the small kernel counted and the tallest tile it was given (one
// thread), the real one run.
struct SmallKernelSpy {
    const ridge::GemmKernel* real = nullptr;
    int calls = 0;
    int64_t tallest = 0;
};
SmallKernelSpy g_small_spy;
void spy_small(int64_t mr, int64_t nr, int64_t k, float alpha, const float* a, int64_t a_step, const float* b,
               int64_t b_step, int64_t b_col, float beta, float* c, int64_t ldc) {
    ++g_small_spy.calls;
    g_small_spy.tallest = std::max(g_small_spy.tallest, mr);
    g_small_spy.real->small_f32(mr, nr, k, alpha, a, a_step, b, b_step, b_col, beta, c, ldc);
}

// The small path's tall tiles where A's columns lie a multiple of 1 KiB (not
// 4 KiB) apart, for a kernel whose MR fp32 rows span two lines or more
// (gemm_small.cpp: a_columns_on_few_l1_sets): 2 MR rows at 1 and 3 KiB (4
// columns of C), MR at 1.25 KiB and for a kernel of one-line tiles; C equal
// to the reference either way. (m is a whole number of MR tiles, so no
// remainder joins a tile.)
TEST(Kernels, SmallPathTallTilesWhereColumnsAre1KiBApart) {
    const uint32_t seed = test_seed() + 36;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (const ridge::GemmKernel& real : ridge::gemm_kernels()) {
        if (!runs_small_kernel(real)) continue;
        ridge::GemmKernel spy = real;
        spy.small_f32 = &spy_small;
        g_small_spy.real = &real;
        const ridge::GemmPlan plan = small_path_plan(spy);
        const int64_t MR = real.MR;
        const bool two_line_tiles = MR * int64_t(sizeof(float)) >= 128;
        for (int64_t lda : {int64_t{256}, int64_t{768}, int64_t{320}}) {
            Call call;
            call.m = 8 * MR, call.n = 4, call.k = 21, call.lda_pad = lda - call.m;
            if (call.lda_pad < 0) continue;  // (a kernel of more than 32 rows)
            call.beta = 0.5f;
            SCOPED_TRACE(std::string(real.name) + " " + call.describe());
            g_small_spy.tallest = 0;
            ASSERT_TRUE(run_driver(call, plan, rng));
            const bool tall = two_line_tiles && (lda * int64_t(sizeof(float))) % 1024 == 0;
            EXPECT_EQ(tall ? 2 * MR : MR, g_small_spy.tallest) << "rows of the tallest tile";
        }
    }
}

// The small path where B is untransposed and ldb a multiple of 1024 floats
// (gemm_small.cpp: narrow_b_tiles, copies_b_panels), with a kernel wider than
// 8 columns: up to 320 rows it reads B in place in 8-column tiles (no
// workspace beyond op(A)'s panels), past 320 it copies each column tile of B
// into a k-major panel of the workspace first; a kernel of 8 columns or fewer
// reads B in place in its own tiles throughout. C equal to the reference and
// outside untouched for every n around both tile widths, both transposes of
// A, odd k and k beyond the kernel's KC steps, and the same bits on 1, 2 and
// 3 threads.
TEST(Kernels, SmallPathNarrowsOrCopiesBWhoseColumnsShareL1Sets) {
    const uint32_t seed = test_seed() + 23;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (const ridge::GemmKernel& ker : ridge::gemm_kernels()) {
        if (!runs_small_kernel(ker)) continue;
        ridge::GemmPlan plan = small_path_plan(ker);
        SCOPED_TRACE(std::string(ker.name) + " small path, ldb a multiple of 1024 floats");
        const int64_t MR = ker.MR, NR = ker.NR;
        const bool narrows = NR > 8;  // more columns than an 8-way L1 set holds lines
        int serial = 0;
        for (int64_t m : {int64_t(5), 2 * MR, 3 * MR - 1, 4 * MR + 5, int64_t(320), int64_t(321), int64_t(355)})
            for (int64_t n : {int64_t(1), int64_t(7), int64_t(8), int64_t(9), NR, NR + 1, 3 * NR + 2})
                for (int64_t k : {int64_t(7), int64_t(33), plan.blocking.KC + 9}) {
                    Call call;
                    call.m = m, call.n = n, call.k = k;
                    call.ta = serial % 2 == 1;
                    call.ldb_pad = (serial % 3 == 2 ? 2048 : 1024) - k;
                    call.lda_pad = serial % 3, call.ldc_pad = 2 - serial % 3;
                    call.alpha = kScalars[serial % 4][0], call.beta = kScalars[serial % 4][1];
                    ++serial;
                    SCOPED_TRACE(call.describe());
                    Operands ops(call, rng);
                    const ridge::GemmArgs g = driver_args(call, ops, ops.c.data());
                    const size_t a_floats =
                        call.ta ? size_t((m + MR - 1) / MR * MR * ridge::panel_depth(k)) : size_t(0);
                    // 8-column tiles and no B panel up to 320 rows; past them NR-column tiles and a B panel.
                    EXPECT_EQ(narrows && m > 320, ridge::gemm_small_workspace_floats(g, ker) > a_floats);
                    EXPECT_EQ(narrows && m <= 320 ? 8 : NR, ridge::small_column_tile_width(g, ker));
                    ASSERT_TRUE(run_driver(call, plan, rng));
                }
        // Untransposed B at ldb = k = 1024 (8-column tiles; copied panels with
        // more rows) and 1040 (read in place): one to three threads claim
        // column tiles, each copying its own.
        for (int64_t m : {4 * MR, int64_t(352)})
            for (int64_t k : {1024, 1040}) {
                SCOPED_TRACE(std::to_string(m) + " x 5 NR x " + std::to_string(k) + " on 1, 2 and 3 threads");
                expect_same_bits_on_2_and_3_threads(plan, m, 5 * NR, k, false, false, rng);
            }
    }
}

// The small path's blocks of rows of op(A) (gemm_small.cpp): as many as its
// block size gives, equal, and C bit for bit what one block gives (every tile
// of C is still one kernel call over all of k), with the merged last row tile
// (5 MR + 3 rows: 5 tiles) in the last block, every transpose pair.
TEST(Kernels, SmallPathBlocksOfRowsLeaveCBitForBit) {
    const uint32_t seed = test_seed() + 14;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (const ridge::GemmKernel& ker : ridge::gemm_kernels()) {
        if (!runs_small_kernel(ker)) continue;
        SCOPED_TRACE(ker.name);
        Call call;
        call.m = 5 * ker.MR + 3, call.n = 3 * ker.NR + 1, call.k = 37, call.alpha = 0.75f, call.beta = -0.5f;
        const int64_t tile_floats = ker.MR * call.k;
        // op(A) per block -> blocks: none -> 1; one tile -> 5; two -> 3 (2 + 2 + 1); three -> 2 (3 + 2).
        const int64_t blocks_for[][2] = {{0, 1}, {1, 5}, {tile_floats, 5}, {2 * tile_floats, 3},
                                         {3 * tile_floats, 2}, {5 * tile_floats, 1}};
        for (int t = 0; t < 4; ++t) {
            call.ta = t & 1, call.tb = t & 2, call.lda_pad = t;
            SCOPED_TRACE(call.describe());
            Operands ops(call, rng);
            ridge::GemmArgs g = driver_args(call, ops, nullptr);
            ridge::GemmPlan plan = small_path_plan(ker);
            std::vector<float> one_block;
            for (const auto& [block_floats, blocks] : blocks_for) {
                EXPECT_EQ(blocks, ridge::small_row_blocks(g, ker, block_floats)) << block_floats << " floats per block";
                Guarded c = ops.c;
                g.c = c.data();
                plan.small_a_block_floats = block_floats;
                ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
                ASSERT_TRUE(c.untouched_outside());
                const std::vector<float> got(c.data(), c.data() + call.ldc() * call.n);
                if (block_floats == 0) {
                    ASSERT_TRUE(matches(call, c, expected_c(call, ops.a.data(), ops.b.data(), ops.c.data()),
                                        bound_for(call)));
                    one_block = got;
                } else {
                    EXPECT_EQ(0, std::memcmp(one_block.data(), got.data(), sizeof(float) * got.size()))
                        << "blocks of " << block_floats << " floats";
                }
            }
        }
    }
}

// The driver's few-rows path (m <= 64, B read in place) with each kernel that
// has one: every m from 1 to 16 (dot products in a 4-row tile up to 4 and an
// 8-row tile up to 8, outer products of 16-row columns above) and m around 32,
// 48 and 64 (outer products of 2, 3 and 4 vectors, the last one masked or a
// 256-bit half), n around the groups of 6 or 3 and of 16, 12, 8 or 6 columns
// (remainders of 1 and 2; of 8, 12 = 8 + 4, 23 = 16 + 4 + 2 + 1 or 12 + 8 + 2
// + 1 or 8 + 8 + 4 + 2 + 1 or 6 + 6 + 6 + 4 + 1),
// k around the 16-wide steps (the masked tail), every transpose pair, padded
// leading dimensions, 1 and 3 threads (groups split between them), and the
// outer form in passes over k of 16 or 32 steps (GemmPlan::few_rows_k_pass;
// each pass after the first adds to C, a transposed B gathered per pass);
// then C bit for bit the same on 1, 2 and 3 threads with passes.
TEST(Kernels, DriverSkinnyMPathForEachKernelThatHasOne) {
    const uint32_t seed = test_seed() + 9;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const std::vector<const ridge::GemmKernel*> kernels = kernels_with_few_rows_path();
    if (kernels.empty()) GTEST_SKIP() << "no kernel with a few-rows path runs on this CPU";
    for (const ridge::GemmKernel* ker : kernels) {
        ridge::GemmPlan plan = plan_with_model_blocking(*ker);
        plan.skinny_m_path = true;
        SCOPED_TRACE(std::string(ker->name) + " skinny_m path");
        for (int64_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 24, 31, 32, 33, 40, 47, 48, 49,
                          56, 57, 63, 64})
            for (int64_t n : {1, 2, 3, 4, 7, 12, 23, 24, 25, 32, 48, 71})
                for (int64_t k : {1, 2, 15, 16, 17, 33, 100}) {
                    Call call;
                    call.m = m, call.n = n, call.k = k;
                    const int t = int((m + n + k) % 4);
                    call.ta = t & 1, call.tb = t & 2;
                    call.alpha = kScalars[t][0], call.beta = kScalars[t][1];
                    call.lda_pad = t, call.ldb_pad = 3 - t, call.ldc_pad = (m % 2) ? 5 : 0;
                    plan.threads = (n > 24 && m % 3 == 0) ? 3 : 1;  // 3 threads: at least 2 groups
                    plan.few_rows_k_pass = k <= 16 ? 0 : (m + n) % 3 == 0 ? 0 : (m + n) % 3 == 1 ? 16 : 32;
                    ASSERT_TRUE(run_driver(call, plan, rng));
                }
        plan.few_rows_k_pass = 32;
        expect_same_bits_on_2_and_3_threads(plan, 40, 100, 150, false, false, rng);
        expect_same_bits_on_2_and_3_threads(plan, 24, 100, 150, false, true, rng);
        expect_same_bits_on_2_and_3_threads(plan, 60, 100, 150, false, false, rng);
        plan.few_rows_k_pass = 0;
    }
}

// The few-rows path's outer products with B's columns starting 1, 4 (malloc's
// 16 bytes) or 15 floats into a 16-float run, ldb a multiple of 16 (the kernel
// then takes the steps up to the next run first, so that every copy of a
// column reads one aligned run) or not: C is bit for bit what the aligned B
// gives (each element's sum runs over k in the same order) and within the
// error bound of the exact product; k shorter than the head steps, around
// them and over several runs; 1 and 3 threads.
TEST(Kernels, DriverSkinnyMPathWithBStartingInsideARun) {
    const uint32_t seed = test_seed() + 17;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const std::vector<const ridge::GemmKernel*> kernels = kernels_with_few_rows_path();
    if (kernels.empty()) GTEST_SKIP() << "no kernel with a few-rows path runs on this CPU";
    for (const ridge::GemmKernel* ker : kernels) {
        if (ker->few_rows_outer == nullptr) continue;
        ridge::GemmPlan plan = plan_with_model_blocking(*ker);
        plan.skinny_m_path = true;
        SCOPED_TRACE(std::string(ker->name) + " skinny_m path");
        for (int64_t m : {int64_t{9}, int64_t{16}, int64_t{32}, int64_t{48}, int64_t{64}})
            for (int64_t k : {int64_t{3}, int64_t{12}, int64_t{13}, int64_t{70}})
                for (int64_t ldb : {(k + 15) / 16 * 16 + 16, k + 3})
                    for (int threads : {1, 3}) {
                        const int64_t n = 37, lda = m, ldc = m + 2;
                        SCOPED_TRACE("m=" + std::to_string(m) + " k=" + std::to_string(k) + " ldb=" +
                                     std::to_string(ldb) + " threads=" + std::to_string(threads));
                        std::vector<float> a(size_t(lda * k)), b(size_t(ldb * n));
                        for (float& x : a) x = dist(rng);
                        for (float& x : b) x = dist(rng);
                        AlignedFloats b_buf(size_t(ldb * n + 16));
                        std::vector<float> c(size_t(ldc * n)), aligned_c;
                        plan.threads = threads;
                        for (int64_t offset : {0, 1, 4, 15}) {
                            SCOPED_TRACE("B offset " + std::to_string(offset));
                            std::copy(b.begin(), b.end(), b_buf.p + offset);
                            std::fill(c.begin(), c.end(), quiet_nan());
                            ridge::GemmArgs g;
                            g.m = m, g.n = n, g.k = k, g.alpha = 0.75f, g.beta = 0.0f;
                            g.a = a.data(), g.lda = lda, g.b = b_buf.p + offset, g.ldb = ldb;
                            g.c = c.data(), g.ldc = ldc;
                            ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
                            if (offset == 0) {
                                ASSERT_TRUE(near_exact_product(c.data(), ldc, a.data(), lda, b.data(), ldb, m, n, k, g.alpha));
                                aligned_c = c;
                                continue;
                            }
                            ASSERT_EQ(0, std::memcmp(c.data(), aligned_c.data(), c.size() * sizeof(float)))
                                << "C differs from the aligned B's";
                        }
                    }
    }
}

// The blocked path reads B in place (first_tile_reads_b_source) where op(B)
// outgrows each thread's share of the last-level cache: the whole cache for one
// thread, half of it for two, a third for three; counted in the input type's bytes.
TEST(Kernels, BReadInPlaceBeyondEachThreadsShareOfTheLastLevelCache) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const double llc = cfg.last_level_cache_bytes;
    ridge::GemmArgs g;
    g.input = ridge::Dtype::f32;
    g.k = 256;
    auto columns = [&](double share_of_llc, double elem_bytes) {
        return int64_t(share_of_llc * llc / (elem_bytes * double(g.k)));
    };
    g.n = columns(0.75, 4);
    EXPECT_FALSE(ridge::b_beyond_cache_share(cfg, g, 1));
    EXPECT_TRUE(ridge::b_beyond_cache_share(cfg, g, 2));
    g.n = columns(0.4, 4);
    EXPECT_FALSE(ridge::b_beyond_cache_share(cfg, g, 2));
    EXPECT_TRUE(ridge::b_beyond_cache_share(cfg, g, 3));
    g.n = columns(1.25, 4);
    EXPECT_TRUE(ridge::b_beyond_cache_share(cfg, g, 1));
    g.input = ridge::Dtype::bf16;  // the same columns in half the bytes
    EXPECT_FALSE(ridge::b_beyond_cache_share(cfg, g, 1));
    EXPECT_TRUE(ridge::b_beyond_cache_share(cfg, g, 2));
}

// The blocked path reads the block of A in place (reads_a_in_place in
// blocked_schedule.cpp) where one block covers m and A's columns are at most two
// thirds of MC floats apart (GemmPlan::a_in_place_max_lda, which a profile
// turns on: set here), and packs it otherwise. With each fp32 kernel
// that has a small kernel, one thread: the same problem with A's columns m
// apart (in place) and MC + 1 apart (packed) gives C bit for bit the same, and
// right against the double reference; partial tiles both ways, several KC
// steps, beta 0 over NaN and beta != 0, B packed or read in place.
TEST(Kernels, BlockedPathReadsAInPlaceWithThePackedBits) {
    const uint32_t seed = test_seed() + 21;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const auto kernels = kernels_here([](const ridge::GemmKernel& k) {
        return k.small_f32 != nullptr && k.input == ridge::Dtype::f32 && k.packed_bytes == 4;
    });
    if (kernels.empty()) GTEST_SKIP() << "no fp32 kernel with a small kernel runs on this CPU";
    for (const ridge::GemmKernel* ker : kernels) {
        ridge::GemmPlan plan = plan_with_model_blocking(*ker);
        const int64_t MR = ker->MR, NR = ker->NR, KC = plan.blocking.KC, MC = plan.blocking.MC;
        plan.a_in_place_max_lda = 2 * MC / 3;  // as RuntimeConfig::blocked_a_in_place sets it
        const int64_t shapes[][3] = {{3 * MR + 5, 4 * NR + 7, KC + 37}, {MR, NR, 5}, {2 * MR - 1, NR + 1, 2 * KC}};
        for (const auto& shape : shapes)
            for (bool b_from_memory : {false, true})
                for (float beta : {0.0f, 0.5f}) {
                    const int64_t m = shape[0], n = shape[1], k = shape[2];
                    SCOPED_TRACE(std::string(ker->name) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                                 std::to_string(k) + (b_from_memory ? " B in place" : "") +
                                 " beta=" + std::to_string(beta));
                    ASSERT_LE(3 * m, 2 * MC) << "the shape must fit the in-place rule";
                    plan.b_from_memory = plan.b_beyond_cache_share = b_from_memory;
                    const int64_t far = MC + 1;  // lda of the packed run
                    const std::vector<float> a = random_matrix(m * k, rng), b = random_matrix(k * n, rng);
                    std::vector<float> a_far(size_t(far * k), 0.0f);
                    for (int64_t p = 0; p < k; ++p) std::copy(&a[p * m], &a[p * m] + m, &a_far[p * far]);
                    const std::vector<float> c0 = beta == 0.0f ? std::vector<float>(size_t(m * n), NAN)
                                                               : random_matrix(m * n, rng);
                    std::vector<float> c_near = c0, c_far = c0;
                    ridge::GemmArgs g;
                    g.m = m, g.n = n, g.k = k, g.alpha = -1.25f, g.beta = beta;
                    g.b = b.data(), g.ldb = k, g.ldc = m;
                    g.a = a.data(), g.lda = m, g.c = c_near.data();
                    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
                    g.a = a_far.data(), g.lda = far, g.c = c_far.data();
                    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
                    ASSERT_EQ(0, std::memcmp(c_near.data(), c_far.data(), c_near.size() * sizeof(float)))
                        << "A in place and A packed differ";
                    std::vector<double> expect(c0.begin(), c0.end());
                    reference_gemm(false, false, m, n, k, g.alpha, a.data(), m, b.data(), k, beta, expect, m);
                    const double bound = gemm_error_bound(k, g.alpha, 1.0, 1.0, beta, 1.0);
                    for (size_t i = 0; i < expect.size(); ++i)
                        ASSERT_NEAR(expect[i], double(c_near[i]), bound) << "element " << i;
                }
    }
}

// Calls of the packing twin counted (from any thread of a team), the real one run.
struct PackingTwinSpy {
    const ridge::GemmKernel* real = nullptr;
    std::atomic<int> calls{0};
};
PackingTwinSpy g_packing_spy;
void spy_packing_a(int64_t kc, float alpha, const float* a, int64_t lda, void* a_panel, const void* b, float beta,
                   float* c, int64_t ldc) {
    ++g_packing_spy.calls;
    g_packing_spy.real->ukr_packing_a(kc, alpha, a, lda, a_panel, b, beta, c, ldc);
}

// Calls of the B-packing twin counted, the real one run.
struct PackingBTwinSpy {
    const ridge::GemmKernel* real = nullptr;
    int calls = 0;
};
PackingBTwinSpy g_packing_b_spy;
void spy_packing_b(int64_t kc, float alpha, const void* a, const float* b, int64_t ldb, void* b_panel, float beta,
                   float* c, int64_t ldc) {
    ++g_packing_b_spy.calls;
    g_packing_b_spy.real->ukr_packing_b(kc, alpha, a, b, ldb, b_panel, beta, c, ldc);
}

// The blocked path packing B per micro-panel (one thread, one block of A, NN)
// packs it in the first tile of each micro-panel (packs_b_in_first_tile in
// blocked_schedule.cpp): C bit for bit what packing first gives, and right,
// with ragged rows and columns (a last micro-panel of fewer than NR columns is
// packed by the packer), fewer rows than MR (no tile for the twin), several
// KC steps and jc blocks (a small blocking), A packed first or by the first
// micro-panel's tiles (whose micro-panel then keeps the packer), beta 0 over
// NaN and not; and the twin runs wherever a second full micro-panel exists,
// or the first without the A twin.
TEST(Kernels, BlockedPathPacksBInTheFirstTileWithThePackedBits) {
    const uint32_t seed = test_seed() + 26;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const auto kernels = kernels_here([](const ridge::GemmKernel& k) { return k.ukr_packing_b != nullptr; });
    if (kernels.empty()) GTEST_SKIP() << "no kernel with a B-packing twin runs on this CPU";
    for (const ridge::GemmKernel* real : kernels) {
        ridge::GemmKernel spy = *real, without = *real;
        spy.ukr_packing_b = &spy_packing_b;
        without.ukr_packing_b = nullptr;
        g_packing_b_spy.real = real;
        const int64_t MR = real->MR, NR = real->NR;
        struct Shape {
            int64_t m, n, k;
        };
        const Shape shapes[] = {{3 * MR + 5, 4 * NR + 7, 300}, {MR, NR, 5},          {2 * MR - 1, NR + 1, 600},
                                {MR - 3, 3 * NR, 40},          {4 * MR, 5 * NR, 129}, {2 * MR, 2 * NR, 16}};
        int serial = 0;
        for (const Shape& sh : shapes)
            for (int variant = 0; variant < 4; ++variant) {
                const bool small = variant % 2 == 1, a_twin = variant >= 2;
                Call call;
                call.m = sh.m, call.n = sh.n, call.k = sh.k;
                call.alpha = serial % 2 ? -1.25f : 1.0f, call.beta = serial % 3 == 0 ? 0.0f : 0.5f;
                call.ldb_pad = serial % 3;
                ++serial;
                ridge::GemmPlan with_twin = plan_with_model_blocking(spy);
                ridge::set_blocked_path_limits(&with_twin);
                if (small) with_twin.blocking = {MR, NR, 48, 4 * MR, 3 * NR};
                with_twin.threads = 1;
                with_twin.a_rows_within_cache = a_twin ? kAllRows : 0;
                ridge::GemmPlan packer_only = with_twin;
                packer_only.kernel = &without;
                SCOPED_TRACE(std::string(real->name) + " " + call.describe() + (small ? ", small blocks" : "") +
                             (a_twin ? ", A packed by the first micro-panel" : ""));
                Operands ops(call, rng);
                Guarded c_packed_first = ops.c;
                const auto expect = expected_c(call, ops.a.data(), ops.b.data(), ops.c.data());
                ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(driver_args(call, ops, c_packed_first.data()), packer_only));
                g_packing_b_spy.calls = 0;
                ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(driver_args(call, ops, ops.c.data()), with_twin));
                const int64_t full_micro_panels = std::min<int64_t>(sh.n, with_twin.blocking.NC) / NR;
                const bool one_block = sh.m <= with_twin.blocking.MC;  // B packed per micro-panel
                if (sh.m >= MR && one_block && full_micro_panels >= (a_twin ? 2 : 1))
                    EXPECT_GT(g_packing_b_spy.calls, 0) << "the twin never ran";
                if (sh.m < MR) EXPECT_EQ(0, g_packing_b_spy.calls) << "the twin ran without a full tile";
                ASSERT_TRUE(matches(call, ops.c, expect, bound_for(call)));
                const size_t bytes = sizeof(float) * size_t(call.ldc() * call.n);
                ASSERT_EQ(0, std::memcmp(ops.c.data(), c_packed_first.data(), bytes))
                    << "packed by the first tile and packed first differ";
            }
    }
}

// With op(B) within L2 (GemmPlan::b_within_l2), the blocked path packing B
// per micro-panel has every tile read B in place through the small kernel
// (all_tiles_read_b_from_l2 in blocked_schedule.cpp): only in KC steps that
// do not read C (beta = 0, the first), up to 16 MR-row tiles, not where ldb
// puts B's columns on the same L1 sets, not in the micro-panel whose tiles
// pack A. Each way C is bit for bit what packing B gives (b_within_l2 off),
// and right; the small kernel runs exactly where the rule says.
TEST(Kernels, BlockedPathReadsBFromL2InPlaceWhereCIsNotReadWithThePackedBits) {
    const uint32_t seed = test_seed() + 27;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const auto kernels = kernels_here([](const ridge::GemmKernel& k) {
        return k.small_f32 != nullptr && k.input == ridge::Dtype::f32 && k.packed_bytes == 4 &&
               k.small_kernel_max_volume == 0;
    });
    if (kernels.empty()) GTEST_SKIP() << "no fp32 kernel whose small kernel serves the blocked path runs on this CPU";
    for (const ridge::GemmKernel* real : kernels) {
        ridge::GemmKernel spy = *real;
        spy.small_f32 = &spy_small;
        g_small_spy.real = real;
        const int64_t MR = real->MR, NR = real->NR;
        struct Shape {
            int64_t m, n, k, ldb_pad;
            bool in_place;  // with beta = 0
        };
        const int64_t aliased_ldb = 1024;  // floats: 4 KiB, the L1's set period
        const Shape shapes[] = {{3 * MR + 5, 4 * NR + 7, 300, 0, true},  {16 * MR, 3 * NR, 40, 1, true},
                                {16 * MR + 1, 3 * NR, 40, 0, false},    {2 * MR, 2 * NR + 3, 700, 2, true},
                                {4 * MR, 3 * NR, 200, aliased_ldb - 200, NR <= 8}, {MR, NR, 5, 0, true}};
        int serial = 0;
        for (const Shape& sh : shapes)
            for (float beta : {0.0f, 0.5f})
                for (bool a_twin : {false, true}) {
                    Call call;
                    call.m = sh.m, call.n = sh.n, call.k = sh.k, call.ldb_pad = sh.ldb_pad;
                    call.alpha = serial % 2 ? -1.25f : 1.0f, call.beta = beta;
                    ++serial;
                    ridge::GemmPlan in_l2 = plan_with_model_blocking(spy);
                    ridge::set_blocked_path_limits(&in_l2);
                    in_l2.a_rows_within_cache = a_twin ? kAllRows : 0;
                    in_l2.b_within_l2 = true;
                    ridge::GemmPlan packed = in_l2;
                    packed.b_within_l2 = false;
                    SCOPED_TRACE(std::string(real->name) + " " + call.describe() +
                                 (a_twin ? ", A packed by the first micro-panel" : ""));
                    Operands ops(call, rng);
                    Guarded c_packed = ops.c;
                    const auto expect = expected_c(call, ops.a.data(), ops.b.data(), ops.c.data());
                    g_small_spy.calls = 0;
                    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(driver_args(call, ops, c_packed.data()), packed));
                    ASSERT_EQ(0, g_small_spy.calls) << "B read in place with op(B) beyond L2";
                    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(driver_args(call, ops, ops.c.data()), in_l2));
                    const bool micro_panel_for_it = sh.n / NR >= (a_twin ? 2 : 1);
                    const bool one_block = sh.m <= in_l2.blocking.MC;  // B packed per micro-panel
                    if (sh.in_place && beta == 0.0f && micro_panel_for_it && one_block)
                        EXPECT_GT(g_small_spy.calls, 0) << "B never read in place";
                    else
                        EXPECT_EQ(0, g_small_spy.calls) << "B read in place outside the rule";
                    ASSERT_TRUE(matches(call, ops.c, expect, bound_for(call)));
                    const size_t bytes = sizeof(float) * size_t(call.ldc() * call.n);
                    ASSERT_EQ(0, std::memcmp(ops.c.data(), c_packed.data(), bytes))
                        << "B read in place and B packed differ";
                }
    }
}

// The blocked path with op(A) within L2 packs each block of A in the tiles of
// its first micro-panel of B (packs_a_in_first_micro_panel in
// blocked_schedule.cpp): C bit for bit what packing first gives, and right, with
// ragged rows (the last panel packed by the packer), fewer columns than NR
// (no tile for the twin), several KC steps, several blocks of rows and of
// columns (a small blocking), B packed per micro-panel (NN) and in L2-sized
// panels with the k steps outside jc (NT), beta 0 over NaN and not, one
// thread and a team of two (each slice's owner runs its first micro-panel
// before sharing out the rest); and the twin is called wherever a full tile
// exists.
TEST(Kernels, BlockedPathPacksAInTheFirstMicroPanelWithThePackedBits) {
    const uint32_t seed = test_seed() + 24;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const auto kernels = kernels_here([](const ridge::GemmKernel& k) { return k.ukr_packing_a != nullptr; });
    if (kernels.empty()) GTEST_SKIP() << "no kernel with a packing twin runs on this CPU";
    for (const ridge::GemmKernel* real : kernels) {
        ridge::GemmKernel spy = *real;
        spy.ukr_packing_a = &spy_packing_a;
        g_packing_spy.real = real;
        ridge::GemmPlan model = plan_with_model_blocking(spy);
        ridge::set_blocked_path_limits(&model);
        ridge::GemmPlan small_blocks = model;
        const int64_t MR = real->MR, NR = real->NR, KC = model.blocking.KC;
        small_blocks.blocking = {MR, NR, 48, 2 * MR, 3 * NR};
        struct Shape {
            int64_t m, n, k;
            bool sliced;  // a team of two splits C's rows or columns (else it shares each B panel: no twin)
        };
        const Shape shapes[] = {{3 * MR + 5, 4 * NR + 7, KC + 37, false}, {MR, NR, 5, false},
                                {2 * MR - 1, NR + 1, 2 * KC, false},     {2 * MR, NR - 3, 40, false},
                                {4 * MR, 5 * NR, 3 * KC + 1, true},      {2 * MR + 3, 6 * NR + 1, KC + 9, true}};
        int serial = 0;
        for (const Shape& sh : shapes)
            for (bool trans_b : {false, true})
                for (int variant = 0; variant < 3; ++variant) {
                    const bool small = variant == 1;
                    const int threads = variant == 2 ? 2 : 1;
                    Call call;
                    call.m = sh.m, call.n = sh.n, call.k = sh.k, call.tb = trans_b;
                    call.alpha = serial % 2 ? -1.25f : 1.0f, call.beta = serial % 3 == 0 ? 0.0f : 0.5f;
                    call.lda_pad = serial % 3;
                    ++serial;
                    ridge::GemmPlan plan = small ? small_blocks : model;
                    plan.threads = threads;
                    SCOPED_TRACE(std::string(real->name) + " " + call.describe() + (small ? ", small blocks" : "") +
                                 ", " + std::to_string(threads) + " thread(s)");
                    Operands ops(call, rng);
                    Guarded c_packed_first = ops.c;
                    const auto expect = expected_c(call, ops.a.data(), ops.b.data(), ops.c.data());
                    plan.a_rows_within_cache = 0;
                    g_packing_spy.calls = 0;
                    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(driver_args(call, ops, c_packed_first.data()), plan));
                    ASSERT_EQ(0, g_packing_spy.calls) << "the twin ran with op(A) beyond the cache";
                    plan.a_rows_within_cache = kAllRows;
                    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(driver_args(call, ops, ops.c.data()), plan));
                    if (sh.m >= MR && sh.n >= NR && (threads == 1 || sh.sliced))
                        EXPECT_GT(g_packing_spy.calls, 0) << "the twin never ran";
                    ASSERT_TRUE(matches(call, ops.c, expect, bound_for(call)));
                    const size_t bytes = sizeof(float) * size_t(call.ldc() * call.n);
                    ASSERT_EQ(0, std::memcmp(ops.c.data(), c_packed_first.data(), bytes))
                        << "packed by the first micro-panel and packed first differ";
                }
    }
}

// The small path and the blocked path compute each element of C alike: per
// KC step of the plan's blocking one chain of FMAs over k from zero, then the
// same alpha and beta finish, the first step scaling C by beta and the others
// adding to it. Dispatch relies on it to send a one-thread call to the small
// path where a team takes the blocked one (small_path_alone in paths.cpp),
// so the bits must agree: one KC step and several, every transpose pair,
// ragged edges, padded leading dimensions, alpha 1 and not, beta 0 over NaN,
// 1 and neither, B packed or read in place by each micro-panel's first tile.
TEST(Kernels, SmallAndBlockedPathsSameBits) {
    const uint32_t seed = test_seed() + 22;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const auto kernels = kernels_here([](const ridge::GemmKernel& k) {
        return k.small_f32 != nullptr && k.input == ridge::Dtype::f32 && k.packed_bytes == 4;
    });
    if (kernels.empty()) GTEST_SKIP() << "no fp32 kernel with a small kernel runs on this CPU";
    const float scales[][2] = {{1.0f, 0.0f}, {0.75f, 1.0f}, {-1.25f, -0.5f}};  // alpha, beta
    for (const ridge::GemmKernel* ker : kernels) {
        ridge::GemmPlan blocked = plan_with_model_blocking(*ker);
        ridge::GemmPlan small = small_path_plan(*ker);
        const int64_t MR = ker->MR, NR = ker->NR, KC = blocked.blocking.KC;
        const int64_t shapes[][3] = {{200, 200, 200},  {2 * MR + 7, 3 * NR + 5, KC}, {MR - 1, NR + 1, 1},
                                     {129, 131, KC - 1}, {37, 5, 61}, {5, 37, 17}, {70, 50, KC + 1},
                                     {MR + 3, 2 * NR + 1, 2 * KC + 37}, {3, 2, 3 * KC}};
        int serial = 0;
        for (const auto& shape : shapes)
            for (int t = 0; t < 4; ++t)
                for (const auto& scale : scales) {
                    Call c;
                    c.m = shape[0], c.n = shape[1], c.k = shape[2], c.ta = t & 1, c.tb = t & 2;
                    c.alpha = scale[0], c.beta = scale[1], c.lda_pad = serial % 3, c.ldc_pad = serial % 2;
                    const bool b_in_place = serial % 2 == 1;
                    ++serial;
                    SCOPED_TRACE(std::string(ker->name) + " " + c.describe() + (b_in_place ? ", B in place" : ""));
                    Operands ops(c, rng);
                    Guarded c_small = ops.c, c_deep = ops.c;
                    const auto expect = expected_c(c, ops.a.data(), ops.b.data(), ops.c.data());
                    blocked.b_from_memory = blocked.b_beyond_cache_share = b_in_place;
                    small.small_a_block_floats = ridge::small_path_a_block_floats(*ker, c.k);
                    // The small path with each KC step over all of C before the next (deep problems).
                    ridge::GemmPlan deep = small;
                    deep.small_k_steps_outside = true;
                    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(driver_args(c, ops, ops.c.data()), blocked));
                    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(driver_args(c, ops, c_small.data()), small));
                    ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(driver_args(c, ops, c_deep.data()), deep));
                    ASSERT_TRUE(matches(c, ops.c, expect, bound_for(c)));
                    ASSERT_TRUE(c_small.untouched_outside());
                    ASSERT_TRUE(c_deep.untouched_outside());
                    const size_t bytes = sizeof(float) * size_t(c.ldc() * c.n);
                    ASSERT_EQ(0, std::memcmp(ops.c.data(), c_small.data(), bytes)) << "the small and the blocked path differ";
                    ASSERT_EQ(0, std::memcmp(ops.c.data(), c_deep.data(), bytes))
                        << "the small path's k steps outside its tiles and the blocked path differ";
                }
    }
}

// Dispatch sends few-column fp32 problems with an untransposed A to the
// skinny path when the chosen kernel has one: any height up to 24 columns,
// only long columns (512 rows and up) from 25 to the configured width (at
// most kSkinnyMaxN; with more than 512 rows and columns not a multiple of 8
// KiB apart, as here, on any team and wherever A lives:
// DispatchTakesSkinnyPathToItsWidthPastFiveHundredTwelveRows), never beyond
// it, nor beyond the kernel's own limit, GemmKernel::skinny_max_columns), and
// with A transposed never (the few-rows path on C^T takes those where the
// kernel has one: DispatchTakesSkinnyTransAPathForFewColumnsOfATransposedA;
// the result is right either way).
TEST(Kernels, DispatchTakesSkinnyPathForFewColumns) {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (ker->skinny == nullptr) GTEST_SKIP() << ker->name << " has no skinny path";
    std::mt19937 rng(test_seed() + 12);
    const int64_t kernel_widest = ker->skinny_max_columns > 0 ? ker->skinny_max_columns : ridge::kSkinnyMaxN;
    const int64_t widest = std::min({ridge::runtime_config().skinny_max_columns[int(ridge::Dtype::f32)],
                                     ridge::kSkinnyMaxN, kernel_widest});  // 128 unless moved lower
    ASSERT_GT(widest, 24);
    const char* transposed_a = ker->few_rows != nullptr ? "skinny_trans_a" : "blocked";
    expect_paths({{300, 24, 1000, false, false, 0, "skinny"},
                  {700, widest, 500, false, false, 0, "skinny"},
                  {700, widest + 1, 500, false, false, 0, "blocked"},
                  {700, 40, 500, true, false, 0, transposed_a}},
                 -1.5f, 0.5f, rng);
    // 300 x 40 x 1000 is past the skinny path's height for 40 columns: the
    // small path (AVX2's by its volume; a deep problem where the KC step's slice
    // of A and C fit L2) or the blocked path, never the skinny one.
    Call call;
    call.m = 300, call.n = 40, call.k = 1000, call.alpha = -1.5f, call.beta = 0.5f;
    Operands ops(call, rng);
    const auto expect = expected_c(call, ops.a.data(), ops.b.data(), ops.c.data());
    ridge_report r;
    ASSERT_TRUE(dispatch_with_report(call, ops, &r));
    EXPECT_TRUE(std::string(r.path) == "small" || std::string(r.path) == "blocked") << "path " << r.path;
    EXPECT_TRUE(matches(call, ops.c, expect, bound_for(call)));
}

// The skinny path's width (skinny_max_columns, measured on one thread
// streaming A from memory) holds for a team and for an A in a cache as well
// where A has more than 512 rows and its columns are not a multiple of 8 KiB
// apart: 72 columns of C at 1000 rows take it (where the configured width
// reaches 72) on one thread and two, with A from memory (twice the last-level
// cache) and in a cache (half of it), at lda 1000, 1024 (4 KiB) and 3072 (12
// KiB); the blocked path past the width. At lda 2048 (8 KiB), or at 512
// rows, the blocked path past kSkinnyMaxColumnsShared, on one thread as on two
// (only one thread streaming A on a call too small for a team would take the
// skinny path: the path must not change with the thread count, its bits
// differ; lda 648 keeps the small path out at 512 rows: past 512 and past the
// square-like shapes' 640). The result is right on every path.
TEST(Kernels, DispatchTakesSkinnyPathToItsWidthPastFiveHundredTwelveRows) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const ridge::GemmKernel* ker = cfg.gemm(ridge::Dtype::f32).kernel;
    if (ker->skinny == nullptr) GTEST_SKIP() << ker->name << " has no skinny path";
    std::mt19937 rng(test_seed() + 18);
    const int64_t n = ridge::kSkinnyMaxColumnsShared + 8;
    const int64_t kernel_widest = ker->skinny_max_columns > 0 ? ker->skinny_max_columns : ridge::kSkinnyMaxN;
    const int64_t widest = std::min({cfg.skinny_max_columns[int(ridge::Dtype::f32)], ridge::kSkinnyMaxN, kernel_widest});
    const char* wide = widest >= n ? "skinny" : "blocked";  // 128 built in (AVX2's kernel: 32)
    // k for an A of m rows `llc_times` the size of the last-level cache.
    auto k_for = [&](int64_t m, double llc_times) {
        return int64_t(llc_times * cfg.last_level_cache_bytes / (4.0 * double(m)));
    };
    const int64_t tall = 1000, short_rows = 512;
    for (int64_t m : {tall, short_rows}) {
        ASSERT_TRUE(ridge::exceeds_last_level_cache(cfg, 4.0 * double(m) * double(k_for(m, 2.0))));
        ASSERT_FALSE(ridge::exceeds_last_level_cache(cfg, 4.0 * double(m) * double(k_for(m, 0.5))));
    }
    for (int threads : {1, 2}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        ridge_set_num_threads(threads);
        const double flops = 2.0 * double(short_rows) * double(n) * double(k_for(short_rows, 0.5));
        EXPECT_EQ(threads, ridge::threads_for(flops)) << "the calls must get this many threads";
        const int64_t lda_4k = 1024 - tall, lda_8k = 2048 - tall, lda_12k = 3072 - tall;  // lda_pad, fp32
        const int64_t lda_648 = 648 - short_rows;
        expect_paths({{tall, n, k_for(tall, 2.0), false, false, 0, wide},
                      {tall, n, k_for(tall, 2.0), false, false, lda_8k, "blocked"},
                      {tall, n, k_for(tall, 0.5), false, false, 0, wide},
                      {tall, n, k_for(tall, 0.5), false, false, lda_4k, wide},
                      {tall, n, k_for(tall, 0.5), false, false, lda_12k, wide},
                      {tall, n, k_for(tall, 0.5), false, false, lda_8k, "blocked"},
                      {tall, widest + 1, k_for(tall, 0.5), false, false, 0, "blocked"},
                      {short_rows, n, k_for(short_rows, 2.0), false, false, lda_648, "blocked"},
                      {short_rows, n, k_for(short_rows, 0.5), false, false, lda_648, "blocked"}},
                     1.0f, 0.0f, rng);
    }
    ridge_set_num_threads(0);
}

// The dispatcher's plan lets the first micro-panel's tiles pack A
// (packs_a_in_first_micro_panel) where one thread packs rows of op(A) within
// L2, and, for a C of at most 512 columns, within the last-level cache
// (paths.cpp: a_rows_within_cache); not for a wider C whose A is beyond L2.
TEST(Kernels, FirstMicroPanelPacksAWithinTheCacheForFewColumns) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const ridge::GemmChoice& choice = cfg.gemm(ridge::Dtype::f32);
    if (choice.kernel->ukr_packing_a == nullptr) GTEST_SKIP() << choice.kernel->name << " has no A-packing twin";
    const int64_t k = 300;
    const int64_t l2_rows = int64_t(ridge::machine_topology().l2.size_bytes) / (4 * k);
    const int64_t cache_rows = int64_t(cfg.last_level_cache_bytes / (4.0 * double(k)));
    if (cache_rows <= l2_rows + 64) GTEST_SKIP() << "the last-level cache holds no more rows of A than L2 here";
    const int64_t m = l2_rows + 64;  // beyond L2, within the last-level cache
    struct Case {
        int64_t m, n;
        bool twin;
    };
    for (const Case& c : {Case{m, 300, true}, Case{m, 512, true}, Case{m, 513, false}, Case{l2_rows, 600, true},
                          Case{cache_rows + 1, 300, false}}) {
        ridge::GemmArgs g;
        g.m = c.m, g.n = c.n, g.k = k, g.lda = c.m, g.ldb = k, g.ldc = c.m;
        g.alpha = 1.0f, g.beta = 0.0f;
        const ridge::GemmPlan plan = ridge::blocked_plan_for_call(cfg, choice, g, 1);
        EXPECT_EQ(c.twin, ridge::make_schedule(g, plan, 1).a_packed_by_first_micro_panel)
            << c.m << " x " << c.n << " x " << k << " (L2 holds " << l2_rows << " rows, the cache " << cache_rows
            << ")";
    }
}

// Where a profile turns it on (RuntimeConfig::blocked_a_packed_while_computing_from_memory),
// the first micro-panel's tiles pack an A from memory too, for a C of at most
// 256 columns (paths.cpp: kTwinFromMemoryMaxColumns) and A's columns a
// multiple of 4 KiB apart; not for 257 columns, not 16 rows further apart,
// and not without the profile's word. C comes out the same bits either way
// (Kernels tests of the twin above); this is the choice alone.
TEST(Kernels, FirstMicroPanelPacksAFromMemoryForFewColumnsWhereAProfileSaysSo) {
    ridge::RuntimeConfig cfg = ridge::runtime_config();
    const ridge::GemmChoice& choice = cfg.gemm(ridge::Dtype::f32);
    if (choice.kernel->ukr_packing_a == nullptr) GTEST_SKIP() << choice.kernel->name << " has no A-packing twin";
    const int64_t k = 1024;
    // Past the cache, a multiple of 1024 rows (columns 4 KiB apart)
    const int64_t m = (int64_t(cfg.last_level_cache_bytes / (4.0 * double(k))) / 1024 + 1) * 1024;
    for (bool on : {false, true}) {
        cfg.blocked_a_packed_while_computing_from_memory = on;
        for (const int64_t n : {int64_t(96), int64_t(256), int64_t(257)})
            for (const int64_t lda : {m, m + 16}) {
                ridge::GemmArgs g;
                g.m = m, g.n = n, g.k = k, g.lda = lda, g.ldb = k, g.ldc = m;
                g.alpha = 1.0f, g.beta = 0.0f;
                const ridge::GemmPlan plan = ridge::blocked_plan_for_call(cfg, choice, g, 1);
                ASSERT_TRUE(plan.a_from_memory) << m << " rows";
                EXPECT_EQ(on && n <= 256 && lda == m, ridge::make_schedule(g, plan, 1).a_packed_by_first_micro_panel)
                    << m << " x " << n << " x " << k << ", lda " << lda << (on ? ", profile on" : ", profile off");
            }
    }
}

// Where a profile turns on both the first micro-panel packing an A from
// memory and the ir loop outside jr, the first applies wherever its rule does
// (few columns, A's columns a multiple of 4 KiB apart) and the ir loop stays
// inside jr there (runs_ir_outside_jr gives way: it ran behind on the Zen
// VMs); off the twin's stride the ir loop goes outside jr as before. The
// shapes run the five loops' blocks (a_rows_in_l3 set to 0 here, whatever
// the L3), the order in which the ir loop may go outside jr.
TEST(Kernels, FirstMicroPanelPackingAFromMemoryTakesPrecedenceOverIrOutsideJr) {
    ridge::RuntimeConfig cfg = ridge::runtime_config();
    const ridge::GemmChoice& choice = cfg.gemm(ridge::Dtype::f32);
    if (choice.kernel->ukr_packing_a == nullptr) GTEST_SKIP() << choice.kernel->name << " has no A-packing twin";
    const int64_t k = 1024, n = 96;
    const int64_t m = (int64_t(cfg.last_level_cache_bytes / (4.0 * double(k))) / 1024 + 1) * 1024;
    cfg.blocked_ir_outside_jr = true;
    for (bool twin : {false, true}) {
        cfg.blocked_a_packed_while_computing_from_memory = twin;
        for (const int64_t lda : {m, m + 16}) {
            ridge::GemmArgs g;
            g.m = m, g.n = n, g.k = k, g.lda = lda, g.ldb = k, g.ldc = m;
            g.alpha = 1.0f, g.beta = 0.0f;
            ridge::GemmPlan plan = ridge::blocked_plan_for_call(cfg, choice, g, 1);
            plan.a_rows_in_l3 = 0;  // the five loops' blocks of MC rows
            plan.b_panel_columns_for_ir_outside_jr =
                ridge::b_panel_columns_for_ir_outside_jr(plan.blocking, *plan.kernel);
            ASSERT_TRUE(plan.a_from_memory) << m << " rows";
            ASSERT_GE(plan.b_panel_columns_for_ir_outside_jr, n);
            const ridge::Schedule s = ridge::make_schedule(g, plan, 1);
            const bool twin_applies = twin && lda == m;
            EXPECT_EQ(twin_applies, s.a_packed_by_first_micro_panel) << "lda " << lda << (twin ? ", twin on" : "");
            EXPECT_EQ(!twin_applies, s.ir_outside_jr) << "lda " << lda << (twin ? ", twin on" : "");
        }
    }
}

// The blocked path prefetches the next tile of C (Schedule::prefetch_c_below_kc)
// where C is larger than a quarter of the cache the streaming rule sees
// (paths.cpp: c_outgrows_cache) and written with ordinary stores, and only for
// k steps shallower than the kernel's measured depth for it
// (GemmKernel::c_prefetched_ahead_below_kc).
TEST(Kernels, NextTileOfCPrefetchedWhereCOutgrowsTheCache) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const ridge::GemmChoice& choice = cfg.gemm(ridge::Dtype::f32);
    const int64_t kernel_depth = choice.kernel->c_prefetched_ahead_below_kc;
    if (kernel_depth == 0) GTEST_SKIP() << choice.kernel->name << " has no depth for the driver's prefetch of C";
    alignas(64) static float c_line[16];  // only its address is looked at (alignment), never written
    const int64_t cache_columns = int64_t(cfg.stream_c_min_bytes / (4.0 * 1024));  // of 1024 rows
    struct Case {
        int64_t n, k;
        float beta;
        bool prefetch;
    };
    const int64_t quarter = cache_columns / 4;
    for (const Case& c : {Case{quarter + 16, 16, 1.0f, true}, Case{quarter + 16, 16, 0.0f, true},
                          Case{quarter - 16, 16, 1.0f, false}, Case{quarter + 16, 1000, 1.0f, true},
                          Case{cache_columns + 16, 16, 1.0f, true},
                          Case{cache_columns + 16, 16, 0.0f, false}}) {  // streamed out: nothing reads C
        ridge::GemmArgs g;
        g.m = 1024, g.n = c.n, g.k = c.k, g.lda = g.m, g.ldb = c.k, g.ldc = g.m;
        g.alpha = 1.0f, g.beta = c.beta, g.c = c_line;
        ridge::GemmPlan plan = ridge::blocked_plan_for_call(cfg, choice, g, 1);
        plan.stream_c = ridge::use_streaming_c(cfg, plan, g);
        const int64_t below_kc = ridge::make_schedule(g, plan, 1).prefetch_c_below_kc;
        const std::string shape = std::to_string(g.m) + " x " + std::to_string(c.n) + " x " + std::to_string(c.k) +
                                  " beta " + std::to_string(c.beta);
        EXPECT_EQ(c.prefetch, below_kc > 0) << shape;
        if (c.prefetch) EXPECT_EQ(below_kc, kernel_depth) << shape << ": the steps it applies to are the short ones";
    }
}

// Dispatch sends fp32 problems up to the small path's volume to it: any shape
// up to 160^3, and above it, to 640^3 built in, only square-like ones (at most
// 512 rows and, A untransposed, lda at most 512, or m, n and lda all at most
// 640; B untransposed, or transposed up to 480^3; C within the last-level
// cache; not a skinny path's shape); the result is right on every path.
TEST(Kernels, DispatchTakesSmallPathForSquareLikeShapes) {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (ker->small_f32 == nullptr) GTEST_SKIP() << ker->name << " has no small path";
    if (ker->small_kernel_max_volume > 0)  // (test_sgemm: SmallKernelKeptToTheSmallPathUpToItsLimit)
        GTEST_SKIP() << ker->name << "'s small path has a limit of its own, below these shapes";
    ASSERT_GE(ridge::runtime_config().small_max_volume, 256.0 * 256.0 * 256.0) << "the built-in limit (no profile)";
    std::mt19937 rng(test_seed() + 13);
    const char* wide = ker->skinny != nullptr ? "skinny" : "blocked";
    const int64_t c_past_cache = int64_t(ridge::runtime_config().stream_c_min_bytes / (4.0 * 256)) + 12;
    expect_paths({{256, 256, 256, false, false, 0, "small"},
                  {200, 300, 250, true, false, 400, "small"},     // transposed A: its lda does not matter
                  {150, 150, 150, true, true, 0, "small"},        // up to 160^3: any shape
                  {256, 256, 256, false, true, 0, "small"},       // B transposed, up to 480^3
                  {300, 300, 300, true, true, 0, "small"},        // ... both transposed
                  {400, 400, 700, false, true, 0, "blocked"},     // ... past 480^3
                  {1024, 200, 100, false, false, 0, "blocked"},   // more than 640 rows
                  {600, 600, 300, false, false, 0, "small"},      // a square up to 640
                  {600, 700, 300, false, false, 0, "blocked"},    // 513-640 rows, more than 640 columns
                  {256, 256, 256, false, false, 300, "small"},    // A's columns 556 floats apart, n <= 640
                  {256, 700, 256, false, false, 300, "blocked"},  // ... and more than 640 columns
                  {300, 20, 800, false, false, 0, wide},          // a skinny path's shape
                  {256, 256, 256, false, false, 385, "blocked"},  // A's columns 641 floats apart
                  {256, c_past_cache, 8, false, false, 0, "blocked"},  // C larger than the last-level cache
                  {150, 150, 150, false, false, 900, "small"}},
                 1.5f, -0.5f, rng);
}

// Past 160^3 on one thread, an op(A) of more than half of L2
// (cfg.small_a_block_floats), which the small path would read in place, its
// columns a multiple of 1 KiB apart, goes to the blocked path, which packs it (paths.cpp:
// small_path_reads_a_in_blocks_on_few_l1_sets), for a kernel whose MR rows span
// two cache lines; within half of L2, at another lda, or transposed (the small
// path packs it), A stays on the small path. Each result right.
TEST(Kernels, DispatchPacksAnABeyondHalfOfL2OnFewL1Sets) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const ridge::GemmKernel* ker = cfg.gemm(ridge::Dtype::f32).kernel;
    if (ker->small_f32 == nullptr) GTEST_SKIP() << ker->name << " has no small path";
    if (ker->small_kernel_max_volume > 0) GTEST_SKIP() << ker->name << "'s small path has a limit of its own";
    if (ker->MR * int64_t(sizeof(float)) < ridge::kTwoCacheLinesBytes)
        GTEST_SKIP() << ker->name << "'s MR rows are one cache line";
    ASSERT_GE(cfg.small_max_volume, 512.0 * 256.0 * 1024.0) << "the built-in limit (no profile)";
    const int64_t m = 512, n = 256;  // lda 512 floats: 2 KiB
    const int64_t k_within = cfg.small_a_block_floats / m, k_beyond = k_within + 16;
    if (double(m) * double(k_beyond) > cfg.small_max_a_floats)
        GTEST_SKIP() << "half of this L2 is the small path's whole bound for A: no A between them";
    ASSERT_GT(double(m) * double(n) * double(k_within), 160.0 * 160.0 * 160.0);
    std::mt19937 rng(test_seed() + 17);
    ridge_set_num_threads(1);  // (a team keeps the small path: it splits C's columns)
    expect_paths({{m, n, k_beyond, false, false, 0, "blocked"},
                  {m - 12, n, k_beyond, false, false, 12, "blocked"},  // 500 rows, lda 512
                  {m - 12, n, k_beyond, false, false, 0, "small"},     // lda 500
                  {m, n, k_within, false, false, 0, "small"},          // A within half of L2
                  {m, n, k_beyond, true, false, 0, "small"}},          // A transposed: packed on the small path
                 1.0f, 0.5f, rng);
    ridge_set_num_threads(0);
}

// Dispatch sends few-row fp32 problems above the volume where the small path
// takes any shape (160^3) to the few-rows path when the chosen kernel has one
// (up to 16 rows), and leaves them to the small path at or below it; with an
// outer-product kernel also 17-48 rows that the small path does not take
// (17-23 rows, or A's columns more than 640 floats apart), at any k (A's packed
// panel read in passes where it outgrows half of L2), the result right on
// every path.
TEST(Kernels, DispatchTakesSkinnyMPathForFewRows) {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (ker->few_rows == nullptr) GTEST_SKIP() << ker->name << " has no few-rows path";
    ASSERT_GE(ridge::runtime_config().small_max_volume, 160.0 * 160.0 * 160.0) << "the built-in limit (no profile)";
    std::mt19937 rng(test_seed() + 10);
    for (int64_t m : {2, 9, 16}) {  // (m = 1 is a GEMV)
        Call call;
        call.m = m, call.k = 300;
        call.n = 160 * 160 * 160 / (m * call.k);  // at the limit
        call.alpha = 0.5f, call.beta = 0.0f;
        EXPECT_TRUE(dispatched_on("small", call, rng)) << "m=" << m;
        call.n += 25;  // just above it
        EXPECT_TRUE(dispatched_on("skinny_m", call, rng)) << "m=" << m;
    }
    if (ker->few_rows_outer == nullptr) return;
    // 17-48 rows: where the small path does not take them (above its volume
    // with fewer than 24 rows and B past the last-level cache, or A's columns
    // more than 640 floats apart), up to 48 rows, with A's packed panel (48
    // rows x k) within half of L2 or past it.
    const int64_t long_k = int64_t(ridge::machine_topology().l2.size_bytes / 2 / (4 * 48)) + 16;
    const int64_t wide = int64_t(ridge::runtime_config().small_max_volume / (48.0 * double(long_k - 32))) + 1;
    const int64_t b_past_cache = std::max<int64_t>(4096, int64_t(ridge::runtime_config().last_level_cache_bytes / (4.0 * 4096)) + 64);
    expect_paths({{32, 1024, 512, false, false, 0, "small"},
                  {17, 300, 1000, false, false, 700, "skinny_m"},
                  {48, 400, 400, false, false, 600, "skinny_m"},
                  {48, wide, long_k - 32, false, false, 700, "skinny_m"},
                  {48, wide, long_k, false, false, 700, "skinny_m"},
                  {23, b_past_cache, 4096, false, false, 0, "skinny_m"},
                  {24, b_past_cache, 4096, false, false, 0, "small"},  // from 24 rows: the thin rule (next test)
                  {48, wide, long_k, false, false, 0, "small"},
                  {49, 4096, 2048, false, false, 0, "small"}},
                 0.5f, 0.0f, rng);
}

// From 24 rows (where the few-rows path's outer form would take up to 48) to
// 384, an op(A) within half the last-level cache and a B larger than L2 take
// the small path beyond its volume (paths.cpp: thin_enough_for_small_path), A
// transposed too (up to 8 L2s of it); more rows, or A's columns more than 512
// floats apart, the blocked path.
TEST(Kernels, DispatchTakesSmallPathForThinRowsPastItsVolume) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    if (cfg.gemm(ridge::Dtype::f32).kernel->small_f32 == nullptr) GTEST_SKIP() << "no small kernel";
    if (cfg.gemm(ridge::Dtype::f32).kernel->small_kernel_max_volume > 0)  // (test_sgemm checks its own thin rule)
        GTEST_SKIP() << "the small kernel has a thin rule of its own (GemmKernel::small_thin_max_rows)";
    ASSERT_LT(cfg.small_max_volume, 128.0 * 2048.0 * 1024.0) << "the built-in limit (no profile)";
    std::mt19937 rng(test_seed() + 24);
    // A transposed op(A) of 384 rows just past 8 L2s (the thin rule's cap on its copy per thread).
    const int64_t MR = cfg.gemm(ridge::Dtype::f32).kernel->MR;
    const int64_t k_past_cap = 8 * int64_t(ridge::machine_topology().l2.size_bytes) / (4 * (384 + MR)) + 1;
    expect_paths({{128, 2048, 1024, false, false, 0, "small"},
                  {384, 1024, 700, false, false, 0, "small"},
                  {385, 1024, 700, false, false, 0, "blocked"},
                  {128, 2048, 1024, true, false, 0, "small"},
                  {384, 200, k_past_cap, true, false, 0, "blocked"},
                  {128, 2048, 1024, false, false, 600, "blocked"}},
                 0.5f, 0.0f, rng);
}

// The few-rows path run on C^T for few columns of C with A transposed (a
// row-major x * W^T), with each kernel that has a few-rows path: n around
// both kernel forms' tiles (dot up to 8, outer 9-64), m around their column
// groups, k around the 16-wide steps, B as stored both ways, padded leading
// dimensions (ldc too: C^T's tile is added into C's rows), alpha and beta
// (beta = 0 over NaN), 1 and 3 threads, passes over k of 16 steps (C^T's
// tile added into C from the second on); and C bit for bit the same on 1, 2
// and 3 threads, in one pass and in passes.
TEST(Kernels, DriverSkinnyTransAPathForEachKernelThatHasOne) {
    const uint32_t seed = test_seed() + 15;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const std::vector<const ridge::GemmKernel*> kernels = kernels_with_few_rows_path();
    if (kernels.empty()) GTEST_SKIP() << "no kernel with a few-rows path runs on this CPU";
    for (const ridge::GemmKernel* ker : kernels) {
        ridge::GemmPlan plan = plan_with_model_blocking(*ker);
        plan.skinny_trans_a_path = true;
        SCOPED_TRACE(std::string(ker->name) + " skinny_trans_a path");
        for (int64_t n : {1, 2, 3, 7, 8, 9, 16, 17, 24, 31, 32, 33, 47, 48, 49, 56, 64})
            for (int64_t m : {1, 2, 13, 25, 71})
                for (int64_t k : {1, 15, 16, 17, 100}) {
                    Call call;
                    call.m = m, call.n = n, call.k = k, call.ta = true;
                    const int t = int((m + n + k) % 4);
                    call.tb = t & 1;
                    call.alpha = kScalars[t][0], call.beta = kScalars[t][1];
                    call.lda_pad = t, call.ldb_pad = 3 - t, call.ldc_pad = (m % 2) ? 5 : 0;
                    plan.threads = (m > 24 && n % 2 == 1) ? 3 : 1;
                    plan.few_rows_k_pass = k > 16 && (m + n) % 2 == 0 ? 16 : 0;
                    ASSERT_TRUE(run_driver(call, plan, rng));
                }
        // Threads split C^T's groups of columns (C's rows): the same C on any count.
        plan.few_rows_k_pass = 0;
        expect_same_bits_on_2_and_3_threads(plan, 100, 20, 70, true, false, rng);
        plan.few_rows_k_pass = 32;
        expect_same_bits_on_2_and_3_threads(plan, 100, 40, 150, true, false, rng);
        plan.few_rows_k_pass = 0;
    }
}

// Each kernel's transposing copy (the skinny path on C^T gathers and scatters
// C with it, the skinny sweep copies B with it): every size around its 16 x
// 16 and 16 x 8 blocks, padded leading
// dimensions on both sides; each value moved bit for bit (NaN payloads and
// signed zeros included), and dst's padding, and everything past the block in
// either buffer, left alone.
TEST(Kernels, TransposeCopiesEveryElementAndNothingElse) {
    std::mt19937 rng(test_seed() + 19);
    std::uniform_int_distribution<uint32_t> bits;
    int kernels = 0;
    for (const ridge::GemmKernel* ker : kernels_here([](const ridge::GemmKernel& k) { return k.transpose_c != nullptr; })) {
        ++kernels;
        SCOPED_TRACE(ker->name);
        for (int64_t rows : {1, 2, 15, 16, 17, 31, 33, 64})
            for (int64_t cols : {1, 3, 8, 16, 17, 24, 40}) {  // 8, 24, 40: whole 16 x 8 blocks
                const int64_t lds = rows + 3, ldd = cols + 5;
                std::vector<float> src(size_t(lds * cols + 16)), dst(size_t(ldd * rows + 16));
                for (float& x : src) {
                    const uint32_t u = bits(rng);
                    std::memcpy(&x, &u, sizeof x);
                }
                const std::vector<float> src0 = src;
                std::fill(dst.begin(), dst.end(), sentinel());
                ker->transpose_c(rows, cols, src.data(), lds, dst.data(), ldd);
                ASSERT_EQ(0, std::memcmp(src.data(), src0.data(), src.size() * sizeof(float))) << "src written";
                for (int64_t i = 0; i < rows; ++i)
                    for (int64_t j = 0; j < ldd; ++j) {
                        const float want = j < cols ? src[size_t(i + j * lds)] : sentinel();
                        ASSERT_TRUE(same_bits(want, dst[size_t(j + i * ldd)]))
                            << rows << " x " << cols << ": dst(" << j << ", " << i << ")";
                    }
                for (size_t e = size_t(ldd * rows); e < dst.size(); ++e)
                    ASSERT_TRUE(same_bits(sentinel(), dst[e])) << rows << " x " << cols << ": past dst, " << e;
            }
    }
    if (kernels == 0) GTEST_SKIP() << "no kernel with a transposing copy runs on this CPU";
}

// The skinny path run on C^T for few rows of C with B transposed
// (gemm_skinny_m_trans_b): B read in place down its columns as that path's A,
// each block of C^T gathered from C's rows and scattered back. m (C^T's
// columns) in a spread up to the widest the path holds, n (C^T's rows) around
// the MR tiles, k around the chunk lengths, A as stored both ways, beta 0
// over NaN and others, padded leading dimensions, 1 and 3 threads; then C^T
// over several blocks of rows, and the same bits on 1, 2 and 3 threads.
TEST(Kernels, DriverSkinnyTransBPathForEachKernelThatHasOne) {
    const uint32_t seed = test_seed() + 17;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const std::vector<const ridge::GemmKernel*> kernels = kernels_with_skinny_path();
    if (kernels.empty()) GTEST_SKIP() << "no kernel with a skinny kernel runs on this CPU";
    for (const ridge::GemmKernel* ker : kernels) {
        ridge::GemmPlan plan = plan_with_model_blocking(*ker);
        plan.skinny_trans_b_path = true;
        SCOPED_TRACE(std::string(ker->name) + " skinny_trans_b path");
        const int64_t MR = ker->MR;
        for (int64_t m : {int64_t{1}, int64_t{2}, int64_t{11}, int64_t{13}, int64_t{17}, int64_t{37}, ridge::kSkinnyMaxN})
            for (int64_t n : {MR * 2, MR * 2 + 1, MR * 5 - 3})
                for (int64_t k : {1, 16, 17, 33, 70}) {
                    Call call;
                    call.m = m, call.n = n, call.k = k, call.tb = true;
                    const int t = int((m + n + k) % 4);
                    call.ta = t & 1;
                    plan.b_from_memory = t >= 2;  // the sweep's A (B here) from memory, or from a cache
                    call.alpha = kScalars[t][0], call.beta = kScalars[t][1];
                    call.lda_pad = t, call.ldb_pad = 3 - t, call.ldc_pad = (n % 2) ? 5 : 0;
                    plan.threads = (k % 2 == 1) ? 3 : 1;
                    ASSERT_TRUE(run_driver(call, plan, rng));
                }
        // C^T's rows (C's columns) over two blocks and a partial one, B from
        // memory (the smaller blocks) and from a cache.
        for (bool from_memory : {true, false}) {
            plan.b_from_memory = from_memory;
            const int64_t m = 40, n = 2 * ridge::skinny_block_rows(40, MR, from_memory) + MR + 5, k = 70;
            for (int t = 0; t < 4; ++t) {
                Call call;
                call.m = m, call.n = n, call.k = k, call.ta = t & 1, call.tb = true;
                call.alpha = kScalars[t][0], call.beta = kScalars[t][1];
                call.ldc_pad = 3;
                plan.threads = t % 2 == 0 ? 1 : 3;
                ASSERT_TRUE(run_driver(call, plan, rng));
            }
            expect_same_bits_on_2_and_3_threads(plan, m, n, k, false, true, rng);
        }
    }
}

// Deep problems (paths.cpp: deep_enough_for_small_path), on one thread or
// two: the small path with its KC steps outside its tiles where op(A)
// outgrows half of L2 and C does not, k past KC, A as stored and at most 288
// rows, B as stored or transposed (a kernel with its own volume limit, AVX2's,
// takes B transposed up to a C of 128 x 256: 256 x 256 goes to the blocked
// path there); with A transposed, or 289 rows, the blocked path (the results
// right on every path, and the bits the blocked path's:
// Kernels.SmallAndBlockedPathsSameBits). (A C past half of L2 with B within L2
// and k past KC needs more rows than a KC step's slice of A and C allow in L2,
// or else B past L2, which the thin rule takes: not a shape to test here.)
TEST(Kernels, DispatchTakesSmallPathForDeepProblems) {
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const ridge::GemmKernel* ker = cfg.gemm(ridge::Dtype::f32).kernel;
    if (ker->small_f32 == nullptr) GTEST_SKIP() << ker->name << " has no small path";
    std::mt19937 rng(test_seed() + 31);
    const int64_t half_l2_floats = cfg.small_a_block_floats, KC = cfg.gemm(ridge::Dtype::f32).blocking.KC;
    // 128 x 128: op(A) past half of L2 at k = 4 half-L2s / 128 rows (and past KC), C well within it.
    const int64_t deep_k = std::max<int64_t>(2 * KC + 7, 4 * half_l2_floats / 128 + 7);
    // 256 x 256 (C's bound for B transposed on a kernel with its own volume
    // limit): op(A) past half of L2 twice over, and no deeper (each call's
    // reference product in double is the test's time).
    const int64_t wide_deep_k = std::max<int64_t>(2 * KC + 7, 2 * half_l2_floats / 256 + 7);
    ASSERT_LE(128 * KC, half_l2_floats) << "a KC step's slice of A must fit half of L2";
    for (int threads : {1, 2}) {
        SCOPED_TRACE(std::to_string(threads) + " thread(s)");
        ridge_set_num_threads(threads);
        const char* wide_c_b_transposed = ker->small_kernel_max_volume > 0 ? "blocked" : "small";
        expect_paths({{128, 128, deep_k, false, false, 3, "small"},
                      {288, 64, deep_k, false, false, 0, "small"},
                      {289, 64, deep_k, false, false, 0, "blocked"},
                      {128, 128, deep_k, true, false, 0, "blocked"},
                      {128, 128, deep_k, false, true, 0, "small"},
                      {288, 64, deep_k, false, true, 5, "small"},
                      {256, 256, wide_deep_k, false, false, 0, "small"},
                      {256, 256, wide_deep_k, false, true, 0, wide_c_b_transposed},
                      {128, 128, deep_k, true, true, 0, "blocked"}},
                     0.75f, 0.5f, rng);
        ridge_set_num_threads(0);
    }
}

// Dispatch sends few rows of C with B transposed (either A) to the skinny path
// on C^T, with that path's limits with m and n swapped (fp32: up to all the
// rows it holds, kSkinnyMaxN, or the kernel's own limit, and from 25 rows on
// only with 512 columns or more), and only with k at least 2 m; not B
// untransposed (the few-rows path where the kernel has one, else the small
// path), not what the small path takes.
TEST(Kernels, DispatchTakesSkinnyTransBPathForFewRowsOfBTransposed) {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (ker->skinny == nullptr) GTEST_SKIP() << ker->name << " has no skinny path";
    std::mt19937 rng(test_seed() + 18);
    const int64_t widest = ker->skinny_max_columns > 0 ? ker->skinny_max_columns : ridge::kSkinnyMaxN;
    const char* untransposed = ker->few_rows != nullptr ? "skinny_m" : "small";
    // (fewer than 512 columns from 25 rows on: the small path's where it takes B transposed)
    const char* small_b_transposed = ker->small_kernel_max_volume > 0 ? "blocked" : "small";
    expect_paths({{16, 1000, 600, false, true, 0, "skinny_trans_b"},
                  {24, 2000, 96, true, true, 3, "skinny_trans_b"},
                  {widest, 4096, 2 * widest, false, true, 0, "skinny_trans_b"},
                  {widest, 4096, 2 * widest - 1, false, true, 0, "blocked"},
                  // (C past half of L2 on every machine measured: 129 x 1000 x 1000 NT
                  // takes the small path's deep rule where L2 is 1 MiB, the Zen 4's)
                  {widest + 1, 2000, 1000, false, true, 0, "blocked"},
                  {30, 400, 1000, false, true, 0, small_b_transposed},
                  {16, 1000, 600, false, false, 0, untransposed},
                  {16, 60, 600, false, true, 0, "small"}},
                 1.25f, 0.5f, rng);
}

// Dispatch sends few columns of C with A transposed to the few-rows path on
// C^T, with the few-rows path's limits with m and n swapped: up to 16 columns
// always, 17-48 with the outer kernel at any k (B's packed panel read in
// passes past half of L2), 49-64 where A does not fit L2 (wide_trans_a_pays);
// not 49 columns with A within L2, nor 65, not A untransposed, and not what
// the small path keeps (up to 16 columns, m or k under 128; 17-48 columns, up
// to 512 rows: few_columns_of_transposed_a in paths.cpp).
TEST(Kernels, DispatchTakesSkinnyTransAPathForFewColumnsOfATransposedA) {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    if (ker->few_rows == nullptr) GTEST_SKIP() << ker->name << " has no few-rows path";
    std::mt19937 rng(test_seed() + 16);
    const char* untransposed = ker->skinny != nullptr ? "skinny" : "blocked";
    expect_paths({{1000, 16, 600, true, false, 0, "skinny_trans_a"},
                  {700, 5, 900, true, true, 3, "skinny_trans_a"},
                  {128, 4, 128, true, false, 0, "skinny_trans_a"},
                  {1000, 16, 600, false, false, 0, untransposed},
                  {100, 16, 100, true, false, 0, "small"},
                  {128, 16, 127, true, false, 0, "small"}},
                 0.5f, 0.25f, rng);
    if (ker->few_rows_outer == nullptr) return;
    const int64_t long_k = int64_t(ridge::machine_topology().l2.size_bytes / 2 / (4 * 48)) + 16;
    const int64_t k_a_in_l2 = int64_t(ridge::machine_topology().l2.size_bytes / 2 / (4 * 1000));
    const int64_t k_a_past_l2 = 3 * k_a_in_l2;
    expect_paths({{1000, 48, k_a_in_l2, true, false, 0, "skinny_trans_a"},
                  {1000, 33, 600, true, true, 0, "skinny_trans_a"},
                  {520, 32, 300, true, false, 0, "skinny_trans_a"},
                  {300, 32, 500, true, false, 0, "small"},
                  {1000, 49, k_a_in_l2, true, false, 0, "blocked"},
                  {1000, 49, k_a_past_l2, true, false, 0, "skinny_trans_a"},
                  {1000, 64, k_a_past_l2, true, true, 0, "skinny_trans_a"},
                  {1000, 65, k_a_past_l2, true, false, 0, "blocked"},
                  {600, 48, long_k, true, false, 0, "skinny_trans_a"}},
                 0.5f, 0.0f, rng);
}

// --- The driver's side of the microkernel contract (lib/kernels/gemm_kernel.h) ---
// A spy stands in for the kernel: it records what the driver hands it and forwards
// to the real kernel, so the product is still checked.

struct SpyLog {
    const ridge::GemmKernel* real = nullptr;
    int64_t max_kc = 0;  // the plan's KC
    int64_t calls = 0;
    int64_t misaligned_a = 0, misaligned_b = 0;
    int64_t bad_kc = 0, bad_ldc = 0;
    int64_t edge_calls = 0, bad_edge = 0;  // the edge twin's calls; those not a partial tile within C
    std::string first_misaligned;
};
SpyLog g_spy;  // the spy runs with plan.threads = 1 only, so a plain global is enough

void spy_ukr(int64_t kc, float alpha, const void* a, const void* b, float beta, float* c, int64_t ldc) {
    ++g_spy.calls;
    const bool a_bad = reinterpret_cast<uintptr_t>(a) % 64 != 0;
    const bool b_bad = reinterpret_cast<uintptr_t>(b) % 64 != 0;
    g_spy.misaligned_a += a_bad;
    g_spy.misaligned_b += b_bad;
    if ((a_bad || b_bad) && g_spy.first_misaligned.empty())
        g_spy.first_misaligned = "kc=" + std::to_string(kc) + " a%64=" +
                                 std::to_string(reinterpret_cast<uintptr_t>(a) % 64) + " b%64=" +
                                 std::to_string(reinterpret_cast<uintptr_t>(b) % 64);
    if (kc < 1 || kc > g_spy.max_kc) ++g_spy.bad_kc;
    if (ldc < g_spy.real->MR) ++g_spy.bad_ldc;
    g_spy.real->ukr(kc, alpha, a, b, beta, c, ldc);
}

// The edge twin's spy: a partial tile (mr < MR or nr < NR, neither 0) whose
// rows fit C's leading dimension, kc within the block.
void spy_edge(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, const void* b, float beta, float* c,
              int64_t ldc) {
    ++g_spy.edge_calls;
    const int64_t MR = g_spy.real->MR, NR = g_spy.real->NR;
    const bool partial = mr >= 1 && nr >= 1 && mr <= MR && nr <= NR && (mr < MR || nr < NR);
    if (!partial || ldc < mr) ++g_spy.bad_edge;
    if (kc < 1 || kc > g_spy.max_kc) ++g_spy.bad_kc;
    g_spy.real->ukr_edge(mr, nr, kc, alpha, a, b, beta, c, ldc);
}

// Runs shapes whose depth leaves a remainder block of every residue mod 8 through
// the spy, and checks results so the spy cannot hide a wrong product.
void run_through_spy(const ridge::GemmKernel* real, int64_t KC, std::mt19937& rng) {
    ridge::GemmKernel spy = *real;
    spy.ukr = &spy_ukr;
    spy.ukr_tiles = nullptr;  // one call per tile, so that the spy sees every tile
    if (real->ukr_edge != nullptr) spy.ukr_edge = &spy_edge;
    g_spy = SpyLog{};
    g_spy.real = real;
    g_spy.max_kc = KC;
    ridge::GemmPlan plan;
    plan.kernel = &spy;
    plan.blocking = {real->MR, real->NR, KC, 2 * real->MR, 3 * real->NR};
    plan.threads = 1;
    for (int64_t k = 1; k <= 8; ++k) {
        Call call;
        call.m = 2 * real->MR + 1, call.n = 4 * real->NR + 1, call.k = KC + k;
        call.ta = k & 1, call.tb = k & 2;
        ASSERT_TRUE(run_driver(call, plan, rng));
    }
}

TEST_P(KernelTest, DriverPassesKcWithinBlockAndLdcAtLeastMR) {
    const uint32_t seed = test_seed() + 3;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    run_through_spy(kernel_, 16, rng);
    ASSERT_GT(g_spy.calls, 0);
    EXPECT_EQ(0, g_spy.bad_kc) << "the kernel was called with kc outside [1, KC]";
    EXPECT_EQ(0, g_spy.bad_ldc) << "the kernel was called with ldc < MR";
    // The shapes have partial tiles in both directions: a kernel with an edge
    // twin must get them there, as partial tiles only.
    if (kernel_->ukr_edge != nullptr) EXPECT_GT(g_spy.edge_calls, 0);
    EXPECT_EQ(0, g_spy.bad_edge) << "of " << g_spy.edge_calls << " edge calls";
}

// gemm_kernel.h promises the kernel 64-byte aligned A and B panels. The packed
// buffers start aligned, but panel j of a block starts j*NR*kc floats in, which is
// a multiple of 64 bytes only when NR*kc*4 is (and likewise MR*kc*4 for A): a
// remainder block of odd depth breaks the promise. A kernel that used aligned
// loads of B (or of A with MR*4 not a multiple of 64) would fault on such a call.
TEST_P(KernelTest, DriverPassesAlignedPanels) {
    const uint32_t seed = test_seed() + 4;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    run_through_spy(kernel_, 16, rng);
    ASSERT_GT(g_spy.calls, 0);
    EXPECT_EQ(0, g_spy.misaligned_a) << "of " << g_spy.calls << " calls; first: " << g_spy.first_misaligned;
    EXPECT_EQ(0, g_spy.misaligned_b) << "of " << g_spy.calls << " calls; first: " << g_spy.first_misaligned;
}

// Every kernel this CPU runs gives the same product as every other, within the
// bound each must meet against the exact result (so within twice it of each other).
TEST(Kernels, AllSupportedKernelsAgree) {
    const uint32_t seed = test_seed() + 5;
    SCOPED_TRACE(seed_note(seed));
    Call call;
    call.m = 71, call.n = 53, call.k = 300, call.alpha = 0.75f, call.beta = -0.5f, call.ta = true;
    std::vector<std::vector<float>> results;
    std::vector<std::string> names;
    for (const ridge::GemmKernel& ker : ridge::gemm_kernels()) {
        if (ker.input != ridge::Dtype::f32 || !ridge::cpu_supports(ker.isa)) continue;
        std::mt19937 rng(seed);  // identical operands for every kernel
        Operands ops(call, rng);
        ridge::GemmPlan plan = plan_with_model_blocking(ker);
        ridge::GemmArgs g;
        g.trans_a = call.ta, g.trans_b = call.tb, g.m = call.m, g.n = call.n, g.k = call.k;
        g.alpha = call.alpha, g.beta = call.beta;
        g.a = ops.a.data(), g.lda = call.lda(), g.b = ops.b.data(), g.ldb = call.ldb();
        g.c = ops.c.data(), g.ldc = call.ldc();
        ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
        results.emplace_back(ops.c.data(), ops.c.data() + call.ldc() * call.n);
        names.push_back(ker.name);
    }
    // The portable kernel runs everywhere, so there is always at least one.
    ASSERT_GE(results.size(), 1u);
    const double bound = 2.0 * bound_for(call);
    for (size_t r = 1; r < results.size(); ++r)
        for (int64_t j = 0; j < call.n; ++j)
            for (int64_t i = 0; i < call.m; ++i)
                ASSERT_NEAR(results[0][size_t(i + j * call.ldc())], results[r][size_t(i + j * call.ldc())], bound)
                    << names[0] << " vs " << names[r] << " at (" << i << "," << j << ")";
}

TEST(Kernels, RegistryIsConsistent) {
    // Each entry's tile must fit the driver's edge scratch tile (32 x 32 floats) and its
    // name must end in "__<isa>", which is how ridge_sgemm_kernel_name() reveals the ISA.
    ASSERT_FALSE(ridge::gemm_kernels().empty());
    bool has_ref = false;
    for (const ridge::GemmKernel& ker : ridge::gemm_kernels()) {
        SCOPED_TRACE(ker.name);
        EXPECT_GT(ker.MR, 0);
        EXPECT_GT(ker.NR, 0);
        EXPECT_LE(ker.MR * ker.NR, 32 * 32);
        EXPECT_NE(nullptr, ker.ukr);
        // The skinny path also runs on C^T, through the kernel's transposing copy.
        EXPECT_EQ(ker.skinny != nullptr, ker.transpose_c != nullptr);
        // ... and copies B's chunks with the kernel's packer, as fp32 (gemm_skinny.cpp, copy_b_chunk).
        if (ker.skinny != nullptr) EXPECT_TRUE(ker.packed_bytes == 4 && ker.k_group == 1);
        if (ker.skinny_tall != nullptr) EXPECT_NE(nullptr, ker.skinny);
        const std::string suffix = std::string("__") + ridge::isa_name(ker.isa);
        const std::string name = ker.name;
        ASSERT_GE(name.size(), suffix.size());
        EXPECT_EQ(suffix, name.substr(name.size() - suffix.size()));
        has_ref = has_ref || ker.isa == ridge::Isa::ref;
    }
    EXPECT_TRUE(has_ref) << "no portable kernel: find_gemm_kernel could return nullptr on an old CPU";
    EXPECT_NE(nullptr, ridge::find_gemm_kernel(ridge::Dtype::f32, ridge::Isa::ref));
}

std::string kernel_name(const ::testing::TestParamInfo<size_t>& info) {
    return ridge::gemm_kernels()[info.param].name;
}

// The fp32-input entries: these suites feed fp32 operands (16-bit inputs: test_gemm16).
std::vector<size_t> f32_kernel_indices() {
    std::vector<size_t> out;
    for (size_t i = 0; i < ridge::gemm_kernels().size(); ++i)
        if (ridge::gemm_kernels()[i].input == ridge::Dtype::f32) out.push_back(i);
    return out;
}

INSTANTIATE_TEST_SUITE_P(Registry, KernelTest, ::testing::ValuesIn(f32_kernel_indices()), kernel_name);

}  // namespace
