#include "cache_probe.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "peak.h"

namespace ridge_tune {
namespace {

constexpr int64_t KiB = 1024;
constexpr int64_t MiB = 1024 * KiB;

// Median GB/s of reading the first `bytes` of `buf` repeatedly: every sample
// reads at least 32 MiB, so small sizes are timed over many passes.
double read_gbps(const float* buf, int64_t bytes) {
    const int64_t count = bytes / int64_t(sizeof(float));
    const int passes = int(std::max<int64_t>(1, 32 * MiB / bytes));
    std::vector<double> rates;
    for (int rep = 0; rep < 6; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        double moved = 0;
        for (int p = 0; p < passes; ++p) moved += ridge_bench::read_bytes(buf, count);  // zmm, else ymm, else portable
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (rep > 0) rates.push_back(moved / s * 1e-9);  // rep 0 warms the caches
    }
    std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
    return rates[rates.size() / 2];
}

// Sizes from 16 KiB to max_bytes in steps of sqrt(2), each read by one thread.
std::vector<BandwidthPoint> sweep_once(const float* buf, int64_t max_bytes) {
    std::vector<BandwidthPoint> sweep;
    for (double b = 16.0 * KiB; b <= double(max_bytes) * 1.001; b *= std::sqrt(2.0)) {
        const int64_t bytes = int64_t(b) / 256 * 256;  // whole 4-zmm steps
        sweep.push_back({bytes, read_gbps(buf, bytes)});
    }
    return sweep;
}

// Two sweeps, each size's faster reading (faster_per_size: a slow stretch of
// the host then has to hit a size twice to move a knee). About 2 s each here.
std::vector<BandwidthPoint> run_sweep(int64_t max_bytes) {
    float* buf = static_cast<float*>(std::aligned_alloc(64, size_t(max_bytes)));
    if (buf == nullptr) return {};
    std::memset(buf, 0, size_t(max_bytes));  // fault every page in once, outside the timings
    const std::vector<BandwidthPoint> first = sweep_once(buf, max_bytes);
    const std::vector<BandwidthPoint> sweep = faster_per_size(first, sweep_once(buf, max_bytes));
    std::free(buf);
    return sweep;
}

// Median bandwidth of the sweep's points with lo <= bytes <= hi (0 if none).
double median_gbps(const std::vector<BandwidthPoint>& sweep, int64_t lo, int64_t hi) {
    std::vector<double> v;
    for (const BandwidthPoint& p : sweep)
        if (p.bytes >= lo && p.bytes <= hi) v.push_back(p.gbps);
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

std::string rejection(const ridge::CacheLevel& checked) {
    const char* text = checked.source.c_str();
    return std::strncmp(text, "fallback", 8) == 0 ? std::string(text) : std::string();
}

}  // namespace

ridge::CacheTopology TunerTopology::model_input() const {
    ridge::CacheTopology t;
    t.l1 = level[0].chosen;
    t.l2 = level[1].chosen;
    t.l3 = level[2].chosen;
    return t;
}

TunerTopology probe_caches(int64_t max_bytes) {
    TunerTopology topo;
    topo.sweep = run_sweep(max_bytes);
    const ridge::RawCaches raw = ridge::read_hwloc_caches();
    const ridge::CacheTopology checked = ridge::checked_topology(raw.level, size_t(raw.count));
    const ridge::CacheLevel* checked_levels[3] = {&checked.l1, &checked.l2, &checked.l3};
    int64_t below = 0;  // the size of the level below, as chosen
    for (int l = 0; l < 3; ++l) {
        CacheFigure& f = topo.level[l];
        f.level = l + 1;
        for (int i = 0; i < raw.count; ++i)
            if (raw.level[i].level == l + 1) f.hwloc = raw.level[i];
        f.hwloc_rejection = rejection(*checked_levels[l]);
        f.hwloc_passed = f.hwloc_rejection.empty();
        // The knee is looked for from twice the level below: the plateau of this level.
        f.measured_bytes = knee_after(topo.sweep, below == 0 ? 0 : 2 * below);
        f.chosen = *checked_levels[l];
        if (f.hwloc_passed) {
            f.source = "hwloc";
        } else if (f.measured_bytes > 2 * below) {
            // The sweep saw the whole level as one core uses it; the model wants this
            // core's share, so hwloc's count of cores sharing it still divides, and
            // is kept beside the share as for a level hwloc's figures passed (size
            // times cores sharing is the whole level: the profile's stream_c). The
            // fallback's count (1) had stayed, so the whole L3 read as half the
            // knee: on the Intel VM of family 6 model 207 (knee 128 MiB) C was
            // streamed out from 64 MiB, a C the L3 holds (paths.cpp:
            // use_streaming_c has the measurements, and what they show).
            f.chosen.size_bytes = f.measured_bytes / std::max(1, f.hwloc.cores_sharing);
            f.chosen.cores_sharing = std::max(1, f.hwloc.cores_sharing);
            f.chosen.source.set("measured (read-bandwidth knee at %lld KiB)", (long long)(f.measured_bytes / KiB));
            if (f.chosen.ways <= 0) f.chosen.ways = 16;  // a sweep cannot see ways: keep the fallback's
            f.source = "measured";
        } else {
            f.source = "fallback";
        }
        below = f.level == 3 ? below : std::max(f.chosen.size_bytes * std::max(1, f.chosen.cores_sharing), below);
    }
    // Bandwidth from each level: the middle of its plateau, one thread.
    int64_t lo = 0;
    for (int l = 0; l < 3; ++l) {
        const int64_t size = topo.level[l].chosen.size_bytes * std::max(1, topo.level[l].chosen.cores_sharing);
        topo.level[l].read_gbps = median_gbps(topo.sweep, lo, size / 2);
        lo = 2 * size;
    }
    topo.memory_read_gbps = median_gbps(topo.sweep, std::max(lo, max_bytes / 2), max_bytes);
    return topo;
}

}  // namespace ridge_tune
