// libridge64.so through its ILP64 symbols (sgemm_64_, cblas_sgemm_64, ...),
// linked as a program would link it: against the shared library, with
// libridge.so in the same process.
//
// What only 64-bit integers can show: a leading dimension beyond 2^31 - 1
// (over a sparse mapping, so a 12 GB matrix costs a few pages), and sizes
// whose low 32 bits alone would make a bad call look valid (m = 2^32 reads as
// 0) or a valid one look bad (incx = 2^32 reads as 0). The rest is the 32-bit
// suites' logic on the _64 names: results against a double reference, netlib's
// parameter numbers through xerbla_64_ and cblas_xerbla_64, outputs untouched.
//
// This executable defines xerbla_64_ and cblas_xerbla_64 (libridge64's are
// weak), as an ILP64 Fortran or CBLAS program's own would replace them.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdarg>
#include <cstring>
#include <string>
#include <vector>

#include "gemm_check.h"
#include "ridge/cblas_64.h"
#include "ridge/ridge.h"
#include "sparse_buffer.h"

using namespace ridge_test;

namespace {

struct ErrorLog {
    int xerbla_calls = 0;
    int64_t xerbla_info = 0;
    std::string xerbla_routine;
    int cblas_calls = 0;
    int64_t cblas_info = 0;
    std::string cblas_routine;
};
ErrorLog g_log;

}  // namespace

extern "C" void xerbla_64_(const char* routine, const int64_t* info, size_t routine_len) {
    ++g_log.xerbla_calls;
    g_log.xerbla_info = info != nullptr ? *info : -1;
    g_log.xerbla_routine = routine != nullptr ? std::string(routine, strnlen(routine, routine_len)) : "";
}

extern "C" void cblas_xerbla_64(int64_t info, const char* routine, const char* form, ...) {
    ++g_log.cblas_calls;
    g_log.cblas_info = info;
    g_log.cblas_routine = routine != nullptr ? routine : "";
    (void)form;
}

namespace {

constexpr int64_t kTwo32 = int64_t(1) << 32;

// --- results ---

void run_sgemm_64(const Call& call, Operands& ops, bool through_cblas) {
    const char ta = call.ta ? 'T' : 'N', tb = call.tb ? 'T' : 'N';
    const int64_t m = call.m, n = call.n, k = call.k, lda = call.lda(), ldb = call.ldb(), ldc = call.ldc();
    if (through_cblas)
        cblas_sgemm_64(call.row_major ? CblasRowMajor : CblasColMajor, call.ta ? CblasTrans : CblasNoTrans,
                       call.tb ? CblasTrans : CblasNoTrans, m, n, k, call.alpha, ops.a.data(), lda,
                       ops.b.data(), ldb, call.beta, ops.c.data(), ldc);
    else
        sgemm_64_(&ta, &tb, &m, &n, &k, &call.alpha, ops.a.data(), &lda, ops.b.data(), &ldb, &call.beta,
                  ops.c.data(), &ldc);
}

TEST(Ilp64, SgemmMatchesReference) {
    std::mt19937 rng(test_seed());
    SCOPED_TRACE(seed_note(test_seed()));
    const int64_t shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 40}, {130, 70, 90}, {300, 260, 280}};
    for (bool through_cblas : {false, true})
        for (bool row_major : {false, true}) {
            if (row_major && !through_cblas) continue;  // Fortran BLAS is column-major only
            for (bool ta : {false, true})
                for (bool tb : {false, true})
                    for (const auto& s : shapes) {
                        Call call;
                        call.row_major = row_major, call.ta = ta, call.tb = tb;
                        call.m = s[0], call.n = s[1], call.k = s[2];
                        call.alpha = 0.75f, call.beta = 0.5f;
                        call.lda_pad = 3, call.ldb_pad = 1, call.ldc_pad = 2;
                        SCOPED_TRACE((through_cblas ? "cblas_sgemm_64 " : "sgemm_64_ ") + call.describe());
                        Operands ops(call, rng);
                        const std::vector<double> expect =
                            expected_c(call, ops.a.data(), ops.b.data(), ops.c.data());
                        g_log = ErrorLog{};
                        run_sgemm_64(call, ops, through_cblas);
                        EXPECT_EQ(0, g_log.xerbla_calls + g_log.cblas_calls);
                        EXPECT_TRUE(values_match(call, ops.c.data(), expect,
                                                 gemm_error_bound(call.k, call.alpha, 1, 1, call.beta, 1)));
                        EXPECT_TRUE(ops.c.untouched_outside());
                        EXPECT_TRUE(ops.a.untouched());
                        EXPECT_TRUE(ops.b.untouched());
                    }
        }
}

TEST(Ilp64, SgemvMatchesReference) {
    std::mt19937 rng(test_seed());
    for (bool through_cblas : {false, true})
        for (bool trans : {false, true}) {
            const int64_t m = 45, n = 38, lda = 50, incx = 2, incy = 3;
            const std::vector<float> a = random_matrix(lda * n, rng);
            const int64_t lenx = trans ? m : n, leny = trans ? n : m;
            const std::vector<float> x = random_matrix(lenx * incx, rng);
            std::vector<float> y = random_matrix(leny * incy, rng);
            const std::vector<float> y0 = y;
            const float alpha = 1.25f, beta = -0.5f;
            g_log = ErrorLog{};
            if (through_cblas) {
                cblas_sgemv_64(CblasColMajor, trans ? CblasTrans : CblasNoTrans, m, n, alpha, a.data(), lda,
                               x.data(), incx, beta, y.data(), incy);
            } else {
                const char t = trans ? 'T' : 'N';
                sgemv_64_(&t, &m, &n, &alpha, a.data(), &lda, x.data(), &incx, &beta, y.data(), &incy);
            }
            EXPECT_EQ(0, g_log.xerbla_calls + g_log.cblas_calls);
            for (int64_t i = 0; i < leny; ++i) {
                double sum = 0.0;
                for (int64_t p = 0; p < lenx; ++p)
                    sum += double(trans ? a[size_t(p + i * lda)] : a[size_t(i + p * lda)]) *
                           double(x[size_t(p * incx)]);
                const double want = double(alpha) * sum + double(beta) * double(y0[size_t(i * incy)]);
                EXPECT_NEAR(want, y[size_t(i * incy)], 1e-4) << (through_cblas ? "cblas_sgemv_64" : "sgemv_64_")
                                                             << (trans ? " T" : " N") << " y(" << i << ")";
            }
        }
}

// The 16-bit routines under their _64 names: one small product each, against
// the same product in fp32 (16-bit inputs convert exactly).
TEST(Ilp64, SixteenBitRoutines) {
    const int64_t m = 6, n = 5, k = 4;
    std::vector<float> af(size_t(m * k)), bf(size_t(k * n));
    for (size_t i = 0; i < af.size(); ++i) af[i] = float(int(i % 7) - 3) * 0.25f;
    for (size_t i = 0; i < bf.size(); ++i) bf[i] = float(int(i % 5) - 2) * 0.5f;
    std::vector<uint16_t> ah(af.size()), bh(bf.size()), ab(af.size()), bb(bf.size());
    cblas_shstohf16_64(int64_t(af.size()), af.data(), 1, ah.data(), 1);
    cblas_shstohf16_64(int64_t(bf.size()), bf.data(), 1, bh.data(), 1);
    cblas_sbstobf16_64(int64_t(af.size()), af.data(), 1, ab.data(), 1);
    cblas_sbstobf16_64(int64_t(bf.size()), bf.data(), 1, bb.data(), 1);
    std::vector<float> back(af.size());
    cblas_shf16tos_64(int64_t(ah.size()), ah.data(), 1, back.data(), 1);
    EXPECT_EQ(af, back) << "fp16 round trip of values fp16 holds exactly";
    cblas_sbf16tos_64(int64_t(ab.size()), ab.data(), 1, back.data(), 1);
    EXPECT_EQ(af, back) << "bf16 round trip of values bf16 holds exactly";

    std::vector<float> want(size_t(m * n));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            float s = 0.0f;
            for (int64_t p = 0; p < k; ++p) s += af[size_t(i + p * m)] * bf[size_t(p + j * k)];
            want[size_t(i + j * m)] = s;
        }
    std::vector<float> c(size_t(m * n));
    cblas_gemm_f16f16f32_64(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, ah.data(), m, bh.data(),
                            k, 0.0f, c.data(), m);
    EXPECT_EQ(want, c) << "cblas_gemm_f16f16f32_64";
    cblas_shgemm_64(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, ah.data(), m, bh.data(), k, 0.0f,
                    c.data(), m);
    EXPECT_EQ(want, c) << "cblas_shgemm_64";
    cblas_gemm_bf16bf16f32_64(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, ab.data(), m,
                              bb.data(), k, 0.0f, c.data(), m);
    EXPECT_EQ(want, c) << "cblas_gemm_bf16bf16f32_64";
    cblas_sbgemm_64(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, ab.data(), m, bb.data(), k, 0.0f,
                    c.data(), m);
    EXPECT_EQ(want, c) << "cblas_sbgemm_64";
    std::vector<uint16_t> ch(size_t(m * n));
    const uint16_t one_h = 0x3c00, zero_h = 0;  // 1.0 and 0.0 in binary16
    cblas_hgemm_64(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, one_h, ah.data(), m, bh.data(), k, zero_h,
                   ch.data(), m);
    cblas_shf16tos_64(int64_t(ch.size()), ch.data(), 1, c.data(), 1);
    EXPECT_EQ(want, c) << "cblas_hgemm_64 (every product and sum here is exact in fp16)";

    // GEMV on the first column of B as x.
    std::vector<float> y(static_cast<size_t>(m));
    cblas_shgemv_64(CblasColMajor, CblasNoTrans, m, k, 1.0f, ah.data(), m, bh.data(), 1, 0.0f, y.data(), 1);
    EXPECT_EQ(std::vector<float>(want.begin(), want.begin() + m), y) << "cblas_shgemv_64";
    cblas_sbgemv_64(CblasColMajor, CblasNoTrans, m, k, 1.0f, ab.data(), m, bb.data(), 1, 0.0f, y.data(), 1);
    EXPECT_EQ(std::vector<float>(want.begin(), want.begin() + m), y) << "cblas_sbgemv_64";

    // OpenBLAS's Fortran names, every integer 64-bit and by reference.
    const char no = 'N';
    const float one = 1.0f, zero = 0.0f;
    const int64_t inc = 1, count = int64_t(af.size());
    std::vector<uint16_t> ab_fortran(af.size());
    sbstobf16_64_(&count, af.data(), &inc, ab_fortran.data(), &inc);
    EXPECT_EQ(ab, ab_fortran) << "sbstobf16_64_";
    sbf16tos_64_(&count, ab.data(), &inc, back.data(), &inc);
    EXPECT_EQ(af, back) << "sbf16tos_64_";
    std::fill(c.begin(), c.end(), -1.0f);
    sbgemm_64_(&no, &no, &m, &n, &k, &one, ab.data(), &m, bb.data(), &k, &zero, c.data(), &m);
    EXPECT_EQ(want, c) << "sbgemm_64_";
    std::fill(c.begin(), c.end(), -1.0f);
    shgemm_64_(&no, &no, &m, &n, &k, &one, ah.data(), &m, bh.data(), &k, &zero, c.data(), &m);
    EXPECT_EQ(want, c) << "shgemm_64_";
    std::fill(y.begin(), y.end(), -1.0f);
    sbgemv_64_(&no, &m, &k, &one, ab.data(), &m, bb.data(), &inc, &zero, y.data(), &inc);
    EXPECT_EQ(std::vector<float>(want.begin(), want.begin() + m), y) << "sbgemv_64_";
    std::fill(y.begin(), y.end(), -1.0f);
    shgemv_64_(&no, &m, &k, &one, ah.data(), &m, bh.data(), &inc, &zero, y.data(), &inc);
    EXPECT_EQ(std::vector<float>(want.begin(), want.begin() + m), y) << "shgemv_64_";

    // Their errors: netlib's numbers through xerbla_64_, nothing written.
    g_log = ErrorLog{};
    const int64_t bad_lda = 1;
    const std::vector<float> c_before = c, y_before = y;
    sbgemm_64_(&no, &no, &m, &n, &k, &one, ab.data(), &bad_lda, bb.data(), &k, &zero, c.data(), &m);
    EXPECT_EQ(c_before, c);
    EXPECT_EQ(1, g_log.xerbla_calls);
    EXPECT_EQ(8, g_log.xerbla_info) << "sbgemm_64_: lda < m";
    EXPECT_EQ("SBGEMM", g_log.xerbla_routine);
    g_log = ErrorLog{};
    const int64_t zero_inc = 0;
    shgemv_64_(&no, &m, &k, &one, ah.data(), &m, bh.data(), &inc, &zero, y.data(), &zero_inc);
    EXPECT_EQ(1, g_log.xerbla_calls);
    EXPECT_EQ(11, g_log.xerbla_info) << "shgemv_64_: incy = 0";
    EXPECT_EQ(y_before, y);
    EXPECT_EQ("SHGEMV", g_log.xerbla_routine);
    EXPECT_EQ(0, g_log.cblas_calls);
}

// --- errors: netlib's numbers, through the _64 error routines ---

struct Buffers {
    std::vector<float> a = std::vector<float>(64, 1.0f), b = std::vector<float>(64, 1.0f),
                       c = std::vector<float>(64, 3.0f);
    bool c_untouched() const { return c == std::vector<float>(64, 3.0f); }
};

TEST(Ilp64, SgemmErrorsReachXerbla64WithNetlibNumbers) {
    struct Case {
        char ta, tb;
        int64_t m, n, k, lda, ldb, ldc;
        int64_t info;
        const char* why;
    };
    const Case cases[] = {
        {'X', 'N', 2, 2, 2, 2, 2, 2, 1, "transa"},
        {'N', '?', 2, 2, 2, 2, 2, 2, 2, "transb"},
        {'N', 'N', -1, 2, 2, 2, 2, 2, 3, "m < 0"},
        {'N', 'N', 2, 2, -kTwo32, 2, 2, 2, 5, "k = -2^32 (its low 32 bits read 0, a valid k)"},
        {'N', 'N', kTwo32, 2, 2, 1, 2, kTwo32, 8, "m = 2^32, lda = 1 (low 32 bits: m = 0, a quick return)"},
        {'N', 'T', 2, kTwo32 + 1, 2, 2, 2, 2, 10, "op(B) = B^T, n = 2^32 + 1 > ldb"},
        {'N', 'N', 2, 2, 2, 2, 2, 1, 13, "ldc < m"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.why);
        Buffers buf;
        g_log = ErrorLog{};
        const float alpha = 1.0f, beta = 0.0f;
        sgemm_64_(&c.ta, &c.tb, &c.m, &c.n, &c.k, &alpha, buf.a.data(), &c.lda, buf.b.data(), &c.ldb, &beta,
                  buf.c.data(), &c.ldc);
        EXPECT_EQ(1, g_log.xerbla_calls);
        EXPECT_EQ(c.info, g_log.xerbla_info);
        EXPECT_EQ("SGEMM", g_log.xerbla_routine.substr(0, 5));
        EXPECT_EQ(0, g_log.cblas_calls);
        EXPECT_TRUE(buf.c_untouched());
    }
}

TEST(Ilp64, CblasErrorsReachCblasXerbla64) {
    Buffers buf;
    g_log = ErrorLog{};
    // m = 2^32 with lda = 1: parameter 9 (lda) in cblas_sgemm's numbering.
    cblas_sgemm_64(CblasColMajor, CblasNoTrans, CblasNoTrans, kTwo32, 2, 2, 1.0f, buf.a.data(), 1, buf.b.data(), 2,
                   0.0f, buf.c.data(), kTwo32);
    EXPECT_EQ(1, g_log.cblas_calls);
    EXPECT_EQ(9, g_log.cblas_info);
    EXPECT_EQ("cblas_sgemm", g_log.cblas_routine);
    EXPECT_TRUE(buf.c_untouched());

    g_log = ErrorLog{};
    cblas_sgemv_64(CblasColMajor, CblasNoTrans, 2, 2, 1.0f, buf.a.data(), 2, buf.b.data(), 0, 0.0f, buf.c.data(), 1);
    EXPECT_EQ(1, g_log.cblas_calls);
    EXPECT_EQ(9, g_log.cblas_info) << "incx = 0";
    EXPECT_EQ("cblas_sgemv", g_log.cblas_routine);
    EXPECT_TRUE(buf.c_untouched());
    EXPECT_EQ(0, g_log.xerbla_calls);
}

// cblas_sgemm_batch_strided_64: each problem as cblas_sgemm_64 gives it, bit
// for bit; and a batch_size of 2^32 (whose low 32 bits, 0, would be an empty
// batch) is seen whole: with stride_c = 0 its C would overlap, parameter 17.
TEST(Ilp64, BatchStridedMatchesOneCallPerProblem) {
    std::mt19937 rng(test_seed() + 7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const int64_t m = 40, n = 30, k = 20, count = 5, sa = m * k, sb = k * n + 3, sc = m * n + 1;
    std::vector<float> a(size_t(sa * count)), b(size_t(sb * count)), c(size_t(sc * count));
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    for (float& x : c) x = dist(rng);
    std::vector<float> want = c;
    for (int64_t i = 0; i < count; ++i)
        cblas_sgemm_64(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 0.5f, a.data() + i * sa, m,
                       b.data() + i * sb, k, 2.0f, want.data() + i * sc, m);
    g_log = ErrorLog{};
    cblas_sgemm_batch_strided_64(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 0.5f, a.data(), m, sa, b.data(),
                                 k, sb, 2.0f, c.data(), m, sc, count);
    EXPECT_EQ(0, g_log.cblas_calls);
    EXPECT_EQ(0, std::memcmp(want.data(), c.data(), c.size() * sizeof(float)));

    const std::vector<float> before = c;
    cblas_sgemm_batch_strided_64(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 0.5f, a.data(), m, 0, b.data(),
                                 k, 0, 2.0f, c.data(), m, 0, kTwo32);
    EXPECT_EQ(1, g_log.cblas_calls);
    EXPECT_EQ(17, g_log.cblas_info);
    EXPECT_EQ("cblas_sgemm_batch_strided", g_log.cblas_routine);
    EXPECT_EQ(0, std::memcmp(before.data(), c.data(), c.size() * sizeof(float)));
}

// cblas_sgemm_batch_64: two groups, each problem as cblas_sgemm_64 gives it,
// bit for bit; and a group size of 2^32 (whose low 32 bits, 0, would be an
// empty group) is seen whole: its listed pointers then run out, so the first
// NULL among them is reported (8), nothing written.
TEST(Ilp64, GroupBatchMatchesOneCallPerProblem) {
    std::mt19937 rng(test_seed() + 8);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const int64_t m[2] = {40, 9}, n[2] = {30, 5}, k[2] = {20, 7}, size[2] = {3, 2};
    const CBLAS_TRANSPOSE ta[2] = {CblasNoTrans, CblasTrans}, tb[2] = {CblasTrans, CblasNoTrans};
    const int64_t lda[2] = {40, 7}, ldb[2] = {30, 7}, ldc[2] = {41, 9};
    const float alpha[2] = {0.5f, -1.0f}, beta[2] = {2.0f, 0.0f};
    std::vector<std::vector<float>> store;
    std::vector<const float*> a, b;
    std::vector<float*> c;
    for (int g = 0; g < 2; ++g)
        for (int64_t p = 0; p < size[g]; ++p) {
            for (int64_t elements : {lda[g] * (ta[g] == CblasTrans ? m[g] : k[g]),
                                     ldb[g] * (tb[g] == CblasTrans ? k[g] : n[g]), ldc[g] * n[g]}) {
                store.emplace_back(size_t(elements));
                for (float& x : store.back()) x = dist(rng);
            }
            const size_t last = store.size();
            a.push_back(store[last - 3].data()), b.push_back(store[last - 2].data()), c.push_back(store[last - 1].data());
        }
    std::vector<std::vector<float>> want;
    for (int g = 0, p = 0; g < 2; ++g)
        for (int64_t i = 0; i < size[g]; ++i, ++p) {
            want.emplace_back(c[size_t(p)], c[size_t(p)] + ldc[g] * n[g]);
            cblas_sgemm_64(CblasColMajor, ta[g], tb[g], m[g], n[g], k[g], alpha[g], a[size_t(p)], lda[g], b[size_t(p)],
                           ldb[g], beta[g], want.back().data(), ldc[g]);
        }
    g_log = ErrorLog{};
    cblas_sgemm_batch_64(CblasColMajor, ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc, 2,
                         size);
    EXPECT_EQ(0, g_log.cblas_calls);
    for (size_t p = 0; p < want.size(); ++p)
        EXPECT_EQ(0, std::memcmp(want[p].data(), c[p], want[p].size() * sizeof(float))) << "problem " << p;

    const std::vector<float> before(c[0], c[0] + ldc[0] * n[0]);
    std::vector<const float*> a_long(a), b_long(b);
    std::vector<float*> c_long(c);
    a_long.push_back(nullptr), b_long.push_back(nullptr), c_long.push_back(nullptr);  // problem 5: past the lists
    const int64_t huge[2] = {3, kTwo32};
    cblas_sgemm_batch_64(CblasColMajor, ta, tb, m, n, k, alpha, a_long.data(), lda, b_long.data(), ldb, beta,
                         c_long.data(), ldc, 2, huge);
    EXPECT_EQ(1, g_log.cblas_calls);
    EXPECT_EQ(8, g_log.cblas_info);
    EXPECT_EQ("cblas_sgemm_batch", g_log.cblas_routine);
    EXPECT_EQ(0, std::memcmp(before.data(), c[0], before.size() * sizeof(float)));
}

// OpenBLAS's bf16 batches, ILP64: each problem as cblas_sbgemm_64 gives it, bit
// for bit, and a batch size of 2^32 seen whole (17: stride_c 0 would overlap).
TEST(Ilp64, Bf16BatchesMatchOneCallPerProblem) {
    std::mt19937 rng(test_seed() + 9);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const int64_t m = 24, n = 10, k = 13, count = 4, sa = m * k + 5, sb = k * n, sc = m * n + 2;
    std::vector<float> af(size_t(sa * count)), bf(size_t(sb * count)), c(size_t(sc * count));
    for (float& x : af) x = dist(rng);
    for (float& x : bf) x = dist(rng);
    for (float& x : c) x = dist(rng);
    std::vector<uint16_t> a(af.size()), b(bf.size());
    cblas_sbstobf16_64(int64_t(af.size()), af.data(), 1, a.data(), 1);
    cblas_sbstobf16_64(int64_t(bf.size()), bf.data(), 1, b.data(), 1);
    std::vector<float> want = c;
    for (int64_t i = 0; i < count; ++i)
        cblas_sbgemm_64(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, 0.5f, a.data() + i * sa, m,
                        b.data() + i * sb, n, 2.0f, want.data() + i * sc, m);
    std::vector<float> strided = c;
    g_log = ErrorLog{};
    cblas_sbgemm_batch_strided_64(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, 0.5f, a.data(), m, sa, b.data(),
                                  n, sb, 2.0f, strided.data(), m, sc, count);
    EXPECT_EQ(0, g_log.cblas_calls);
    EXPECT_EQ(0, std::memcmp(want.data(), strided.data(), c.size() * sizeof(float)));

    std::vector<float> grouped = c;
    std::vector<const uint16_t*> a_list, b_list;
    std::vector<float*> c_list;
    for (int64_t i = 0; i < count; ++i)
        a_list.push_back(a.data() + i * sa), b_list.push_back(b.data() + i * sb), c_list.push_back(grouped.data() + i * sc);
    const CBLAS_TRANSPOSE ta = CblasNoTrans, tb = CblasTrans;
    const float alpha = 0.5f, beta = 2.0f;
    cblas_sbgemm_batch_64(CblasColMajor, &ta, &tb, &m, &n, &k, &alpha, a_list.data(), &m, b_list.data(), &n, &beta,
                          c_list.data(), &m, 1, &count);
    EXPECT_EQ(0, g_log.cblas_calls);
    EXPECT_EQ(0, std::memcmp(want.data(), grouped.data(), c.size() * sizeof(float)));

    cblas_sbgemm_batch_strided_64(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, 0.5f, a.data(), m, 0, b.data(),
                                  n, 0, 2.0f, strided.data(), m, 0, kTwo32);
    EXPECT_EQ(1, g_log.cblas_calls);
    EXPECT_EQ(17, g_log.cblas_info);
    EXPECT_EQ("cblas_sbgemm_batch_strided", g_log.cblas_routine);
    EXPECT_EQ(0, std::memcmp(want.data(), strided.data(), c.size() * sizeof(float)));
}

// incx = 2^32 is a legal stride; its low 32 bits (0) are not. With n = 1 only
// x[0] is read, so the call needs no memory beyond one element.
TEST(Ilp64, StrideOfTwoTo32IsValid) {
    const char no = 'N';
    const int64_t m = 3, n = 1, lda = 3, incx = kTwo32, incy = 1;
    const float alpha = 2.0f, beta = 0.0f;
    const float a[3] = {1.0f, 2.0f, 3.0f}, x[1] = {0.5f};
    float y[3] = {-1.0f, -1.0f, -1.0f};
    g_log = ErrorLog{};
    sgemv_64_(&no, &m, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy);
    EXPECT_EQ(0, g_log.xerbla_calls);
    EXPECT_EQ(1.0f, y[0]);
    EXPECT_EQ(2.0f, y[1]);
    EXPECT_EQ(3.0f, y[2]);
}

// --- leading dimensions the 32-bit interface cannot express ---

constexpr int64_t kHugeLd = 3000000000;  // > 2^31 - 1

float a_value(int64_t i, int64_t p) { return float((i * 3 + p * 5) % 7) - 3.0f; }
float b_value(int64_t p, int64_t j) { return float((p * 2 + j * 7) % 5) - 2.0f; }

TEST(Ilp64, LeadingDimensionsBeyond32Bits) {
    for (bool trans : {false, true}) {
        // op(A) m x k, op(B) k x n, every matrix's columns kHugeLd floats apart.
        const int64_t m = trans ? 4 : 16, n = 3, k = 2;
        const int64_t a_cols = trans ? m : k, a_rows = trans ? k : m;
        const int64_t b_cols = trans ? k : n, b_rows = trans ? n : k;
        SparseBuffer a(size_t(kHugeLd * (a_cols - 1) + a_rows)), b(size_t(kHugeLd * (b_cols - 1) + b_rows)),
            c(size_t(kHugeLd * (n - 1) + m + 1));
        ASSERT_NE(nullptr, a.data()) << "no sparse mapping (vm.overcommit_memory = 2?)";
        ASSERT_NE(nullptr, b.data());
        ASSERT_NE(nullptr, c.data());
        for (int64_t i = 0; i < m; ++i)
            for (int64_t p = 0; p < k; ++p)
                a.data()[trans ? p + i * kHugeLd : i + p * kHugeLd] = a_value(i, p);
        for (int64_t p = 0; p < k; ++p)
            for (int64_t j = 0; j < n; ++j)
                b.data()[trans ? j + p * kHugeLd : p + j * kHugeLd] = b_value(p, j);
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < m; ++i) c.data()[i + j * kHugeLd] = 1.0f;
            c.data()[m + j * kHugeLd] = sentinel();  // just below the column: never to be written
        }
        const char t = trans ? 'T' : 'N';
        const float alpha = 1.0f, beta = 2.0f;
        g_log = ErrorLog{};
        sgemm_64_(&t, &t, &m, &n, &k, &alpha, a.data(), &kHugeLd, b.data(), &kHugeLd, &beta, c.data(), &kHugeLd);
        EXPECT_EQ(0, g_log.xerbla_calls);
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < m; ++i) {
                float want = 2.0f;
                for (int64_t p = 0; p < k; ++p) want += a_value(i, p) * b_value(p, j);
                EXPECT_EQ(want, c.data()[i + j * kHugeLd]) << (trans ? "TT" : "NN") << " C(" << i << "," << j << ")";
            }
            EXPECT_TRUE(same_bits(sentinel(), c.data()[m + j * kHugeLd])) << "written below column " << j;
        }

        // GEMV on the same A: y = op(A) x with op(A) m x k.
        std::vector<float> x(size_t(k), 1.0f), y(size_t(m), 0.0f);
        const int64_t one = 1, mm = a_rows, nn = a_cols;
        const float zero = 0.0f;
        sgemv_64_(&t, &mm, &nn, &alpha, a.data(), &kHugeLd, x.data(), &one, &zero, y.data(), &one);
        EXPECT_EQ(0, g_log.xerbla_calls);
        for (int64_t i = 0; i < m; ++i) {
            float want = 0.0f;
            for (int64_t p = 0; p < k; ++p) want += a_value(i, p);
            EXPECT_EQ(want, y[size_t(i)]) << "sgemv_64_ " << t << " y(" << i << ")";
        }
    }
    // Only the touched columns became resident: nothing swept the gaps.
    EXPECT_LT(peak_rss_mib(), 512);
}

// --- libridge.so and libridge64.so in one process ---

// Both export the native API; symbol versions keep each library's ridge_*
// apart (a program reaches the copy it was linked against), and each library's
// BLAS symbols work next to the other's.
TEST(Ilp64, CoexistsWithLibridge) {
    using SetThreads = void (*)(int);
    using GetThreads = int (*)(void);
    auto set32 = reinterpret_cast<SetThreads>(dlvsym(RTLD_DEFAULT, "ridge_set_num_threads", "RIDGE_0"));
    auto set64 = reinterpret_cast<SetThreads>(dlvsym(RTLD_DEFAULT, "ridge_set_num_threads", "RIDGE64_0"));
    auto get32 = reinterpret_cast<GetThreads>(dlvsym(RTLD_DEFAULT, "ridge_get_num_threads", "RIDGE_0"));
    auto get64 = reinterpret_cast<GetThreads>(dlvsym(RTLD_DEFAULT, "ridge_get_num_threads", "RIDGE64_0"));
    ASSERT_NE(nullptr, set32) << "libridge.so not loaded, or its symbols not versioned RIDGE_0";
    ASSERT_NE(nullptr, set64) << "libridge64.so's symbols not versioned RIDGE64_0";
    ASSERT_NE(nullptr, get32);
    ASSERT_NE(nullptr, get64);
    EXPECT_NE(reinterpret_cast<void*>(set32), reinterpret_cast<void*>(set64));
    const int default64 = get64();
    set32(default64 + 3);
    EXPECT_EQ(default64 + 3, get32());
    EXPECT_EQ(default64, get64()) << "setting libridge.so's thread count changed libridge64.so's";
    set32(0);

    const char no = 'N';
    const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, one = 1.0f, zero = 0.0f;
    float c32[4] = {}, c64[4] = {};
    const int two = 2;
    const int64_t two64 = 2;
    sgemm_(&no, &no, &two, &two, &two, &one, a, &two, b, &two, &zero, c32, &two);
    sgemm_64_(&no, &no, &two64, &two64, &two64, &one, a, &two64, b, &two64, &zero, c64, &two64);
    const float want[4] = {23, 34, 31, 46};
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(want[i], c32[i]) << "sgemm_";
        EXPECT_EQ(want[i], c64[i]) << "sgemm_64_";
    }
}

}  // namespace
