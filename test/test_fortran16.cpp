// OpenBLAS's Fortran 16-bit routines: sbgemm_ / shgemm_ (16-bit A and B, fp32
// C), sbgemv_ / shgemv_ (16-bit A and x, fp32 y) and the conversions
// sbstobf16_ / sbf16tos_. Each computes what its CBLAS twin computes in
// column-major order, bit for bit (the twins are checked against the double
// reference in test_gemm16 and test_kernels16: here the Fortran layer's
// arguments by reference, transpose characters and increments are what could
// go wrong); and each bad argument reaches xerbla_ once, with netlib's
// parameter number and the routine's name, leaving every output untouched.
//
// This executable defines xerbla_ and cblas_xerbla itself (the library's are
// weak), as a Fortran program's own would.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gemm16_check.h"
#include "ridge/cblas.h"

using namespace ridge_test;

namespace {

struct ErrorLog {
    int xerbla_calls = 0;
    int xerbla_info = 0;
    std::string xerbla_routine;
    int cblas_calls = 0;
};
ErrorLog g_log;
void reset_log() { g_log = ErrorLog{}; }

}  // namespace

extern "C" void xerbla_(const char* routine, const int* info, size_t routine_len) {
    ++g_log.xerbla_calls;
    g_log.xerbla_info = info ? *info : -1;
    g_log.xerbla_routine = routine ? std::string(routine, strnlen(routine, routine_len)) : "";
}

extern "C" void cblas_xerbla(int, const char*, const char*, ...) { ++g_log.cblas_calls; }

namespace {

using FortranGemm16 = void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                               const uint16_t*, const int*, const uint16_t*, const int*, const float*, float*,
                               const int*);
using CblasGemm16 = void (*)(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, float, const uint16_t*,
                             int, const uint16_t*, int, float, float*, int);
using FortranGemv16 = void (*)(const char*, const int*, const int*, const float*, const uint16_t*, const int*,
                               const uint16_t*, const int*, const float*, float*, const int*);
using CblasGemv16 = void (*)(CBLAS_LAYOUT, CBLAS_TRANSPOSE, int, int, float, const uint16_t*, int, const uint16_t*,
                             int, float, float*, int);

struct Gemm16Routine {
    const char* name;      // what xerbla_ is told
    Half input;
    FortranGemm16 fortran;
    CblasGemm16 cblas;     // its column-major twin
};
const Gemm16Routine kGemmRoutines[] = {{"SBGEMM", Half::bf16, sbgemm_, cblas_sbgemm},
                                       {"SHGEMM", Half::f16, shgemm_, cblas_shgemm}};

struct Gemv16Routine {
    const char* name;
    Half input;
    FortranGemv16 fortran;
    CblasGemv16 cblas;
};
const Gemv16Routine kGemvRoutines[] = {{"SBGEMV", Half::bf16, sbgemv_, cblas_sbgemv},
                                       {"SHGEMV", Half::f16, shgemv_, cblas_shgemv}};

std::vector<uint16_t> random_halves(Half t, size_t count, std::mt19937& rng) {
    std::vector<uint16_t> v(count);
    for (auto& x : v) x = random_half(t, rng);
    return v;
}

std::vector<float> random_floats(size_t count, std::mt19937& rng) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(count);
    for (auto& x : v) x = d(rng);
    return v;
}

// Bitwise equality of two fp32 arrays (a NaN equals the same NaN).
::testing::AssertionResult same_bits(const std::vector<float>& want, const std::vector<float>& got) {
    if (want.size() != got.size()) return ::testing::AssertionFailure() << "sizes differ";
    for (size_t i = 0; i < want.size(); ++i)
        if (std::memcmp(&want[i], &got[i], sizeof(float)) != 0)
            return ::testing::AssertionFailure() << "element " << i << ": " << got[i] << ", its CBLAS twin " << want[i];
    return ::testing::AssertionSuccess();
}

// After a call with netlib parameter number `info` bad (0: a valid call): a
// bad call reached xerbla_ once, with `info` and `routine`, and left its
// output as it was; a valid one reported nothing and wrote its output.
void expect_outcome(const char* routine, int info, const std::vector<float>& before, const std::vector<float>& out) {
    EXPECT_EQ(0, g_log.cblas_calls);
    if (info == 0) {
        EXPECT_EQ(0, g_log.xerbla_calls);
        EXPECT_FALSE(same_bits(before, out)) << "the valid call wrote nothing";
        return;
    }
    EXPECT_EQ(1, g_log.xerbla_calls);
    EXPECT_EQ(info, g_log.xerbla_info);
    EXPECT_EQ(routine, g_log.xerbla_routine);
    EXPECT_TRUE(same_bits(before, out)) << "output written by a call with a bad argument";
}

CBLAS_TRANSPOSE cblas_trans(char t) { return t == 'N' || t == 'n' ? CblasNoTrans : CblasTrans; }

}  // namespace

// Every transpose (in either case, 'C' as well), padded leading dimensions,
// alpha and beta not 1, shapes across the kernels' tiles and k steps.
TEST(Fortran16, GemmIsItsCblasTwinBitForBit) {
    std::mt19937 rng(test_seed() + 1601);
    const char kTrans[][2] = {{'N', 'N'}, {'T', 'n'}, {'n', 'C'}, {'t', 'T'}};
    const int kShapes[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 13, 17}, {64, 48, 40}, {130, 97, 300}};
    for (const Gemm16Routine& r : kGemmRoutines)
        for (const auto& tr : kTrans)
            for (const auto& s : kShapes) {
                const int m = s[0], n = s[1], k = s[2];
                const bool ta = cblas_trans(tr[0]) == CblasTrans, tb = cblas_trans(tr[1]) == CblasTrans;
                const int lda = (ta ? k : m) + 3, ldb = (tb ? n : k) + 1, ldc = m + 2;
                SCOPED_TRACE(std::string(r.name) + " " + tr[0] + tr[1] + " " + std::to_string(m) + "x" +
                             std::to_string(n) + "x" + std::to_string(k));
                const auto a = random_halves(r.input, size_t(lda) * (ta ? m : k), rng);
                const auto b = random_halves(r.input, size_t(ldb) * (tb ? k : n), rng);
                const auto c0 = random_floats(size_t(ldc) * n, rng);
                const float alpha = 0.75f, beta = -0.5f;
                std::vector<float> want = c0, got = c0;
                reset_log();
                r.cblas(CblasColMajor, cblas_trans(tr[0]), cblas_trans(tr[1]), m, n, k, alpha, a.data(), lda,
                        b.data(), ldb, beta, want.data(), ldc);
                r.fortran(&tr[0], &tr[1], &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, got.data(),
                          &ldc);
                EXPECT_EQ(0, g_log.xerbla_calls + g_log.cblas_calls) << "a valid call reported an error";
                EXPECT_TRUE(same_bits(want, got));
                EXPECT_FALSE(same_bits(c0, got)) << "C unchanged: the call computed nothing";
            }
}

// Both orientations, positive and negative increments, beta = 0 over NaN in y.
TEST(Fortran16, GemvIsItsCblasTwinBitForBit) {
    std::mt19937 rng(test_seed() + 1602);
    const int kShapes[][2] = {{1, 1}, {17, 9}, {64, 33}, {300, 257}};
    const int kIncs[][2] = {{1, 1}, {2, 3}, {-1, 1}, {3, -2}};
    for (const Gemv16Routine& r : kGemvRoutines)
        for (const char trans : {'N', 't', 'C'})
            for (const auto& s : kShapes)
                for (const auto& inc : kIncs)
                    for (const float beta : {0.0f, 1.5f}) {
                        const int m = s[0], n = s[1], lda = m + 5, incx = inc[0], incy = inc[1];
                        const bool t = trans != 'N';
                        const int len_x = t ? m : n, len_y = t ? n : m;
                        SCOPED_TRACE(std::string(r.name) + " " + trans + " " + std::to_string(m) + "x" +
                                     std::to_string(n) + " incx " + std::to_string(incx) + " incy " +
                                     std::to_string(incy) + " beta " + std::to_string(beta));
                        const auto a = random_halves(r.input, size_t(lda) * n, rng);
                        const auto x = random_halves(r.input, size_t(1 + (len_x - 1) * std::abs(incx)), rng);
                        auto y0 = random_floats(size_t(1 + (len_y - 1) * std::abs(incy)), rng);
                        if (beta == 0.0f)
                            for (float& v : y0) v = std::numeric_limits<float>::quiet_NaN();
                        const float alpha = -1.25f;
                        std::vector<float> want = y0, got = y0;
                        reset_log();
                        r.cblas(CblasColMajor, t ? CblasTrans : CblasNoTrans, m, n, alpha, a.data(), lda, x.data(),
                                incx, beta, want.data(), incy);
                        r.fortran(&trans, &m, &n, &alpha, a.data(), &lda, x.data(), &incx, &beta, got.data(), &incy);
                        EXPECT_EQ(0, g_log.xerbla_calls + g_log.cblas_calls) << "a valid call reported an error";
                        EXPECT_TRUE(same_bits(want, got));
                        EXPECT_FALSE(same_bits(y0, got)) << "y unchanged: the call computed nothing";
                    }
}

// netlib's SGEMM numbers: TRANSA 1, TRANSB 2, M 3, N 4, K 5, LDA 8, LDB 10,
// LDC 13, the first bad one reported; C, A and B untouched.
TEST(Fortran16, GemmEachBadArgumentReachesXerbla) {
    struct Case {
        char ta, tb;
        int m, n, k, lda, ldb, ldc, info;
    };
    const Case cases[] = {
        {'X', 'N', 4, 3, 5, 4, 5, 4, 1},  {'N', 'r', 4, 3, 5, 4, 5, 4, 2},   {'N', 'N', -1, 3, 5, 4, 5, 4, 3},
        {'N', 'N', 4, -1, 5, 4, 5, 4, 4}, {'N', 'N', 4, 3, -1, 4, 5, 4, 5},  {'N', 'N', 4, 3, 5, 3, 5, 4, 8},
        {'T', 'N', 4, 3, 5, 4, 5, 4, 8},  {'N', 'N', 4, 3, 5, 4, 4, 4, 10},  {'N', 'T', 4, 3, 5, 4, 2, 4, 10},
        {'N', 'N', 4, 3, 5, 4, 5, 3, 13}, {'N', 'N', 0, 3, 5, 0, 5, 1, 8},   {'N', 'N', 4, 3, 5, 1, 5, 1, 8},
        {'N', 'N', 4, 3, 5, 4, 5, 4, 0},  // the valid baseline: no report, C written
    };
    std::mt19937 rng(test_seed() + 1603);
    for (const Gemm16Routine& r : kGemmRoutines)
        for (const Case& f : cases) {
            SCOPED_TRACE(std::string(r.name) + " '" + f.ta + "' '" + f.tb + "' m " + std::to_string(f.m) + " n " +
                         std::to_string(f.n) + " k " + std::to_string(f.k) + " lda " + std::to_string(f.lda) +
                         " ldb " + std::to_string(f.ldb) + " ldc " + std::to_string(f.ldc));
            const auto a = random_halves(r.input, 64, rng), b = random_halves(r.input, 64, rng);
            const auto a0 = a, b0 = b;
            const auto c0 = random_floats(64, rng);
            auto c = c0;
            const float alpha = 1.0f, beta = 0.5f;
            reset_log();
            r.fortran(&f.ta, &f.tb, &f.m, &f.n, &f.k, &alpha, a.data(), &f.lda, b.data(), &f.ldb, &beta, c.data(),
                      &f.ldc);
            EXPECT_TRUE(a == a0 && b == b0);
            expect_outcome(r.name, f.info, c0, c);
        }
}

// netlib's SGEMV numbers: TRANS 1, M 2, N 3, LDA 6, INCX 8, INCY 11; y untouched.
TEST(Fortran16, GemvEachBadArgumentReachesXerbla) {
    struct Case {
        char trans;
        int m, n, lda, incx, incy, info;
    };
    const Case cases[] = {
        {'X', 4, 3, 4, 1, 1, 1}, {'N', -1, 3, 4, 1, 1, 2}, {'N', 4, -1, 4, 1, 1, 3}, {'N', 4, 3, 3, 1, 1, 6},
        {'N', 0, 3, 0, 1, 1, 6}, {'N', 4, 3, 4, 0, 1, 8},  {'T', 4, 3, 4, 1, 0, 11}, {'N', 4, 3, 1, 0, 0, 6},
        {'t', 4, 3, 4, 1, 1, 0},  // the valid baseline: no report, y written
    };
    std::mt19937 rng(test_seed() + 1604);
    for (const Gemv16Routine& r : kGemvRoutines)
        for (const Case& f : cases) {
            SCOPED_TRACE(std::string(r.name) + " '" + f.trans + "' m " + std::to_string(f.m) + " n " +
                         std::to_string(f.n) + " lda " + std::to_string(f.lda) + " incx " + std::to_string(f.incx) +
                         " incy " + std::to_string(f.incy));
            const auto a = random_halves(r.input, 64, rng), x = random_halves(r.input, 16, rng);
            const auto y0 = random_floats(16, rng);
            auto y = y0;
            const float alpha = 1.0f, beta = 0.5f;
            reset_log();
            r.fortran(&f.trans, &f.m, &f.n, &alpha, a.data(), &f.lda, x.data(), &f.incx, &beta, y.data(), &f.incy);
            expect_outcome(r.name, f.info, y0, y);
        }
}

// The conversions by reference: what cblas_sbstobf16 / cblas_sbf16tos give,
// with strides either way, and nothing written for n <= 0.
TEST(Fortran16, ConversionsAreTheirCblasTwins) {
    std::mt19937 rng(test_seed() + 1605);
    const int kIncs[][2] = {{1, 1}, {2, 3}, {-1, 2}, {3, -1}};
    for (const int n : {0, -2, 1, 37})
        for (const auto& inc : kIncs) {
            const int incin = inc[0], incout = inc[1];
            SCOPED_TRACE("n " + std::to_string(n) + " incin " + std::to_string(incin) + " incout " +
                         std::to_string(incout));
            const size_t span = size_t(1 + 40 * 3);
            const auto f = random_floats(span, rng);
            const auto h0 = random_halves(Half::bf16, span, rng);
            std::vector<uint16_t> h_want = h0, h_got = h0;
            cblas_sbstobf16(n, f.data(), incin, h_want.data(), incout);
            sbstobf16_(&n, f.data(), &incin, h_got.data(), &incout);
            EXPECT_EQ(h_want, h_got);
            EXPECT_EQ(n > 0, h_got != h0) << "to bf16: written exactly when n > 0";

            const auto f0 = random_floats(span, rng);
            std::vector<float> f_want = f0, f_got = f0;
            cblas_sbf16tos(n, h0.data(), incin, f_want.data(), incout);
            sbf16tos_(&n, h0.data(), &incin, f_got.data(), &incout);
            EXPECT_TRUE(same_bits(f_want, f_got));
            EXPECT_EQ(n > 0, !same_bits(f0, f_got)) << "to fp32: written exactly when n > 0";
        }
}
