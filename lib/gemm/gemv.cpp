// The GEMV driver: vectors into contiguous fp32 form, y scaled by beta, then
// the kernel over A, split among threads so that each streams its own part
// of A: rows without transpose (each thread owns a piece of y), columns with
// transpose (each thread owns some y entries). Either way every element of y
// sees the same operations in the same order for any thread count.
#include "gemm/gemv.h"

#include <omp.h>

#include <algorithm>

#include "gemm/workspace.h"
#include "kernels/convert.h"

namespace ridge {
namespace {

// Element q of a BLAS vector of length len and increment inc.
int64_t vector_index(int64_t q, int64_t len, int64_t inc) { return inc > 0 ? q * inc : (q - len + 1) * inc; }

float element_as_f32(Dtype t, const void* base, int64_t index) {
    switch (t) {
        case Dtype::f32:
            return static_cast<const float*>(base)[index];
        case Dtype::f16:
            return f16_to_f32(static_cast<const uint16_t*>(base)[index]);
        case Dtype::bf16:
            return bf16_to_f32(static_cast<const uint16_t*>(base)[index]);
    }
    return 0.0f;
}

// [first, last) of `count` for part `index` of `parts`, in whole multiples of `grain`.
void share(int64_t count, int parts, int index, int64_t grain, int64_t* first, int64_t* last) {
    const int64_t units = (count + grain - 1) / grain;
    const int64_t per = units / parts, extra = units % parts;
    const int64_t u0 = index * per + std::min<int64_t>(index, extra);
    const int64_t u1 = u0 + per + (index < extra ? 1 : 0);
    *first = std::min(count, u0 * grain);
    *last = std::min(count, u1 * grain);
}

}  // namespace

ridge_status gemv(const GemvArgs& g, const GemvKernel& ker, int threads, int64_t prefetch_elements) {
    if (g.m == 0 || g.n == 0 || (g.alpha == 0.0f && g.beta == 1.0f)) return RIDGE_SUCCESS;
    const int64_t lenx = g.trans ? g.m : g.n, leny = g.trans ? g.n : g.m;

    // x as contiguous fp32 (converted or gathered when it is not already).
    Workspace* ws = this_thread_workspace();
    if (ws == nullptr) return RIDGE_OUT_OF_MEMORY;
    const float* x = static_cast<const float*>(g.x);
    const bool x_direct = g.input == Dtype::f32 && g.incx == 1;
    const bool y_direct = g.incy == 1;
    float* scratch = nullptr;
    if (!x_direct || !y_direct) {
        scratch = ws->packed_b.reserve(size_t((x_direct ? 0 : lenx) + (y_direct ? 0 : leny)));
        if (scratch == nullptr) return RIDGE_OUT_OF_MEMORY;
    }
    if (!x_direct) {
        for (int64_t q = 0; q < lenx; ++q) scratch[q] = element_as_f32(g.input, g.x, vector_index(q, lenx, g.incx));
        x = scratch;
    }
    float* y = y_direct ? g.y : scratch + (x_direct ? 0 : lenx);
    // y = beta * y; beta == 0 writes zeros without reading y.
    for (int64_t q = 0; q < leny; ++q) {
        float& dst = y_direct ? g.y[q] : y[q];
        const float old = g.beta == 0.0f ? 0.0f : (y_direct ? g.y[q] : g.y[vector_index(q, leny, g.incy)]);
        dst = g.beta == 0.0f ? 0.0f : g.beta * old;
    }
    if (g.alpha != 0.0f) {
        const int64_t elem = dtype_bytes(g.input);
        const char* a = static_cast<const char*>(g.a);
        auto run = [&](int part, int parts) {
            int64_t first, last;
            if (!g.trans) {  // rows: whole cache lines of y apart
                share(g.m, parts, part, 16, &first, &last);
                if (first < last)
                    ker.n(last - first, g.n, g.alpha, a + first * elem, g.lda, x, y + first, prefetch_elements);
            } else {         // columns
                share(g.n, parts, part, 1, &first, &last);
                if (first < last)
                    ker.t(g.m, last - first, g.alpha, a + first * g.lda * elem, g.lda, x, y + first, prefetch_elements);
            }
        };
        if (threads <= 1) {
            run(0, 1);
        } else {
#pragma omp parallel num_threads(threads)
            run(omp_get_thread_num(), omp_get_num_threads());
        }
    }
    if (!y_direct)
        for (int64_t q = 0; q < leny; ++q) g.y[vector_index(q, leny, g.incy)] = y[q];
    return RIDGE_SUCCESS;
}

}  // namespace ridge
