#include "api/checks.h"

#include <algorithm>

namespace ridge {

bool is_trans_char(char c) { return c == 'T' || c == 't' || c == 'C' || c == 'c'; }
bool is_valid_trans_char(char c) { return c == 'N' || c == 'n' || is_trans_char(c); }

int gemm_netlib_info(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t lda,
                      int64_t ldb, int64_t ldc) {
    const int64_t rows_a = is_trans_char(transa) ? k : m;  // rows of A as stored
    const int64_t rows_b = is_trans_char(transb) ? n : k;
    if (!is_valid_trans_char(transa)) return 1;
    if (!is_valid_trans_char(transb)) return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < std::max<int64_t>(1, rows_a)) return 8;
    if (ldb < std::max<int64_t>(1, rows_b)) return 10;
    if (ldc < std::max<int64_t>(1, m)) return 13;
    return 0;
}

int gemv_netlib_info(char trans, int64_t m, int64_t n, int64_t lda, int64_t incx, int64_t incy) {
    if (!is_valid_trans_char(trans)) return 1;
    if (m < 0) return 2;
    if (n < 0) return 3;
    if (lda < std::max<int64_t>(1, m)) return 6;
    if (incx == 0) return 8;
    if (incy == 0) return 11;
    return 0;
}

bool gemm_changes_nothing(int64_t m, int64_t n, int64_t k, float alpha, float beta) {
    return m == 0 || n == 0 || ((alpha == 0.0f || k == 0) && beta == 1.0f);
}

bool gemv_changes_nothing(int64_t m, int64_t n, float alpha, float beta) {
    return m == 0 || n == 0 || (alpha == 0.0f && beta == 1.0f);
}

}  // namespace ridge
