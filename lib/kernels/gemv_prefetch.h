// The GEMV kernels' software prefetch of A (gemv_kernel.h: prefetch_elements).
// Header-only, for the SIMD kernel files (_mm_prefetch is SSE: any x86-64).
#pragma once

#include "kernels/intrinsics.h"

#include <cstdint>

namespace ridge {

// Prefetches row i of `kColumns` columns of A (element type T, leading
// dimension lda) `ahead` elements on, when row i starts a cache line's worth of
// elements: a kernel stepping down the columns calls it every step and issues
// one prefetch per line and column. ahead == 0: nothing.
// Always inlined: as a function of its own, GCC 12 finds it free of side
// effects (a prefetch is only a hint) and deletes every call to it.
template <typename T, int kColumns>
[[gnu::always_inline]] inline void prefetch_gemv_columns(const T* a, int64_t lda, int64_t i, int64_t ahead) {
    if (ahead == 0 || (i * int64_t(sizeof(T))) % 64 != 0) return;
    for (int c = 0; c < kColumns; ++c)
        _mm_prefetch(reinterpret_cast<const char*>(a + c * lda + i + ahead), _MM_HINT_T0);
}

}  // namespace ridge
