// Per-call reports: stored per thread, printed on request.
#include "report/report.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ridge {
namespace {

constexpr double kLineBytes = 64.0;  // a cache line: what one LLC miss brings in

thread_local int tl_reporting = -1;  // -1: follow RIDGE_REPORT
thread_local ridge_report tl_last = {};
thread_local bool tl_have_last = false;

int env_report_level() {
    static const int level = [] {
        const char* v = std::getenv("RIDGE_REPORT");
        return (v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0) ? 1 : 0;
    }();
    return level;
}

// One counter per thread: LLC misses of this thread, user space only. Opened at
// the thread's first report. Kept in trivially destructible thread-locals (a
// thread_local with a destructor is registered through __cxa_thread_atexit,
// which ends the process when it cannot allocate); the descriptor is closed at
// thread exit by a pthread key's destructor instead, which fails softly.
constexpr int kNotOpened = -2;
thread_local int tl_miss_fd = kNotOpened;  // -1: perf_event_open failed
thread_local char tl_miss_status[96] = {};

pthread_key_t g_fd_key;
pthread_once_t g_fd_key_once = PTHREAD_ONCE_INIT;
bool g_fd_key_ok = false;

void close_fd_at_thread_exit(void* value) {
    // The key stores fd + 1, so that descriptor 0 is not the null pointer.
    close(int(reinterpret_cast<intptr_t>(value) - 1));
}
void create_fd_key() { g_fd_key_ok = pthread_key_create(&g_fd_key, close_fd_at_thread_exit) == 0; }

int open_miss_counter() {
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_CACHE_MISSES;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    const int fd = int(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    if (fd < 0) {
        std::snprintf(tl_miss_status, sizeof tl_miss_status, "unavailable (perf_event_open: %s)",
                      std::strerror(errno));
        return -1;
    }
    pthread_once(&g_fd_key_once, create_fd_key);
    if (!g_fd_key_ok || pthread_setspecific(g_fd_key, reinterpret_cast<void*>(intptr_t(fd) + 1)) != 0) {
        close(fd);  // could not arrange to close it at thread exit: do without
        std::snprintf(tl_miss_status, sizeof tl_miss_status, "unavailable (no thread-exit hook for the counter)");
        return -1;
    }
    std::snprintf(tl_miss_status, sizeof tl_miss_status, "perf_event LLC misses x 64 B, calling thread only");
    return fd;
}

int miss_counter_fd() {
    if (tl_miss_fd == kNotOpened) tl_miss_fd = open_miss_counter();
    return tl_miss_fd;
}

long long read_miss_count() {
    const int fd = miss_counter_fd();
    long long v = -1;
    if (fd < 0 || read(fd, &v, sizeof v) != sizeof v) return -1;
    return v;
}

}  // namespace

bool reporting_enabled() { return tl_reporting >= 0 ? tl_reporting == 1 : env_report_level() > 0; }
void set_reporting(bool enabled) { tl_reporting = enabled ? 1 : 0; }

CallMeter::CallMeter() : start_(std::chrono::steady_clock::now()), misses_start_(read_miss_count()) {}

double CallMeter::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double CallMeter::measured_memory_bytes() const {
    const long long now = read_miss_count();
    return (misses_start_ < 0 || now < 0) ? -1.0 : double(now - misses_start_) * kLineBytes;
}

const char* hw_counter_status() {
    miss_counter_fd();
    return tl_miss_status;
}

void record_report(const ridge_report& r) {
    tl_last = r;
    tl_have_last = true;
    if (env_report_level() == 0) return;
    const double gflops = r.seconds > 0 ? r.flops / r.seconds * 1e-9 : 0.0;
    auto intensity = [&](double bytes) { return bytes > 0 ? r.flops / bytes : 0.0; };
    char measured[96];
    if (r.measured_memory_bytes >= 0)
        std::snprintf(measured, sizeof measured, "%.3g", intensity(r.measured_memory_bytes));
    else
        std::snprintf(measured, sizeof measured, "%s", r.hw_counters);
    std::fprintf(stderr,
                 "ridge report: %s %s %lldx%lldx%lld path=%s kernel=%s threads=%d "
                 "MR=%lld NR=%lld KC=%lld MC=%lld NC=%lld %.3g GFLOP/s; intensity FLOP/B: ideal %.3g, "
                 "realized memory %.3g, L3->L2 %.3g, L2->L1 %.3g; measured: %s\n",
                 r.routine, r.input, (long long)r.m, (long long)r.n, (long long)r.k, r.path, r.kernel,
                 r.threads, (long long)r.MR, (long long)r.NR, (long long)r.KC, (long long)r.MC,
                 (long long)r.NC, gflops, intensity(r.ideal_bytes), intensity(r.memory_bytes),
                 intensity(r.l3_to_l2_bytes), intensity(r.l2_to_l1_bytes),
                 measured);
}

}  // namespace ridge

extern "C" RIDGE_API ridge_status ridge_last_report(ridge_report* out) {
    if (out == nullptr) return RIDGE_INVALID_ARGUMENT;
    if (!ridge::tl_have_last) return RIDGE_INVALID_ARGUMENT;  // nothing reported on this thread yet
    *out = ridge::tl_last;
    return RIDGE_SUCCESS;
}

extern "C" RIDGE_API void ridge_set_report(int enabled) { ridge::set_reporting(enabled != 0); }
