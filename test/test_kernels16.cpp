// The pieces under the 16-bit GEMM, tested directly and whatever RIDGE_ISA says:
//  - the conversions (cblas_sbstobf16, cblas_sbf16tos, cblas_shstohf16,
//    cblas_shf16tos, and the array converters cblas_hgemm uses for C) on all
//    65,536 patterns of each 16-bit type and on fp32 values chosen to hit every
//    rounding case, against the formats' definitions computed in double;
//  - the packers: the bf16 K-pair and AMX layouts element by element as
//    gemm_kernel.h and bf16_amx_pack_avx512.cpp define them, the converting
//    AVX-512 packers bitwise against the portable ones, with sources that end
//    at an inaccessible page (an over-read faults) and guarded destinations;
//  - the blocked driver with every registered fp16 and bf16 kernel this CPU runs,
//    under the model's blocking and under tiny (odd-KC) blockings, one and two
//    threads, and the subnormal behaviour of each kernel;
//  - every GEMV kernel (fp32 too), with and without prefetching, and the
//    dispatcher's choice to prefetch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "dispatch/cpu_features.h"
#include "dispatch/dispatch.h"
#include "dispatch/registry.h"
#include "gemm/gemm.h"
#include "gemm/pack.h"
#include "gemm16_check.h"
#include "kernels/convert.h"
#include "kernels/convert_kernels.h"
#include "kernels/gemm_kernel.h"
#include "ridge/cblas.h"
#include "tuning/model.h"
#include "tuning/topology.h"

using namespace ridge_test;

namespace {

bool has_avx512() { return ridge::cpu_supports(ridge::Isa::avx512); }

// ============================ Conversions ============================

std::vector<uint16_t> all_patterns() {
    std::vector<uint16_t> v(65536);
    for (uint32_t i = 0; i < 65536; ++i) v[i] = uint16_t(i);
    return v;
}

// A widened 16-bit value against the format's definition: the exact value, bit for
// bit (so -0 stays -0); a NaN stays a NaN of the same sign whose payload is the
// 16-bit one shifted into place (the quiet bit may be set: a signalling NaN may be
// quieted), nothing else in the low fp32 bits.
::testing::AssertionResult widened_ok(Half t, uint16_t h, float got) {
    const bool nan = half_is_nan(t, h);
    const int shift = t == Half::f16 ? 13 : 16;
    const uint32_t payload_mask = t == Half::f16 ? 0x3ffu : 0x7fu, quiet = t == Half::f16 ? 0x200u : 0x40u;
    if (!nan) {
        const double want = half_value(t, h);
        if (bits_of(got) == bits_of(float(want))) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << half_name(t) << " " << hex16(h) << " widened to " << got << " ("
                                             << hex32(got) << "), expected " << want;
    }
    const uint32_t u = bits_of(got);
    const bool ok = std::isnan(got) && (u >> 31) == uint32_t(h >> 15) && (u & ((1u << shift) - 1u)) == 0 &&
                    (((u >> shift) & payload_mask) | quiet) == ((h & payload_mask) | quiet);
    if (ok) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << half_name(t) << " NaN " << hex16(h) << " widened to " << hex32(got);
}

// fp16 to fp32 for every pattern, through every widening routine there is.
TEST(Convert16, F16ToF32EveryPatternExact) {
    const std::vector<uint16_t> in = all_patterns();
    std::vector<float> out(65536);
    cblas_shf16tos(65536, in.data(), 1, out.data(), 1);
    for (uint32_t i = 0; i < 65536; ++i) ASSERT_TRUE(widened_ok(Half::f16, in[i], out[i])) << "cblas_shf16tos";
    std::fill(out.begin(), out.end(), 0.0f);
    ridge::convert_f16_to_f32__ref(65536, in.data(), out.data());
    for (uint32_t i = 0; i < 65536; ++i) ASSERT_TRUE(widened_ok(Half::f16, in[i], out[i])) << "convert_f16_to_f32__ref";
    if (has_avx512()) {
        std::fill(out.begin(), out.end(), 0.0f);
        ridge::convert_f16_to_f32__avx512(65536, in.data(), out.data());
        for (uint32_t i = 0; i < 65536; ++i)
            ASSERT_TRUE(widened_ok(Half::f16, in[i], out[i])) << "convert_f16_to_f32__avx512";
    }
}

// bf16 to fp32 for every pattern: bf16 is the upper half of an fp32, so the result
// is the pattern shifted up, exactly (subnormals and NaN payloads included).
TEST(Convert16, Bf16ToF32EveryPatternExact) {
    const std::vector<uint16_t> in = all_patterns();
    std::vector<float> out(65536);
    cblas_sbf16tos(65536, in.data(), 1, out.data(), 1);
    for (uint32_t i = 0; i < 65536; ++i) {
        ASSERT_TRUE(widened_ok(Half::bf16, in[i], out[i])) << "cblas_sbf16tos";
        ASSERT_EQ(uint32_t(in[i]) << 16, bits_of(out[i])) << hex16(in[i]);
    }
}

// f16 -> f32 -> f16 and bf16 -> f32 -> bf16 give every pattern back, except that a
// NaN comes back as a NaN of the same sign and payload with the quiet bit set.
TEST(Convert16, RoundTripEveryPattern) {
    const std::vector<uint16_t> in = all_patterns();
    std::vector<float> wide(65536);
    std::vector<uint16_t> back(65536);
    struct Way {
        Half t;
        const char* name;
        void (*widen)(int, const uint16_t*, int, float*, int);
        void (*narrow)(int, const float*, int, uint16_t*, int);
    };
    const Way ways[] = {{Half::f16, "cblas_shf16tos/cblas_shstohf16", cblas_shf16tos, cblas_shstohf16},
                        {Half::bf16, "cblas_sbf16tos/cblas_sbstobf16", cblas_sbf16tos, cblas_sbstobf16}};
    for (const Way& w : ways) {
        w.widen(65536, in.data(), 1, wide.data(), 1);
        std::fill(back.begin(), back.end(), uint16_t(0x1234));
        w.narrow(65536, wide.data(), 1, back.data(), 1);
        const uint16_t quiet = w.t == Half::f16 ? 0x0200 : 0x0040;
        for (uint32_t i = 0; i < 65536; ++i) {
            const uint16_t want = half_is_nan(w.t, in[i]) ? uint16_t(in[i] | quiet) : in[i];
            ASSERT_EQ(hex16(want), hex16(back[i])) << w.name << " from " << hex16(in[i]);
        }
    }
    // The array converters cblas_hgemm widens and narrows C with.
    std::vector<ridge::ConvertF32ToF16> narrows = {ridge::convert_f32_to_f16__ref};
    std::vector<ridge::ConvertF16ToF32> widens = {ridge::convert_f16_to_f32__ref};
    if (has_avx512()) narrows.push_back(ridge::convert_f32_to_f16__avx512), widens.push_back(ridge::convert_f16_to_f32__avx512);
    for (size_t v = 0; v < narrows.size(); ++v) {
        widens[v](65536, in.data(), wide.data());
        std::fill(back.begin(), back.end(), uint16_t(0x1234));
        narrows[v](65536, wide.data(), back.data());
        for (uint32_t i = 0; i < 65536; ++i) {
            if (f16_is_nan(in[i])) {
                ASSERT_TRUE(f16_is_nan(back[i]) && (back[i] & 0x8000) == (in[i] & 0x8000))
                    << (v ? "avx512" : "ref") << " array converters: NaN " << hex16(in[i]) << " came back " << hex16(back[i]);
            } else {
                ASSERT_EQ(hex16(in[i]), hex16(back[i])) << (v ? "avx512" : "ref") << " array converters";
            }
        }
    }
}

// fp32 values that hit every rounding case of a 16-bit format with `frac` fraction
// bits, plus random ones (seeded): every representable value's neighbourhood
// (midpoints between neighbours, the floats either side of them), the subnormal
// and overflow boundaries, all fp32 classes (zeros, subnormals, Inf, NaN), and
// random bit patterns over all exponents.
std::vector<float> rounding_inputs(Half t, std::mt19937& rng) {
    std::vector<float> v;
    auto add_around = [&](float x) {
        v.push_back(x);
        v.push_back(std::nextafter(x, INFINITY));
        v.push_back(std::nextafter(x, -INFINITY));
    };
    // Midpoints between adjacent finite 16-bit values (ties: exact in fp32), and the values themselves.
    for (uint32_t h = 0; h < 0x7fff; ++h) {
        const uint16_t a = uint16_t(h), b = uint16_t(h + 1);
        if (half_is_nan(t, a) || half_is_nan(t, b) || std::isinf(half_value(t, b))) continue;  // overflow: below
        if (h % 7 != 0 && h > 0x0420 && h < 0x7b00 && t == Half::f16) continue;  // thin out the middle binades
        if (h % 97 != 0 && h > 0x0100 && h < 0x7f00 && t == Half::bf16) continue;
        const double va = half_value(t, a), vb = half_value(t, b);
        for (double s : {1.0, -1.0}) {
            add_around(float(s * va));
            add_around(float(s * (va + vb) / 2));
        }
    }
    // Boundaries.
    const double max16 = t == Half::f16 ? 65504.0 : std::ldexp(255.0, 120);
    const double next_binade = t == Half::f16 ? 65536.0 : std::ldexp(1.0, 128);
    const double min_normal = t == Half::f16 ? std::ldexp(1.0, -14) : std::ldexp(1.0, -126);
    const double min_sub = t == Half::f16 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -133);
    for (double s : {1.0, -1.0}) {
        for (double x : {max16, (max16 + next_binade) / 2, min_normal, min_normal - min_sub / 2, min_sub, min_sub / 2,
                         1.5 * min_sub, 0.75 * min_sub, 0.25 * min_sub, 1.0, 1.0 + std::ldexp(1.0, -11),
                         1.0 + 3 * std::ldexp(1.0, -11), 2049.0, 2051.0, 65519.0, 65520.0, 65536.0, 1e10})
            if (x <= FLT_MAX) add_around(float(s * x));
        for (float x : {0.0f, FLT_MIN, FLT_MAX, FLT_TRUE_MIN, std::ldexp(1.0f, -130), INFINITY})
            add_around(float(s) * x);
    }
    for (uint32_t u : {0x7fc00000u, 0x7f800001u, 0xffc00001u, 0x7fbfffffu, 0xff800100u, 0x7fffe000u, 0x7fff0000u})
        v.push_back(float_of(u));
    // Random: all bit patterns, and values spread over the format's exponent range.
    std::uniform_int_distribution<uint32_t> bits;
    for (int i = 0; i < 100000; ++i) v.push_back(float_of(bits(rng)));
    std::uniform_real_distribution<float> mant(1.0f, 2.0f);
    std::uniform_int_distribution<int> ex(t == Half::f16 ? -28 : -136, t == Half::f16 ? 17 : 128);
    for (int i = 0; i < 100000; ++i) v.push_back((i & 1 ? -1.0f : 1.0f) * std::ldexp(mant(rng), ex(rng)));
    return v;
}

// One narrowed value against round-to-nearest-even by definition: the same bits
// for non-NaN inputs; a NaN of the same sign for NaN inputs.
::testing::AssertionResult narrowed_ok(Half t, float x, uint16_t got) {
    if (std::isnan(x)) {
        if (half_is_nan(t, got) && (got >> 15) == (bits_of(x) >> 31)) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "NaN " << hex32(x) << " narrowed to " << hex16(got);
    }
    const uint16_t want = round_to_half(t, double(x));
    if (want == got) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << half_name(t) << ": " << x << " (" << hex32(x) << ") narrowed to " << hex16(got)
                                         << " = " << half_value(t, got) << ", expected " << hex16(want) << " = "
                                         << half_value(t, want);
}

// fp32 to fp16: round to nearest even, overflow to Inf from 65520 (the tie
// above 65504) on, gradual underflow through the subnormals, 2^-25 a tie to 0.
// Through cblas_shstohf16 and both array converters (cblas_hgemm's C).
TEST(Convert16, F32ToF16RoundsToNearestEven) {
    const uint32_t seed = test_seed() + 200;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const std::vector<float> in = rounding_inputs(Half::f16, rng);
    const int n = int(in.size());
    std::vector<uint16_t> out(in.size());
    // Spot checks of the definition itself, so the reference cannot drift.
    ASSERT_EQ(0x7c00, round_to_f16(65520.0));
    ASSERT_EQ(0x7bff, round_to_f16(65519.99));
    ASSERT_EQ(0x0000, round_to_f16(std::ldexp(1.0, -25)));
    ASSERT_EQ(0x0001, round_to_f16(std::nextafter(std::ldexp(1.0, -25), 1.0)));
    ASSERT_EQ(0x0400, round_to_f16(std::ldexp(1.0, -14) - std::ldexp(1.0, -25)));
    ASSERT_EQ(0x3c00, round_to_f16(1.0 + std::ldexp(1.0, -11)));
    ASSERT_EQ(0x3c02, round_to_f16(1.0 + 3 * std::ldexp(1.0, -11)));
    cblas_shstohf16(n, in.data(), 1, out.data(), 1);
    for (int i = 0; i < n; ++i) ASSERT_TRUE(narrowed_ok(Half::f16, in[size_t(i)], out[size_t(i)])) << "cblas_shstohf16";
    ridge::convert_f32_to_f16__ref(n, in.data(), out.data());
    for (int i = 0; i < n; ++i) ASSERT_TRUE(narrowed_ok(Half::f16, in[size_t(i)], out[size_t(i)])) << "convert_f32_to_f16__ref";
    if (has_avx512()) {
        std::fill(out.begin(), out.end(), uint16_t(0x1234));
        ridge::convert_f32_to_f16__avx512(n, in.data(), out.data());
        for (int i = 0; i < n; ++i)
            ASSERT_TRUE(narrowed_ok(Half::f16, in[size_t(i)], out[size_t(i)])) << "convert_f32_to_f16__avx512";
    }
}

// fp32 to bf16: round to nearest even on the 16 dropped bits, FLT_MAX and
// everything from the tie above the largest bf16 on overflowing to Inf, fp32
// subnormals rounding to bf16 subnormals (or to zero, ties to even).
TEST(Convert16, F32ToBf16RoundsToNearestEven) {
    const uint32_t seed = test_seed() + 201;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const std::vector<float> in = rounding_inputs(Half::bf16, rng);
    const int n = int(in.size());
    ASSERT_EQ(0x7f80, round_to_bf16(double(FLT_MAX)));
    ASSERT_EQ(0x0000, round_to_bf16(std::ldexp(1.0, -134)));  // half the smallest subnormal: tie to 0
    ASSERT_EQ(0x0002, round_to_bf16(3 * std::ldexp(1.0, -134)));
    ASSERT_EQ(0x3f80, round_to_bf16(1.0 + std::ldexp(1.0, -8)));
    ASSERT_EQ(0x3f82, round_to_bf16(1.0 + 3 * std::ldexp(1.0, -8)));
    std::vector<uint16_t> out(in.size());
    cblas_sbstobf16(n, in.data(), 1, out.data(), 1);
    for (int i = 0; i < n; ++i) ASSERT_TRUE(narrowed_ok(Half::bf16, in[size_t(i)], out[size_t(i)])) << "cblas_sbstobf16";
}

// BLAS increments on all four conversions: element i of a vector with inc > 0 is
// x[i*inc]; with inc < 0 the vector runs from the far end, x[(n-1-i)*|inc|].
// Only those elements are written; n <= 0 writes nothing.
TEST(Convert16, IncrementsIncludingNegative) {
    const uint32_t seed = test_seed() + 202;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const int incs_in[] = {1, 2, 3, -1, -2, -3};
    const int incs_out[] = {1, 2, -1, -3};
    constexpr int kGuard = 5;
    auto pos = [](int i, int n, int inc) { return inc > 0 ? i * inc : (n - 1 - i) * -inc; };
    for (int n : {7, 1, 0, -2})
        for (int ii : incs_in)
            for (int io : incs_out) {
                SCOPED_TRACE("n=" + std::to_string(n) + " incin=" + std::to_string(ii) + " incout=" + std::to_string(io));
                const int len_in = std::max(n, 1) * std::abs(ii), len_out = std::max(n, 1) * std::abs(io);
                // Narrowing (float in, 16-bit out).
                std::vector<float> fin(static_cast<size_t>(len_in));
                std::uniform_real_distribution<float> d(-100.0f, 100.0f);
                for (float& x : fin) x = d(rng);
                for (int way = 0; way < 2; ++way) {
                    std::vector<uint16_t> hout(size_t(len_out + 2 * kGuard), kHalfSentinel);
                    if (way == 0) cblas_shstohf16(n, fin.data(), ii, hout.data() + kGuard, io);
                    else cblas_sbstobf16(n, fin.data(), ii, hout.data() + kGuard, io);
                    const Half t = way == 0 ? Half::f16 : Half::bf16;
                    std::vector<uint16_t> want(hout.size(), kHalfSentinel);
                    for (int i = 0; i < n; ++i)
                        want[size_t(kGuard + pos(i, n, io))] = round_to_half(t, double(fin[size_t(pos(i, n, ii))]));
                    for (size_t q = 0; q < want.size(); ++q)
                        ASSERT_EQ(hex16(want[q]), hex16(hout[q])) << (way ? "cblas_sbstobf16" : "cblas_shstohf16") << " at " << int(q) - kGuard;
                }
                // Widening (16-bit in, float out).
                for (int way = 0; way < 2; ++way) {
                    const Half t = way == 0 ? Half::f16 : Half::bf16;
                    std::vector<uint16_t> hin(static_cast<size_t>(len_in));
                    for (uint16_t& h : hin) h = random_half(t, rng, -100.0f, 100.0f);
                    std::vector<float> fout(size_t(len_out + 2 * kGuard), sentinel());
                    if (way == 0) cblas_shf16tos(n, hin.data(), ii, fout.data() + kGuard, io);
                    else cblas_sbf16tos(n, hin.data(), ii, fout.data() + kGuard, io);
                    std::vector<float> want(fout.size(), sentinel());
                    for (int i = 0; i < n; ++i)
                        want[size_t(kGuard + pos(i, n, io))] = float(half_value(t, hin[size_t(pos(i, n, ii))]));
                    for (size_t q = 0; q < want.size(); ++q)
                        ASSERT_EQ(hex32(want[q]), hex32(fout[q])) << (way ? "cblas_sbf16tos" : "cblas_shf16tos") << " at " << int(q) - kGuard;
                }
            }
}

// ============================ Packers ============================

// A 64-byte aligned destination with 256 bytes of sentinel before it and plenty
// after, so writes outside the documented extent show.
class GuardedDst {
public:
    explicit GuardedDst(size_t bytes) : size_(bytes + 2 * kGuardBytes) {
        base_ = static_cast<unsigned char*>(std::aligned_alloc(64, (size_ + 63) / 64 * 64));
        std::memset(base_, 0xa5, size_);
    }
    ~GuardedDst() { std::free(base_); }
    GuardedDst(const GuardedDst&) = delete;
    GuardedDst& operator=(const GuardedDst&) = delete;
    void* data() { return base_ + kGuardBytes; }
    // Bytes [0, written) may change; nothing before 0 or from `written` on did.
    ::testing::AssertionResult untouched_outside(size_t written) const {
        for (size_t i = 0; i < size_; ++i) {
            if (i >= kGuardBytes && i < kGuardBytes + written) continue;
            if (base_[i] != 0xa5)
                return ::testing::AssertionFailure()
                       << "byte " << (long(i) - long(kGuardBytes)) << " of the destination written (extent " << written << ")";
        }
        return ::testing::AssertionSuccess();
    }

private:
    static constexpr size_t kGuardBytes = 256;
    size_t size_;
    unsigned char* base_;
};

// The source of one panel of `rows` x kc 16-bit elements, in the smallest storage
// the PackPanel contract allows, ending at an inaccessible page.
struct PanelSource {
    bool rows_contiguous;
    int64_t rows, kc, ld;
    FencedArray<uint16_t> mem;
    static size_t storage(bool rc, int64_t rows, int64_t kc, int64_t ld) {
        if (rows == 0 || kc == 0) return 0;
        return size_t(rc ? (kc - 1) * ld + rows : (rows - 1) * ld + kc);
    }
    PanelSource(bool rc, int64_t r, int64_t k, int64_t l, std::mt19937& rng,
                const std::function<uint16_t(std::mt19937&)>& gen)
        : rows_contiguous(rc), rows(r), kc(k), ld(l), mem(storage(rc, r, k, l)) {
        const size_t n = storage(rc, r, k, l);
        for (size_t q = 0; q < n; ++q) mem.data()[q] = gen(rng);
    }
    uint16_t at(int64_t i, int64_t p) {  // X(i, p)
        return mem.data()[rows_contiguous ? i + p * ld : p + i * ld];
    }
};

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

struct PackShape {
    bool rows_contiguous;
    int64_t width, rows, kc, ld_pad;
    std::string describe() const {
        return std::string(rows_contiguous ? "rows contiguous" : "rows strided") + " width=" + std::to_string(width) +
               " rows=" + std::to_string(rows) + " kc=" + std::to_string(kc) + " ld_pad=" + std::to_string(ld_pad);
    }
};

// Every combination worth packing: widths of every kernel (and others the
// contract allows), rows from none to full, kc around the vector widths (16),
// the pair (2) and AMX chunk (32) multiples, with and without ld padding.
std::vector<PackShape> pack_shapes(const std::vector<int64_t>& widths) {
    std::vector<PackShape> shapes;
    for (bool rc : {true, false})
        for (int64_t w : widths)
            for (int64_t rows : {int64_t(0), int64_t(1), w / 2 + 1, w - 1, w})
                for (int64_t kc : {1, 2, 3, 4, 15, 16, 17, 31, 32, 33, 34, 47, 63, 64, 65, 97})
                    for (int64_t pad : {0, 3}) {
                        if (rows < 0 || rows > w) continue;
                        shapes.push_back({rc, w, rows, kc, pad});
                    }
    return shapes;
}

uint16_t any_bits(std::mt19937& rng) { return uint16_t(rng()); }

// Packers of 16-bit elements into 16-bit elements: the K-pair packers (for
// vdpbf16ps, and AMX's op(A) with whole 32-step chunks) and AMX's K-chunk packer.
// `index(p, i, width)` is the element of X(i, p) in dst, `depth(kc)` the k steps the
// packer writes (the rest of the panel's allocation is untouched).
struct HalfPacker {
    const char* name;
    ridge::PackPanel fn;
    int64_t (*index)(int64_t p, int64_t i, int64_t width);
    int64_t (*depth)(int64_t kc);
    std::vector<int64_t> widths;
};
int64_t pair_index(int64_t p, int64_t i, int64_t width) { return (p / 2) * 2 * width + 2 * i + p % 2; }
int64_t chunk_index(int64_t p, int64_t i, int64_t width) { return (p / 32) * 32 * width + i * 32 + p % 32; }
int64_t depth_pairs(int64_t kc) { return round_up(kc, 2); }
int64_t depth_chunks(int64_t kc) { return round_up(kc, 32); }

// Each packer's layout, element by element: X(i, p) bit for bit for i < rows and
// p < kc; zero for rows <= i < width and for the padding k steps up to the
// packer's depth (the missing half of an odd kc's last pair; the rest of the last
// 32-step chunk for AMX); nothing written beyond width * depth elements.
TEST(Pack16, HalfPackersExactLayout) {
    if (!has_avx512()) GTEST_SKIP() << "the 16-bit packers need AVX-512";
    const uint32_t seed = test_seed() + 210;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const HalfPacker packers[] = {
        {"pack_panel_bf16_pairs__avx512", ridge::pack_panel_bf16_pairs__avx512, pair_index, depth_pairs, {32, 12, 16, 8, 20}},
        {"pack_panel_bf16_pairs32__avx512", ridge::pack_panel_bf16_pairs32__avx512, pair_index, depth_chunks, {32, 12, 16}},
        {"pack_panel_bf16_kchunks__avx512", ridge::pack_panel_bf16_kchunks__avx512, chunk_index, depth_chunks, {32, 12, 16}},
    };
    for (const HalfPacker& pk : packers)
        for (const PackShape& s : pack_shapes(pk.widths)) {
            SCOPED_TRACE(std::string(pk.name) + " " + s.describe());
            const int64_t ld = (s.rows_contiguous ? s.rows : s.kc) + s.ld_pad;
            PanelSource src(s.rows_contiguous, s.rows, s.kc, std::max<int64_t>(ld, 1), rng, any_bits);
            const int64_t depth = pk.depth(s.kc);
            const size_t extent = size_t(s.width * depth);
            // Room for the panel as the driver lays it out (depth rounded to 32), and more.
            GuardedDst dst(size_t(s.width * round_up(s.kc, 32) * 2 + 512));
            pk.fn(src.mem.data(), src.ld, s.rows_contiguous, s.rows, s.kc, s.width, dst.data());
            ASSERT_TRUE(dst.untouched_outside(extent * 2));
            const auto* d = static_cast<const uint16_t*>(dst.data());
            std::vector<bool> seen(extent, false);
            for (int64_t p = 0; p < depth; ++p)
                for (int64_t i = 0; i < s.width; ++i) {
                    const int64_t at = pk.index(p, i, s.width);
                    ASSERT_LT(at, int64_t(extent));
                    seen[size_t(at)] = true;
                    const uint16_t want = (i < s.rows && p < s.kc) ? src.at(i, p) : uint16_t(0);
                    ASSERT_EQ(hex16(want), hex16(d[at])) << "X(" << i << "," << p << ") at element " << at;
                }
            // The layout covers its extent exactly once (it is a permutation).
            for (size_t q = 0; q < extent; ++q) ASSERT_TRUE(seen[q]) << "element " << q << " of the extent is no X(i, p)";
        }
}

// The AVX-512 converting packers against the portable ones: the same fp32 panel,
// bit for bit, for every layout, width, rows and kc, from random bit patterns
// (normals, subnormals, Inf, NaN alike), except that a NaN may differ in its
// quiet bit (vcvtph2ps quiets signalling NaNs); and both against the format's
// definition (dst[p*width + i] = X(i, p) widened exactly, zero past rows;
// nothing written past width * kc floats).
TEST(Pack16, ConvertingPackersMatchPortableOnes) {
    if (!has_avx512()) GTEST_SKIP() << "the AVX-512 packers need AVX-512";
    const uint32_t seed = test_seed() + 211;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    struct Pair {
        Half t;
        const char* name;
        ridge::PackPanel avx512, ref;
    };
    const Pair pairs[] = {
        {Half::f16, "f16_to_f32", ridge::pack_panel_f16_to_f32__avx512, ridge::pack_panel_f16_to_f32__ref},
        {Half::bf16, "bf16_to_f32", ridge::pack_panel_bf16_to_f32__avx512, ridge::pack_panel_bf16_to_f32__ref},
    };
    for (const Pair& pr : pairs)
        for (const PackShape& s : pack_shapes({32, 12, 16, 6, 4, 8})) {
            SCOPED_TRACE(std::string("pack_panel_") + pr.name + " " + s.describe());
            const int64_t ld = std::max<int64_t>((s.rows_contiguous ? s.rows : s.kc) + s.ld_pad, 1);
            PanelSource src(s.rows_contiguous, s.rows, s.kc, ld, rng, any_bits);
            const size_t extent = size_t(s.width * s.kc) * sizeof(float);
            GuardedDst d_avx(extent + 512), d_ref(extent + 512);
            pr.avx512(src.mem.data(), ld, s.rows_contiguous, s.rows, s.kc, s.width, d_avx.data());
            pr.ref(src.mem.data(), ld, s.rows_contiguous, s.rows, s.kc, s.width, d_ref.data());
            ASSERT_TRUE(d_avx.untouched_outside(extent)) << "avx512";
            ASSERT_TRUE(d_ref.untouched_outside(extent)) << "ref";
            const auto* fa = static_cast<const float*>(d_avx.data());
            const auto* fr = static_cast<const float*>(d_ref.data());
            for (int64_t p = 0; p < s.kc; ++p)
                for (int64_t i = 0; i < s.width; ++i) {
                    const int64_t at = p * s.width + i;
                    if (i >= s.rows) {
                        ASSERT_EQ(0u, bits_of(fa[at])) << "avx512: row " << i << " beyond rows not +0";
                        ASSERT_EQ(0u, bits_of(fr[at])) << "ref: row " << i << " beyond rows not +0";
                        continue;
                    }
                    const uint16_t x = src.at(i, p);
                    ASSERT_TRUE(widened_ok(pr.t, x, fa[at])) << "avx512 at X(" << i << "," << p << ")";
                    ASSERT_TRUE(widened_ok(pr.t, x, fr[at])) << "ref at X(" << i << "," << p << ")";
                    if (!half_is_nan(pr.t, x))
                        ASSERT_EQ(hex32(fr[at]), hex32(fa[at])) << "X(" << i << "," << p << ") = " << hex16(x);
                }
        }
}

// ============================ The driver, every 16-bit kernel ============================

// The registered kernels for 16-bit inputs that this CPU runs.
std::vector<const ridge::GemmKernel*> kernels16() {
    std::vector<const ridge::GemmKernel*> out;
    for (const ridge::GemmKernel& k : ridge::gemm_kernels())
        if (k.input != ridge::Dtype::f32 && ridge::cpu_supports(k.isa)) out.push_back(&k);
    return out;
}
Half half_of(const ridge::GemmKernel& k) { return k.input == ridge::Dtype::f16 ? Half::f16 : Half::bf16; }
// The kernels on bf16 dot-product instructions (vdpbf16ps, tdpbf16ps).
bool bf16_instructions(const ridge::GemmKernel& k) {
    return k.input == ridge::Dtype::bf16 && (k.isa == ridge::Isa::avx512bf16 || k.isa == ridge::Isa::amx);
}
std::string kernel_note(const ridge::GemmKernel& k, const ridge::BlockingParams& bp) {
    return std::string(k.name) + " [" + k.pack_name + "] " + ridge::dtype_name(k.input) + " MR=" + std::to_string(k.MR) +
           " NR=" + std::to_string(k.NR) + " k_group=" + std::to_string(k.k_group) + " KC=" + std::to_string(bp.KC) +
           " MC=" + std::to_string(bp.MC) + " NC=" + std::to_string(bp.NC);
}
// The KC the driver blocks k by under `bp`: a whole number of k groups, at least one.
int64_t effective_kc(const ridge::GemmKernel& k, const ridge::BlockingParams& bp) {
    return std::max<int64_t>(k.k_group, bp.KC / k.k_group * k.k_group);
}

ridge::GemmPlan model_plan(const ridge::GemmKernel& k) {
    ridge::GemmPlan plan;
    plan.kernel = &k;
    plan.blocking = ridge::blocking_from_model(ridge::machine_topology(), k.MR, k.NR, k.packed_bytes, k.min_KC);
    plan.threads = 1;
    return plan;
}
// Blocks of a few tiles, so every loop around the kernel runs several times.
ridge::GemmPlan tiny_plan(const ridge::GemmKernel& k, int64_t kc) {
    ridge::GemmPlan plan;
    plan.kernel = &k;
    plan.blocking = {k.MR, k.NR, kc, 2 * k.MR, 2 * k.NR};
    plan.threads = 1;
    return plan;
}

// One column-major problem through ridge::gemm with `plan`, 16-bit A and B of the
// kernel's input type (random in [-1, 1]; NaN when they must not be read), fp32 C
// (NaN when beta == 0); checked against the double reference with sgemm's bound,
// C's padding and guards, and A and B unwritten. `c_out`, when given, gets C;
// with `check_values` false the values are left to the caller (who compares them
// bitwise with a run that was checked).
::testing::AssertionResult run_driver16(const Call& call, const ridge::GemmPlan& plan, std::mt19937& rng,
                                        std::vector<float>* c_out = nullptr, bool check_values = true) {
    const Half t = half_of(*plan.kernel);
    GuardedHalf a(call.a_extent(), call.lda()), b(call.b_extent(), call.ldb());
    Guarded c(call.c_extent(), call.ldc());
    a.fill([&] { return random_half(t, rng); });
    b.fill([&] { return random_half(t, rng); });
    c.fill_random(rng);
    if (call.alpha == 0.0f || call.k == 0) a.fill_value(kHalfNaN), b.fill_value(kHalfNaN);
    if (call.beta == 0.0f) c.fill(quiet_nan());
    const auto expect = check_values ? expected_c16(call, t, a.data(), b.data(), [&](int64_t at) { return double(c.data()[at]); })
                                     : std::vector<double>();
    ridge::GemmArgs g;
    g.input = plan.kernel->input;
    g.trans_a = call.ta, g.trans_b = call.tb;
    g.m = call.m, g.n = call.n, g.k = call.k;
    g.alpha = call.alpha, g.beta = call.beta;
    g.a = a.data(), g.lda = call.lda(), g.b = b.data(), g.ldb = call.ldb();
    g.c = c.data(), g.ldc = call.ldc();
    const ridge_status st = ridge::gemm(g, plan);
    if (st != RIDGE_SUCCESS) return ::testing::AssertionFailure() << call.describe() << ": status " << st;
    if (auto r = a.untouched(); !r) return ::testing::AssertionFailure() << call.describe() << ": A " << r.message();
    if (auto r = b.untouched(); !r) return ::testing::AssertionFailure() << call.describe() << ": B " << r.message();
    if (auto r = c.untouched_outside(); !r) return ::testing::AssertionFailure() << call.describe() << ": C " << r.message();
    if (c_out != nullptr) c_out->assign(c.data(), c.data() + call.ldc() * call.n);
    if (!check_values) return ::testing::AssertionSuccess();
    return values_match16(call, c.data(), nullptr, expect, bound_for(call), call.alpha == 0.0f || call.k == 0);
}

constexpr float kScalars[][2] = {{1.0f, 0.0f}, {-1.25f, 0.75f}, {1.0f, 1.0f}, {0.5f, -2.0f}};

// Under the blocking the library would use: single tiles, edge tiles, k of 1, 2 and
// 3, one below, at and one above the effective KC, and several KC blocks.
TEST(Driver16, ModelBlockingEveryKernel) {
    const uint32_t seed = test_seed() + 220;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int serial = 0;
    for (const ridge::GemmKernel* ker : kernels16()) {
        const ridge::GemmPlan plan = model_plan(*ker);
        const int64_t MR = ker->MR, NR = ker->NR, KC = effective_kc(*ker, plan.blocking);
        SCOPED_TRACE(kernel_note(*ker, plan.blocking));
        const int64_t shapes[][3] = {{MR, NR, 1},         {1, 1, 1},          {MR - 1, NR - 1, 2},  {MR + 1, NR + 1, 3},
                                     {MR, NR, KC - 1},    {MR - 1, NR, KC},   {MR, NR - 1, KC + 1}, {2 * MR + 1, NR + 2, 2 * KC + 7},
                                     {5, 2 * NR + 1, 2 * KC}};
        for (const auto& s : shapes)
            for (int t = 0; t < 4; ++t) {
                Call c;
                c.m = s[0], c.n = s[1], c.k = s[2], c.ta = t & 1, c.tb = t & 2;
                c.alpha = kScalars[serial % 4][0], c.beta = kScalars[serial % 4][1];
                c.lda_pad = serial % 3, c.ldc_pad = 1;
                ++serial;
                ASSERT_TRUE(run_driver16(c, plan, rng));
            }
    }
}

// Tiny blockings with odd KC (1, 3, 5, 7, 33) and even ones: the driver rounds KC to
// the kernel's k group (K-pairs of 2 for vdpbf16ps, chunks of 32 for AMX) and must
// stay right; MC and NC of two tiles make every loop run several times.
TEST(Driver16, TinyOddBlockingsEveryKernel) {
    const uint32_t seed = test_seed() + 221;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int serial = 0;
    for (const ridge::GemmKernel* ker : kernels16()) {
        std::set<int64_t> done;  // plans whose KC rounds to the same effective KC run once
        for (int64_t kc : {1, 2, 3, 5, 7, 16, 33}) {
            const ridge::GemmPlan plan = tiny_plan(*ker, kc);
            const int64_t eff = effective_kc(*ker, plan.blocking);
            if (!done.insert(eff).second) continue;
            SCOPED_TRACE(kernel_note(*ker, plan.blocking) + " effective KC=" + std::to_string(eff));
            for (int64_t k : {int64_t(1), int64_t(2), int64_t(3), eff, eff + 1, 2 * eff + 1, 3 * eff + 2, int64_t(37)})
                for (int t = 0; t < 4; t += 3 - (serial % 2) * 2) {  // NN and TT, or all four, alternately
                    Call c;
                    c.m = 3 * ker->MR + 5, c.n = 3 * ker->NR + 2, c.k = k, c.ta = t & 1, c.tb = t & 2;
                    c.alpha = kScalars[serial % 4][0], c.beta = kScalars[serial % 4][1];
                    c.ldb_pad = serial % 2;
                    ++serial;
                    ASSERT_TRUE(run_driver16(c, plan, rng));
                }
        }
    }
}

// What the driver hands the kernel: every KC block but the last exactly the effective
// KC (a whole number of k groups, so no K-pair or AMX chunk straddles two blocks,
// however odd the plan's KC), the last the remainder. A spy stands in for the
// kernel (and for its edge twin), records kc and forwards to the real one
// (results still checked).
struct SpyLog {
    const ridge::GemmKernel* real = nullptr;
    std::vector<int64_t> kcs;
};
SpyLog g_spy;  // threads = 1 only
void spy_ukr(int64_t kc, float alpha, const void* a, const void* b, float beta, float* c, int64_t ldc) {
    g_spy.kcs.push_back(kc);
    g_spy.real->ukr(kc, alpha, a, b, beta, c, ldc);
}
void spy_edge(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, const void* b, float beta, float* c,
              int64_t ldc) {
    g_spy.kcs.push_back(kc);
    g_spy.real->ukr_edge(mr, nr, kc, alpha, a, b, beta, c, ldc);
}

TEST(Driver16, KcBlocksAreWholeKGroups) {
    const uint32_t seed = test_seed() + 222;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    for (const ridge::GemmKernel* ker : kernels16())
        for (int64_t KC : {1, 3, 7, 33, 45}) {
            ridge::GemmKernel spy = *ker;  // hooks (AMX tile configuration) included
            spy.ukr = &spy_ukr;
            spy.ukr_tiles = nullptr;  // one call per tile, so that the spy sees every tile
            if (ker->ukr_edge != nullptr) spy.ukr_edge = &spy_edge;
            ridge::GemmPlan plan = tiny_plan(*ker, KC);
            plan.kernel = &spy;
            const int64_t eff = effective_kc(*ker, plan.blocking);
            SCOPED_TRACE(kernel_note(*ker, plan.blocking));
            ASSERT_EQ(0, eff % ker->k_group);
            ASSERT_GE(eff, ker->k_group);
            for (int64_t r : {0, 1, 2, 3}) {
                Call c;
                c.m = ker->MR + 1, c.n = ker->NR + 1, c.k = 3 * eff + r;
                g_spy = SpyLog{};
                g_spy.real = ker;
                ASSERT_TRUE(run_driver16(c, plan, rng));
                // Tiles per KC block: 2 x 2 (one full, three edge), blocks in k order:
                // whole blocks of eff, then what is left.
                std::vector<int64_t> want;
                for (int64_t pc = 0; pc < c.k; pc += eff)
                    for (int tile = 0; tile < 4; ++tile) want.push_back(std::min(eff, c.k - pc));
                ASSERT_EQ(want, g_spy.kcs) << "k=" << c.k << ", plan KC=" << KC;
                for (size_t q = 0; q + 4 < g_spy.kcs.size(); ++q)
                    ASSERT_EQ(0, g_spy.kcs[q] % ker->k_group) << "a block before the last is not whole k groups";
            }
        }
}

// Two threads give bit-identical C to one thread, for every 16-bit kernel, with
// the model's blocking and a tiny one, on shapes where the team splits rows of A
// (m >= 4 MR) and where it splits the NR panels (m < 4 MR).
TEST(Driver16, TwoThreadsBitIdenticalEveryKernel) {
    const uint32_t seed = test_seed() + 223;
    SCOPED_TRACE(seed_note(seed));
    for (const ridge::GemmKernel* ker : kernels16())
        for (int tiny = 0; tiny < 2; ++tiny) {
            ridge::GemmPlan one = tiny ? tiny_plan(*ker, 7) : model_plan(*ker);
            ridge::GemmPlan two = one;
            two.threads = 2;
            SCOPED_TRACE(kernel_note(*ker, one.blocking));
            const int64_t eff = effective_kc(*ker, one.blocking);
            // Several KC blocks under the tiny plan; one block and a remainder under the model's
            // (its KC is up to 1024: the reference's cost grows with k).
            const int64_t k = tiny ? 2 * eff + 3 : eff + 5;
            const int64_t shapes[][3] = {{4 * ker->MR + 3, 3 * ker->NR + 1, k}, {ker->MR + 3, 5 * ker->NR + 2, k}};
            for (int shape = 0; shape < 2; ++shape)
                for (int t = shape; t < 4; t += 2) {  // NN and TN on one shape, NT and TT on the other
                    const auto& s = shapes[shape];
                    Call c;
                    c.m = s[0], c.n = s[1], c.k = s[2], c.ta = t & 1, c.tb = t & 2, c.alpha = 1.5f, c.beta = t == 3 ? 0.0f : 0.5f;
                    std::vector<float> c1, c2;
                    std::mt19937 rng1(seed + uint32_t(t)), rng2(seed + uint32_t(t));  // same operands twice
                    ASSERT_TRUE(run_driver16(c, one, rng1, &c1));
                    ASSERT_TRUE(run_driver16(c, two, rng2, &c2, /*check_values=*/false));
                    for (int64_t j = 0; j < c.n; ++j)
                        for (int64_t i = 0; i < c.m; ++i)
                            ASSERT_EQ(hex32(c1[size_t(i + j * c.ldc())]), hex32(c2[size_t(i + j * c.ldc())]))
                                << c.describe() << " C(" << i << "," << j << ")";
                }
        }
}

// Subnormals per kernel, exactly: fp16 subnormal inputs (man * 2^-24) are honoured
// by every fp16 kernel; bf16 subnormal inputs (man * 2^-133) and subnormal fp32
// results are honoured by the converting bf16 kernels and flushed to zero by the
// kernels on bf16 dot-product instructions (vdpbf16ps, AMX tdpbf16ps).
TEST(Driver16, SubnormalsPerKernel) {
    for (const ridge::GemmKernel* ker : kernels16()) {
        const ridge::GemmPlan plan = model_plan(*ker);
        SCOPED_TRACE(kernel_note(*ker, plan.blocking));
        const Half t = half_of(*ker);
        const bool flush = bf16_instructions(*ker);
        // m x 1 x k: A(i, p) = +-(i + p + 1) subnormal quanta, B(p) = 2^s with the
        // product a normal fp32: s = 10 for fp16 (quanta 2^-24), 100 for bf16 (2^-133).
        const int64_t m = ker->MR + 3, k = 5;
        const double quantum = t == Half::f16 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -133);
        const double scale = t == Half::f16 ? 1024.0 : std::ldexp(1.0, 100);
        std::vector<uint16_t> a(size_t(m * k)), b(size_t(k), round_to_half(t, scale));
        for (int64_t i = 0; i < m; ++i)
            for (int64_t p = 0; p < k; ++p) a[size_t(i + p * m)] = uint16_t(((p & 1) ? 0x8000 : 0) | uint16_t(i + p + 1));
        std::vector<float> c(size_t(m), quiet_nan());
        ridge::GemmArgs g;
        g.input = ker->input, g.m = m, g.n = 1, g.k = k, g.alpha = 1.0f, g.beta = 0.0f;
        g.a = a.data(), g.lda = m, g.b = b.data(), g.ldb = k, g.c = c.data(), g.ldc = m;
        ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
        for (int64_t i = 0; i < m; ++i) {
            double exact = 0.0;
            for (int64_t p = 0; p < k; ++p) exact += ((p & 1) ? -1.0 : 1.0) * double(i + p + 1) * quantum * scale;
            ASSERT_EQ(flush ? 0.0 : exact, double(c[size_t(i)])) << "subnormal inputs, C(" << i << ")";
        }
        if (t == Half::f16) continue;
        // Subnormal results: 2^-70 * 2^-70 twice = 2^-139.
        const uint16_t tiny = round_to_bf16(std::ldexp(1.0, -70));
        std::vector<uint16_t> a2(size_t(m * 2), tiny), b2(2, tiny);
        g.k = 2, g.a = a2.data(), g.b = b2.data(), g.ldb = 2;
        ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
        for (int64_t i = 0; i < m; ++i)
            ASSERT_EQ(flush ? 0.0 : std::ldexp(1.0, -139), double(c[size_t(i)])) << "subnormal result, C(" << i << ")";
    }
}

// Every m x n x k of the lists through `plan` (run_driver16), the transposes
// set by `set_transposes(call, serial)`; alpha and beta (beta = 0 over NaN),
// leading-dimension padding and 1 or 3 threads varying from call to call.
template <typename SetTransposes>
::testing::AssertionResult sweep_shapes16(ridge::GemmPlan plan, std::initializer_list<int64_t> ms,
                                          std::initializer_list<int64_t> ns, std::initializer_list<int64_t> ks,
                                          SetTransposes set_transposes, std::mt19937& rng) {
    int serial = 0;
    for (int64_t m : ms)
        for (int64_t n : ns)
            for (int64_t k : ks) {
                Call c;
                c.m = m, c.n = n, c.k = k;
                set_transposes(c, serial);
                c.alpha = kScalars[serial % 4][0], c.beta = kScalars[serial % 4][1];
                c.lda_pad = serial % 3, c.ldb_pad = (serial + 2) % 3, c.ldc_pad = serial % 2 ? 5 : 0;
                plan.threads = k % 2 == 1 ? 3 : 1;
                ++serial;
                if (::testing::AssertionResult r = run_driver16(c, plan, rng); !r) return r;
            }
    return ::testing::AssertionSuccess();
}

// The skinny path (few columns, A untransposed, read in place and widened to
// fp32 as the kernel loads it) with each 16-bit kernel that has one: m around
// the 32-row tiles and the prefetch distance, n spread over one to eleven
// column groups, k around the chunk lengths (16, 32, 64), B as stored both
// ways (converted while it is copied), padded leading dimensions, alpha and
// beta (beta = 0 over NaN), 1 and 3 threads (rows split between them).
TEST(Driver16, SkinnyPathEveryKernelThatHasOne) {
    const uint32_t seed = test_seed() + 225;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int kernels = 0;
    for (const ridge::GemmKernel* ker : kernels16()) {
        if (ker->skinny == nullptr) continue;
        ++kernels;
        ridge::GemmPlan plan = model_plan(*ker);
        plan.skinny_path = true;
        SCOPED_TRACE(kernel_note(*ker, plan.blocking));
        const int64_t MR = ker->MR;
        ASSERT_TRUE(sweep_shapes16(plan, {MR * 2, MR * 5 - 3, MR * 7 + 17}, {1, 2, 12, 13, 24, 25, 64, ridge::kSkinnyMaxN},
                                   {1, 16, 17, 33, 70, 131}, [](Call& c, int serial) { c.tb = serial % 2 == 1; }, rng));
        // The same path on C^T: few rows of C with B transposed (gemm_skinny_m_trans_b),
        // op(A)'s rows converted while copied, A as stored both ways.
        plan.skinny_path = false;
        plan.skinny_trans_b_path = true;
        ASSERT_TRUE(sweep_shapes16(plan, {1, 12, 25, 64, ridge::kSkinnyMaxN}, {MR * 2, MR * 5 - 3}, {1, 17, 33, 70},
                                   [](Call& c, int serial) { c.ta = serial % 2 == 1, c.tb = true; }, rng));
    }
    if (kernels == 0) GTEST_SKIP() << "no 16-bit kernel with a skinny kernel runs on this CPU";
}

// The skinny path with a 16-bit A starting 1, 8 (malloc's 16 bytes) or 31
// elements into a cache line, lda a whole number of lines (the sweep then
// starts with a tile up to the first aligned row: 32 rows a line) or not: C
// bit for bit what the aligned A gives, and right.
TEST(Driver16, SkinnyPathWithAStartingInsideACacheLine) {
    const uint32_t seed = test_seed() + 226;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int kernels = 0;
    for (const ridge::GemmKernel* ker : kernels16()) {
        if (ker->skinny == nullptr) continue;
        ++kernels;
        const Half t = half_of(*ker);
        ridge::GemmPlan plan = model_plan(*ker);
        plan.skinny_path = true;
        SCOPED_TRACE(kernel_note(*ker, plan.blocking));
        for (int64_t m : {int64_t{5}, int64_t{ker->MR} + 7, 5 * int64_t{ker->MR} - 3})
            for (int64_t lda : {(m + 31) / 32 * 32 + 32, m + 3})
                for (int threads : {1, 3}) {
                    const int64_t n = 13, k = 40;
                    SCOPED_TRACE("m=" + std::to_string(m) + " lda=" + std::to_string(lda) + " threads=" +
                                 std::to_string(threads));
                    std::vector<uint16_t> a(size_t(lda * k)), b(size_t(k * n));
                    for (uint16_t& x : a) x = random_half(t, rng);
                    for (uint16_t& x : b) x = random_half(t, rng);
                    std::vector<uint16_t> a_buf(size_t(lda * k + 64));
                    uint16_t* base = a_buf.data() + (64 - reinterpret_cast<uintptr_t>(a_buf.data()) % 64) / 2;
                    std::vector<float> c(size_t(m * n)), aligned_c;
                    plan.threads = threads;
                    for (int64_t offset : {0, 1, 8, 31}) {
                        SCOPED_TRACE("A offset " + std::to_string(offset));
                        std::copy(a.begin(), a.end(), base + offset);
                        std::fill(c.begin(), c.end(), quiet_nan());
                        ridge::GemmArgs g;
                        g.input = ker->input;
                        g.m = m, g.n = n, g.k = k, g.alpha = 1.25f, g.beta = 0.0f;
                        g.a = base + offset, g.lda = lda, g.b = b.data(), g.ldb = k, g.c = c.data(), g.ldc = m;
                        ASSERT_EQ(RIDGE_SUCCESS, ridge::gemm(g, plan));
                        if (offset == 0) {
                            const double bound = gemm_error_bound(k, g.alpha, 1.0, 1.0, 0.0f, 1.0);
                            for (int64_t j = 0; j < n; ++j)
                                for (int64_t i = 0; i < m; ++i) {
                                    double want = 0.0;
                                    for (int64_t p = 0; p < k; ++p)
                                        want += half_value(t, a[size_t(i + p * lda)]) * half_value(t, b[size_t(p + j * k)]);
                                    ASSERT_NEAR(g.alpha * want, c[size_t(i + j * m)], bound) << "C(" << i << "," << j << ")";
                                }
                            aligned_c = c;
                            continue;
                        }
                        ASSERT_EQ(0, std::memcmp(c.data(), aligned_c.data(), c.size() * sizeof(float)))
                            << "C differs from the aligned A's";
                    }
                }
    }
    if (kernels == 0) GTEST_SKIP() << "no 16-bit kernel with a skinny kernel runs on this CPU";
}

// The AVX-512 skinny kernels for a 16-bit A widen it as they load it, each in
// its own way (vcvtph2ps for fp16; for bf16 a shift and a mask that leave the
// even and odd rows in separate accumulators until the end of the call), and
// then run the fp32 kernel's FMAs: a tile equals, bit for bit, the fp32
// skinny kernel's on A widened beforehand. Full and masked row counts (odd
// ones split a bf16 pair), every few widths, beta = 0 over NaN and beta != 0,
// with and without the prefetch of a next tile.
TEST(Kernels16, SkinnyAvx512EqualsTheFp32KernelOnWidenedA) {
    if (!ridge::cpu_supports(ridge::Isa::avx512)) GTEST_SKIP() << "no AVX-512F on this CPU";
    const uint32_t seed = test_seed() + 227;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    constexpr int64_t kc = 37, lda = 40, b_step = 12, ldc = 35;
    for (Half t : {Half::f16, Half::bf16}) {
        const auto skinny16 =
            t == Half::f16 ? ridge::ukr_f16_gemm_skinny_32x12__avx512 : ridge::ukr_bf16_gemm_skinny_32x12__avx512;
        std::vector<uint16_t> a16(size_t(lda * kc));
        for (uint16_t& x : a16) x = random_half(t, rng);
        std::vector<float> a32(a16.size()), b(size_t(kc * b_step));
        for (size_t i = 0; i < a16.size(); ++i) a32[i] = float(half_value(t, a16[i]));
        for (float& x : b) x = float(half_value(t, random_half(t, rng)));
        for (int64_t mr : {32, 31, 17, 16, 9, 1})
            for (int64_t nr : {1, 2, 5, 12})
                for (float beta : {0.0f, 0.75f})
                    for (bool prefetch : {false, true}) {
                        SCOPED_TRACE(std::string(t == Half::f16 ? "f16" : "bf16") + " mr=" + std::to_string(mr) +
                                     " nr=" + std::to_string(nr) + " beta=" + std::to_string(beta) +
                                     (prefetch ? " with the prefetch" : ""));
                        std::vector<float> c16(size_t(ldc * nr));
                        for (float& x : c16) x = beta == 0.0f ? quiet_nan() : float(half_value(t, random_half(t, rng)));
                        std::vector<float> c32 = c16;
                        const int64_t steps = nr % 2 == 0 ? 1 : 3;  // whole columns or spread
                        skinny16(mr, nr, kc, 1.25f, a16.data(), lda, b.data(), b_step, beta, c16.data(), ldc,
                                 prefetch ? ridge::SkinnyPrefetch{a16.data() + 8, steps} : ridge::SkinnyPrefetch{});
                        ridge::ukr_f32_gemm_skinny_32x12__avx512(
                            mr, nr, kc, 1.25f, a32.data(), lda, b.data(), b_step, beta, c32.data(), ldc,
                            prefetch ? ridge::SkinnyPrefetch{a32.data() + 8, steps} : ridge::SkinnyPrefetch{});
                        ASSERT_EQ(0, std::memcmp(c16.data(), c32.data(), c16.size() * sizeof(float)));
                        if (beta != 0.0f) continue;  // rows past mr untouched: their NaN is still there
                        for (int64_t j = 0; j < nr; ++j)
                            for (int64_t i = mr; i < ldc; ++i)
                                ASSERT_TRUE(std::isnan(c16[size_t(i + j * ldc)])) << "C(" << i << "," << j << ")";
                    }
    }
}

// Every m x n x k of the lists with A transposed through `plan`: B as stored
// both ways, padded leading dimensions, alpha and beta in turn (beta = 0 over
// NaN), 1 and 3 threads, each checked by run_driver16.
::testing::AssertionResult sweep_trans_a(ridge::GemmPlan plan, std::initializer_list<int64_t> ms,
                                         std::initializer_list<int64_t> ns, std::initializer_list<int64_t> ks,
                                         std::mt19937& rng) {
    int serial = 0;
    for (int64_t m : ms)
        for (int64_t n : ns)
            for (int64_t k : ks) {
                Call c;
                c.m = m, c.n = n, c.k = k, c.ta = true, c.tb = serial % 2 == 1;
                c.alpha = kScalars[serial % 4][0], c.beta = kScalars[serial % 4][1];
                c.lda_pad = serial % 3, c.ldb_pad = (serial + 1) % 3, c.ldc_pad = serial % 2;
                plan.threads = serial % 3 == 0 ? 3 : 1;
                ++serial;
                if (auto r = run_driver16(c, plan, rng); !r) return r;
            }
    return ::testing::AssertionSuccess();
}

// C = op(A) * B through the dispatcher on 16-bit ones (`one`: the type's 1.0),
// m x n x k with A transposed or not, reporting: the path the report names (and
// the kernel, when asked), or a failure when the call fails or some C element is not k.
::testing::AssertionResult dispatched_path(ridge::Dtype input, uint16_t one, bool ta, int64_t m, int64_t n, int64_t k,
                                           std::string* path, std::string* kernel = nullptr) {
    std::vector<uint16_t> a(size_t(m * k), one), b(size_t(k * n), one);
    std::vector<float> c(size_t(m * n), quiet_nan());
    ridge::GemmArgs g;
    g.input = input;
    g.trans_a = ta, g.m = m, g.n = n, g.k = k, g.alpha = 1.0f, g.beta = 0.0f;
    g.a = a.data(), g.lda = ta ? k : m, g.b = b.data(), g.ldb = k, g.c = c.data(), g.ldc = m;
    ridge_set_report(1);
    const ridge_status status = ridge::dispatch_gemm(g);
    ridge_set_report(0);
    ridge_report r;
    if (status != RIDGE_SUCCESS || ridge_last_report(&r) != RIDGE_SUCCESS)
        return ::testing::AssertionFailure() << "call or report failed";
    *path = r.path;
    if (kernel != nullptr) *kernel = r.kernel;
    for (int64_t i = 0; i < m * n; ++i)
        if (c[size_t(i)] != float(k)) return ::testing::AssertionFailure() << "element " << i << " " << c[size_t(i)];
    return ::testing::AssertionSuccess();
}

// The few-rows path (B read in place and widened by the kernel; op(A) packed
// as fp32) with each 16-bit kernel that has one: m over the dot-product form's
// tiles (4 x 6, 6 x 4 and 8 x 3 for 1-8 rows) and the outer form's (9-64), n
// over the column groups, k around the 16-step loads, A both ways, B as stored
// (transposed B is dispatched elsewhere), padding, alpha and beta (beta = 0
// over NaN), 1 and 3 threads; the outer form also in passes over k of 16
// steps (GemmPlan::few_rows_k_pass: B's 16-bit columns entered 32 bytes into
// a line, later passes adding to C).
TEST(Driver16, SkinnyMPathEveryKernelThatHasOne) {
    const uint32_t seed = test_seed() + 228;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int kernels = 0, serial = 0;
    for (const ridge::GemmKernel* ker : kernels16()) {
        if (ker->few_rows == nullptr) continue;
        ++kernels;
        ridge::GemmPlan plan = model_plan(*ker);
        plan.skinny_m_path = true;
        SCOPED_TRACE(kernel_note(*ker, plan.blocking));
        for (int64_t m : {1, 2, 5, 7, 8, 9, 16, 17, 32, 33, 48, 55, 64})
            for (int64_t n : {1, 3, 4, 13, 25, 50})
                for (int64_t k : {1, 15, 16, 17, 70}) {
                    Call c;
                    c.m = m, c.n = n, c.k = k, c.ta = serial % 2 == 1;
                    c.alpha = kScalars[serial % 4][0], c.beta = kScalars[serial % 4][1];
                    c.lda_pad = serial % 3, c.ldb_pad = (serial + 1) % 3, c.ldc_pad = serial % 2;
                    plan.threads = serial % 3 == 0 ? 3 : 1;
                    plan.few_rows_k_pass = k > 16 && serial % 2 == 0 ? 16 : 0;
                    ++serial;
                    ASSERT_TRUE(run_driver16(c, plan, rng));
                }
    }
    if (kernels == 0) GTEST_SKIP() << "no 16-bit kernel with a few-rows kernel runs on this CPU";
}

// Few columns with a 16-bit A transposed on the few-rows path run on C^T
// (its kernels widen A's columns as they read them), with each 16-bit kernel
// that has one: n over the dot-product form (1-8) and the outer form's 16-,
// 32-, 48- and 64-row tiles and remainders (9-64), m around the column groups, k
// around the 16-step copies, B both ways, padding, alpha and beta (beta = 0
// over NaN), 1 and 3 threads, in one pass and in passes of 16 k steps; and
// dispatch sends such shapes there (not 49).
TEST(Driver16, SkinnyTransAPathEveryKernelThatHasOne) {
    const uint32_t seed = test_seed() + 227;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int kernels = 0;
    for (const ridge::GemmKernel* ker : kernels16()) {
        if (ker->few_rows_outer == nullptr) continue;
        ++kernels;
        ridge::GemmPlan plan = model_plan(*ker);
        plan.skinny_trans_a_path = true;
        SCOPED_TRACE(kernel_note(*ker, plan.blocking));
        ASSERT_TRUE(sweep_trans_a(plan, {1, 13, 25, 71}, {1, 2, 3, 7, 8, 9, 16, 17, 31, 32, 33, 47, 48, 56, 64},
                                  {1, 15, 16, 17, 100}, rng));
        plan.few_rows_k_pass = 16;  // C^T's tile added into C from the second pass on
        ASSERT_TRUE(sweep_trans_a(plan, {13, 71}, {9, 17, 33, 48}, {17, 100}, rng));
    }
    if (kernels == 0) GTEST_SKIP() << "no 16-bit kernel with a few-rows outer kernel runs on this CPU";
    if (ridge::runtime_config().gemm(ridge::Dtype::f16).kernel->few_rows_outer == nullptr) return;
    for (int64_t n : {2, 8, 16, 48, 49}) {
        std::string path;
        ASSERT_TRUE(dispatched_path(ridge::Dtype::f16, 0x3c00, true, 300, n, 200, &path)) << "n=" << n;
        EXPECT_EQ(n == 49 ? "blocked" : "skinny_trans_a", path) << "n=" << n;
    }
}

// The path that reads op(A)'s rows in place (few columns, A transposed; the
// AMX kernel), with each kernel that has one: m around the 32-row blocks (a
// last partial block is copied), n around the 16- and 32-column tiles and
// several 32-column panels, k around the 32-step chunks (a tail is copied), B
// as stored both ways, padded leading dimensions, alpha and beta (beta = 0 over
// NaN); and C bit for bit the same on 1, 2 and 3 threads (they split blocks).
TEST(Driver16, RowsInPlacePathEveryKernelThatHasOne) {
    const uint32_t seed = test_seed() + 224;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    int kernels = 0;
    for (const ridge::GemmKernel* ker : kernels16()) {
        if (ker->rows_in_place == nullptr) continue;
        ++kernels;
        ridge::GemmPlan plan = model_plan(*ker);
        plan.rows_in_place_path = true;
        SCOPED_TRACE(kernel_note(*ker, plan.blocking));
        ASSERT_TRUE(sweep_trans_a(plan, {1, 31, 32, 33, 70}, {1, 2, 15, 16, 17, 32, 33, 70}, {1, 31, 32, 33, 70}, rng));
        Call c;
        c.m = 161, c.n = 40, c.k = 100, c.ta = true, c.alpha = 0.75f, c.beta = 0.5f;
        std::vector<float> one, many;
        plan.threads = 1;
        std::mt19937 rng1(seed + 1);
        ASSERT_TRUE(run_driver16(c, plan, rng1, &one));
        for (int threads : {2, 3}) {
            plan.threads = threads;
            std::mt19937 rng2(seed + 1);  // the same operands
            ASSERT_TRUE(run_driver16(c, plan, rng2, &many, /*check_values=*/false));
            ASSERT_EQ(0, std::memcmp(one.data(), many.data(), one.size() * sizeof(float))) << threads << " threads";
        }
    }
    if (kernels == 0) GTEST_SKIP() << "no 16-bit kernel that reads op(A)'s rows in place runs on this CPU";
}

// Dispatch sends few columns of a transposed bf16 A to that path when the
// chosen bf16 kernel has it (up to 128 columns), and not A untransposed or 129
// columns; the call report names the path.
TEST(Driver16, DispatchTakesRowsInPlaceForFewColumnsOfATransposedA) {
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::bf16).kernel;
    if (ker->rows_in_place == nullptr) GTEST_SKIP() << ker->name << " does not read op(A)'s rows in place";
    struct Case {
        int64_t n;
        bool ta;
        const char* path;
    };
    for (const Case& cs : {Case{16, true, "rows_in_place"}, Case{128, true, "rows_in_place"},
                           Case{129, true, "blocked"}, Case{16, false, "blocked"}}) {
        std::string path;
        ASSERT_TRUE(dispatched_path(ridge::Dtype::bf16, 0x3f80, cs.ta, 300, cs.n, 200, &path)) << "n=" << cs.n;
        EXPECT_EQ(cs.path, path) << "n=" << cs.n << (cs.ta ? " A transposed" : "");
    }
}

// bf16 on the vdpbf16ps kernel, which has no kernels that read an operand in
// place: up to 16 rows or columns of C the dispatcher sends few columns (A
// either way) and few rows to the in-place paths on the converting kernel's
// kernels (GemmChoice::in_place_sibling), and wider C to the blocked path on
// vdpbf16ps; the report names both, and C is right either way.
TEST(Driver16, Bf16OnVdpbf16psReadsNarrowShapesInPlace) {
    const ridge::GemmChoice& choice = ridge::runtime_config().gemm(ridge::Dtype::bf16);
    if (choice.in_place_sibling == nullptr)
        GTEST_SKIP() << "bf16 runs on " << choice.kernel->name << ", which needs no sibling for the in-place paths";
    struct Case {
        bool ta;
        int64_t m, n;
        const char* path;
        bool sibling;
    };
    for (const Case& cs : {Case{false, 300, 4, "skinny", true}, Case{false, 300, 16, "skinny", true},
                           Case{false, 300, 17, "blocked", false}, Case{false, 8, 300, "skinny_m", true},
                           Case{false, 16, 300, "skinny_m", true}, Case{false, 17, 300, "blocked", false},
                           Case{true, 300, 8, "skinny_trans_a", true}}) {
        SCOPED_TRACE(std::to_string(cs.m) + " x " + std::to_string(cs.n) + (cs.ta ? " A transposed" : ""));
        std::string path, kernel;
        ASSERT_TRUE(dispatched_path(ridge::Dtype::bf16, 0x3f80, cs.ta, cs.m, cs.n, 200, &path, &kernel));
        EXPECT_EQ(cs.path, path);
        EXPECT_EQ(cs.sibling ? choice.in_place_sibling->name : choice.kernel->name, kernel);
    }
}

// The registry's 16-bit rows agree with what the driver and packers assume: a
// kernel on packed bf16 (2 bytes) groups k (pairs or chunks), the converting ones
// pack fp32 (4 bytes) one k step at a time; every input type has a kernel that
// runs anywhere (ref), and the name the registry gives is the kernel's own.
TEST(Driver16, RegistryRowsFor16BitInputs) {
    for (ridge::Dtype d : {ridge::Dtype::f16, ridge::Dtype::bf16}) {
        const ridge::GemmKernel* any = ridge::find_gemm_kernel(d, ridge::Isa::ref);
        ASSERT_NE(nullptr, any);
        EXPECT_EQ(ridge::Isa::ref, any->isa);
    }
    for (const ridge::GemmKernel& k : ridge::gemm_kernels()) {
        if (k.input == ridge::Dtype::f32) continue;
        SCOPED_TRACE(k.name);
        if (k.packed_bytes == 2) {
            EXPECT_TRUE(bf16_instructions(k));
            EXPECT_GE(k.k_group, 2);
            EXPECT_EQ(0, ridge::kPanelDepthAlign % k.k_group) << "a packed panel's depth must be whole k groups";
        } else {
            EXPECT_EQ(4, k.packed_bytes);
            EXPECT_EQ(1, k.k_group);
            EXPECT_EQ(std::string::npos, std::string(k.name).find("bf16_gemm"));
        }
        EXPECT_LE(k.MR * k.NR, 32 * 32) << "the driver's edge tile holds 32 x 32 floats";
    }
}

// ================================ GEMV ================================

// A GEMV operand of `input` type from values already representable in it.
struct GemvMatrix {
    std::vector<float> values;   // what the elements are, as fp32
    std::vector<uint8_t> bytes;  // the elements in their type, starting `skew` elements into a line
    const void* data = nullptr;
};

GemvMatrix gemv_operand(ridge::Dtype input, int64_t count, int64_t skew, std::mt19937& rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    GemvMatrix g;
    const size_t elem = input == ridge::Dtype::f32 ? 4 : 2;
    g.bytes.assign(size_t(count + skew) * elem + 64, 0);
    uint8_t* base = g.bytes.data() + (64 - reinterpret_cast<uintptr_t>(g.bytes.data()) % 64) % 64;
    base += size_t(skew) * elem;
    for (int64_t i = 0; i < count; ++i) {
        float v = dist(rng);
        if (input == ridge::Dtype::f32) {
            std::memcpy(base + size_t(i) * 4, &v, 4);
        } else {
            const uint16_t h = input == ridge::Dtype::f16 ? ridge::f32_to_f16(v) : ridge::f32_to_bf16(v);
            v = input == ridge::Dtype::f16 ? ridge::f16_to_f32(h) : ridge::bf16_to_f32(h);
            std::memcpy(base + size_t(i) * 2, &h, 2);
        }
        g.values.push_back(v);
    }
    g.data = base;
    return g;
}

// Every GEMV kernel this CPU runs, N and T, from one element to several column
// groups and row tails, A starting inside a cache line: within a K-growing
// bound of the product in double, the elements past y's end untouched, and the
// same bits whether the kernel prefetches A (as it does from DRAM) or not, and
// from its N for an A from memory (n_from_memory) where it has one.
TEST(Gemv, EveryKernelMatchesDoubleAndPrefetchingChangesNoBits) {
    const uint32_t seed = test_seed() + 140;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    struct Shape {
        int64_t m, n, skew;  // A is m x n; skew: elements between A and a cache line
    };
    int tested = 0, from_memory_tested = 0;
    for (const ridge::GemvKernel& ker : ridge::gemv_kernels()) {
        if (!ridge::cpu_supports(ker.isa)) continue;
        ++tested;
        for (bool trans : {false, true})
            for (const Shape& sh : {Shape{1, 1, 0}, Shape{17, 9, 3}, Shape{100, 33, 1}, Shape{515, 70, 7}}) {
                SCOPED_TRACE(std::string(ker.name) + (trans ? " T " : " N ") + std::to_string(sh.m) + "x" +
                             std::to_string(sh.n) + " skew " + std::to_string(sh.skew));
                const int64_t lda = sh.m + 5, lenx = trans ? sh.m : sh.n, leny = trans ? sh.n : sh.m;
                const GemvMatrix a = gemv_operand(ker.input, lda * sh.n, sh.skew, rng);
                std::vector<float> x(static_cast<size_t>(lenx)), y0(static_cast<size_t>(leny) + 8);
                for (float& v : x) v = dist(rng);
                for (float& v : y0) v = dist(rng);
                const float alpha = 0.75f;
                std::vector<float> first;
                for (int64_t prefetch : {int64_t(0), int64_t(64), int64_t(512)}) {
                    std::vector<float> y = y0;
                    const auto kernel = trans ? ker.t : ker.n;
                    kernel(sh.m, sh.n, alpha, a.data, lda, x.data(), y.data(), prefetch);
                    for (int64_t q = leny; q < leny + 8; ++q)
                        ASSERT_EQ(y0[size_t(q)], y[size_t(q)]) << "wrote y[" << q << "] past its end";
                    if (first.empty()) {
                        first = y;
                        for (int64_t q = 0; q < leny; ++q) {
                            double want = y0[size_t(q)];
                            for (int64_t p = 0; p < lenx; ++p) {
                                const int64_t i = trans ? p : q, j = trans ? q : p;
                                want += double(alpha) * a.values[size_t(i + j * lda)] * x[size_t(p)];
                            }
                            ASSERT_NEAR(want, y[size_t(q)], 4.0 * (lenx + 2) * FLT_EPSILON) << "y[" << q << "]";
                        }
                    } else {
                        ASSERT_EQ(0, std::memcmp(first.data(), y.data(), y.size() * sizeof(float)))
                            << "prefetching " << prefetch << " bytes ahead changed y";
                    }
                }
                if (!trans && ker.n_from_memory != nullptr) {  // the N for an A from memory: the same bits
                    ++from_memory_tested;
                    for (int64_t prefetch : {int64_t(0), int64_t(256)}) {
                        std::vector<float> y = y0;
                        ker.n_from_memory(sh.m, sh.n, alpha, a.data, lda, x.data(), y.data(), prefetch);
                        ASSERT_EQ(0, std::memcmp(first.data(), y.data(), y.size() * sizeof(float)))
                            << "n_from_memory (prefetch " << prefetch << ") differs from n";
                    }
                }
            }
    }
    if (ridge::cpu_supports(ridge::Isa::avx512)) EXPECT_GT(from_memory_tested, 0) << "AVX-512 fp32 has one";
    EXPECT_GE(tested, 3) << "the portable kernels at least";
}

// g through dispatch_gemv with the report on, into *report: y must come out
// the same bits as `ker`'s own N or T (on x32, x as fp32) computes.
void dispatch_gemv_reported(ridge::GemvArgs g, const ridge::GemvKernel& ker, const float* x32, ridge_report* report) {
    const int64_t leny = g.trans ? g.n : g.m;
    std::vector<float> y(size_t(leny), quiet_nan()), want(size_t(leny), 0.0f);
    g.y = y.data();
    ridge_set_report(1);
    ASSERT_EQ(RIDGE_SUCCESS, ridge::dispatch_gemv(g));
    ridge_set_report(0);
    ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(report));
    (g.trans ? ker.t : ker.n)(g.m, g.n, g.alpha, g.a, g.lda, x32, want.data(), 0);
    ASSERT_EQ(0, std::memcmp(want.data(), y.data(), y.size() * sizeof(float)));
}

// The dispatcher asks the kernel to prefetch when A is at least the L3 (it then
// comes from DRAM) and not below; the report names the path, y is the same bits
// as the kernel's without prefetch, whatever the thread split.
TEST(Gemv, DispatchPrefetchesOnlyAnABeyondTheL3) {
    const uint32_t seed = test_seed() + 141;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const double min_bytes = ridge::runtime_config().gemv_from_memory_min_bytes;
    ASSERT_GT(min_bytes, 0.0);
    const ridge::Dtype input = ridge::Dtype::bf16;
    const ridge::GemvKernel& ker = *ridge::runtime_config().gemv[int(input)];
    const int64_t m = 2048, big_n = int64_t(min_bytes / (2.0 * m)) + 1;
    const GemvMatrix a = gemv_operand(input, m * big_n, 0, rng);
    std::vector<float> xs(size_t(std::max(m, big_n)));
    for (float& v : xs) v = dist(rng);
    std::vector<uint16_t> x16;
    for (float v : xs) x16.push_back(ridge::f32_to_bf16(v));
    std::vector<float> x32;
    for (uint16_t h : x16) x32.push_back(ridge::bf16_to_f32(h));
    struct Case {
        int64_t n;
        bool trans;
        const char* path;
    };
    for (const Case& cs : {Case{big_n, false, "gemv_prefetch"}, Case{big_n, true, "gemv_prefetch"},
                           Case{big_n - 2, false, "gemv"}, Case{big_n - 2, true, "gemv"}}) {
        SCOPED_TRACE(std::string(cs.trans ? "T " : "N ") + std::to_string(m) + "x" + std::to_string(cs.n));
        ridge::GemvArgs g;
        g.input = input, g.trans = cs.trans, g.m = m, g.n = cs.n, g.alpha = 1.25f, g.a = a.data, g.lda = m;
        g.x = x16.data(), g.beta = 0.0f;
        ridge_report r;
        ASSERT_NO_FATAL_FAILURE(dispatch_gemv_reported(g, ker, x32.data(), &r));
        EXPECT_STREQ(cs.path, r.path);
    }
}

// An fp32 A at least the L3 runs the kernel's own N from memory where it has
// one (AVX-512), and the report names it; T, and an A below the L3, run the
// kernel's usual N and T under its own name. y is the same bits either way.
TEST(Gemv, ReportNamesTheNFromMemoryWhereItRan) {
    const uint32_t seed = test_seed() + 142;
    SCOPED_TRACE(seed_note(seed));
    std::mt19937 rng(seed);
    const double min_bytes = ridge::runtime_config().gemv_from_memory_min_bytes;
    ASSERT_GT(min_bytes, 0.0);
    const ridge::GemvKernel& ker = *ridge::runtime_config().gemv[int(ridge::Dtype::f32)];
    const int64_t m = 2048, big_n = int64_t(min_bytes / (4.0 * m)) + 1;
    const GemvMatrix a = gemv_operand(ridge::Dtype::f32, m * big_n, 0, rng);
    const GemvMatrix x = gemv_operand(ridge::Dtype::f32, std::max(m, big_n), 0, rng);
    const char* own_n = ker.n_from_memory != nullptr ? ker.n_from_memory_name : ker.name;
    ASSERT_NE(nullptr, own_n);
    struct Case {
        int64_t n;
        bool trans;
        const char* kernel;
    };
    for (const Case& cs : {Case{big_n, false, own_n}, Case{big_n, true, ker.name}, Case{big_n - 2, false, ker.name}}) {
        SCOPED_TRACE(std::string(cs.trans ? "T " : "N ") + std::to_string(m) + "x" + std::to_string(cs.n));
        ridge::GemvArgs g;
        g.input = ridge::Dtype::f32, g.trans = cs.trans, g.m = m, g.n = cs.n, g.alpha = 0.75f, g.a = a.data, g.lda = m;
        g.x = x.data, g.beta = 0.0f;
        ridge_report r;
        ASSERT_NO_FATAL_FAILURE(dispatch_gemv_reported(g, ker, static_cast<const float*>(x.data), &r));
        EXPECT_STREQ(cs.kernel, r.kernel);
    }
}

}  // namespace
