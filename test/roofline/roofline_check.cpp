// roofline_check RIDGE_BENCH WORKDIR PYTHON3 CHECK_SVG_PY
//
// Runs `ridge-bench roofline --quick`, then measures the same two figures here
// with code of its own (no ridge code, no bench code): the fp32 FMA peak of one
// core with zmm registers, and one thread's read bandwidth streaming 512 MiB.
// Each must agree with the JSON within 10%. This machine is shared: its
// memory side drifts by 20-30% within seconds (one CI run: DRAM read 10.3,
// 13.0 and 9.9 GB/s here in three attempts a few seconds apart), and the rate
// of one 512 MiB buffer depends on where its pages lie. So the own figures are
// taken just before and just after ridge-bench runs, the DRAM rate on two
// fresh buffers each time, and the bench's figure must lie within 10% of the
// range they span: on a steady host that is the plain 10% check; otherwise
// it widens by exactly the spread the own measurements show around the bench
// run, never more. A disagreement is measured again (both sides) before it
// counts: up to five attempts. Then the SVG goes to check_svg.py, with the
// JSON to compare against.
// Exit 0: agreed and well-formed; 1: failed; 77: skipped (no AVX-512).
#include <immintrin.h>
#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// A timed run and whether this thread kept its CPU through it: a run during
// which the OS ran something else here measures the sharing, not the core.
struct Run {
    double rate;
    bool kept_cpu;
};

template <class Body>
Run timed(double work, Body body) {
    const double cpu0 = thread_cpu_seconds();
    const auto t0 = Clock::now();
    body();
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    return {work / wall, thread_cpu_seconds() - cpu0 >= 0.95 * wall};
}

// Median of `want` undisturbed runs, taking at most 3x as many attempts; with
// fewer good runs, the median of all of them.
template <class Measure>
double median_of_runs(int want, Measure measure) {
    std::vector<double> good, all;
    for (int attempt = 0; attempt < 3 * want && int(good.size()) < want; ++attempt) {
        const Run r = measure();
        all.push_back(r.rate);
        if (r.kept_cpu) good.push_back(r.rate);
    }
    std::vector<double>& v = good.size() >= 3 ? good : all;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// 16 independent zmm accumulators: twice what FMA latency x FMA ports needs on
// current cores, so throughput, not latency, bounds the loop. Not inlined: one
// copy, compiled alone, keeps both constants in registers (inlined into a
// caller, GCC 12 once reloaded the multiplier from memory in every FMA and
// broadcast the addend every iteration, a third slower).
__attribute__((noinline)) float fma_loop(int64_t iterations) {
    __m512 acc[16];
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(1.0f + float(i));
    const __m512 mul = _mm512_set1_ps(0.9999f), add = _mm512_set1_ps(0.0001f);
    for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 16
        for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], mul, add);
    }
    __m512 sum = acc[0];
    for (int i = 1; i < 16; ++i) sum = _mm512_add_ps(sum, acc[i]);
    // Through memory rather than _mm512_reduce_add_ps, whose GCC 12 header warns
    // of an uninitialized variable of its own.
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, sum);
    float total = 0;
    for (float x : lanes) total += x;
    return total;
}

volatile float g_float_sink;
volatile uint64_t g_int_sink;

double own_fma_gflops() {
    // Grow a run until it lasts 5 ms (which also lets the core settle on its
    // vector clock), then runs of ~30 ms.
    int64_t iterations = 1 << 12;
    for (;;) {
        const auto t0 = Clock::now();
        g_float_sink = fma_loop(iterations);
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (s > 0.005) {
            iterations = int64_t(double(iterations) * 0.03 / s);
            break;
        }
        iterations *= 2;
    }
    const double flops = double(iterations) * 16 * 16 * 2;  // accumulators x lanes x (mul + add)
    return median_of_runs(7, [&] { return timed(flops, [&] { g_float_sink = fma_loop(iterations); }); }) * 1e-9;
}

// One thread summing 512 MiB of 64-bit integers a cache line per zmm load,
// four lines per step into four accumulators, a pass at a time: far past any
// cache, so this is the read bandwidth from DRAM (whole-line vector loads, as
// the bench's reader: scalar loads read ~10% below it on a quiet host). As the
// bench's read roof, the fastest of the buffer read as 1, 2, 4 or 8 equal
// segments side by side (ridge-bench's kReadStreamCounts: several streams
// read 1.1-1.3x one from memory on the Zen 4 VM). Each
// call reads a buffer of its own, allocated for it: where the VM's pages of
// one allocation lie in the host's memory moves its rate, by 5-10% between
// allocations in one process and more between processes (one buffer kept for
// a whole check read 11.0-12.6 GB/s through five attempts while the bench, a
// new process with a new buffer each time, read 13.8-15.1).
double own_read_gbps() {
    constexpr size_t kBytes = size_t(512) << 20, kLine = 64;
    auto* words = static_cast<uint64_t*>(std::aligned_alloc(2 << 20, kBytes));
    if (words == nullptr) return 0;
    for (size_t i = 0; i < kBytes / sizeof(uint64_t); ++i) words[i] = 1;  // every page resident before timing
    const auto* data = reinterpret_cast<const __m512i*>(words);
    auto pass = [&](size_t streams) {
        const size_t segment = kBytes / kLine / streams;  // lines, a multiple of 4
        __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
        for (size_t line = 0; line < segment; line += 4)
            for (size_t st = 0; st < streams; ++st) {
                const __m512i* p = data + st * segment + line;
                s0 = _mm512_add_epi64(s0, _mm512_load_si512(p));
                s1 = _mm512_add_epi64(s1, _mm512_load_si512(p + 1));
                s2 = _mm512_add_epi64(s2, _mm512_load_si512(p + 2));
                s3 = _mm512_add_epi64(s3, _mm512_load_si512(p + 3));
            }
        alignas(64) uint64_t lanes[8];
        _mm512_store_si512(lanes, _mm512_add_epi64(_mm512_add_epi64(s0, s1), _mm512_add_epi64(s2, s3)));
        uint64_t total = 0;
        for (uint64_t x : lanes) total += x;
        g_int_sink = total;
    };
    pass(1);
    double gbps = 0;
    for (size_t streams : {1, 2, 4, 8})
        gbps = std::max(gbps, median_of_runs(5, [&] { return timed(double(kBytes), [&] { pass(streams); }); }) * 1e-9);
    std::free(words);
    return gbps;
}

int run_command(const std::string& command) {
    std::printf("$ %s\n", command.c_str());
    std::fflush(stdout);
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

bool within(double measured, double reference, double tolerance) {
    return reference > 0 && std::fabs(measured - reference) / reference <= tolerance;
}

// The range of some measurements.
struct Band {
    double lo = 0, hi = 0;
    void add(double x) {
        lo = lo > 0 ? std::min(lo, x) : x;
        hi = std::max(hi, x);
    }
    // Within `tolerance` of some point of [lo, hi].
    bool holds(double measured, double tolerance) const {
        return lo > 0 && measured >= lo * (1 - tolerance) && measured <= hi * (1 + tolerance);
    }
    // How far outside [lo, hi] `measured` lies, relative to the nearer end (0 inside).
    double off(double measured) const {
        return measured < lo ? measured / lo - 1 : measured > hi ? measured / hi - 1 : 0.0;
    }
};

// The own figures on one side of a bench run: the FMA peak, and the DRAM read
// rate of two buffers (two placements; see own_read_gbps).
void measure_own(Band* peak, Band* dram) {
    peak->add(own_fma_gflops());
    for (int buffer = 0; buffer < 2; ++buffer) dram->add(own_read_gbps());
}

// The JSON's structure, beyond the two figures: what the quick mode promises.
bool structure_ok(const nlohmann::json& j) {
    bool ok = true;
    auto expect = [&](bool cond, const char* what) {
        if (!cond) std::printf("FAIL: %s\n", what);
        ok = ok && cond;
    };
    expect(j.value("mode", "") == "quick", "mode is \"quick\"");
    expect(!j.value("ridge_version", "").empty(), "ridge_version present");
    const std::string date = j.value("date_utc", "");
    expect(date.size() == 20 && date[4] == '-' && date[10] == 'T' && date.back() == 'Z', "date_utc is ISO 8601 UTC");
    const auto& m = j["machine"];
    expect(!m.value("cpu_brand", "").empty() && !m.value("cpu_vendor", "").empty(), "cpu brand and vendor present");
    expect(m.value("clock_ghz", 0.0) > 0.5 && m.value("clock_ghz", 0.0) < 10, "clock_ghz plausible");
    expect(!m.value("pinning", "").empty() && !m.value("affinity_cpu_list", "").empty(),
           "pinning and affinity present");
    expect(j["peaks"].size() == 1, "quick mode: one compute peak");
    // The sgemm rows are held to the peak timed in their own rounds.
    const auto& rounds = j["sgemm_rounds_peak"];
    const double rounds_peak = rounds.value("peak_gflops", 0.0);
    expect(rounds.value("name", "") == "fp32 FMA zmm" && rounds_peak > 0 && rounds.value("runs", 0) == 5,
           "sgemm_rounds_peak: the fp32 zmm roof, timed 5 times");
    expect(within(rounds.value("host_speed_vs_peaks_section", 0.0) * rounds.value("peaks_section_gflops", 0.0),
                  rounds_peak, 1e-9),
           "host_speed_vs_peaks_section is the rounds' peak over the peaks section's");
    expect(!j["sgemm"].empty(), "sgemm rows present");
    for (const auto& g : j["sgemm"]) {
        expect(g.value("bound_peak_gflops", 0.0) == rounds_peak, "an sgemm row's bound peak is the rounds' peak");
        expect(g.value("bound_gflops", 0.0) > 0 && g.value("bound_gflops", 0.0) <= rounds_peak,
               "an sgemm row's bound is at most that peak");
        expect(within(g.value("percent_of_bound", 0.0), 100 * g.value("measured_gflops", 0.0) / g.value("bound_gflops", 1.0),
                      1e-9),
               "percent_of_bound is the measured rate over the bound");
    }
    const auto& sweeps = j["bandwidth"]["sweeps"];
    expect(sweeps.size() == 1, "quick mode: one sweep");
    if (sweeps.size() == 1) {
        std::vector<int64_t> sizes;
        for (const auto& p : sweeps[0]["points"]) sizes.push_back(p.value("working_set_bytes", int64_t(0)));
        expect(sizes == std::vector<int64_t>{16 << 10, int64_t(64) << 20, int64_t(512) << 20},
               "quick mode: 16 KiB, 64 MiB and 512 MiB");
    }
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: roofline_check RIDGE_BENCH WORKDIR PYTHON3 CHECK_SVG_PY\n");
        return 1;
    }
    const std::string bench = argv[1], dir = argv[2], python = argv[3], check_svg = argv[4];
    if (!__builtin_cpu_supports("avx512f")) {
        std::printf("skipped: no AVX-512 here, and both measurements need it\n");
        return 77;
    }
    if (run_command("mkdir -p " + quoted(dir)) != 0) return 1;
    const std::string json_path = dir + "/roofline.json", svg_path = dir + "/roofline.svg";

    bool agreed = false;
    nlohmann::json j;
    for (int attempt = 1; attempt <= 5 && !agreed; ++attempt) {
        Band own_peak, own_dram;
        measure_own(&own_peak, &own_dram);
        if (run_command(quoted(bench) + " roofline --quick --json " + quoted(json_path) + " --svg " +
                        quoted(svg_path)) != 0) {
            std::printf("FAIL: ridge-bench roofline --quick failed\n");
            return 1;
        }
        measure_own(&own_peak, &own_dram);
        std::ifstream in(json_path);
        j = nlohmann::json::parse(in, nullptr, false);
        if (j.is_discarded()) {
            std::printf("FAIL: %s is not JSON\n", json_path.c_str());
            return 1;
        }
        double bench_peak = 0, bench_dram = 0;
        for (const auto& p : j["peaks"])
            if (p.value("name", "") == "fp32 FMA zmm" && p.value("threads", 0) == 1) bench_peak = p["peak_gflops"];
        for (const auto& l : j["levels"])
            if (l.value("level", "") == "DRAM" && l.value("threads", 0) == 1) bench_dram = l.value("read_gbps", 0.0);
        // The peak timed among the sgemm samples too: the figure their bounds use.
        const double rounds_peak = j["sgemm_rounds_peak"].value("peak_gflops", 0.0);
        const bool peak_ok = own_peak.holds(bench_peak, 0.10) && own_peak.holds(rounds_peak, 0.10);
        const bool dram_ok = own_dram.holds(bench_dram, 0.10);
        std::printf(
            "attempt %d: fp32 zmm peak %.1f GFLOP/s, among the sgemm samples %.1f (own %.1f-%.1f, %+.1f%% and %+.1f%% "
            "outside) %s; DRAM read %.2f GB/s (own %.2f-%.2f, %+.1f%% outside) %s\n",
            attempt, bench_peak, rounds_peak, own_peak.lo, own_peak.hi, 100 * own_peak.off(bench_peak),
            100 * own_peak.off(rounds_peak), peak_ok ? "ok" : "OFF", bench_dram, own_dram.lo, own_dram.hi,
            100 * own_dram.off(bench_dram), dram_ok ? "ok" : "OFF");
        agreed = peak_ok && dram_ok;
    }
    if (!agreed) {
        std::printf("FAIL: ridge-bench and the independent measurement disagree by more than 10%% in 5 attempts\n");
        return 1;
    }
    if (!structure_ok(j)) return 1;
    if (run_command(quoted(python) + " " + quoted(check_svg) + " " + quoted(svg_path) + " " + quoted(json_path)) != 0) {
        std::printf("FAIL: the SVG check failed\n");
        return 1;
    }
    std::printf("PASS\n");
    return 0;
}
