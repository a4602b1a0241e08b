// The BLAS libraries ridge-bench compares against, loaded with dlopen so that
// their sgemm_/cblas_sgemm never clash with ridge's or each other's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ridge_bench {

// What A and B hold; C is fp32 for every benchmarked routine.
enum class InputType { f32, f16, bf16 };
const char* input_name(InputType t);
int input_bytes(InputType t);

class GemmLibrary {
public:
    virtual ~GemmLibrary() = default;
    virtual std::string name() const = 0;
    // What the library says about itself (kernel/core it picked), for the benchmark context.
    virtual std::string details() const = 0;
    virtual bool supports(InputType t) const = 0;
    virtual void set_threads(int threads) = 0;
    // Column-major C = alpha*op(A)*op(B) + beta*C, A and B of type t.
    virtual void gemm(InputType t, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                      const void* a, int64_t lda, const void* b, int64_t ldb, float beta, float* c,
                      int64_t ldc) = 0;
    virtual bool supports_gemv(InputType t) const = 0;
    // Column-major y = alpha*op(A)*x + beta*y, A and x of type t, unit strides.
    virtual void gemv(InputType t, bool trans, int64_t m, int64_t n, float alpha, const void* a,
                      int64_t lda, const void* x, float beta, float* y) = 0;
};

// OpenBLAS at its best. Called before any peer loads, with OPENBLAS_CORETYPE
// unset: OpenBLAS picks its kernels from the CPU model, and a model newer than
// the build gets its generic Prescott kernels (Debian's 0.3.21 on family 6
// model 207, an Emerald Rapids Xeon: 33 instead of ~170 GFLOP/s). Then this sets
// OPENBLAS_CORETYPE to the best core the CPU can run and returns OpenBLAS's own
// pick; otherwise it changes nothing and returns "".
std::string choose_openblas_core();

// ridge first, then every peer that is installed (OpenBLAS, BLIS, oneDNN).
std::vector<GemmLibrary*> gemm_libraries();

}  // namespace ridge_bench
