// What the suites share: matrices inside guarded buffers (so a test can prove
// nothing outside a matrix was written), a layout-aware double reference, the
// comparison of a result against it, and the seed every random test starts from.
#pragma once

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "reference.h"

namespace ridge_test {

// The seed of every random test: RIDGE_TEST_SEED when set (to replay a failure),
// else a fixed value so that a run is reproducible by default.
inline uint32_t test_seed() {
    const char* s = std::getenv("RIDGE_TEST_SEED");
    return (s != nullptr && *s != '\0') ? uint32_t(std::strtoul(s, nullptr, 10)) : 20240611u;
}

// "seed=N (set RIDGE_TEST_SEED=N to replay)", for SCOPED_TRACE in every random test.
inline std::string seed_note(uint32_t seed) {
    return "seed=" + std::to_string(seed) + " (RIDGE_TEST_SEED=" + std::to_string(seed) + " replays)";
}

// A quiet NaN whose payload no arithmetic produces: written around and between
// matrices, any write there (even of another NaN) changes these exact bits.
inline float sentinel() {
    const uint32_t bits = 0x7fc0beefu;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// Compared as integers, not with memcmp: under ASan every memcmp is intercepted
// and checked, and the guard comparisons were a seventh of a sanitized driver
// test's time that way (Kernels.DriverSkinnyPathOverSeveralBlocksOfRows, perf).
inline bool same_bits(float x, float y) {
    uint32_t bx, by;
    std::memcpy(&bx, &x, sizeof bx);
    std::memcpy(&by, &y, sizeof by);
    return bx == by;
}

inline float quiet_nan() { return std::numeric_limits<float>::quiet_NaN(); }

// Storage of a matrix in either layout: `outer` lines (columns when column-major,
// rows when row-major) of `ld` floats, of which the first `inner` are the matrix.
struct Extent {
    int64_t inner, outer;
};
inline Extent extent(bool row_major, int64_t rows, int64_t cols) {
    return row_major ? Extent{cols, rows} : Extent{rows, cols};
}

// Offset of element (i, j) of a matrix in the given layout.
inline int64_t offset_of(bool row_major, int64_t ld, int64_t i, int64_t j) {
    return row_major ? i * ld + j : i + j * ld;
}

// The first index of a guarded buffer (`size` elements: `guard` before a
// matrix of `outer` lines `ld` apart, the first `inner` of each the matrix's,
// and the rest after) for which `changed(index)` holds, or -1; in order, over
// the whole buffer or over what lies outside the matrix only (the guard
// before, each line's padding, the guard after), so that the matrix's
// elements are not visited at all.
template <typename Changed>
int64_t first_change_in_guarded(int64_t size, int64_t guard, int64_t ld, int64_t inner, int64_t outer, bool whole,
                                Changed changed) {
    auto first_in = [&](int64_t from, int64_t to) {
        for (int64_t idx = from; idx < to; ++idx)
            if (changed(idx)) return idx;
        return int64_t{-1};
    };
    if (whole) return first_in(0, size);
    int64_t idx = first_in(0, guard);
    for (int64_t o = 0; idx < 0 && o < outer; ++o) idx = first_in(guard + o * ld + inner, guard + (o + 1) * ld);
    return idx >= 0 ? idx : first_in(guard + ld * outer, size);
}

// A matrix inside a buffer with `guard` floats before and after its storage.
// The default guard is odd so the matrix starts at an address that is only
// 4-byte aligned: the library must not assume more of a caller's pointer.
class Guarded {
public:
    Guarded(Extent e, int64_t ld, int64_t guard = 37)
        : inner_(e.inner), outer_(e.outer), ld_(ld), guard_(guard),
          buf_(size_t(2 * guard + ld * e.outer), sentinel()) {
        saved_ = buf_;
    }

    float* data() { return buf_.data() + guard_; }
    const float* data() const { return buf_.data() + guard_; }
    int64_t ld() const { return ld_; }
    int64_t inner() const { return inner_; }
    int64_t outer() const { return outer_; }
    float& at(int64_t in, int64_t out) { return data()[in + out * ld_]; }
    float at(int64_t in, int64_t out) const { return data()[in + out * ld_]; }
    float saved_at(int64_t in, int64_t out) const { return saved_[size_t(guard_ + in + out * ld_)]; }

    // The matrix uniform in [-1, 1]; leading-dimension padding and guards keep the sentinel.
    // Two draws of `rng` seed a SplitMix64 sequence (Steele, Lea and Flood,
    // OOPSLA 2014) for the elements, each its high 32 bits scaled by 2^-31:
    // mt19937 per element through uniform_real_distribution was a tenth of the
    // sanitized driver tests' time (perf, test_kernels).
    void fill_random(std::mt19937& rng) {
        const uint64_t high = rng();  // its own statement: the operands of | are unsequenced
        uint64_t state = (high << 32) | rng();
        for (int64_t o = 0; o < outer_; ++o)
            for (int64_t i = 0; i < inner_; ++i) {
                state += 0x9e3779b97f4a7c15u;
                uint64_t z = state;
                z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
                z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
                z ^= z >> 31;
                at(i, o) = float(int32_t(uint32_t(z >> 32))) * 0x1p-31f;
            }
        snapshot();
    }
    // Every element of the matrix set to `v` (e.g. NaN), padding and guards untouched.
    void fill(float v) {
        for (int64_t o = 0; o < outer_; ++o)
            for (int64_t i = 0; i < inner_; ++i) at(i, o) = v;
        snapshot();
    }
    // What later checks compare against.
    void snapshot() { saved_ = buf_; }

    // Nothing outside the inner x outer matrix (padding, guards) changed, bit for bit.
    ::testing::AssertionResult untouched_outside() const { return compare(false); }
    // Nothing at all changed, bit for bit.
    ::testing::AssertionResult untouched() const { return compare(true); }

private:
    ::testing::AssertionResult compare(bool whole) const {
        const int64_t idx =
            first_change_in_guarded(int64_t(buf_.size()), guard_, ld_, inner_, outer_, whole, [&](int64_t i) {
                return !same_bits(buf_[size_t(i)], saved_[size_t(i)]);
            });
        if (idx < 0) return ::testing::AssertionSuccess();
        const int64_t rel = idx - guard_;
        std::ostringstream os;
        os << "float " << rel << " relative to the matrix start (ld=" << ld_ << ", inner=" << inner_
           << ", outer=" << outer_ << ") changed from " << saved_[size_t(idx)] << " to " << buf_[size_t(idx)];
        if (rel < 0 || rel >= ld_ * outer_) os << " [guard band]";
        else if (rel % ld_ >= inner_) os << " [leading-dimension padding]";
        return ::testing::AssertionFailure() << os.str();
    }

    int64_t inner_, outer_, ld_, guard_;
    std::vector<float> buf_, saved_;
};

// `count` floats that end exactly where an inaccessible page begins: reading or
// writing even one float past them faults, and the test process dies (a failure
// ctest reports). Catches over-reads that a guard band cannot, since a read
// leaves no trace.
class Fenced {
public:
    explicit Fenced(size_t count) {
        const size_t page = size_t(sysconf(_SC_PAGESIZE));
        bytes_ = (count * sizeof(float) + page - 1) / page * page;
        total_ = bytes_ + page;
        void* p = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) std::abort();
        base_ = static_cast<char*>(p);
        if (mprotect(base_ + bytes_, page, PROT_NONE) != 0) std::abort();
        data_ = reinterpret_cast<float*>(base_ + bytes_) - count;
    }
    ~Fenced() { munmap(base_, total_); }
    Fenced(const Fenced&) = delete;
    Fenced& operator=(const Fenced&) = delete;
    float* data() { return data_; }

private:
    char* base_ = nullptr;
    size_t bytes_ = 0, total_ = 0;
    float* data_ = nullptr;
};

// Floats a matrix of `e` with leading dimension `ld` needs at the least: the last
// line need not be padded (BLAS never touches past its last element).
inline size_t min_storage(Extent e, int64_t ld) {
    return e.outer == 0 || e.inner == 0 ? 0 : size_t(ld * (e.outer - 1) + e.inner);
}

// One GEMM call as a caller writes it, in either layout.
struct Call {
    bool row_major = false;
    bool ta = false, tb = false;
    int64_t m = 0, n = 0, k = 0;
    float alpha = 1.0f, beta = 0.0f;
    int64_t lda_pad = 0, ldb_pad = 0, ldc_pad = 0;  // added to the smallest legal ld

    Extent a_extent() const { return extent(row_major, ta ? k : m, ta ? m : k); }
    Extent b_extent() const { return extent(row_major, tb ? n : k, tb ? k : n); }
    Extent c_extent() const { return extent(row_major, m, n); }
    int64_t lda() const { return std::max<int64_t>(1, a_extent().inner) + lda_pad; }
    int64_t ldb() const { return std::max<int64_t>(1, b_extent().inner) + ldb_pad; }
    int64_t ldc() const { return std::max<int64_t>(1, c_extent().inner) + ldc_pad; }

    std::string describe() const {
        std::ostringstream os;
        os << (row_major ? "row-major " : "col-major ") << (ta ? 'T' : 'N') << (tb ? 'T' : 'N')
           << " m=" << m << " n=" << n << " k=" << k << " alpha=" << alpha << " beta=" << beta
           << " lda=" << lda() << " ldb=" << ldb() << " ldc=" << ldc();
        return os.str();
    }
};

// The operands of one call, filled as the call's alpha and beta ask:
// beta == 0 puts NaN in every element of C (none may survive), alpha == 0 or
// k == 0 puts NaN in A and B (they must not be read).
struct Operands {
    Guarded a, b, c;
    Operands(const Call& call, std::mt19937& rng)
        : a(call.a_extent(), call.lda()), b(call.b_extent(), call.ldb()), c(call.c_extent(), call.ldc()) {
        const bool reads_ab = call.alpha != 0.0f && call.k > 0;
        if (reads_ab) {
            a.fill_random(rng);
            b.fill_random(rng);
        } else {
            a.fill(quiet_nan());
            b.fill(quiet_nan());
        }
        if (call.beta != 0.0f) c.fill_random(rng);
        else c.fill(quiet_nan());
    }
};

// sums[c] = the sum of x[p] * y[c][p], p = 0..k-1, in order, for `count` (1 to
// 4) arrays y[c]: four sums side by side, each one still added in order (one
// sum alone waits on its previous addition at every step). Not instrumented by
// the sanitizers: they are there for the library, and this loop over arrays
// the caller sized is most of what remains of the reference's time under them
// (the reference was a third of the edge sweeps' time there).
__attribute__((no_sanitize("address", "undefined"))) inline void dots_in_order(const double* x,
                                                                               const double* const* y, int count,
                                                                               int64_t k, double* sums) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    const double* y0 = y[0];
    const double* y1 = count > 1 ? y[1] : y0;
    const double* y2 = count > 2 ? y[2] : y0;
    const double* y3 = count > 3 ? y[3] : y0;
    for (int64_t p = 0; p < k; ++p) {
        const double xp = x[p];
        s0 += xp * y0[p], s1 += xp * y1[p], s2 += xp * y2[p], s3 += xp * y3[p];
    }
    const double all[4] = {s0, s1, s2, s3};
    for (int c = 0; c < count; ++c) sums[c] = all[c];
}

// op(X)'s first `lines` rows (or, with `columns`, its columns), each of its k
// elements copied into doubles, k apart: X in the call's layout, transposed or
// not. Not instrumented, for the reason dots_in_order is not.
__attribute__((no_sanitize("address", "undefined"))) inline void copy_op_lines(
    const float* x, int64_t ld, bool row_major, bool trans, bool columns, int64_t lines, int64_t k, double* out) {
    // op(X)(r, c) lies at r * row_step + c * column_step.
    const bool rows_ld_apart = trans != row_major;
    const int64_t row_step = rows_ld_apart ? ld : 1, column_step = rows_ld_apart ? 1 : ld;
    const int64_t line_step = columns ? column_step : row_step, element_step = columns ? row_step : column_step;
    for (int64_t l = 0; l < lines; ++l)
        for (int64_t p = 0; p < k; ++p) out[l * k + p] = double(x[l * line_step + p * element_step]);
}

// C = alpha op(A) op(B) + beta C in double, indexed like C's storage; beta == 0 ignores C,
// alpha == 0 or k == 0 never reads A or B (as BLAS defines the operation).
// op(A)'s rows and op(B)'s columns are first copied into contiguous doubles, k
// apart, so the m*n*k loop reads two arrays in order: the same products summed
// in the same order as element by element, at a fraction of the cost (the
// reference was most of the edge sweeps' time under the sanitizers).
inline std::vector<double> expected_c(const Call& call, const float* a, const float* b, const float* c) {
    const int64_t ldc = call.ldc(), m = call.m, n = call.n, k = call.k;
    std::vector<double> out(size_t(ldc * std::max<int64_t>(call.c_extent().outer, 1)), 0.0);
    const bool reads_ab = call.alpha != 0.0f && k > 0;
    std::vector<double> a_rows(reads_ab ? size_t(m * k) : 0), b_columns(reads_ab ? size_t(n * k) : 0);
    if (reads_ab) {
        copy_op_lines(a, call.lda(), call.row_major, call.ta, false, m, k, a_rows.data());
        copy_op_lines(b, call.ldb(), call.row_major, call.tb, true, n, k, b_columns.data());
    }
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j0 = 0; j0 < n; j0 += 4) {
            const int count = int(std::min<int64_t>(4, n - j0));
            double sums[4] = {0.0, 0.0, 0.0, 0.0};
            if (reads_ab) {
                const double* columns[4];
                for (int q = 0; q < count; ++q) columns[q] = b_columns.data() + (j0 + q) * k;
                dots_in_order(a_rows.data() + i * k, columns, count, k, sums);
            }
            for (int q = 0; q < count; ++q) {
                const int64_t at = offset_of(call.row_major, ldc, i, j0 + q);
                out[size_t(at)] = double(call.alpha) * sums[q] +
                                  (call.beta == 0.0f ? 0.0 : double(call.beta) * double(c[at]));
            }
        }
    return out;
}

// The m x n result at `c` (the call's layout and ldc) against `expect`: every element
// within `bound` (a NaN never is), or, when `exact`, equal to the expected value
// rounded once to float.
inline ::testing::AssertionResult values_match(const Call& call, const float* c,
                                               const std::vector<double>& expect, double bound,
                                               bool exact = false) {
    for (int64_t i = 0; i < call.m; ++i)
        for (int64_t j = 0; j < call.n; ++j) {
            const int64_t at = offset_of(call.row_major, call.ldc(), i, j);
            const float got = c[at];
            const double want = expect[size_t(at)];
            const bool ok = exact ? got == float(want) : std::fabs(double(got) - want) <= bound;
            if (!ok)
                return ::testing::AssertionFailure()
                       << call.describe() << ": C(" << i << "," << j << ") = " << got
                       << ", expected " << want << (exact ? " exactly" : " within ")
                       << (exact ? 0.0 : bound);
        }
    return ::testing::AssertionSuccess();
}

// values_match, and nothing outside the m x n matrix of C changed.
inline ::testing::AssertionResult matches(const Call& call, const Guarded& c,
                                          const std::vector<double>& expect, double bound,
                                          bool exact = false) {
    if (auto r = values_match(call, c.data(), expect, bound, exact); !r) return r;
    if (auto r = c.untouched_outside(); !r) return ::testing::AssertionFailure() << call.describe() << ": C " << r.message();
    return ::testing::AssertionSuccess();
}

// The error bound of reference.h for operands in [-1, 1].
inline double bound_for(const Call& call) {
    return gemm_error_bound(call.k, call.alpha, 1.0, 1.0, call.beta, 1.0);
}

}  // namespace ridge_test
