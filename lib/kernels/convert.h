// Scalar conversions between fp32 and the 16-bit formats, portable C++.
// Exact in the widening direction; round to nearest even when narrowing.
#pragma once

#include <cstdint>
#include <cstring>

namespace ridge {

inline uint32_t f32_bits(float x) {
    uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}
inline float f32_from_bits(uint32_t u) {
    float x;
    std::memcpy(&x, &u, sizeof x);
    return x;
}

// bf16 is the upper half of an fp32: widening is a shift, subnormals included.
inline float bf16_to_f32(uint16_t h) { return f32_from_bits(uint32_t(h) << 16); }

// Round to nearest even on the 16 dropped bits; NaN stays NaN (quieted), Inf stays Inf.
inline uint16_t f32_to_bf16(float x) {
    const uint32_t u = f32_bits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x0040u);
    return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// IEEE binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits; subnormals honoured.
inline float f16_to_f32(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) return f32_from_bits(sign | 0x7f800000u | (man << 13));  // Inf, NaN
    if (exp != 0) return f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
    if (man == 0) return f32_from_bits(sign);  // +-0
    // Subnormal: value = man * 2^-24; normalize the mantissa.
    int e = -1;
    do {
        man <<= 1;
        ++e;
    } while ((man & 0x400u) == 0);
    return f32_from_bits(sign | (uint32_t(112 - e) << 23) | ((man & 0x3ffu) << 13));
}

// fp32 to binary16, round to nearest even, overflow to Inf, underflow through subnormals to 0.
inline uint16_t f32_to_f16(float x) {
    const uint32_t u = f32_bits(x);
    const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
    const uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) return uint16_t(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // NaN
    if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to >= 65520: Inf
    if (abs >= 0x38800000u) {                                   // normal in fp16 (>= 2^-14)
        const uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
        return uint16_t(sign | ((rounded - 0x38000000u) >> 13));
    }
    if (abs < 0x33000000u) return sign;  // below half the smallest subnormal (2^-25): 0
    // Subnormal: shift the full mantissa (with its implicit 1) into place, rounding to even.
    const uint32_t exp = abs >> 23;
    const uint32_t man = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - exp;  // 14..24 so that the result is man * 2^(exp-127-23) / 2^-24
    const uint32_t half = 1u << (shift - 1);
    const uint32_t rest = man & ((1u << shift) - 1u);
    uint32_t q = man >> shift;
    if (rest > half || (rest == half && (q & 1u))) ++q;
    return uint16_t(sign | q);
}

}  // namespace ridge
