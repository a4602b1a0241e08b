// Naive GEMM in double, and the error bound results are checked against.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace ridge_test {

// C = alpha*op(A)*op(B) + beta*C in double, column-major; beta == 0 ignores C.
// Each element's sum runs over p in order, from zero. The loops follow A as
// it is stored: A transposed, a dot product down each of its columns; A as
// stored, a column of C at a time down A's columns (the same sums in the same
// order, without a stride of lda per term: the suite's largest shapes spent
// seconds in this loop, under ASan most of a minute). Not instrumented by the
// sanitizers (raw pointers, no calls in the loops): they are there for the
// library, and this loop was three quarters of the sanitized
// Sgemm.SmallKernelKeptToTheSmallPathUpToItsLimit's time.
__attribute__((no_sanitize("address", "undefined"))) inline void reference_gemm(
    bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
    int64_t ldb, float beta, std::vector<double>& c, int64_t ldc) {
    std::vector<double> sums_storage(size_t(std::max<int64_t>(m, 1)));
    double* sums = sums_storage.data();
    double* cc = c.data();
    // op(B)(p, j) lies at p * b_step_p + j * b_step_j.
    const int64_t b_step_p = tb ? ldb : 1, b_step_j = tb ? 1 : ldb;
    for (int64_t j = 0; j < n; ++j) {
        const float* b_j = b + j * b_step_j;
        if (ta) {
            for (int64_t i = 0; i < m; ++i) {
                const float* a_i = a + i * lda;
                double sum = 0.0;
                for (int64_t p = 0; p < k; ++p) sum += double(a_i[p]) * double(b_j[p * b_step_p]);
                sums[i] = sum;
            }
        } else {
            for (int64_t i = 0; i < m; ++i) sums[i] = 0.0;
            for (int64_t p = 0; p < k; ++p) {
                const double b_pj = double(b_j[p * b_step_p]);
                const float* a_p = a + p * lda;
                for (int64_t i = 0; i < m; ++i) sums[i] += double(a_p[i]) * b_pj;
            }
        }
        for (int64_t i = 0; i < m; ++i) {
            double& cij = cc[i + j * ldc];
            cij = double(alpha) * sums[i] + (beta == 0.0f ? 0.0 : double(beta) * cij);
        }
    }
}

// |computed - exact| <= tol_factor * (k + 2) * eps * (|alpha| max|a| max|b| k + |beta| max|c|)
// is the textbook forward bound for a dot product of length k accumulated in
// fp32 (Higham, Accuracy and Stability, 3.1), plus the final scaling.
inline double gemm_error_bound(int64_t k, float alpha, double max_a, double max_b, float beta,
                               double max_c) {
    const double eps = std::numeric_limits<float>::epsilon();
    const double magnitude = std::fabs(alpha) * max_a * max_b * double(std::max<int64_t>(k, 1)) +
                             std::fabs(beta) * max_c;
    return 2.0 * double(k + 2) * eps * magnitude + std::numeric_limits<float>::min();
}

inline std::vector<float> random_matrix(int64_t count, std::mt19937& rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(size_t(std::max<int64_t>(count, 1)));
    for (float& x : v) x = dist(rng);
    return v;
}

}  // namespace ridge_test
