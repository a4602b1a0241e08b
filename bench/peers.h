// The BLAS libraries ridge-bench compares against, loaded with dlopen so that
// their sgemm_/cblas_sgemm never clash with ridge's or each other's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ridge_bench {

class SgemmLibrary {
public:
    virtual ~SgemmLibrary() = default;
    virtual std::string name() const = 0;
    // What the library says about itself (kernel/core it picked), for the benchmark context.
    virtual std::string details() const = 0;
    virtual void set_threads(int threads) = 0;
    // Column-major C = alpha*op(A)*op(B) + beta*C.
    virtual void sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                       const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                       float* c, int64_t ldc) = 0;
};

// ridge first, then every peer that is installed (OpenBLAS, BLIS, oneDNN).
std::vector<SgemmLibrary*> sgemm_libraries();

}  // namespace ridge_bench
