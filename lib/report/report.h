// The per-call report: what ran, and how much data its schedule moved against
// the ideal (seeds: arithmetic intensity, realized vs ideal). Opt-in.
#pragma once

#include <chrono>
#include <cstdint>

#include "report/traffic.h"
#include "ridge/ridge.h"

namespace ridge {

// Reporting for calls from this thread: ridge_set_report(), else RIDGE_REPORT.
bool reporting_enabled();
void set_reporting(bool enabled);

// Brackets one call: wall time, and the calling thread's hardware counter
// of last-level-cache misses where the OS exposes one (perf_event).
class CallMeter {
public:
    CallMeter();
    double seconds() const;
    // Bytes the counter saw (misses x 64), or -1 when it is unavailable.
    double measured_memory_bytes() const;

private:
    std::chrono::steady_clock::time_point start_;
    long long misses_start_ = -1;
};

// Why hardware counters are or are not used, for the report.
const char* hw_counter_status();

// Stores `r` as the calling thread's last report, and prints it under RIDGE_REPORT=1.
void record_report(const ridge_report& r);

}  // namespace ridge
