// Loads of 16 consecutive elements of an input type as 16 fp32 lanes, for the
// AVX-512 kernels and packers that convert 16-bit inputs as they read them
// (fp16 by vcvtph2ps, bf16 by a 16-bit shift: both exact). kFull: all 16
// elements, read whole; else only the lanes of `mask` (zeros elsewhere, nothing
// read past them). Header-only, for files compiled with AVX-512 flags.
#pragma once

#include "kernels/intrinsics.h"

#include <cstdint>

#include "kernels/avx512/lanes_avx512.h"

namespace ridge {
// Internal linkage: each kernel file gets its own copy (all compiled with the
// same AVX-512 flags; nothing here is shared across ISAs).
namespace {

struct LoadF32 {
    using T = float;
    static constexpr int kBytes = 4;
    template <bool kFull>
    static __m512 load(const float* p, __mmask16 mask) {
        return load_lanes<kFull>(p, mask);
    }
};
struct LoadF16 {
    using T = uint16_t;
    static constexpr int kBytes = 2;
    template <bool kFull>
    static __m512 load(const uint16_t* p, __mmask16 mask) {
        return _mm512_cvtph_ps(kFull ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
                                     : _mm256_maskz_loadu_epi16(mask, p));
    }
};
struct LoadBF16 {
    using T = uint16_t;
    static constexpr int kBytes = 2;
    template <bool kFull>
    static __m512 load(const uint16_t* p, __mmask16 mask) {  // bf16 is fp32's top half
        const __m256i h = kFull ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
                                : _mm256_maskz_loadu_epi16(mask, p);
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    }
};

}  // namespace
}  // namespace ridge
