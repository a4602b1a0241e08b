// After the API layer has checked and normalized: the cases that need no
// multiplication, then the blocked path.
#include <cstdint>

#include "gemm/gemm.h"

namespace ridge {
namespace {

// C = beta * C; beta == 0 writes zeros without reading C (netlib: a NaN in C does not survive).
void scale_c(int64_t m, int64_t n, float beta, float* c, int64_t ldc) {
    if (beta == 1.0f) return;
    for (int64_t j = 0; j < n; ++j) {
        float* cj = c + j * ldc;
        if (beta == 0.0f)
            for (int64_t i = 0; i < m; ++i) cj[i] = 0.0f;
        else
            for (int64_t i = 0; i < m; ++i) cj[i] *= beta;
    }
}

// The cases with nothing to multiply: true when C is done.
bool no_product(const GemmArgs& g) {
    if (g.m == 0 || g.n == 0) return true;
    if (g.alpha != 0.0f && g.k != 0) return false;
    scale_c(g.m, g.n, g.beta, g.c, g.ldc);  // A and B are never read
    return true;
}

}  // namespace

ridge_status gemm_small(const GemmArgs& g, const GemmKernel& kernel, int threads, int64_t a_block_floats,
                        int64_t k_step) {
    if (no_product(g)) return RIDGE_SUCCESS;
    return gemm_small_f32(g, kernel, threads, a_block_floats, k_step);
}

ridge_status gemm(const GemmArgs& g, const GemmPlan& plan) {
    if (no_product(g)) return RIDGE_SUCCESS;
    if (plan.small_path)
        return gemm_small_f32(g, *plan.kernel, plan.threads, plan.small_a_block_floats, plan.blocking.KC,
                              plan.small_k_steps_outside);
    if (plan.skinny_path) return gemm_skinny_n(g, *plan.kernel, plan.threads, plan.a_from_memory);
    if (plan.skinny_m_path) return gemm_skinny_m_f32(g, *plan.kernel, plan.threads, plan.few_rows_k_pass);
    if (plan.skinny_trans_a_path) return gemm_skinny_n_trans_a_f32(g, *plan.kernel, plan.threads, plan.few_rows_k_pass);
    if (plan.skinny_trans_b_path) return gemm_skinny_m_trans_b(g, *plan.kernel, plan.threads, plan.b_from_memory);
    if (plan.rows_in_place_path) return gemm_rows_in_place(g, *plan.kernel, plan.threads);
    return gemm_blocked(g, plan);
}

}  // namespace ridge
