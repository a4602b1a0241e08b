// Naive GEMM in double, and the error bound results are checked against.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace ridge_test {

// Column-major op(X)(i, j).
inline float op_at(const float* x, int64_t ld, bool trans, int64_t i, int64_t j) {
    return trans ? x[j + i * ld] : x[i + j * ld];
}

// C = alpha*op(A)*op(B) + beta*C in double, column-major; beta == 0 ignores C.
// Each element's sum runs over p in order, from zero. The loops follow A as
// it is stored: A transposed, a dot product down each of its columns; A as
// stored, a column of C at a time down A's columns (the same sums in the same
// order, without a stride of lda per term: the suite's largest shapes spent
// seconds in this loop, under ASan most of a minute).
inline void reference_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                           const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                           std::vector<double>& c, int64_t ldc) {
    std::vector<double> sums(size_t(std::max<int64_t>(m, 1)));
    for (int64_t j = 0; j < n; ++j) {
        if (ta) {
            for (int64_t i = 0; i < m; ++i) {
                double sum = 0.0;
                for (int64_t p = 0; p < k; ++p) sum += double(a[p + i * lda]) * double(op_at(b, ldb, tb, p, j));
                sums[size_t(i)] = sum;
            }
        } else {
            std::fill(sums.begin(), sums.end(), 0.0);
            for (int64_t p = 0; p < k; ++p) {
                const double b_pj = double(op_at(b, ldb, tb, p, j));
                const float* a_p = a + p * lda;
                for (int64_t i = 0; i < m; ++i) sums[size_t(i)] += double(a_p[i]) * b_pj;
            }
        }
        for (int64_t i = 0; i < m; ++i) {
            double& cij = c[i + j * ldc];
            cij = double(alpha) * sums[size_t(i)] + (beta == 0.0f ? 0.0 : double(beta) * cij);
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
