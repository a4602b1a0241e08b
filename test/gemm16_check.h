// What the 16-bit suites share, on top of gemm_check.h: the formats decoded and
// rounded by their definitions in double arithmetic (independent of the
// library's bit tricks in lib/kernels/convert.h), 16-bit matrices inside
// guarded buffers, buffers that end at an inaccessible page, and the double
// reference of a GEMM on converted 16-bit inputs.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gemm_check.h"

namespace ridge_test {

// The two 16-bit input types.
enum class Half { f16, bf16 };
inline const char* half_name(Half t) { return t == Half::f16 ? "fp16" : "bf16"; }

// ---- The formats by their definitions ----

// IEEE binary16: 1 sign, 5 exponent bits (bias 15), 10 fraction bits.
inline double f16_value(uint16_t h) {
    const int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    double v;
    if (exp == 0x1f) v = man != 0 ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else if (exp == 0) v = std::ldexp(double(man), -24);          // subnormal: man * 2^-24
    else v = std::ldexp(double(man + 1024), exp - 25);           // (1 + man/2^10) * 2^(exp-15)
    return (h & 0x8000) ? -v : v;
}

// bfloat16: 1 sign, 8 exponent bits (bias 127), 7 fraction bits.
inline double bf16_value(uint16_t h) {
    const int exp = (h >> 7) & 0xff, man = h & 0x7f;
    double v;
    if (exp == 0xff) v = man != 0 ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else if (exp == 0) v = std::ldexp(double(man), -133);         // subnormal: man * 2^-133
    else v = std::ldexp(double(man + 128), exp - 134);           // (1 + man/2^7) * 2^(exp-127)
    return (h & 0x8000) ? -v : v;
}

inline double half_value(Half t, uint16_t h) { return t == Half::f16 ? f16_value(h) : bf16_value(h); }

inline bool f16_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0; }
inline bool bf16_is_nan(uint16_t h) { return (h & 0x7f80) == 0x7f80 && (h & 0x7f) != 0; }
inline bool half_is_nan(Half t, uint16_t h) { return t == Half::f16 ? f16_is_nan(h) : bf16_is_nan(h); }

// Round-to-nearest-even of x to a binary format with `frac` fraction bits,
// smallest normal exponent `emin` and an overflow threshold of 2^(emax+1),
// by definition: the quantum at x's binade (never below the subnormal one),
// x scaled by it (exact: a power of two), rounded to an integer with ties to
// even (nearbyint under the default FE_TONEAREST), encoded. NaN gives a
// quiet NaN (callers judge NaN results by NaN-ness alone).
inline uint16_t round_to_binary16_like(double x, int frac, int emin, int emax, int exp_bias) {
    const int exp_bits_shift = frac;
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const uint16_t inf = uint16_t(((1u << (15 - frac)) - 1u) << exp_bits_shift);
    if (std::isnan(x)) return uint16_t(inf | (1u << (frac - 1)));
    const double a = std::fabs(x);
    if (std::isinf(a)) return uint16_t(sign | inf);
    const int e = a == 0.0 ? emin : std::max(std::ilogb(a), emin);
    const double quantum = std::ldexp(1.0, e - frac);
    const double v = std::nearbyint(a / quantum) * quantum;
    if (v >= std::ldexp(1.0, emax + 1)) return uint16_t(sign | inf);
    if (v < std::ldexp(1.0, emin))  // subnormal (or zero): the fraction counts quanta of 2^(emin-frac)
        return uint16_t(sign | uint16_t(v / std::ldexp(1.0, emin - frac)));
    const int ve = std::ilogb(v);  // may be e + 1 when rounding carried into the next binade
    const uint32_t man = uint32_t(v / std::ldexp(1.0, ve - frac)) - (1u << frac);
    return uint16_t(sign | uint16_t(uint32_t(ve + exp_bias) << exp_bits_shift) | man);
}
inline uint16_t round_to_f16(double x) { return round_to_binary16_like(x, 10, -14, 15, 15); }
inline uint16_t round_to_bf16(double x) { return round_to_binary16_like(x, 7, -126, 127, 127); }
inline uint16_t round_to_half(Half t, double x) { return t == Half::f16 ? round_to_f16(x) : round_to_bf16(x); }

inline std::string hex16(uint16_t h) {
    char s[8];
    std::snprintf(s, sizeof s, "0x%04x", unsigned(h));
    return s;
}
inline std::string hex32(float x) {
    uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    char s[12];
    std::snprintf(s, sizeof s, "0x%08x", unsigned(u));
    return s;
}
inline uint32_t bits_of(float x) {
    uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}
inline float float_of(uint32_t u) {
    float x;
    std::memcpy(&x, &u, sizeof x);
    return x;
}

// ---- 16-bit matrices in guarded buffers (Guarded's 16-bit twin) ----

// A pattern that is a NaN in both formats, written around and between
// matrices: were the library to read it into a product, a NaN would show; were
// it to write there, the bits would change.
constexpr uint16_t kHalfSentinel = 0xffd5;
// A NaN in both formats, for operands that must not be read.
constexpr uint16_t kHalfNaN = 0x7fc0;

class GuardedHalf {
public:
    GuardedHalf(Extent e, int64_t ld, int64_t guard = 37)
        : inner_(e.inner), outer_(e.outer), ld_(ld), guard_(guard),
          buf_(size_t(2 * guard + ld * e.outer), kHalfSentinel) {
        saved_ = buf_;
    }
    uint16_t* data() { return buf_.data() + guard_; }
    const uint16_t* data() const { return buf_.data() + guard_; }
    int64_t ld() const { return ld_; }
    uint16_t& at(int64_t in, int64_t out) { return data()[in + out * ld_]; }
    uint16_t at(int64_t in, int64_t out) const { return data()[in + out * ld_]; }

    // Every element from `gen`; padding and guards keep the sentinel.
    void fill(const std::function<uint16_t()>& gen) {
        for (int64_t o = 0; o < outer_; ++o)
            for (int64_t i = 0; i < inner_; ++i) at(i, o) = gen();
        snapshot();
    }
    void fill_value(uint16_t v) {
        fill([v] { return v; });
    }
    void snapshot() { saved_ = buf_; }

    ::testing::AssertionResult untouched_outside() const { return compare(false); }
    ::testing::AssertionResult untouched() const { return compare(true); }

private:
    ::testing::AssertionResult compare(bool whole) const {
        const int64_t idx =
            first_change_in_guarded(int64_t(buf_.size()), guard_, ld_, inner_, outer_, whole,
                                    [&](int64_t i) { return buf_[size_t(i)] != saved_[size_t(i)]; });
        if (idx < 0) return ::testing::AssertionSuccess();
        const int64_t rel = idx - guard_;
        std::ostringstream os;
        os << "16-bit element " << rel << " relative to the matrix start (ld=" << ld_ << ", inner=" << inner_
           << ", outer=" << outer_ << ") changed from " << hex16(saved_[size_t(idx)]) << " to "
           << hex16(buf_[size_t(idx)]);
        if (rel < 0 || rel >= ld_ * outer_) os << " [guard band]";
        else if (rel % ld_ >= inner_) os << " [leading-dimension padding]";
        return ::testing::AssertionFailure() << os.str();
    }
    int64_t inner_, outer_, ld_, guard_;
    std::vector<uint16_t> buf_, saved_;
};

// `count` elements of T that end exactly where an inaccessible page begins
// (Fenced's element-generic twin): a read of even one element past them faults.
template <typename T>
class FencedArray {
public:
    explicit FencedArray(size_t count) {
        const size_t page = size_t(sysconf(_SC_PAGESIZE));
        bytes_ = (count * sizeof(T) + page - 1) / page * page;
        if (bytes_ == 0) bytes_ = page;
        total_ = bytes_ + page;
        void* p = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) std::abort();
        base_ = static_cast<char*>(p);
        if (mprotect(base_ + bytes_, page, PROT_NONE) != 0) std::abort();
        data_ = reinterpret_cast<T*>(base_ + bytes_) - count;
    }
    ~FencedArray() { munmap(base_, total_); }
    FencedArray(const FencedArray&) = delete;
    FencedArray& operator=(const FencedArray&) = delete;
    T* data() { return data_; }

private:
    char* base_ = nullptr;
    size_t bytes_ = 0, total_ = 0;
    T* data_ = nullptr;
};

// ---- Random 16-bit values ----

// A value uniform in [lo, hi], rounded to the format (independently of the library).
inline uint16_t random_half(Half t, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
    std::uniform_real_distribution<float> dist(lo, hi);
    return round_to_half(t, double(dist(rng)));
}

// ---- The double reference on converted 16-bit inputs ----

// C = alpha op(A) op(B) + beta C in double, indexed like C's storage, with A and B
// 16-bit patterns of type t decoded exactly and c_old(offset) C's value before the
// call. beta == 0 ignores C and alpha == 0 (or k == 0) never reads A or B, as BLAS
// defines the operation. NaN and Inf propagate as IEEE arithmetic says.
inline std::vector<double> expected_c16(const Call& call, Half t, const uint16_t* a, const uint16_t* b,
                                        const std::function<double(int64_t)>& c_old) {
    const int64_t ldc = call.ldc();
    std::vector<double> out(size_t(ldc * std::max<int64_t>(call.c_extent().outer, 1)), 0.0);
    // op(A) row by row and op(B) column by column, decoded once (each is read n or m times).
    std::vector<double> opa, opb;
    if (call.alpha != 0.0f) {
        opa.resize(size_t(call.m * call.k));
        opb.resize(size_t(call.k * call.n));
        for (int64_t i = 0; i < call.m; ++i)
            for (int64_t p = 0; p < call.k; ++p)
                opa[size_t(i * call.k + p)] = half_value(
                    t, a[call.ta ? offset_of(call.row_major, call.lda(), p, i) : offset_of(call.row_major, call.lda(), i, p)]);
        for (int64_t j = 0; j < call.n; ++j)
            for (int64_t p = 0; p < call.k; ++p)
                opb[size_t(j * call.k + p)] = half_value(
                    t, b[call.tb ? offset_of(call.row_major, call.ldb(), j, p) : offset_of(call.row_major, call.ldb(), p, j)]);
    }
    for (int64_t i = 0; i < call.m; ++i)
        for (int64_t j = 0; j < call.n; ++j) {
            double sum = 0.0;
            if (call.alpha != 0.0f) {
                const double* ai = opa.data() + i * call.k;
                const double* bj = opb.data() + j * call.k;
                for (int64_t p = 0; p < call.k; ++p) sum += ai[p] * bj[p];
            }
            const int64_t at = offset_of(call.row_major, ldc, i, j);
            out[size_t(at)] = (call.alpha == 0.0f ? 0.0 : double(call.alpha) * sum) +
                              (call.beta == 0.0f ? 0.0 : double(call.beta) * c_old(at));
        }
    return out;
}

// One element of an fp32 C against its exact value: NaN wants NaN, Inf wants that
// Inf, a finite value wants |got - want| <= bound (or got == float(want), once
// rounded, when `exact`).
inline bool f32_element_ok(float got, double want, double bound, bool exact) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return double(got) == want;
    if (exact) return got == float(want);
    return std::fabs(double(got) - want) <= bound;
}

// One element of an fp16 C. The library computes y in fp32 with |y - want| <= bound
// and rounds y once to fp16 (nearest even), which is monotonic: the result must lie
// in [RNE(want - bound), RNE(want + bound)]. That is the sgemm bound plus at most
// half an fp16 ulp of the result, and when bound is 0 (`exact`) it is exactly RNE(want).
inline bool f16_element_ok(uint16_t got, double want, double bound, bool exact) {
    if (std::isnan(want)) return f16_is_nan(got);
    if (f16_is_nan(got)) return false;
    if (exact) bound = 0.0;
    const double lo = f16_value(round_to_f16(want - bound)), hi = f16_value(round_to_f16(want + bound));
    const double g = f16_value(got);
    if (g == 0.0 && want == 0.0 && bound == 0.0) return std::signbit(g) == std::signbit(want);
    return lo <= g && g <= hi;
}

// Every element of the call's m x n C (fp32 at c32, or fp16 at c16) checked as above.
inline ::testing::AssertionResult values_match16(const Call& call, const float* c32, const uint16_t* c16,
                                                 const std::vector<double>& expect, double bound, bool exact) {
    for (int64_t i = 0; i < call.m; ++i)
        for (int64_t j = 0; j < call.n; ++j) {
            const int64_t at = offset_of(call.row_major, call.ldc(), i, j);
            const double want = expect[size_t(at)];
            const bool ok = c16 != nullptr ? f16_element_ok(c16[at], want, bound, exact)
                                           : f32_element_ok(c32[at], want, bound, exact);
            if (!ok) {
                std::ostringstream os;
                os << call.describe() << ": C(" << i << "," << j << ") = ";
                if (c16 != nullptr)
                    os << f16_value(c16[at]) << " (" << hex16(c16[at]) << "), expected RNE16 of " << want
                       << (exact ? " exactly" : " +- ") << (exact ? 0.0 : bound) << " = ["
                       << f16_value(round_to_f16(want - (exact ? 0 : bound))) << ", "
                       << f16_value(round_to_f16(want + (exact ? 0 : bound))) << "]";
                else
                    os << c32[at] << " (" << hex32(c32[at]) << "), expected " << want
                       << (exact ? " exactly" : " within ") << (exact ? 0.0 : bound);
                return ::testing::AssertionFailure() << os.str();
            }
        }
    return ::testing::AssertionSuccess();
}

}  // namespace ridge_test
