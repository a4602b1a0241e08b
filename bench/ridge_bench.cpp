// ridge-bench: ridge's GEMM next to the other BLAS libraries on this machine,
// in one run, with repetitions randomly interleaved so that the machine's
// noise hits every library alike. Read medians and ratios, not single times.
//
//   ridge-bench [--shapes FILE]... [--libs ridge,openblas,...] [--quick] [Google Benchmark flags]
//
// --quick shortens the machine's probes (peaks, read bandwidths) to one short
// run each, for a smoke run (the test under valgrind); the JSON says so.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench_matrices.h"
#include "paired.h"
#include "peak.h"
#include "peers.h"
#include "roofline.h"
#include "scaling.h"
#include "transposes.h"
#include "ridge/cblas.h"
#include "ridge/ridge.h"
#include "ukr_bench.h"

namespace ridge_bench {
namespace {

struct Shape {
    bool gemv = false;  // a "gemv m n [N|T] [threads] [type]" line: k unused, tb unused
    int64_t batch = 0;  // a "batch COUNT m n k [threads]" line: COUNT distinct problems, one call each
    bool report_on = false;  // time ridge with per-call reporting on ("report" at the end of a line)
    bool malloc_offset = false;  // A, B and C 16 bytes into a cache line, as malloc gives ("malloc" at the end)
    int64_t m = 0, n = 0, k = 0;
    bool ta = false, tb = false;
    int threads = 1;
    InputType input = InputType::f32;
};

// One shape per line: "m n k [NN|NT|TN|TT] [threads] [f32|f16|bf16] [report] [malloc]"; '#' starts a comment.
std::vector<Shape> read_shapes(const std::string& path) {
    std::vector<Shape> shapes;
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "ridge-bench: cannot read %s\n", path.c_str());
        std::exit(2);
    }
    std::string line;
    while (std::getline(in, line)) {
        line = line.substr(0, line.find('#'));
        std::istringstream fields(line);
        Shape s;
        std::string trans = "NN";
        std::string first;
        if (!(fields >> first)) continue;
        if (first == "gemv") {
            s.gemv = true;
            std::string input = "f32";
            trans = "N";
            if (!(fields >> s.m >> s.n)) continue;
            fields >> trans >> s.threads >> input;
            s.ta = trans == "T";
            s.input = input == "bf16" ? InputType::bf16 : input == "f16" ? InputType::f16 : InputType::f32;
            shapes.push_back(s);
            continue;
        }
        if (first == "batch") {
            if (!(fields >> s.batch >> s.m >> s.n >> s.k)) continue;
            fields >> s.threads;
            shapes.push_back(s);
            continue;
        }
        s.m = std::stoll(first);
        if (!(fields >> s.n >> s.k)) continue;
        s.report_on = line.find("report") != std::string::npos;
        s.malloc_offset = line.find("malloc") != std::string::npos;
        std::string input = "f32";
        fields >> trans >> s.threads >> input;
        s.input = input == "bf16" ? InputType::bf16 : input == "f16" ? InputType::f16 : InputType::f32;
        s.ta = trans.size() > 0 && trans[0] == 'T';
        s.tb = trans.size() > 1 && trans[1] == 'T';
        shapes.push_back(s);
    }
    return shapes;
}

// Every library gets the same thread count before each benchmark: some read
// OpenMP's setting, which another library's benchmark may have changed.
// Read bandwidth at a working set of `bytes`, measured once per size per run:
// the roofline bound of a shape uses the bandwidth of the level its largest
// operand lives in, found by streaming a buffer of that operand's size.
ReadRate read_rate_at(int64_t bytes) {
    static std::map<int64_t, ReadRate> measured;
    auto it = measured.find(bytes);
    if (it == measured.end()) it = measured.emplace(bytes, measured_read_rate(bytes)).first;
    return it->second;
}
double read_gbps_at(int64_t bytes) { return read_rate_at(bytes).gbps; }

// The working set whose read bandwidth bounds a GEMM row: its largest
// operand's bytes, at least 1 MiB.
int64_t bandwidth_bytes(const Shape& s) {
    const double p = input_bytes(s.input);
    const int64_t largest = int64_t(std::max({p * s.m * s.k, p * s.k * s.n, 4.0 * s.m * s.n}));
    return std::max<int64_t>(largest, 1 << 20);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One thread's read bandwidth at `bytes`, timed among the rows as BM_peak is:
// the bound read_gbps_at gives a row comes from one moment, the first row of
// that size, and on a shared host memory runs at a third of its rate for
// minutes; summarize.py rescales those bounds by this median.
// It reads as many streams side by side as were fastest when read_rate_at
// first measured that size (the first row of it, or this row).
void bm_read(benchmark::State& state, int64_t bytes) {
    const int streams = read_rate_at(bytes).streams;
    std::vector<float> buf(size_t(bytes / 4), 1.0f);  // freed after each run: up to 256 MiB here
    const int passes = int(std::max<int64_t>(1, (int64_t(64) << 20) / bytes));  // >= 64 MiB a sample
    read_bytes(buf.data(), int64_t(buf.size()), streams);  // fault the pages in, warm the caches
    double read = 0;
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : state)
        for (int pass = 0; pass < passes; ++pass) read += read_bytes(buf.data(), int64_t(buf.size()), streams);
    state.counters["GBps"] = read / seconds_since(start) * 1e-9;
    state.counters["streams"] = streams;
}

void set_all_threads(int threads) {
    omp_set_num_threads(threads);
    for (GemmLibrary* lib : gemm_libraries()) lib->set_threads(threads);
}

// ridge's own report of one more call of the shape (not timed): realized
// intensity per level and the roofline bound at the level that binds.
void add_reuse_counters(benchmark::State& state, GemmLibrary* lib, const Shape& s, double peak_gflops,
                        double achieved_flops, const void* a, int64_t lda, const void* b, int64_t ldb, float* c,
                        int64_t ldc) {
    ridge_set_report(1);
    lib->gemm(s.input, s.ta, s.tb, s.m, s.n, s.k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
    ridge_set_report(0);
    ridge_report r;
    if (ridge_last_report(&r) != RIDGE_SUCCESS) return;
    auto intensity = [&](double bytes) { return bytes > 0 ? r.flops / bytes : 0.0; };
    const double p = input_bytes(s.input);
    const int64_t largest = int64_t(std::max({p * s.m * s.k, p * s.k * s.n, 4.0 * s.m * s.n}));
    // Bandwidth of each level: the read rate of a working set that lives there
    // (16 MiB: L3 on the machines this runs on; 1 MiB: L2).
    double bound = peak_gflops * s.threads;
    const char* binding = "compute";
    auto consider = [&](double i, double gbps, const char* level) {
        if (i > 0 && i * gbps < bound) bound = i * gbps, binding = level;
    };
    consider(intensity(r.memory_bytes), read_gbps_at(std::max<int64_t>(largest, 1 << 20)) * s.threads, "memory");
    consider(intensity(r.l3_to_l2_bytes), read_gbps_at(16 << 20) * s.threads, "L3");
    consider(intensity(r.l2_to_l1_bytes), read_gbps_at(1 << 20) * s.threads, "L2");
    state.counters["I_realized_mem"] = intensity(r.memory_bytes);
    state.counters["I_realized_L3L2"] = intensity(r.l3_to_l2_bytes);
    state.counters["I_realized_L2L1"] = intensity(r.l2_to_l1_bytes);
    state.counters["reuse_ratio"] = intensity(r.memory_bytes) / intensity(r.ideal_bytes);
    state.counters["roof_FLOPS"] = bound * 1e9;
    state.counters["pct_roof"] = 100.0 * achieved_flops / (bound * 1e9);
    state.SetLabel(std::string("binds: ") + binding + ", path " + r.path);
}

void bm_gemm(benchmark::State& state, GemmLibrary* lib, Shape s, double peak_gflops_1t) {
    set_all_threads(s.threads);
    // "ridge+report" times ridge with per-call reporting on: the report's overhead.
    if (s.report_on) ridge_set_report(1);
    const int64_t lda = s.ta ? s.k : s.m, ldb = s.tb ? s.n : s.k, ldc = s.m;
    // glibc's malloc puts a large block 16 bytes past a page boundary (its
    // header): what a program that does not align its matrices passes.
    const int64_t offset_bytes = s.malloc_offset ? 16 : 0;
    const int64_t offset_elements = offset_bytes / int64_t(input_bytes(s.input));
    const auto a_buf = random_matrix(s.input, s.m * s.k + offset_elements, 1);
    const auto b_buf = random_matrix(s.input, s.k * s.n + offset_elements, 2);
    auto c_buf = random_vector(s.m * s.n + offset_bytes / 4, 3);
    const char* a = a_buf.data() + offset_bytes;
    const char* b = b_buf.data() + offset_bytes;
    float* c = c_buf.data() + offset_bytes / 4;
    // One untimed call first, as for GEMV (bm_gemv): the first pass over fresh memory is the allocation's cost.
    lib->gemm(s.input, s.ta, s.tb, s.m, s.n, s.k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : state) {
        lib->gemm(s.input, s.ta, s.tb, s.m, s.n, s.k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
        benchmark::ClobberMemory();
    }
    const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k);
    // The loop's own rate, for the percentages: as rate counters they would
    // print as "percent per second".
    const double achieved = flops * double(state.iterations()) / seconds_since(start);
    state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["peak_FLOPS"] = peak_gflops_1t * 1e9 * s.threads;
    state.counters["pct_peak"] = 100.0 * achieved / (peak_gflops_1t * 1e9 * s.threads);
    // Roofline: ideal intensity (each matrix moved once; C written, and read when beta != 0:
    // here beta = 0) and the bound min(peak, I x bandwidth of the level the
    // largest operand lives in). Each thread of a team is given one thread's
    // read bandwidth, as add_reuse_counters does (the roofline section measured
    // 1.9-2.0x one thread's for two, from L3 and from DRAM, on the Intel VM).
    const double p = input_bytes(s.input);
    const double ideal_bytes = p * (double(s.m) * s.k + double(s.k) * s.n) + 4.0 * double(s.m) * s.n;
    const double intensity = flops / ideal_bytes;
    const double gbps = read_gbps_at(bandwidth_bytes(s));
    const double bound = std::min(peak_gflops_1t, intensity * gbps) * s.threads * 1e9;
    state.counters["bw_GBps"] = gbps;
    state.counters["bw_bytes"] = double(bandwidth_bytes(s));  // summarize.py finds BM_read/<bytes> by it
    state.counters["I_ideal"] = intensity;
    state.counters["bound_FLOPS"] = bound;
    state.counters["pct_bound"] = 100.0 * achieved / bound;
    if (s.report_on) ridge_set_report(0);
    if (lib->name() == "ridge" && !s.report_on)
        add_reuse_counters(state, lib, s, peak_gflops_1t, achieved, a, lda, b, ldb, c, ldc);
    set_all_threads(1);
}

// A batch of distinct problems of one shape (each its own A, B and C, laid out
// one after another, so a batch larger than the caches streams from memory),
// one library call per problem: what a program without a batch API does;
// `batch_api` (ridge only, "ridge+batch"): one ridge_sgemm_batch_strided call.
void bm_batch(benchmark::State& state, GemmLibrary* lib, Shape s, double peak_gflops_1t, bool batch_api) {
    set_all_threads(s.threads);
    const int64_t a_size = s.m * s.k, b_size = s.k * s.n, c_size = s.m * s.n;
    const auto a = random_matrix(s.input, a_size * s.batch, 1), b = random_matrix(s.input, b_size * s.batch, 2);
    auto c = random_vector(c_size * s.batch, 3);
    const float* a0 = reinterpret_cast<const float*>(a.data());
    const float* b0 = reinterpret_cast<const float*>(b.data());
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : state) {
        if (batch_api) {
            ridge_sgemm_batch_strided(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, s.m, s.n, s.k, 1.0f, a0, s.m,
                                      a_size, b0, s.k, b_size, 0.0f, c.data(), s.m, c_size, s.batch);
            benchmark::ClobberMemory();
            continue;
        }
        for (int64_t i = 0; i < s.batch; ++i)
            lib->gemm(s.input, false, false, s.m, s.n, s.k, 1.0f, a0 + i * a_size, s.m, b0 + i * b_size, s.k, 0.0f,
                      c.data() + i * c_size, s.m);
        benchmark::ClobberMemory();
    }
    const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k) * double(s.batch);
    const double achieved = flops * double(state.iterations()) / seconds_since(start);
    state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["peak_FLOPS"] = peak_gflops_1t * 1e9 * s.threads;
    state.counters["pct_peak"] = 100.0 * achieved / (peak_gflops_1t * 1e9 * s.threads);
    set_all_threads(1);
}

void bm_gemv(benchmark::State& state, GemmLibrary* lib, Shape s) {
    set_all_threads(s.threads);
    const auto a = random_matrix(s.input, s.m * s.n, 1);
    const auto x = random_matrix(s.input, s.ta ? s.m : s.n, 2);
    auto y = random_vector(s.ta ? s.n : s.m, 3);
    // One untimed call first: on this project's VM the first pass over freshly
    // allocated memory runs far below the machine's rate (a 1 GiB A: 8 GB/s, then
    // 30-34 GB/s; one timed call per repetition at 16384^2 read 1.3-1.8 GB/s for
    // every library), which is the allocation's cost, not the GEMV's.
    lib->gemv(s.input, s.ta, s.m, s.n, 1.0f, a.data(), s.m, x.data(), 0.0f, y.data());
    for (auto _ : state) {
        lib->gemv(s.input, s.ta, s.m, s.n, 1.0f, a.data(), s.m, x.data(), 0.0f, y.data());
        benchmark::ClobberMemory();
    }
    const double elems = double(s.m) * double(s.n);
    state.counters["FLOPS"] = benchmark::Counter(2.0 * elems, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["A_bytes_per_s"] =
        benchmark::Counter(elems * input_bytes(s.input), benchmark::Counter::kIsIterationInvariantRate);
    state.counters["A_elems_per_s"] = benchmark::Counter(elems, benchmark::Counter::kIsIterationInvariantRate);
    set_all_threads(1);
}

void bm_peak(benchmark::State& state, const PeakProbe* probe) {
    double flops = 0;
    const int64_t iterations = quick_probes() ? probe->iterations / 10 : probe->iterations;
    for (auto _ : state) flops = probe->run(iterations);
    state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

// Each probe's GFLOP/s on one thread, measured once at start-up (0 for an
// instruction this CPU lacks).
struct Peaks {
    std::map<std::string, double> by_family;
    double gflops(const std::string& family) const {
        const auto it = by_family.find(family);
        return it == by_family.end() ? 0.0 : it->second;
    }
};

Peaks measure_peaks() {
    Peaks p;
    for (const char* family : {"avx512", "avx2", "avx512bf16", "amx"})
        p.by_family[family] = measured_peak_gflops(family);
    return p;
}

// The machine's widest fp32 FMA (a CPU without AVX-512 measures 0 for zmm).
std::string widest_fma(const Peaks& p) { return p.gflops("avx512") > 0 ? "avx512" : "avx2"; }

// The probe a GEMM of inputs `t` is held to on this machine, whoever runs it:
// its fastest instruction for them. bf16: AMX's tdpbf16ps, vdpbf16ps or the
// fp32 FMA, whichever measured fastest; fp32 and fp16 (converted to fp32: no
// fp16 instruction with fp32 sums is probed) the widest fp32 FMA.
std::string machine_peak_family(InputType t, const Peaks& p) {
    std::string best = widest_fma(p);
    if (t != InputType::bf16) return best;
    for (const char* family : {"avx512bf16", "amx"})
        if (p.gflops(family) > p.gflops(best)) best = family;
    return best;
}

// The probe of the instruction ridge's kernel for inputs `t` runs: the suffix
// of its name (ukr_bf16_gemm_32x32__amx: "amx"), so that RIDGE_ISA=avx2 is
// held to the AVX2 peak and bf16 on AMX to AMX's; the portable kernel ("ref")
// to the machine's fp32 FMA.
std::string ridge_peak_family(InputType t, const Peaks& p) {
    const std::string kernel = ridge_gemm_kernel_name(t == InputType::bf16  ? RIDGE_BF16
                                                      : t == InputType::f16 ? RIDGE_F16
                                                                            : RIDGE_F32);
    const size_t cut = kernel.rfind("__");
    const std::string family = cut == std::string::npos ? "" : kernel.substr(cut + 2);
    return p.gflops(family) > 0 ? family : widest_fma(p);
}

std::string shape_name(const Shape& s) {
    std::string name = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    if (s.ta || s.tb) name += std::string("/") + (s.ta ? 'T' : 'N') + (s.tb ? 'T' : 'N');
    if (s.threads != 1) name += "/t" + std::to_string(s.threads);
    if (s.malloc_offset) name += "/malloc";
    return name;
}

bool wanted(const std::string& lib, const std::string& libs) {
    if (libs.empty()) return true;
    std::istringstream list(libs);
    for (std::string item; std::getline(list, item, ',');)
        if (item == lib) return true;
    return false;
}

}  // namespace
}  // namespace ridge_bench

int main(int argc, char** argv) {
    using namespace ridge_bench;
    // Subcommand: `ridge-bench roofline ...` measures the machine instead of the libraries.
    if (argc > 1 && std::string(argv[1]) == "roofline") return roofline_main(argc - 1, argv + 1);
    // `ridge-bench paired M N K ...`: ridge against each peer call by call (paired.cpp).
    if (argc > 1 && std::string(argv[1]) == "paired") return paired_main(argc - 1, argv + 1);
    // `ridge-bench scaling M N K ...`: ridge on one thread against a team, call by call (scaling.cpp).
    if (argc > 1 && std::string(argv[1]) == "scaling") return scaling_main(argc - 1, argv + 1);
    // `ridge-bench transposes M N K ...`: each library's TN/NT/TT against its own NN, call by call (transposes.cpp).
    if (argc > 1 && std::string(argv[1]) == "transposes") return transposes_main(argc - 1, argv + 1);
    std::vector<std::string> shape_files;
    std::string libs;
    // Defaults that make a noisy machine readable; any flag given later overrides them.
    std::vector<std::string> args{argv[0], "--benchmark_repetitions=5",
                                  "--benchmark_enable_random_interleaving=true",
                                  "--benchmark_report_aggregates_only=true", "--benchmark_min_time=0.2"};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--shapes" && i + 1 < argc) shape_files.push_back(argv[++i]);
        else if (a.rfind("--shapes=", 0) == 0) shape_files.push_back(a.substr(9));
        else if (a == "--libs" && i + 1 < argc) libs = argv[++i];
        else if (a == "--quick") set_quick_probes(true);  // short probes (peak.h): a smoke run
        else if (a.rfind("--libs=", 0) == 0) libs = a.substr(7);
        else args.push_back(a);
    }
    if (shape_files.empty()) {
        shape_files.push_back(std::string(RIDGE_BENCH_SHAPES_DIR) + "/sgemm.txt");
        shape_files.push_back(std::string(RIDGE_BENCH_SHAPES_DIR) + "/gemm16.txt");
        shape_files.push_back(std::string(RIDGE_BENCH_SHAPES_DIR) + "/gemv.txt");
        shape_files.push_back(std::string(RIDGE_BENCH_SHAPES_DIR) + "/decode.txt");
        shape_files.push_back(std::string(RIDGE_BENCH_SHAPES_DIR) + "/skinny.txt");
    }

    // The environment as the caller set it, before ridge-bench adjusts OpenBLAS's core and BLIS's configuration.
    for (const char* v : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "BLIS_ARCH_TYPE", "RIDGE_ISA", "RIDGE_PROFILE"}) {
        const char* val = std::getenv(v);
        benchmark::AddCustomContext(std::string("env_") + v, val ? val : "(unset)");
    }
    if (wanted("openblas", libs)) {
        const std::string own = choose_openblas_core();
        if (!own.empty())
            benchmark::AddCustomContext("openblas_own_pick", own + " (ridge-bench forced " +
                                                                 std::getenv("OPENBLAS_CORETYPE") + ")");
    }
    benchmark::AddCustomContext("probes", quick_probes() ? "quick (--quick: one short run each, not a measurement)"
                                                          : "full");
    const Peaks peaks = measure_peaks();
    benchmark::AddCustomContext("read_gbps_1t_256MiB", std::to_string(read_gbps_at(256 << 20)));
    benchmark::AddCustomContext("read_gbps_1t_64MiB", std::to_string(read_gbps_at(64 << 20)));
    benchmark::AddCustomContext("read_streams_1t_256MiB_64MiB", std::to_string(read_rate_at(256 << 20).streams) +
                                                                    " " + std::to_string(read_rate_at(64 << 20).streams));
    // Every family's figure, 0 where the CPU lacks it (summarize.py reads a 0 for AVX-512 as "ran AVX2").
    for (const auto& [family, gflops] : peaks.by_family)
        benchmark::AddCustomContext(peak_probe(family)->context, std::to_string(gflops));
    // Timed again among the rows, where the host's state drifts as the rows'
    // does; only the probes this CPU can run (an absent ISA is an illegal instruction).
    for (const PeakProbe* probe : probes_on_this_cpu())
        benchmark::RegisterBenchmark(probe->benchmark, bm_peak, probe)->UseRealTime();
    for (InputType t : {InputType::f32, InputType::f16, InputType::bf16}) {
        const std::string type = input_name(t);
        benchmark::AddCustomContext("peak_family_ridge_" + type, ridge_peak_family(t, peaks));
        benchmark::AddCustomContext("peak_family_machine_" + type, machine_peak_family(t, peaks));
    }
    register_ukr_benchmarks();
    std::set<int64_t> bandwidth_sizes;  // the working sets the GEMM rows' bounds read at
    for (const std::string& file : shape_files)
        for (const Shape& s : read_shapes(file))
            for (GemmLibrary* lib : gemm_libraries()) {
                if (s.gemv) {
                    if (!wanted(lib->name(), libs) || !lib->supports_gemv(s.input)) continue;
                    const std::string name = std::string("BM_gemv/") + input_name(s.input) + "/" + lib->name() +
                                             "/" + std::to_string(s.m) + "x" + std::to_string(s.n) + "/" +
                                             (s.ta ? "T" : "N") + (s.threads != 1 ? "/t" + std::to_string(s.threads) : "");
                    benchmark::RegisterBenchmark(name.c_str(), bm_gemv, lib, s)->UseRealTime();
                    continue;
                }
                if (s.batch > 0) {
                    if (!wanted(lib->name(), libs)) continue;
                    const std::string name = std::string("BM_gemm/f32/") + lib->name() + "/batch" +
                                             std::to_string(s.batch) + "x" + shape_name(s);
                    const double peak = peaks.gflops(lib->name() == "ridge" ? ridge_peak_family(InputType::f32, peaks)
                                                                           : machine_peak_family(InputType::f32, peaks));
                    benchmark::RegisterBenchmark(name.c_str(), bm_batch, lib, s, peak, false)->UseRealTime();
                    if (lib->name() == "ridge" && s.input == InputType::f32) {
                        const std::string api = std::string("BM_gemm/f32/ridge+batch/batch") +
                                                std::to_string(s.batch) + "x" + shape_name(s);
                        benchmark::RegisterBenchmark(api.c_str(), bm_batch, lib, s, peak, true)->UseRealTime();
                    }
                    continue;
                }
                if (!wanted(lib->name(), libs) || !lib->supports(s.input)) continue;
                if (s.report_on && lib->name() != "ridge") continue;  // the overhead is ridge's own
                bandwidth_sizes.insert(bandwidth_bytes(s));
                const double peak = peaks.gflops(lib->name() == "ridge" ? ridge_peak_family(s.input, peaks)
                                                                       : machine_peak_family(s.input, peaks));
                const std::string name = std::string("BM_gemm/") + input_name(s.input) + "/" +
                                         (s.report_on ? "ridge+report" : lib->name()) + "/" + shape_name(s);
                benchmark::RegisterBenchmark(name.c_str(), bm_gemm, lib, s, peak)->UseRealTime();
            }
    for (int64_t bytes : bandwidth_sizes)
        benchmark::RegisterBenchmark(("BM_read/" + std::to_string(bytes)).c_str(), bm_read, bytes)->UseRealTime();
    for (GemmLibrary* lib : gemm_libraries())
        benchmark::AddCustomContext("lib_" + lib->name(), lib->details());

    std::vector<char*> cargs;
    for (std::string& a : args) cargs.push_back(a.data());
    int cargc = int(cargs.size());
    benchmark::Initialize(&cargc, cargs.data());
    if (benchmark::ReportUnrecognizedArguments(cargc, cargs.data())) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
