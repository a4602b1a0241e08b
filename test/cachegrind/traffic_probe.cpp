// One fp32 GEMM through the blocked driver with a given blocking, for
// cachegrind: `traffic_probe m n k KC MC NC gemm|init`. With "init" it only
// allocates and fills the matrices, so two runs' difference is the GEMM's own
// cache misses. Prints the bytes the driver counted crossing the memory level,
// and what that means in cache-line fills (see check_traffic.py).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dispatch/dispatch.h"
#include "gemm/gemm.h"
#include "gemm/workspace.h"

int main(int argc, char** argv) {
    if (argc != 8) {
        std::fprintf(stderr, "usage: traffic_probe m n k KC MC NC gemm|init\n");
        return 2;
    }
    const int64_t m = std::atoll(argv[1]), n = std::atoll(argv[2]), k = std::atoll(argv[3]);
    const ridge::GemmKernel* ker = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel;
    ridge::BlockingParams bp{ker->MR, ker->NR, std::atoll(argv[4]), std::atoll(argv[5]), std::atoll(argv[6])};
    // 64-byte aligned, with m and k multiples of 16 floats in the cases checked,
    // so every column run starts a cache line: the count is in bytes, and a run
    // starting mid-line would cost the cache one line more than its bytes say.
    ridge::AlignedBuffer a_buf, b_buf, c_buf;
    float* a = a_buf.reserve(size_t(m * k));
    float* b = b_buf.reserve(size_t(k * n));
    float* c = c_buf.reserve(size_t(m * n));
    const size_t a_size = size_t(m * k), b_size = size_t(k * n), c_size = size_t(m * n);
    for (size_t i = 0; i < a_size; ++i) a[i] = float(i % 7) * 0.1f;
    for (size_t i = 0; i < b_size; ++i) b[i] = float(i % 5) * 0.1f;
    for (size_t i = 0; i < c_size; ++i) c[i] = 0.0f;
    if (std::strcmp(argv[7], "gemm") != 0) return 0;
    ridge::GemmArgs g;
    g.m = m, g.n = n, g.k = k, g.alpha = 1.0f, g.beta = 0.0f;
    g.a = a, g.lda = m, g.b = b, g.ldb = k, g.c = c, g.ldc = m;
    ridge::Traffic t;
    ridge::GemmPlan plan;
    plan.kernel = ker, plan.blocking = bp, plan.threads = 1, plan.traffic = &t;
    if (ridge::gemm(g, plan) != RIDGE_SUCCESS) return 1;
    // The count includes C written back once per KC block; a cache simulator
    // without write-back accounting (cachegrind) sees each line of C enter the
    // cache once per KC block instead: its fills are the count minus one C per
    // later block (C's writes after a read of the same block hit).
    const int64_t passes = (k + bp.KC - 1) / bp.KC;
    const double fills = t.memory - 4.0 * double(m) * n * double(passes - 1);
    std::printf("counted_memory_bytes %.0f\nexpected_fill_bytes %.0f\n", t.memory, fills);
    return 0;
}
