// GEMV after argument checking: y = alpha * op(A) * x + beta * y, column-major A.
#pragma once

#include <cstdint>

#include "dispatch/registry.h"
#include "ridge/ridge.h"

namespace ridge {

struct GemvArgs {
    Dtype input = Dtype::f32;  // A's and x's element type; y is fp32
    bool trans = false;
    int64_t m = 0, n = 0;      // A is m x n
    float alpha = 1.0f;
    const void* a = nullptr;
    int64_t lda = 1;
    const void* x = nullptr;   // length n (or m when trans), stride incx
    int64_t incx = 1;
    float beta = 0.0f;
    float* y = nullptr;        // length m (or n when trans), stride incy
    int64_t incy = 1;
};

// netlib semantics: quick return when m == 0 or n == 0 or (alpha == 0 and
// beta == 1); beta == 0 overwrites y without reading it; negative increments
// walk their vector from the far end. prefetch_elements goes to the kernel (0: none).
ridge_status gemv(const GemvArgs& args, const GemvKernel& kernel, int threads, int64_t prefetch_elements);

}  // namespace ridge
