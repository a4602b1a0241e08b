#include "peers.h"

#include <dlfcn.h>
#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "dispatch/cpu_features.h"

#include "ridge/ridge.h"

namespace ridge_bench {

const char* input_name(InputType t) {
    return t == InputType::f32 ? "f32" : t == InputType::f16 ? "f16" : "bf16";
}
int input_bytes(InputType t) { return t == InputType::f32 ? 4 : 2; }

namespace {

// CBLAS enum values (identical in every CBLAS).
constexpr int kColMajor = 102, kNoTrans = 111, kTrans = 112;
using CblasGemm = void (*)(int, int, int, int, int, int, float, const void*, int, const void*, int,
                           float, float*, int);
using CblasGemv = void (*)(int, int, int, int, float, const void*, int, const void*, int, float, float*, int);

class Ridge final : public GemmLibrary {
public:
    bool supports_gemv(InputType) const override { return true; }
    void gemv(InputType t, bool trans, int64_t m, int64_t n, float alpha, const void* a, int64_t lda,
              const void* x, float beta, float* y) override {
        const ridge_transpose T = trans ? RIDGE_TRANS : RIDGE_NO_TRANS;
        if (t == InputType::f32)
            ridge_sgemv(RIDGE_COL_MAJOR, T, m, n, alpha, static_cast<const float*>(a), lda,
                        static_cast<const float*>(x), 1, beta, y, 1);
        else if (t == InputType::f16)
            ridge_gemv_f16(RIDGE_COL_MAJOR, T, m, n, alpha, static_cast<const uint16_t*>(a), lda,
                           static_cast<const uint16_t*>(x), 1, beta, y, 1);
        else
            ridge_gemv_bf16(RIDGE_COL_MAJOR, T, m, n, alpha, static_cast<const uint16_t*>(a), lda,
                            static_cast<const uint16_t*>(x), 1, beta, y, 1);
    }
    std::string name() const override { return "ridge"; }
    std::string details() const override {
        return std::string("f32 ") + ridge_gemm_kernel_name(RIDGE_F32) + ", f16 " +
               ridge_gemm_kernel_name(RIDGE_F16) + ", bf16 " + ridge_gemm_kernel_name(RIDGE_BF16);
    }
    bool supports(InputType) const override { return true; }
    void set_threads(int threads) override { ridge_set_num_threads(threads); }
    void gemm(InputType t, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
              const void* a, int64_t lda, const void* b, int64_t ldb, float beta, float* c,
              int64_t ldc) override {
        const ridge_transpose TA = ta ? RIDGE_TRANS : RIDGE_NO_TRANS, TB = tb ? RIDGE_TRANS : RIDGE_NO_TRANS;
        if (t == InputType::f32)
            ridge_sgemm(RIDGE_COL_MAJOR, TA, TB, m, n, k, alpha, static_cast<const float*>(a), lda,
                        static_cast<const float*>(b), ldb, beta, c, ldc);
        else if (t == InputType::f16)
            ridge_gemm_f16(RIDGE_COL_MAJOR, TA, TB, m, n, k, alpha, static_cast<const uint16_t*>(a), lda,
                           static_cast<const uint16_t*>(b), ldb, beta, c, ldc);
        else
            ridge_gemm_bf16(RIDGE_COL_MAJOR, TA, TB, m, n, k, alpha, static_cast<const uint16_t*>(a), lda,
                            static_cast<const uint16_t*>(b), ldb, beta, c, ldc);
    }
};

void* open_library(const char* soname) { return dlopen(soname, RTLD_NOW | RTLD_LOCAL); }

template <typename F>
F symbol(void* handle, const char* name) {
    return reinterpret_cast<F>(dlsym(handle, name));
}

// A CBLAS library: cblas_sgemm, and cblas_sbgemm where the build exports it.
class CblasPeer : public GemmLibrary {
public:
    explicit CblasPeer(void* handle)
        : sgemm_(symbol<CblasGemm>(handle, "cblas_sgemm")),
          sbgemm_(symbol<CblasGemm>(handle, "cblas_sbgemm")),
          sgemv_(symbol<CblasGemv>(handle, "cblas_sgemv")),
          sbgemv_(symbol<CblasGemv>(handle, "cblas_sbgemv")) {}
    bool supports_gemv(InputType t) const override {
        return (t == InputType::f32 && sgemv_ != nullptr) || (t == InputType::bf16 && sbgemv_ != nullptr);
    }
    void gemv(InputType t, bool trans, int64_t m, int64_t n, float alpha, const void* a, int64_t lda,
              const void* x, float beta, float* y) override {
        CblasGemv f = t == InputType::f32 ? sgemv_ : sbgemv_;
        f(kColMajor, trans ? kTrans : kNoTrans, int(m), int(n), alpha, a, int(lda), x, 1, beta, y, 1);
    }
    bool ok() const { return sgemm_ != nullptr; }
    bool supports(InputType t) const override {
        return t == InputType::f32 || (t == InputType::bf16 && sbgemm_ != nullptr);
    }
    void gemm(InputType t, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
              const void* a, int64_t lda, const void* b, int64_t ldb, float beta, float* c,
              int64_t ldc) override {
        CblasGemm f = t == InputType::f32 ? sgemm_ : sbgemm_;
        f(kColMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, int(m), int(n), int(k), alpha, a,
          int(lda), b, int(ldb), beta, c, int(ldc));
    }

private:
    CblasGemm sgemm_;
    CblasGemm sbgemm_;
    CblasGemv sgemv_;
    CblasGemv sbgemv_;
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
    // forced_arch: the configuration choose_blis_arch selected, or null.
    Blis(void* h, const char* forced_arch)
        : CblasPeer(h),
          set_threads_(symbol<void (*)(int64_t)>(h, "bli_thread_set_num_threads")),
          arch_id_(symbol<int (*)()>(h, "bli_arch_query_id")),
          arch_string_(symbol<const char* (*)(int)>(h, "bli_arch_string")),
          forced_arch_(forced_arch) {}
    std::string name() const override { return "blis"; }
    std::string details() const override {
        const std::string arch = (arch_id_ && arch_string_) ? arch_string_(arch_id_()) : "?";
        return forced_arch_ ? arch + " (forced by ridge-bench: choose_blis_arch)" : arch;
    }
    void set_threads(int t) override {
        if (set_threads_) set_threads_(t);
    }

private:
    void (*set_threads_)(int64_t);
    int (*arch_id_)();
    const char* (*arch_string_)(int);
    const char* forced_arch_;
};

// BLIS at its best. Debian's BLIS 0.9.0 picks its kernels from the CPU's
// vendor and family when it first initialises, and a CPU it does not know gets
// its generic kernels: on AMD family 26 (Zen 5) 28-29 GFLOP/s at 1024^3 on one
// thread, against 153-154 with its AVX-512 ("skx") kernels, forced. So on a
// CPU whose AVX-512 state the OS saves, unless the caller set BLIS_ARCH_TYPE,
// this selects the skx configuration before BLIS initialises: BLIS_ARCH_TYPE
// is the configuration's index (0 in 0.9.0, checked by name), and BLIS aborts
// on an index it would not pick itself unless its error checking is off
// first ("Accessed uninitialized context in gks", checked here with 3,
// haswell). (BLIS 0.9.0's only AVX-512 configurations are skx and knl: on
// Intel AVX-512 cores it picks skx itself, and on AMD ones no AVX-512 kernels
// at all.) A BLIS_ARCH_TYPE the caller set is kept, with error checking off
// so that it works (the main job's AVX2 table sets haswell's). Returns the
// forced configuration's name, or null.
const char* choose_blis_arch(void* h) {
    const auto arch_string = symbol<const char* (*)(int)>(h, "bli_arch_string");
    const auto set_error_checking = symbol<void (*)(int)>(h, "bli_error_checking_level_set");
    constexpr int kSkxIndex = 0, kNoErrorChecking = 0;  // arch_t's BLIS_ARCH_SKX, errlev_t's BLIS_NO_ERROR_CHECKING
    if (!arch_string || !set_error_checking) return nullptr;
    if (std::getenv("BLIS_ARCH_TYPE")) {
        set_error_checking(kNoErrorChecking);
        return nullptr;
    }
    if (!ridge::cpu_supports(ridge::Isa::avx512) || std::string(arch_string(kSkxIndex)) != "skx") return nullptr;
    set_error_checking(kNoErrorChecking);
    setenv("BLIS_ARCH_TYPE", std::to_string(kSkxIndex).c_str(), 1);
    return "skx";
}

// oneDNN's dnnl_sgemm and dnnl_gemm_bf16bf16f32 are row-major: column-major
// C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T, so the operands swap.
class OneDnn final : public GemmLibrary {
    using DnnlGemm = int (*)(char, char, int64_t, int64_t, int64_t, float, const void*, int64_t,
                             const void*, int64_t, float, float*, int64_t);

public:
    explicit OneDnn(void* h)
        : sgemm_(symbol<DnnlGemm>(h, "dnnl_sgemm")), bf16_(symbol<DnnlGemm>(h, "dnnl_gemm_bf16bf16f32")) {}
    bool ok() const { return sgemm_ != nullptr; }
    std::string name() const override { return "onednn"; }
    std::string details() const override { return "dnnl_sgemm, dnnl_gemm_bf16bf16f32 (OpenMP threads)"; }
    bool supports_gemv(InputType) const override { return false; }  // oneDNN has no GEMV entry point
    void gemv(InputType, bool, int64_t, int64_t, float, const void*, int64_t, const void*, float, float*) override {}
    bool supports(InputType t) const override {
        return t == InputType::f32 || (t == InputType::bf16 && bf16_ != nullptr);
    }
    void set_threads(int t) override { omp_set_num_threads(t); }
    void gemm(InputType t, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
              const void* a, int64_t lda, const void* b, int64_t ldb, float beta, float* c,
              int64_t ldc) override {
        DnnlGemm f = t == InputType::f32 ? sgemm_ : bf16_;
        f(tb ? 'T' : 'N', ta ? 'T' : 'N', n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
    }

private:
    DnnlGemm sgemm_;
    DnnlGemm bf16_;
};

// OpenBLAS's cores by the widest instructions their sgemm uses: 3 AVX-512 with BF16,
// 2 AVX-512, 1 AVX2 + FMA; 0 for anything older (Prescott is its generic fallback).
int openblas_core_tier(const std::string& core) {
    if (core == "Cooperlake" || core == "SapphireRapids") return 3;
    if (core == "SkylakeX") return 2;
    if (core == "Haswell" || core == "Zen") return 1;
    return 0;
}

// The best OpenBLAS core this CPU can run (OpenBLAS 0.3.21's names), "" below AVX2.
const char* best_openblas_core_for_this_cpu() {
    if (ridge::cpu_supports(ridge::Isa::avx512bf16)) return "Cooperlake";
    if (ridge::cpu_supports(ridge::Isa::avx512)) return "SkylakeX";
    if (ridge::cpu_supports(ridge::Isa::avx2)) return "Haswell";
    return "";
}

// The core OpenBLAS picks by itself, read in a child process: OpenBLAS chooses
// once, when it loads, so the parent must not load it before deciding.
std::string openblas_own_core() {
    int fds[2];
    if (pipe(fds) != 0) return "";
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return "";
    }
    if (pid == 0) {
        close(fds[0]);
        const char* name = "";
        if (void* h = open_library("libopenblas.so.0"))
            if (auto corename = symbol<const char* (*)()>(h, "openblas_get_corename")) name = corename();
        ssize_t ignored = write(fds[1], name, std::strlen(name));
        (void)ignored;
        _exit(0);
    }
    close(fds[1]);
    std::string core;
    char buf[64];
    for (ssize_t got; (got = read(fds[0], buf, sizeof buf)) > 0;) core.append(buf, size_t(got));
    close(fds[0]);
    waitpid(pid, nullptr, 0);
    return core;
}

}  // namespace

std::string choose_openblas_core() {
    if (std::getenv("OPENBLAS_CORETYPE")) return "";  // the caller chose: keep it
    const std::string own = openblas_own_core();
    const char* best = best_openblas_core_for_this_cpu();
    if (own.empty() || openblas_core_tier(own) >= openblas_core_tier(best)) return "";
    setenv("OPENBLAS_CORETYPE", best, 1);
    return own;
}

namespace {

std::vector<GemmLibrary*> load_all() {
    std::vector<GemmLibrary*> libs{new Ridge()};
    if (void* h = open_library("libopenblas.so.0")) {
        auto* p = new OpenBlas(h);
        if (p->ok()) libs.push_back(p);
    }
    if (void* h = open_library("libblis.so.4")) {
        auto* p = new Blis(h, choose_blis_arch(h));
        if (p->ok()) libs.push_back(p);
    }
    if (void* h = open_library("libdnnl.so.2")) {
        auto* p = new OneDnn(h);
        if (p->ok()) libs.push_back(p);
    }
    return libs;
}

}  // namespace

std::vector<GemmLibrary*> gemm_libraries() {
    static const std::vector<GemmLibrary*> libs = load_all();  // loaded once, kept for the run
    return libs;
}

}  // namespace ridge_bench
