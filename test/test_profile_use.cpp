// The library really uses a profile, and a bad one changes nothing: each test
// writes a profile, runs this same binary as a child with RIDGE_PROFILE set
// (the runtime configuration is read once per process), and reads what the
// child printed under RIDGE_VERBOSE. The child checks its configuration and
// that its GEMM is correct against a double reference.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dispatch/dispatch.h"
#include "dispatch/registry.h"
#include "kernels/convert.h"
#include "ridge/ridge.h"
#include "tuning/topology.h"

namespace {

bool in_child() { return std::getenv("RIDGE_PROFILE_USE_CHILD") != nullptr; }

// --- The profile the parent writes ---

std::string signature_json(const ridge::CpuSignature& sig) {
    return std::string("{\"vendor\": \"") + sig.vendor + "\", \"family\": " + std::to_string(sig.family) +
           ", \"model\": " + std::to_string(sig.model) + ", \"features\": \"" + sig.features + "\"}";
}

// Every registered kernel gets KC=64 (a multiple of every k group), 4 MR panels
// of MC and 8 NR panels of NC: far from any model's point, so it shows. C is
// streamed out from twice the library's own L3 on.
const char* const kForcedSmallPath =
    "{\"max_volume\": 1000, \"max_a_floats\": 12000, \"max_volume_alone\": 260000, "
    "\"max_volume_alone_lined_a\": 300000}";
std::string forced_profile(const ridge::CpuSignature& sig, const char* small_path = kForcedSmallPath) {
    std::string kernels;
    for (const ridge::GemmKernel& k : ridge::gemm_kernels()) {
        if (!kernels.empty()) kernels += ",\n";
        kernels += "    \"" + std::string(ridge::dtype_name(k.input)) + ":" + k.name + "\": {\"chosen\": {\"KC\": 64, " +
                   "\"MC\": " + std::to_string(4 * k.MR) + ", \"NC\": " + std::to_string(8 * k.NR) +
                   "}, \"note\": \"forced by test_profile_use\"}";
    }
    return "{\n  \"format\": \"ridge-profile\", \"format_version\": 1,\n  \"cpu\": " + signature_json(sig) +
           ",\n  \"kernels\": {\n" + kernels +
           "\n  },\n  \"small_path\": " + small_path + ",\n"
           "  \"skinny_path\": {\"max_columns\": 8, \"max_columns_bf16\": 24, \"max_columns_f16\": 4},\n"
           "  \"gemv\": {\"prefetch_elements\": 0},\n"
           "  \"stream_c\": {\"min_bytes\": " +
           std::to_string(int64_t(2 * ridge::runtime_config().last_level_cache_bytes)) + "},\n"
           "  \"blocked_path\": {\"a_in_place\": true, \"ir_outside_jr\": true, "
           "\"a_packed_while_computing_from_memory\": true, \"one_block_of_a\": false},\n"
           "  \"threads\": {\"min_flops_per_thread\": 123456, \"small_min_flops_per_thread\": 4321}\n}\n";
}

std::string temp_path(const char* name) {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/ridge_profile_use_" + std::to_string(getpid()) + "_" + name;
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
}

struct ChildRun {
    int status = -1;
    std::string output;
};

// Runs this binary's child tests with `profile` as RIDGE_PROFILE and the
// expectations in `expect` (environment assignments); stderr merged into output.
ChildRun run_child(const std::string& profile, const std::string& expect,
                   const char* child_test = "ConfigurationAndResult") {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return {};
    self[n] = '\0';
    const std::string cmd = "RIDGE_PROFILE_USE_CHILD=1 RIDGE_VERBOSE=1 RIDGE_PROFILE='" + profile + "' " + expect +
                            " '" + self + "' --gtest_filter='ProfileChild." + child_test + "' 2>&1";
    ChildRun run;
    FILE* pipe = popen(cmd.c_str(), "r");
    if (pipe == nullptr) return run;
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, pipe)) > 0) run.output.append(buf, got);
    run.status = pclose(pipe);
    return run;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// --- The parent's tests ---

TEST(ProfileUse, ForcedBlockingIsUsedAndResultsStayCorrect) {
    if (in_child()) GTEST_SKIP() << "parent test";
    const std::string path = temp_path("forced.json");
    write_file(path, forced_profile(ridge::this_cpu_signature()));
    const ChildRun run = run_child(path, "RIDGE_EXPECT_PROFILE=1");
    std::remove(path.c_str());
    EXPECT_EQ(0, run.status) << run.output;
    EXPECT_TRUE(has(run.output, "KC=64 (L1)")) << run.output;
    EXPECT_TRUE(has(run.output, "from the tuned profile")) << run.output;
    EXPECT_TRUE(has(run.output, "ridge: profile: " + path)) << run.output;
    EXPECT_TRUE(has(run.output, "op(A) in blocks of MC rows (profile: faster here")) << "its one_block_of_a: false\n"
                                                                                      << run.output;
    EXPECT_TRUE(has(run.output, "[  PASSED  ] 1 test")) << run.output;
}

// The forced profile with the small path's team limit above one thread's
// (300000 against 1000; a ridge-tune run on the Intel VM put them at 160^3
// and 80^3): one C for any thread count still (ProfileChild.OneCForAnyThreadCount).
TEST(ProfileUse, TeamSmallPathLimitAboveOneThreadsKeepsOneC) {
    if (in_child()) GTEST_SKIP() << "parent test";
    const std::string path = temp_path("team_above.json");
    write_file(path, forced_profile(ridge::this_cpu_signature(),
                                    "{\"max_volume\": 300000, \"max_a_floats\": 12000, \"max_volume_alone\": 1000, "
                                    "\"max_volume_alone_lined_a\": 1000}"));
    const ChildRun run = run_child(path, "", "OneCForAnyThreadCount");
    std::remove(path.c_str());
    EXPECT_EQ(0, run.status) << run.output;
    EXPECT_TRUE(has(run.output, "up to m*n*k = 3e+05 (1000 on one thread")) << run.output;
    EXPECT_TRUE(has(run.output, "[  PASSED  ] 1 test")) << run.output;
}

TEST(ProfileUse, CorruptProfileIsIgnoredWithAReason) {
    if (in_child()) GTEST_SKIP() << "parent test";
    const std::string path = temp_path("corrupt.json");
    const std::string whole = forced_profile(ridge::this_cpu_signature());
    write_file(path, whole.substr(0, whole.size() / 2));  // truncated mid-file
    const ChildRun run = run_child(path, "RIDGE_EXPECT_PROFILE=0");
    std::remove(path.c_str());
    EXPECT_EQ(0, run.status) << run.output;
    EXPECT_TRUE(has(run.output, "ignored (corrupt)")) << run.output;
    EXPECT_FALSE(has(run.output, "from the tuned profile")) << run.output;
}

TEST(ProfileUse, OtherCpuProfileIsIgnoredWithAReason) {
    if (in_child()) GTEST_SKIP() << "parent test";
    ridge::CpuSignature other = ridge::this_cpu_signature();
    other.model += 1;
    const std::string path = temp_path("other.json");
    write_file(path, forced_profile(other));
    const ChildRun run = run_child(path, "RIDGE_EXPECT_PROFILE=0");
    std::remove(path.c_str());
    EXPECT_EQ(0, run.status) << run.output;
    EXPECT_TRUE(has(run.output, "ignored (other_cpu)")) << run.output;
}

// Without a profile the one block of all of op(A)'s rows is on, and the
// RIDGE_VERBOSE line says for which rows, from the floor (a packed block of
// 1.5x L2) to a quarter of the topology's L3, or that there are none (the
// floor above that limit: the Zen 5 VM's 4 MiB fallback L3 admits 1024 rows
// at KC 256, the floor is 1536), never reading as on where no m runs it.
// `topo`: the caches the child saw; `range`: 1 if its line must give rows, 0
// if it must say none, -1 either (the checks below then tell them apart).
void expect_one_block_rows_line(const std::string& out, const ridge::CacheTopology& topo, int range) {
    long long fewest = 0, most = 0, kc = 0, l3_kib = 0;
    const size_t none_at = out.find("op(A) in blocks of MC rows for every m");
    const size_t range_at = out.find("all of op(A)'s rows as one block for ");
    ASSERT_NE(none_at == std::string::npos, range_at == std::string::npos) << "exactly one of the two lines\n"
                                                                          << out;
    if (range >= 0) ASSERT_EQ(range == 1, range_at != std::string::npos) << out;
    if (range_at == std::string::npos) {
        const size_t figures = out.find("would need at least ", none_at);
        ASSERT_NE(std::string::npos, figures) << out;
        ASSERT_EQ(4, std::sscanf(out.c_str() + figures,
                                 "would need at least %lld rows (fp32, KC %lld: 1.5x L2) and at most %lld (a "
                                 "quarter of the %lld KiB L3)", &fewest, &kc, &most, &l3_kib)) << out;
        EXPECT_GT(fewest, most) << out;
    } else {
        ASSERT_EQ(4, std::sscanf(out.c_str() + range_at,
                                 "all of op(A)'s rows as one block for %lld to %lld rows (fp32, KC %lld: from 1.5x "
                                 "L2 to a quarter of the %lld KiB L3)", &fewest, &most, &kc, &l3_kib)) << out;
        EXPECT_LE(fewest, most) << out;
    }
    const long long MR = ridge::runtime_config().gemm(ridge::Dtype::f32).kernel->MR, row_bytes = 4 * kc;
    const long long l2_and_a_half = 3 * static_cast<long long>(topo.l2.size_bytes) / 2;
    const long long l3_quarter = static_cast<long long>(topo.l3.size_bytes) / 4;
    EXPECT_EQ(static_cast<long long>(topo.l3.size_bytes / 1024), l3_kib);
    EXPECT_EQ(0, fewest % MR);
    EXPECT_GE(fewest * row_bytes, l2_and_a_half) << "the floor's block reaches 1.5x L2";
    EXPECT_LT((fewest - MR) * row_bytes, l2_and_a_half) << "and is the fewest rows that do";
    EXPECT_EQ(0, most % MR);
    EXPECT_LE(most * row_bytes, l3_quarter) << "the limit's block within a quarter of L3";
    EXPECT_GT((most + MR) * row_bytes, l3_quarter) << "and the most rows that are";
}

// A machine whose L3 share is more than six times its L2 (16 of 1 MiB), as
// hwloc reports it from test/topology/ (HWLOC_XMLFILE): the line gives the
// rows the one block runs for.
TEST(ProfileUse, OneBlockRowsFollowTheTopology) {
    if (in_child()) GTEST_SKIP() << "parent test";
    const std::string xml = std::string(RIDGE_TOPOLOGY_DIR) + "/vm_l3_32mib_shared2.xml";
    const ridge::RawCaches raw = ridge::read_hwloc_caches_from_xml(xml.c_str());
    ASSERT_EQ(3, raw.count);
    const ridge::CacheTopology topo = ridge::checked_topology(raw.level, size_t(raw.count));
    ASSERT_EQ(16 * 1024 * 1024, topo.l3.size_bytes) << "hwloc's L3 share believed";
    const ChildRun run = run_child("none", "HWLOC_XMLFILE='" + xml + "'", "OneCForAnyThreadCount");
    EXPECT_EQ(0, run.status) << run.output;
    EXPECT_TRUE(has(run.output, "L3 16384 KiB per core, 16-way, 64 B lines [hwloc]")) << run.output;
    expect_one_block_rows_line(run.output, topo, 1);
}

TEST(ProfileUse, MissingProfileAndNoneUseTheModel) {
    if (in_child()) GTEST_SKIP() << "parent test";
    const ChildRun missing = run_child(temp_path("does-not-exist.json"), "RIDGE_EXPECT_PROFILE=0");
    EXPECT_EQ(0, missing.status) << missing.output;
    EXPECT_TRUE(has(missing.output, "from the Low et al. model")) << missing.output;
    const ChildRun none = run_child("none", "RIDGE_EXPECT_PROFILE=0");
    EXPECT_EQ(0, none.status) << none.output;
    EXPECT_TRUE(has(none.output, "RIDGE_PROFILE=none")) << none.output;
    expect_one_block_rows_line(none.output, ridge::machine_topology(), -1);
}

// --- The child's test ---

// C = A * B (column-major, 700 x 170 x 300) against a double reference: more
// rows than the small path takes above 160^3, so the blocked path runs
// (and, with KC=64, loops over pc several times).
void expect_correct_sgemm() {
    const int m = 700, n = 170, k = 300;  // taller than the small path takes: blocked with or without a profile
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> a(size_t(m) * k), b(size_t(k) * n), c(size_t(m) * n, 0.0f);
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    ridge_set_report(1);
    ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, n, k, 1.0f, a.data(), m,
                                         b.data(), k, 0.0f, c.data(), m));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double want = 0, mag = 0;
            for (int p = 0; p < k; ++p) {
                want += double(a[size_t(i) + size_t(p) * m]) * double(b[size_t(p) + size_t(j) * k]);
                mag += std::fabs(double(a[size_t(i) + size_t(p) * m]) * double(b[size_t(p) + size_t(j) * k]));
            }
            ASSERT_NEAR(want, c[size_t(i) + size_t(j) * m], 2.0 * k * 6e-8 * mag) << "C(" << i << "," << j << ")";
        }
}

// 600 x 16 x 1000: the skinny path by the library's own limit, the blocked path
// under the profile's (8 columns).
void expect_skinny_path_follows(const ridge::RuntimeConfig& cfg, bool expect_profile) {
    if (cfg.gemm(ridge::Dtype::f32).kernel->skinny == nullptr) return;  // no skinny path on this CPU
    const int m = 600, n = 16, k = 1000;  // above the small path's built-in volume
    std::vector<float> a(size_t(m) * k, 0.5f), b(size_t(k) * n, 0.25f), c(size_t(m) * n, 0.0f);
    ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, n, k, 1.0f, a.data(), m,
                                         b.data(), k, 0.0f, c.data(), m));
    EXPECT_EQ(0.125f * k, c[0]);
    EXPECT_EQ(0.125f * k, c.back());
    ridge_report r;
    ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
    EXPECT_STREQ(expect_profile ? "blocked" : "skinny", r.path);
}

// 16-bit inputs, each under its own limit (the profile's 24 for bf16 and 4 for
// fp16, against fp32's 8; built in 64 for both): widths between the limits, so
// a type held to another type's limit takes the other path. 0.5 and 0.25 are
// exact in both types.
void expect_16bit_skinny_path_follows(const ridge::RuntimeConfig& cfg, bool expect_profile) {
    const int m = 600, k = 1000;  // m >= 512: the skinny path may take more than 24 columns
    using Gemm16 = ridge_status (*)(ridge_layout, ridge_transpose, ridge_transpose, int64_t, int64_t, int64_t, float,
                                    const uint16_t*, int64_t, const uint16_t*, int64_t, float, float*, int64_t);
    struct Case {
        ridge::Dtype input;
        int n;
        const char* with_profile;
        const char* built_in;
    };
    for (const Case& t : {Case{ridge::Dtype::bf16, 16, "skinny", "skinny"}, Case{ridge::Dtype::f16, 16, "blocked", "skinny"},
                          Case{ridge::Dtype::bf16, 40, "blocked", "skinny"}, Case{ridge::Dtype::f16, 40, "blocked", "skinny"}}) {
        SCOPED_TRACE(std::string(ridge::dtype_name(t.input)) + " n = " + std::to_string(t.n));
        if (cfg.gemm(t.input).kernel->skinny == nullptr) continue;  // no skinny path for it on this CPU
        const bool bf16 = t.input == ridge::Dtype::bf16;
        const Gemm16 gemm = bf16 ? ridge_gemm_bf16 : ridge_gemm_f16;
        std::vector<uint16_t> a(size_t(m) * k, bf16 ? 0x3F00 : 0x3800), b(size_t(k) * t.n, bf16 ? 0x3E80 : 0x3400);
        std::vector<float> c(size_t(m) * t.n, 0.0f);
        ASSERT_EQ(RIDGE_SUCCESS, gemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, t.n, k, 1.0f, a.data(), m,
                                      b.data(), k, 0.0f, c.data(), m));
        EXPECT_EQ(0.125f * k, c[0]);
        EXPECT_EQ(0.125f * k, c.back());
        ridge_report r;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
        EXPECT_STREQ(expect_profile ? t.with_profile : t.built_in, r.path);
    }
}

// A call that runs on one thread takes the small path above the profile's
// small-path volume (1000 here) up to its one-thread volume (260000; 300000
// for A transposed, which the small path packs onto cache lines), where
// the same call on a team takes the blocked path (small_path_alone in
// paths.cpp), and C comes out the same bit for bit either way, in one KC
// step and in two (the profile's KC is 64); above that (61 x 59 x 76 with A
// as stored) one thread takes the blocked path too. Without the profile, all
// of them are within the built-in volume where the small path takes any
// shape, on any team.
void expect_small_path_alone(bool expect_profile) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (const bool trans_a : {false, true})
        for (const int k : {60, 70, 76}) {  // op(A) within the profile's 12000 floats (64 x 76)
            const int m = 61, n = 59;
            SCOPED_TRACE(std::string(trans_a ? "TN " : "NN ") + std::to_string(m) + "x" + std::to_string(n) + "x" +
                         std::to_string(k));
            std::vector<float> a(size_t(m) * k), b(size_t(k) * n), c0(size_t(m) * n);
            for (float& x : a) x = dist(rng);
            for (float& x : b) x = dist(rng);
            for (float& x : c0) x = dist(rng);
            std::vector<float> c[2] = {c0, c0};
            const char* path[2] = {};
            int threads[2] = {};
            for (int run = 0; run < 2; ++run) {
                ridge_set_num_threads(run + 1);
                const ridge_status status =
                    ridge_sgemm(RIDGE_COL_MAJOR, trans_a ? RIDGE_TRANS : RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, n, k,
                                -1.25f, a.data(), trans_a ? k : m, b.data(), k, 0.5f, c[run].data(), m);
                ridge_set_num_threads(0);
                ASSERT_EQ(RIDGE_SUCCESS, status);
                ridge_report r;
                ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
                path[run] = r.path, threads[run] = r.threads;
            }
            const double limit = trans_a ? 300000 : 260000;  // (A's columns 61 floats apart: off lines)
            const bool alone_small = !expect_profile || double(m) * n * k <= limit;
            EXPECT_STREQ(alone_small ? "small" : "blocked", path[0]) << "on one thread";
            if (threads[1] < 2) continue;  // OpenMP gave no second thread: nothing to compare
            EXPECT_STREQ(expect_profile ? "blocked" : "small", path[1]) << "on two threads";
            EXPECT_EQ(0, std::memcmp(c[0].data(), c[1].data(), c0.size() * sizeof(float))) << "1 and 2 threads differ";
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < m; ++i) {
                    double want = 0.5 * double(c0[size_t(i + j * m)]), mag = std::fabs(want);
                    for (int p = 0; p < k; ++p) {
                        const double term = -1.25 * double(a[size_t(trans_a ? p + i * k : i + p * m)]) *
                                            double(b[size_t(p + j * k)]);
                        want += term, mag += std::fabs(term);
                    }
                    ASSERT_NEAR(want, c[0][size_t(i + j * m)], 2.0 * k * 6e-8 * mag) << "C(" << i << "," << j << ")";
                }
        }
}

// One thread, A as stored: the small path's limit is the profile's one for A
// on cache lines (300000) where every column of A starts on a 64-byte line,
// else the other (260000): 64 x 64 x 70 (286720) takes the small path with A
// on lines, the blocked path with A 16 bytes past one, or with lda = 65 (the
// first column on a line, the next ones not). The same bits either way.
// Without the profile the built-in volume takes all three.
void expect_small_path_alone_by_where_a_starts(bool expect_profile) {
    std::mt19937 rng(13);
    std::uniform_real_distribution<float> dist(-1, 1);
    const int m = 64, n = 64, k = 70;
    struct Placement {
        const char* what;
        int64_t offset, lda;
        bool on_lines;
    };
    const Placement placements[] = {{"on lines", 0, 64, true}, {"16 bytes past a line", 4, 64, false},
                                    {"lda = 65", 0, 65, false}};
    // (aligned_alloc wants a whole number of alignments: ASan's returns null otherwise)
    const size_t bytes = (sizeof(float) * (65 * k + 64) + 63) / 64 * 64;
    float* storage = static_cast<float*>(std::aligned_alloc(64, bytes));
    ASSERT_NE(nullptr, storage);
    std::vector<float> b(size_t(k) * n);
    for (float& x : b) x = dist(rng);
    std::vector<float> first_c;
    for (const Placement& where : placements) {
        SCOPED_TRACE(where.what);
        float* a = storage + where.offset;
        for (int64_t i = 0; i < where.lda * k; ++i) a[i] = float((i * 7) % 13) * 0.125f;  // the same A at each place
        std::vector<float> c(size_t(m) * n, 1.0f);
        ridge_set_num_threads(1);
        const ridge_status status = ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, n, k, 0.5f, a,
                                                where.lda, b.data(), k, 0.0f, c.data(), m);
        ridge_report r;
        const ridge_status reported = ridge_last_report(&r);
        ridge_set_num_threads(0);
        ASSERT_EQ(RIDGE_SUCCESS, status);
        ASSERT_EQ(RIDGE_SUCCESS, reported);
        EXPECT_STREQ(!expect_profile || where.on_lines ? "small" : "blocked", r.path);
        EXPECT_EQ(1, r.threads);
        if (where.lda != 64) continue;  // (another A: its own C)
        if (first_c.empty()) first_c = c;
        else EXPECT_EQ(0, std::memcmp(first_c.data(), c.data(), c.size() * sizeof(float))) << "the two paths differ";
    }
    std::free(storage);
}

// One thread, A on lines but larger than the profile's max_a_floats (12000):
// the small path would read it in blocks of rows, so the limit for A on lines
// (300000) does not apply, the other one (260000) does. 64 x 24 x 188 has a
// volume between them (288768) and 12032 floats of A: the blocked path with
// the profile, the small path without it (the built-in bound is 256 Ki floats).
void expect_lined_limit_only_for_a_within_bound(bool expect_profile) {
    const int m = 64, n = 24, k = 188;
    const size_t bytes = (sizeof(float) * m * k + 63) / 64 * 64;
    float* a = static_cast<float*>(std::aligned_alloc(64, bytes));
    ASSERT_NE(nullptr, a);
    for (int i = 0; i < m * k; ++i) a[i] = float((i * 5) % 11) * 0.25f;
    std::vector<float> b(size_t(k) * n, 0.5f), c(size_t(m) * n, 1.0f);
    ridge_set_num_threads(1);
    const ridge_status status =
        ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, n, k, 1.0f, a, m, b.data(), k, 0.0f, c.data(), m);
    ridge_report r;
    const ridge_status reported = ridge_last_report(&r);
    ridge_set_num_threads(0);
    std::free(a);
    ASSERT_EQ(RIDGE_SUCCESS, status);
    ASSERT_EQ(RIDGE_SUCCESS, reported);
    EXPECT_STREQ(expect_profile ? "blocked" : "small", r.path);
    EXPECT_EQ(1, r.threads);
}

// A small C over a deep k (paths.cpp: small_c_deep_k): past the profile's
// volumes, where the blocked path would run more than one KC step (the
// profile's KC is 64) and op(A) is within the profile's bound (12000 floats),
// the small path takes a C of at most 256 x 192 on a team and 128 x 128
// alone; a k within one step (at most twice KC), a larger C or a larger op(A)
// keeps the blocked path. 1 and 2 threads give C the same bits. Without the
// profile all of them are within the built-in volume.
void expect_small_c_deep_k(bool expect_profile) {
    struct Case {
        int m, n, k;
        const char* alone;  // the path with the profile, 1 thread / 2 threads
        const char* team;
    };
    const Case cases[] = {{64, 64, 160, "small", "small"},       // C within both bounds, three KC steps
                          {64, 300, 160, "blocked", "small"},    // C past the one-thread bound only
                          {64, 800, 160, "blocked", "blocked"},  // and past the team's
                          {64, 64, 100, "blocked", "blocked"},   // one KC step (k within twice KC)
                          {64, 64, 200, "blocked", "blocked"}};  // op(A) of 12800 floats
    std::mt19937 rng(14);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (const Case& t : cases) {
        SCOPED_TRACE(std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k));
        std::vector<float> a(size_t(t.m) * t.k), b(size_t(t.k) * t.n), c0(size_t(t.m) * t.n);
        for (float& x : a) x = dist(rng);
        for (float& x : b) x = dist(rng);
        for (float& x : c0) x = dist(rng);
        std::vector<float> c[2] = {c0, c0};
        for (int run = 0; run < 2; ++run) {
            ridge_set_num_threads(run + 1);
            const ridge_status status = ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, t.m, t.n, t.k,
                                                    0.75f, a.data(), t.m, b.data(), t.k, -0.5f, c[run].data(), t.m);
            ridge_report r;
            const ridge_status reported = ridge_last_report(&r);
            ridge_set_num_threads(0);
            ASSERT_EQ(RIDGE_SUCCESS, status);
            ASSERT_EQ(RIDGE_SUCCESS, reported);
            if (run == 1 && r.threads < 2) break;  // OpenMP gave no second thread: nothing to compare
            EXPECT_STREQ(!expect_profile ? "small" : run == 0 ? t.alone : t.team, r.path) << run + 1 << " thread(s)";
            if (run == 1) EXPECT_EQ(0, std::memcmp(c[0].data(), c[1].data(), c0.size() * sizeof(float)));
        }
        for (const int i : {0, t.m * t.n / 2 + 3, t.m * t.n - 1}) {  // a few elements against a double sum
            const int row = i % t.m, col = i / t.m;
            double want = -0.5 * double(c0[size_t(i)]), mag = std::fabs(want);
            for (int p = 0; p < t.k; ++p) {
                const double term = 0.75 * double(a[size_t(row + p * t.m)]) * double(b[size_t(p + col * t.k)]);
                want += term, mag += std::fabs(term);
            }
            EXPECT_NEAR(want, c[0][size_t(i)], 2.0 * t.k * 6e-8 * mag);
        }
    }
}

// Past the profile's team volume (1000) and within its one-thread one
// (260000), a call that one of the in-place paths would take on a team takes
// the same path on one thread and on two, whose bits differ from another's
// (paths.cpp: small_path_limit): few rows of C (16 x 200 x 60) the small path,
// by the one-thread limit on the team too; few rows with B transposed (16 x
// 300 x 50) the skinny path on C^T, on one thread too. A strided batch on
// one thread writes what a call does. Without the profile all of them are
// within the built-in volume.
void expect_one_thread_as_a_team_past_its_limit(bool expect_profile) {
    struct Case {
        int m, n, k;
        bool trans_b;
        const char* path;  // with the profile, on one thread and on two
    };
    std::mt19937 rng(15);
    std::uniform_real_distribution<float> dist(-1, 1);
    // The last two have too few flops for the blocked path's team (the
    // profile's 123456 a thread) and enough for the small path's (4321): the
    // small path would run them on a team, and one thread goes by that.
    for (const Case& t : {Case{16, 200, 60, false, "small"}, Case{16, 300, 50, true, "skinny_trans_b"},
                          Case{16, 40, 100, false, "small"}, Case{16, 150, 50, true, "skinny_trans_b"}}) {
        SCOPED_TRACE(std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k) +
                     (t.trans_b ? " NT" : " NN"));
        const int count = 2, ldb = t.trans_b ? t.n : t.k;
        std::vector<float> a(size_t(t.m) * t.k * count), b(size_t(t.k) * t.n * count), c0(size_t(t.m) * t.n * count);
        for (float& x : a) x = dist(rng);
        for (float& x : b) x = dist(rng);
        for (float& x : c0) x = dist(rng);
        std::vector<float> c[2] = {c0, c0}, batched = c0;
        const char* path[2] = {};
        int threads = 0;
        for (int run = 0; run < 2; ++run) {
            ridge_set_num_threads(run + 1);
            const ridge_status status =
                ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, t.trans_b ? RIDGE_TRANS : RIDGE_NO_TRANS, t.m, t.n, t.k,
                            0.75f, a.data(), t.m, b.data(), ldb, -0.5f, c[run].data(), t.m);
            ridge_report r;
            const ridge_status reported = ridge_last_report(&r);
            ridge_set_num_threads(0);
            ASSERT_EQ(RIDGE_SUCCESS, status);
            ASSERT_EQ(RIDGE_SUCCESS, reported);
            path[run] = r.path, threads = r.threads;
        }
        ridge_set_num_threads(1);
        const ridge_status status = ridge_sgemm_batch_strided(
            RIDGE_COL_MAJOR, RIDGE_NO_TRANS, t.trans_b ? RIDGE_TRANS : RIDGE_NO_TRANS, t.m, t.n, t.k, 0.75f, a.data(),
            t.m, t.m * t.k, b.data(), ldb, t.k * t.n, -0.5f, batched.data(), t.m, t.m * t.n, count);
        ridge_set_num_threads(0);
        ASSERT_EQ(RIDGE_SUCCESS, status);
        EXPECT_STREQ(expect_profile ? t.path : "small", path[0]) << "on one thread";
        if (threads < 2) continue;  // OpenMP gave no second thread: nothing to compare
        EXPECT_STREQ(path[0], path[1]) << "on two threads";
        const size_t one = size_t(t.m) * t.n;
        EXPECT_EQ(0, std::memcmp(c[0].data(), c[1].data(), one * sizeof(float))) << "1 and 2 threads differ";
        EXPECT_EQ(0, std::memcmp(batched.data(), c[1].data(), one * sizeof(float))) << "a batch on 1 thread differs";
    }
}

// One C for any thread count, on random shapes under the profile's limits
// (the forced profile's: a team's small-path volume of 1000 against one
// thread's 260000, or the other way round, the blocked path's 123456 flops a
// thread against the small path's 4321, 8 skinny columns, KC 64), where the
// paths' windows lie close together: few rows, few columns, deep and
// square-ish shapes, every transpose pair, some with A on cache lines. Each C
// on 1 and 2 threads the same bit for bit.
void expect_one_c_for_any_thread_count() {
    ridge_set_report(1);  // (the paths in a failure's message)
    std::mt19937 rng(16);
    std::uniform_real_distribution<float> dist(-1, 1);
    auto draw = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (int i = 0; i < 120; ++i) {
        int m, n, k;
        switch (i % 4) {
        case 0: m = draw(1, 48), n = draw(16, 400), k = draw(8, 300); break;   // few rows
        case 1: m = draw(16, 400), n = draw(1, 64), k = draw(8, 300); break;   // few columns
        case 2: m = draw(16, 128), n = draw(16, 128), k = draw(64, 600); break;  // deep
        default: m = draw(16, 200), n = draw(16, 200), k = draw(16, 200); break;
        }
        const bool ta = draw(0, 1) == 1, tb = draw(0, 1) == 1, lined = draw(0, 2) == 0;
        const int lda = ta ? k : m, ldb = tb ? n : k;
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + (ta ? " T" : " N") +
                     (tb ? "T" : "N") + (lined ? ", A on lines" : ""));
        const size_t a_floats = size_t(lda) * (ta ? m : k);
        const size_t a_bytes = (sizeof(float) * (a_floats + 16) + 63) / 64 * 64;
        const std::unique_ptr<float, decltype(&std::free)> a_storage(
            static_cast<float*>(std::aligned_alloc(64, a_bytes)), &std::free);
        ASSERT_NE(nullptr, a_storage);
        float* a = a_storage.get() + (lined ? 0 : 4);  // 16 bytes past a line, as malloc places large blocks
        for (size_t j = 0; j < a_floats; ++j) a[j] = dist(rng);
        std::vector<float> b(size_t(ldb) * (tb ? k : n)), c0(size_t(m) * n);
        for (float& x : b) x = dist(rng);
        for (float& x : c0) x = dist(rng);
        std::vector<float> c[2] = {c0, c0};
        const char* path[2] = {};
        for (int run = 0; run < 2; ++run) {
            ridge_set_num_threads(run + 1);
            const ridge_status status =
                ridge_sgemm(RIDGE_COL_MAJOR, ta ? RIDGE_TRANS : RIDGE_NO_TRANS, tb ? RIDGE_TRANS : RIDGE_NO_TRANS, m, n,
                            k, 0.75f, a, lda, b.data(), ldb, i % 3 == 0 ? 0.0f : -0.5f, c[run].data(), m);
            ridge_report r;
            const ridge_status reported = ridge_last_report(&r);
            ridge_set_num_threads(0);
            ASSERT_EQ(RIDGE_SUCCESS, status);
            ASSERT_EQ(RIDGE_SUCCESS, reported);
            path[run] = r.path;
        }
        EXPECT_EQ(0, std::memcmp(c[0].data(), c[1].data(), c0.size() * sizeof(float)))
            << "1 and 2 threads differ: " << path[0] << " / " << path[1];
    }
}

// A strided batch on one thread takes the small path to the same one-thread
// limit (the batch's own fast path, not one call per problem), with each C as
// a call on two threads writes it (the blocked path there, with the profile).
void expect_batch_small_path_alone(bool expect_profile) {
    std::mt19937 rng(12);
    std::uniform_real_distribution<float> dist(-1, 1);
    const int m = 61, n = 59, k = 70, count = 3;
    std::vector<float> a(size_t(m) * k * count), b(size_t(k) * n * count), c0(size_t(m) * n * count);
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    for (float& x : c0) x = dist(rng);
    std::vector<float> batched = c0, one_by_one = c0;
    ridge_set_num_threads(1);
    const ridge_status status =
        ridge_sgemm_batch_strided(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, n, k, 0.75f, a.data(), m, m * k,
                                  b.data(), k, k * n, -0.5f, batched.data(), m, m * n, count);
    ridge_report r;
    const ridge_status reported = ridge_last_report(&r);
    ridge_set_num_threads(2);
    for (int i = 0; i < count && status == RIDGE_SUCCESS; ++i)
        ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, n, k, 0.75f,
                                             a.data() + size_t(i) * m * k, m, b.data() + size_t(i) * k * n, k, -0.5f,
                                             one_by_one.data() + size_t(i) * m * n, m));
    ridge_set_num_threads(0);
    ASSERT_EQ(RIDGE_SUCCESS, status);
    ASSERT_EQ(RIDGE_SUCCESS, reported);
    EXPECT_STREQ("gemm_batch", r.routine);
    EXPECT_STREQ("small", r.path) << (expect_profile ? "above the profile's team limit, within its one-thread one" : "");
    EXPECT_EQ(0, std::memcmp(batched.data(), one_by_one.data(), batched.size() * sizeof(float)))
        << "the batch and one call per problem differ";
}

// A GEMV whose A is beyond the L3: prefetched by the library's own figure,
// left to the hardware prefetchers by the profile's 0 (the path says which).
void expect_gemv_prefetch_follows(const ridge::RuntimeConfig& cfg, bool expect_profile) {
    EXPECT_EQ(expect_profile ? 0 : ridge::builtin_crossovers().gemv_prefetch_elements, cfg.gemv_prefetch_elements);
    const int64_t m = 2048, n = int64_t(cfg.gemv_from_memory_min_bytes / (2.0 * m)) + 1;  // bf16: 2 bytes each
    const std::vector<uint16_t> a(size_t(m * n), ridge::f32_to_bf16(0.5f)), x(size_t(n), ridge::f32_to_bf16(2.0f));
    std::vector<float> y(size_t(m), -1.0f);
    ASSERT_EQ(RIDGE_SUCCESS,  // reporting is on since expect_correct_sgemm
              ridge_gemv_bf16(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, m, n, 1.0f, a.data(), m, x.data(), 1, 0.0f, y.data(), 1));
    ridge_report r;
    ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
    EXPECT_STREQ(expect_profile ? "gemv" : "gemv_prefetch", r.path);
    EXPECT_EQ(float(n), y[0]);  // n products of 1.0, exact in fp32 (n < 2^24)
    EXPECT_EQ(float(n), y[size_t(m - 1)]);
}

// A C written once between the library's L3 and twice it: streamed out by the
// library's own figure, written with ordinary stores under the profile's
// (twice the L3), both with the right product.
void expect_c_streaming_follows(const ridge::RuntimeConfig& cfg, bool expect_profile) {
    EXPECT_EQ(cfg.last_level_cache_bytes * (expect_profile ? 2.0 : 1.0), cfg.stream_c_min_bytes);
    const int64_t m = 512, k = 16, n = int64_t(1.5 * cfg.last_level_cache_bytes / (4.0 * m));
    const std::vector<float> a(size_t(m * k), 0.5f), b(size_t(k * n), 0.25f);
    std::vector<float> c(size_t(m * n), -1.0f);
    ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, m, n, k, 1.0f, a.data(), m,
                                         b.data(), k, 0.0f, c.data(), m));
    ridge_report r;
    ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
    EXPECT_STREQ(expect_profile ? "blocked" : "blocked_stream_c", r.path);
    EXPECT_EQ(2.0f, c[0]);  // 16 products of 0.125, exact
    EXPECT_EQ(2.0f, c.back());
}

// Few rows of fp32 C with B larger than L2: past the small path's volume (the
// profile's 1000; the built-in one takes most of these) the thin rule
// decides (paths.cpp: thin_enough_for_small_path), the small path from 17
// rows where B fits the last-level cache and from 24 where it does not, the
// few-rows path's outer form below that. The product is right on either path.
void expect_few_rows_follow_the_thin_rule(const ridge::RuntimeConfig& cfg) {
    const ridge::GemmKernel& ker = *cfg.gemm(ridge::Dtype::f32).kernel;
    if (ker.small_f32 == nullptr || ker.small_kernel_max_volume > 0 || ker.few_rows_outer == nullptr) return;
    const double l2 = double(ridge::machine_topology().l2.size_bytes), llc = cfg.last_level_cache_bytes;
    if (llc < 1.5 * l2 || llc > 64.0 * 1024 * 1024) return;  // no room between them, or a B too large to allocate here
    const int64_t k = 512;
    const int64_t b_in_cache = int64_t((l2 + llc) / 2.0 / (4.0 * k)), b_beyond = int64_t(llc / (4.0 * k)) + 64;
    struct Case {
        int64_t m, n;
        const char* by_thin_rule;
    };
    for (const Case& t : {Case{20, b_in_cache, "small"}, Case{20, b_beyond, "skinny_m"}, Case{24, b_beyond, "small"}}) {
        SCOPED_TRACE(std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(k));
        const std::vector<float> a(size_t(t.m * k), 0.5f), b(size_t(k * t.n), 0.25f);
        std::vector<float> c(size_t(t.m * t.n), -1.0f);
        ASSERT_EQ(RIDGE_SUCCESS, ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, t.m, t.n, k, 1.0f,
                                             a.data(), t.m, b.data(), k, 0.0f, c.data(), t.m));
        ridge_report r;
        ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
        const bool within_volume = double(t.m) * double(t.n) * double(k) <= cfg.small_max_volume;
        EXPECT_STREQ(within_volume ? "small" : t.by_thin_rule, r.path);
        for (const float x : {c[0], c[c.size() / 2], c.back()}) EXPECT_EQ(64.0f, x);  // 512 products of 0.125, exact
    }
}

TEST(ProfileChild, OneCForAnyThreadCount) {
    if (!in_child()) GTEST_SKIP() << "run by the ProfileUse tests";
    expect_one_c_for_any_thread_count();
}

TEST(ProfileChild, ConfigurationAndResult) {
    if (!in_child()) GTEST_SKIP() << "run by the ProfileUse tests";
    const bool expect_profile = std::string(std::getenv("RIDGE_EXPECT_PROFILE") ?: "0") == "1";
    const ridge::RuntimeConfig& cfg = ridge::runtime_config();
    for (int d = 0; d < 3; ++d) {
        EXPECT_EQ(expect_profile, cfg.choices[d].blocking_from_profile) << ridge::dtype_name(ridge::Dtype(d));
        if (expect_profile) EXPECT_EQ(64, cfg.choices[d].blocking.KC);
    }
    if (expect_profile) {
        EXPECT_EQ(1000.0, cfg.small_max_volume);
        EXPECT_EQ(260000.0, cfg.small_max_volume_alone);
        EXPECT_EQ(300000.0, cfg.small_max_volume_alone_lined_a);
        EXPECT_EQ(12000.0, cfg.small_max_a_floats);
        EXPECT_EQ(123456.0, cfg.min_flops_per_thread);
        EXPECT_EQ(4321.0, cfg.small_min_flops_per_thread);
        EXPECT_EQ(8, cfg.skinny_max_columns[int(ridge::Dtype::f32)]);
        EXPECT_EQ(24, cfg.skinny_max_columns[int(ridge::Dtype::bf16)]);
        EXPECT_EQ(4, cfg.skinny_max_columns[int(ridge::Dtype::f16)]);
        EXPECT_TRUE(cfg.blocked_a_in_place);
        EXPECT_TRUE(cfg.blocked_ir_outside_jr);
        EXPECT_TRUE(cfg.blocked_a_packed_while_computing_from_memory);
        EXPECT_FALSE(cfg.blocked_one_block_of_a);
    } else {  // the built-in figures (paths.cpp)
        EXPECT_FALSE(cfg.blocked_a_in_place) << "A read in place on the blocked path only where a profile says so";
        EXPECT_FALSE(cfg.blocked_ir_outside_jr) << "the ir loop outside jr only where a profile says so";
        EXPECT_FALSE(cfg.blocked_a_packed_while_computing_from_memory)
            << "A from memory packed while computing only where a profile says so";
        EXPECT_TRUE(cfg.blocked_one_block_of_a) << "one block of all of A's rows unless a profile says otherwise";
        EXPECT_EQ(128, cfg.skinny_max_columns[int(ridge::Dtype::f32)]);
        EXPECT_EQ(64, cfg.skinny_max_columns[int(ridge::Dtype::bf16)]);
        EXPECT_EQ(64, cfg.skinny_max_columns[int(ridge::Dtype::f16)]);
    }
    // The blocked path's plan follows the profile's one block of A: no rows as one block where it says no.
    ridge::GemmPlan plan;
    plan.kernel = cfg.gemm(ridge::Dtype::f32).kernel;
    plan.blocking = cfg.gemm(ridge::Dtype::f32).blocking;
    ridge::set_blocked_path_limits(&plan);
    EXPECT_EQ(expect_profile ? 0 : ridge::a_rows_in_l3(plan.blocking, *plan.kernel), plan.a_rows_in_l3);
    if (!expect_profile) EXPECT_GT(plan.a_rows_in_l3, 0);
    expect_correct_sgemm();
    ridge_report r;
    ASSERT_EQ(RIDGE_SUCCESS, ridge_last_report(&r));
    EXPECT_STREQ("blocked", r.path);
    if (expect_profile) EXPECT_EQ(64, r.KC);
    expect_skinny_path_follows(cfg, expect_profile);
    expect_16bit_skinny_path_follows(cfg, expect_profile);
    expect_gemv_prefetch_follows(cfg, expect_profile);
    expect_c_streaming_follows(cfg, expect_profile);
    expect_few_rows_follow_the_thin_rule(cfg);
    if (cfg.gemm(ridge::Dtype::f32).kernel->small_f32 != nullptr) {
        expect_small_path_alone(expect_profile);
        expect_small_path_alone_by_where_a_starts(expect_profile);
        expect_lined_limit_only_for_a_within_bound(expect_profile);
        expect_small_c_deep_k(expect_profile);
        expect_one_thread_as_a_team_past_its_limit(expect_profile);
        expect_one_c_for_any_thread_count();
        expect_batch_small_path_alone(expect_profile);
    }
}

}  // namespace
