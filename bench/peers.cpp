#include "peers.h"

#include <dlfcn.h>
#include <omp.h>

#include "ridge/ridge.h"

namespace ridge_bench {
namespace {

// CBLAS enum values (identical in every CBLAS).
constexpr int kColMajor = 102, kNoTrans = 111, kTrans = 112;
using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                            int, float, float*, int);

class Ridge final : public SgemmLibrary {
public:
    std::string name() const override { return "ridge"; }
    std::string details() const override { return ridge_sgemm_kernel_name(); }
    void set_threads(int threads) override { ridge_set_num_threads(threads); }
    void sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) override {
        ridge_sgemm(RIDGE_COL_MAJOR, ta ? RIDGE_TRANS : RIDGE_NO_TRANS, tb ? RIDGE_TRANS : RIDGE_NO_TRANS,
                    m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    }
};

void* open_library(const char* soname) { return dlopen(soname, RTLD_NOW | RTLD_LOCAL); }

template <typename F>
F symbol(void* handle, const char* name) {
    return reinterpret_cast<F>(dlsym(handle, name));
}

class CblasPeer : public SgemmLibrary {
public:
    explicit CblasPeer(void* handle) : sgemm_(symbol<CblasSgemm>(handle, "cblas_sgemm")) {}
    bool ok() const { return sgemm_ != nullptr; }
    void sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) override {
        sgemm_(kColMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, int(m), int(n), int(k), alpha,
               a, int(lda), b, int(ldb), beta, c, int(ldc));
    }

private:
    CblasSgemm sgemm_;
};

class OpenBlas final : public CblasPeer {
public:
    explicit OpenBlas(void* h)
        : CblasPeer(h),
          set_threads_(symbol<void (*)(int)>(h, "openblas_set_num_threads")),
          corename_(symbol<const char* (*)()>(h, "openblas_get_corename")) {}
    std::string name() const override { return "openblas"; }
    std::string details() const override { return corename_ ? corename_() : "?"; }
    void set_threads(int t) override {
        if (set_threads_) set_threads_(t);
    }

private:
    void (*set_threads_)(int);
    const char* (*corename_)();
};

class Blis final : public CblasPeer {
public:
    explicit Blis(void* h)
        : CblasPeer(h),
          set_threads_(symbol<void (*)(int64_t)>(h, "bli_thread_set_num_threads")),
          arch_id_(symbol<int (*)()>(h, "bli_arch_query_id")),
          arch_string_(symbol<const char* (*)(int)>(h, "bli_arch_string")) {}
    std::string name() const override { return "blis"; }
    std::string details() const override {
        return (arch_id_ && arch_string_) ? arch_string_(arch_id_()) : "?";
    }
    void set_threads(int t) override {
        if (set_threads_) set_threads_(t);
    }

private:
    void (*set_threads_)(int64_t);
    int (*arch_id_)();
    const char* (*arch_string_)(int);
};

// oneDNN's dnnl_sgemm is row-major: column-major C = op(A) op(B) is row-major
// C^T = op(B)^T op(A)^T, so the operands swap.
class OneDnn final : public SgemmLibrary {
    using DnnlSgemm = int (*)(char, char, int64_t, int64_t, int64_t, float, const float*, int64_t,
                              const float*, int64_t, float, float*, int64_t);

public:
    explicit OneDnn(void* h) : sgemm_(symbol<DnnlSgemm>(h, "dnnl_sgemm")) {}
    bool ok() const { return sgemm_ != nullptr; }
    std::string name() const override { return "onednn"; }
    std::string details() const override { return "dnnl_sgemm (OpenMP threads)"; }
    void set_threads(int t) override { omp_set_num_threads(t); }
    void sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) override {
        sgemm_(tb ? 'T' : 'N', ta ? 'T' : 'N', n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
    }

private:
    DnnlSgemm sgemm_;
};

std::vector<SgemmLibrary*> load_all() {
    std::vector<SgemmLibrary*> libs{new Ridge()};
    if (void* h = open_library("libopenblas.so.0")) {
        auto* p = new OpenBlas(h);
        if (p->ok()) libs.push_back(p);
    }
    if (void* h = open_library("libblis.so.4")) {
        auto* p = new Blis(h);
        if (p->ok()) libs.push_back(p);
    }
    if (void* h = open_library("libdnnl.so.2")) {
        auto* p = new OneDnn(h);
        if (p->ok()) libs.push_back(p);
    }
    return libs;
}

}  // namespace

std::vector<SgemmLibrary*> sgemm_libraries() {
    static const std::vector<SgemmLibrary*> libs = load_all();  // loaded once, kept for the run
    return libs;
}

}  // namespace ridge_bench
