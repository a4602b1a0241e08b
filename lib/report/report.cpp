// Per-call reports: stored per thread, printed on request.
#include "report/report.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

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

// One counter per thread: LLC misses of this thread, user space only.
struct MissCounter {
    int fd = -1;
    std::string status;
    MissCounter() {
        perf_event_attr attr;
        std::memset(&attr, 0, sizeof attr);
        attr.size = sizeof attr;
        attr.type = PERF_TYPE_HARDWARE;
        attr.config = PERF_COUNT_HW_CACHE_MISSES;
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        fd = int(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
        status = fd >= 0 ? "perf_event LLC misses x 64 B, calling thread only"
                         : std::string("unavailable (perf_event_open: ") + std::strerror(errno) + ")";
    }
    ~MissCounter() {
        if (fd >= 0) close(fd);
    }
    long long read_count() const {
        long long v = -1;
        if (fd < 0 || read(fd, &v, sizeof v) != sizeof v) return -1;
        return v;
    }
};

MissCounter& miss_counter() {
    thread_local MissCounter counter;
    return counter;
}

}  // namespace

bool reporting_enabled() { return tl_reporting >= 0 ? tl_reporting == 1 : env_report_level() > 0; }
void set_reporting(bool enabled) { tl_reporting = enabled ? 1 : 0; }

CallMeter::CallMeter() : start_(std::chrono::steady_clock::now()), misses_start_(miss_counter().read_count()) {}

double CallMeter::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double CallMeter::measured_memory_bytes() const {
    const long long now = miss_counter().read_count();
    return (misses_start_ < 0 || now < 0) ? -1.0 : double(now - misses_start_) * kLineBytes;
}

const char* hw_counter_status() { return miss_counter().status.c_str(); }

void record_report(const ridge_report& r) {
    tl_last = r;
    tl_have_last = true;
    if (env_report_level() == 0) return;
    const double gflops = r.seconds > 0 ? r.flops / r.seconds * 1e-9 : 0.0;
    auto intensity = [&](double bytes) { return bytes > 0 ? r.flops / bytes : 0.0; };
    std::fprintf(stderr,
                 "ridge report: %s %s %lldx%lldx%lld path=%s kernel=%s threads=%d "
                 "MR=%lld NR=%lld KC=%lld MC=%lld NC=%lld %.3g GFLOP/s; intensity FLOP/B: ideal %.3g, "
                 "realized memory %.3g, L3->L2 %.3g, L2->L1 %.3g; measured: %s\n",
                 r.routine, r.input, (long long)r.m, (long long)r.n, (long long)r.k, r.path, r.kernel,
                 r.threads, (long long)r.MR, (long long)r.NR, (long long)r.KC, (long long)r.MC,
                 (long long)r.NC, gflops, intensity(r.ideal_bytes), intensity(r.memory_bytes),
                 intensity(r.l3_to_l2_bytes), intensity(r.l2_to_l1_bytes),
                 r.measured_memory_bytes >= 0 ? std::to_string(intensity(r.measured_memory_bytes)).c_str()
                                              : r.hw_counters);
}

}  // namespace ridge

extern "C" RIDGE_API ridge_status ridge_last_report(ridge_report* out) {
    if (out == nullptr) return RIDGE_INVALID_ARGUMENT;
    if (!ridge::tl_have_last) return RIDGE_INVALID_ARGUMENT;  // nothing reported on this thread yet
    *out = ridge::tl_last;
    return RIDGE_SUCCESS;
}

extern "C" RIDGE_API void ridge_set_report(int enabled) { ridge::set_reporting(enabled != 0); }
