// The 16-bit GEMM entry points: cblas_hgemm (fp16 A, B, C), cblas_gemm_f16f16f32,
// cblas_gemm_bf16bf16f32, cblas_sbgemm, cblas_shgemm (16-bit A and B, fp32 C)
// and the native ridge_gemm_f16 / ridge_gemm_bf16, each against the double
// reference of its exactly converted inputs, with sgemm's error bound (plus the
// one final rounding to fp16 for cblas_hgemm); their special values (NaN, Inf,
// subnormals, beta = 0 over NaN, alpha = 0 over NaN operands, quick returns);
// and their argument errors.
//
// RIDGE_ISA is read once per process, so CMakeLists.txt runs this suite once per
// ISA (test_gemm16_<isa>); KernelsFollowRidgeIsa proves which kernel and packer
// each of those processes really runs, and the bf16 subnormal test asserts the
// behaviour of whichever kernel that is.
//
// This executable defines cblas_xerbla itself (the library's is weak), to see
// every CBLAS error report.
#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dispatch/cpu_features.h"
#include "dispatch/dispatch.h"
#include "gemm16_check.h"
#include "ridge/cblas.h"
#include "ridge/ridge.h"

using namespace ridge_test;

namespace {

// What the error routines were told since the last reset.
struct ErrorLog {
    int cblas_calls = 0;
    int cblas_info = 0;
    std::string cblas_routine;
    int handler_calls = 0;
    ridge_status handler_status = RIDGE_SUCCESS;
    std::string handler_function;
    int handler_argument = -1;
};
ErrorLog g_log;
void reset_log() { g_log = ErrorLog{}; }

void handler(ridge_status status, const char* function, int argument, const char*, void*) {
    ++g_log.handler_calls;
    g_log.handler_status = status;
    g_log.handler_function = function ? function : "";
    g_log.handler_argument = argument;
}

}  // namespace

extern "C" void cblas_xerbla(int info, const char* routine, const char* form, ...) {
    ++g_log.cblas_calls;
    g_log.cblas_info = info;
    g_log.cblas_routine = routine ? routine : "";
    (void)form;
}

namespace {

// ---- The entry points ----

enum class Entry { hgemm, gemm_f16f16f32, gemm_bf16bf16f32, sbgemm, shgemm, native_f16, native_bf16 };
struct EntryInfo {
    Entry entry;
    const char* name;
    Half input;
    bool f16_c;   // C (and alpha, beta) in fp16: cblas_hgemm
    bool native;  // returns a status, reports through the handler
};
constexpr EntryInfo kEntries[] = {
    {Entry::hgemm, "cblas_hgemm", Half::f16, true, false},
    {Entry::gemm_f16f16f32, "cblas_gemm_f16f16f32", Half::f16, false, false},
    {Entry::gemm_bf16bf16f32, "cblas_gemm_bf16bf16f32", Half::bf16, false, false},
    {Entry::sbgemm, "cblas_sbgemm", Half::bf16, false, false},
    {Entry::shgemm, "cblas_shgemm", Half::f16, false, false},
    {Entry::native_f16, "ridge_gemm_f16", Half::f16, false, true},
    {Entry::native_bf16, "ridge_gemm_bf16", Half::bf16, false, true},
};

ridge::Dtype dtype_of(Half t) { return t == Half::f16 ? ridge::Dtype::f16 : ridge::Dtype::bf16; }
const ridge::GemmChoice& choice_of(Half t) { return ridge::runtime_config().gemm(dtype_of(t)); }
// The bf16 kernels on bf16 dot-product instructions: vdpbf16ps (avx512bf16) and
// tdpbf16ps (amx). Both treat bf16 subnormal inputs as zero and flush subnormal
// results (Intel SDM); the other kernels convert to fp32 and honour subnormals.
bool runs_bf16_instructions(Half t) {
    const ridge::Isa isa = choice_of(t).kernel->isa;
    return t == Half::bf16 && (isa == ridge::Isa::avx512bf16 || isa == ridge::Isa::amx);
}

// The KC the driver really blocks k by for this input type: the plan's KC rounded
// down to a whole number of the kernel's k groups (bf16 K-pairs), at least one group.
int64_t active_kc(Half t) {
    const ridge::GemmChoice& c = choice_of(t);
    const int64_t g = c.kernel->k_group;
    return std::max<int64_t>(g, c.blocking.KC / g * g);
}

// alpha and beta as fp16 patterns for cblas_hgemm: every scalar used here is an
// fp16 value, so the call means the same thing as the reference's float.
uint16_t f16_scalar(float x) {
    const uint16_t h = round_to_f16(double(x));
    EXPECT_EQ(double(x), f16_value(h)) << x << " is not an fp16 value: fix the test";
    return h;
}

CBLAS_LAYOUT cblas_layout(const Call& c) { return c.row_major ? CblasRowMajor : CblasColMajor; }
CBLAS_TRANSPOSE cblas_trans(bool t) { return t ? CblasTrans : CblasNoTrans; }
ridge_transpose ridge_trans(bool t) { return t ? RIDGE_TRANS : RIDGE_NO_TRANS; }

// Calls `e` as a caller writes it; false when it reported an error in any way.
bool call_entry(const EntryInfo& e, const Call& c, const uint16_t* a, const uint16_t* b, float* c32,
                uint16_t* c16) {
    reset_log();
    const int m = int(c.m), n = int(c.n), k = int(c.k), lda = int(c.lda()), ldb = int(c.ldb()), ldc = int(c.ldc());
    ridge_status st = RIDGE_SUCCESS;
    switch (e.entry) {
        case Entry::hgemm:
            cblas_hgemm(cblas_layout(c), cblas_trans(c.ta), cblas_trans(c.tb), m, n, k, f16_scalar(c.alpha), a, lda, b,
                        ldb, f16_scalar(c.beta), c16, ldc);
            break;
        case Entry::gemm_f16f16f32:
            cblas_gemm_f16f16f32(cblas_layout(c), cblas_trans(c.ta), cblas_trans(c.tb), m, n, k, c.alpha, a, lda, b,
                                 ldb, c.beta, c32, ldc);
            break;
        case Entry::gemm_bf16bf16f32:
            cblas_gemm_bf16bf16f32(cblas_layout(c), cblas_trans(c.ta), cblas_trans(c.tb), m, n, k, c.alpha, a, lda, b,
                                   ldb, c.beta, c32, ldc);
            break;
        case Entry::sbgemm:
            cblas_sbgemm(cblas_layout(c), cblas_trans(c.ta), cblas_trans(c.tb), m, n, k, c.alpha, a, lda, b, ldb,
                         c.beta, c32, ldc);
            break;
        case Entry::shgemm:
            cblas_shgemm(cblas_layout(c), cblas_trans(c.ta), cblas_trans(c.tb), m, n, k, c.alpha, a, lda, b, ldb,
                         c.beta, c32, ldc);
            break;
        case Entry::native_f16:
            st = ridge_gemm_f16(c.row_major ? RIDGE_ROW_MAJOR : RIDGE_COL_MAJOR, ridge_trans(c.ta), ridge_trans(c.tb),
                                c.m, c.n, c.k, c.alpha, a, c.lda(), b, c.ldb(), c.beta, c32, c.ldc());
            break;
        case Entry::native_bf16:
            st = ridge_gemm_bf16(c.row_major ? RIDGE_ROW_MAJOR : RIDGE_COL_MAJOR, ridge_trans(c.ta), ridge_trans(c.tb),
                                 c.m, c.n, c.k, c.alpha, a, c.lda(), b, c.ldb(), c.beta, c32, c.ldc());
            break;
    }
    return st == RIDGE_SUCCESS && g_log.cblas_calls == 0 && g_log.handler_calls == 0;
}

// The operands of one call: A and B random in [-1, 1] (rounded to the input type),
// C random (fp32, or fp16 for cblas_hgemm); as the call's scalars ask, NaN in all of
// C when beta == 0 (none may survive) and NaN in all of A and B when alpha == 0 or
// k == 0 (they must not be read).
struct Operands16 {
    const EntryInfo& e;
    GuardedHalf a, b;
    Guarded c32;
    GuardedHalf c16;
    Operands16(const EntryInfo& entry, const Call& call, std::mt19937& rng)
        : e(entry), a(call.a_extent(), call.lda()), b(call.b_extent(), call.ldb()),
          c32(e.f16_c ? Extent{0, 0} : call.c_extent(), call.ldc()),
          c16(e.f16_c ? call.c_extent() : Extent{0, 0}, call.ldc()) {
        const Half t = e.input;
        a.fill([&] { return random_half(t, rng); });
        b.fill([&] { return random_half(t, rng); });
        if (e.f16_c) c16.fill([&] { return random_half(Half::f16, rng); });
        else c32.fill_random(rng);
        if (call.alpha == 0.0f || call.k == 0) {
            a.fill_value(kHalfNaN);
            b.fill_value(kHalfNaN);
        }
        if (call.beta == 0.0f) {
            if (e.f16_c) c16.fill_value(0x7e00);
            else c32.fill(quiet_nan());
        }
    }
    float* c32_data() { return e.f16_c ? nullptr : c32.data(); }
    uint16_t* c16_data() { return e.f16_c ? c16.data() : nullptr; }
    // C's value before the call, at a storage offset.
    std::function<double(int64_t)> c_old() const {
        if (e.f16_c) return [this](int64_t at) { return f16_value(c16.data()[at]); };
        return [this](int64_t at) { return double(c32.data()[at]); };
    }
    std::vector<double> expected(const Call& call) const {
        return expected_c16(call, e.input, a.data(), b.data(), c_old());
    }
    ::testing::AssertionResult c_untouched_outside() const {
        return e.f16_c ? c16.untouched_outside() : c32.untouched_outside();
    }
    ::testing::AssertionResult c_untouched() const { return e.f16_c ? c16.untouched() : c32.untouched(); }
};

// One call with operands from `rng`, checked in full: status and no error report,
// A and B unwritten, C right within the bound (exactly beta*C rounded once when
// nothing is multiplied), nothing outside C's m x n written.
::testing::AssertionResult run_case(const EntryInfo& e, const Call& call, std::mt19937& rng) {
    Operands16 ops(e, call, rng);
    const auto expect = ops.expected(call);
    if (!call_entry(e, call, ops.a.data(), ops.b.data(), ops.c32_data(), ops.c16_data()))
        return ::testing::AssertionFailure() << e.name << " " << call.describe() << ": error reported (cblas info "
                                             << g_log.cblas_info << ", handler argument " << g_log.handler_argument << ")";
    if (auto r = ops.a.untouched(); !r) return ::testing::AssertionFailure() << e.name << " " << call.describe() << ": A " << r.message();
    if (auto r = ops.b.untouched(); !r) return ::testing::AssertionFailure() << e.name << " " << call.describe() << ": B " << r.message();
    if (auto r = ops.c_untouched_outside(); !r)
        return ::testing::AssertionFailure() << e.name << " " << call.describe() << ": C " << r.message();
    const bool exact = call.alpha == 0.0f || call.k == 0;
    if (auto r = values_match16(call, ops.c32_data(), ops.c16_data(), expect, bound_for(call), exact); !r)
        return ::testing::AssertionFailure() << e.name << " " << r.message();
    return ::testing::AssertionSuccess();
}

// alpha and beta cycled through the sweeps (all fp16 values, for cblas_hgemm):
// plain product over NaN C, accumulate, generic, alpha = 0 over NaN A and B, and
// beta = 0 with a scaling alpha.
constexpr float kScalars[][2] = {{1.0f, 0.0f}, {1.0f, 1.0f}, {-0.5f, 0.75f}, {2.5f, -1.5f}, {0.0f, 0.5f}, {1.5f, 0.0f}};
constexpr int kNumScalars = 6;

void set_scalars(Call& c, int serial) {
    c.alpha = kScalars[serial % kNumScalars][0];
    c.beta = kScalars[serial % kNumScalars][1];
}

std::string kc_note(Half t) {
    const ridge::GemmChoice& c = choice_of(t);
    return std::string(half_name(t)) + " kernel " + c.kernel->name + " packer " + c.kernel->pack_name +
           " MR=" + std::to_string(c.kernel->MR) + " NR=" + std::to_string(c.kernel->NR) +
           " KC(active)=" + std::to_string(active_kc(t));
}

// ---- Which kernel runs ----

// Each ctest entry forces an ISA through RIDGE_ISA; the kernel and packer names
// prove the 16-bit inputs really run where that entry means them to: amx the
// AMX tile kernel (K-pair A, K-chunk B), avx512bf16 the vdpbf16ps kernel on
// K-pair panels, avx512 the fp32 kernel on AVX-512 converting packers, avx2 and
// ref their fp32 kernels on the portable converting packers. fp16 always runs on
// the best fp32 kernel at or below the ISA. Unset, the library picks by itself.
TEST(Gemm16, KernelsFollowRidgeIsa) {
    struct Expect {
        const char* isa;
        const char* bf16_kernel;
        const char* bf16_pack;
        const char* f16_kernel;
        const char* f16_pack;
    };
    const Expect table[] = {
        {"amx", "ukr_bf16_gemm_32x32__amx", "pack_panel_bf16_pairs32__avx512 + pack_panel_bf16_kchunks__avx512",
         "ukr_f32_gemm_32x12__avx512", "pack_panel_f16_to_f32__avx512"},
        {"avx512bf16", "ukr_bf16_gemm_32x12__avx512bf16", "pack_panel_bf16_pairs__avx512", "ukr_f32_gemm_32x12__avx512",
         "pack_panel_f16_to_f32__avx512"},
        {"avx512", "ukr_f32_gemm_32x12__avx512", "pack_panel_bf16_to_f32__avx512", "ukr_f32_gemm_32x12__avx512",
         "pack_panel_f16_to_f32__avx512"},
        {"avx2", "ukr_f32_gemm_16x6__avx2", "pack_panel_bf16_to_f32__ref", "ukr_f32_gemm_16x6__avx2",
         "pack_panel_f16_to_f32__ref"},
        {"ref", "ukr_f32_gemm_8x4__ref", "pack_panel_bf16_to_f32__ref", "ukr_f32_gemm_8x4__ref",
         "pack_panel_f16_to_f32__ref"},
    };
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    const std::string bf16_kernel = ridge_gemm_kernel_name(RIDGE_BF16), f16_kernel = ridge_gemm_kernel_name(RIDGE_F16);
    SCOPED_TRACE("bf16: " + bf16_kernel + " / " + cfg.gemm(ridge::Dtype::bf16).kernel->pack_name + " (" +
                 cfg.bf16_reason.c_str() + "); f16: " + f16_kernel + " / " + cfg.gemm(ridge::Dtype::f16).kernel->pack_name);
    // The public name and the runtime's choice are one and the same kernel.
    EXPECT_EQ(bf16_kernel, cfg.gemm(ridge::Dtype::bf16).kernel->name);
    EXPECT_EQ(f16_kernel, cfg.gemm(ridge::Dtype::f16).kernel->name);
    EXPECT_EQ(ridge::Dtype::bf16, cfg.gemm(ridge::Dtype::bf16).kernel->input);
    EXPECT_EQ(ridge::Dtype::f16, cfg.gemm(ridge::Dtype::f16).kernel->input);

    const char* forced = std::getenv("RIDGE_ISA");
    ridge::Isa isa;
    if (forced == nullptr || *forced == '\0' || !ridge::parse_isa(forced, &isa)) {
        // Unforced, bf16 takes the best ISA's kernel: AMX when the CPU and OS grant it;
        // between vdpbf16ps and conversion the start-up probe picks (and says why).
        const ridge::Isa best = ridge::best_supported_isa();
        EXPECT_EQ(best, cfg.isa);
        const ridge::GemmKernel* best_bf16 = ridge::find_gemm_kernel(ridge::Dtype::bf16, best);
        const ridge::GemmKernel* convert_bf16 =
            ridge::find_gemm_kernel(ridge::Dtype::bf16, std::min(best, ridge::Isa::avx512));
        const ridge::GemmKernel* ran = cfg.gemm(ridge::Dtype::bf16).kernel;
        if (best_bf16->isa == ridge::Isa::avx512bf16) {
            EXPECT_TRUE(ran == best_bf16 || ran == convert_bf16);
            EXPECT_FALSE(cfg.bf16_reason.empty());
        } else {
            EXPECT_EQ(best_bf16, ran);
        }
        EXPECT_EQ(ridge::find_gemm_kernel(ridge::Dtype::f16, best), cfg.gemm(ridge::Dtype::f16).kernel);
        return;
    }
    if (!ridge::cpu_supports(isa)) GTEST_SKIP() << "this CPU lacks " << forced;
    const Expect* want = nullptr;
    for (const Expect& e : table)
        if (std::string(e.isa) == forced) want = &e;
    ASSERT_NE(nullptr, want) << "no expectation for RIDGE_ISA=" << forced;
    EXPECT_EQ(isa, cfg.isa);
    EXPECT_EQ(std::string(want->bf16_kernel), bf16_kernel);
    EXPECT_EQ(std::string(want->bf16_pack), cfg.gemm(ridge::Dtype::bf16).kernel->pack_name);
    EXPECT_EQ(std::string(want->f16_kernel), f16_kernel);
    EXPECT_EQ(std::string(want->f16_pack), cfg.gemm(ridge::Dtype::f16).kernel->pack_name);
    if (isa == ridge::Isa::avx512bf16) {
        // Forced, the native kernel is taken without the probe, and its K-pairs make KC even.
        EXPECT_TRUE(cfg.bf16_reason.contains("forced")) << cfg.bf16_reason.c_str();
        EXPECT_EQ(2, cfg.gemm(ridge::Dtype::bf16).kernel->k_group);
        EXPECT_EQ(2, cfg.gemm(ridge::Dtype::bf16).kernel->packed_bytes);
    }
}

// ---- Sweeps against the reference ----

// k through the interesting depths for each entry point: 1..9 (K-pairs complete and
// half-filled), around 16 and 32 (the packers' vector and chunk widths), around the
// active KC (one block, one block plus a 1-deep remainder) and across several KC
// blocks with an odd remainder. Layouts and transposes rotate so every entry meets
// all eight with odd and even k; m and n random (with edge tiles), ld padded.
TEST(Gemm16, DepthSweepEveryEntry) {
    const uint32_t seed = test_seed() + 100;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int64_t> size(1, 37), pad(0, 3);
    int serial = 0;
    for (const EntryInfo& e : kEntries) {
        const int64_t kc = active_kc(e.input);
        SCOPED_TRACE(kc_note(e.input));
        std::vector<int64_t> ks = {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 34, 63, 65};
        for (int64_t k : {kc - 3, kc - 2, kc - 1, kc, kc + 1, kc + 2, kc + 3, 2 * kc - 1, 2 * kc + 1, 3 * kc + 5})
            if (k >= 1) ks.push_back(k);
        for (int64_t k : ks)
            for (int rep = 0; rep < 2; ++rep) {
                Call c;
                const int t = (serial + rep * 3) % 8;
                c.row_major = t & 4, c.ta = t & 1, c.tb = t & 2;
                c.m = size(rng), c.n = size(rng), c.k = k;
                // Long k only with small m, n: the reference costs m*n*k.
                if (k > 100) c.m = std::min<int64_t>(c.m, 19), c.n = std::min<int64_t>(c.n, 13);
                set_scalars(c, serial + rep);
                c.lda_pad = pad(rng), c.ldb_pad = pad(rng), c.ldc_pad = pad(rng);
                ASSERT_TRUE(run_case(e, c, rng));
                ++serial;
            }
    }
}

// Every layout and transpose pair for every entry, on shapes with edge tiles in m
// and n, odd k, and one with several KC blocks.
TEST(Gemm16, AllLayoutsAndTransposesEveryEntry) {
    const uint32_t seed = test_seed() + 101;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int serial = 0;
    for (const EntryInfo& e : kEntries) {
        const ridge::GemmKernel& ker = *choice_of(e.input).kernel;
        const int64_t kc = active_kc(e.input);
        SCOPED_TRACE(kc_note(e.input));
        const int64_t shapes[][3] = {{ker.MR + 3, ker.NR + 1, 3}, {2 * ker.MR - 1, 2 * ker.NR + 5, 17},
                                     {7, 5, 2 * kc + 1}, {ker.MR + 1, ker.NR - 1, kc + 1}};
        for (const auto& s : shapes)
            for (int t = 0; t < 8; ++t) {
                Call c;
                c.row_major = t & 4, c.ta = t & 1, c.tb = t & 2;
                c.m = s[0], c.n = s[1], c.k = s[2];
                set_scalars(c, serial++);
                c.lda_pad = t % 3, c.ldb_pad = (t + 1) % 3, c.ldc_pad = (t + 2) % 3;
                ASSERT_TRUE(run_case(e, c, rng));
            }
    }
}

// m and n through 0..3 and one below, at and above the tile sizes and twice the
// tile: full tiles, edge tiles, and the empty matrix.
TEST(Gemm16, SizesAroundTheTileEveryEntry) {
    const uint32_t seed = test_seed() + 102;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int64_t> small(1, 9), pad(0, 2);
    int serial = 0;
    for (const EntryInfo& e : kEntries) {
        const ridge::GemmKernel& ker = *choice_of(e.input).kernel;
        SCOPED_TRACE(kc_note(e.input));
        const int64_t MR = ker.MR, NR = ker.NR;
        const std::vector<int64_t> values = {0, 1, 2, 3, NR - 1, NR, NR + 1, MR - 1, MR, MR + 1, 2 * MR + 1};
        for (int dim = 0; dim < 2; ++dim)
            for (int64_t v : values) {
                Call c;
                const int t = serial % 8;
                c.row_major = t & 4, c.ta = t & 1, c.tb = t & 2;
                c.m = dim == 0 ? v : small(rng) + (serial % 3) * NR;
                c.n = dim == 1 ? v : small(rng) + (serial % 2) * NR;
                c.k = 1 + 2 * (serial % 5);  // odd depths 1..9
                set_scalars(c, serial);
                c.lda_pad = pad(rng), c.ldb_pad = pad(rng), c.ldc_pad = pad(rng);
                ASSERT_TRUE(run_case(e, c, rng));
                ++serial;
            }
    }
}

// Leading dimensions far above the minimum (and at it), every layout and transpose.
TEST(Gemm16, PaddedLeadingDimensionsEveryEntry) {
    const uint32_t seed = test_seed() + 103;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (const EntryInfo& e : kEntries)
        for (int64_t pad : {0, 1, 17, 64})
            for (int t = 0; t < 8; ++t) {
                Call c;
                c.m = 45, c.n = 29, c.k = 37, c.ta = t & 1, c.tb = t & 2, c.row_major = t & 4;
                c.alpha = 0.5f, c.beta = 1.5f;
                c.lda_pad = pad, c.ldb_pad = pad + 3, c.ldc_pad = pad + 1;
                ASSERT_TRUE(run_case(e, c, rng));
            }
}

// beta = 0: C is output only. All of C is NaN before the call (fp32 NaN, or an fp16
// NaN for cblas_hgemm); no NaN may survive, with alpha nonzero (the product
// overwrites) and alpha zero (C becomes +0), over full tiles, edge tiles and
// several KC blocks.
TEST(Gemm16, BetaZeroOverwritesNaN) {
    const uint32_t seed = test_seed() + 104;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (const EntryInfo& e : kEntries) {
        const ridge::GemmKernel& ker = *choice_of(e.input).kernel;
        const int64_t kc = active_kc(e.input);
        const int64_t shapes[][3] = {{1, 1, 1}, {ker.MR, ker.NR, 5}, {ker.MR + 3, 2 * ker.NR - 1, kc + 9}, {3, 2, 0}};
        for (const auto& s : shapes)
            for (int t = 0; t < 8; ++t) {
                Call c;
                c.m = s[0], c.n = s[1], c.k = s[2], c.ta = t & 1, c.tb = t & 2, c.row_major = t & 4;
                c.alpha = t == 7 ? 0.0f : 1.0f, c.beta = 0.0f;
                c.ldc_pad = 2;
                ASSERT_TRUE(run_case(e, c, rng));  // run_case fills C with NaN (beta == 0)
            }
    }
}

// alpha = 0 never reads A or B: A and B all NaN, and C comes out as beta*C rounded
// once (exactly; for fp16 C that is the fp16 product beta*C, exact in fp32, rounded
// to nearest even). The native API documents that NULL A and B are then fine too.
TEST(Gemm16, AlphaZeroReadsNeitherAnorB) {
    const uint32_t seed = test_seed() + 105;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (const EntryInfo& e : kEntries)
        for (float beta : {0.0f, 0.5f, -2.0f, 0.75f})
            for (int t = 0; t < 8; ++t) {
                Call c;
                c.m = 13, c.n = 7, c.k = 9, c.ta = t & 1, c.tb = t & 2, c.row_major = t & 4;
                c.alpha = 0.0f, c.beta = beta;
                ASSERT_TRUE(run_case(e, c, rng));
            }
    ridge_set_error_handler(handler, nullptr);
    for (const EntryInfo& e : kEntries) {
        if (!e.native) continue;
        Call c;
        c.m = 5, c.n = 4, c.k = 3, c.alpha = 0.0f, c.beta = 0.5f;
        Guarded cc(c.c_extent(), c.ldc());
        cc.fill_random(rng);
        const float before = cc.at(2, 1);
        reset_log();
        const ridge_status st = e.entry == Entry::native_f16
                                    ? ridge_gemm_f16(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, 5, 4, 3, 0.0f, nullptr,
                                                     5, nullptr, 3, 0.5f, cc.data(), c.ldc())
                                    : ridge_gemm_bf16(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, 5, 4, 3, 0.0f, nullptr,
                                                      5, nullptr, 3, 0.5f, cc.data(), c.ldc());
        EXPECT_EQ(RIDGE_SUCCESS, st) << e.name;
        EXPECT_EQ(0, g_log.handler_calls) << e.name << " reported argument " << g_log.handler_argument;
        EXPECT_EQ(before * 0.5f, cc.at(2, 1)) << e.name;
    }
    ridge_set_error_handler(nullptr, nullptr);
}

// The quick returns leave C bitwise untouched: m = 0, n = 0, and beta = 1 with
// nothing to add (alpha = 0 or k = 0). C holds patterns any read-modify-write
// would change: signalling NaNs (an fp32 or fp16 round trip quiets them),
// negative zeros, subnormals. For fp16 C this is the only proof that the quick
// return skips the widening to fp32 and the narrowing back.
TEST(Gemm16, QuickReturnsLeaveCBitwiseUntouched) {
    const uint32_t seed = test_seed() + 106;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const uint32_t f32_patterns[] = {0x7f800001u, 0xff800123u, 0x80000000u, 0x00000001u, 0x3f800000u};
    const uint16_t f16_patterns[] = {0x7c01, 0xfd00, 0x8000, 0x0001, 0x3c00, 0x7bff};
    struct Q {
        int64_t m, n, k;
        float alpha, beta;
        const char* why;
    };
    const Q quick[] = {{0, 5, 4, 1.0f, 0.5f, "m = 0"},          {6, 0, 4, 1.0f, 0.5f, "n = 0"},
                       {0, 0, 0, 1.0f, 0.0f, "m = n = 0"},      {6, 5, 4, 0.0f, 1.0f, "alpha = 0, beta = 1"},
                       {6, 5, 0, 1.0f, 1.0f, "k = 0, beta = 1"}, {0, 5, 0, 0.0f, 0.0f, "m = 0, beta = 0"}};
    for (const EntryInfo& e : kEntries)
        for (const Q& q : quick)
            for (int t = 0; t < 8; ++t) {
                Call c;
                c.m = q.m, c.n = q.n, c.k = q.k, c.alpha = q.alpha, c.beta = q.beta;
                c.ta = t & 1, c.tb = t & 2, c.row_major = t & 4, c.ldc_pad = 1;
                SCOPED_TRACE(std::string(e.name) + " " + q.why + " " + c.describe());
                GuardedHalf a(c.a_extent(), c.lda()), b(c.b_extent(), c.ldb());
                a.fill_value(kHalfNaN);
                b.fill_value(kHalfNaN);
                Guarded c32(c.c_extent(), c.ldc());
                GuardedHalf c16(c.c_extent(), c.ldc());
                int serial = 0;
                c32.fill_random(rng);
                for (int64_t o = 0; o < c.c_extent().outer; ++o)
                    for (int64_t i = 0; i < c.c_extent().inner; ++i, ++serial) {
                        c32.at(i, o) = float_of(f32_patterns[serial % 5]);
                        c16.at(i, o) = f16_patterns[serial % 6];
                    }
                c32.snapshot();
                c16.snapshot();
                EXPECT_TRUE(call_entry(e, c, a.data(), b.data(), c32.data(), c16.data()));
                EXPECT_TRUE(c32.untouched());
                EXPECT_TRUE(c16.untouched());
                EXPECT_TRUE(a.untouched());
                EXPECT_TRUE(b.untouched());
            }
}

// Several KC blocks with m and n spanning several tiles, every entry: the partial
// sums of one block must carry into the next in fp32 (for fp16 C, in the fp32
// copy of C, not through fp16).
TEST(Gemm16, SeveralKcBlocksLargerShapes) {
    const uint32_t seed = test_seed() + 107;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int serial = 0;
    for (const EntryInfo& e : kEntries) {
        const ridge::GemmKernel& ker = *choice_of(e.input).kernel;
        const int64_t kc = active_kc(e.input);
        SCOPED_TRACE(kc_note(e.input));
        for (int t = 0; t < 8; t += 3) {
            Call c;
            c.m = 2 * ker.MR + 3, c.n = 2 * ker.NR + 5, c.k = 2 * kc + 3;
            c.row_major = t & 4, c.ta = t & 1, c.tb = t & 2;
            set_scalars(c, serial++);
            c.ldc_pad = 3;
            ASSERT_TRUE(run_case(e, c, rng));
        }
    }
}

// A single row or column of C (m == 1 or n == 1, k > 0, alpha != 0): the library
// runs these as a GEMV on the fp32-converted operands (as_gemv in dispatch.cpp),
// reading op(A) or op(B) with strides from the other's leading dimension and
// writing a row of C with stride ldc. Every entry, layout and transpose, odd and
// deep k, the scalars including beta = 0 over NaN and alpha = 0 (which stays
// with the GEMM driver), padded leading dimensions.
TEST(Gemm16, VectorShapesEveryEntry) {
    const uint32_t seed = test_seed() + 112;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int serial = 0;
    for (const EntryInfo& e : kEntries) {
        const int64_t kc = active_kc(e.input);
        for (int64_t k : {int64_t(1), int64_t(2), int64_t(3), int64_t(17), kc + 1})
            for (int shape = 0; shape < 3; ++shape)
                for (int t = 0; t < 8; ++t) {
                    Call c;
                    c.row_major = t & 4, c.ta = t & 1, c.tb = t & 2;
                    c.m = shape == 1 ? 1 : 29 + serial % 7;
                    c.n = shape == 0 ? 1 : 13 + serial % 5;
                    if (shape == 2) c.m = 1, c.n = 1;
                    c.k = k;
                    set_scalars(c, serial);
                    c.lda_pad = serial % 3, c.ldb_pad = (serial + 1) % 3, c.ldc_pad = (serial + 2) % 4;
                    ++serial;
                    ASSERT_TRUE(run_case(e, c, rng));
                }
    }
}

// The vector shapes honour bf16 subnormals whatever the GEMM kernel: the GEMV path
// converts to fp32 (ridge.h: "elsewhere bf16 subnormals are honoured"). Where the
// GEMM kernel flushes (vdpbf16ps, AMX), bf16 subnormal handling thus depends on
// the shape: a column of C keeps what a matrix of C flushes.
TEST(Gemm16, Bf16SubnormalsInVectorShapesHonoured) {
    const uint16_t sub = 0x0003, big = round_to_bf16(std::ldexp(1.0, 100)), two_m70 = round_to_bf16(std::ldexp(1.0, -70));
    for (const EntryInfo& e : kEntries) {
        if (e.input != Half::bf16) continue;
        for (int shape = 0; shape < 2; ++shape) {  // n == 1, then m == 1
            SCOPED_TRACE(std::string(e.name) + (shape ? " m=1" : " n=1"));
            Call call;
            call.m = shape ? 1 : 3, call.n = shape ? 3 : 1, call.k = 2;
            std::vector<uint16_t> a(6, sub), b(6, big);
            std::vector<float> c(3, quiet_nan());
            ASSERT_TRUE(call_entry(e, call, a.data(), b.data(), c.data(), nullptr));
            for (float x : c) EXPECT_EQ(6 * std::ldexp(1.0, -33), double(x)) << "subnormal inputs";
            std::fill(a.begin(), a.end(), two_m70);
            std::fill(b.begin(), b.end(), two_m70);
            std::fill(c.begin(), c.end(), quiet_nan());
            ASSERT_TRUE(call_entry(e, call, a.data(), b.data(), c.data(), nullptr));
            for (float x : c) EXPECT_EQ(std::ldexp(1.0, -139), double(x)) << "subnormal results";
        }
    }
}

// ---- Special values ----

// NaN and Inf in the inputs propagate as IEEE says, through every entry:
// a NaN in A(i0, p) makes row i0 of C NaN (NaN times anything, zero included, is NaN),
// a NaN in B(p, j0) makes column j0 NaN, and +Inf in A(i1, p1) with row p1 of op(B)
// all nonzero makes row i1 +-Inf with the sign of alpha*B(p1, j), while every other
// element stays finite and right. The shapes put the specials in full and edge
// tiles, in the first and later KC blocks, and at an odd last k (half a K-pair).
TEST(Gemm16, NanAndInfPropagate) {
    const uint32_t seed = test_seed() + 108;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int serial = 0;
    for (const EntryInfo& e : kEntries) {
        const ridge::GemmKernel& ker = *choice_of(e.input).kernel;
        const int64_t kc = active_kc(e.input);
        SCOPED_TRACE(kc_note(e.input));
        const uint16_t nan = e.input == Half::f16 ? 0x7e00 : 0x7fc0;
        const uint16_t inf = e.input == Half::f16 ? 0x7c00 : 0x7f80;
        // Matrix shapes (the kernel), and a column and a row of C (the GEMV path).
        const int64_t shapes[][3] = {{ker.MR + 5, ker.NR + 3, 7}, {9, 6, kc + 3}, {ker.MR, ker.NR, 33}, {17, 1, 9}, {1, 13, 9}};
        for (const auto& s : shapes)
            for (int t = 0; t < 8; t += 1) {
                Call c;
                c.m = s[0], c.n = s[1], c.k = s[2];
                c.row_major = t & 4, c.ta = t & 1, c.tb = t & 2;
                c.alpha = (serial & 1) ? -1.5f : 1.0f, c.beta = (serial & 2) ? 0.5f : 0.0f;
                ++serial;
                Operands16 ops(e, c, rng);
                // NaN at A(i0, p0) and B(p2, j0), +Inf at A(i1, p1); in a single row of C, A's
                // NaN and Inf cannot both have rows of their own: the row gets the Inf only.
                const bool one_row = c.m == 1;
                const int64_t i0 = c.m - 1, i1 = 0, p0 = c.k - 1, p1 = c.k / 2, j0 = c.n / 2, p2 = 1;
                auto a_at = [&](int64_t i, int64_t p) -> uint16_t& {
                    return ops.a.data()[c.ta ? offset_of(c.row_major, c.lda(), p, i) : offset_of(c.row_major, c.lda(), i, p)];
                };
                auto b_at = [&](int64_t p, int64_t j) -> uint16_t& {
                    return ops.b.data()[c.tb ? offset_of(c.row_major, c.ldb(), j, p) : offset_of(c.row_major, c.ldb(), p, j)];
                };
                if (!one_row) a_at(i0, p0) = nan;
                a_at(i1, p1) = inf;
                for (int64_t j = 0; j < c.n; ++j)
                    b_at(p1, j) = round_to_half(e.input, (j % 2) ? -0.75 : 0.5);  // nonzero: Inf*b is +-Inf
                if (c.n > 1) b_at(p2, j0) = nan;
                ops.a.snapshot();
                ops.b.snapshot();
                const auto expect = ops.expected(c);
                // The reference says what IEEE arithmetic gives; check it is the pattern described.
                if (!one_row) ASSERT_TRUE(std::isnan(expect[size_t(offset_of(c.row_major, c.ldc(), i0, 0))]));
                if (c.n > 1) ASSERT_TRUE(std::isnan(expect[size_t(offset_of(c.row_major, c.ldc(), c.m - 1, j0))]));
                ASSERT_TRUE(std::isinf(expect[size_t(offset_of(c.row_major, c.ldc(), i1, j0 == 0 && c.n > 1 ? 1 : 0))]));
                ASSERT_TRUE(call_entry(e, c, ops.a.data(), ops.b.data(), ops.c32_data(), ops.c16_data()));
                ASSERT_TRUE(ops.c_untouched_outside());
                ASSERT_TRUE(values_match16(c, ops.c32_data(), ops.c16_data(), expect, bound_for(c), false))
                    << e.name << ": NaN at A(" << i0 << "," << p0 << ") and B(" << p2 << "," << j0 << "), Inf at A("
                    << i1 << "," << p1 << ")";
            }
    }
}

// Large finite fp16 inputs whose products overflow fp16 but not fp32: the fp32
// accumulation keeps them (16-bit in, fp32 C), and cblas_hgemm's final rounding
// gives Inf from 65520 on and 65504 just below it.
TEST(Gemm16, Fp16OverflowOnlyAtTheFinalRounding) {
    // 63 * 1040 = 65520: exactly the fp16 rounding tie between 65504 and 2^16 (odd
    // 65504 loses: Inf). Subtracting 2^-4 (k = 2: 1 * 0.0625) lands just below: 65504.
    const uint16_t a[] = {round_to_f16(63.0), round_to_f16(-1.0)};  // 1 x 2, col-major, lda 1
    const uint16_t b_tie[] = {round_to_f16(1040.0), 0};               // 2 x 1
    const uint16_t b_below[] = {round_to_f16(1040.0), round_to_f16(0.0625)};
    const uint16_t b_big[] = {round_to_f16(1040.0), round_to_f16(-1040.0)};  // 63*1040 + 1040 = 66560
    const uint16_t one = round_to_f16(1.0), zero = 0;
    struct Case {
        const uint16_t* b;
        uint16_t want16;
        double want32;
    };
    const Case cases[] = {{b_tie, 0x7c00, 65520.0}, {b_below, 0x7bff, 65519.9375}, {b_big, 0x7c00, 66560.0}};
    for (const Case& cs : cases) {
        uint16_t c16 = 0x1234;
        cblas_hgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 2, one, a, 1, cs.b, 2, zero, &c16, 1);
        EXPECT_EQ(hex16(cs.want16), hex16(c16)) << "cblas_hgemm, exact " << cs.want32;
        float c32 = 0.0f;
        cblas_gemm_f16f16f32(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 2, 1.0f, a, 1, cs.b, 2, 0.0f, &c32, 1);
        EXPECT_EQ(cs.want32, double(c32)) << "cblas_gemm_f16f16f32 keeps the fp32 value";
        c32 = 0.0f;
        EXPECT_EQ(RIDGE_SUCCESS, ridge_gemm_f16(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, 1, 1, 2, 1.0f, a, 1,
                                                cs.b, 2, 0.0f, &c32, 1));
        EXPECT_EQ(cs.want32, double(c32)) << "ridge_gemm_f16 keeps the fp32 value";
    }
}

// cblas_hgemm rounds C to fp16 once, at the end, to nearest even: the exact fp32
// result 1 + 2^-11 (a tie) goes down to 1, 1 + 3*2^-11 (a tie) up to 1 + 2^-9;
// 0.75 * (683/512) + 2^-10 * 2^-10 = 1 + 2^-11 + 2^-20 is exact in fp32 and rounds
// to 1 + 2^-10, where rounding the first product to fp16 before adding (or adding
// in fp16) would give 1. The same sums through beta*C: C = 1, beta = 1.
TEST(Gemm16, HgemmRoundsOnceToNearestEven) {
    struct Case {
        double a0, b0, a1, b1;  // k = 2: a0*b0 + a1*b1
        double c, beta;
        uint16_t want;
        const char* why;
    };
    const Case cases[] = {
        {0.75, 683.0 / 512, 0.0, 0.0, 0.0, 0.0, 0x3c00, "1 + 2^-11: tie, to even (down)"},
        {0.875, 293.0 / 256, 0.0, 0.0, 0.0, 0.0, 0x3c02, "1 + 3*2^-11: tie, to even (up)"},
        {0.75, 683.0 / 512, 1.0 / 1024, 1.0 / 1024, 0.0, 0.0, 0x3c01, "1 + 2^-11 + 2^-20: above the tie"},
        {-0.75, 683.0 / 512, -1.0 / 1024, 1.0 / 1024, 0.0, 0.0, 0xbc01, "negative, above the tie"},
        {1.0 / 32, 1.0 / 64, 0.0, 0.0, 1.0, 1.0, 0x3c00, "C + 2^-11: tie, to even"},
        {1.0 / 32, 1.0 / 64, 1.0 / 1024, 1.0 / 1024, 1.0, 1.0, 0x3c01, "C + 2^-11 + 2^-20"},
        {1.0 / 2048, 1.0 / 4096, 1.0 / 4096, 3.0 / 16384, 0.0, 0.0, 0x0003, "2.75 * 2^-24: subnormal, to nearest (3)"},
        {1.0 / 4096, 1.0 / 8192, 0.0, 0.0, 0.0, 0.0, 0x0000, "2^-25: subnormal tie, to even zero"},
        {3.0 / 4096, 1.0 / 8192, 0.0, 0.0, 0.0, 0.0, 0x0002, "3 * 2^-25: subnormal tie, to even (up)"},
    };
    for (const Case& cs : cases) {
        SCOPED_TRACE(cs.why);
        const uint16_t a[] = {round_to_f16(cs.a0), round_to_f16(cs.a1)};
        const uint16_t b[] = {round_to_f16(cs.b0), round_to_f16(cs.b1)};
        ASSERT_EQ(cs.a0, f16_value(a[0]));
        ASSERT_EQ(cs.b0, f16_value(b[0]));
        ASSERT_EQ(cs.a1, f16_value(a[1]));
        ASSERT_EQ(cs.b1, f16_value(b[1]));
        for (bool row : {false, true})
            for (int t = 0; t < 4; ++t) {
                // 1 x 1 x 2 in every layout and transpose (A 1x2 or 2x1 as stored).
                const bool ta = t & 1, tb = t & 2;
                const int lda = row ? (ta ? 1 : 2) : (ta ? 2 : 1);
                const int ldb = row ? (tb ? 2 : 1) : (tb ? 1 : 2);
                uint16_t c = round_to_f16(cs.c);
                cblas_hgemm(row ? CblasRowMajor : CblasColMajor, cblas_trans(ta), cblas_trans(tb), 1, 1, 2, 0x3c00, a,
                            lda, b, ldb, round_to_f16(cs.beta), &c, 1);
                EXPECT_EQ(hex16(cs.want), hex16(c)) << "row-major=" << row << " ta=" << ta << " tb=" << tb;
            }
    }
}

// fp16 subnormal inputs (man * 2^-24) are honoured on every path: each product is
// exact in fp32 (subnormal times subnormal is 2^-48 at the least, a normal fp32),
// so flushing any input to zero would show far outside the bound. Also with fp16
// subnormal results for cblas_hgemm. The reference's bound is scaled to the data.
TEST(Gemm16, Fp16SubnormalInputsHonoured) {
    const uint32_t seed = test_seed() + 109;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> man(1, 0x3ff), sign(0, 1);
    auto subnormal = [&] { return uint16_t((sign(rng) ? 0x8000 : 0) | man(rng)); };
    int serial = 0;
    for (const EntryInfo& e : kEntries) {
        if (e.input != Half::f16) continue;
        const int64_t kc = active_kc(e.input);
        for (int variant = 0; variant < 4; ++variant)
            for (int t = 0; t < 8; ++t) {
                Call c;
                c.m = 35, c.n = variant == 3 ? 1 : 14, c.k = variant == 2 ? kc + 1 : 9;
                c.row_major = t & 4, c.ta = t & 1, c.tb = t & 2;
                c.alpha = 1.0f, c.beta = 0.0f;
                ++serial;
                Operands16 ops(e, c, rng);
                // variant 0: A subnormal, B up to 2^10 (products ~2^-14: normal fp16 results);
                // variant 1: A subnormal, B in [-1, 1] (subnormal fp16 results for hgemm);
                // variant 2: both subnormal (products ~2^-30..2^-48), deep k;
                // variant 3: as 0, with one column of C (the GEMV path).
                double max_b = 1.0;
                ops.a.fill(subnormal);
                if (variant == 0 || variant == 3) {
                    ops.b.fill([&] { return random_half(Half::f16, rng, -1024.0f, 1024.0f); });
                    max_b = 1024.0;
                } else if (variant == 2) {
                    ops.b.fill(subnormal);
                    max_b = std::ldexp(1.0, -14);
                }
                const auto expect = ops.expected(c);
                const double bound = gemm_error_bound(c.k, c.alpha, std::ldexp(1.0, -14), max_b, 0.0f, 0.0);
                ASSERT_TRUE(call_entry(e, c, ops.a.data(), ops.b.data(), ops.c32_data(), ops.c16_data()));
                ASSERT_TRUE(ops.c_untouched_outside());
                ASSERT_TRUE(values_match16(c, ops.c32_data(), ops.c16_data(), expect, bound, false))
                    << e.name << " variant " << variant;
                // Nonzero results where the reference is far from zero: nothing was flushed.
                if (!e.f16_c || variant != 2) {
                    int64_t nonzero = 0;
                    for (int64_t i = 0; i < c.m; ++i)
                        for (int64_t j = 0; j < c.n; ++j) {
                            const int64_t at = offset_of(c.row_major, c.ldc(), i, j);
                            nonzero += e.f16_c ? (ops.c16.data()[at] & 0x7fff) != 0 : ops.c32.data()[at] != 0.0f;
                        }
                    EXPECT_GT(nonzero, c.m * c.n / 2) << e.name << " variant " << variant << ": subnormals flushed?";
                }
            }
    }
}

// bf16 subnormals (man * 2^-133) follow the kernel: the kernels on bf16
// dot-product instructions (vdpbf16ps, forced by RIDGE_ISA=avx512bf16, and
// AMX's tdpbf16ps, the default where the OS grants AMX) treat subnormal inputs as
// zero and flush subnormal results to zero (Intel SDM; the kernels' own comments
// say so); the converting paths honour both, and so do the in-place paths the
// vdpbf16ps kernel leaves to the converting kernels (at most 16 rows or columns
// of C: GemmChoice::in_place_sibling). Whichever kernel this process runs, its
// behaviour is asserted exactly, on a C of 20 x 18 (the blocked path) and of
// 3 x 2 (few rows) (what ridge.h promises is the next test's):
//   inputs:  A(i, p) = s * 2^-133 (bf16 subnormal), B = 2^100: each product
//            s * 2^-33 is a normal fp32, so honoured gives sum_p s_p * 2^-33
//            exactly, DAZ gives exactly 0;
//   results: A = B = 2^-70 (normal bf16), k = 2: 2^-140 + 2^-140 = 2^-139, an fp32
//            subnormal, honoured exactly or flushed to exactly 0.
// m and n are at least 2: a single row or column of C goes to the GEMV path
// instead of the GEMM kernel (VectorShapes* below).
TEST(Gemm16, Bf16SubnormalsFollowTheKernel) {
    const bool daz_blocked = runs_bf16_instructions(Half::bf16);
    // Few rows run in place: on the chosen kernel's own few-rows kernel, or on the
    // converting sibling's; only AMX keeps the narrow shapes on its own tile kernel.
    const bool daz_narrow = daz_blocked && choice_of(Half::bf16).in_place_sibling == nullptr &&
                            choice_of(Half::bf16).kernel->few_rows == nullptr;
    SCOPED_TRACE(kc_note(Half::bf16) + (daz_blocked ? ": expecting DAZ/FTZ (vdpbf16ps) on 20 x 18"
                                                    : ": expecting subnormals honoured"));
    const uint16_t two_100 = round_to_bf16(std::ldexp(1.0, 100));
    const uint16_t two_m70 = round_to_bf16(std::ldexp(1.0, -70));
    ASSERT_EQ(std::ldexp(1.0, 100), bf16_value(two_100));
    ASSERT_EQ(std::ldexp(1.0, -70), bf16_value(two_m70));
    for (const EntryInfo& e : kEntries) {
        if (e.input != Half::bf16) continue;
        SCOPED_TRACE(e.name);
        for (const auto& [m, n, daz] : {std::tuple<int64_t, int64_t, bool>{20, 18, daz_blocked},
                                        std::tuple<int64_t, int64_t, bool>{3, 2, daz_narrow}})
        for (int64_t k : {1, 2, 3, 8, 17}) {
            SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k));
            // Inputs: A(i, p) = (i + p + 1) * 2^-133 with alternating signs.
            std::vector<uint16_t> a(size_t(m * k)), b(size_t(k * n), two_100);
            for (int64_t i = 0; i < m; ++i)
                for (int64_t p = 0; p < k; ++p)
                    a[size_t(i + p * m)] = uint16_t(((p & 1) ? 0x8000 : 0) | uint16_t(i + p + 1));
            std::vector<float> c(size_t(m * n), quiet_nan());
            Call call;
            call.m = m, call.n = n, call.k = k;
            ASSERT_TRUE(call_entry(e, call, a.data(), b.data(), c.data(), nullptr));
            for (int64_t i = 0; i < m; ++i) {
                double exact = 0.0;
                for (int64_t p = 0; p < k; ++p) exact += ((p & 1) ? -1.0 : 1.0) * double(i + p + 1);
                exact = std::ldexp(exact, -33);
                for (int64_t j = 0; j < n; ++j)
                    EXPECT_EQ(daz ? 0.0 : exact, double(c[size_t(i + j * m)])) << "subnormal inputs, k=" << k << " C(" << i << "," << j << ")";
            }
        }
        // Results: m x n x 2, every element of A and B 2^-70.
        for (const auto& [m, n, daz] : {std::tuple<int64_t, int64_t, bool>{20, 18, daz_blocked},
                                        std::tuple<int64_t, int64_t, bool>{2, 2, daz_narrow}}) {
            SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n) + " x 2");
            const std::vector<uint16_t> a(size_t(m * 2), two_m70), b(size_t(2 * n), two_m70);
            std::vector<float> c(size_t(m * n), quiet_nan());
            Call call;
            call.m = m, call.n = n, call.k = 2;
            ASSERT_TRUE(call_entry(e, call, a.data(), b.data(), c.data(), nullptr));
            const double want = daz ? 0.0 : std::ldexp(1.0, -139);
            for (size_t q = 0; q < c.size(); ++q) EXPECT_EQ(want, double(c[q])) << "subnormal result, element " << q;
        }
    }
}

// The convert-to-fp32 paths honour bf16 subnormals on every entry, on random
// matrix shapes and layouts: with RIDGE_ISA below avx512bf16 no process may flush
// them. (The DAZ of vdpbf16ps and AMX is asserted above when they run, and on
// each kernel directly in test_kernels16.)
TEST(Gemm16, Bf16SubnormalsHonouredWhenConverting) {
    if (runs_bf16_instructions(Half::bf16)) GTEST_SKIP() << "this process runs bf16 on vdpbf16ps (asserted above)";
    const uint32_t seed = test_seed() + 110;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> man(1, 0x7f), sign(0, 1);
    for (const EntryInfo& e : kEntries) {
        if (e.input != Half::bf16) continue;
        for (int t = 0; t < 8; ++t) {
            Call c;
            c.m = 33, c.n = 13, c.k = 11, c.row_major = t & 4, c.ta = t & 1, c.tb = t & 2;
            c.alpha = 1.0f, c.beta = 0.0f;
            Operands16 ops(e, c, rng);
            ops.a.fill([&] { return uint16_t((sign(rng) ? 0x8000 : 0) | man(rng)); });
            ops.b.fill([&] { return random_half(Half::bf16, rng, std::ldexp(1.0f, 99), std::ldexp(1.0f, 100)); });
            const auto expect = ops.expected(c);
            const double bound = gemm_error_bound(c.k, 1.0f, std::ldexp(1.0, -126), std::ldexp(1.0, 100), 0.0f, 0.0);
            ASSERT_TRUE(call_entry(e, c, ops.a.data(), ops.b.data(), ops.c32_data(), nullptr));
            ASSERT_TRUE(values_match16(c, ops.c32_data(), nullptr, expect, bound, false)) << e.name;
        }
    }
}

// ridge.h's promise, as written: bf16 subnormals are flushed where bf16 runs on
// vdpbf16ps or AMX tiles, except that with the vdpbf16ps kernel a C of at most 16
// rows or columns runs on the converting kernels and honours them; elsewhere
// they are honoured. Observed through products of a bf16 subnormal 2^-133 and
// 2^100 (2^-33 when honoured, 0 when flushed) on a 20 x 18 C (the GEMM kernel
// of the blocked path) and a 2 x 2 one (few rows; not GEMV, which takes one row
// or column).
TEST(Gemm16, Bf16SubnormalsAsRidgeHDocumentsThem) {
    const ridge::GemmKernel& ker = *choice_of(Half::bf16).kernel;
    const std::string kernel_name = ker.name;
    const bool vdpbf16ps = kernel_name.find("avx512bf16") != std::string::npos;
    const bool amx = kernel_name.find("__amx") != std::string::npos;
    for (const int64_t m : {20, 2}) {
        const int64_t n = m == 20 ? 18 : 2;
        const bool documented_flush = amx || (vdpbf16ps && std::min(m, n) > 16);
        SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n) + " x 1");
        const std::vector<uint16_t> a(size_t(m), 0x0001), b(size_t(n), round_to_bf16(std::ldexp(1.0, 100)));
        std::vector<float> c(size_t(m * n), quiet_nan());
        ASSERT_EQ(RIDGE_SUCCESS, ridge_gemm_bf16(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, n, 1, 1.0f,
                                                 a.data(), m, b.data(), 1, 0.0f, c.data(), m));
        for (float x : c) ASSERT_TRUE(x == c[0] && (x == 0.0f || double(x) == std::ldexp(1.0, -33))) << x;
        const bool flushed = c[0] == 0.0f;
        EXPECT_EQ(documented_flush, flushed)
            << "bf16 runs on " << ker.name << ", and this C " << (flushed ? "flushed" : "honoured")
            << " bf16 subnormals; ridge.h says they are flushed on vdpbf16ps (beyond 16 rows and columns of C) and "
               "AMX, honoured elsewhere";
    }
}

// ---- Threads ----

// Two threads give bit-identical results to one for 16-bit inputs through the
// public entry points (threads split the packing of B, rows and NR panels,
// never k). The problem is big enough (>= 16 MFLOP) that ridge really takes two.
TEST(Gemm16, TwoThreadsBitIdenticalToOne) {
    const uint32_t seed = test_seed() + 111;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (const EntryInfo& e : kEntries) {
        Call c;
        c.m = 203, c.n = 197, c.k = 211, c.alpha = 1.0f, c.beta = 0.5f, c.ta = e.native, c.row_major = e.f16_c;
        ASSERT_GE(2.0 * c.m * c.n * c.k, 2 * 8e6) << "too small for two threads";
        Operands16 ops(e, c, rng);
        const auto expect = ops.expected(c);  // before the calls: beta = 0.5 reads C
        Guarded c32_two = ops.c32;
        GuardedHalf c16_two = ops.c16;
        ridge_set_num_threads(1);
        ASSERT_TRUE(call_entry(e, c, ops.a.data(), ops.b.data(), ops.c32_data(), ops.c16_data()));
        ridge_set_num_threads(2);
        ASSERT_TRUE(call_entry(e, c, ops.a.data(), ops.b.data(), e.f16_c ? nullptr : c32_two.data(),
                               e.f16_c ? c16_two.data() : nullptr));
        ridge_set_num_threads(0);
        for (int64_t i = 0; i < c.m; ++i)
            for (int64_t j = 0; j < c.n; ++j) {
                const int64_t at = offset_of(c.row_major, c.ldc(), i, j);
                if (e.f16_c)
                    ASSERT_EQ(ops.c16.data()[at], c16_two.data()[at]) << e.name << " C(" << i << "," << j << ")";
                else
                    ASSERT_EQ(bits_of(ops.c32.data()[at]), bits_of(c32_two.data()[at])) << e.name << " C(" << i << "," << j << ")";
            }
        // And the result is right.
        ASSERT_TRUE(values_match16(c, e.f16_c ? nullptr : c32_two.data(), e.f16_c ? c16_two.data() : nullptr, expect,
                                   bound_for(c), false)) << e.name;
    }
}

// ---- Argument errors ----

struct CblasCase {
    int layout, ta, tb;  // raw enum values, so invalid ones can be passed
    int m, n, k, lda, ldb, ldc;
    int info;  // what cblas_xerbla receives; 0 for a valid call
};

// Each CBLAS routine checks like cblas_sgemm and reports under its own name,
// numbering as netlib CBLAS does (1-3 its own, then the Fortran routine's number
// plus one; for row-major the number in the swapped column-major call), and
// writes nothing to C (fp32, or fp16 for cblas_hgemm).
TEST(Gemm16Errors, CblasEachRoutineEachBadArgument) {
    const int C = CblasColMajor, R = CblasRowMajor, N = CblasNoTrans, T = CblasTrans;
    // Baseline valid call: m=4 n=3 k=5. Column-major: lda 4, ldb 5, ldc 4.
    // Row-major: A 4x5 (lda 5), B 5x3 (ldb 3), C 4x3 (ldc 3).
    const CblasCase cases[] = {
        {0, N, N, 4, 3, 5, 4, 5, 4, 1},
        {103, N, N, 4, 3, 5, 4, 5, 4, 1},
        {C, 0, N, 4, 3, 5, 4, 5, 4, 2},
        {C, 114, N, 4, 3, 5, 4, 5, 4, 2},
        {C, N, 110, 4, 3, 5, 4, 5, 4, 3},
        {C, N, N, -1, 3, 5, 4, 5, 4, 4},
        {C, N, N, 4, -1, 5, 4, 5, 4, 5},
        {C, N, N, 4, 3, -1, 4, 5, 4, 6},
        {C, N, N, 4, 3, 5, 3, 5, 4, 9},   // lda < m
        {C, T, N, 4, 3, 5, 4, 5, 4, 9},   // A^T stored k x m: lda < k
        {C, N, N, 4, 3, 5, 4, 4, 4, 11},  // ldb < k
        {C, N, T, 4, 3, 5, 4, 2, 4, 11},  // B^T stored n x k: ldb < n
        {C, N, N, 4, 3, 5, 4, 5, 3, 14},  // ldc < m
        {C, N, N, 0, 3, 5, 1, 5, 0, 14},  // ldc >= 1 even when m = 0
        {R, 0, N, 4, 3, 5, 5, 3, 3, 2},
        {R, N, 0, 4, 3, 5, 5, 3, 3, 3},
        {R, N, N, -1, 3, 5, 5, 3, 3, 5},  // bad M: swapped call's n
        {R, N, N, 4, -1, 5, 5, 3, 3, 4},  // bad N: swapped call's m
        {R, N, N, 4, 3, -1, 5, 3, 3, 6},
        {R, N, N, 4, 3, 5, 4, 3, 3, 11},  // row-major A 4x5: lda < k
        {R, T, N, 4, 3, 5, 3, 3, 3, 11},  // row-major A^T stored 5x4: lda < m
        {R, N, N, 4, 3, 5, 5, 2, 3, 9},   // row-major B 5x3: ldb < n
        {R, N, T, 4, 3, 5, 5, 4, 3, 9},   // row-major B^T stored 3x5: ldb < k
        {R, N, N, 4, 3, 5, 5, 3, 2, 14},  // row-major C 4x3: ldc < n
        {C, N, N, 4, 3, 5, 4, 5, 4, 0},   // valid calls: no report, C written
        {R, N, N, 4, 3, 5, 5, 3, 3, 0},
        {R, T, T, 4, 3, 5, 4, 5, 3, 0},
        {C, CblasConjTrans, T, 4, 3, 5, 5, 3, 4, 0},
    };
    for (const EntryInfo& e : kEntries) {
        if (e.native) continue;
        for (const CblasCase& c : cases) {
            SCOPED_TRACE(std::string(e.name) + "(layout=" + std::to_string(c.layout) + " ta=" + std::to_string(c.ta) +
                         " tb=" + std::to_string(c.tb) + " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
                         " k=" + std::to_string(c.k) + " lda=" + std::to_string(c.lda) +
                         " ldb=" + std::to_string(c.ldb) + " ldc=" + std::to_string(c.ldc) + ")");
            std::mt19937 rng(21);
            GuardedHalf a({40, 40}, 40), b({40, 40}, 40), c16({40, 40}, 40);
            Guarded c32({40, 40}, 40);
            a.fill([&] { return random_half(e.input, rng); });
            b.fill([&] { return random_half(e.input, rng); });
            c16.fill([&] { return random_half(Half::f16, rng); });
            c32.fill_random(rng);
            reset_log();
            const auto L = static_cast<CBLAS_LAYOUT>(c.layout);
            const auto TA = static_cast<CBLAS_TRANSPOSE>(c.ta), TB = static_cast<CBLAS_TRANSPOSE>(c.tb);
            switch (e.entry) {
                case Entry::hgemm:
                    cblas_hgemm(L, TA, TB, c.m, c.n, c.k, 0x3c00, a.data(), c.lda, b.data(), c.ldb, 0x3800, c16.data(), c.ldc);
                    break;
                case Entry::gemm_f16f16f32:
                    cblas_gemm_f16f16f32(L, TA, TB, c.m, c.n, c.k, 1.0f, a.data(), c.lda, b.data(), c.ldb, 0.5f, c32.data(), c.ldc);
                    break;
                case Entry::gemm_bf16bf16f32:
                    cblas_gemm_bf16bf16f32(L, TA, TB, c.m, c.n, c.k, 1.0f, a.data(), c.lda, b.data(), c.ldb, 0.5f, c32.data(), c.ldc);
                    break;
                case Entry::sbgemm:
                    cblas_sbgemm(L, TA, TB, c.m, c.n, c.k, 1.0f, a.data(), c.lda, b.data(), c.ldb, 0.5f, c32.data(), c.ldc);
                    break;
                case Entry::shgemm:
                    cblas_shgemm(L, TA, TB, c.m, c.n, c.k, 1.0f, a.data(), c.lda, b.data(), c.ldb, 0.5f, c32.data(), c.ldc);
                    break;
                default:
                    FAIL();
            }
            EXPECT_EQ(0, g_log.handler_calls) << "CBLAS errors go to cblas_xerbla only";
            EXPECT_TRUE(a.untouched());
            EXPECT_TRUE(b.untouched());
            const bool c_untouched = e.f16_c ? bool(c16.untouched()) : bool(c32.untouched());
            EXPECT_TRUE(e.f16_c ? c32.untouched() : c16.untouched()) << "the other C buffer is not passed";
            if (c.info == 0) {
                EXPECT_EQ(0, g_log.cblas_calls) << "valid call reported parameter " << g_log.cblas_info;
                EXPECT_FALSE(c_untouched) << "valid call did not write C";
                continue;
            }
            EXPECT_EQ(1, g_log.cblas_calls);
            EXPECT_EQ(c.info, g_log.cblas_info);
            EXPECT_EQ(e.name, g_log.cblas_routine);
            EXPECT_TRUE(c_untouched) << "C written by a call with a bad argument";
        }
    }
}

struct NativeCase {
    int layout, ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    bool null_a, null_b, null_c;
    float alpha;
    int position;  // 1-based position in the signature; 0 for a valid call
};

// ridge_gemm_f16 and ridge_gemm_bf16 check like ridge_sgemm: RIDGE_INVALID_ARGUMENT,
// one handler call with their own name and the argument's position in the
// signature (no row-major swap), nothing written.
TEST(Gemm16Errors, NativeEachBadArgument) {
    const int C = RIDGE_COL_MAJOR, R = RIDGE_ROW_MAJOR, N = RIDGE_NO_TRANS, T = RIDGE_TRANS;
    const NativeCase cases[] = {
        {0, N, N, 4, 3, 5, 4, 5, 4, false, false, false, 1.0f, 1},
        {C, 0, N, 4, 3, 5, 4, 5, 4, false, false, false, 1.0f, 2},
        {C, N, 114, 4, 3, 5, 4, 5, 4, false, false, false, 1.0f, 3},
        {C, N, N, -1, 3, 5, 4, 5, 4, false, false, false, 1.0f, 4},
        {R, N, N, -1, 3, 5, 5, 3, 3, false, false, false, 1.0f, 4},  // positions do not swap here
        {C, N, N, 4, -1, 5, 4, 5, 4, false, false, false, 1.0f, 5},
        {C, N, N, 4, 3, -1, 4, 5, 4, false, false, false, 1.0f, 6},
        {C, N, N, 4, 3, 5, 3, 5, 4, false, false, false, 1.0f, 9},
        {C, T, N, 4, 3, 5, 4, 5, 4, false, false, false, 1.0f, 9},
        {R, N, N, 4, 3, 5, 4, 3, 3, false, false, false, 1.0f, 9},
        {R, T, N, 4, 3, 5, 3, 3, 3, false, false, false, 1.0f, 9},
        {C, N, N, 4, 3, 5, 4, 4, 4, false, false, false, 1.0f, 11},
        {R, N, N, 4, 3, 5, 5, 2, 3, false, false, false, 1.0f, 11},
        {R, N, T, 4, 3, 5, 5, 4, 3, false, false, false, 1.0f, 11},
        {C, N, N, 4, 3, 5, 4, 5, 3, false, false, false, 1.0f, 14},
        {R, N, N, 4, 3, 5, 5, 3, 2, false, false, false, 1.0f, 14},
        {C, N, N, 0, 3, 5, 1, 5, 0, false, false, false, 1.0f, 14},
        {C, N, N, 4, 3, 5, 4, 5, 4, true, false, false, 1.0f, 8},
        {C, N, N, 4, 3, 5, 4, 5, 4, false, true, false, 1.0f, 10},
        {C, N, N, 4, 3, 5, 4, 5, 4, false, false, true, 1.0f, 13},
        {C, N, N, 4, 3, 5, 4, 5, 4, true, true, true, 1.0f, 8},
        {C, N, N, 4, 3, 5, 4, 5, 4, true, true, false, 0.0f, 0},   // alpha = 0: A, B not read
        {C, N, N, 4, 3, 0, 4, 1, 4, true, true, false, 1.0f, 0},   // k = 0
        {C, N, N, 0, 3, 5, 1, 5, 1, true, true, true, 1.0f, 0},    // m = 0
        {R, N, N, 4, 0, 5, 5, 1, 1, true, true, true, 1.0f, 0},    // n = 0
        {R, N, N, 4, 3, 5, 5, 3, 3, false, false, false, 1.0f, 0}, // row-major ldc = n < m
    };
    ridge_set_error_handler(handler, nullptr);
    for (const EntryInfo& e : kEntries) {
        if (!e.native) continue;
        for (const NativeCase& c : cases) {
            SCOPED_TRACE(std::string(e.name) + "(layout=" + std::to_string(c.layout) + " ta=" + std::to_string(c.ta) +
                         " tb=" + std::to_string(c.tb) + " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
                         " k=" + std::to_string(c.k) + " lda=" + std::to_string(c.lda) + " ldb=" +
                         std::to_string(c.ldb) + " ldc=" + std::to_string(c.ldc) + (c.null_a ? " a=NULL" : "") +
                         (c.null_b ? " b=NULL" : "") + (c.null_c ? " c=NULL" : "") +
                         " alpha=" + std::to_string(c.alpha) + ")");
            std::mt19937 rng(22);
            GuardedHalf a({40, 40}, 40), b({40, 40}, 40);
            Guarded cc({40, 40}, 40);
            a.fill([&] { return random_half(e.input, rng); });
            b.fill([&] { return random_half(e.input, rng); });
            cc.fill_random(rng);
            reset_log();
            const auto fn = e.entry == Entry::native_f16 ? ridge_gemm_f16 : ridge_gemm_bf16;
            const ridge_status st = fn(static_cast<ridge_layout>(c.layout), static_cast<ridge_transpose>(c.ta),
                                       static_cast<ridge_transpose>(c.tb), c.m, c.n, c.k, c.alpha,
                                       c.null_a ? nullptr : a.data(), c.lda, c.null_b ? nullptr : b.data(), c.ldb, 0.5f,
                                       c.null_c ? nullptr : cc.data(), c.ldc);
            EXPECT_EQ(0, g_log.cblas_calls);
            if (c.position == 0) {
                EXPECT_EQ(RIDGE_SUCCESS, st);
                EXPECT_EQ(0, g_log.handler_calls) << "handler told argument " << g_log.handler_argument;
                continue;
            }
            EXPECT_EQ(RIDGE_INVALID_ARGUMENT, st);
            EXPECT_EQ(1, g_log.handler_calls);
            EXPECT_EQ(RIDGE_INVALID_ARGUMENT, g_log.handler_status);
            EXPECT_EQ(c.position, g_log.handler_argument);
            EXPECT_EQ(e.name, g_log.handler_function);
            EXPECT_TRUE(cc.untouched()) << "C written by a call with a bad argument";
        }
    }
    ridge_set_error_handler(nullptr, nullptr);
}

}  // namespace
