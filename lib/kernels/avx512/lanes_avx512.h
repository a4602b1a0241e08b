// Lane masks for the AVX-512 kernels' partial vectors (edges of tiles, tails of rows).
// Header-only, for kernel files compiled with AVX-512.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace ridge {

// The first n of a zmm's 16 fp32 lanes: none for n <= 0, all for n >= 16.
inline __mmask16 first_lanes(int64_t n) {
    return n <= 0 ? __mmask16(0) : n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1u);
}

// The first n of a zmm's 32 16-bit lanes (bf16 pairs): none for n <= 0, all for n >= 32.
inline __mmask32 first_lanes32(int64_t n) {
    return n <= 0 ? __mmask32(0) : n >= 32 ? __mmask32(0xffffffffu) : __mmask32((1u << n) - 1u);
}

}  // namespace ridge
