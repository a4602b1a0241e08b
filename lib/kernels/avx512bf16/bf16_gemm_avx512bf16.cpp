// bf16 GEMM microkernel for AVX512-BF16: a 32 x 12 tile of fp32 C from
// K-paired bf16 panels (bf16_pairs_pack_avx512.cpp).
//
// vdpbf16ps multiplies 16 pairs of bf16 by 16 pairs and adds both products to
// 16 fp32 lanes: 64 flops per instruction, twice an fp32 FMA's 32, at the
// same throughput (2 per cycle on cores with two 512-bit FMA units). The tile
// is the fp32 kernel's (f32_gemm_avx512.cpp): 24 zmm accumulators, two A
// vectors of 16 row-pairs and one broadcast B pair per column per k-pair step.
// Numerics (Intel SDM, VDPBF16PS): each bf16 product is exact in fp32, each
// add rounds to nearest even whatever MXCSR says, and the instruction treats
// bf16 subnormal inputs as zero and flushes subnormal results to zero.
#include "kernels/intrinsics.h"

#include "kernels/avx512/late_prefetch_c_avx512.h"
#include "kernels/avx512/store_tile_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {

namespace {
constexpr int kMR = 32;
constexpr int kNR = 12;
constexpr int kPrefetchPairsA = 8;  // k-pair steps ahead of the A micro-panel streaming from L2

// One k-pair step: lo/hi += pair q of the A panel (32 rows) * pair q of the
// B panel (12 columns), the A panel prefetched kPrefetchPairsA steps ahead.
inline void k_pair_step_32x12(const uint32_t*& a, const uint32_t*& b, __m512 (&lo)[kNR], __m512 (&hi)[kNR]) {
    _mm_prefetch(reinterpret_cast<const char*>(a + kPrefetchPairsA * kMR), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(a + kPrefetchPairsA * kMR + 16), _MM_HINT_T0);
    const __m512bh a_lo = (__m512bh)_mm512_load_si512(a);
    const __m512bh a_hi = (__m512bh)_mm512_load_si512(a + 16);
#pragma GCC unroll 12
    for (int j = 0; j < kNR; ++j) {
        const __m512bh bj = (__m512bh)_mm512_set1_epi32(int(b[j]));
        lo[j] = _mm512_dpbf16_ps(lo[j], a_lo, bj);
        hi[j] = _mm512_dpbf16_ps(hi[j], a_hi, bj);
    }
    a += kMR;
    b += kNR;
}

// The tile of C is prefetched with write intent during the last late_k_steps
// k-pair steps, a column every kStepsPerColumnOfC steps, as the fp32 kernel
// does (f32_gemm_avx512.cpp says why not at the start: the streaming A panel
// can evict it from L1 before the end). Against the prefetch at the start, on
// the Zen 4 (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW N N N 11-21 NN bf16`, two
// copies of one build 1.001-1.004): 2048^3 1.004-1.011 over four runs, TN /
// NT 1.008 / 1.003, 2 threads 1.012; 1024^3 0.992-1.010 (median of five
// 1.002), 512^3 1.003. A column every 4 k-pair steps (48 late steps): every
// 8, as the fp32 kernel now has it, gained nothing on the Zen 5
// (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW N N N 9 NN bf16`: 2048^3 0.988, then
// 1.000-1.009 in four more runs at KC 512-1280; 1024^3 1.000-1.016).
constexpr int kStepsPerColumnOfC = 4;

}  // namespace

void ukr_bf16_gemm_32x12__avx512bf16(int64_t kc, float alpha, const void* a_packed,
                                     const void* b_packed, float beta, float* c, int64_t ldc) {
    const uint32_t* a = static_cast<const uint32_t*>(a_packed);  // 32 row-pairs per k-pair step
    const uint32_t* b = static_cast<const uint32_t*>(b_packed);  // 12 column-pairs per k-pair step
    __m512 lo[kNR];
    __m512 hi[kNR];
#pragma GCC unroll 12
    for (int j = 0; j < kNR; ++j) {
        lo[j] = _mm512_setzero_ps();
        hi[j] = _mm512_setzero_ps();
    }
    const int64_t pairs = (kc + 1) / 2;
    const int64_t late = late_k_steps<kNR, kStepsPerColumnOfC>(pairs);
#pragma GCC unroll 4
    for (int64_t q = 0; q < pairs - late; ++q) k_pair_step_32x12(a, b, lo, hi);
    run_late_k_steps_prefetching_c<kNR>(late, c, ldc, [&] { k_pair_step_32x12(a, b, lo, hi); });
    store_tile_32xNR<kNR>(lo, hi, alpha, beta, c, ldc);
}

}  // namespace ridge
