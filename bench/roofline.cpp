// ridge-bench roofline: the roofs of this machine, measured in one short run.
//
//   ridge-bench roofline [--json FILE] [--svg FILE] [--quick]
//
// Compute roofs: each instruction's throughput probe (independent accumulators,
// so latency never limits it) at 1 thread and at all threads. Bandwidth roofs: a
// working-set sweep from 16 KiB to 1 GiB, read-only and read+write, from which
// the per-level figures come (the median of the sizes inside each level's
// window) and the knees (where bandwidth falls as the working set doubles).
// Then a few ridge sgemm shapes, and one bf16 GEMM held to the roof of the
// instruction ridge's bf16 kernel runs (AMX's where it runs AMX), timed, to put
// on the picture under the roofs.
// Every figure is a median of repeated runs, stored with its min and max.
//
// --quick measures only the fp32 zmm FMA peak and three sizes (16 KiB, 64 MiB,
// 512 MiB) at one thread: what test/roofline checks against its own measurement.
#include "roofline.h"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "dispatch/cpu_features.h"
#include "kernels/probe.h"
#include "peak.h"
#include "ridge/cblas.h"
#include "ridge/ridge.h"
#include "roofline_svg.h"

namespace ridge_bench {
namespace {

// Insertion order kept, so the file reads in the order things were measured.
using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr int64_t kKiB = 1024, kMiB = 1024 * kKiB, kGiB = 1024 * kMiB;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Spread {
    double median = 0, min = 0, max = 0;
    int runs = 0;
    int discarded = 0;       // samples thrown away because a thread lost its CPU during them
    bool disturbed = false;  // no sample had its CPUs throughout: these are the disturbed ones
    double relative() const { return median > 0 ? (max - min) / median : 0; }
};

Spread spread_of(std::vector<double> v) {
    Spread s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    s.min = v.front();
    s.max = v.back();
    s.runs = int(n);
    return s;
}

// {"<what>_<unit>": median, "min_<unit>": ..., "max_<unit>": ..., "runs": n, "discarded_runs": d},
// plus "disturbed": true when every run was disturbed and kept for want of better.
void put_spread(Json& j, const std::string& what, const std::string& unit, const Spread& s) {
    j[what + "_" + unit] = s.median;
    j["min_" + unit] = s.min;
    j["max_" + unit] = s.max;
    j["runs"] = s.runs;
    j["discarded_runs"] = s.discarded;
    if (s.disturbed) j["disturbed"] = true;
}

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Wall time and the calling thread's CPU time since construction. This
// machine's two CPUs are shared with other work: when the OS runs something
// else on our CPU in the middle of a sample, the thread's CPU time falls short
// of the wall time, and the sample measured the sharing, not the hardware.
class ThreadTimer {
public:
    double wall() const { return seconds_since(wall0_); }
    // True when the thread had its CPU for at least 95% of the wall time.
    bool had_cpu() const { return thread_cpu_seconds() - cpu0_ >= 0.95 * wall(); }

private:
    Clock::time_point wall0_ = Clock::now();
    double cpu0_ = thread_cpu_seconds();
};

// One timed sample; `had_cpu` false when a thread lost its CPU during it.
struct Sample {
    double value;
    bool had_cpu;
};

// Runs work(thread, team) on `threads` threads started together and returns
// the sum of what they return (flops, bytes) per second of wall time, from the
// first thread's start to the last thread's end. Each thread starts its clock
// after a common barrier, so the time a sleeping thread takes to wake up is not
// counted unless it delays the work. The sample counts as undisturbed when every
// thread had its CPU while it worked and worked through at least 65% of the
// wall time: two threads that the OS ran one after the other on one CPU each
// keep their CPU, but each covers only half of the wall time, while threads
// sharing a bandwidth unevenly finish within 20% of each other here.
Sample run_together(int threads, const std::function<double(int, int)>& work) {
    double total = 0;
    std::vector<Clock::time_point> start(size_t(threads), Clock::time_point{});
    std::vector<Clock::time_point> end(size_t(threads), Clock::time_point{});
    std::vector<char> own_cpu(size_t(threads), 0);
    int team = threads;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
        const int me = omp_get_thread_num();
#pragma omp single
        team = omp_get_num_threads();
        // (the single's closing barrier is the common start)
        const ThreadTimer timer;
        start[size_t(me)] = Clock::now();
        total += work(me, team);
        end[size_t(me)] = Clock::now();
        own_cpu[size_t(me)] = timer.had_cpu();
    }
    const Clock::time_point t0 = *std::min_element(start.begin(), start.begin() + team);
    const Clock::time_point t1 = *std::max_element(end.begin(), end.begin() + team);
    const double wall = std::chrono::duration<double>(t1 - t0).count();
    bool undisturbed = true;
    for (int t = 0; t < team; ++t)
        undisturbed = undisturbed && own_cpu[size_t(t)] &&
                      std::chrono::duration<double>(end[size_t(t)] - start[size_t(t)]).count() >= 0.65 * wall;
    return {total / wall, undisturbed};
}

// Samples many items in rounds: each round takes one sample of every item that
// is not yet settled (min_samples taken and within `settled_spread` of each
// other, or max_samples taken). This machine's other vCPU is shared with other
// work: in rounds, a burst of outside load spoils one sample of many items
// instead of every sample of one, and the medians survive it.
struct SampleLimits {
    int min_samples, max_samples;
};

// A sample taken while a thread had lost its CPU is discarded and retaken, up
// to twice max_samples times per item; an item left with no good sample at all
// keeps its disturbed ones (and is flagged). Past `budget_seconds` only items
// with no sample at all are sampled, once: a machine busy with other work
// makes a run longer, never endless.
std::vector<Spread> sample_in_rounds(const std::vector<SampleLimits>& limits, double settled_spread,
                                     const std::function<Sample(size_t)>& sample, double budget_seconds = 1e9) {
    const auto start = Clock::now();
    std::vector<std::vector<double>> good(limits.size()), bad(limits.size());
    for (bool sampled = true; sampled;) {
        sampled = false;
        for (size_t i = 0; i < limits.size(); ++i) {
            const int n = int(good[i].size());
            if (seconds_since(start) > budget_seconds && n + bad[i].size() > 0) continue;
            if (n >= limits[i].max_samples || int(bad[i].size()) >= 2 * limits[i].max_samples) continue;
            if (n >= limits[i].min_samples && spread_of(good[i]).relative() <= settled_spread) continue;
            const Sample x = sample(i);
            (x.had_cpu ? good[i] : bad[i]).push_back(x.value);
            sampled = true;
        }
    }
    std::vector<Spread> out;
    for (size_t i = 0; i < limits.size(); ++i) {
        const bool disturbed = good[i].empty();
        Spread sp = spread_of(disturbed ? bad[i] : good[i]);
        sp.discarded = disturbed ? 0 : int(bad[i].size());
        sp.disturbed = disturbed;
        out.push_back(sp);
    }
    return out;
}

std::string human_bytes(int64_t b) {
    if (b >= kGiB && b % kGiB == 0) return std::to_string(b / kGiB) + " GiB";
    if (b >= kMiB && b % kMiB == 0) return std::to_string(b / kMiB) + " MiB";
    if (b >= kKiB && b % kKiB == 0) return std::to_string(b / kKiB) + " KiB";
    return std::to_string(b) + " B";
}

// ---------------------------------------------------------------------------
// Machine metadata

std::string cpu_brand() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("model name", 0) != 0) continue;
        const size_t colon = line.find(':');
        if (colon == std::string::npos) break;
        size_t start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? "" : line.substr(start);
    }
    return "unknown";
}

// The CPUs this process may run on, as "0-3,6": ranges of consecutive ids.
std::string affinity_list(int* count) {
    cpu_set_t set;
    CPU_ZERO(&set);
    *count = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return "unknown";
    std::string out;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (!CPU_ISSET(cpu, &set)) continue;
        int last = cpu;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
        if (!out.empty()) out += ",";
        out += last == cpu ? std::to_string(cpu) : std::to_string(cpu) + "-" + std::to_string(last);
        *count += last - cpu + 1;
        cpu = last;
    }
    return out;
}

std::string utc_now_iso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string host_name() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) return "";
    return buf;
}

// A chain of dependent integer adds runs at one add per cycle on every x86
// core of the last twenty years, so adds per second estimate the clock. It is
// the clock of scalar code: heavy AVX-512 may run slower on some CPUs.
// Register + register adds: on this project's Intel VM a chain of `add $1` ran
// five per cycle (20 "GHz"; recent Intel cores fold small immediate adds at rename).
Sample add_chain_ghz(int64_t blocks) {
    uint64_t x = 0, one = 1;
    const ThreadTimer timer;
    for (int64_t b = 0; b < blocks; ++b) {
        // 100 adds, each waiting for the one before; asm so the compiler cannot fold them.
        asm volatile(".rept 100\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(one));
    }
    return {double(blocks) * 100 / timer.wall() * 1e-9, timer.had_cpu()};
}

Spread clock_ghz() {
    add_chain_ghz(200000);  // let the core leave any idle clock
    // 7 runs of ~10 ms at 3 GHz.
    return sample_in_rounds({{7, 7}}, 0.0, [](size_t) { return add_chain_ghz(300000); }).front();
}

// ---------------------------------------------------------------------------
// Compute roofs

using Probe = double (*)(int64_t);

struct ComputeRoof {
    std::string name, isa, dtype, instruction;
    Probe probe;
};

// One run at `threads` threads: each runs `iterations` rounds, all started
// together; GFLOP/s of all of them over the wall time (run_together).
Sample probe_gflops(Probe probe, int64_t iterations, int threads) {
    const Sample s = run_together(threads, [&](int, int) { return probe(iterations); });
    return {s.value * 1e-9, s.had_cpu};
}

// The iterations for a run of about `run_seconds`. The calibration runs grow
// until one lasts a quarter of that, which also brings the core to its vector clock.
int64_t calibrate_probe(Probe probe, int threads, double run_seconds) {
    int64_t iterations = 1000;
    for (;;) {
        const auto t0 = Clock::now();
        probe_gflops(probe, iterations, threads);
        const double s = seconds_since(t0);
        // Under outside load a run lasts longer than the hardware needs, and
        // the runs come out shorter than asked: they stay valid, only shorter.
        if (s >= run_seconds / 4) return int64_t(double(iterations) * run_seconds / s) + 1;
        iterations *= 4;
    }
}

// ---------------------------------------------------------------------------
// Bandwidth

enum class Access { read, read_write };

const char* access_key(Access a) { return a == Access::read ? "read" : "read_write"; }

// Working sets from this size up are measured as uncached: single passes, no warm-up.
constexpr int64_t kUncachedBytes = 256 * kMiB;

// One buffer for the whole sweep, faulted in once, so no size pays for page
// faults or a fresh allocation. Cached sizes stream its head; uncached sizes its
// tail, and the buffer is longer than the largest size by the largest cached
// one: the head a cached size leaves in the caches is never part of an uncached
// pass (sampled in rounds, a 512 MiB pass right after a 64 MiB one would
// otherwise find its first 64 MiB in this VM's L3 and read ~6% fast).
struct Buffer {
    float* data = nullptr;
    int64_t bytes = 0;
    explicit Buffer(int64_t n, int threads) : bytes(n) {
        data = static_cast<float*>(std::aligned_alloc(2 * kMiB, size_t(n)));
        if (!data) return;
        const int64_t count = n / int64_t(sizeof(float));
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i = 0; i < count; ++i) data[i] = 1.0f;
    }
    ~Buffer() { std::free(data); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
};

// One sample: each thread streams its own slice, working_set / threads bytes
// (the aggregate working set is `ws`), `passes` times; GB/s of all threads
// together over the wall time (run_together).
// Reads take `streams` segments side by side (peak.h: kReadStreamCounts).
Sample stream_sample_gbps(const Buffer& buf, int64_t ws, int threads, int64_t passes, Access access,
                          int streams = 1) {
    float* base = ws >= kUncachedBytes ? buf.data + (buf.bytes - ws) / int64_t(sizeof(float)) : buf.data;
    const Sample s = run_together(threads, [&](int me, int team) {
        // Whole 256-byte blocks: the kernels step by 64 floats.
        const int64_t slice = ws / team / int64_t(sizeof(float)) / 64 * 64;
        float* mine = base + me * slice;
        double bytes = 0;
        for (int64_t p = 0; p < passes; ++p)
            bytes += access == Access::read ? read_bytes(mine, slice, streams) : read_write_bytes(mine, slice);
        return bytes;
    });
    return {s.value * 1e-9, s.had_cpu};
}

struct BwPoint {
    int64_t working_set = 0;
    Spread gbps;
    int streams = 1;  // reads: the stream count its samples used
};

struct Sweep {
    Access access;
    int threads;
    std::vector<BwPoint> points;
};

// The stream count of kReadStreamCounts that read `ws` fastest, one sample each.
int fastest_streams(const Buffer& buf, int64_t ws, int threads, int64_t passes) {
    int best = 1;
    double best_gbps = 0;
    for (const int streams : kReadStreamCounts) {
        const double gbps = stream_sample_gbps(buf, ws, threads, passes, Access::read, streams).value;
        if (gbps > best_gbps) best_gbps = gbps, best = streams;
    }
    return best;
}

// Sizes up to 256 MiB: samples of ~6 ms (many passes over small buffers), each
// after one untimed pass that brings the buffer into the level being measured;
// 5 to 7 samples, 5 when they agree within 4%. From 256 MiB the buffer cannot
// be cached and one pass already takes 20 ms or more: 3 to 5 single-pass samples.
// The sizes are sampled in rounds (sample_in_rounds), smallest first, within
// `budget_seconds` (about 3 s when the machine is quiet, single-threaded).
Sweep run_sweep(const Buffer& buf, const std::vector<int64_t>& sizes, int threads, Access access,
                double budget_seconds) {
    Sweep sw{access, threads, {}};
    std::vector<int64_t> fit;
    for (int64_t ws : sizes)
        if (ws <= buf.bytes) fit.push_back(ws);
    auto uncached = [](int64_t ws) { return ws >= kUncachedBytes; };
    std::vector<SampleLimits> limits;
    for (int64_t ws : fit) limits.push_back(uncached(ws) ? SampleLimits{3, 5} : SampleLimits{5, 7});
    // Passes per sample, fixed by each size's first sample from the rate of the
    // size before it (the first round runs smallest first); a guess for the first.
    std::vector<int64_t> passes(fit.size(), 0);
    // Reads: each size's stream count, the fastest of kReadStreamCounts in one
    // sample each before its first sample (a roof is the most a level gives).
    std::vector<int> streams(fit.size(), 0);
    double estimate_gbps = 150.0 * threads;
    const std::vector<Spread> got = sample_in_rounds(
        limits, 0.04,
        [&](size_t i) {
            const int64_t ws = fit[i];
            const double pass_bytes = double(ws) * (access == Access::read ? 1 : 2);
            if (passes[i] == 0)
                passes[i] =
                    uncached(ws) ? 1 : std::max<int64_t>(1, std::llround(0.006 * estimate_gbps * 1e9 / pass_bytes));
            if (!uncached(ws)) stream_sample_gbps(buf, ws, threads, 1, access);
            if (streams[i] == 0) streams[i] = access == Access::read ? fastest_streams(buf, ws, threads, passes[i]) : 1;
            const Sample x = stream_sample_gbps(buf, ws, threads, passes[i], access, streams[i]);
            estimate_gbps = x.value;
            return x;
        },
        budget_seconds);
    for (size_t i = 0; i < fit.size(); ++i) sw.points.push_back({fit[i], got[i], std::max(1, streams[i])});
    return sw;
}

// A level's window, in bytes. L1 and L2 are private to a core, so their windows
// apply to each thread's slice; L3 and DRAM are shared, so theirs apply to the
// aggregate working set.
struct LevelWindow {
    std::string name;
    int64_t lo, hi;
    bool per_thread;
    std::string source;
};

int64_t sysconf_bytes(int name) {
    const long v = sysconf(name);
    return v > 0 ? int64_t(v) : 0;
}

std::vector<LevelWindow> level_windows() {
    // L1d and L2 as the OS reports them, when believable; virtual machines
    // report impossible L3s (this project's VMs: 480-508 MiB "per core"), so the
    // L3 window ends at 64 MiB, where the measured knees put it here.
    int64_t l1 = sysconf_bytes(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf_bytes(_SC_LEVEL2_CACHE_SIZE);
    std::string l1_src = "sysconf L1d " + human_bytes(l1), l2_src = "sysconf L2 " + human_bytes(l2);
    if (l1 < 16 * kKiB || l1 > 256 * kKiB) {
        l1 = 48 * kKiB;
        l1_src = "assumed L1d 48 KiB (sysconf's figure not believable)";
    }
    if (l2 < 4 * l1 || l2 > 8 * kMiB) {
        l2 = 2 * kMiB;
        l2_src = "assumed L2 2 MiB (sysconf's figure not believable)";
    }
    return {
        {"L1", 0, l1 * 2 / 3, true, "up to 2/3 of the L1d (" + l1_src + "): room for the stack and the code"},
        {"L2", 2 * l1, l2 / 2, true, "2x L1d to half the L2 (" + l2_src + "): clear of both knees"},
        {"L3", 2 * l2, 64 * kMiB, false, "2x L2 to 64 MiB: where this VM's measured L3 plateau ends"},
        {"DRAM", 256 * kMiB, int64_t(1) << 62, false, "256 MiB and up: past every cache of the machines measured"},
    };
}

int64_t bytes_for_window(const LevelWindow& w, int64_t ws, int threads) { return w.per_thread ? ws / threads : ws; }

// Median, over the sweep's sizes inside the window, of each size's median;
// `disturbed` counts the sizes with no undisturbed sample.
bool level_figure(const Sweep& sw, const LevelWindow& w, Spread* out, int* disturbed) {
    std::vector<double> v;
    *disturbed = 0;
    for (const BwPoint& p : sw.points) {
        const int64_t b = bytes_for_window(w, p.working_set, sw.threads);
        if (b < w.lo || b > w.hi) continue;
        v.push_back(p.gbps.median);
        *disturbed += p.gbps.disturbed ? 1 : 0;
    }
    if (v.empty()) return false;
    *out = spread_of(v);
    return true;
}

// Knees, per octave: a size "falls" when the bandwidth at twice its size (the
// first measured size at least twice as large) is 15% or more below its own;
// each run of falling sizes is one knee, from its first size to the partner of
// its last, kept when the total drop reaches 25%. Octaves rather than neighbours
// because a level can fade over several 1.5x steps, none of them steep (this
// VM's L3 fades into DRAM between 64 and 256 MiB), and because one noisy size
// moves an octave's ratio less than a neighbour's.
Json knees_of(const Sweep& sw) {
    Json knees = Json::array();
    const auto& pts = sw.points;
    const size_t n = pts.size();
    auto partner = [&](size_t i) {
        size_t j = i + 1;
        while (j < n && pts[j].working_set < 2 * pts[i].working_set) ++j;
        return j;  // n when none
    };
    auto drop = [&](size_t a, size_t b) { return 1.0 - pts[b].gbps.median / pts[a].gbps.median; };
    auto falls = [&](size_t i) { return partner(i) < n && drop(i, partner(i)) >= 0.15; };
    size_t i = 0;
    while (i < n) {
        if (!falls(i)) {
            ++i;
            continue;
        }
        size_t last = i;
        while (last + 1 < n && falls(last + 1)) ++last;
        const size_t end = partner(last);
        if (drop(i, end) >= 0.25) {
            size_t steepest = i;
            for (size_t j = i; j < end; ++j)
                if (drop(j, j + 1) > drop(steepest, steepest + 1)) steepest = j;
            Json k;
            k["from_bytes"] = pts[i].working_set;
            k["to_bytes"] = pts[end].working_set;
            k["from_gbps"] = pts[i].gbps.median;
            k["to_gbps"] = pts[end].gbps.median;
            k["relative_drop"] = drop(i, end);
            k["steepest_from_bytes"] = pts[steepest].working_set;
            k["steepest_to_bytes"] = pts[steepest + 1].working_set;
            k["steepest_relative_drop"] = drop(steepest, steepest + 1);
            knees.push_back(k);
        }
        i = last + 1;
    }
    return knees;
}

Json largest_drop_of(const Sweep& sw) {
    Json out;
    double best = -1;
    for (size_t i = 0; i + 1 < sw.points.size(); ++i) {
        const double d = 1.0 - sw.points[i + 1].gbps.median / sw.points[i].gbps.median;
        if (d > best) {
            best = d;
            out["from_bytes"] = sw.points[i].working_set;
            out["to_bytes"] = sw.points[i + 1].working_set;
            out["relative_drop"] = d;
        }
    }
    return out;
}

// The 1-thread read bandwidth at a working set of `bytes`: interpolated between
// the two measured sizes around it, linearly in log(size); clamped at the ends.
double read_gbps_at(const Sweep& sw, int64_t bytes) {
    const auto& pts = sw.points;
    if (bytes <= pts.front().working_set) return pts.front().gbps.median;
    for (size_t i = 0; i + 1 < pts.size(); ++i) {
        if (bytes > pts[i + 1].working_set) continue;
        const double t = std::log(double(bytes) / double(pts[i].working_set)) /
                         std::log(double(pts[i + 1].working_set) / double(pts[i].working_set));
        return pts[i].gbps.median + t * (pts[i + 1].gbps.median - pts[i].gbps.median);
    }
    return pts.back().gbps.median;
}

// The stream count of the sweep's size nearest `bytes` (in log(size)).
int read_streams_at(const Sweep& sw, int64_t bytes) {
    const BwPoint* nearest = &sw.points.front();
    for (const BwPoint& p : sw.points)
        if (std::abs(std::log(double(p.working_set) / double(bytes))) <
            std::abs(std::log(double(nearest->working_set) / double(bytes))))
            nearest = &p;
    return nearest->streams;
}

// ---------------------------------------------------------------------------
// sgemm shapes under the roofs

struct GemmShape {
    int64_t m, n, k;
    std::string name;
    bool bf16 = false;  // A and B bf16 (ridge_gemm_bf16), C fp32; else sgemm
};

// Ideal intensity: every matrix moved once, C written and not read (beta = 0).
double ideal_intensity(const GemmShape& s) {
    const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k);
    const double input_bytes = s.bf16 ? 2.0 : 4.0;
    return flops / (input_bytes * (double(s.m) * s.k + double(s.k) * s.n) + 4.0 * double(s.m) * s.n);
}

// The bytes of A, B and C: the working set whose read bandwidth bounds the shape.
int64_t footprint_bytes(const GemmShape& s) {
    return (s.bf16 ? 2 : 4) * (s.m * s.k + s.k * s.n) + 4 * s.m * s.n;
}

// A read timed among the GEMM samples: `bytes` (whole 256-byte steps) with
// the stream count the sweep found fastest there, for the shape it bounds.
struct RoundRead {
    size_t shape;
    int64_t bytes;
    int streams;
    double sweep_gbps;
};

// One for each shape whose bound on the sweep's figures is its bandwidth's.
std::vector<RoundRead> reads_to_time_in_rounds(const std::vector<GemmShape>& shapes, const Sweep& read_1t,
                                               double fp32_peak, double bf16_peak) {
    std::vector<RoundRead> reads;
    for (size_t si = 0; si < shapes.size(); ++si) {
        const int64_t bytes = footprint_bytes(shapes[si]) / 256 * 256;
        const double gbps = read_gbps_at(read_1t, bytes);
        if (ideal_intensity(shapes[si]) * gbps < (shapes[si].bf16 ? bf16_peak : fp32_peak))
            reads.push_back({si, bytes, read_streams_at(read_1t, bytes), gbps});
    }
    return reads;
}

// One thread: an untimed pass (below kUncachedBytes), then ~6 ms of passes.
Sample read_sample(const Buffer& buf, const RoundRead& r) {
    const bool cached = r.bytes < kUncachedBytes;
    const int64_t passes = cached ? std::max<int64_t>(1, std::llround(0.006 * r.sweep_gbps * 1e9 / double(r.bytes))) : 1;
    if (cached) stream_sample_gbps(buf, r.bytes, 1, 1, Access::read, r.streams);
    return stream_sample_gbps(buf, r.bytes, 1, passes, Access::read, r.streams);
}

// One shape's operands and its timed call: ridge_sgemm (or ridge_gemm_bf16)
// on 1 thread, column-major, beta = 0. A sample repeats the call enough to
// last ~20 ms, so small shapes are not timer noise.
class GemmTimer {
public:
    explicit GemmTimer(const GemmShape& s)
        : s_(s), a_(size_t(s.m * s.k)), b_(size_t(s.k * s.n)), c_(size_t(s.m * s.n)) {
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        for (float& x : a_) x = dist(rng);
        for (float& x : b_) x = dist(rng);
        if (s.bf16) {
            a16_.resize(a_.size());
            b16_.resize(b_.size());
            cblas_sbstobf16(int(a_.size()), a_.data(), 1, a16_.data(), 1);
            cblas_sbstobf16(int(b_.size()), b_.data(), 1, b16_.data(), 1);
        }
        // Warm-up: first-call set-up (packing buffers, dispatch), then the repetitions per sample.
        int64_t calls = 0;
        const auto t0 = Clock::now();
        while (calls < 3 || seconds_since(t0) < 0.02) {
            call();
            ++calls;
        }
        reps_ = std::max<int64_t>(1, std::llround(0.02 / (seconds_since(t0) / double(calls))));
    }
    Sample sample_gflops() {
        const ThreadTimer timer;  // one thread: ridge runs the call on the caller's
        for (int64_t i = 0; i < reps_; ++i) call();
        return {2.0 * double(s_.m) * double(s_.n) * double(s_.k) * double(reps_) / timer.wall() * 1e-9,
                timer.had_cpu()};
    }
    // One more call with ridge's per-call report on: what its schedule moved.
    bool report(ridge_report* r) {
        ridge_set_report(1);
        call();
        ridge_set_report(0);
        return ridge_last_report(r) == RIDGE_SUCCESS;
    }

private:
    void call() {
        if (s_.bf16)
            ridge_gemm_bf16(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, s_.m, s_.n, s_.k, 1.0f, a16_.data(), s_.m,
                            b16_.data(), s_.k, 0.0f, c_.data(), s_.m);
        else
            ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, s_.m, s_.n, s_.k, 1.0f, a_.data(), s_.m,
                        b_.data(), s_.k, 0.0f, c_.data(), s_.m);
    }
    GemmShape s_;
    std::vector<float> a_, b_, c_;
    std::vector<uint16_t> a16_, b16_;
    int64_t reps_ = 1;
};

// ---------------------------------------------------------------------------

struct Options {
    std::string json_path = "roofline.json";
    std::string svg_path = "roofline.svg";
    bool quick = false;
};

void usage() {
    std::fprintf(stderr,
                 "usage: ridge-bench roofline [--json FILE] [--svg FILE] [--quick]\n"
                 "  Measures this machine's compute peaks and memory bandwidths (1 thread and all\n"
                 "  threads), writes them as JSON (default roofline.json) and draws the 1-thread\n"
                 "  roofline with a few ridge sgemm shapes as SVG (default roofline.svg).\n"
                 "  --quick: fp32 zmm FMA peak and 16 KiB, 64 MiB, 512 MiB read bandwidth only, 1 thread.\n");
}

bool parse(int argc, char** argv, Options* o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if ((a == "--json" || a == "--svg") && i + 1 < argc)
            (a == "--json" ? o->json_path : o->svg_path) = argv[++i];
        else if (a.rfind("--json=", 0) == 0)
            o->json_path = a.substr(7);
        else if (a.rfind("--svg=", 0) == 0)
            o->svg_path = a.substr(6);
        else if (a == "--quick")
            o->quick = true;
        else
            return false;
    }
    return true;
}

}  // namespace

int roofline_main(int argc, char** argv) {
    Options opt;
    if (!parse(argc, argv, &opt)) {
        usage();
        return 2;
    }
    const auto start = Clock::now();
    const ridge::CpuFeatures& cpu = ridge::cpu_features();  // also asks Linux for the AMX tile permission
    if (!ridge::cpu_supports(ridge::Isa::avx2) && !ridge::cpu_supports(ridge::Isa::avx512)) {
        std::fprintf(stderr, "ridge-bench roofline: the FMA roofs need AVX2 or AVX-512, which this CPU lacks\n");
        return 1;
    }
    // Exactly the thread counts asked for: a dynamic team could hand a sample fewer threads.
    omp_set_dynamic(0);
    const int all_threads = opt.quick ? 1 : std::max(1, omp_get_max_threads());
    std::vector<int> thread_counts{1};
    if (all_threads > 1) thread_counts.push_back(all_threads);

    Json out;
    out["tool"] = "ridge-bench roofline";
    out["mode"] = opt.quick ? "quick" : "full";
    out["ridge_version"] = ridge_version();
    out["date_utc"] = utc_now_iso8601();

    // --- machine
    std::fprintf(stderr, "roofline: machine\n");
    Json machine;
    machine["hostname"] = host_name();
    machine["cpu_vendor"] = std::string(cpu.vendor);
    machine["cpu_family"] = cpu.family;
    machine["cpu_model"] = cpu.model;
    machine["cpu_brand"] = cpu_brand();
    Json isas = Json::array();
    for (ridge::Isa isa : {ridge::Isa::avx2, ridge::Isa::avx512, ridge::Isa::avx512bf16, ridge::Isa::amx})
        if (ridge::cpu_supports(isa)) isas.push_back(ridge::isa_name(isa));
    machine["isa"] = isas;
    machine["logical_cpus_online"] = sysconf(_SC_NPROCESSORS_ONLN);
    int affinity_count = 0;
    machine["affinity_cpu_list"] = affinity_list(&affinity_count);
    machine["affinity_cpu_count"] = affinity_count;
    machine["threads_all"] = all_threads;
    const char* bind = std::getenv("OMP_PROC_BIND");
    machine["pinning"] = bind && std::string(bind) != "false"
                             ? std::string("OpenMP OMP_PROC_BIND=") + bind + " (ridge-bench itself pins nothing)"
                             : std::string("not pinned: threads may move among the CPUs of affinity_cpu_list");
    const Spread clock = clock_ghz();
    machine["clock_ghz"] = clock.median;
    machine["clock_min_ghz"] = clock.min;
    machine["clock_max_ghz"] = clock.max;
    machine["clock_method"] = "dependent 64-bit integer add chain, adds per second (one add per cycle), 7 runs";
    machine["caches_reported_bytes"] = {{"l1d", sysconf_bytes(_SC_LEVEL1_DCACHE_SIZE)},
                                        {"l2", sysconf_bytes(_SC_LEVEL2_CACHE_SIZE)},
                                        {"l3", sysconf_bytes(_SC_LEVEL3_CACHE_SIZE)}};
    out["machine"] = machine;
    const double t_machine = seconds_since(start);

    // --- compute roofs
    // The first roof is the machine's widest fp32 FMA (the ridge points and the picture use it).
    std::vector<ComputeRoof> roofs;
    const bool zmm = ridge::cpu_supports(ridge::Isa::avx512);
    if (zmm)
        roofs.push_back({"fp32 FMA zmm", "avx512", "f32", "vfmadd ps zmm, 24 independent accumulators",
                         ridge::probe_fma_f32__avx512});
    if (ridge::cpu_supports(ridge::Isa::avx2) && (!zmm || !opt.quick))
        roofs.push_back({"fp32 FMA ymm", "avx2", "f32", "vfmadd ps ymm, 12 independent accumulators", fma_flops_avx2});
    if (!opt.quick) {
        if (ridge::cpu_supports(ridge::Isa::avx512bf16))
            roofs.push_back({"bf16 vdpbf16ps zmm", "avx512bf16", "bf16",
                             "vdpbf16ps zmm, 24 independent accumulators (64 flops each)",
                             ridge::probe_dpbf16__avx512bf16});
        if (ridge::cpu_supports(ridge::Isa::amx))
            roofs.push_back({"bf16 AMX tdpbf16ps", "amx", "bf16",
                             "tdpbf16ps, 6 independent 16x16 fp32 tiles (16384 flops each)", tdpbf16_flops_amx});
    }
    std::fprintf(stderr, "roofline: compute peaks\n");
    Json peaks = Json::array();
    std::vector<std::pair<std::string, double>> peaks_1t;  // for the picture and the ridge points
    // Every probe calibrated on one thread (each thread of a team does the same
    // work), then per thread count 7 rounds of one ~25 ms run of each.
    std::vector<int64_t> iterations;
    for (const ComputeRoof& r : roofs) iterations.push_back(calibrate_probe(r.probe, 1, 0.025));
    std::vector<std::vector<Spread>> peak_spreads;
    for (int t : thread_counts) {
        peak_spreads.push_back(sample_in_rounds(std::vector<SampleLimits>(roofs.size(), {7, 7}), 0.0, [&](size_t i) {
            return probe_gflops(roofs[i].probe, iterations[i], t);
        }));
    }
    for (size_t ri = 0; ri < roofs.size(); ++ri) {
        const ComputeRoof& r = roofs[ri];
        for (size_t ti = 0; ti < thread_counts.size(); ++ti) {
            const int t = thread_counts[ti];
            const Spread s = peak_spreads[ti][ri];
            Json p;
            p["name"] = r.name;
            p["isa"] = r.isa;
            p["dtype"] = r.dtype;
            p["instruction"] = r.instruction;
            p["threads"] = t;
            put_spread(p, "peak", "gflops", s);
            p["flops_per_cycle_per_thread"] = s.median / t / clock.median;
            peaks.push_back(p);
            if (t == 1) peaks_1t.emplace_back(r.name, s.median);
            std::fprintf(stderr, "  %-20s %2d thread(s): %8.1f GFLOP/s (%.1f-%.1f)\n", r.name.c_str(), t, s.median,
                         s.min, s.max);
        }
    }
    out["peaks"] = peaks;
    const double t_peaks = seconds_since(start);

    // --- bandwidth
    std::vector<int64_t> sizes;
    if (opt.quick) {
        sizes = {16 * kKiB, 64 * kMiB, 512 * kMiB};
    } else {
        // Powers of two and the 1.5x points between them: the knees fall inside an octave.
        for (int p = 14; p <= 30; ++p) {
            sizes.push_back(int64_t(1) << p);
            if (p < 30) sizes.push_back(int64_t(3) << (p - 1));
        }
    }
    std::fprintf(stderr, "roofline: bandwidth sweep, %zu sizes from %s to %s\n", sizes.size(),
                 human_bytes(sizes.front()).c_str(), human_bytes(sizes.back()).c_str());
    int64_t largest_cached = 0;
    for (int64_t ws : sizes)
        if (ws < kUncachedBytes) largest_cached = std::max(largest_cached, ws);
    const Buffer buf(sizes.back() + largest_cached, all_threads);
    if (!buf.data) {
        std::fprintf(stderr, "ridge-bench roofline: cannot allocate %s\n", human_bytes(buf.bytes).c_str());
        return 1;
    }
    std::vector<Sweep> sweeps;
    for (Access access : {Access::read, Access::read_write}) {
        if (opt.quick && access == Access::read_write) continue;
        for (int t : thread_counts) {
            const auto t0 = Clock::now();
            // Budgets: a quiet machine needs 2.5-6 s per sweep; a busy one
            // gets this much, so the whole run stays within two minutes.
            sweeps.push_back(run_sweep(buf, sizes, t, access, opt.quick ? 6.0 : t == 1 ? 12.0 : 16.0));
            std::fprintf(stderr, "  %-10s %d thread(s): %.1f s\n", access_key(access), t, seconds_since(t0));
        }
    }
    const std::vector<LevelWindow> windows = level_windows();
    Json bandwidth;
    const std::string vectors = bandwidth_vectors();  // zmm, else ymm (bench/bandwidth.cpp)
    bandwidth["kernels"] = {
        {"read", vectors + " loads into 4 independent sums (bench/read_avx512.cpp, bandwidth_avx2.cpp), each "
                           "thread's slice read as 1, 2, 4 or 8 equal segments side by side (a point's `streams`: "
                           "the fastest of one sample each, taken before its first sample); bytes read"},
        {"read_write", vectors + " load, sign flip, store back in place (bench/roofline_rw_avx512.cpp, "
                                 "bandwidth_avx2.cpp); bytes read + written"}};
    bandwidth["working_set"] =
        "working_set_bytes is the aggregate: each thread streams its own slice of working_set_bytes / threads "
        "(per_thread_bytes) of one buffer faulted in beforehand; sizes below 256 MiB use the buffer's head, larger "
        "ones its tail, which no smaller size touches";
    bandwidth["sampling"] =
        "below 256 MiB: one untimed pass, then 5-7 samples of ~6 ms (stopping at 5 when within 4%); from 256 MiB: "
        "3-5 single-pass samples; sizes sampled in rounds, smallest first; a sample during which a thread lost its "
        "CPU (its CPU time under 95% of its wall time, or its work under 65% of the sample's wall time) is discarded "
        "and retaken; the figure is the median, with the min and max sample";
    Json sweeps_json = Json::array();
    for (const Sweep& sw : sweeps) {
        Json js;
        js["access"] = access_key(sw.access);
        js["threads"] = sw.threads;
        Json pts = Json::array();
        for (const BwPoint& p : sw.points) {
            Json jp;
            jp["working_set_bytes"] = p.working_set;
            jp["per_thread_bytes"] = p.working_set / sw.threads;
            if (sw.access == Access::read) jp["streams"] = p.streams;
            put_spread(jp, access_key(sw.access), "gbps", p.gbps);
            pts.push_back(jp);
        }
        js["points"] = pts;
        js["knees"] = knees_of(sw);
        js["largest_drop"] = largest_drop_of(sw);
        sweeps_json.push_back(js);
    }
    bandwidth["sweeps"] = sweeps_json;
    out["bandwidth"] = bandwidth;

    // Per-level figures, one entry per level and thread count.
    Json levels = Json::array();
    std::vector<std::pair<std::string, double>> read_1t;  // for the picture and the ridge points
    for (const LevelWindow& w : windows) {
        for (int t : thread_counts) {
            Json l;
            bool any = false;
            for (const Sweep& sw : sweeps) {
                if (sw.threads != t) continue;
                Spread s;
                int disturbed = 0;
                if (!level_figure(sw, w, &s, &disturbed)) continue;
                any = true;
                const std::string key = access_key(sw.access);
                l[key + "_gbps"] = s.median;
                l[key + "_min_gbps"] = s.min;
                l[key + "_max_gbps"] = s.max;
                l[key + "_sizes"] = s.runs;
                if (disturbed > 0) l[key + "_disturbed_sizes"] = disturbed;
                if (sw.access == Access::read && t == 1) read_1t.emplace_back(w.name, s.median);
            }
            if (!any) continue;
            Json head;
            head["level"] = w.name;
            head["threads"] = t;
            head["window_lo_bytes"] = w.lo;
            head["window_hi_bytes"] = std::min<int64_t>(w.hi, sizes.back());
            head["window_applies_to"] = w.per_thread ? "per_thread_bytes" : "working_set_bytes";
            head["window_reason"] = w.source;
            head.update(l);
            levels.push_back(head);
        }
    }
    out["levels"] = levels;
    out["levels_method"] =
        "per level and thread count: the median of the medians of the sweep's sizes inside the level's window; its min "
        "and max are the lowest and highest of those medians; *_disturbed_sizes counts sizes with no undisturbed "
        "sample";
    const double t_bandwidth = seconds_since(start);

    // --- sgemm shapes
    std::vector<GemmShape> shapes;
    if (opt.quick) {
        shapes = {{256, 256, 256, "sgemm 256³"}};
    } else {
        shapes = {{64, 64, 64, "sgemm 64³"},
                  {256, 256, 256, "sgemm 256³"},
                  {1024, 1024, 1024, "sgemm 1024³"},
                  {4096, 16, 4096, "sgemm 4096×16×4096"},
                  {4096, 1, 4096, "sgemm 4096×1×4096 (GEMV)"},
                  {1024, 1024, 1024, "bf16 1024³", true}};
    }
    // The roof each shape is held to: sgemm the first (the widest fp32 FMA);
    // bf16 the roof of the instruction ridge's bf16 kernel runs (the suffix of
    // its name: "__amx" AMX's tdpbf16ps, "__avx512bf16" vdpbf16ps), else the
    // first as well (bf16 converted to fp32 while packing).
    const std::string bf16_kernel = ridge_gemm_kernel_name(RIDGE_BF16);
    const size_t cut = bf16_kernel.rfind("__");
    const std::string bf16_family = cut == std::string::npos ? "" : bf16_kernel.substr(cut + 2);
    size_t bf16_roof = 0;
    for (size_t ri = 0; ri < roofs.size(); ++ri)
        if (roofs[ri].dtype == "bf16" && roofs[ri].isa == bf16_family) bf16_roof = ri;
    const bool any_bf16 = std::any_of(shapes.begin(), shapes.end(), [](const GemmShape& g) { return g.bf16; });
    std::fprintf(stderr, "roofline: ridge sgemm%s, 1 thread\n", any_bf16 ? " and bf16 GEMM" : "");
    ridge_set_num_threads(1);
    const Sweep& read_sweep_1t = sweeps.front();
    Json gemms = Json::array();
    struct Placed {
        std::string name;
        double intensity, gflops, realized;  // realized: FLOP per byte the schedule moved from memory
    };
    std::vector<Placed> placed;
    // Five rounds of one sample of each shape and one of each roof they are
    // held to (the last items of a round): the medians see the same outside
    // load. The shapes are held to those roofs, not to the peaks section's: a
    // shared host can run at two thirds of its speed for minutes (a main job
    // here timed the peak at 103.5 GFLOP/s, its sgemm rounds minutes later at
    // up to 170; AMX's probe ran 0.9 and 2.3 TFLOP/s a minute apart), and a
    // bound from another minute than the rate it bounds reads above 100%.
    std::vector<size_t> round_roofs{0};
    if (any_bf16 && bf16_roof != 0) round_roofs.push_back(bf16_roof);
    // So is a shape the sweep puts under a memory roof: held to a read of its
    // footprint timed in the same rounds (a main job on the Zen 4 VM: the
    // sweep read 20.4 GB/s at 64 MiB, the GEMV sample minutes later 25.2 at
    // its 64 MiB: 123% of a bound from another minute).
    const std::vector<RoundRead> round_reads =
        reads_to_time_in_rounds(shapes, read_sweep_1t, peaks_1t.front().second, peaks_1t[bf16_roof].second);
    std::vector<std::unique_ptr<GemmTimer>> timers;
    for (const GemmShape& s : shapes) timers.push_back(std::make_unique<GemmTimer>(s));
    const size_t first_read = shapes.size() + round_roofs.size();
    const std::vector<Spread> round_spreads = sample_in_rounds(
        std::vector<SampleLimits>(first_read + round_reads.size(), {5, 5}), 0.0, [&](size_t i) {
            if (i < shapes.size()) return timers[i]->sample_gflops();
            if (i >= first_read) return read_sample(buf, round_reads[i - first_read]);
            const size_t ri = round_roofs[i - shapes.size()];
            return probe_gflops(roofs[ri].probe, iterations[ri], 1);
        });
    const std::vector<Spread> gemm_spreads(round_spreads.begin(), round_spreads.begin() + std::ptrdiff_t(shapes.size()));
    const Spread& peak_in_rounds = round_spreads[shapes.size()];
    const double fp32_peak = peak_in_rounds.median;
    const double bf16_peak = round_spreads[first_read - 1].median;  // the first roof's if no other
    Json rounds_peak;
    rounds_peak["name"] = roofs.front().name;
    put_spread(rounds_peak, "peak", "gflops", peak_in_rounds);
    rounds_peak["peaks_section_gflops"] = peaks_1t.front().second;
    rounds_peak["host_speed_vs_peaks_section"] = fp32_peak / peaks_1t.front().second;
    out["sgemm_rounds_peak"] = rounds_peak;
    std::fprintf(stderr, "  %-20s in these rounds: %8.1f GFLOP/s (the peaks section's: %.1f)\n",
                 roofs.front().name.c_str(), fp32_peak, peaks_1t.front().second);
    if (round_roofs.size() > 1) {
        Json bf16_rounds;
        bf16_rounds["name"] = roofs[bf16_roof].name;
        put_spread(bf16_rounds, "peak", "gflops", round_spreads.back());
        bf16_rounds["peaks_section_gflops"] = peaks_1t[bf16_roof].second;
        bf16_rounds["host_speed_vs_peaks_section"] = bf16_peak / peaks_1t[bf16_roof].second;
        out["bf16_rounds_peak"] = bf16_rounds;
        std::fprintf(stderr, "  %-20s in these rounds: %8.1f GFLOP/s (the peaks section's: %.1f)\n",
                     roofs[bf16_roof].name.c_str(), bf16_peak, peaks_1t[bf16_roof].second);
    }
    std::vector<ridge_report> reports(shapes.size());
    std::vector<bool> reported(shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i) reported[i] = timers[i]->report(&reports[i]);
    timers.clear();
    Json bf16_gemms = Json::array();
    for (size_t si = 0; si < shapes.size(); ++si) {
        const GemmShape& s = shapes[si];
        const Spread& g = gemm_spreads[si];
        const double intensity = ideal_intensity(s);
        const double peak = s.bf16 ? bf16_peak : fp32_peak;
        const std::string& peak_name = roofs[s.bf16 ? bf16_roof : 0].name;
        // Realized: flops over the bytes ridge's schedule moved from memory (its report).
        const ridge_report& rep = reports[si];
        const double realized = reported[si] && rep.memory_bytes > 0 ? rep.flops / rep.memory_bytes : intensity;
        const int64_t footprint = footprint_bytes(s);
        const double sweep_bw = read_gbps_at(read_sweep_1t, footprint);
        const auto read = std::find_if(round_reads.begin(), round_reads.end(),
                                       [&](const RoundRead& r) { return r.shape == si; });
        // Where both were timed, the faster: a roof is the most the level
        // delivered, and either moment may be the slow one (the sweep's, in
        // the job that put the GEMV at 123%; the rounds', in a fresh clone's
        // job on the Zen 4 VM: 24.0 GB/s there against 32.3 in the sweep, the
        // GEMV's own rounds reading A at 27.4).
        const double rounds_bw =
            read == round_reads.end() ? 0.0 : round_spreads[first_read + size_t(read - round_reads.begin())].median;
        const double bw = std::max(sweep_bw, rounds_bw);
        const double bound = std::min(peak, intensity * bw);
        Json j;
        j["name"] = s.name;
        j["m"] = s.m;
        j["n"] = s.n;
        j["k"] = s.k;
        j["threads"] = 1;
        j["input"] = s.bf16 ? "bf16" : "f32";
        // The kernel that ran, as the call's report names it (the GEMV shape's GEMV kernels).
        j["kernel"] = reported[si] && rep.kernel ? rep.kernel : ridge_gemm_kernel_name(s.bf16 ? RIDGE_BF16 : RIDGE_F32);
        put_spread(j, "measured", "gflops", g);
        j["ideal_intensity_flop_per_byte"] = intensity;
        j["footprint_bytes"] = footprint;
        j["read_gbps_at_footprint"] = bw;  // the faster of the two below
        j["read_gbps_sweep_at_footprint"] = sweep_bw;
        if (read != round_reads.end()) {
            j["read_gbps_in_rounds"] = rounds_bw;  // where the sweep puts the shape under a memory roof
            j["read_streams_in_rounds"] = read->streams;
        }
        j["bound_gflops"] = bound;
        j["bound_peak_gflops"] = peak;  // sgemm_rounds_peak, or bf16_rounds_peak
        j["bound_by"] = intensity * bw < peak ? "bandwidth" : peak_name + " peak";
        j["percent_of_bound"] = 100.0 * g.median / bound;
        if (reported[si]) {
            const double realized_bound = std::min(peak, realized * bw);
            j["path"] = rep.path;
            j["realized_memory_intensity_flop_per_byte"] = realized;
            j["realized_over_ideal_reuse"] = realized / intensity;
            j["realized_bound_gflops"] = realized_bound;
            j["percent_of_realized_bound"] = 100.0 * g.median / realized_bound;
            j["measured_memory_bytes"] = rep.measured_memory_bytes >= 0 ? Json(rep.measured_memory_bytes)
                                                                        : Json(rep.hw_counters);
        }
        (s.bf16 ? bf16_gemms : gemms).push_back(j);
        placed.push_back({s.name, intensity, g.median, realized});
        std::fprintf(stderr, "  %-26s %8.1f GFLOP/s at I = %.2f (bound %.1f", s.name.c_str(), g.median, intensity,
                     bound);
        if (read != round_reads.end())
            std::fprintf(stderr, ": a read of %s, %d stream(s), %.1f GB/s in these rounds, %.1f in the sweep",
                         human_bytes(read->bytes).c_str(), read->streams, rounds_bw, sweep_bw);
        std::fprintf(stderr, ")\n");
    }
    ridge_set_num_threads(0);
    out["sgemm"] = gemms;
    if (any_bf16) out["bf16_gemm"] = bf16_gemms;

    // The 1-thread compute roofs of the picture and the ridge points: those the
    // samples are held to at their rate among the samples, the others as the
    // peaks section timed them.
    std::vector<std::pair<std::string, double>> roofs_1t = peaks_1t;
    roofs_1t.front().second = fp32_peak;
    if (round_roofs.size() > 1) roofs_1t[bf16_roof].second = bf16_peak;
    // Ridge points at 1 thread: every compute roof against every read roof.
    Json ridges = Json::array();
    for (const auto& [cname, gflops] : roofs_1t)
        for (const auto& [lname, gbps] : read_1t)
            ridges.push_back({{"compute", cname}, {"compute_gflops", gflops}, {"memory", lname}, {"threads", 1},
                              {"ridge_flop_per_byte", gflops / gbps}});
    out["ridge_points"] = ridges;
    const double t_total = seconds_since(start);
    out["elapsed_seconds"] = t_total;
    out["phase_seconds"] = {{"machine", t_machine},
                            {"peaks", t_peaks - t_machine},
                            {"bandwidth", t_bandwidth - t_peaks},
                            {"sgemm", t_total - t_bandwidth}};

    // --- picture: 1 thread, read roofs, every compute roof, the sgemm shapes at their ideal intensity
    RooflinePlot plot;
    plot.set_title("ridge roofline, 1 thread: " + std::string(machine["cpu_brand"]) + ", " +
                   std::string(out["date_utc"]));
    char sub[256];
    std::snprintf(sub, sizeof sub,
                  "%s family %d model %d, clock ~%.2f GHz; roofs: medians of this run (read bandwidth, zmm loads; "
                  "the roofs the samples are held to timed among them); ridge %s",
                  cpu.vendor, cpu.family, cpu.model, clock.median, ridge_version());
    plot.set_subtitle(sub);
    for (const auto& [name, gbps] : read_1t) plot.add_memory_roof(name, gbps);
    for (const auto& [name, gflops] : roofs_1t) plot.add_compute_roof(name, gflops);
    plot.set_points_heading(any_bf16 ? "ridge sgemm and bf16 GEMM, 1 thread" : "ridge sgemm, 1 thread");
    // Dark colours and four marker shapes: apart from the roofs' colours, and
    // told apart without colour.
    const char* const colors[] = {"#111111", "#6a3d9a", "#b15928", "#1b7e5a", "#c51b7d", "#3b5b92"};
    const Marker markers[] = {Marker::circle, Marker::square, Marker::diamond, Marker::triangle};
    for (size_t i = 0; i < placed.size(); ++i)
        plot.add_shape(placed[i].name, placed[i].intensity, placed[i].realized, placed[i].gflops,
                       PointStyle{colors[i % std::size(colors)], markers[i % std::size(markers)], true});

    bool ok = true;
    {
        std::ofstream f(opt.json_path);
        f << out.dump(2) << "\n";
        if (!f) {
            std::fprintf(stderr, "ridge-bench roofline: cannot write %s\n", opt.json_path.c_str());
            ok = false;
        }
    }
    if (!plot.write(opt.svg_path)) {
        std::fprintf(stderr, "ridge-bench roofline: cannot write %s\n", opt.svg_path.c_str());
        ok = false;
    }

    // Summary on stdout.
    std::printf("ridge roofline (%s), %s, %s\n", opt.quick ? "quick" : "full",
                std::string(machine["cpu_brand"]).c_str(), std::string(out["date_utc"]).c_str());
    std::printf("clock ~%.2f GHz; threads: 1 and %d; %s\n", clock.median, all_threads,
                std::string(machine["pinning"]).c_str());
    for (const Json& p : peaks)
        std::printf("  peak %-20s %2d thr  %8.1f GFLOP/s\n", std::string(p["name"]).c_str(), int(p["threads"]),
                    double(p["peak_gflops"]));
    std::printf("  peak %-20s  1 thr  %8.1f GFLOP/s among the sgemm samples (their bound)\n",
                std::string(rounds_peak["name"]).c_str(), fp32_peak);
    if (round_roofs.size() > 1)
        std::printf("  peak %-20s  1 thr  %8.1f GFLOP/s among the samples (the bf16 GEMM's bound)\n",
                    roofs[bf16_roof].name.c_str(), bf16_peak);
    for (const Json& l : levels) {
        std::printf("  %-4s %2d thr  read %7.1f GB/s", std::string(l["level"]).c_str(), int(l["threads"]),
                    double(l.value("read_gbps", 0.0)));
        if (l.contains("read_write_gbps")) std::printf("   read+write %7.1f GB/s", double(l["read_write_gbps"]));
        std::printf("\n");
    }
    for (const Json& sw : sweeps_json)
        for (const Json& k : sw["knees"])
            std::printf("  knee (%s, %d thr): %s -> %s, %.0f%% drop\n", std::string(sw["access"]).c_str(),
                        int(sw["threads"]), human_bytes(k["from_bytes"]).c_str(), human_bytes(k["to_bytes"]).c_str(),
                        100.0 * double(k["relative_drop"]));
    std::printf("written: %s, %s in %.1f s\n", opt.json_path.c_str(), opt.svg_path.c_str(), t_total);
    return ok ? 0 : 1;
}

}  // namespace ridge_bench
