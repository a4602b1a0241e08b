// What holds when ridge runs in production rather than in a benchmark:
// - 64-bit index arithmetic: leading dimensions beyond 2^31 elements through the
//   native API (sparse mappings: only the touched pages become resident);
// - out of memory for packing buffers: the native API returns
//   RIDGE_OUT_OF_MEMORY and tells the handler, the BLAS interfaces tell xerbla
//   and cblas_xerbla INFO 1089, and C is untouched; a later call with memory
//   succeeds (forced with RLIMIT_DATA in a forked child);
// - the error handler: user_data passed through, replaced, NULL restoring the
//   silent default, a handler that calls ridge itself;
// - fork: a child calls ridge after its parent ran multi-threaded calls;
// - a caller's OpenMP region: ridge starts no thread of its own inside it
//   (threads counted in /proc/self/task).
//
// This executable defines xerbla_ and cblas_xerbla (the library's are weak).
#include <dirent.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "gemm_check.h"
#include "ridge/cblas.h"
#include "ridge/ridge.h"
#include "sparse_buffer.h"

using namespace ridge_test;

namespace {

struct XerblaLog {
    std::atomic<int> calls{0};
    std::atomic<int> info{0};
    std::atomic<int> cblas_calls{0};
    std::atomic<int> cblas_info{0};
    char routine[16] = {};
    char cblas_routine[32] = {};
};
XerblaLog g_xerbla;

}  // namespace

extern "C" void xerbla_(const char* routine, const int* info, size_t routine_len) {
    ++g_xerbla.calls;
    g_xerbla.info = info != nullptr ? *info : -1;
    std::snprintf(g_xerbla.routine, sizeof g_xerbla.routine, "%.*s", int(strnlen(routine, routine_len)), routine);
}

extern "C" void cblas_xerbla(int info, const char* routine, const char* form, ...) {
    ++g_xerbla.cblas_calls;
    g_xerbla.cblas_info = info;
    std::snprintf(g_xerbla.cblas_routine, sizeof g_xerbla.cblas_routine, "%s", routine ? routine : "");
    (void)form;
}

namespace {

// --- helpers ---

// Runs `body` in a forked child, which exits with body's result; returns the
// child's exit code, or 128 + signal when it died (e.g. SIGALRM after
// `timeout_s`: a hang). The child reports failures on stderr.
int run_in_child(const std::function<int()>& body, unsigned timeout_s) {
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        alarm(timeout_s);
        const int rc = body();
        std::fflush(stderr);
        _exit(rc);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return -1;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

// Threads of this process, counted as the kernel sees them.
int process_thread_count() {
    DIR* dir = opendir("/proc/self/task");
    if (dir == nullptr) return -1;
    int count = 0;
    while (dirent* entry = readdir(dir))
        if (entry->d_name[0] != '.') ++count;
    closedir(dir);
    return count;
}

// C = A * B in double for column-major operands: the reference for square-ish tests.
std::vector<double> reference_product(int64_t m, int64_t n, int64_t k, const std::vector<float>& a,
                                      const std::vector<float>& b) {
    std::vector<double> c(size_t(m * n), 0.0);
    reference_gemm(false, false, m, n, k, 1.0f, a.data(), m, b.data(), k, 0.0f, c, m);
    return c;
}

bool matches(const std::vector<float>& got, const std::vector<double>& want, int64_t k) {
    const double bound = gemm_error_bound(k, 1.0f, 1.0, 1.0, 0.0f, 0.0);
    for (size_t i = 0; i < got.size(); ++i)
        if (!(std::fabs(double(got[i]) - want[i]) <= bound)) return false;
    return true;
}

// --- 64-bit index arithmetic ---

// 2^31 + 64: every column offset j * ld with j >= 1 overflows 32-bit arithmetic.
constexpr int64_t kLd = (int64_t(1) << 31) + 64;

float a_value(int64_t i, int64_t p) { return float((i * 3 + p * 5) % 7) - 3.0f; }
float b_value(int64_t p, int64_t j) { return float((p * 2 + j * 7) % 5) - 2.0f; }

// One native GEMM with every matrix's lines `ld` floats apart, checked exactly
// (small integers: every product and sum is exact in fp32 whatever the order).
void check_huge_ld(ridge_layout layout, bool ta, bool tb, int64_t m, int64_t n, int64_t k, int64_t ld = kLd) {
    const bool row = layout == RIDGE_ROW_MAJOR;
    SCOPED_TRACE(std::string(row ? "row-major " : "col-major ") + (ta ? "T" : "N") + (tb ? "T" : "N") +
                 " m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k));
    // Lines (columns, or rows when row-major) and their length, as stored.
    const Extent ea = extent(row, ta ? k : m, ta ? m : k), eb = extent(row, tb ? n : k, tb ? k : n),
                 ec = extent(row, m, n);
    SparseBuffer a(size_t(ld * (ea.outer - 1) + ea.inner)), b(size_t(ld * (eb.outer - 1) + eb.inner)),
        c(size_t(ld * (ec.outer - 1) + ec.inner + 1));
    ASSERT_NE(nullptr, a.data()) << "no sparse mapping (vm.overcommit_memory = 2?)";
    ASSERT_NE(nullptr, b.data());
    ASSERT_NE(nullptr, c.data());
    for (int64_t i = 0; i < m; ++i)
        for (int64_t p = 0; p < k; ++p)
            a.data()[ta ? offset_of(row, ld, p, i) : offset_of(row, ld, i, p)] = a_value(i, p);
    for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j)
            b.data()[tb ? offset_of(row, ld, j, p) : offset_of(row, ld, p, j)] = b_value(p, j);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) c.data()[offset_of(row, ld, i, j)] = 1.0f;
    for (int64_t line = 0; line < ec.outer; ++line) c.data()[line * ld + ec.inner] = sentinel();

    const ridge_status s = ridge_sgemm(layout, ta ? RIDGE_TRANS : RIDGE_NO_TRANS, tb ? RIDGE_TRANS : RIDGE_NO_TRANS,
                                       m, n, k, 1.0f, a.data(), ld, b.data(), ld, 2.0f, c.data(), ld);
    ASSERT_EQ(RIDGE_SUCCESS, s);
    // Expected in double from the generating functions (no strided reads). Every
    // partial sum is an integer below 2^24, exact in fp32 in any order.
    std::vector<double> want(size_t(m * n), 2.0);
    for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j) {
            const double bpj = b_value(p, j);
            for (int64_t i = 0; i < m; ++i) want[size_t(i + j * m)] += double(a_value(i, p)) * bpj;
        }
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
            EXPECT_EQ(float(want[size_t(i + j * m)]), c.data()[offset_of(row, ld, i, j)])
                << "C(" << i << "," << j << ")";
    for (int64_t line = 0; line < ec.outer; ++line)
        EXPECT_TRUE(same_bits(sentinel(), c.data()[line * ld + ec.inner])) << "written past line " << line;
}

// The unpacked paths: small problems, and few columns of C with a tall,
// untransposed A (the "skinny" path: n <= 64, m >= 2 MR, too much work for
// the small path). There A has k = 20000 columns, so its offsets pass 2^31
// with a leading dimension of 120000 (one touched page per column, 80 MB).
TEST(LargeIndex, SmallProblemWithHugeLeadingDimensions) {
    check_huge_ld(RIDGE_COL_MAJOR, false, false, 16, 3, 2);
    check_huge_ld(RIDGE_COL_MAJOR, false, false, 80, 3, 20000, 120000);
    check_huge_ld(RIDGE_COL_MAJOR, true, true, 16, 3, 2);
    check_huge_ld(RIDGE_ROW_MAJOR, false, false, 3, 16, 2);
    EXPECT_LT(peak_rss_mib(), 512) << "the gaps between lines were touched";
}

// Long k with few lines per matrix: op(A) = A^T stored k x m and B k x n keep
// m and n lines of k contiguous floats, so the packed (blocked) path runs on
// 64-bit offsets; 2 m n k = 19 MFLOP is enough work for ridge to give it two
// threads when the machine has them.
TEST(LargeIndex, BlockedProblemWithHugeLeadingDimensions) {
    check_huge_ld(RIDGE_COL_MAJOR, true, false, 4, 3, 800000);
    check_huge_ld(RIDGE_ROW_MAJOR, false, true, 4, 3, 800000);
    EXPECT_LT(peak_rss_mib(), 512) << "the gaps between lines were touched";
}

TEST(LargeIndex, GemvWithHugeLeadingDimension) {
    for (bool trans : {false, true}) {
        const int64_t m = 16, n = 3;  // A m x n, columns kLd apart
        SparseBuffer a(size_t(kLd * (n - 1) + m));
        ASSERT_NE(nullptr, a.data());
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) a.data()[i + j * kLd] = a_value(i, j);
        const int64_t lenx = trans ? m : n, leny = trans ? n : m;
        std::vector<float> x(size_t(lenx), 1.0f), y(size_t(leny), 5.0f);
        ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemv(RIDGE_COL_MAJOR, trans ? RIDGE_TRANS : RIDGE_NO_TRANS, m, n, 1.0f,
                                             a.data(), kLd, x.data(), 1, 0.0f, y.data(), 1));
        for (int64_t q = 0; q < leny; ++q) {
            float want = 0.0f;
            for (int64_t p = 0; p < lenx; ++p) want += trans ? a_value(p, q) : a_value(q, p);
            EXPECT_EQ(want, y[size_t(q)]) << (trans ? "T" : "N") << " y(" << q << ")";
        }
    }
    // A GEMM with one column of C becomes a GEMV inside ridge: same offsets, other door.
    SparseBuffer a(size_t(kLd * 1 + 16));
    ASSERT_NE(nullptr, a.data());
    for (int64_t i = 0; i < 16; ++i)
        for (int64_t p = 0; p < 2; ++p) a.data()[i + p * kLd] = a_value(i, p);
    const float b[2] = {1.0f, 2.0f};
    std::vector<float> c(16, 0.0f);
    ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, 16, 1, 2, 1.0f, a.data(),
                                         kLd, b, 2, 0.0f, c.data(), 16));
    for (int64_t i = 0; i < 16; ++i) EXPECT_EQ(a_value(i, 0) + 2.0f * a_value(i, 1), c[size_t(i)]);
}

// --- out of memory ---

struct HandlerLog {
    std::atomic<int> calls{0};
    std::atomic<int> status{RIDGE_SUCCESS};
    std::atomic<int> argument{-1};
    std::atomic<void*> user_data{nullptr};
    char function[32] = {};
};
HandlerLog g_handler;

void record_handler(ridge_status status, const char* function, int argument, const char*, void* user_data) {
    ++g_handler.calls;
    g_handler.status = status;
    g_handler.argument = argument;
    g_handler.user_data = user_data;
    std::snprintf(g_handler.function, sizeof g_handler.function, "%s", function ? function : "");
}

// The process's memory now, in bytes: `field` of /proc/self/status (e.g.
// VmData: private writable memory, heaps included).
long status_bytes(const char* field) {
    FILE* f = std::fopen("/proc/self/status", "r");
    if (f == nullptr) return -1;
    char line[256];
    long kib = -1;
    const size_t len = std::strlen(field);
    while (std::fgets(line, sizeof line, f) != nullptr)
        if (std::strncmp(line, field, len) == 0 && line[len] == ':') kib = std::strtol(line + len + 1, nullptr, 10);
    std::fclose(f);
    return kib < 0 ? -1 : kib * 1024;
}

// No room for one more byte of writable memory from the system: RLIMIT_DATA
// (Linux >= 4.7) bounds every private writable mapping: new mmaps, brk, and the
// mprotect with which glibc's per-thread arenas grow inside the address space
// they reserved. (RLIMIT_AS sees none of that growth, and a tight RLIMIT_AS even
// disarms the RLIMIT_DATA check on mprotect, so it is left alone.) Memory
// malloc already holds stays usable; the packing buffers (hundreds of KiB to a
// few MiB) are far beyond what a fresh child holds.
bool forbid_new_memory(rlimit* saved) {
    const long data = status_bytes("VmData");
    if (data <= 0 || getrlimit(RLIMIT_DATA, saved) != 0) return false;
    rlimit limit = *saved;
    limit.rlim_cur = rlim_t(data);
    return setrlimit(RLIMIT_DATA, &limit) == 0;
}

// A check in a forked child, where gtest's assertions would report to nobody:
// false (and the failure on stderr) when `ok` is false.
bool child_check(bool ok, const char* what) {
    if (!ok) std::fprintf(stderr, "child: check failed: %s\n", what);
    return ok;
}

// The child's body: see the OutOfMemory tests. `warm_thread`: the worker makes
// one call that sets up its per-thread packing state (a few bytes of buffer)
// before the limit, so that only buffer growth meets the limit.
int out_of_memory_child(bool warm_thread) {
    // Operands of a problem that needs packing buffers of a few MiB, allocated
    // while memory is plentiful; C holds values any write would change.
    const int64_t m = 2048, n = 512, k = 512;
    std::vector<float> a(size_t(m * k)), b(size_t(k * n)), c(size_t(m * n));
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng);
    for (float& v : c) v = dist(rng);
    const std::vector<float> c_before = c;
    // A GEMV whose strided x must be gathered into a 400 KB scratch buffer.
    const int64_t gm = 8, gn = 100000;
    std::vector<float> ga(size_t(gm * gn), 0.5f), gx(size_t(2 * gn), 1.0f), gy(size_t(gm), 3.0f);
    const std::vector<float> gy_before = gy;
    // Few rows with B transposed: the skinny path on C^T needs a scratch copy of
    // C^T, a block of rows of it (1024 with B from memory, as here: 256 KiB at
    // 64 columns, more than malloc hands out from memory it already holds).
    const int64_t tm = 64, tn = 4096, tk = 600;
    std::vector<float> ta(size_t(tm * tk), 0.5f), tb(size_t(tn * tk), 0.25f), tc(size_t(tm * tn), 3.0f);
    const std::vector<float> tc_before = tc;

    int token = 0;
    ridge_set_error_handler(record_handler, &token);
    // First use with memory: what is decided once per process (ISA, caches,
    // blocking) is not what this test is about.
    float tiny[4] = {1, 1, 1, 1}, tiny_c[4] = {};
    if (!child_check(ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, 2, 2, 2, 1.0f, tiny, 2, tiny,
                                 2, 0.0f, tiny_c, 2) == RIDGE_SUCCESS,
                     "a first call with memory succeeds"))
        return 1;

    // A fresh thread has no packing buffers yet; it starts (its stack mapped)
    // before the limit and runs its calls under it, on one thread so that no
    // OpenMP thread need be created either.
    std::atomic<int> stage{0};
    int failures = 0;
    std::thread worker([&] {
        ridge_set_num_threads(1);
        if (warm_thread) {  // a strided x is gathered into the thread's (new) workspace
            float wa[4] = {1, 1, 1, 1}, wx[4] = {1, 0, 1, 0}, wy[2] = {};
            ridge_sgemv(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, 2, 2, 1.0f, wa, 2, wx, 2, 0.0f, wy, 1);
        }
        stage = 1;
        while (stage != 2) std::this_thread::yield();

        const char no = 'N';
        const int im = int(m), in = int(n), ik = int(k);
        const float one = 1.0f, half = 0.5f;
        // The native API: a status, the handler told, C untouched.
        g_handler.calls = 0;
        const ridge_status s = ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, n, k, 1.0f,
                                           a.data(), m, b.data(), k, 0.5f, c.data(), m);
        if (s != RIDGE_OUT_OF_MEMORY) ++failures, std::fprintf(stderr, "child: ridge_sgemm returned %d\n", s);
        if (g_handler.calls != 1 || g_handler.status != RIDGE_OUT_OF_MEMORY || g_handler.user_data != &token ||
            std::strcmp(g_handler.function, "ridge_sgemm") != 0)
            ++failures, std::fprintf(stderr, "child: handler calls %d status %d function %s\n",
                                     g_handler.calls.load(), g_handler.status.load(), g_handler.function);
        if (c != c_before) ++failures, std::fprintf(stderr, "child: ridge_sgemm wrote C\n");
        // Fortran BLAS: xerbla_("SGEMM ", 1089).
        sgemm_(&no, &no, &im, &in, &ik, &one, a.data(), &im, b.data(), &ik, &half, c.data(), &im);
        if (g_xerbla.calls != 1 || g_xerbla.info != 1089 || std::strncmp(g_xerbla.routine, "SGEMM", 5) != 0)
            ++failures, std::fprintf(stderr, "child: xerbla_ calls %d info %d routine '%s'\n",
                                     g_xerbla.calls.load(), g_xerbla.info.load(), g_xerbla.routine);
        if (c != c_before) ++failures, std::fprintf(stderr, "child: sgemm_ wrote C\n");
        // CBLAS: cblas_xerbla(1089, "cblas_sgemm").
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, im, in, ik, 1.0f, a.data(), im, b.data(), ik, 0.5f,
                    c.data(), im);
        if (g_xerbla.cblas_calls != 1 || g_xerbla.cblas_info != 1089 ||
            std::strcmp(g_xerbla.cblas_routine, "cblas_sgemm") != 0)
            ++failures, std::fprintf(stderr, "child: cblas_xerbla calls %d info %d routine '%s'\n",
                                     g_xerbla.cblas_calls.load(), g_xerbla.cblas_info.load(), g_xerbla.cblas_routine);
        if (c != c_before) ++failures, std::fprintf(stderr, "child: cblas_sgemm wrote C\n");
        // GEMV: the gather buffer for a strided x.
        g_handler.calls = 0;
        const ridge_status sv = ridge_sgemv(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, gm, gn, 1.0f, ga.data(), gm,
                                            gx.data(), 2, 1.0f, gy.data(), 1);
        if (sv != RIDGE_OUT_OF_MEMORY) ++failures, std::fprintf(stderr, "child: ridge_sgemv returned %d\n", sv);
        if (g_handler.calls != 1 || std::strcmp(g_handler.function, "ridge_sgemv") != 0)
            ++failures, std::fprintf(stderr, "child: handler calls %d function %s after ridge_sgemv\n",
                                     g_handler.calls.load(), g_handler.function);
        if (gy != gy_before) ++failures, std::fprintf(stderr, "child: ridge_sgemv wrote y\n");
        const ridge_status st = ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_TRANS, tm, tn, tk, 1.0f, ta.data(),
                                            tm, tb.data(), tn, 0.5f, tc.data(), tm);
        if (st != RIDGE_OUT_OF_MEMORY) ++failures, std::fprintf(stderr, "child: few rows, B transposed: %d\n", st);
        if (tc != tc_before) ++failures, std::fprintf(stderr, "child: few rows, B transposed: C written\n");

        stage = 3;
        while (stage != 4) std::this_thread::yield();
        // Memory again: the same thread's next call succeeds and is right.
        const ridge_status again = ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, n, k, 1.0f,
                                               a.data(), m, b.data(), k, 0.0f, c.data(), m);
        if (again != RIDGE_SUCCESS) ++failures, std::fprintf(stderr, "child: after the limit: %d\n", again);
        else if (!matches(c, reference_product(m, n, k, a, b), k))
            ++failures, std::fprintf(stderr, "child: wrong product after the limit\n");
    });
    while (stage != 1) std::this_thread::yield();
    rlimit saved{};
    const bool limited = child_check(forbid_new_memory(&saved), "RLIMIT_DATA set");
    stage = 2;  // the worker runs its calls even without the limit: it must not wait forever
    while (stage != 3) std::this_thread::yield();
    const bool restored = child_check(setrlimit(RLIMIT_DATA, &saved) == 0, "RLIMIT_DATA restored");
    stage = 4;
    worker.join();
    ridge_set_error_handler(nullptr, nullptr);
    return failures == 0 && limited && restored ? 0 : 1;
}

TEST(OutOfMemory, EveryInterfaceReportsAndLeavesCUntouched) {
    EXPECT_EQ(0, run_in_child([] { return out_of_memory_child(true); }, 60)) << "see the child's report above";
}

// The same from a thread whose very first ridge call meets the limit: setting
// up its per-thread state must not need memory it cannot do without (an exit
// code of 134 is SIGABRT: something aborted instead of returning).
TEST(OutOfMemory, FirstCallOfAThread) {
    EXPECT_EQ(0, run_in_child([] { return out_of_memory_child(false); }, 60)) << "see the child's report above";
}

// --- the error handler ---

struct Counter {
    int calls = 0;
    int last_argument = -1;
};

void counting_handler(ridge_status, const char*, int argument, const char*, void* user_data) {
    auto* counter = static_cast<Counter*>(user_data);
    ++counter->calls;
    counter->last_argument = argument;
}

// A handler that replaces itself: it runs outside ridge's lock.
void replacing_handler(ridge_status, const char*, int, const char*, void* user_data) {
    ridge_set_error_handler(counting_handler, user_data);
}

ridge_status bad_sgemm() {  // m < 0: argument 4
    float x[4] = {};
    return ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, -1, 2, 2, 1.0f, x, 2, x, 2, 0.0f, x, 2);
}

TEST(ErrorHandler, UserDataReplacementAndDefault) {
    Counter first, second;
    ridge_set_error_handler(counting_handler, &first);
    EXPECT_EQ(RIDGE_INVALID_ARGUMENT, bad_sgemm());
    EXPECT_EQ(1, first.calls);
    EXPECT_EQ(4, first.last_argument);

    // A new handler (or the same one with new data) replaces the old one entirely.
    ridge_set_error_handler(counting_handler, &second);
    EXPECT_EQ(RIDGE_INVALID_ARGUMENT, bad_sgemm());
    EXPECT_EQ(1, first.calls) << "the replaced handler's data was used";
    EXPECT_EQ(1, second.calls);

    // A handler may call ridge, even to set another handler.
    ridge_set_error_handler(replacing_handler, &second);
    EXPECT_EQ(RIDGE_INVALID_ARGUMENT, bad_sgemm());
    EXPECT_EQ(RIDGE_INVALID_ARGUMENT, bad_sgemm());
    EXPECT_EQ(2, second.calls) << "the handler installed from inside a handler did not take over";

    // NULL restores the default: silent, the status still returned, nobody called.
    ridge_set_error_handler(nullptr, &first);
    EXPECT_EQ(RIDGE_INVALID_ARGUMENT, bad_sgemm());
    EXPECT_EQ(1, first.calls);
    EXPECT_EQ(2, second.calls);
}

// --- fork ---

int multiplies_correctly(int64_t size) {
    std::mt19937 rng(11);
    const std::vector<float> a = random_matrix(size * size, rng), b = random_matrix(size * size, rng);
    std::vector<float> c(size_t(size * size));
    if (ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, size, size, size, 1.0f, a.data(), size,
                    b.data(), size, 0.0f, c.data(), size) != RIDGE_SUCCESS)
        return 2;
    return matches(c, reference_product(size, size, size, a, b), size) ? 0 : 3;
}

// The parent runs a multi-threaded call (an OpenMP team exists), then forks:
// the child's calls must complete and be right, from the forking thread and
// from a thread the child starts; the parent goes on afterwards.
TEST(Fork, ChildCallsRidgeAfterParentDid) {
    ridge_set_num_threads(2);
    ASSERT_EQ(0, multiplies_correctly(600));
    const int child = run_in_child(
        [] {
            if (const int rc = multiplies_correctly(600)) return rc;
            int in_thread = -1;
            std::thread t([&] { in_thread = multiplies_correctly(400); });
            t.join();
            return in_thread == 0 ? 0 : 10 + in_thread;
        },
        60);
    EXPECT_EQ(0, child) << "129+ means a signal: 142 is SIGALRM, the child hung";
    EXPECT_EQ(0, multiplies_correctly(300)) << "the parent after the fork";
    ridge_set_num_threads(0);
}

// --- a caller's OpenMP region ---

TEST(CallerParallel, RidgeStartsNoThreadInsideARegion) {
    const int64_t size = 384;  // big enough that outside a region ridge would use every core
    std::mt19937 rng(5);
    const std::vector<float> a = random_matrix(size * size, rng), b = random_matrix(size * size, rng);
    const std::vector<double> want = reference_product(size, size, size, a, b);
    const int team = 2;
    std::vector<std::vector<float>> c(team, std::vector<float>(size_t(size * size)));

    std::atomic<bool> sampling{true};
    std::atomic<int> peak{0};
    // Samples every 50 us: an OpenMP thread, once started, stays in libgomp's
    // pool and shows in every later sample (and in after_calls); only a thread
    // born and gone within 50 us could slip between two samples. A sampler that
    // never sleeps would take a core from the team it watches.
    std::thread sampler([&] {
        while (sampling) {
            const int now = process_thread_count();
            int seen = peak;
            while (now > seen && !peak.compare_exchange_weak(seen, now)) {
            }
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    });
    int in_region = -1, after_calls = -1;
    std::atomic<int> wrong{0};
#pragma omp parallel num_threads(team)
    {
#pragma omp barrier
#pragma omp single
        {
            in_region = process_thread_count();  // the team and the sampler exist now
            peak = in_region;
        }
        const int me = omp_get_thread_num();
        for (int rep = 0; rep < 3; ++rep) {
            if (ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, size, size, size, 1.0f, a.data(), size,
                            b.data(), size, 0.0f, c[size_t(me)].data(), size) != RIDGE_SUCCESS ||
                !matches(c[size_t(me)], want, size))
                ++wrong;
        }
#pragma omp barrier
#pragma omp single
        after_calls = process_thread_count();
    }
    sampling = false;
    sampler.join();
    EXPECT_EQ(0, wrong.load());
    ASSERT_GT(in_region, 0);
    EXPECT_EQ(in_region, peak.load()) << "threads appeared while ridge ran inside the region";
    EXPECT_EQ(in_region, after_calls);
}

}  // namespace
