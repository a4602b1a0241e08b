// Lane masks for the AVX-512 kernels' partial vectors (edges of tiles, tails of rows).
// Header-only, for kernel files compiled with AVX-512.
#pragma once

#include "kernels/intrinsics.h"

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

// 16 fp32 values at p: a full tile's (kFull) loaded and stored whole, an edge
// tile's through its lane mask. On this project's AVX-512 machine the masked
// forms cost more: the skinny kernel with plain accesses on full tiles ran
// 5-10% faster in L1 at 16-32 k steps a call (measured in a loop over 16 tiles,
// 139-145 -> 151-153 and 165-171 -> 187-188 GFLOP/s).
template <bool kFull>
inline __m512 load_lanes(const float* p, __mmask16 mask) {
    return kFull ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(mask, p);
}
template <bool kFull>
inline void store_lanes(float* p, __mmask16 mask, __m512 v) {
    if (kFull)
        _mm512_storeu_ps(p, v);
    else
        _mm512_mask_storeu_ps(p, mask, v);
}

}  // namespace ridge
