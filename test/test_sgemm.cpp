// ridge_sgemm against the double reference on random shapes, all transposes and layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "dispatch/cpu_features.h"
#include "dispatch/registry.h"
#include "tuning/topology.h"
#include "reference.h"
#include "ridge/ridge.h"

using namespace ridge_test;

namespace {

void check_col_major(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, float beta,
                     uint32_t seed, int64_t lda_pad = 3) {
    std::mt19937 rng(seed);
    const int64_t lda = (ta ? k : m) + lda_pad, ldb = (tb ? n : k) + 1, ldc = m + 2;
    auto a = random_matrix(lda * (ta ? m : k), rng);
    auto b = random_matrix(ldb * (tb ? k : n), rng);
    auto c = random_matrix(ldc * n, rng);
    std::vector<double> expect(c.begin(), c.end());
    reference_gemm(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, expect, ldc);
    ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, ta ? RIDGE_TRANS : RIDGE_NO_TRANS,
                                         tb ? RIDGE_TRANS : RIDGE_NO_TRANS, m, n, k, alpha,
                                         a.data(), lda, b.data(), ldb, beta, c.data(), ldc));
    const double bound = gemm_error_bound(k, alpha, 1.0, 1.0, beta, 1.0);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
            ASSERT_NEAR(expect[i + j * ldc], c[i + j * ldc], bound)
                << "i=" << i << " j=" << j << " m=" << m << " n=" << n << " k=" << k;
}

// The registry's fp32 kernel of that name (the one ridge_sgemm_kernel_name reports), or null.
const ridge::GemmKernel* fp32_kernel_named(const std::string& name) {
    for (const ridge::GemmKernel& k : ridge::gemm_kernels())
        if (k.input == ridge::Dtype::f32 && name == k.name) return &k;
    return nullptr;
}

}  // namespace

TEST(Sgemm, SquareAndRectangular) {
    for (int64_t s : {1, 7, 32, 33, 100, 257})
        for (bool ta : {false, true})
            for (bool tb : {false, true}) check_col_major(ta, tb, s, s + 5, s + 3, 1.5f, 0.5f, 42);
}

// RIDGE_ISA in the environment must really select that ISA's kernel (the ctest
// entries test_sgemm_avx2 and test_sgemm_ref set it); a value that names no ISA
// is ignored, as is no value, and then the best ISA this CPU supports is used.
// Proven through the name ridge reports, whose suffix is "__<isa>".
TEST(Sgemm, KernelFollowsRidgeIsa) {
    const char* forced = std::getenv("RIDGE_ISA");
    ridge::Isa want = ridge::best_supported_isa();
    ridge::Isa named;
    if (forced != nullptr && ridge::parse_isa(forced, &named)) {
        if (!ridge::cpu_supports(named)) GTEST_SKIP() << "this CPU lacks " << forced;
        want = named;
    }
    // The fp32 kernel of the highest ISA at or below the wanted one (there is no
    // fp32 kernel of its own for avx512bf16: it serves bf16 inputs only).
    const ridge::GemmKernel* expected = ridge::find_gemm_kernel(ridge::Dtype::f32, want);
    ASSERT_NE(nullptr, expected);
    EXPECT_LE(expected->isa, want);
    const std::string name = ridge_sgemm_kernel_name();
    const std::string suffix = std::string("__") + ridge::isa_name(expected->isa);
    EXPECT_NE(std::string::npos, name.find(suffix))
        << "RIDGE_ISA=" << (forced ? forced : "(unset)") << ": kernel " << name << ", expected " << suffix;
    // And the kernel is usable: a product through it is right.
    check_col_major(false, true, 19, 23, 29, 1.0f, 0.0f, 7);
}

// A kernel whose small kernel serves the small path alone
// (GemmKernel::small_kernel_max_volume: AVX2's, run by test_sgemm_avx2) takes
// the small path up to its own limit and, past it, for a thin problem of at
// most its own small_thin_max_rows rows of C (op(B) larger than L2, op(A)
// within it), not for an A whose columns lie 4 KiB apart (lda = 1024, against
// 1040); the products are right on both sides. (Past the limit, the shapes
// the thin rule must not take have a C past half of L2: deep problems with a
// smaller C take the small path too, Kernels.DispatchTakesSmallPathForDeepProblems.)
TEST(Sgemm, SmallKernelKeptToTheSmallPathUpToItsLimit) {
    const std::string name = ridge_sgemm_kernel_name();
    const ridge::GemmKernel* ker = fp32_kernel_named(name);
    ASSERT_NE(nullptr, ker) << name;
    if (ker->small_f32 == nullptr || ker->small_kernel_max_volume <= 0)
        GTEST_SKIP() << name << " has no small kernel kept to the small path";
    const int64_t edge = int64_t(std::cbrt(ker->small_kernel_max_volume));
    const int64_t thin_rows = ker->small_thin_max_rows;
    const int64_t l2_bytes = ridge::machine_topology().l2.size_bytes;
    ASSERT_GT(thin_rows, 24) << "the thin shapes below assume more rows";
    // Thin problems k deep: op(A) of up to thin_rows + 1 rows (padded to MR) within L2;
    // n wide enough for the volume past the limit (and op(B) past L2).
    const int64_t thin_k = l2_bytes / (4 * (thin_rows + ker->MR));
    auto wide_enough = [&](int64_t rows, int64_t k) {
        return std::max(int64_t(ker->small_kernel_max_volume / double(rows * k)), 2 * l2_bytes / (4 * k)) + 1;
    };
    const int64_t thin_n = wide_enough(thin_rows, thin_k), few_n = wide_enough(24, thin_k);
    // C past half of L2 at `rows` rows.
    auto c_past_half_l2 = [&](int64_t rows) { return l2_bytes / (2 * 4 * rows) + 1; };
    // op(A) of thin_rows rows just past L2.
    const int64_t deep_k = l2_bytes / (4 * thin_rows) + 64;
    struct Shape {
        int64_t m, n, k;
        bool small;
        int64_t lda_pad = 3;
    } shapes[] = {{100, 100, 100, true},
                  {edge - 1, edge - 1, edge - 1, true},
                  {edge + 1, edge + 1, edge + 1, false},
                  {thin_rows, thin_n, thin_k, true},
                  {24, few_n, thin_k, true},
                  {thin_rows + 1, c_past_half_l2(thin_rows + 1), thin_k, false},
                  {thin_rows, c_past_half_l2(thin_rows), deep_k, false},
                  {1024, 8, 128, false, 0},
                  {1024, 8, 128, true, 16}};
    for (const Shape& s : shapes) {
        SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k) + ", lda m + " +
                     std::to_string(s.lda_pad));
        ridge_set_report(1);
        check_col_major(false, false, s.m, s.n, s.k, 1.0f, 0.0f, 11, s.lda_pad);
        ridge_set_report(0);
        ridge_report r;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
        EXPECT_EQ(s.small, std::string(r.path) == "small") << "path " << r.path << ", " << r.threads << " thread(s)";
    }
}

// A kernel whose skinny kernel has a width limit of its own
// (GemmKernel::skinny_max_columns: AVX2's 32, run by test_sgemm_avx2) takes the
// skinny path up to that many columns of C and no further, on C^T up to that
// many rows; and, without the tall tiles, only up to 24 columns where A's
// columns lie a multiple of 4 KiB apart (lda 4096 against 4003). The products
// are right on every path.
TEST(Sgemm, SkinnyKernelKeptToItsOwnWidth) {
    const std::string name = ridge_sgemm_kernel_name();
    const ridge::GemmKernel* ker = fp32_kernel_named(name);
    ASSERT_NE(nullptr, ker) << name;
    if (ker->skinny == nullptr || ker->skinny_max_columns <= 0)
        GTEST_SKIP() << name << " has no skinny kernel with a width limit of its own";
    const int64_t widest = ker->skinny_max_columns;
    ASSERT_GT(widest, 25) << "the shapes below assume a limit past the 4 KiB stride's 24 columns";
    const int64_t pad_to_4_kib = 4096 - 4000;  // A's columns 16 KiB apart
    struct Shape {
        int64_t m, n, k;
        bool tb;
        int64_t lda_pad;
        const char* path;  // the path it must take, or nullptr: any but a skinny one
    } shapes[] = {{4000, widest, 300, false, 3, "skinny"},
                  {4000, widest + 1, 300, false, 3, nullptr},
                  {4000, 24, 300, false, pad_to_4_kib, "skinny"},
                  {4000, 25, 300, false, pad_to_4_kib, nullptr},
                  {4000, 25, 300, false, 3, "skinny"},
                  {widest, 4096, 2 * widest, true, 3, "skinny_trans_b"},
                  {widest + 1, 4096, 2 * widest + 2, true, 3, nullptr}};
    for (const Shape& s : shapes) {
        SCOPED_TRACE(std::to_string(s.m) + " x " + std::to_string(s.n) + " x " + std::to_string(s.k) +
                     (s.tb ? " NT" : " NN") + ", lda + " + std::to_string(s.lda_pad));
        ridge_set_report(1);
        check_col_major(false, s.tb, s.m, s.n, s.k, 1.0f, 0.5f, 13, s.lda_pad);
        ridge_set_report(0);
        ridge_report r;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
        const std::string path = r.path;
        if (s.path != nullptr)
            EXPECT_EQ(s.path, path);
        else
            EXPECT_EQ(std::string::npos, path.find("skinny")) << "path " << path;
    }
}

// The two 16-bit GEMMs, for the test below.
namespace {
struct Gemm16 {
    const char* name;
    ridge_status (*run)(ridge_layout, ridge_transpose, ridge_transpose, int64_t, int64_t, int64_t, float,
                        const uint16_t*, int64_t, const uint16_t*, int64_t, float, float*, int64_t);
};
const Gemm16 kGemm16[] = {{"bf16 gemm", ridge_gemm_bf16}, {"f16 gemm", ridge_gemm_f16}};
}  // namespace

// Every path returns to the caller with the upper halves of the vector
// registers clear (vzeroupper): the caller may be SSE code, and Intel cores
// charge a state transition for the dirty state at each call (the AVX2 small
// and skinny kernels' tiles once returned so, 37be4fa / cf4e766). fp32 GEMM on
// the small, blocked, skinny, few-rows and transposed paths, 16-bit GEMM, and
// GEMV for each input, one thread, on whichever kernels RIDGE_ISA leaves here.
TEST(Sgemm, EveryPathReturnsWithTheUpperVectorStateClear) {
    if (ridge::upper_vector_state_in_use() < 0)
        GTEST_SKIP() << "the CPU cannot say (no XGETBV(1)), or a sanitizer's runtime runs in between";
    struct Shape {
        int64_t m, n, k;
        bool ta, tb;
    };
    const Shape shapes[] = {{64, 64, 64, false, false},     {1000, 300, 300, false, false}, {3000, 16, 512, false, false},
                            {8, 512, 512, false, false},    {40, 1024, 512, false, false},  {700, 5, 900, true, true},
                            {16, 1000, 600, false, true},   {200, 200, 600, true, false},   {33, 47, 29, true, true}};
    ridge_set_num_threads(1);
    ridge_set_report(1);
    for (const Shape& s : shapes) {
        const int64_t lda = s.ta ? s.k : s.m, ldb = s.tb ? s.n : s.k;
        const std::vector<float> a(size_t(s.m * s.k), 0.5f), b(size_t(s.k * s.n), 0.25f);
        const std::vector<uint16_t> a16(a.size(), 0x3f00), b16(b.size(), 0x3e80);  // bf16 0.5 and 0.25
        std::vector<float> c(size_t(s.m * s.n), 1.0f);
        const auto ta = s.ta ? RIDGE_TRANS : RIDGE_NO_TRANS, tb = s.tb ? RIDGE_TRANS : RIDGE_NO_TRANS;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, ta, tb, s.m, s.n, s.k, 1.0f, a.data(), lda, b.data(), ldb,
                                             0.5f, c.data(), s.m));
        const int f32_dirty = ridge::upper_vector_state_in_use();
        ridge_report r;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
        EXPECT_EQ(0, f32_dirty) << "sgemm " << s.m << "x" << s.n << "x" << s.k << " on " << r.path << " (" << r.kernel
                                << ")";
        for (const Gemm16& gemm : kGemm16) {
            ASSERT_EQ(RIDGE_SUCCESS, gemm.run(RIDGE_COL_MAJOR, ta, tb, s.m, s.n, s.k, 1.0f, a16.data(), lda, b16.data(),
                                              ldb, 0.5f, c.data(), s.m));
            const int dirty = ridge::upper_vector_state_in_use();
            ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
            EXPECT_EQ(0, dirty) << gemm.name << " " << s.m << "x" << s.n << "x" << s.k << " on " << r.path << " ("
                                << r.kernel << ")";
        }
    }
    for (bool trans : {false, true}) {
        const int64_t m = 300, n = 200;
        const std::vector<float> a(size_t(m * n), 0.5f), x(size_t(std::max(m, n)), 1.0f);
        const std::vector<uint16_t> a16(a.size(), 0x3f00), x16(x.size(), 0x3f80);
        std::vector<float> y(size_t(std::max(m, n)), 0.0f);
        const auto t = trans ? RIDGE_TRANS : RIDGE_NO_TRANS;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemv(RIDGE_COL_MAJOR, t, m, n, 1.0f, a.data(), m, x.data(), 1, 0.0f, y.data(), 1));
        EXPECT_EQ(0, ridge::upper_vector_state_in_use()) << "sgemv" << (trans ? " T" : " N");
        ASSERT_EQ(RIDGE_SUCCESS,
                  ridge_gemv_bf16(RIDGE_COL_MAJOR, t, m, n, 1.0f, a16.data(), m, x16.data(), 1, 0.0f, y.data(), 1));
        EXPECT_EQ(0, ridge::upper_vector_state_in_use()) << "bf16 gemv" << (trans ? " T" : " N");
        ASSERT_EQ(RIDGE_SUCCESS,
                  ridge_gemv_f16(RIDGE_COL_MAJOR, t, m, n, 1.0f, a16.data(), m, x16.data(), 1, 0.0f, y.data(), 1));
        EXPECT_EQ(0, ridge::upper_vector_state_in_use()) << "f16 gemv" << (trans ? " T" : " N");
    }
    ridge_set_report(0);
    ridge_set_num_threads(0);
}
