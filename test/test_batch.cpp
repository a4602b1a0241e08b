// Strided batches (ridge_sgemm_batch_strided, cblas_sgemm_batch_strided) and
// MKL's group batch (cblas_sgemm_batch), and OpenBLAS's bf16 pair of them
// (against cblas_sbgemm): every problem's C equals a single
// ridge_sgemm call on that problem, bit for bit, whatever the layout,
// transposes, strides (0: one A or B for all) and thread count; nothing
// between the problems' C is written; every bad argument is refused with its
// position and leaves every C untouched.
//
// This executable defines cblas_xerbla itself (the library's is weak), as a
// CBLAS program's own would, to see what the CBLAS entry point reports.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdarg>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gemm_check.h"
#include "ridge/cblas.h"
#include "ridge/ridge.h"

using namespace ridge_test;

namespace {

int g_cblas_calls = 0;
int g_cblas_info = 0;
std::string g_cblas_routine;

}  // namespace

extern "C" void cblas_xerbla(int info, const char* routine, const char* /*form*/, ...) {
    ++g_cblas_calls;
    g_cblas_info = info;
    g_cblas_routine = routine;
}

namespace {

struct BatchShape {
    bool row_major = false, ta = false, tb = false;
    int64_t m = 0, n = 0, k = 0;
    int64_t pad = 0;         // added to every leading dimension
    bool share_a = false, share_b = false;  // stride 0
    int64_t c_gap = 0;       // floats between one C and the next (must stay untouched)
    int64_t count = 0;
    float alpha = 1.0f, beta = 0.0f;

    // Rows and columns of each matrix as stored.
    int64_t rows_a() const { return row_major ? (ta ? m : k) : (ta ? k : m); }
    int64_t cols_a() const { return row_major ? (ta ? k : m) : (ta ? m : k); }
    int64_t rows_b() const { return row_major ? (tb ? k : n) : (tb ? n : k); }
    int64_t cols_b() const { return row_major ? (tb ? n : k) : (tb ? k : n); }
    int64_t rows_c() const { return row_major ? n : m; }
    int64_t cols_c() const { return row_major ? m : n; }
    int64_t lda() const { return rows_a() + pad; }
    int64_t ldb() const { return rows_b() + pad; }
    int64_t ldc() const { return rows_c() + pad; }
    int64_t stride_a() const { return share_a ? 0 : lda() * cols_a(); }
    int64_t stride_b() const { return share_b ? 0 : ldb() * cols_b(); }
    int64_t stride_c() const { return ldc() * cols_c() + c_gap; }
    std::string describe() const {
        return std::string(row_major ? "row" : "col") + (ta ? " T" : " N") + (tb ? "T" : "N") + " " +
               std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " pad " +
               std::to_string(pad) + (share_a ? " shared A" : "") + (share_b ? " shared B" : "") + " x" +
               std::to_string(count) + " beta " + std::to_string(beta);
    }
};

struct BatchData {
    std::vector<float> a, b, c;
    BatchData(const BatchShape& s, std::mt19937& rng)
        : a(size_t(s.stride_a() * (s.count - 1) + s.lda() * s.cols_a())),
          b(size_t(s.stride_b() * (s.count - 1) + s.ldb() * s.cols_b())),
          c(size_t(s.stride_c() * s.count)) {
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        for (float& x : a) x = dist(rng);
        for (float& x : b) x = dist(rng);
        for (float& x : c) x = s.beta == 0.0f ? std::nanf("") : dist(rng);
    }
};

ridge_layout layout_of(const BatchShape& s) { return s.row_major ? RIDGE_ROW_MAJOR : RIDGE_COL_MAJOR; }
ridge_transpose trans_of(bool t) { return t ? RIDGE_TRANS : RIDGE_NO_TRANS; }

ridge_status run_batch(const BatchShape& s, BatchData& d) {
    return ridge_sgemm_batch_strided(layout_of(s), trans_of(s.ta), trans_of(s.tb), s.m, s.n, s.k, s.alpha,
                                     d.a.data(), s.lda(), s.stride_a(), d.b.data(), s.ldb(), s.stride_b(),
                                     s.beta, d.c.data(), s.ldc(), s.stride_c(), s.count);
}

// The C of every problem computed by one ridge_sgemm call each, from the same start.
std::vector<float> one_call_per_problem(const BatchShape& s, const BatchData& start) {
    std::vector<float> c = start.c;
    for (int64_t i = 0; i < s.count; ++i)
        EXPECT_EQ(RIDGE_SUCCESS,
                  ridge_sgemm(layout_of(s), trans_of(s.ta), trans_of(s.tb), s.m, s.n, s.k, s.alpha,
                              start.a.data() + i * s.stride_a(), s.lda(), start.b.data() + i * s.stride_b(),
                              s.ldb(), s.beta, c.data() + i * s.stride_c(), s.ldc()));
    return c;
}

// Bit for bit, NaN padding included (the gaps and padding rows hold NaN or values never written).
::testing::AssertionResult same_bits(const std::vector<float>& want, const std::vector<float>& got) {
    for (size_t i = 0; i < want.size(); ++i)
        if (std::memcmp(&want[i], &got[i], sizeof(float)) != 0)
            return ::testing::AssertionFailure() << "float " << i << ": " << got[i] << ", one call each gives " << want[i];
    return ::testing::AssertionSuccess();
}

std::vector<BatchShape> shapes() {
    std::vector<BatchShape> out;
    // 64^3: the small path, spread over the threads; 300 x 260 x 170: large enough
    // for two threads each (~2.7e7 flops), one problem after another.
    for (int64_t size : {64, 300})
        for (int t = 0; t < 8; ++t) {
            BatchShape s;
            s.m = size, s.n = size == 64 ? 64 : 260, s.k = size == 64 ? 64 : 170;
            s.row_major = t & 4, s.ta = t & 1, s.tb = t & 2;
            s.pad = t % 3;
            s.share_a = t == 3, s.share_b = t == 5;
            s.c_gap = t % 2 ? 7 : 0;
            s.count = size == 64 ? 37 : 5;
            s.alpha = t % 2 ? -0.5f : 1.0f;
            s.beta = t % 3 == 0 ? 0.0f : 0.75f;
            out.push_back(s);
        }
    BatchShape tiny;  // sizes that are not multiples of any tile
    tiny.m = 5, tiny.n = 3, tiny.k = 7, tiny.count = 100, tiny.beta = 0.0f, tiny.c_gap = 1;
    out.push_back(tiny);
    return out;
}

TEST(Batch, EachProblemAsOneCallWouldGiveItBitForBit) {
    const uint32_t seed = test_seed();
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (int threads : {1, 2}) {
        ridge_set_num_threads(threads);
        for (const BatchShape& s : shapes()) {
            SCOPED_TRACE(s.describe() + ", " + std::to_string(threads) + " threads");
            BatchData d(s, rng);
            const std::vector<float> want = one_call_per_problem(s, d);
            ASSERT_EQ(RIDGE_SUCCESS, run_batch(s, d));
            ASSERT_TRUE(same_bits(want, d.c));
        }
    }
    ridge_set_num_threads(0);
}

// The batch also against the double-precision reference (not only against ridge itself).
TEST(Batch, MatchesTheReference) {
    std::mt19937 rng(test_seed() + 1);
    BatchShape s;
    s.m = 64, s.n = 64, s.k = 64, s.count = 9, s.ta = true, s.alpha = 0.5f, s.beta = -1.0f;
    BatchData d(s, rng);
    const BatchData start = d;
    ridge_set_num_threads(2);
    ASSERT_EQ(RIDGE_SUCCESS, run_batch(s, d));
    ridge_set_num_threads(0);
    const double bound = gemm_error_bound(s.k, s.alpha, 1.0, 1.0, s.beta, 1.0);
    for (int64_t q = 0; q < s.count; ++q)
        for (int64_t j = 0; j < s.n; ++j)
            for (int64_t i = 0; i < s.m; ++i) {
                double want = double(s.beta) * start.c[size_t(q * s.stride_c() + i + j * s.ldc())];
                for (int64_t p = 0; p < s.k; ++p)
                    want += double(s.alpha) * start.a[size_t(q * s.stride_a() + p + i * s.lda())] *
                            start.b[size_t(q * s.stride_b() + p + j * s.ldb())];
                ASSERT_NEAR(want, d.c[size_t(q * s.stride_c() + i + j * s.ldc())], bound)
                    << "problem " << q << " C(" << i << "," << j << ")";
            }
}

// On 2 threads and on 1 (where the batch is planned once too, not once per
// problem), one report for the whole batch.
TEST(Batch, ReportsOneBatchSpreadOverTheThreads) {
    std::mt19937 rng(test_seed() + 2);
    BatchShape s;
    s.m = s.n = s.k = 64, s.count = 64;
    BatchData d(s, rng);
    for (int threads : {2, 1}) {
        SCOPED_TRACE(std::to_string(threads) + " threads");
        ridge_set_num_threads(threads);
        ridge_set_report(1);
        ASSERT_EQ(RIDGE_SUCCESS, run_batch(s, d));
        ridge_set_report(0);
        ridge_set_num_threads(0);
        ridge_report r;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
        EXPECT_STREQ("gemm_batch", r.routine);
        EXPECT_STREQ("small", r.path);
        EXPECT_EQ(threads, r.threads);
        EXPECT_EQ(64, r.m);
        EXPECT_DOUBLE_EQ(64 * 2.0 * 64 * 64 * 64, r.flops);
    }
}

TEST(Batch, EmptyBatchAndQuickReturnsWriteNothing) {
    std::mt19937 rng(test_seed() + 3);
    BatchShape s;
    s.m = s.n = s.k = 8, s.count = 3, s.beta = 1.0f, s.alpha = 0.0f;
    BatchData d(s, rng);
    const std::vector<float> before = d.c;
    ASSERT_EQ(RIDGE_SUCCESS, run_batch(s, d));  // alpha = 0, beta = 1: C stays
    EXPECT_TRUE(same_bits(before, d.c));
    s.count = 0, s.alpha = 1.0f, s.beta = 0.0f;
    ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm_batch_strided(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, 8, 8, 8, 1.0f,
                                                       nullptr, 8, 64, nullptr, 8, 64, 0.0f, nullptr, 8, 64, 0));
}

// alpha = 0 reads neither A nor B, so both may be NULL whatever their strides:
// every C becomes beta * C. (The fuzzer found the batch offsetting the NULLs.)
TEST(Batch, AlphaZeroWithNullOperandsScalesEveryC) {
    std::mt19937 rng(test_seed() + 6);
    BatchShape s;
    s.m = 10, s.n = 6, s.k = 4, s.count = 4, s.beta = -2.0f, s.alpha = 0.0f;
    BatchData d(s, rng);
    const std::vector<float> before = d.c;
    ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm_batch_strided(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, s.m, s.n, s.k,
                                                       0.0f, nullptr, s.lda(), 80, nullptr, s.ldb(), 80, s.beta,
                                                       d.c.data(), s.ldc(), s.stride_c(), s.count));
    for (size_t i = 0; i < before.size(); ++i) ASSERT_EQ(-2.0f * before[i], d.c[i]) << "float " << i;
}

// One bad argument at a time: the native call returns RIDGE_INVALID_ARGUMENT
// and names the position to the error handler; the CBLAS call tells
// cblas_xerbla the same position; neither writes any C.
struct BadCase {
    int position;
    const char* what;
    void (*spoil)(BatchShape&, int64_t& lda, int64_t& ldb, int64_t& ldc, int64_t& sa, int64_t& sb, int64_t& sc,
                  int64_t& count, int& layout, int& ta, int& tb, bool& null_a, bool& null_b, bool& null_c);
};

struct HandlerLog {
    int calls = 0, argument = -1;
};
void handler(ridge_status, const char*, int argument, const char*, void* data) {
    auto* log = static_cast<HandlerLog*>(data);
    ++log->calls;
    log->argument = argument;
}

TEST(Batch, EveryBadArgumentIsRefusedWithItsPositionAndNothingWritten) {
    using S = BatchShape;
    const BadCase cases[] = {
        {1, "layout", [](S&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int& l, int&, int&, bool&, bool&, bool&) { l = 7; }},
        {2, "trans_a", [](S&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int&, int& t, int&, bool&, bool&, bool&) { t = 7; }},
        {3, "trans_b", [](S&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int&, int&, int& t, bool&, bool&, bool&) { t = 7; }},
        {4, "m < 0", [](S& s, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int&, int&, int&, bool&, bool&, bool&) { s.m = -1; }},
        {5, "n < 0", [](S& s, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int&, int&, int&, bool&, bool&, bool&) { s.n = -1; }},
        {6, "k < 0", [](S& s, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int&, int&, int&, bool&, bool&, bool&) { s.k = -1; }},
        {9, "lda", [](S&, int64_t& lda, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int&, int&, int&, bool&, bool&, bool&) { lda -= 1; }},
        {10, "stride_a < 0", [](S&, int64_t&, int64_t&, int64_t&, int64_t& sa, int64_t&, int64_t&, int64_t&, int&, int&, int&, bool&, bool&, bool&) { sa = -1; }},
        {12, "ldb", [](S&, int64_t&, int64_t& ldb, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int&, int&, int&, bool&, bool&, bool&) { ldb -= 1; }},
        {13, "stride_b < 0", [](S&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t& sb, int64_t&, int64_t&, int&, int&, int&, bool&, bool&, bool&) { sb = -1; }},
        {16, "ldc", [](S&, int64_t&, int64_t&, int64_t& ldc, int64_t&, int64_t&, int64_t&, int64_t&, int&, int&, int&, bool&, bool&, bool&) { ldc -= 1; }},
        {17, "C overlap", [](S&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t& sc, int64_t&, int&, int&, int&, bool&, bool&, bool&) { sc -= 1; }},
        {18, "batch < 0", [](S&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t& count, int&, int&, int&, bool&, bool&, bool&) { count = -1; }},
        {8, "a NULL", [](S&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int&, int&, int&, bool& na, bool&, bool&) { na = true; }},
        {11, "b NULL", [](S&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int&, int&, int&, bool&, bool& nb, bool&) { nb = true; }},
        {15, "c NULL", [](S&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int64_t&, int&, int&, int&, bool&, bool&, bool& nc) { nc = true; }},
    };
    std::mt19937 rng(test_seed() + 4);
    for (bool row_major : {false, true})
        for (const BadCase& bad : cases) {
            SCOPED_TRACE(std::string(bad.what) + (row_major ? " row-major" : " column-major"));
            BatchShape s;
            s.m = 9, s.n = 7, s.k = 5, s.count = 4, s.row_major = row_major, s.tb = true;
            BatchData d(s, rng);
            const std::vector<float> before = d.c;
            int64_t lda = s.lda(), ldb = s.ldb(), ldc = s.ldc(), sa = s.stride_a(), sb = s.stride_b(),
                    sc = s.stride_c(), count = s.count;
            int layout = row_major ? 101 : 102, ta = 111, tb = 112;  // CBLAS's values
            bool null_a = false, null_b = false, null_c = false;
            bad.spoil(s, lda, ldb, ldc, sa, sb, sc, count, layout, ta, tb, null_a, null_b, null_c);
            const float* a = null_a ? nullptr : d.a.data();
            const float* b = null_b ? nullptr : d.b.data();
            float* c = null_c ? nullptr : d.c.data();

            HandlerLog log;
            ridge_set_error_handler(handler, &log);
            const ridge_layout native_layout =
                layout == 101 ? RIDGE_ROW_MAJOR : layout == 102 ? RIDGE_COL_MAJOR : ridge_layout(layout);
            const ridge_transpose native_ta = ta == 111 ? RIDGE_NO_TRANS : ta == 112 ? RIDGE_TRANS : ridge_transpose(ta);
            const ridge_transpose native_tb = tb == 111 ? RIDGE_NO_TRANS : tb == 112 ? RIDGE_TRANS : ridge_transpose(tb);
            EXPECT_EQ(RIDGE_INVALID_ARGUMENT,
                      ridge_sgemm_batch_strided(native_layout, native_ta, native_tb, s.m, s.n, s.k, 1.0f, a, lda, sa, b,
                                                ldb, sb, 0.0f, c, ldc, sc, count));
            ridge_set_error_handler(nullptr, nullptr);
            EXPECT_EQ(1, log.calls);
            EXPECT_EQ(bad.position, log.argument);

            g_cblas_calls = 0;
            cblas_sgemm_batch_strided(CBLAS_LAYOUT(layout), CBLAS_TRANSPOSE(ta), CBLAS_TRANSPOSE(tb), int(s.m),
                                      int(s.n), int(s.k), 1.0f, a, int(lda), int(sa), b, int(ldb), int(sb), 0.0f, c,
                                      int(ldc), int(sc), int(count));
            EXPECT_EQ(1, g_cblas_calls);
            EXPECT_EQ(bad.position, g_cblas_info);
            EXPECT_EQ("cblas_sgemm_batch_strided", g_cblas_routine);
            EXPECT_TRUE(same_bits(before, d.c));
        }
}

// The CBLAS entry point runs the same batch as the native one.
TEST(Batch, CblasEntryPointGivesTheNativeResult) {
    std::mt19937 rng(test_seed() + 5);
    BatchShape s;
    s.m = 33, s.n = 20, s.k = 17, s.count = 6, s.row_major = true, s.ta = true, s.beta = 0.5f;
    BatchData native(s, rng);
    BatchData cblas = native;
    ASSERT_EQ(RIDGE_SUCCESS, run_batch(s, native));
    g_cblas_calls = 0;
    cblas_sgemm_batch_strided(CblasRowMajor, CblasTrans, CblasNoTrans, int(s.m), int(s.n), int(s.k), s.alpha,
                              cblas.a.data(), int(s.lda()), int(s.stride_a()), cblas.b.data(), int(s.ldb()),
                              int(s.stride_b()), s.beta, cblas.c.data(), int(s.ldc()), int(s.stride_c()), int(s.count));
    EXPECT_EQ(0, g_cblas_calls);
    EXPECT_TRUE(same_bits(native.c, cblas.c));
}


// --- MKL's group batch (cblas_sgemm_batch): groups of BatchShape problems,
// each problem's operands listed by pointer (taken from the group's strided
// storage, so shared A or B is one pointer listed many times) ---

struct Groups {
    bool row_major = false;
    std::vector<BatchShape> shapes;  // one per group (row_major as above)
    std::vector<BatchData> data;
    // The signature's arrays.
    std::vector<CBLAS_TRANSPOSE> ta, tb;
    std::vector<int> m, n, k, lda, ldb, ldc, size;
    std::vector<float> alpha, beta;
    std::vector<const float*> a, b;
    std::vector<float*> c;

    Groups(bool row, std::vector<BatchShape> s, std::mt19937& rng) : row_major(row), shapes(std::move(s)) {
        for (BatchShape& g : shapes) {
            g.row_major = row;
            data.emplace_back(g, rng);
        }
        for (size_t i = 0; i < shapes.size(); ++i) {
            const BatchShape& g = shapes[i];
            ta.push_back(g.ta ? CblasTrans : CblasNoTrans), tb.push_back(g.tb ? CblasTrans : CblasNoTrans);
            m.push_back(int(g.m)), n.push_back(int(g.n)), k.push_back(int(g.k));
            lda.push_back(int(g.lda())), ldb.push_back(int(g.ldb())), ldc.push_back(int(g.ldc()));
            size.push_back(int(g.count)), alpha.push_back(g.alpha), beta.push_back(g.beta);
            for (int64_t p = 0; p < g.count; ++p) {
                a.push_back(data[i].a.data() + p * g.stride_a());
                b.push_back(data[i].b.data() + p * g.stride_b());
                c.push_back(data[i].c.data() + p * g.stride_c());
            }
        }
    }
    void run() {
        cblas_sgemm_batch(row_major ? CblasRowMajor : CblasColMajor, ta.data(), tb.data(), m.data(), n.data(),
                          k.data(), alpha.data(), a.data(), lda.data(), b.data(), ldb.data(), beta.data(), c.data(),
                          ldc.data(), int(shapes.size()), size.data());
    }
};

std::vector<BatchShape> mixed_groups() {
    std::vector<BatchShape> out;
    BatchShape small;  // the small path, problems spread over the threads
    small.m = small.n = small.k = 64, small.count = 37, small.ta = true, small.c_gap = 3, small.beta = 0.5f;
    BatchShape big;  // large enough to thread each problem: one after another
    big.m = 300, big.n = 260, big.k = 170, big.count = 3, big.tb = true, big.pad = 2, big.alpha = -0.5f;
    BatchShape tiny;  // no tile fits
    tiny.m = 5, tiny.n = 3, tiny.k = 7, tiny.count = 10, tiny.share_a = true, tiny.c_gap = 1;
    BatchShape none;  // an empty group
    none.m = none.n = none.k = 8, none.count = 0;
    BatchShape empty_c;  // m = 0: nothing to write
    empty_c.m = 0, empty_c.n = 4, empty_c.k = 4, empty_c.count = 2, empty_c.pad = 1;  // (ld >= 1)
    BatchShape scale;  // alpha = 0: C = beta * C, A and B unread
    scale.m = 6, scale.n = 6, scale.k = 6, scale.count = 4, scale.alpha = 0.0f, scale.beta = -2.0f;
    for (const BatchShape& g : {small, big, tiny, none, empty_c, scale}) out.push_back(g);
    return out;
}

// Every problem of every group as one ridge_sgemm call would give it, bit for
// bit (gaps and padding untouched), in both layouts, on 1 and 2 threads.
TEST(GroupBatch, EachProblemAsOneCallWouldGiveItBitForBit) {
    std::mt19937 rng(test_seed() + 6);
    for (int threads : {1, 2})
        for (bool row_major : {false, true}) {
            SCOPED_TRACE(std::string(row_major ? "row-major" : "column-major") + ", threads " + std::to_string(threads));
            ridge_set_num_threads(threads);
            Groups groups(row_major, mixed_groups(), rng);
            std::vector<std::vector<float>> want;
            for (size_t i = 0; i < groups.shapes.size(); ++i)
                want.push_back(one_call_per_problem(groups.shapes[i], groups.data[i]));
            g_cblas_calls = 0;
            groups.run();
            EXPECT_EQ(0, g_cblas_calls);
            for (size_t i = 0; i < groups.shapes.size(); ++i) {
                SCOPED_TRACE("group " + std::to_string(i) + ": " + groups.shapes[i].describe());
                EXPECT_TRUE(same_bits(want[i], groups.data[i].c));
            }
        }
    ridge_set_num_threads(0);
}

// Problems whose C is the same matrix run in order, as a loop of calls would
// (beta = 1: every problem adds its product to what the ones before left), on
// two threads too: the small path would otherwise spread them over both.
TEST(GroupBatch, ProblemsSharingACRunInOrder) {
    std::mt19937 rng(test_seed() + 7);
    ridge_set_num_threads(2);
    BatchShape s;
    s.m = s.n = s.k = 64, s.count = 64, s.beta = 1.0f;  // long enough for two threads to overlap in time
    Groups groups(false, {s}, rng);
    for (float*& c : groups.c) c = groups.data[0].c.data();  // one C for all
    std::vector<float> want = groups.data[0].c;
    for (int64_t p = 0; p < s.count; ++p)
        ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, s.m, s.n, s.k, 1.0f,
                                             groups.a[size_t(p)], s.lda(), groups.b[size_t(p)], s.ldb(), 1.0f,
                                             want.data(), s.ldc()));
    groups.run();
    ridge_set_num_threads(0);
    EXPECT_TRUE(same_bits(want, groups.data[0].c));
}

// One bad argument at a time, in the second of two groups (or a listed
// pointer of its last problem): cblas_xerbla gets its position in the
// signature, and no C of either group is written.
TEST(GroupBatch, EveryBadArgumentIsRefusedWithItsPositionAndNothingWritten) {
    struct Case {
        int position;
        const char* what;
        void (*spoil)(Groups&, int& layout, int& group_count);  // a cleared array is passed as NULL
    };
    const Case cases[] = {
        {1, "layout", [](Groups&, int& layout, int&) { layout = 7; }},
        {2, "transa", [](Groups& g, int&, int&) { g.ta[1] = CBLAS_TRANSPOSE(7); }},
        {3, "transb", [](Groups& g, int&, int&) { g.tb[1] = CBLAS_TRANSPOSE(7); }},
        {4, "m < 0", [](Groups& g, int&, int&) { g.m[1] = -1; }},
        {5, "n < 0", [](Groups& g, int&, int&) { g.n[1] = -1; }},
        {6, "k < 0", [](Groups& g, int&, int&) { g.k[1] = -1; }},
        {9, "lda", [](Groups& g, int&, int&) { g.lda[1] -= 1; }},
        {11, "ldb", [](Groups& g, int&, int&) { g.ldb[1] -= 1; }},
        {14, "ldc", [](Groups& g, int&, int&) { g.ldc[1] -= 1; }},
        {15, "group_count < 0", [](Groups&, int&, int& count) { count = -1; }},
        {16, "group_size < 0", [](Groups& g, int&, int&) { g.size[1] = -1; }},
        {8, "a NULL in the list", [](Groups& g, int&, int&) { g.a.back() = nullptr; }},
        {10, "b NULL in the list", [](Groups& g, int&, int&) { g.b.back() = nullptr; }},
        {13, "c NULL in the list", [](Groups& g, int&, int&) { g.c.back() = nullptr; }},
        {8, "a_array NULL", [](Groups& g, int&, int&) { g.a.clear(); }},
        {13, "c_array NULL", [](Groups& g, int&, int&) { g.c.clear(); }},
        {4, "m_array NULL", [](Groups& g, int&, int&) { g.m.clear(); }},
        {16, "group_size NULL", [](Groups& g, int&, int&) { g.size.clear(); }},
    };
    std::mt19937 rng(test_seed() + 8);
    for (bool row_major : {false, true})
        for (const Case& bad : cases) {
            SCOPED_TRACE(std::string(bad.what) + (row_major ? " row-major" : " column-major"));
            BatchShape first, second;
            first.m = 9, first.n = 7, first.k = 5, first.count = 3, first.beta = 0.5f;
            second.m = 6, second.n = 8, second.k = 4, second.count = 2, second.tb = true;
            Groups g(row_major, {first, second}, rng);
            const std::vector<float> before0 = g.data[0].c, before1 = g.data[1].c;
            int layout = row_major ? 101 : 102, group_count = 2;
            bad.spoil(g, layout, group_count);
            g_cblas_calls = 0;
            cblas_sgemm_batch(CBLAS_LAYOUT(layout), g.ta.data(), g.tb.data(), g.m.empty() ? nullptr : g.m.data(),
                              g.n.data(), g.k.data(), g.alpha.data(), g.a.empty() ? nullptr : g.a.data(),
                              g.lda.data(), g.b.data(), g.ldb.data(), g.beta.data(),
                              g.c.empty() ? nullptr : g.c.data(), g.ldc.data(), group_count,
                              g.size.empty() ? nullptr : g.size.data());
            EXPECT_EQ(1, g_cblas_calls);
            EXPECT_EQ(bad.position, g_cblas_info);
            EXPECT_EQ("cblas_sgemm_batch", g_cblas_routine);
            EXPECT_TRUE(same_bits(before0, g.data[0].c));
            EXPECT_TRUE(same_bits(before1, g.data[1].c));
        }
}

// No group, or groups that change nothing: nothing is read (NULL lists and
// arrays where nothing needs them) and nothing is written.
TEST(GroupBatch, NoGroupOrNothingToDoReadsAndWritesNothing) {
    g_cblas_calls = 0;
    cblas_sgemm_batch(CblasColMajor, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                      nullptr, nullptr, nullptr, nullptr, 0, nullptr);
    EXPECT_EQ(0, g_cblas_calls);
    // beta = 1 with alpha = 0: C stays as it is; no list is needed.
    const CBLAS_TRANSPOSE t = CblasNoTrans;
    const int four = 4, count = 3;
    const float zero = 0.0f, one = 1.0f;
    cblas_sgemm_batch(CblasColMajor, &t, &t, &four, &four, &four, &zero, nullptr, &four, nullptr, &four, &one,
                      nullptr, &four, 1, &count);
    EXPECT_EQ(0, g_cblas_calls);
}

// --- OpenBLAS's bf16 batches (cblas_sbgemm_batch_strided, cblas_sbgemm_batch):
// every problem's C as one cblas_sbgemm call gives it, bit for bit, on the
// same shapes as the fp32 batches (cblas_sbgemm itself is checked against the
// double reference in test_gemm16) ---

CBLAS_LAYOUT cblas_layout_of(const BatchShape& s) { return s.row_major ? CblasRowMajor : CblasColMajor; }
CBLAS_TRANSPOSE cblas_trans_of(bool t) { return t ? CblasTrans : CblasNoTrans; }

// The batch's fp32 operands rounded to bf16.
std::vector<uint16_t> to_bf16(const std::vector<float>& v) {
    std::vector<uint16_t> out(v.size());
    cblas_sbstobf16(int(v.size()), v.data(), 1, out.data(), 1);
    return out;
}

// One cblas_sbgemm call per problem of s, from C's start values.
std::vector<float> one_sbgemm_per_problem(const BatchShape& s, const std::vector<uint16_t>& a,
                                          const std::vector<uint16_t>& b, std::vector<float> c) {
    for (int64_t i = 0; i < s.count; ++i)
        cblas_sbgemm(cblas_layout_of(s), cblas_trans_of(s.ta), cblas_trans_of(s.tb), int(s.m), int(s.n), int(s.k),
                     s.alpha, a.data() + i * s.stride_a(), int(s.lda()), b.data() + i * s.stride_b(), int(s.ldb()),
                     s.beta, c.data() + i * s.stride_c(), int(s.ldc()));
    return c;
}

TEST(Bf16Batch, StridedEachProblemAsOneSbgemmCallWouldGiveIt) {
    std::mt19937 rng(test_seed() + 9);
    for (int threads : {1, 2})
        for (const BatchShape& s : shapes()) {
            SCOPED_TRACE(s.describe() + ", threads " + std::to_string(threads));
            ridge_set_num_threads(threads);
            const BatchData d(s, rng);
            const std::vector<uint16_t> a = to_bf16(d.a), b = to_bf16(d.b);
            const std::vector<float> want = one_sbgemm_per_problem(s, a, b, d.c);
            std::vector<float> got = d.c;
            g_cblas_calls = 0;
            cblas_sbgemm_batch_strided(cblas_layout_of(s), cblas_trans_of(s.ta), cblas_trans_of(s.tb), int(s.m),
                                       int(s.n), int(s.k), s.alpha, a.data(), int(s.lda()), int(s.stride_a()),
                                       b.data(), int(s.ldb()), int(s.stride_b()), s.beta, got.data(), int(s.ldc()),
                                       int(s.stride_c()), int(s.count));
            EXPECT_EQ(0, g_cblas_calls);
            EXPECT_TRUE(same_bits(want, got));
            EXPECT_FALSE(same_bits(d.c, got)) << "the batch wrote nothing";
        }
    ridge_set_num_threads(0);
}

TEST(Bf16Batch, GroupEachProblemAsOneSbgemmCallWouldGiveIt) {
    std::mt19937 rng(test_seed() + 10);
    for (bool row_major : {false, true}) {
        SCOPED_TRACE(row_major ? "row-major" : "column-major");
        Groups g(row_major, mixed_groups(), rng);
        std::vector<std::vector<uint16_t>> a16, b16;
        std::vector<const uint16_t*> a, b;
        std::vector<std::vector<float>> want;
        for (size_t i = 0; i < g.shapes.size(); ++i) {
            const BatchShape& s = g.shapes[i];
            a16.push_back(to_bf16(g.data[i].a));
            b16.push_back(to_bf16(g.data[i].b));
            for (int64_t p = 0; p < s.count; ++p) {
                a.push_back(a16[i].data() + p * s.stride_a());
                b.push_back(b16[i].data() + p * s.stride_b());
            }
            want.push_back(one_sbgemm_per_problem(s, a16[i], b16[i], g.data[i].c));
        }
        g_cblas_calls = 0;
        cblas_sbgemm_batch(row_major ? CblasRowMajor : CblasColMajor, g.ta.data(), g.tb.data(), g.m.data(),
                           g.n.data(), g.k.data(), g.alpha.data(), a.data(), g.lda.data(), b.data(), g.ldb.data(),
                           g.beta.data(), g.c.data(), g.ldc.data(), int(g.shapes.size()), g.size.data());
        EXPECT_EQ(0, g_cblas_calls);
        for (size_t i = 0; i < g.shapes.size(); ++i) {
            SCOPED_TRACE("group " + std::to_string(i) + ": " + g.shapes[i].describe());
            EXPECT_TRUE(same_bits(want[i], g.data[i].c));
        }
    }
}

// A bad argument is refused as by the fp32 batches, under the bf16 routine's
// name, and no C is written.
TEST(Bf16Batch, BadArgumentsAreRefusedUnderTheirOwnNames) {
    std::mt19937 rng(test_seed() + 11);
    BatchShape s;
    s.m = 9, s.n = 7, s.k = 5, s.count = 3, s.beta = 0.5f;
    BatchData d(s, rng);
    const std::vector<uint16_t> a = to_bf16(d.a), b = to_bf16(d.b);
    const std::vector<float> before = d.c;
    g_cblas_calls = 0;
    cblas_sbgemm_batch_strided(CblasColMajor, CblasNoTrans, CblasNoTrans, int(s.m), int(s.n), int(s.k), s.alpha,
                               a.data(), int(s.lda()) - 1, int(s.stride_a()), b.data(), int(s.ldb()),
                               int(s.stride_b()), s.beta, d.c.data(), int(s.ldc()), int(s.stride_c()), int(s.count));
    EXPECT_EQ(1, g_cblas_calls);
    EXPECT_EQ(9, g_cblas_info) << "lda too small";
    EXPECT_EQ("cblas_sbgemm_batch_strided", g_cblas_routine);
    EXPECT_TRUE(same_bits(before, d.c));

    const CBLAS_TRANSPOSE bad = CBLAS_TRANSPOSE(7), none = CblasNoTrans;
    const int m = int(s.m), n = int(s.n), k = int(s.k), lda = int(s.lda()), ldb = int(s.ldb()), ldc = int(s.ldc());
    const int size = 1;
    const uint16_t* a_list[] = {a.data()};
    const uint16_t* b_list[] = {b.data()};
    float* c_list[] = {d.c.data()};
    g_cblas_calls = 0;
    cblas_sbgemm_batch(CblasColMajor, &none, &bad, &m, &n, &k, &s.alpha, a_list, &lda, b_list, &ldb, &s.beta, c_list,
                       &ldc, 1, &size);
    EXPECT_EQ(1, g_cblas_calls);
    EXPECT_EQ(3, g_cblas_info) << "invalid transb";
    EXPECT_EQ("cblas_sbgemm_batch", g_cblas_routine);
    EXPECT_TRUE(same_bits(before, d.c));
}

}  // namespace
