// Under load: 8 threads call ridge_sgemm and ridge_sgemv at once, for a bounded
// time, on random shapes, layouts, transposes and scalars, each with its own
// thread count per call (ridge_set_num_threads is per calling thread), while
// one of them keeps replacing the error handler and making bad calls. Every
// result is checked against a double reference, every bad call must return
// its status and write nothing.
//
// RIDGE_STRESS_SECONDS (default 10) bounds the run; the ThreadSanitizer entry
// runs it longer. RIDGE_STRESS_MAX_CALL_THREADS (default 3) bounds the thread
// count each call asks for: 1 keeps OpenMP out of the picture.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gemm_check.h"
#include "ridge/ridge.h"

using namespace ridge_test;

namespace {

long env_long(const char* name, long fallback) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? std::strtol(v, nullptr, 10) : fallback;
}

// 1..160 mostly, sometimes up to 320 (the blocked, multi-threaded path).
int64_t random_size(std::mt19937& rng) {
    std::uniform_int_distribution<int> pick(0, 9);
    std::uniform_int_distribution<int64_t> small(1, 160), large(161, 320);
    return pick(rng) == 0 ? large(rng) : small(rng);
}

float random_scalar(std::mt19937& rng) {
    const float choices[] = {0.0f, 1.0f, -1.0f, 0.5f, 1.75f};
    return choices[std::uniform_int_distribution<int>(0, 4)(rng)];
}

// One random GEMM through the native API; empty string when right.
std::string one_gemm(std::mt19937& rng) {
    Call call;
    call.row_major = rng() % 2, call.ta = rng() % 2, call.tb = rng() % 2;
    call.m = random_size(rng), call.n = random_size(rng), call.k = random_size(rng);
    call.alpha = random_scalar(rng), call.beta = random_scalar(rng);
    call.lda_pad = rng() % 3, call.ldb_pad = rng() % 3, call.ldc_pad = rng() % 3;
    Operands ops(call, rng);
    const std::vector<double> expect = expected_c(call, ops.a.data(), ops.b.data(), ops.c.data());
    const ridge_status s = ridge_sgemm(call.row_major ? RIDGE_ROW_MAJOR : RIDGE_COL_MAJOR,
                                       call.ta ? RIDGE_TRANS : RIDGE_NO_TRANS, call.tb ? RIDGE_TRANS : RIDGE_NO_TRANS,
                                       call.m, call.n, call.k, call.alpha, ops.a.data(), call.lda(), ops.b.data(),
                                       call.ldb(), call.beta, ops.c.data(), call.ldc());
    if (s != RIDGE_SUCCESS) return call.describe() + ": status " + ridge_status_string(s);
    const double bound = gemm_error_bound(call.k, call.alpha, 1.0, 1.0, call.beta, 1.0);
    if (auto r = values_match(call, ops.c.data(), expect, bound); !r) return r.message();
    if (auto r = ops.c.untouched_outside(); !r) return call.describe() + ": " + r.message();
    if (auto r = ops.a.untouched(); !r) return call.describe() + ": A " + r.message();
    return {};
}

// One random GEMV through the native API (column-major A, strided vectors).
std::string one_gemv(std::mt19937& rng) {
    const bool trans = rng() % 2;
    const int64_t m = random_size(rng), n = random_size(rng), lda = m + int64_t(rng() % 3);
    const int64_t incx = 1 + int64_t(rng() % 2), incy = 1 + int64_t(rng() % 3);
    const float alpha = random_scalar(rng), beta = random_scalar(rng);
    const std::vector<float> a = random_matrix(lda * n, rng);
    const int64_t lenx = trans ? m : n, leny = trans ? n : m;
    const std::vector<float> x = random_matrix(lenx * incx, rng);
    std::vector<float> y = random_matrix(leny * incy, rng);
    const std::vector<float> y0 = y;
    const ridge_status s = ridge_sgemv(RIDGE_COL_MAJOR, trans ? RIDGE_TRANS : RIDGE_NO_TRANS, m, n, alpha, a.data(),
                                       lda, x.data(), incx, beta, y.data(), incy);
    if (s != RIDGE_SUCCESS) return std::string("sgemv: status ") + ridge_status_string(s);
    const double bound = gemm_error_bound(lenx, alpha, 1.0, 1.0, beta, 1.0);
    for (int64_t q = 0; q < leny; ++q) {
        double sum = 0.0;
        if (alpha != 0.0f)
            for (int64_t p = 0; p < lenx; ++p)
                sum += double(trans ? a[size_t(p + q * lda)] : a[size_t(q + p * lda)]) * double(x[size_t(p * incx)]);
        const double want = double(alpha) * sum + (beta == 0.0f ? 0.0 : double(beta) * double(y0[size_t(q * incy)]));
        if (!(std::fabs(double(y[size_t(q * incy)]) - want) <= bound))
            return "sgemv " + std::string(trans ? "T" : "N") + " m=" + std::to_string(m) + " n=" +
                   std::to_string(n) + ": y(" + std::to_string(q) + ") wrong";
    }
    for (size_t i = 0; i < y.size(); ++i)
        if (i % size_t(incy) != 0 && !same_bits(y[i], y0[i])) return "sgemv wrote between the elements of y";
    return {};
}

void counting_handler(ridge_status, const char*, int, const char*, void* data) {
    ++*static_cast<std::atomic<int>*>(data);
}

// A bad call (ldc too small) returns its status, writes nothing, and reaches
// the handler this thread just installed, or none after NULL, while the other
// threads' valid calls run through the same library.
std::string one_bad_call(std::mt19937& rng, std::atomic<int>* count) {
    const bool with_handler = rng() % 2;
    ridge_set_error_handler(with_handler ? counting_handler : nullptr, with_handler ? count : nullptr);
    const int before = count->load();
    std::vector<float> c(64, 2.0f);
    const float a[4] = {1, 2, 3, 4};
    const ridge_status s =
        ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, 8, 8, 2, 1.0f, a, 8, a, 2, 0.0f, c.data(), 4);
    if (s != RIDGE_INVALID_ARGUMENT) return "bad call: status " + std::to_string(int(s));
    for (float v : c)
        if (v != 2.0f) return "bad call wrote C";
    if (count->load() != before + (with_handler ? 1 : 0)) return "the handler was not called exactly as installed";
    return {};
}

TEST(Stress, EightThreadsForABoundedTime) {
    const long seconds = env_long("RIDGE_STRESS_SECONDS", 10);
    const int max_call_threads = int(std::max(1L, env_long("RIDGE_STRESS_MAX_CALL_THREADS", 3)));
    const int workers = 8;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    std::atomic<int> handler_count{0};
    std::vector<std::string> first_error(workers);
    std::vector<long> calls(workers, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < workers; ++t)
        threads.emplace_back([&, t] {
            std::mt19937 rng(test_seed() + uint32_t(t));
            while (std::chrono::steady_clock::now() < deadline && first_error[size_t(t)].empty()) {
                ridge_set_num_threads(1 + int(rng() % unsigned(max_call_threads)));
                std::string err;
                const unsigned what = rng() % 10;
                if (t == 0 && what == 0) err = one_bad_call(rng, &handler_count);
                else if (what < 4) err = one_gemv(rng);
                else err = one_gemm(rng);
                if (!err.empty()) first_error[size_t(t)] = err;
                ++calls[size_t(t)];
            }
        });
    for (std::thread& th : threads) th.join();
    ridge_set_error_handler(nullptr, nullptr);
    long total = 0;
    for (int t = 0; t < workers; ++t) {
        EXPECT_EQ("", first_error[size_t(t)]) << "thread " << t << " (" << seed_note(test_seed() + uint32_t(t)) << ")";
        EXPECT_GT(calls[size_t(t)], 0) << "thread " << t << " made no call";
        total += calls[size_t(t)];
    }
    std::printf("%ld calls from %d threads in %ld s (up to %d threads per call)\n", total, workers, seconds,
                max_call_threads);
}

}  // namespace
