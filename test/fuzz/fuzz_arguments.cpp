// libFuzzer over argument checking. The input bytes pick an entry point
// (ridge_sgemm, cblas_sgemm, sgemm_, ridge_sgemv, cblas_sgemv, sgemv_,
// ridge_sgemm_batch_strided, cblas_sgemm_batch_strided, cblas_sgemm_batch) and
// every argument: layout and transpose codes (invalid ones included), sizes
// and leading dimensions (small, zero, negative, around their legal minimum,
// huge), increments, batch strides and counts, NULL pointers, scalars (0, 1, others).
//
// Each call gets buffers exactly as large as its arguments say each operand
// is (AddressSanitizer stops any access beyond them), and is checked against
// an oracle written here from netlib's rules and ridge.h, independently of
// the library's own checks:
// - invalid: exactly one report (xerbla_, cblas_xerbla or the native handler)
//   with the expected parameter number, and not one output element written;
// - valid: the result within the error bound of a double reference, and
//   nothing outside the output (leading-dimension padding, vector gaps) written.
// A violation aborts, which libFuzzer reports with the input that caused it.
// (beta == 0 fills the output with NaN first: none may survive, since BLAS
// overwrites it without reading it.)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "ridge/cblas.h"
#include "ridge/ridge.h"

namespace {

// What the error routines were told during one call.
struct Report {
    int calls = 0;
    int64_t info = 0;
};
Report g_report;

}  // namespace

extern "C" void xerbla_(const char*, const int* info, size_t) {
    ++g_report.calls;
    g_report.info = *info;
}

extern "C" void cblas_xerbla(int info, const char*, const char*, ...) {
    ++g_report.calls;
    g_report.info = info;
}

namespace {

void native_handler(ridge_status, const char*, int argument, const char*, void*) {
    ++g_report.calls;
    g_report.info = argument;
}

// The call under test, in words, for the report of a failure.
char g_call[512];

[[noreturn]] void fail_values(const char* what, double expected, double got) {
    std::fprintf(stderr, "fuzz_arguments: %s: expected %.9g, got %.9g\n  in %s\n", what, expected, got, g_call);
    std::abort();
}

[[noreturn]] void fail(const char* what, int64_t expected, int64_t got) {
    std::fprintf(stderr, "fuzz_arguments: %s (expected %lld, got %lld)\n  in %s\n", what, (long long)expected,
                 (long long)got, g_call);
    std::abort();
}

// Reads the input a byte at a time; zeros once it runs out.
class Bytes {
public:
    Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }
    template <size_t N>
    int64_t pick(const int64_t (&choices)[N]) {
        return choices[next() % N];
    }

private:
    const uint8_t* data_;
    size_t size_, pos_ = 0;
};

constexpr int64_t kMaxDim = 24;             // sizes of calls that compute
constexpr int64_t kMaxElements = 1 << 16;   // per operand, for calls that compute

// A size: mostly small, sometimes zero, negative or huge.
int64_t size_value(Bytes& in, bool native) {
    const uint8_t kind = in.next() % 16;
    if (kind < 11) return in.next() % (kMaxDim + 1);
    const int64_t odd32[] = {-1, -2, std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), 0};
    const int64_t odd64[] = {-1, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                             int64_t(1) << 40, 0};
    return native ? in.pick(odd64) : in.pick(odd32);
}

// A leading dimension near its legal minimum (or not near anything).
int64_t ld_value(Bytes& in, int64_t minimum, bool native) {
    const int64_t delta[] = {-1, 0, 0, 0, 1, 3, -minimum, 1000};
    const uint8_t kind = in.next() % 10;
    if (kind < 8) {  // saturating: the minimum itself may be huge
        const int64_t d = delta[kind];
        return d > 0 && minimum > std::numeric_limits<int64_t>::max() - d ? std::numeric_limits<int64_t>::max()
                                                                          : minimum + d;
    }
    return size_value(in, native);
}

int64_t inc_value(Bytes& in) {
    const int64_t choices[] = {1, 1, 1, 2, 3, -1, -2, 0};
    return in.pick(choices);
}

float scalar_value(Bytes& in) {
    const float choices[] = {0.0f, 1.0f, -1.0f, 0.5f, 2.0f};
    return choices[in.next() % 5];
}

// Elements a stored matrix of `lines` lines of `length` with stride ld occupies
// (of a valid call: ld >= length); anything beyond kMaxElements reads as
// kMaxElements + 1, before the arithmetic could overflow.
int64_t storage(int64_t length, int64_t lines, int64_t ld) {
    if (length <= 0 || lines <= 0) return 0;
    if (ld > kMaxElements || lines > kMaxElements) return kMaxElements + 1;
    return ld * (lines - 1) + length;
}

// Elements a BLAS vector of n entries and increment inc occupies (same saturation).
int64_t vector_storage(int64_t n, int64_t inc) {
    if (n <= 0) return 0;
    if (n > kMaxElements) return kMaxElements + 1;
    return 1 + (n - 1) * (inc < 0 ? -inc : inc);
}

// --- the oracles ---

bool trans_char_valid(char c) { return std::strchr("NnTtCc", c) != nullptr && c != 0; }
bool trans_char_transposes(char c) { return c != 'N' && c != 'n'; }

// netlib SGEMM's INFO for a column-major call.
int64_t sgemm_info(char ta, char tb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
    if (!trans_char_valid(ta)) return 1;
    if (!trans_char_valid(tb)) return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < std::max<int64_t>(1, trans_char_transposes(ta) ? k : m)) return 8;
    if (ldb < std::max<int64_t>(1, trans_char_transposes(tb) ? n : k)) return 10;
    if (ldc < std::max<int64_t>(1, m)) return 13;
    return 0;
}

// netlib SGEMV's INFO.
int64_t sgemv_info(char t, int64_t m, int64_t n, int64_t lda, int64_t incx, int64_t incy) {
    if (!trans_char_valid(t)) return 1;
    if (m < 0) return 2;
    if (n < 0) return 3;
    if (lda < std::max<int64_t>(1, m)) return 6;
    if (incx == 0) return 8;
    if (incy == 0) return 11;
    return 0;
}

char trans_code_char(int64_t code) {
    return code == CblasNoTrans ? 'N' : code == CblasTrans ? 'T' : code == CblasConjTrans ? 'C' : 0;
}

// One column-major or row-major product as the caller stored it.
struct Product {
    bool row, tra, trb;
    int64_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
};

// Every element of C (as stored at c, c0 before the call) against a double
// reference within sgemm's error bound.
void check_product(const Product& g, const float* a, const float* b, const float* c, const float* c0) {
    for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) {
            double sum = 0.0, magnitude = 0.0;
            if (g.alpha != 0.0f)
                for (int64_t p = 0; p < g.k; ++p) {
                    const int64_t ai = g.tra ? p : i, aj = g.tra ? i : p, bi = g.trb ? j : p, bj = g.trb ? p : j;
                    const double av = a[size_t(g.row ? ai * g.lda + aj : ai + aj * g.lda)];
                    const double bv = b[size_t(g.row ? bi * g.ldb + bj : bi + bj * g.ldb)];
                    sum += av * bv;
                    magnitude += std::fabs(av * bv);
                }
            const size_t at = size_t(g.row ? i * g.ldc + j : i + j * g.ldc);
            const double want = double(g.alpha) * sum + (g.beta == 0.0f ? 0.0 : double(g.beta) * double(c0[at]));
            const double bound = 4.0 * double(g.k + 2) * std::numeric_limits<float>::epsilon() *
                                     (std::fabs(g.alpha) * magnitude + (g.beta == 0.0f ? 0.0 : std::fabs(g.beta * c0[at]))) +
                                 1e-30;
            if (!(std::fabs(double(c[at]) - want) <= bound)) fail_values("GEMM result", want, c[at]);
        }
}

// A, B and C of a GEMM (or of a whole batch) with values drawn from the input;
// C full of NaN when beta = 0 (none may survive), c0 its copy before the call.
struct GemmOperands {
    std::vector<float> a, b, c, c0;
    GemmOperands(Bytes& in, int64_t a_size, int64_t b_size, int64_t c_size, float beta)
        : a(static_cast<size_t>(a_size)), b(static_cast<size_t>(b_size)), c(static_cast<size_t>(c_size)) {
        for (float& v : a) v = float(int(in.next() % 9) - 4);
        for (float& v : b) v = float(int(in.next() % 9) - 4);
        for (float& v : c) v = beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : float(int(in.next() % 9) - 4);
        c0 = c;
    }
    // The pointer passed: NULL when asked, or when the operand is empty (as a
    // caller with nothing to pass would).
    const float* a_arg(bool null) const { return null || a.empty() ? nullptr : a.data(); }
    const float* b_arg(bool null) const { return null || b.empty() ? nullptr : b.data(); }
    float* c_arg(bool null) { return null || c.empty() ? nullptr : c.data(); }
};

// --- one GEMM call ---

enum class Door { native, cblas, fortran };

void fuzz_gemm(Bytes& in, Door door) {
    const bool native = door == Door::native;
    const int64_t layouts[] = {CblasColMajor, CblasRowMajor, CblasColMajor, CblasRowMajor, 0, 103};
    const int64_t trans_codes[] = {CblasNoTrans, CblasTrans, CblasConjTrans, CblasNoTrans, 114, 0};
    const char trans_chars[] = {'N', 'T', 'C', 'n', 't', 'c', 'X', '\0'};
    int64_t layout = door == Door::fortran ? int64_t(CblasColMajor) : in.pick(layouts);
    int64_t ta_code = in.pick(trans_codes), tb_code = in.pick(trans_codes);
    char ta = door == Door::fortran ? trans_chars[in.next() % 8] : trans_code_char(ta_code);
    char tb = door == Door::fortran ? trans_chars[in.next() % 8] : trans_code_char(tb_code);
    const bool row = layout == CblasRowMajor;
    int64_t m = size_value(in, native), n = size_value(in, native), k = size_value(in, native);
    if (!native) m = int32_t(m), n = int32_t(n), k = int32_t(k);
    const bool tra = ta != 0 && trans_char_transposes(ta), trb = tb != 0 && trans_char_transposes(tb);
    // Stored shapes: `length` elements per line, `lines` lines (row-major swaps them).
    const int64_t a_rows = tra ? k : m, a_cols = tra ? m : k, b_rows = trb ? n : k, b_cols = trb ? k : n;
    const int64_t a_len = row ? a_cols : a_rows, a_lines = row ? a_rows : a_cols;
    const int64_t b_len = row ? b_cols : b_rows, b_lines = row ? b_rows : b_cols;
    const int64_t c_len = row ? n : m, c_lines = row ? m : n;
    int64_t lda = ld_value(in, std::max<int64_t>(1, a_len), native);
    int64_t ldb = ld_value(in, std::max<int64_t>(1, b_len), native);
    int64_t ldc = ld_value(in, std::max<int64_t>(1, c_len), native);
    if (!native) lda = int32_t(lda), ldb = int32_t(ldb), ldc = int32_t(ldc);
    const float alpha = scalar_value(in), beta = scalar_value(in);
    const uint8_t nulls = native ? in.next() % 8 : 0;  // bit 0: a, 1: b, 2: c NULL (native only)

    // The expected report.
    int64_t expected = 0;
    if (door == Door::fortran) {
        expected = sgemm_info(ta, tb, m, n, k, lda, ldb, ldc);
    } else if (layout != CblasColMajor && layout != CblasRowMajor) {
        expected = 1;
    } else if (ta == 0) {
        expected = 2;
    } else if (tb == 0) {
        expected = 3;
    } else if (door == Door::cblas) {
        const int64_t info = row ? sgemm_info(tb, ta, n, m, k, ldb, lda, ldc) : sgemm_info(ta, tb, m, n, k, lda, ldb, ldc);
        expected = info == 0 ? 0 : info + 1;
    } else {  // native: ridge.h's positions
        const bool reads = m > 0 && n > 0 && k > 0 && alpha != 0.0f;
        if (m < 0) expected = 4;
        else if (n < 0) expected = 5;
        else if (k < 0) expected = 6;
        else if (lda < std::max<int64_t>(1, a_len)) expected = 9;
        else if (ldb < std::max<int64_t>(1, b_len)) expected = 11;
        else if (ldc < std::max<int64_t>(1, c_len)) expected = 14;
        else if (reads && (nulls & 1)) expected = 8;
        else if (reads && (nulls & 2)) expected = 10;
        else if (m > 0 && n > 0 && (nulls & 4)) expected = 13;
    }

    // Operands as large as the arguments say (a few elements when invalid:
    // nothing may be touched then, and ASan sees any access past them).
    const int64_t a_size = expected ? 4 : storage(a_len, a_lines, lda);
    const int64_t b_size = expected ? 4 : storage(b_len, b_lines, ldb);
    const int64_t c_size = expected ? 4 : storage(c_len, c_lines, ldc);
    if (a_size > kMaxElements || b_size > kMaxElements || c_size > kMaxElements) return;
    GemmOperands ops(in, a_size, b_size, c_size, beta);
    std::vector<float>&a = ops.a, &b = ops.b, &c = ops.c, &c0 = ops.c0;
    const float *pa = ops.a_arg(nulls & 1), *pb = ops.b_arg(nulls & 2);
    float* pc = ops.c_arg(nulls & 4);

    std::snprintf(g_call, sizeof g_call,
                  "%s gemm layout=%lld ta=%lld/'%c' tb=%lld/'%c' m=%lld n=%lld k=%lld alpha=%g lda=%lld ldb=%lld "
                  "beta=%g ldc=%lld nulls=%d",
                  door == Door::native ? "native" : door == Door::cblas ? "cblas" : "fortran", (long long)layout,
                  (long long)ta_code, ta ? ta : '0', (long long)tb_code, tb ? tb : '0', (long long)m, (long long)n,
                  (long long)k, double(alpha), (long long)lda, (long long)ldb, double(beta), (long long)ldc, nulls);
    g_report = Report{};
    if (door == Door::native) {
        const ridge_status s = ridge_sgemm(ridge_layout(layout), ridge_transpose(ta_code), ridge_transpose(tb_code), m,
                                           n, k, alpha, pa, lda, pb, ldb, beta, pc, ldc);
        if ((s == RIDGE_INVALID_ARGUMENT) != (expected != 0)) fail("ridge_sgemm status", expected, s);
        if (s != RIDGE_SUCCESS && s != RIDGE_INVALID_ARGUMENT) fail("ridge_sgemm status", 0, s);
    } else if (door == Door::cblas) {
        cblas_sgemm(CBLAS_LAYOUT(layout), CBLAS_TRANSPOSE(ta_code), CBLAS_TRANSPOSE(tb_code), int(m), int(n), int(k),
                    alpha, pa, int(lda), pb, int(ldb), beta, pc, int(ldc));
    } else {
        const int im = int(m), in_ = int(n), ik = int(k), ilda = int(lda), ildb = int(ldb), ildc = int(ldc);
        sgemm_(&ta, &tb, &im, &in_, &ik, &alpha, pa, &ilda, pb, &ildb, &beta, pc, &ildc);
    }
    if (expected != 0) {
        if (g_report.calls != 1) fail("reports for an invalid GEMM", 1, g_report.calls);
        if (g_report.info != expected) fail("GEMM parameter number", expected, g_report.info);
        if (std::memcmp(c.data(), c0.data(), c.size() * sizeof(float)) != 0) fail("invalid GEMM wrote C", 0, 1);
        return;
    }
    if (g_report.calls != 0) fail("reports for a valid GEMM", 0, g_report.calls);
    // The reference (none when C is empty: m may then be 2^31 - 1 with n = 0).
    if (n > 0) check_product({row, tra, trb, m, n, k, lda, ldb, ldc, alpha, beta}, a.data(), b.data(), c.data(), c0.data());
    // Padding between lines of C untouched (C may have no element at all and
    // 2^31 - 1 empty lines: only lines that start inside the buffer are walked).
    for (int64_t line = 0; line < c_lines && line * ldc < c_size; ++line)
        for (int64_t e = c_len; e < ldc && line * ldc + e < c_size; ++e) {
            const size_t at = size_t(line * ldc + e);
            if (std::memcmp(&c[at], &c0[at], sizeof(float)) != 0) fail("GEMM wrote padding of C at", int64_t(at), 0);
        }
}

// --- one GEMV call ---

void fuzz_gemv(Bytes& in, Door door) {
    const bool native = door == Door::native;
    const int64_t layouts[] = {CblasColMajor, CblasRowMajor, CblasColMajor, 0};
    const int64_t trans_codes[] = {CblasNoTrans, CblasTrans, CblasConjTrans, 114};
    const char trans_chars[] = {'N', 'T', 'C', 'n', 't', 'X'};
    const int64_t layout = door == Door::fortran ? int64_t(CblasColMajor) : in.pick(layouts);
    const int64_t t_code = in.pick(trans_codes);
    const char t = door == Door::fortran ? trans_chars[in.next() % 6] : trans_code_char(t_code);
    const bool row = layout == CblasRowMajor;
    int64_t m = size_value(in, native), n = size_value(in, native);
    if (!native) m = int32_t(m), n = int32_t(n);
    const int64_t a_len = row ? n : m, a_lines = row ? m : n;
    int64_t lda = ld_value(in, std::max<int64_t>(1, a_len), native);
    if (!native) lda = int32_t(lda);
    const int64_t incx = inc_value(in), incy = inc_value(in);
    const float alpha = scalar_value(in), beta = scalar_value(in);
    const bool trans = t != 0 && trans_char_transposes(t);
    const int64_t lenx = trans ? m : n, leny = trans ? n : m;

    int64_t expected = 0;
    if (door == Door::fortran) {
        expected = sgemv_info(t, m, n, lda, incx, incy);
    } else if (layout != CblasColMajor && layout != CblasRowMajor) {
        expected = 1;
    } else if (t == 0) {
        expected = 2;
    } else if (door == Door::cblas) {
        // Row-major: the call on A^T (trans flipped, m and n swapped).
        const int64_t info = row ? sgemv_info(trans ? 'N' : 'T', n, m, lda, incx, incy)
                                 : sgemv_info(t, m, n, lda, incx, incy);
        expected = info == 0 ? 0 : info + 1;
    } else {
        if (m < 0) expected = 3;
        else if (n < 0) expected = 4;
        else if (lda < std::max<int64_t>(1, a_len)) expected = 7;
        else if (incx == 0) expected = 9;
        else if (incy == 0) expected = 12;
    }

    const int64_t a_size = expected ? 4 : storage(a_len, a_lines, lda);
    const int64_t x_size = expected ? 4 : vector_storage(lenx, incx);
    const int64_t y_size = expected ? 4 : vector_storage(leny, incy);
    if (a_size > kMaxElements || x_size > kMaxElements || y_size > kMaxElements) return;
    std::vector<float> a(static_cast<size_t>(a_size)), x(static_cast<size_t>(x_size)), y(static_cast<size_t>(y_size));
    for (float& v : a) v = float(int(in.next() % 9) - 4);
    for (float& v : x) v = float(int(in.next() % 9) - 4);
    for (float& v : y) v = beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : float(int(in.next() % 9) - 4);
    const std::vector<float> y0 = y;
    const float* pa = a.empty() ? nullptr : a.data();
    const float* px = x.empty() ? nullptr : x.data();
    float* py = y.empty() ? nullptr : y.data();

    std::snprintf(g_call, sizeof g_call,
                  "%s gemv layout=%lld t=%lld/'%c' m=%lld n=%lld alpha=%g lda=%lld incx=%lld beta=%g incy=%lld",
                  door == Door::native ? "native" : door == Door::cblas ? "cblas" : "fortran", (long long)layout,
                  (long long)t_code, t ? t : '0', (long long)m, (long long)n, double(alpha), (long long)lda,
                  (long long)incx, double(beta), (long long)incy);
    g_report = Report{};
    if (door == Door::native) {
        const ridge_status s = ridge_sgemv(ridge_layout(layout), ridge_transpose(t_code), m, n, alpha, pa, lda, px,
                                           incx, beta, py, incy);
        if ((s == RIDGE_INVALID_ARGUMENT) != (expected != 0)) fail("ridge_sgemv status", expected, s);
        if (s != RIDGE_SUCCESS && s != RIDGE_INVALID_ARGUMENT) fail("ridge_sgemv status", 0, s);
    } else if (door == Door::cblas) {
        cblas_sgemv(CBLAS_LAYOUT(layout), CBLAS_TRANSPOSE(t_code), int(m), int(n), alpha, pa, int(lda), px, int(incx),
                    beta, py, int(incy));
    } else {
        const int im = int(m), in_ = int(n), ilda = int(lda), iincx = int(incx), iincy = int(incy);
        sgemv_(&t, &im, &in_, &alpha, pa, &ilda, px, &iincx, &beta, py, &iincy);
    }
    if (expected != 0) {
        if (g_report.calls != 1) fail("reports for an invalid GEMV", 1, g_report.calls);
        if (g_report.info != expected) fail("GEMV parameter number", expected, g_report.info);
        if (std::memcmp(y.data(), y0.data(), y.size() * sizeof(float)) != 0) fail("invalid GEMV wrote y", 0, 1);
        return;
    }
    if (g_report.calls != 0) fail("reports for a valid GEMV", 0, g_report.calls);
    // Element q of a vector: BLAS order (negative increments start at the far end).
    auto index = [](int64_t q, int64_t len, int64_t inc) { return inc > 0 ? q * inc : (q - len + 1) * inc; };
    const bool quick = m == 0 || n == 0 || (alpha == 0.0f && beta == 1.0f);
    std::vector<bool> is_element(y.size(), false);
    for (int64_t q = 0; q < leny; ++q) {
        const size_t at = size_t(index(q, leny, incy));
        is_element[at] = true;
        if (quick) continue;
        double sum = 0.0, magnitude = 0.0;
        if (alpha != 0.0f)
            for (int64_t p = 0; p < lenx; ++p) {
                // op(A)(q, p) of the caller's A (m x n in its layout).
                const int64_t i = trans ? p : q, j = trans ? q : p;
                const double av = a[size_t(row ? i * lda + j : i + j * lda)];
                const double xv = x[size_t(index(p, lenx, incx))];
                sum += av * xv;
                magnitude += std::fabs(av * xv);
            }
        const double want = double(alpha) * sum + (beta == 0.0f ? 0.0 : double(beta) * double(y0[at]));
        const double bound = 4.0 * double(lenx + 2) * std::numeric_limits<float>::epsilon() *
                                 (std::fabs(alpha) * magnitude + (beta == 0.0f ? 0.0 : std::fabs(beta * y0[at]))) +
                             1e-30;
        if (!(std::fabs(double(y[at]) - want) <= bound)) fail_values("GEMV result", want, y[at]);
    }
    for (size_t i = 0; i < y.size(); ++i)
        if ((quick || !is_element[i]) && std::memcmp(&y[i], &y0[i], sizeof(float)) != 0)
            fail("GEMV wrote outside y's elements (or during a quick return) at", int64_t(i), 0);
}

// --- one strided batch (ridge_sgemm_batch_strided, cblas_sgemm_batch_strided) ---

// A batch stride near the size of one matrix (or negative, or huge).
int64_t stride_value(Bytes& in, int64_t one_matrix, bool native) {
    const int64_t choices[] = {one_matrix, one_matrix, one_matrix + 3, 0, one_matrix - 1, -1,
                               native ? int64_t(1) << 40 : std::numeric_limits<int>::max()};
    return in.pick(choices);
}

// ridge's documented limit: the last problem's matrix must end within 4.6e18 elements.
bool span_too_large(int64_t stride, int64_t count, double one_matrix) {
    return double(stride) * double(std::max<int64_t>(count - 1, 0)) + one_matrix >= 4.6e18;
}

void fuzz_batch(Bytes& in, bool native) {
    const int64_t layouts[] = {CblasColMajor, CblasRowMajor, CblasColMajor, CblasRowMajor, 0};
    const int64_t trans_codes[] = {CblasNoTrans, CblasTrans, CblasConjTrans, CblasNoTrans, 114};
    const int64_t layout = in.pick(layouts), ta_code = in.pick(trans_codes), tb_code = in.pick(trans_codes);
    const bool row = layout == CblasRowMajor;
    const bool tra = ta_code == CblasTrans || ta_code == CblasConjTrans;
    const bool trb = tb_code == CblasTrans || tb_code == CblasConjTrans;
    int64_t m = size_value(in, native), n = size_value(in, native), k = size_value(in, native);
    if (!native) m = int32_t(m), n = int32_t(n), k = int32_t(k);
    const int64_t a_rows = tra ? k : m, a_cols = tra ? m : k, b_rows = trb ? n : k, b_cols = trb ? k : n;
    const int64_t a_len = row ? a_cols : a_rows, a_lines = row ? a_rows : a_cols;
    const int64_t b_len = row ? b_cols : b_rows, b_lines = row ? b_rows : b_cols;
    const int64_t c_len = row ? n : m, c_lines = row ? m : n;
    int64_t lda = ld_value(in, std::max<int64_t>(1, a_len), native);
    int64_t ldb = ld_value(in, std::max<int64_t>(1, b_len), native);
    int64_t ldc = ld_value(in, std::max<int64_t>(1, c_len), native);
    if (!native) lda = int32_t(lda), ldb = int32_t(ldb), ldc = int32_t(ldc);
    // One matrix as the batch counts it: ld times its lines (0 lines: nothing).
    const double one_a = double(lda) * double(std::max<int64_t>(a_lines, 0));
    const double one_b = double(ldb) * double(std::max<int64_t>(b_lines, 0));
    const double one_c = double(ldc) * double(std::max<int64_t>(c_lines, 0));
    auto clamp = [](double v) { return v > 1e12 ? int64_t(1e12) : v < -1e12 ? int64_t(-1e12) : int64_t(v); };
    int64_t sa = stride_value(in, clamp(one_a), native), sb = stride_value(in, clamp(one_b), native),
            sc = stride_value(in, clamp(one_c), native);
    const int64_t counts[] = {1, 2, 3, 5, 0, -1, native ? int64_t(1) << 40 : std::numeric_limits<int>::max()};
    int64_t count = in.pick(counts);
    if (!native) sa = int32_t(sa), sb = int32_t(sb), sc = int32_t(sc), count = int32_t(count);
    const float alpha = scalar_value(in), beta = scalar_value(in);
    const uint8_t nulls = in.next() % 8;  // bit 0: a, 1: b, 2: c NULL

    // The expected position (ridge.h / cblas.h: the signature's, in its order, pointers last).
    const bool c_nonempty = m > 0 && n > 0;
    const bool reads = count > 0 && c_nonempty && k > 0 && alpha != 0.0f;
    int64_t expected = 0;
    if (layout != CblasColMajor && layout != CblasRowMajor) expected = 1;
    else if (ta_code != CblasNoTrans && !tra) expected = 2;
    else if (tb_code != CblasNoTrans && !trb) expected = 3;
    else if (m < 0) expected = 4;
    else if (n < 0) expected = 5;
    else if (k < 0) expected = 6;
    else if (lda < std::max<int64_t>(1, a_len)) expected = 9;
    else if (sa < 0 || span_too_large(sa, count, one_a)) expected = 10;
    else if (ldb < std::max<int64_t>(1, b_len)) expected = 12;
    else if (sb < 0 || span_too_large(sb, count, one_b)) expected = 13;
    else if (ldc < std::max<int64_t>(1, c_len)) expected = 16;
    else if (count > 1 && c_nonempty && double(sc) < one_c) expected = 17;
    else if (span_too_large(sc, count, one_c)) expected = 17;
    else if (count < 0) expected = 18;
    else if (reads && (nulls & 1)) expected = 8;
    else if (reads && (nulls & 2)) expected = 11;
    else if (count > 0 && c_nonempty && (nulls & 4)) expected = 15;

    // Buffers: every problem's operand, stride apart (a few elements when invalid).
    auto batch_storage = [&](int64_t len, int64_t lines, int64_t ld, int64_t stride) -> int64_t {
        const int64_t one = storage(len, lines, ld);
        if (one == 0 || count <= 0) return 0;
        if (one > kMaxElements || stride > kMaxElements || count > kMaxElements) return kMaxElements + 1;
        return stride * (count - 1) + one;
    };
    const int64_t a_size = expected ? 4 : batch_storage(a_len, a_lines, lda, sa);
    const int64_t b_size = expected ? 4 : batch_storage(b_len, b_lines, ldb, sb);
    const int64_t c_size = expected ? 4 : batch_storage(c_len, c_lines, ldc, sc);
    if (a_size > kMaxElements || b_size > kMaxElements || c_size > kMaxElements) return;
    GemmOperands ops(in, a_size, b_size, c_size, beta);
    std::vector<float>&a = ops.a, &b = ops.b, &c = ops.c, &c0 = ops.c0;
    const float *pa = ops.a_arg(nulls & 1), *pb = ops.b_arg(nulls & 2);
    float* pc = ops.c_arg(nulls & 4);

    std::snprintf(g_call, sizeof g_call,
                  "%s batch layout=%lld ta=%lld tb=%lld m=%lld n=%lld k=%lld alpha=%g lda=%lld sa=%lld ldb=%lld "
                  "sb=%lld beta=%g ldc=%lld sc=%lld count=%lld nulls=%d",
                  native ? "native" : "cblas", (long long)layout, (long long)ta_code, (long long)tb_code, (long long)m,
                  (long long)n, (long long)k, double(alpha), (long long)lda, (long long)sa, (long long)ldb,
                  (long long)sb, double(beta), (long long)ldc, (long long)sc, (long long)count, nulls);
    g_report = Report{};
    if (native) {
        const ridge_status s =
            ridge_sgemm_batch_strided(ridge_layout(layout), ridge_transpose(ta_code), ridge_transpose(tb_code), m, n, k,
                                      alpha, pa, lda, sa, pb, ldb, sb, beta, pc, ldc, sc, count);
        if ((s == RIDGE_INVALID_ARGUMENT) != (expected != 0)) fail("ridge_sgemm_batch_strided status", expected, s);
        if (s != RIDGE_SUCCESS && s != RIDGE_INVALID_ARGUMENT) fail("ridge_sgemm_batch_strided status", 0, s);
    } else {
        cblas_sgemm_batch_strided(CBLAS_LAYOUT(layout), CBLAS_TRANSPOSE(ta_code), CBLAS_TRANSPOSE(tb_code), int(m),
                                  int(n), int(k), alpha, pa, int(lda), int(sa), pb, int(ldb), int(sb), beta, pc,
                                  int(ldc), int(sc), int(count));
    }
    if (expected != 0) {
        if (g_report.calls != 1) fail("reports for an invalid batch", 1, g_report.calls);
        if (g_report.info != expected) fail("batch parameter number", expected, g_report.info);
        if (std::memcmp(c.data(), c0.data(), c.size() * sizeof(float)) != 0) fail("invalid batch wrote C", 0, 1);
        return;
    }
    if (g_report.calls != 0) fail("reports for a valid batch", 0, g_report.calls);
    if (c.empty()) return;
    const Product g{row, tra, trb, m, n, k, lda, ldb, ldc, alpha, beta};
    const bool quick = m == 0 || n == 0 || ((alpha == 0.0f || k == 0) && beta == 1.0f);
    std::vector<bool> is_element(c.size(), false);
    for (int64_t q = 0; q < count; ++q) {
        for (int64_t line = 0; line < c_lines; ++line)
            for (int64_t e = 0; e < c_len; ++e) is_element[size_t(q * sc + line * ldc + e)] = true;
        // (A or B may be empty, NULL, when alpha = 0 or k = 0 and nothing reads them.)
        const float* aq = a.empty() ? nullptr : a.data() + q * sa;
        const float* bq = b.empty() ? nullptr : b.data() + q * sb;
        if (!quick) check_product(g, aq, bq, c.data() + q * sc, c0.data() + q * sc);
    }
    for (size_t i = 0; i < c.size(); ++i)
        if ((quick || !is_element[i]) && std::memcmp(&c[i], &c0[i], sizeof(float)) != 0)
            fail("batch wrote outside its problems' C (or during a quick return) at", int64_t(i), 0);
}

// --- one group batch (cblas_sgemm_batch) ---

// One group as the fuzzer drew it, with its problems' operands (each its own buffer).
struct FuzzGroup {
    int64_t ta_code = 0, tb_code = 0, m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0, size = 0;
    float alpha = 0, beta = 0;
    bool tra = false, trb = false;
    int64_t a_len = 0, a_lines = 0, b_len = 0, b_lines = 0, c_len = 0, c_lines = 0;
    std::vector<GemmOperands> problems;
};

void fuzz_group_batch(Bytes& in) {
    const int64_t layouts[] = {CblasColMajor, CblasRowMajor, CblasColMajor, CblasRowMajor, 0};
    const int64_t trans_codes[] = {CblasNoTrans, CblasTrans, CblasConjTrans, CblasNoTrans, 114};
    const int64_t counts[] = {1, 2, 3, 2, 0, -1};
    const int64_t sizes[] = {1, 2, 3, 0, -1};
    const int64_t layout = in.pick(layouts), group_count = in.pick(counts);
    const bool row = layout == CblasRowMajor;
    std::vector<FuzzGroup> groups(size_t(std::max<int64_t>(group_count, 0)));
    for (FuzzGroup& g : groups) {
        g.ta_code = in.pick(trans_codes), g.tb_code = in.pick(trans_codes);
        g.tra = g.ta_code == CblasTrans || g.ta_code == CblasConjTrans;
        g.trb = g.tb_code == CblasTrans || g.tb_code == CblasConjTrans;
        g.m = int32_t(size_value(in, false)), g.n = int32_t(size_value(in, false)), g.k = int32_t(size_value(in, false));
        const int64_t a_rows = g.tra ? g.k : g.m, a_cols = g.tra ? g.m : g.k;
        const int64_t b_rows = g.trb ? g.n : g.k, b_cols = g.trb ? g.k : g.n;
        g.a_len = row ? a_cols : a_rows, g.a_lines = row ? a_rows : a_cols;
        g.b_len = row ? b_cols : b_rows, g.b_lines = row ? b_rows : b_cols;
        g.c_len = row ? g.n : g.m, g.c_lines = row ? g.m : g.n;
        g.lda = int32_t(ld_value(in, std::max<int64_t>(1, g.a_len), false));
        g.ldb = int32_t(ld_value(in, std::max<int64_t>(1, g.b_len), false));
        g.ldc = int32_t(ld_value(in, std::max<int64_t>(1, g.c_len), false));
        g.size = in.pick(sizes);
        g.alpha = scalar_value(in), g.beta = scalar_value(in);
    }
    // One thing made NULL: 0 none, 1-11 a per-group array, 12-14 a whole list,
    // 15-17 the last problem's A, B or C in its list.
    const uint8_t null_choice = in.next() % 18;

    // The expected position (cblas.h: layout, group_count, the per-group arrays
    // in positional order, each group's values in order, then the lists).
    auto bad_group = [&](const FuzzGroup& g) -> int64_t {
        if (g.ta_code != CblasNoTrans && !g.tra) return 2;
        if (g.tb_code != CblasNoTrans && !g.trb) return 3;
        if (g.m < 0) return 4;
        if (g.n < 0) return 5;
        if (g.k < 0) return 6;
        if (g.lda < std::max<int64_t>(1, g.a_len)) return 9;
        if (g.ldb < std::max<int64_t>(1, g.b_len)) return 11;
        if (g.ldc < std::max<int64_t>(1, g.c_len)) return 14;
        if (g.size < 0) return 16;
        return 0;
    };
    auto writes = [](const FuzzGroup& g) {
        return g.size > 0 && g.m > 0 && g.n > 0 && !((g.alpha == 0.0f || g.k == 0) && g.beta == 1.0f);
    };
    auto reads = [&](const FuzzGroup& g) { return writes(g) && g.k > 0 && g.alpha != 0.0f; };
    const int64_t array_positions[] = {2, 3, 4, 5, 6, 7, 9, 11, 12, 14, 16};
    int64_t expected = 0, problems = 0;
    bool any_reads = false, any_writes = false;
    if (layout != CblasColMajor && layout != CblasRowMajor) expected = 1;
    else if (group_count < 0) expected = 15;
    else if (group_count > 0 && null_choice >= 1 && null_choice <= 11) expected = array_positions[null_choice - 1];
    for (const FuzzGroup& g : groups) {
        if (expected == 0) expected = bad_group(g);
        problems += std::max<int64_t>(g.size, 0);
        any_reads = any_reads || reads(g), any_writes = any_writes || writes(g);
    }
    if (expected == 0 && any_reads && null_choice == 12) expected = 8;
    if (expected == 0 && any_reads && null_choice == 13) expected = 10;
    if (expected == 0 && any_writes && null_choice == 14) expected = 13;
    if (expected == 0 && problems > 0 && null_choice >= 15) {  // the last problem's pointer
        const FuzzGroup* last = nullptr;
        for (const FuzzGroup& g : groups)
            if (g.size > 0) last = &g;
        if (null_choice == 15 && reads(*last)) expected = 8;
        if (null_choice == 16 && reads(*last)) expected = 10;
        if (null_choice == 17 && writes(*last)) expected = 13;
    }

    // Buffers: each problem's own, as large as its arguments say (a few elements when invalid).
    std::vector<CBLAS_TRANSPOSE> ta, tb;
    std::vector<int> m, n, k, lda, ldb, ldc, size;
    std::vector<float> alpha, beta;
    std::vector<const float*> a_list, b_list;
    std::vector<float*> c_list;
    for (FuzzGroup& g : groups) {
        ta.push_back(CBLAS_TRANSPOSE(g.ta_code)), tb.push_back(CBLAS_TRANSPOSE(g.tb_code));
        m.push_back(int(g.m)), n.push_back(int(g.n)), k.push_back(int(g.k));
        lda.push_back(int(g.lda)), ldb.push_back(int(g.ldb)), ldc.push_back(int(g.ldc));
        size.push_back(int(g.size)), alpha.push_back(g.alpha), beta.push_back(g.beta);
        const int64_t a_size = expected ? 4 : storage(g.a_len, g.a_lines, g.lda);
        const int64_t b_size = expected ? 4 : storage(g.b_len, g.b_lines, g.ldb);
        const int64_t c_size = expected ? 4 : storage(g.c_len, g.c_lines, g.ldc);
        if (a_size > kMaxElements / 4 || b_size > kMaxElements / 4 || c_size > kMaxElements / 4) return;
        for (int64_t p = 0; p < g.size; ++p) {
            g.problems.emplace_back(in, a_size, b_size, c_size, g.beta);
            a_list.push_back(g.problems.back().a_arg(false));
            b_list.push_back(g.problems.back().b_arg(false));
            c_list.push_back(g.problems.back().c_arg(false));
        }
    }
    if (null_choice >= 15 && !c_list.empty()) {
        if (null_choice == 15) a_list.back() = nullptr;
        if (null_choice == 16) b_list.back() = nullptr;
        if (null_choice == 17) c_list.back() = nullptr;
    }
    auto arg = [&](auto& v, int choice) { return null_choice == choice || v.empty() ? nullptr : v.data(); };

    std::snprintf(g_call, sizeof g_call, "cblas group batch layout=%lld group_count=%lld null_choice=%d (groups: %zu)",
                  (long long)layout, (long long)group_count, null_choice, groups.size());
    g_report = Report{};
    cblas_sgemm_batch(CBLAS_LAYOUT(layout), arg(ta, 1), arg(tb, 2), arg(m, 3), arg(n, 4), arg(k, 5), arg(alpha, 6),
                      arg(a_list, 12), arg(lda, 7), arg(b_list, 13), arg(ldb, 8), arg(beta, 9), arg(c_list, 14),
                      arg(ldc, 10), int(group_count), arg(size, 11));
    auto untouched = [](const GemmOperands& ops) {
        return std::memcmp(ops.c.data(), ops.c0.data(), ops.c.size() * sizeof(float)) == 0;
    };
    if (expected != 0) {
        if (g_report.calls != 1) fail("reports for an invalid group batch", 1, g_report.calls);
        if (g_report.info != expected) fail("group batch parameter number", expected, g_report.info);
        for (const FuzzGroup& g : groups)
            for (const GemmOperands& ops : g.problems)
                if (!untouched(ops)) fail("invalid group batch wrote a C", 0, 1);
        return;
    }
    if (g_report.calls != 0) fail("reports for a valid group batch", 0, g_report.calls);
    for (const FuzzGroup& g : groups) {
        const Product pr{row, g.tra, g.trb, g.m, g.n, g.k, g.lda, g.ldb, g.ldc, g.alpha, g.beta};
        for (const GemmOperands& ops : g.problems) {
            if (ops.c.empty()) continue;
            if (writes(g)) {
                check_product(pr, ops.a.empty() ? nullptr : ops.a.data(), ops.b.empty() ? nullptr : ops.b.data(),
                              ops.c.data(), ops.c0.data());
                for (size_t i = 0; i < ops.c.size(); ++i)  // the leading dimension's padding
                    if (int64_t(i) % g.ldc >= g.c_len && std::memcmp(&ops.c[i], &ops.c0[i], sizeof(float)) != 0)
                        fail("group batch wrote C's padding at", int64_t(i), 0);
            } else if (!untouched(ops)) {
                fail("group batch wrote a C that changes nothing", 0, 1);
            }
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const bool once = [] {
        ridge_set_error_handler(native_handler, nullptr);
        return true;
    }();
    (void)once;
    Bytes in(data, size);
    switch (in.next() % 9) {
        case 0:
            fuzz_gemm(in, Door::native);
            break;
        case 1:
            fuzz_gemm(in, Door::cblas);
            break;
        case 2:
            fuzz_gemm(in, Door::fortran);
            break;
        case 3:
            fuzz_gemv(in, Door::native);
            break;
        case 4:
            fuzz_gemv(in, Door::cblas);
            break;
        case 5:
            fuzz_gemv(in, Door::fortran);
            break;
        case 6:
            fuzz_batch(in, true);
            break;
        case 7:
            fuzz_batch(in, false);
            break;
        default:
            fuzz_group_batch(in);
            break;
    }
    return 0;
}
