// Bad arguments at the three entry points: sgemm_ (Fortran), cblas_sgemm and
// ridge_sgemm. Each bad call must reach its error routine exactly once, with the
// parameter number netlib (or ridge.h, for the native API) gives that argument and
// the right routine name, and must leave C untouched bit for bit. Valid calls,
// including lowercase transpose characters, must reach no error routine.
//
// This executable defines xerbla_ and cblas_xerbla itself: the library's are weak,
// so these replace them, as a Fortran or CBLAS program's own would.
#include <gtest/gtest.h>

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

// Everything the three error routines were told since the last reset.
struct ErrorLog {
    int xerbla_calls = 0;
    int xerbla_info = 0;
    std::string xerbla_routine;
    size_t xerbla_len = 0;
    int cblas_calls = 0;
    int cblas_info = 0;
    std::string cblas_routine;
    int handler_calls = 0;
    ridge_status handler_status = RIDGE_SUCCESS;
    std::string handler_function, handler_message;
    int handler_argument = -1;
    void* handler_data = nullptr;
};
ErrorLog g_log;

void reset_log() { g_log = ErrorLog{}; }

}  // namespace

extern "C" void xerbla_(const char* routine, const int* info, size_t routine_len) {
    ++g_log.xerbla_calls;
    g_log.xerbla_info = info ? *info : -1;
    // A Fortran string: `routine_len` characters, not necessarily NUL-terminated.
    g_log.xerbla_routine = routine ? std::string(routine, strnlen(routine, routine_len)) : "";
    g_log.xerbla_len = routine_len;
}

extern "C" void cblas_xerbla(int info, const char* routine, const char* form, ...) {
    ++g_log.cblas_calls;
    g_log.cblas_info = info;
    g_log.cblas_routine = routine ? routine : "";
    (void)form;
}

// MKL's spellings (mkl_blas.h). Not in ridge's cblas.h, which declares what
// netlib's and OpenBLAS's do: a program with a function of its own named sgemm
// includes it unharmed.
extern "C" {
void sgemm(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
           const float*, const int*, const float*, float*, const int*);
void SGEMM(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
           const float*, const int*, const float*, float*, const int*);
void sgemv(const char*, const int*, const int*, const float*, const float*, const int*, const float*, const int*,
           const float*, float*, const int*);
void SGEMV(const char*, const int*, const int*, const float*, const float*, const int*, const float*, const int*,
           const float*, float*, const int*);
}

namespace {

void handler(ridge_status status, const char* function, int argument, const char* message, void* data) {
    ++g_log.handler_calls;
    g_log.handler_status = status;
    g_log.handler_function = function ? function : "";
    g_log.handler_argument = argument;
    g_log.handler_message = message ? message : "";
    g_log.handler_data = data;
}

// Operand storage big enough for every call below (whatever the sizes claim), with
// C holding random values: any write to it shows.
struct Buffers {
    Guarded a{{40, 40}, 40}, b{{40, 40}, 40}, c{{40, 40}, 40};
    explicit Buffers(uint32_t seed) {
        std::mt19937 rng(seed);
        a.fill_random(rng);
        b.fill_random(rng);
        c.fill_random(rng);
    }
};

// --- sgemm_ (Fortran, arguments by reference) ---

struct FortranCase {
    char ta, tb;
    int m, n, k, lda, ldb, ldc;
    int info;  // netlib SGEMM's parameter number, 0 for a valid call
};

using FortranSgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                              const float*, const int*, const float*, const int*, const float*, float*,
                              const int*);
using FortranSgemv = void (*)(const char*, const int*, const int*, const float*, const float*, const int*,
                              const float*, const int*, const float*, float*, const int*);
// The routine's spellings: the Fortran name, and MKL's (mkl_blas.h) two others.
struct SgemmSpelling {
    const char* name;
    FortranSgemm fn;
};
const SgemmSpelling kSgemmSpellings[] = {{"sgemm_", sgemm_}, {"sgemm", sgemm}, {"SGEMM", SGEMM}};

void call_sgemm(const FortranCase& f, Buffers& buf, FortranSgemm fn = sgemm_) {
    const float alpha = 1.0f, beta = 0.5f;
    fn(&f.ta, &f.tb, &f.m, &f.n, &f.k, &alpha, buf.a.data(), &f.lda, buf.b.data(), &f.ldb, &beta, buf.c.data(),
       &f.ldc);
}

std::string describe(const FortranCase& f) {
    return std::string("sgemm_('") + f.ta + "','" + f.tb + "', m=" + std::to_string(f.m) +
           " n=" + std::to_string(f.n) + " k=" + std::to_string(f.k) + " lda=" + std::to_string(f.lda) +
           " ldb=" + std::to_string(f.ldb) + " ldc=" + std::to_string(f.ldc) + ")";
}

TEST(Errors, FortranSgemmEachBadArgument) {
    // Baseline valid call: m=4 n=3 k=5, A 4x5 (lda 4), B 5x3 (ldb 5), C 4x3 (ldc 4).
    const FortranCase cases[] = {
        {'X', 'N', 4, 3, 5, 4, 5, 4, 1},
        {'x', 'N', 4, 3, 5, 4, 5, 4, 1},   // lowercase of an invalid character is still invalid
        {'\0', 'N', 4, 3, 5, 4, 5, 4, 1},
        {'N', 'X', 4, 3, 5, 4, 5, 4, 2},
        {'n', 'R', 4, 3, 5, 4, 5, 4, 2},
        {'X', 'X', 4, 3, 5, 4, 5, 4, 1},   // the first bad argument is reported
        {'N', 'N', -1, 3, 5, 4, 5, 4, 3},
        {'N', 'N', 4, -1, 5, 4, 5, 4, 4},
        {'N', 'N', 4, 3, -1, 4, 5, 4, 5},
        {'N', 'N', -1, -1, -1, 0, 0, 0, 3},
        {'N', 'N', 4, 3, 5, 3, 5, 4, 8},   // lda < m
        {'T', 'N', 4, 3, 5, 4, 5, 4, 8},   // transposed A is k x m: lda < k
        {'c', 'N', 4, 3, 5, 4, 5, 4, 8},   // 'c' transposes too
        {'N', 'N', 4, 3, 5, 4, 4, 4, 10},  // ldb < k
        {'N', 'T', 4, 3, 5, 4, 2, 4, 10},  // transposed B is n x k: ldb < n
        {'N', 'N', 4, 3, 5, 4, 5, 3, 13},  // ldc < m
        {'N', 'N', 0, 3, 5, 0, 5, 1, 8},   // lda >= max(1, m) even when m = 0
        {'N', 'N', 0, 3, 5, 1, 5, 0, 13},  // ldc >= max(1, m) even when m = 0
        {'N', 'N', 4, 0, 0, 4, 0, 4, 10},  // ldb >= max(1, k) even when k = 0
        {'N', 'N', 4, 3, 5, 1, 5, 1, 8},   // several bad: lda comes before ldc
        {'N', 'N', 4, 3, 5, 4, 1, 1, 10},
    };
    for (const SgemmSpelling& spelling : kSgemmSpellings)
    for (const FortranCase& f : cases) {
        SCOPED_TRACE(std::string(spelling.name) + ": " + describe(f));
        Buffers buf(7);
        reset_log();
        call_sgemm(f, buf, spelling.fn);
        EXPECT_EQ(1, g_log.xerbla_calls);
        EXPECT_EQ(f.info, g_log.xerbla_info);
        // netlib passes 'SGEMM ' (a blank-padded CHARACTER*6); compare the name itself.
        EXPECT_EQ("SGEMM", g_log.xerbla_routine.substr(0, 5));
        EXPECT_GE(g_log.xerbla_len, 5u);
        EXPECT_EQ(0, g_log.cblas_calls);
        EXPECT_TRUE(buf.c.untouched()) << "C written by a call with a bad argument";
        EXPECT_TRUE(buf.a.untouched());
        EXPECT_TRUE(buf.b.untouched());
    }
}

// Valid transpose characters in either case: no error, and the right product.
TEST(Errors, FortranSgemmAcceptsLowercaseTransposeCharacters) {
    const char chars[] = {'N', 'n', 'T', 't', 'C', 'c'};
    for (char ta : chars)
        for (char tb : chars) {
            const bool tra = ta != 'N' && ta != 'n', trb = tb != 'N' && tb != 'n';
            Call call;
            call.ta = tra, call.tb = trb, call.m = 4, call.n = 3, call.k = 5, call.alpha = 1.0f, call.beta = 0.5f;
            std::mt19937 rng(11);
            Operands ops(call, rng);
            const auto expect = expected_c(call, ops.a.data(), ops.b.data(), ops.c.data());
            const int m = 4, n = 3, k = 5, lda = int(call.lda()), ldb = int(call.ldb()), ldc = int(call.ldc());
            SCOPED_TRACE(std::string("transa='") + ta + "' transb='" + tb + "'");
            reset_log();
            sgemm_(&ta, &tb, &m, &n, &k, &call.alpha, ops.a.data(), &lda, ops.b.data(), &ldb, &call.beta,
                   ops.c.data(), &ldc);
            EXPECT_EQ(0, g_log.xerbla_calls) << "xerbla_ called with info " << g_log.xerbla_info;
            EXPECT_TRUE(matches(call, ops.c, expect, bound_for(call)));
        }
}

// MKL's spellings of the Fortran routines compute what sgemm_ and sgemv_ do,
// bit for bit, and report a bad argument as they do (routine name, number).
TEST(Errors, MklSpellingsAreTheFortranRoutines) {
    std::mt19937 rng(23);
    Call call;
    call.ta = true, call.m = 37, call.n = 13, call.k = 29, call.alpha = 1.5f, call.beta = 0.25f;
    Operands ops(call, rng);
    const char ta = 'T', tb = 'N';
    const int m = 37, n = 13, k = 29, lda = int(call.lda()), ldb = int(call.ldb()), ldc = int(call.ldc());
    std::vector<float> want(ops.c.data(), ops.c.data() + ldc * n);
    sgemm_(&ta, &tb, &m, &n, &k, &call.alpha, ops.a.data(), &lda, ops.b.data(), &ldb, &call.beta, want.data(), &ldc);
    for (const SgemmSpelling& spelling : kSgemmSpellings) {
        SCOPED_TRACE(spelling.name);
        std::vector<float> got(ops.c.data(), ops.c.data() + ldc * n);
        reset_log();
        spelling.fn(&ta, &tb, &m, &n, &k, &call.alpha, ops.a.data(), &lda, ops.b.data(), &ldb, &call.beta, got.data(),
                    &ldc);
        EXPECT_EQ(0, g_log.xerbla_calls);
        EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float)));
    }

    // y = 0.5 A x + 2 y with A 37 x 29 (lda 40), x and y with strides 2 and -3.
    const int gm = 37, gn = 29, glda = 40, incx = 2, incy = -3;
    const float alpha = 0.5f, beta = 2.0f;
    std::vector<float> a(size_t(glda * gn)), x(size_t(2 * gm)), y0(size_t(3 * gm));
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (std::vector<float>* v : {&a, &x, &y0})
        for (float& e : *v) e = value(rng);
    for (char trans : {'N', 'T'}) {
        SCOPED_TRACE(std::string("trans ") + trans);
        std::vector<float> want_y = y0;
        sgemv_(&trans, &gm, &gn, &alpha, a.data(), &glda, x.data(), &incx, &beta, want_y.data(), &incy);
        for (const auto& [name, fn] : {std::pair<const char*, FortranSgemv>{"sgemv", sgemv}, {"SGEMV", SGEMV}}) {
            SCOPED_TRACE(name);
            std::vector<float> got = y0;
            reset_log();
            fn(&trans, &gm, &gn, &alpha, a.data(), &glda, x.data(), &incx, &beta, got.data(), &incy);
            EXPECT_EQ(0, g_log.xerbla_calls);
            EXPECT_EQ(0, std::memcmp(want_y.data(), got.data(), got.size() * sizeof(float)));
            const char bad = 'X';
            const int zero_inc = 0;
            for (const auto& [arg, info] : {std::pair<int, int>{1, 1}, {11, 11}}) {
                got = y0;
                reset_log();
                fn(arg == 1 ? &bad : &trans, &gm, &gn, &alpha, a.data(), &glda, x.data(), &incx, &beta, got.data(),
                   arg == 11 ? &zero_inc : &incy);
                EXPECT_EQ(1, g_log.xerbla_calls) << "bad argument " << arg;
                EXPECT_EQ(info, g_log.xerbla_info);
                EXPECT_EQ("SGEMV", g_log.xerbla_routine.substr(0, 5));
                EXPECT_EQ(0, std::memcmp(y0.data(), got.data(), got.size() * sizeof(float))) << "y written";
            }
        }
    }
}

// --- cblas_sgemm ---

struct CblasCase {
    int layout, ta, tb;  // raw enum values, so invalid ones can be passed
    int m, n, k, lda, ldb, ldc;
    int info;  // what cblas_xerbla receives; 0 for a valid call
};

// Numbers as netlib CBLAS passes them to cblas_xerbla: 1-3 its own, then the
// Fortran routine's number plus one; for row-major that is the number in the
// swapped column-major call (B's and A's dims and leading dimensions trade places),
// which netlib's cblas_xerbla swaps back (4<->5, 9<->11) only for its message.
TEST(Errors, CblasSgemmEachBadArgument) {
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
        {R, 0, N, 4, 3, 5, 5, 3, 3, 2},
        {R, N, 0, 4, 3, 5, 5, 3, 3, 3},
        {R, N, N, -1, 3, 5, 5, 3, 3, 5},  // bad M: swapped call's n
        {R, N, N, 4, -1, 5, 5, 3, 3, 4},  // bad N: swapped call's m
        {R, N, N, -1, -1, 5, 5, 3, 3, 4}, // the swapped call checks N first
        {R, N, N, 4, 3, -1, 5, 3, 3, 6},
        {R, N, N, 4, 3, 5, 4, 3, 3, 11},  // row-major A 4x5: lda < k
        {R, T, N, 4, 3, 5, 3, 3, 3, 11},  // row-major A^T stored 5x4: lda < m
        {R, N, N, 4, 3, 5, 5, 2, 3, 9},   // row-major B 5x3: ldb < n
        {R, N, T, 4, 3, 5, 5, 4, 3, 9},   // row-major B^T stored 3x5: ldb < k
        {R, N, N, 4, 3, 5, 5, 3, 2, 14},  // row-major C 4x3: ldc < n
        {C, N, N, 4, 3, 5, 4, 5, 4, 0},   // valid calls: no report
        {R, N, N, 4, 3, 5, 5, 3, 3, 0},   // (row-major ldc = n < m is legal)
        {R, T, T, 4, 3, 5, 4, 5, 3, 0},
        {C, CblasConjTrans, T, 4, 3, 5, 5, 3, 4, 0},
    };
    for (const CblasCase& c : cases) {
        SCOPED_TRACE("cblas_sgemm(layout=" + std::to_string(c.layout) + " ta=" + std::to_string(c.ta) +
                     " tb=" + std::to_string(c.tb) + " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
                     " k=" + std::to_string(c.k) + " lda=" + std::to_string(c.lda) +
                     " ldb=" + std::to_string(c.ldb) + " ldc=" + std::to_string(c.ldc) + ")");
        Buffers buf(8);
        reset_log();
        cblas_sgemm(static_cast<CBLAS_LAYOUT>(c.layout), static_cast<CBLAS_TRANSPOSE>(c.ta),
                    static_cast<CBLAS_TRANSPOSE>(c.tb), c.m, c.n, c.k, 1.0f, buf.a.data(), c.lda,
                    buf.b.data(), c.ldb, 0.5f, buf.c.data(), c.ldc);
        EXPECT_EQ(0, g_log.xerbla_calls) << "cblas errors go to cblas_xerbla, not xerbla_";
        if (c.info == 0) {
            EXPECT_EQ(0, g_log.cblas_calls) << "valid call reported parameter " << g_log.cblas_info;
            EXPECT_FALSE(buf.c.untouched()) << "valid call did not write C";
            continue;
        }
        EXPECT_EQ(1, g_log.cblas_calls);
        EXPECT_EQ(c.info, g_log.cblas_info);
        EXPECT_EQ("cblas_sgemm", g_log.cblas_routine);
        EXPECT_TRUE(buf.c.untouched()) << "C written by a call with a bad argument";
    }
}

// A valid row-major call through CBLAS computes the right thing (the swap is not only
// a matter of argument checks).
TEST(Errors, CblasValidCallsReportNothingAndAreRight) {
    for (bool row : {false, true})
        for (int t = 0; t < 4; ++t) {
            Call call;
            call.row_major = row, call.ta = t & 1, call.tb = t & 2;
            call.m = 6, call.n = 4, call.k = 5, call.alpha = -1.0f, call.beta = 2.0f, call.ldc_pad = 1;
            std::mt19937 rng(12);
            Operands ops(call, rng);
            const auto expect = expected_c(call, ops.a.data(), ops.b.data(), ops.c.data());
            reset_log();
            cblas_sgemm(row ? CblasRowMajor : CblasColMajor, call.ta ? CblasTrans : CblasNoTrans,
                        call.tb ? CblasTrans : CblasNoTrans, 6, 4, 5, call.alpha, ops.a.data(), int(call.lda()),
                        ops.b.data(), int(call.ldb()), call.beta, ops.c.data(), int(call.ldc()));
            EXPECT_EQ(0, g_log.cblas_calls);
            EXPECT_EQ(0, g_log.xerbla_calls);
            EXPECT_TRUE(matches(call, ops.c, expect, bound_for(call)));
        }
}

// --- ridge_sgemm (native: status and handler) ---

struct NativeCase {
    int layout, ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    bool null_a, null_b, null_c;
    float alpha;
    int position;  // 1-based position in ridge_sgemm's signature; 0 for a valid call
};

TEST(Errors, NativeSgemmEachBadArgument) {
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
        {R, N, N, 4, 3, 5, 4, 3, 3, false, false, false, 1.0f, 9},   // row-major A 4x5: lda < k
        {R, T, N, 4, 3, 5, 3, 3, 3, false, false, false, 1.0f, 9},   // row-major A^T 5x4: lda < m
        {C, N, N, 4, 3, 5, 4, 4, 4, false, false, false, 1.0f, 11},
        {R, N, N, 4, 3, 5, 5, 2, 3, false, false, false, 1.0f, 11},
        {R, N, T, 4, 3, 5, 5, 4, 3, false, false, false, 1.0f, 11},
        {C, N, N, 4, 3, 5, 4, 5, 3, false, false, false, 1.0f, 14},
        {R, N, N, 4, 3, 5, 5, 3, 2, false, false, false, 1.0f, 14},
        {C, N, N, 0, 3, 5, 1, 5, 0, false, false, false, 1.0f, 14},  // ldc >= 1 even when m = 0
        {C, N, N, 4, 3, 5, 4, 5, 4, true, false, false, 1.0f, 8},
        {C, N, N, 4, 3, 5, 4, 5, 4, false, true, false, 1.0f, 10},
        {C, N, N, 4, 3, 5, 4, 5, 4, false, false, true, 1.0f, 13},
        {C, N, N, 4, 3, 5, 4, 5, 4, true, true, true, 1.0f, 8},
        // NULL where nothing is read or written is fine.
        {C, N, N, 4, 3, 5, 4, 5, 4, true, true, false, 0.0f, 0},   // alpha = 0: A, B not read
        {C, N, N, 4, 3, 0, 4, 1, 4, true, true, false, 1.0f, 0},   // k = 0
        {C, N, N, 0, 3, 5, 1, 5, 1, true, true, true, 1.0f, 0},    // m = 0
        {R, N, N, 4, 0, 5, 5, 1, 1, true, true, true, 1.0f, 0},    // n = 0
        {R, N, N, 4, 3, 5, 5, 3, 3, false, false, false, 1.0f, 0}, // row-major ldc = n < m
    };
    int token = 0;
    ridge_set_error_handler(handler, &token);
    for (const NativeCase& c : cases) {
        SCOPED_TRACE("ridge_sgemm(layout=" + std::to_string(c.layout) + " ta=" + std::to_string(c.ta) +
                     " tb=" + std::to_string(c.tb) + " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
                     " k=" + std::to_string(c.k) + " lda=" + std::to_string(c.lda) + " ldb=" +
                     std::to_string(c.ldb) + " ldc=" + std::to_string(c.ldc) + (c.null_a ? " a=NULL" : "") +
                     (c.null_b ? " b=NULL" : "") + (c.null_c ? " c=NULL" : "") +
                     " alpha=" + std::to_string(c.alpha) + ")");
        Buffers buf(9);
        reset_log();
        const ridge_status st =
            ridge_sgemm(static_cast<ridge_layout>(c.layout), static_cast<ridge_transpose>(c.ta),
                        static_cast<ridge_transpose>(c.tb), c.m, c.n, c.k, c.alpha, c.null_a ? nullptr : buf.a.data(),
                        c.lda, c.null_b ? nullptr : buf.b.data(), c.ldb, 0.5f,
                        c.null_c ? nullptr : buf.c.data(), c.ldc);
        EXPECT_EQ(0, g_log.xerbla_calls);
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
        EXPECT_EQ("ridge_sgemm", g_log.handler_function);
        EXPECT_FALSE(g_log.handler_message.empty());
        EXPECT_EQ(&token, g_log.handler_data) << "user_data not passed through";
        EXPECT_TRUE(buf.c.untouched()) << "C written by a call with a bad argument";
    }
    ridge_set_error_handler(nullptr, nullptr);
}

// With the handler reset to NULL (the default), a bad call still returns the
// status and writes nothing, and the old handler is no longer called.
TEST(Errors, NativeDefaultHandlerIsSilentButStatusRemains) {
    ridge_set_error_handler(handler, nullptr);
    ridge_set_error_handler(nullptr, nullptr);
    Buffers buf(10);
    reset_log();
    EXPECT_EQ(RIDGE_INVALID_ARGUMENT, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, 4, 3, 5, 1.0f,
                                                  buf.a.data(), 2, buf.b.data(), 5, 0.0f, buf.c.data(), 4));
    EXPECT_EQ(0, g_log.handler_calls);
    EXPECT_EQ(0, g_log.xerbla_calls);
    EXPECT_TRUE(buf.c.untouched());
}

// A valid call of each entry point reaches no error routine.
TEST(Errors, ValidCallsReachNoErrorRoutine) {
    ridge_set_error_handler(handler, nullptr);
    Buffers buf(11);
    reset_log();
    const char n = 'N';
    const int m = 4, nn = 3, k = 5, lda = 4, ldb = 5, ldc = 4;
    const float alpha = 1.0f, beta = 0.0f;
    sgemm_(&n, &n, &m, &nn, &k, &alpha, buf.a.data(), &lda, buf.b.data(), &ldb, &beta, buf.c.data(), &ldc);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, nn, k, alpha, buf.a.data(), lda, buf.b.data(), ldb,
                beta, buf.c.data(), ldc);
    EXPECT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, nn, k, alpha,
                                         buf.a.data(), lda, buf.b.data(), ldb, beta, buf.c.data(), ldc));
    EXPECT_EQ(0, g_log.xerbla_calls);
    EXPECT_EQ(0, g_log.cblas_calls);
    EXPECT_EQ(0, g_log.handler_calls);
    ridge_set_error_handler(nullptr, nullptr);
}

TEST(Errors, StatusStringsAreDistinct) {
    const std::string ok = ridge_status_string(RIDGE_SUCCESS);
    const std::string bad = ridge_status_string(RIDGE_INVALID_ARGUMENT);
    const std::string oom = ridge_status_string(RIDGE_OUT_OF_MEMORY);
    EXPECT_FALSE(ok.empty());
    EXPECT_NE(ok, bad);
    EXPECT_NE(ok, oom);
    EXPECT_NE(bad, oom);
}

}  // namespace
