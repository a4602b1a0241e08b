// The last k steps of a 32-row microkernel, during which its tile of C is
// prefetched with write intent, one column (two or three lines) at a time, so that the
// update at the end finds it in L1. Why late and not at the start, and what it
// measured: f32_gemm_avx512.cpp (fp32) and bf16_gemm_avx512bf16.cpp (bf16).
// Header-only, for kernel files compiled with AVX-512 and -mprfchw.
#pragma once

#include <cstdint>

namespace ridge {

// How many of a kernel's k steps run late: StepsPerColumn (each kernel's own
// constant, with its measurements) per column of its NR, or all of them for a
// short k (the prefetches then come closer together).
template <int NR, int StepsPerColumn>
inline int64_t late_k_steps(int64_t steps) {
    constexpr int64_t kLate = int64_t{NR} * StepsPerColumn;
    return steps < kLate ? steps : kLate;
}

// Runs `late` k steps (`step()` each), prefetching column j of the tile of C
// (32 floats, ldc apart) before its share of them. A column's 128 bytes span
// three lines where C is off its cache lines (glibc's malloc puts a large
// block 16 bytes past one): its first float's, its 17th's and its last's
// cover them wherever it starts. With the first two alone the third line of
// each column came on demand as the tile was stored. A C 16 bytes past a line
// (`OFFSET=4 PROFILE_A=P PROFILE_B=P RIDGE_NUM_THREADS=1 ridge-ab OLD NEW N N
// N 11`, the Zen 5 VM): 1536^3 1.036, 2048^3 1.047 / 1.025, 3000^3 1.062,
// bf16 2048^3 1.026, 1024^3 1.006 / 0.996; on a line (the third prefetch
// then the second's line again) 1024^3 1.004, 2048^3 1.009.
template <int NR, class Step>
inline void run_late_k_steps_prefetching_c(int64_t late, float* c, int64_t ldc, Step&& step) {
    for (int j = 0; j < NR; ++j) {
        __builtin_prefetch(c + j * ldc, 1, 3);  // write intent: prefetchw (-mprfchw)
        __builtin_prefetch(c + j * ldc + 16, 1, 3);
        __builtin_prefetch(c + j * ldc + 31, 1, 3);
        const int64_t steps = late * (j + 1) / NR - late * j / NR;
        for (int64_t s = 0; s < steps; ++s) step();
    }
}

}  // namespace ridge
