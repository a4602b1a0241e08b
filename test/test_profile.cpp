// The per-machine profile: the strict JSON reader under it, parse_profile's
// statuses (loaded, corrupt, wrong_format, other_cpu) on valid, partial, foreign
// and hostile texts, load_profile_file on real files, and profile_path's search
// order over the environment.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tuning/json_reader.h"
#include "tuning/profile.h"

using ridge::CpuSignature;
using ridge::JsonDocument;
using ridge::JsonNode;
using ridge::JsonType;
using ridge::Profile;
using ridge::ProfileBlocking;
using ridge::ProfileStatus;

namespace {

const char kIntelFeatures[] = "fma avx2 f16c avx512f avx512bw avx512vl avx512dq avx512_bf16 amx";

CpuSignature make_signature(const char* vendor, int family, int model, const char* features) {
    CpuSignature s;
    std::snprintf(s.vendor, sizeof s.vendor, "%s", vendor);
    s.family = family;
    s.model = model;
    std::snprintf(s.features, sizeof s.features, "%s", features);
    return s;
}

CpuSignature intel() { return make_signature("GenuineIntel", 6, 143, kIntelFeatures); }

std::string cpu_member(const std::string& vendor = "GenuineIntel", const std::string& family = "6",
                       const std::string& model = "143", const std::string& features = kIntelFeatures) {
    return "\"cpu\": {\"vendor\": \"" + vendor + "\", \"family\": " + family + ", \"model\": " + model +
           ", \"features\": \"" + features + "\"}";
}

std::string kernel_entry(const std::string& name, const std::string& kc, const std::string& mc,
                         const std::string& nc) {
    return "\"" + name + "\": {\"chosen\": {\"KC\": " + kc + ", \"MC\": " + mc + ", \"NC\": " + nc + "}}";
}

// A profile as top-level members, each raw JSON text ("" leaves it out), so a test
// can drop, replace or add one part.
struct Parts {
    std::string format = "\"format\": \"ridge-profile\"";
    std::string version = "\"format_version\": 1";
    std::string cpu = cpu_member();
    std::string kernels = "\"kernels\": {" + kernel_entry("ukr_f32_gemm_32x12__avx512", "384", "480", "3072") +
                          ", " + kernel_entry("ukr_f32_gemm_16x6__avx2", "256", "96", "2048") + "}";
    std::string small_path = "\"small_path\": {\"max_volume\": 4096000, \"max_a_floats\": 262144}";
    std::string threads = "\"threads\": {\"min_flops_per_thread\": 8000000}";
    std::string skinny_path = "\"skinny_path\": {\"max_columns\": 48}";
    std::string extra;

    std::string text() const {
        std::string out = "{";
        for (const std::string* p : {&format, &version, &cpu, &kernels, &small_path, &threads, &skinny_path, &extra}) {
            if (p->empty()) continue;
            if (out.size() > 1) out += ", ";
            out += *p;
        }
        return out + "}";
    }
};

// A profile with every member ridge-tune writes, provenance included, as it
// would be on disk (indented, a final newline).
std::string full_profile() {
    return "{\n"
           "  \"format\": \"ridge-profile\",\n"
           "  \"format_version\": 1,\n"
           "  \"written_by\": \"ridge-tune 0.1.0\",\n"
           "  \"cpu\": {\"vendor\": \"GenuineIntel\", \"family\": 6, \"model\": 143,\n"
           "          \"features\": \"" + std::string(kIntelFeatures) + "\",\n"
           "          \"brand\": \"Xeon \\u00e9\\ud83d\\ude00 caf\xc3\xa9\"},\n"
           "  \"hwloc\": {\"l1d\": 49152, \"notes\": [], \"ok\": true, \"bad\": false, \"none\": null},\n"
           "  \"kernels\": {\n"
           "    \"ukr_f32_gemm_32x12__avx512\": {\"chosen\": {\"KC\": 384, \"MC\": 480, \"NC\": 3072},\n"
           "                                   \"model\": {\"KC\": 320}, \"gflops\": 1.5e2},\n"
           "    \"ukr_f32_gemm_16x6__avx2\": {\"chosen\": {\"KC\": 256, \"MC\": 96, \"NC\": 2048}},\n"
           "    \"ukr_bf16_gemm_32x32__amx\": {\"chosen\": {\"KC\": 512, \"MC\": 256, \"NC\": 1024},\n"
           "                                 \"measured\": [1, -2.5, 3e-3, 0, {\"a\": [[]]}]}\n"
           "  },\n"
           "  \"small_path\": {\"max_volume\": 4096000, \"max_a_floats\": 262144.5},\n"
           "  \"skinny_path\": {\"max_columns\": 64},\n"
           "  \"threads\": {\"min_flops_per_thread\": 8e6}\n"
           "}\n";
}

struct Result {
    ProfileStatus status;
    Profile profile;
    std::string why;
};

// Parses from an exactly-sized heap copy, so that a read one byte past the text is
// an overflow AddressSanitizer reports (the sanitizer tree runs this suite).
Result parse(const std::string& text, const CpuSignature& here = intel()) {
    std::unique_ptr<char[]> copy(new char[text.size() == 0 ? 1 : text.size()]);
    if (!text.empty()) std::memcpy(copy.get(), text.data(), text.size());
    Result r;
    r.profile.blocking_count = 99;  // garbage that must be reset
    r.profile.has_threads = true;
    char why[256];
    std::memset(why, 'x', sizeof why);
    r.status = ridge::parse_profile(copy.get(), text.size(), here, &r.profile, why, sizeof why);
    EXPECT_NE(nullptr, std::memchr(why, '\0', sizeof why)) << "reason not NUL-terminated";
    why[sizeof why - 1] = '\0';
    r.why = why;
    return r;
}

void expect_empty(const Profile& p) {
    EXPECT_EQ(0, p.blocking_count);
    EXPECT_FALSE(p.has_small_path);
    EXPECT_FALSE(p.has_threads);
    EXPECT_FALSE(p.has_skinny_path);
    EXPECT_FALSE(p.has_blocked_a_in_place);
    EXPECT_EQ(0, p.skinny_max_columns);
    EXPECT_EQ(0.0, p.small_max_volume);
    EXPECT_EQ(0.0, p.small_max_a_floats);
    EXPECT_EQ(0.0, p.min_flops_per_thread);
    for (const ProfileBlocking& b : p.blocking) {
        EXPECT_EQ('\0', b.kernel[0]);
        EXPECT_EQ(0, b.KC + b.MC + b.NC);
    }
}

// A reason is there, on one line, without a trailing newline.
void expect_one_line_reason(const std::string& why) {
    EXPECT_FALSE(why.empty());
    EXPECT_EQ(std::string::npos, why.find('\n')) << why;
    EXPECT_EQ(std::string::npos, why.find('\r')) << why;
}

// `text` is refused with `expected`, leaving the profile empty and saying why.
void expect_refused(const std::string& text, ProfileStatus expected, const std::string& why_part = "") {
    const Result r = parse(text);
    EXPECT_EQ(ridge::profile_status_name(expected), std::string(ridge::profile_status_name(r.status)))
        << "text: " << text.substr(0, 300) << "\nwhy: " << r.why;
    expect_empty(r.profile);
    expect_one_line_reason(r.why);
    if (!why_part.empty()) {
        EXPECT_NE(std::string::npos, r.why.find(why_part)) << r.why;
    }
}

void expect_loaded(const std::string& text, const std::string& what = "") {
    const Result r = parse(text);
    EXPECT_EQ(ProfileStatus::loaded, r.status) << what << "\ntext: " << text.substr(0, 300) << "\nwhy: " << r.why;
}

std::string repeat(const std::string& s, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += s;
    return out;
}

// --- Valid profiles ---

TEST(ProfileParse, FullProfileRoundTrip) {
    const Result r = parse(full_profile());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_EQ("", r.why);
    const Profile& p = r.profile;
    ASSERT_EQ(3, p.blocking_count);
    EXPECT_STREQ("ukr_f32_gemm_32x12__avx512", p.blocking[0].kernel);
    EXPECT_EQ(384, p.blocking[0].KC);
    EXPECT_EQ(480, p.blocking[0].MC);
    EXPECT_EQ(3072, p.blocking[0].NC);
    EXPECT_STREQ("ukr_f32_gemm_16x6__avx2", p.blocking[1].kernel);
    EXPECT_EQ(256, p.blocking[1].KC);
    EXPECT_EQ(96, p.blocking[1].MC);
    EXPECT_EQ(2048, p.blocking[1].NC);
    EXPECT_STREQ("ukr_bf16_gemm_32x32__amx", p.blocking[2].kernel);
    EXPECT_EQ(512, p.blocking[2].KC);
    EXPECT_EQ(256, p.blocking[2].MC);
    EXPECT_EQ(1024, p.blocking[2].NC);
    EXPECT_TRUE(p.has_small_path);
    EXPECT_EQ(4096000.0, p.small_max_volume);
    EXPECT_EQ(262144.5, p.small_max_a_floats);
    EXPECT_TRUE(p.has_threads);
    EXPECT_EQ(8e6, p.min_flops_per_thread);
    EXPECT_TRUE(p.has_skinny_path);
    EXPECT_EQ(64, p.skinny_max_columns);

    EXPECT_EQ(&p.blocking[1], p.find("ukr_f32_gemm_16x6__avx2"));
    EXPECT_EQ(&p.blocking[2], p.find("ukr_bf16_gemm_32x32__amx"));
    EXPECT_EQ(nullptr, p.find("ukr_f32_gemm_16x6"));  // a prefix is not a match
    EXPECT_EQ(nullptr, p.find("ukr_f32_gemm_16x6__avx2x"));
    EXPECT_EQ(nullptr, p.find(""));
    EXPECT_EQ(nullptr, p.find(nullptr));
}

TEST(ProfileParse, CompactAndBuiltProfilesLoad) {
    const Result r = parse(Parts().text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_EQ(2, r.profile.blocking_count);
    EXPECT_EQ(3072, r.profile.find("ukr_f32_gemm_32x12__avx512")->NC);
}

TEST(ProfileParse, UnknownMembersAreIgnored) {
    Parts with;
    with.extra = "\"future\": {\"a\": [1, 2, {\"b\": null}], \"c\": \"text\"}, \"date\": \"2024\", \"flag\": false";
    with.cpu = "\"cpu\": {\"hwloc_name\": \"x\", \"vendor\": \"GenuineIntel\", \"family\": 6, \"model\": 143, "
               "\"features\": \"" + std::string(kIntelFeatures) + "\", \"stepping\": 8}";
    with.kernels = "\"kernels\": {\"ukr_f32_gemm_32x12__avx512\": {\"gflops\": [1, 2], \"chosen\": {\"KC\": 384, "
                   "\"why\": \"best\", \"MC\": 480, \"NC\": 3072, \"MR\": 32}, \"model\": {\"KC\": 1}}}";
    with.small_path = "\"small_path\": {\"max_volume\": 5, \"note\": {}, \"max_a_floats\": 6}";
    with.threads = "\"threads\": {\"measured\": true, \"min_flops_per_thread\": 7}";
    const Result r = parse(with.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    ASSERT_EQ(1, r.profile.blocking_count);
    EXPECT_EQ(384, r.profile.blocking[0].KC);
    EXPECT_EQ(480, r.profile.blocking[0].MC);
    EXPECT_EQ(3072, r.profile.blocking[0].NC);
    EXPECT_EQ(5.0, r.profile.small_max_volume);
    EXPECT_EQ(6.0, r.profile.small_max_a_floats);
    EXPECT_EQ(7.0, r.profile.min_flops_per_thread);
}

// The small path's one-thread limit, where the tuner measured it: read beside
// the team's; a string in its place refuses the profile.
TEST(ProfileParse, SmallPathLimitOnOneThread) {
    Parts p;
    p.small_path = "\"small_path\": {\"max_volume\": 884736, \"max_a_floats\": 262144, \"max_volume_alone\": 1.3e8}";
    const Result r = parse(p.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_TRUE(r.profile.has_small_path);
    EXPECT_TRUE(r.profile.has_small_alone);
    EXPECT_EQ(884736.0, r.profile.small_max_volume);
    EXPECT_EQ(1.3e8, r.profile.small_max_volume_alone);
    p.small_path = "\"small_path\": {\"max_volume\": 1, \"max_a_floats\": 1, \"max_volume_alone\": \"8\"}";
    expect_refused(p.text(), ProfileStatus::corrupt, "small_path.max_volume_alone");
}

// The one-thread limit for A on cache lines: optional beside the other, read
// with or without it; a string in its place refuses the profile.
TEST(ProfileParse, SmallPathLimitOnOneThreadWithAOnLines) {
    Parts p;
    p.small_path = "\"small_path\": {\"max_volume\": 4096, \"max_a_floats\": 262144, \"max_volume_alone\": "
                   "262144, \"max_volume_alone_lined_a\": 9.0e7}";
    Result r = parse(p.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_TRUE(r.profile.has_small_alone);
    EXPECT_TRUE(r.profile.has_small_alone_lined_a);
    EXPECT_EQ(262144.0, r.profile.small_max_volume_alone);
    EXPECT_EQ(9.0e7, r.profile.small_max_volume_alone_lined_a);
    p.small_path = "\"small_path\": {\"max_volume\": 1, \"max_a_floats\": 1, \"max_volume_alone_lined_a\": 5}";
    r = parse(p.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_FALSE(r.profile.has_small_alone);
    EXPECT_TRUE(r.profile.has_small_alone_lined_a);
    EXPECT_EQ(5.0, r.profile.small_max_volume_alone_lined_a);
    p.small_path = "\"small_path\": {\"max_volume\": 1, \"max_a_floats\": 1, \"max_volume_alone_lined_a\": \"8\"}";
    expect_refused(p.text(), ProfileStatus::corrupt, "small_path.max_volume_alone_lined_a");
}

TEST(ProfileParse, OptionalPartsMayBeAbsent) {
    Parts no_small;
    no_small.small_path = "";
    Result r = parse(no_small.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_FALSE(r.profile.has_small_path);
    EXPECT_EQ(0.0, r.profile.small_max_volume);
    EXPECT_TRUE(r.profile.has_threads);

    Parts no_threads;
    no_threads.threads = "";
    r = parse(no_threads.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_TRUE(r.profile.has_small_path);
    EXPECT_FALSE(r.profile.has_small_alone) << "the one-thread limit is optional within small_path";
    EXPECT_FALSE(r.profile.has_small_alone_lined_a) << "so is the one for A on lines";
    EXPECT_FALSE(r.profile.has_threads);
    EXPECT_EQ(0.0, r.profile.min_flops_per_thread);
    EXPECT_FALSE(r.profile.has_small_threads);

    // The small path's figure is optional within "threads" (older profiles lack it).
    r = parse(Parts().text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_TRUE(r.profile.has_threads);
    EXPECT_FALSE(r.profile.has_small_threads);
    EXPECT_EQ(0.0, r.profile.small_min_flops_per_thread);
    Parts small_threads;
    small_threads.threads = "\"threads\": {\"min_flops_per_thread\": 8e6, \"small_min_flops_per_thread\": 884736}";
    r = parse(small_threads.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_TRUE(r.profile.has_small_threads);
    EXPECT_EQ(884736.0, r.profile.small_min_flops_per_thread);
    EXPECT_EQ(8e6, r.profile.min_flops_per_thread);
    // Only the small path's (the blocked path's second thread never paid while tuning).
    small_threads.threads = "\"threads\": {\"small_min_flops_per_thread\": 512000}";
    r = parse(small_threads.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_TRUE(r.profile.has_small_threads);
    EXPECT_FALSE(r.profile.has_threads);
    EXPECT_EQ(512000.0, r.profile.small_min_flops_per_thread);

    Parts no_skinny;
    no_skinny.skinny_path = "";
    r = parse(no_skinny.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_FALSE(r.profile.has_skinny_path);
    EXPECT_EQ(0, r.profile.skinny_max_columns);
    EXPECT_TRUE(r.profile.has_small_path);
    r = parse(Parts().text());
    EXPECT_TRUE(r.profile.has_skinny_path);
    EXPECT_EQ(48, r.profile.skinny_max_columns);
    // The 16-bit figures are optional (profiles written before them lack them), each on its own.
    EXPECT_FALSE(r.profile.has_skinny_bf16);
    EXPECT_FALSE(r.profile.has_skinny_f16);
    Parts bf16_only;
    bf16_only.skinny_path = "\"skinny_path\": {\"max_columns\": 96, \"max_columns_bf16\": 64}";
    r = parse(bf16_only.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_EQ(96, r.profile.skinny_max_columns);
    EXPECT_TRUE(r.profile.has_skinny_bf16);
    EXPECT_EQ(64, r.profile.skinny_max_columns_bf16);
    EXPECT_FALSE(r.profile.has_skinny_f16);
    Parts both_16bit;
    both_16bit.skinny_path = "\"skinny_path\": {\"max_columns_f16\": 32, \"max_columns\": 128, \"max_columns_bf16\": 0}";
    r = parse(both_16bit.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_EQ(128, r.profile.skinny_max_columns);
    EXPECT_TRUE(r.profile.has_skinny_bf16);
    EXPECT_EQ(0, r.profile.skinny_max_columns_bf16);
    EXPECT_TRUE(r.profile.has_skinny_f16);
    EXPECT_EQ(32, r.profile.skinny_max_columns_f16);
    // fp32's figure is what makes a skinny_path: without it the object is refused.
    Parts no_f32;
    no_f32.skinny_path = "\"skinny_path\": {\"max_columns_bf16\": 64}";
    expect_refused(no_f32.text(), ProfileStatus::corrupt, "skinny_path.max_columns");

    Parts neither;
    neither.small_path = neither.threads = neither.skinny_path = "";
    r = parse(neither.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_FALSE(r.profile.has_small_path);
    EXPECT_FALSE(r.profile.has_threads);
    EXPECT_FALSE(r.profile.has_skinny_path);
    EXPECT_EQ(2, r.profile.blocking_count);

    Parts no_kernels;
    no_kernels.kernels = "\"kernels\": {}";
    r = parse(no_kernels.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_EQ(0, r.profile.blocking_count);
    EXPECT_TRUE(r.profile.has_small_path);
}

TEST(ProfileParse, RequiredPartsMissingAreCorrupt) {
    Parts p;
    p.cpu = "";
    expect_refused(p.text(), ProfileStatus::corrupt, "cpu");
    p = Parts();
    p.kernels = "";
    expect_refused(p.text(), ProfileStatus::corrupt, "kernels");
    const std::pair<std::string, std::string> cpu_fields[] = {
        {"vendor", "\"vendor\": \"GenuineIntel\""},
        {"family", "\"family\": 6"},
        {"model", "\"model\": 143"},
        {"features", "\"features\": \"" + std::string(kIntelFeatures) + "\""},
    };
    for (const auto& missing : cpu_fields) {
        SCOPED_TRACE(missing.first);
        std::string cpu;
        for (const auto& field : cpu_fields)
            if (field.first != missing.first) cpu += (cpu.empty() ? "" : ", ") + field.second;
        p = Parts();
        p.cpu = "\"cpu\": {" + cpu + "}";
        expect_refused(p.text(), ProfileStatus::corrupt, "cpu." + missing.first);
    }
    p = Parts();
    p.kernels = "\"kernels\": {\"k\": {\"model\": {\"KC\": 1, \"MC\": 1, \"NC\": 1}}}";
    expect_refused(p.text(), ProfileStatus::corrupt, "kernels.k.chosen");
    for (const char* missing : {"KC", "MC", "NC"}) {
        SCOPED_TRACE(missing);
        std::string chosen;
        for (const char* f : {"KC", "MC", "NC"})
            if (std::strcmp(f, missing) != 0) chosen += std::string(chosen.empty() ? "" : ", ") + "\"" + f + "\": 8";
        p = Parts();
        p.kernels = "\"kernels\": {\"k\": {\"chosen\": {" + chosen + "}}}";
        expect_refused(p.text(), ProfileStatus::corrupt, std::string("kernels.k.chosen.") + missing);
    }
    p = Parts();
    p.small_path = "\"small_path\": {\"max_volume\": 1}";
    expect_refused(p.text(), ProfileStatus::corrupt, "small_path.max_a_floats");
    p = Parts();
    p.small_path = "\"small_path\": {\"max_a_floats\": 1}";
    expect_refused(p.text(), ProfileStatus::corrupt, "small_path.max_volume");
    p = Parts();
    p.threads = "\"threads\": {}";
    expect_refused(p.text(), ProfileStatus::corrupt, "threads.min_flops_per_thread");
}

TEST(ProfileParse, PartsOfTheWrongTypeAreCorrupt) {
    const std::vector<std::pair<std::string, std::string>> replacements = {
        {"cpu", "\"cpu\": [1]"},
        {"cpu", "\"cpu\": null"},
        {"cpu", cpu_member("GenuineIntel", "\"6\"")},
        {"cpu", cpu_member("GenuineIntel", "6", "true")},
        {"cpu", "\"cpu\": {\"vendor\": 7, \"family\": 6, \"model\": 143, \"features\": \"\"}"},
        {"cpu", "\"cpu\": {\"vendor\": \"GenuineIntel\", \"family\": 6, \"model\": 143, \"features\": [\"fma\"]}"},
        {"kernels", "\"kernels\": []"},
        {"kernels", "\"kernels\": \"ukr\""},
        {"kernels", "\"kernels\": {\"k\": [384, 480, 3072]}"},
        {"kernels", "\"kernels\": {\"k\": {\"chosen\": [384, 480, 3072]}}"},
        {"kernels", "\"kernels\": {\"k\": {\"chosen\": null}}"},
        {"kernels", "\"kernels\": {" + kernel_entry("k", "\"384\"", "480", "3072") + "}"},
        {"kernels", "\"kernels\": {" + kernel_entry("k", "384", "null", "3072") + "}"},
        {"kernels", "\"kernels\": {" + kernel_entry("k", "384", "480", "false") + "}"},
        {"small_path", "\"small_path\": null"},
        {"small_path", "\"small_path\": 5"},
        {"small_path", "\"small_path\": {\"max_volume\": \"1\", \"max_a_floats\": 1}"},
        {"skinny_path", "\"skinny_path\": []"},
        {"skinny_path", "\"skinny_path\": {\"max_columns\": \"64\"}"},
        {"skinny_path", "\"skinny_path\": {\"columns\": 64}"},
        {"threads", "\"threads\": []"},
        {"threads", "\"threads\": {\"min_flops_per_thread\": [1]}"},
        {"threads", "\"threads\": {\"min_flops_per_thread\": 1, \"small_min_flops_per_thread\": \"1\"}"},
    };
    for (const auto& [part, text] : replacements) {
        SCOPED_TRACE(text);
        Parts p;
        if (part == "cpu") p.cpu = text;
        if (part == "kernels") p.kernels = text;
        if (part == "small_path") p.small_path = text;
        if (part == "threads") p.threads = text;
        if (part == "skinny_path") p.skinny_path = text;
        expect_refused(p.text(), ProfileStatus::corrupt);
    }
}

// --- Another CPU ---

TEST(ProfileParse, EachSignaturePartMustMatch) {
    struct Case {
        CpuSignature here;
        const char* differs;
    };
    const Case cases[] = {
        {make_signature("AuthenticAMD", 6, 143, kIntelFeatures), "vendor differs"},
        {make_signature("GenuineIntel", 25, 143, kIntelFeatures), "family differs"},
        {make_signature("GenuineIntel", 6, 85, kIntelFeatures), "model differs"},
        {make_signature("GenuineIntel", 6, 143, "fma avx2 f16c avx512f avx512bw avx512vl avx512dq"), "features differs"},
        // Same set in another order: the order is fixed, so this is another signature.
        {make_signature("GenuineIntel", 6, 143, "avx2 fma f16c avx512f avx512bw avx512vl avx512dq avx512_bf16 amx"),
         "features differs"},
        {make_signature("GenuineIntel", 6, 143, ""), "features differs"},
        {make_signature("GenuineInte", 6, 143, kIntelFeatures), "vendor differs"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.differs);
        const Result r = parse(full_profile(), c.here);
        EXPECT_EQ(ProfileStatus::other_cpu, r.status) << r.why;
        expect_empty(r.profile);
        expect_one_line_reason(r.why);
        EXPECT_NE(std::string::npos, r.why.find(c.differs)) << r.why;
        EXPECT_NE(std::string::npos, r.why.find("profile is for GenuineIntel-6-143 (fma avx2")) << r.why;
    }
    const Result amd = parse(full_profile(), make_signature("AuthenticAMD", 26, 68, "fma avx2"));
    EXPECT_EQ("profile is for GenuineIntel-6-143 (" + std::string(kIntelFeatures) +
                  "), this CPU is AuthenticAMD-26-68 (fma avx2): vendor differs",
              amd.why);
}

// A signature whose strings fill their arrays (no NUL) is compared within bounds.
TEST(ProfileParse, FullSignatureArraysAreReadWithinBounds) {
    CpuSignature here;
    std::memset(here.vendor, 'V', sizeof here.vendor);
    std::memset(here.features, 'f', sizeof here.features);
    here.family = 1;
    here.model = 2;
    const Result r = parse(full_profile(), here);
    EXPECT_EQ(ProfileStatus::other_cpu, r.status);
    EXPECT_NE(std::string::npos, r.why.find("this CPU is VVVVVVVVVVVVVVVV-1-2")) << r.why;

    Parts p;  // a file claiming the same 16 'V's cannot match: 15 bytes at most
    p.cpu = cpu_member(std::string(16, 'V'), "1", "2", std::string(159, 'f'));
    const Result r2 = parse(p.text(), here);
    EXPECT_EQ(ProfileStatus::corrupt, r2.status) << r2.why;
}

// --- Not a ridge profile of this version ---

TEST(ProfileParse, WrongFormatOrVersion) {
    std::vector<std::string> texts;
    Parts p;
    p.format = "";
    texts.push_back(p.text());
    for (const char* format : {"\"format\": \"ridge-profile2\"", "\"format\": \"Ridge-Profile\"", "\"format\": 1",
                               "\"format\": null", "\"format\": \"ridge-profile\\u0020\""}) {
        p = Parts();
        p.format = format;
        texts.push_back(p.text());
    }
    p = Parts();
    p.version = "";
    texts.push_back(p.text());
    for (const char* version : {"\"format_version\": 2", "\"format_version\": 0", "\"format_version\": \"1\"",
                                "\"format_version\": 1.5", "\"format_version\": -1", "\"format_version\": true",
                                "\"format_version\": 1e300"}) {
        p = Parts();
        p.version = version;
        texts.push_back(p.text());
    }
    texts.push_back("[" + Parts().text() + "]");
    texts.push_back("\"ridge-profile\"");
    texts.push_back("1");
    texts.push_back("null");
    texts.push_back("{}");
    texts.push_back("{\"format\": \"ridge-profile\"}");
    for (const std::string& t : texts) {
        SCOPED_TRACE(t.substr(0, 120));
        expect_refused(t, ProfileStatus::wrong_format);
    }
    p = Parts();
    p.version = "\"format_version\": 2";
    const Result r = parse(p.text());
    EXPECT_EQ("format_version 2; this library reads 1", r.why);
    // Equal to 1 whatever its spelling: the value is what counts.
    p.version = "\"format_version\": 1.0e0";
    expect_loaded(p.text());
}

// --- Corrupt and hostile texts ---

TEST(ProfileParse, NotJsonIsCorrupt) {
    const std::string valid = Parts().text();
    const std::vector<std::string> texts = {
        "", " ", "\n\t\r ", "{", "}", "[", "x", "nul", "tru", "{\"format\"}", "{\"format\": }", "{,}", "{\"a\":1,}",
        "[1,]", "[,1]", "{\"a\" 1}", "{'a': 1}", "{a: 1}", "{\"a\": 1 \"b\": 2}", "// c\n{}", "{} /* c */",
        valid + "x", valid + "{}", valid + ",", valid + valid, valid + "\f", "\xef\xbb\xbf" + valid,
        valid.substr(0, valid.size() - 1), "\f" + valid, "\v" + valid,
    };
    for (const std::string& t : texts) {
        SCOPED_TRACE(t.substr(0, 80));
        expect_refused(t, ProfileStatus::corrupt, "not valid JSON");
    }
    // Whitespace around the value is fine.
    expect_loaded(" \n\t\r" + valid + "\r\n\t ");
}

TEST(ProfileParse, NumbersOutsideTheGrammarAreCorrupt) {
    for (const char* number : {"01", "-01", "00", "1.", ".5", "+1", "0x10", "1e", "1e+", "1E-", "--1", "-", "1.e5",
                               "NaN", "nan", "Infinity", "-Infinity", "inf", "1e999", "-1e999", "1_000", "1,5",
                               "1.5.5", "2e3e4", "0b1", "1f", "１"}) {
        SCOPED_TRACE(number);
        Parts p;
        p.extra = std::string("\"provenance\": ") + number;
        expect_refused(p.text(), ProfileStatus::corrupt);
        p = Parts();
        p.kernels = "\"kernels\": {" + kernel_entry("k", number, "8", "8") + "}";
        expect_refused(p.text(), ProfileStatus::corrupt);
    }
    // The edges of the grammar that are valid.
    for (const char* number : {"0", "-0", "0.0", "1e5", "1E+5", "1e-5", "-0.5e-3", "123456789012345678901234567890",
                               "1e-999", "4.9e-324", "1.7976931348623157e308"}) {
        SCOPED_TRACE(number);
        Parts p;
        p.extra = std::string("\"provenance\": [") + number + "]";
        expect_loaded(p.text(), number);
    }
}

TEST(ProfileParse, BlockSizesOutOfRangeAreCorrupt) {
    for (const char* bad : {"0", "-1", "-384", "16777217", "1e9", "1e300", "384.5", "0.5", "-0", "1e-300"}) {
        for (int field = 0; field < 3; ++field) {
            SCOPED_TRACE(std::string(bad) + " in field " + std::to_string(field));
            Parts p;
            p.kernels = "\"kernels\": {" + kernel_entry("k", field == 0 ? bad : "8", field == 1 ? bad : "8",
                                                        field == 2 ? bad : "8") +
                        "}";
            expect_refused(p.text(), ProfileStatus::corrupt, "kernels.k.chosen.");
        }
    }
    Parts p;
    p.kernels = "\"kernels\": {" + kernel_entry("k", "1", "16777216", "3.84e2") + "}";
    const Result r = parse(p.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_EQ(1, r.profile.blocking[0].KC);
    EXPECT_EQ(16777216, r.profile.blocking[0].MC);
    EXPECT_EQ(384, r.profile.blocking[0].NC);
}

// "blocked_path" is optional (profiles before it have none); present, it
// holds "a_in_place", "ir_outside_jr", "a_packed_while_computing_from_memory",
// "one_block_of_a" or several of them, each true or false: every combination
// read back as written (one_block_of_a true where left out, the library's
// answer); a key of any other value (alone or beside a good other key), an
// empty object and a non-object refused.
TEST(ProfileParse, BlockedPathKeys) {
    Result r = parse(Parts().text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_FALSE(r.profile.has_blocked_a_in_place);
    EXPECT_FALSE(r.profile.has_blocked_ir_outside_jr);
    EXPECT_FALSE(r.profile.has_blocked_a_packed_while_computing_from_memory);
    EXPECT_FALSE(r.profile.has_blocked_one_block_of_a);
    EXPECT_TRUE(r.profile.blocked_one_block_of_a);
    Parts p;
    const char* const values[] = {nullptr, "false", "true"};  // nullptr: the key left out
    auto is_true = [](const char* v) { return v != nullptr && std::string(v) == "true"; };
    for (const char* in_place : values)
        for (const char* outside : values)
            for (const char* computing : values)
                for (const char* one_block : values) {
                    if (in_place == nullptr && outside == nullptr && computing == nullptr && one_block == nullptr)
                        continue;
                    std::string keys;
                    auto add = [&](const char* key, const char* v) {
                        if (v != nullptr) keys += std::string(keys.empty() ? "" : ", ") + "\"" + key + "\": " + v;
                    };
                    add("a_in_place", in_place);
                    add("ir_outside_jr", outside);
                    add("a_packed_while_computing_from_memory", computing);
                    add("one_block_of_a", one_block);
                    p.extra = "\"blocked_path\": {" + keys + "}";
                    SCOPED_TRACE(p.extra);
                    r = parse(p.text());
                    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
                    EXPECT_EQ(in_place != nullptr, r.profile.has_blocked_a_in_place);
                    EXPECT_EQ(is_true(in_place), r.profile.blocked_a_in_place);
                    EXPECT_EQ(outside != nullptr, r.profile.has_blocked_ir_outside_jr);
                    EXPECT_EQ(is_true(outside), r.profile.blocked_ir_outside_jr);
                    EXPECT_EQ(computing != nullptr, r.profile.has_blocked_a_packed_while_computing_from_memory);
                    EXPECT_EQ(is_true(computing), r.profile.blocked_a_packed_while_computing_from_memory);
                    EXPECT_EQ(one_block != nullptr, r.profile.has_blocked_one_block_of_a);
                    EXPECT_EQ(one_block == nullptr || is_true(one_block), r.profile.blocked_one_block_of_a);
                }
    for (const std::string key :
         {"a_in_place", "ir_outside_jr", "a_packed_while_computing_from_memory", "one_block_of_a"}) {
        const std::string other = key == "a_in_place" ? "ir_outside_jr" : "a_in_place";
        for (bool with_other : {false, true})
            for (const char* bad : {"1", "0", "\"true\"", "null", "{}", "[]"}) {
                p.extra = "\"blocked_path\": {\"" + key + "\": " + bad +
                          (with_other ? ", \"" + other + "\": true" : std::string()) + "}";
                SCOPED_TRACE(p.extra);
                expect_refused(p.text(), ProfileStatus::corrupt, key);
            }
    }
    p.extra = "\"blocked_path\": {}";
    expect_refused(p.text(), ProfileStatus::corrupt, "none of");
    p.extra = "\"blocked_path\": true";
    expect_refused(p.text(), ProfileStatus::corrupt, "blocked_path");
}

// An optional section holding one required whole number (profiles before it
// have none): absent, `present` reads false; each good value loads and reads
// back; a bad value, an empty section or a section that is not an object is
// corrupt, the reason naming the member or the section.
struct OptionalNumberSection {
    const char* section;
    const char* member;
    std::vector<double> good;
    std::vector<const char*> bad;
    bool (*present)(const ridge::Profile&);
    double (*value)(const ridge::Profile&);
};

void expect_optional_number_section(const OptionalNumberSection& o) {
    SCOPED_TRACE(o.section);
    Result r = parse(Parts().text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_FALSE(o.present(r.profile));
    const std::string head = std::string("\"") + o.section + "\": {\"" + o.member + "\": ";
    const std::string dotted = std::string(o.section) + "." + o.member;
    Parts p;
    for (double good : o.good) {
        p.extra = head + std::to_string(int64_t(good)) + ", \"note\": \"provenance\"}";
        r = parse(p.text());
        ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
        EXPECT_TRUE(o.present(r.profile));
        EXPECT_EQ(good, o.value(r.profile));
    }
    for (const char* bad : o.bad) {
        SCOPED_TRACE(bad);
        p.extra = head + bad + "}";
        expect_refused(p.text(), ProfileStatus::corrupt, dotted.c_str());
    }
    p.extra = std::string("\"") + o.section + "\": {}";
    expect_refused(p.text(), ProfileStatus::corrupt, dotted.c_str());
    p.extra = std::string("\"") + o.section + "\": 0";
    expect_refused(p.text(), ProfileStatus::corrupt, o.section);
}

// "gemv": a whole prefetch distance within [0, 4096] elements, 0 meaning none.
TEST(ProfileParse, GemvPrefetchDistance) {
    expect_optional_number_section({"gemv", "prefetch_elements", {0, 256, 4096},
                                    {"-1", "4097", "1e13", "16.5", "\"256\"", "null"},
                                    [](const ridge::Profile& f) { return f.has_gemv_prefetch; },
                                    [](const ridge::Profile& f) { return double(f.gemv_prefetch_elements); }});
}

// "stream_c": the smallest C streamed out, a whole number of bytes within [1 MiB, 64 GiB].
TEST(ProfileParse, StreamCMinBytes) {
    expect_optional_number_section({"stream_c", "min_bytes", {1048576.0, 47453056.0, 68719476736.0},
                                    {"-1", "0", "1048575", "68719476737", "1e300", "4194304.5", "\"4194304\"",
                                     "null"},
                                    [](const ridge::Profile& f) { return f.has_stream_c; },
                                    [](const ridge::Profile& f) { return f.stream_c_min_bytes; }});
}

TEST(ProfileParse, FiguresOutOfRangeAreCorrupt) {
    for (const char* bad : {"-1", "-1e-300", "1.0000001e12", "1e13", "1e308"}) {
        SCOPED_TRACE(bad);
        Parts p;
        p.small_path = std::string("\"small_path\": {\"max_volume\": ") + bad + ", \"max_a_floats\": 1}";
        expect_refused(p.text(), ProfileStatus::corrupt, "small_path.max_volume");
        p = Parts();
        p.small_path = std::string("\"small_path\": {\"max_volume\": 1, \"max_a_floats\": ") + bad + "}";
        expect_refused(p.text(), ProfileStatus::corrupt, "small_path.max_a_floats");
        p = Parts();
        p.small_path =
            std::string("\"small_path\": {\"max_volume\": 1, \"max_a_floats\": 1, \"max_volume_alone\": ") + bad + "}";
        expect_refused(p.text(), ProfileStatus::corrupt, "small_path.max_volume_alone");
        p = Parts();
        p.small_path = std::string("\"small_path\": {\"max_volume\": 1, \"max_a_floats\": 1, "
                                   "\"max_volume_alone_lined_a\": ") + bad + "}";
        expect_refused(p.text(), ProfileStatus::corrupt, "small_path.max_volume_alone_lined_a");
        p = Parts();
        p.threads = std::string("\"threads\": {\"min_flops_per_thread\": ") + bad + "}";
        expect_refused(p.text(), ProfileStatus::corrupt, "threads.min_flops_per_thread");
        p = Parts();
        p.threads = std::string("\"threads\": {\"min_flops_per_thread\": 1, \"small_min_flops_per_thread\": ") + bad + "}";
        expect_refused(p.text(), ProfileStatus::corrupt, "threads.small_min_flops_per_thread");
    }
    // A column count: a whole number within [0, 4096].
    for (const char* bad : {"-1", "4097", "1e13", "32.5", "1e308"}) {
        SCOPED_TRACE(bad);
        Parts p;
        p.skinny_path = std::string("\"skinny_path\": {\"max_columns\": ") + bad + "}";
        expect_refused(p.text(), ProfileStatus::corrupt, "skinny_path.max_columns");
        for (const char* key : {"max_columns_bf16", "max_columns_f16"}) {
            p.skinny_path = std::string("\"skinny_path\": {\"max_columns\": 64, \"") + key + "\": " + bad + "}";
            expect_refused(p.text(), ProfileStatus::corrupt, std::string("skinny_path.") + key);
        }
    }
    for (const char* key : {"max_columns_bf16", "max_columns_f16"}) {
        Parts p;
        p.skinny_path = std::string("\"skinny_path\": {\"max_columns\": 64, \"") + key + "\": \"32\"}";
        expect_refused(p.text(), ProfileStatus::corrupt, std::string("skinny_path.") + key);
    }
    Parts edges;
    edges.skinny_path = "\"skinny_path\": {\"max_columns\": 4096}";
    edges.small_path = "\"small_path\": {\"max_volume\": 0, \"max_a_floats\": 1e12}";
    edges.threads = "\"threads\": {\"min_flops_per_thread\": 1e12}";
    const Result r = parse(edges.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_EQ(0.0, r.profile.small_max_volume);
    EXPECT_EQ(1e12, r.profile.small_max_a_floats);
    EXPECT_EQ(1e12, r.profile.min_flops_per_thread);
    EXPECT_EQ(4096, r.profile.skinny_max_columns);
    edges.skinny_path = "\"skinny_path\": {\"max_columns\": 0}";
    EXPECT_EQ(0, parse(edges.text()).profile.skinny_max_columns);
}

TEST(ProfileParse, SignatureValuesOutOfRangeAreCorrupt) {
    const std::vector<std::string> cpus = {
        cpu_member("GenuineIntel", "-6"),          cpu_member("GenuineIntel", "6.5"),
        cpu_member("GenuineIntel", "1e10"),        cpu_member("GenuineIntel", "6", "65536"),
        cpu_member("GenuineIntelXXXX"),            // 16 bytes: no room for the NUL
        cpu_member("Genuine\\nIntel"),             // would break the one-line reason
        cpu_member("Genuine\\u001bIntel"),         // a terminal escape
        cpu_member("Genuine\xc3\xa9ntel"),         // valid UTF-8 but not ASCII
        cpu_member("GenuineIntel", "6", "143", std::string(160, 'f')),
        cpu_member("GenuineIntel", "6", "143", "fma\\tavx2"),
    };
    for (const std::string& cpu : cpus) {
        SCOPED_TRACE(cpu);
        Parts p;
        p.cpu = cpu;
        expect_refused(p.text(), ProfileStatus::corrupt, "cpu.");
    }
    Parts p;  // the longest strings that fit are fine
    p.cpu = cpu_member("GenuineIntelXXX", "6", "143", std::string(159, 'f'));
    const Result r = parse(p.text(), make_signature("GenuineIntelXXX", 6, 143, std::string(159, 'f').c_str()));
    EXPECT_EQ(ProfileStatus::loaded, r.status) << r.why;
}

TEST(ProfileParse, BadStringsAreCorrupt) {
    const std::vector<std::string> strings = {
        "\"\\x41\"",        "\"\\a\"",          "\"\\'\"",          "\"\\u12\"",        "\"\\u12G4\"",
        "\"\\u\"",          "\"\\U0041\"",      "\"\\ud800\"",      "\"\\ud800x\"",     "\"\\ud800\\u0041\"",
        "\"\\udc00\"",      "\"\\udc00\\ud800\"", "\"\\ud800\\ud800\"", "\"\\u0000\"",   "\"\\",
        "\"abc",            "\"a\tb\"",         "\"a\nb\"",         "\"a\x01z\"",       "\"a\x1f\"",
        "\"a\x7f\\ud83d\"", "\"\\ud83d\\ude0\"",
    };
    for (const std::string& s : strings) {
        SCOPED_TRACE(s);
        Parts p;
        p.extra = "\"note\": " + s;
        expect_refused(p.text(), ProfileStatus::corrupt, "not valid JSON");
        p = Parts();  // the same as a key
        p.extra = "\"note\": {" + s + ": 1}";
        expect_refused(p.text(), ProfileStatus::corrupt, "not valid JSON");
    }
    // Valid escapes, DEL and a surrogate pair.
    Parts p;
    p.extra = "\"note\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20ac\\ud83d\\ude00\\uFFFF\x7f\"";
    expect_loaded(p.text());
}

// Strings must be UTF-8 (RFC 8259 8.1); every malformed form is refused, wherever
// the string is, ignored members included: one rule, not one per member.
TEST(ProfileParse, NonUtf8BytesAreCorrupt) {
    const std::vector<std::string> bytes = {
        "\xff",          "\xfe",          "\x80",          "\xbf",             "\xc0\xaf",         "\xc1\xbf",
        "\xe0\x80\xaf",  "\xe0\x9f\xbf",  "\xed\xa0\x80",  "\xed\xbf\xbf",     "\xf0\x80\x80\xaf", "\xf0\x8f\xbf\xbf",
        "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80", "\xc3",  "\xe2\x82",        "\xf0\x9f\x98",
        "\xc3\x28",      "\xe2\x28\xa1",  "\xe2\x82\x28",  "\xf0\x28\x8c\xbc",
    };
    for (const std::string& b : bytes) {
        SCOPED_TRACE(::testing::PrintToString(b));
        Parts p;
        p.extra = "\"note\": \"a" + b + "\"";
        expect_refused(p.text(), ProfileStatus::corrupt, "UTF-8");
        p.extra = "\"note" + b + "\": 1";
        expect_refused(p.text(), ProfileStatus::corrupt, "UTF-8");
        // Outside any string, such a byte is not JSON at all.
        p.extra = "\"note\": 1" + b;
        expect_refused(p.text(), ProfileStatus::corrupt, "not valid JSON");
    }
    // The edges of well-formed UTF-8 are accepted.
    for (const char* ok : {"\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf",
                           "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf"}) {
        SCOPED_TRACE(::testing::PrintToString(std::string(ok)));
        Parts p;
        p.extra = std::string("\"note\": \"") + ok + "\"";
        expect_loaded(p.text());
    }
}

TEST(ProfileParse, NulBytesAreCorrupt) {
    const std::string valid = Parts().text();
    const size_t format_value = valid.find("ridge-profile");
    std::vector<std::string> texts;
    texts.push_back(valid.substr(0, format_value + 5) + std::string(1, '\0') + valid.substr(format_value + 5));
    texts.push_back(valid + std::string(1, '\0'));
    texts.push_back(std::string(1, '\0') + valid);
    texts.push_back("{" + std::string(1, '\0') + valid.substr(1));
    // A NUL would cut the vendor short for a C reader: the escaped one is refused too.
    Parts p;
    p.cpu = cpu_member("GenuineIntel\\u0000AMD");
    texts.push_back(p.text());
    for (const std::string& t : texts) {
        SCOPED_TRACE(::testing::PrintToString(t.substr(0, 60)));
        expect_refused(t, ProfileStatus::corrupt, "not valid JSON");
    }
}

TEST(ProfileParse, DuplicateKeysAreCorrupt) {
    std::vector<std::string> texts;
    Parts p;
    p.extra = "\"format\": \"ridge-profile\"";  // the same value twice is still refused
    texts.push_back(p.text());
    p = Parts();
    p.extra = "\"kernels\": {}";
    texts.push_back(p.text());
    p = Parts();
    p.kernels = "\"kernels\": {" + kernel_entry("k", "8", "8", "8") + ", " + kernel_entry("k", "16", "16", "16") + "}";
    texts.push_back(p.text());
    p = Parts();
    p.kernels = "\"kernels\": {\"k\": {\"chosen\": {\"KC\": 8, \"MC\": 8, \"NC\": 8, \"KC\": 9}}}";
    texts.push_back(p.text());
    p = Parts();
    p.extra = "\"provenance\": [{\"a\": 1, \"b\": 2, \"a\": 1}]";
    texts.push_back(p.text());
    p = Parts();  // equal after decoding: "\u0061" is "a"
    p.extra = "\"provenance\": {\"a\": 1, \"\\u0061\": 2}";
    texts.push_back(p.text());
    for (const std::string& t : texts) {
        SCOPED_TRACE(t.substr(0, 200));
        expect_refused(t, ProfileStatus::corrupt, "duplicate key");
    }
    // Keys that share a prefix, or differ only in case, are different keys.
    p = Parts();
    p.extra = "\"provenance\": {\"a\": 1, \"ab\": 2, \"A\": 3, \"\": 4, \"b\": 5}";
    expect_loaded(p.text());
}

// The duplicate check sorts: a large object is not quadratic, and a duplicate at
// its far end is still found.
TEST(ProfileParse, LargeObjectsAreCheckedQuickly) {
    std::string members;
    for (int i = 0; i < 60000; ++i) members += (i ? ",\"m" : "\"m") + std::to_string(i) + "\":0";
    Parts p;
    p.extra = "\"provenance\": {" + members + "}";
    const auto start = std::chrono::steady_clock::now();
    expect_loaded(p.text());
    p.extra = "\"provenance\": {" + members + ",\"m17\":1}";
    expect_refused(p.text(), ProfileStatus::corrupt, "duplicate key");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 5.0);
}

TEST(ProfileParse, DeepNestingIsCorrupt) {
    Parts p;
    p.extra = "\"deep\": " + std::string(10000, '[') + std::string(10000, ']');
    expect_refused(p.text(), ProfileStatus::corrupt, "nesting");
    p.extra = "\"deep\": " + std::string(10000, '[');  // and never closed
    expect_refused(p.text(), ProfileStatus::corrupt, "nesting");
    p.extra = "\"deep\": " + repeat("{\"a\":", 10000) + "1" + std::string(10000, '}');
    expect_refused(p.text(), ProfileStatus::corrupt, "nesting");
    expect_refused(std::string(100000, '['), ProfileStatus::corrupt, "nesting");

    // The limit is 32 containers, the top-level object included.
    p.extra = "\"deep\": " + std::string(31, '[') + std::string(31, ']');
    expect_loaded(p.text(), "32 levels");
    p.extra = "\"deep\": " + std::string(32, '[') + std::string(32, ']');
    expect_refused(p.text(), ProfileStatus::corrupt, "nesting deeper than 32");
}

TEST(ProfileParse, KernelListBounds) {
    auto kernels = [](int count) {
        std::string k = "\"kernels\": {";
        for (int i = 0; i < count; ++i) k += (i ? ", " : "") + kernel_entry("kernel_" + std::to_string(i), "8", "8", "8");
        return k + "}";
    };
    Parts p;
    p.kernels = kernels(Profile::kMaxKernels);
    const Result r = parse(p.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_EQ(Profile::kMaxKernels, r.profile.blocking_count);
    EXPECT_STREQ("kernel_31", r.profile.blocking[31].kernel);
    EXPECT_NE(nullptr, r.profile.find("kernel_31"));
    // One more is corrupt, not a list cut at 32 (see profile.h).
    p.kernels = kernels(Profile::kMaxKernels + 1);
    expect_refused(p.text(), ProfileStatus::corrupt, "33 entries, at most 32");
    p.kernels = kernels(1000);
    expect_refused(p.text(), ProfileStatus::corrupt, "at most 32");
}

TEST(ProfileParse, KernelNameBounds) {
    Parts p;
    p.kernels = "\"kernels\": {" + kernel_entry(std::string(47, 'k'), "8", "8", "8") + "}";
    const Result r = parse(p.text());
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_EQ(std::string(47, 'k'), r.profile.blocking[0].kernel);
    for (const std::string& name : {std::string(48, 'k'), std::string(1000, 'k'), std::string(), std::string("a\\nb"),
                                    std::string("a\\u001bb"), std::string("caf\xc3\xa9")}) {
        SCOPED_TRACE(name.substr(0, 60));
        p.kernels = "\"kernels\": {" + kernel_entry(name, "8", "8", "8") + "}";
        expect_refused(p.text(), ProfileStatus::corrupt, "kernel name");
    }
}

// Every prefix of a valid profile: never loaded unless the prefix is complete
// JSON (only the trailing whitespace is missing), never a crash. The copies are
// exactly sized, so AddressSanitizer sees any read past the end.
TEST(ProfileParse, EveryTruncationIsRefused) {
    for (const std::string& text : {full_profile(), Parts().text()}) {
        const size_t complete = text.find_last_not_of(" \t\r\n") + 1;
        for (size_t n = 0; n < text.size(); ++n) {
            const Result r = parse(text.substr(0, n));
            if (n < complete) {
                ASSERT_EQ(ProfileStatus::corrupt, r.status) << "prefix of " << n << " bytes: " << r.why;
                expect_empty(r.profile);
                expect_one_line_reason(r.why);
            } else {
                ASSERT_EQ(ProfileStatus::loaded, r.status) << "prefix of " << n << " bytes: " << r.why;
            }
        }
    }
}

// Every byte of a valid profile replaced by bytes that break structure: no crash,
// and whatever loads is within the documented ranges.
TEST(ProfileParse, EverySingleByteMutationStaysInBounds) {
    const std::string text = full_profile();
    const char replacements[] = {'"', '\\', '{', '}', '[', ']', ',', ':', '\0', '\x80', '\xff', '9', '-', 'e', ' '};
    int loaded = 0, refused = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        for (const char c : replacements) {
            std::string mutated = text;
            mutated[i] = c;
            const Result r = parse(mutated);
            if (r.status != ProfileStatus::loaded) {
                ++refused;
                if (r.profile.blocking_count != 0 || r.profile.has_small_path || r.profile.has_threads)
                    FAIL() << "refused but not empty at byte " << i;
                continue;
            }
            ++loaded;
            ASSERT_LE(r.profile.blocking_count, Profile::kMaxKernels);
            for (int k = 0; k < r.profile.blocking_count; ++k) {
                const ProfileBlocking& b = r.profile.blocking[k];
                ASSERT_GE(b.KC, 1);
                ASSERT_LE(b.KC, 1 << 24);
                ASSERT_GE(b.MC, 1);
                ASSERT_LE(b.MC, 1 << 24);
                ASSERT_GE(b.NC, 1);
                ASSERT_LE(b.NC, 1 << 24);
                ASSERT_GT(std::strlen(b.kernel), 0u);
            }
        }
    }
    // Both outcomes occur (a mutation inside an ignored string still loads), so
    // the loop did exercise the checks above.
    EXPECT_GT(loaded, 0);
    EXPECT_GT(refused, 0);
}

TEST(ProfileParse, ReasonBufferIsOptionalAndBounded) {
    Profile out;
    const std::string bad = "{";
    EXPECT_EQ(ProfileStatus::corrupt, ridge::parse_profile(bad.data(), bad.size(), intel(), &out, nullptr, 0));
    char tiny[8];
    std::memset(tiny, 'x', sizeof tiny);
    EXPECT_EQ(ProfileStatus::corrupt, ridge::parse_profile(bad.data(), bad.size(), intel(), &out, tiny, sizeof tiny));
    EXPECT_EQ(7u, std::strlen(tiny));
    char one = 'x';
    EXPECT_EQ(ProfileStatus::corrupt, ridge::parse_profile(bad.data(), bad.size(), intel(), &out, &one, 1));
    EXPECT_EQ('\0', one);
    // No text at all.
    EXPECT_EQ(ProfileStatus::corrupt, ridge::parse_profile(nullptr, 0, intel(), &out, tiny, sizeof tiny));
    // A NUL-free reason, even for a profile that loads ("" then).
    const std::string good = Parts().text();
    char why[64];
    std::memset(why, 'x', sizeof why);
    EXPECT_EQ(ProfileStatus::loaded, ridge::parse_profile(good.data(), good.size(), intel(), &out, why, sizeof why));
    EXPECT_STREQ("", why);
}

TEST(ProfileStatusName, NamesEveryStatus) {
    EXPECT_STREQ("loaded", ridge::profile_status_name(ProfileStatus::loaded));
    EXPECT_STREQ("not_found", ridge::profile_status_name(ProfileStatus::not_found));
    EXPECT_STREQ("unreadable", ridge::profile_status_name(ProfileStatus::unreadable));
    EXPECT_STREQ("corrupt", ridge::profile_status_name(ProfileStatus::corrupt));
    EXPECT_STREQ("wrong_format", ridge::profile_status_name(ProfileStatus::wrong_format));
    EXPECT_STREQ("other_cpu", ridge::profile_status_name(ProfileStatus::other_cpu));
}

// --- The JSON reader itself ---

TEST(JsonReader, NavigatesAndDecodes) {
    const std::string text =
        "{\"s\": \"a\\u00e9\\ud83d\\ude00\\n\", \"n\": -1.5e2, \"arr\": [true, false, null, {}], \"o\": {\"k\": 1}}";
    JsonDocument doc;
    char why[128];
    ASSERT_TRUE(doc.parse(text.data(), text.size(), why, sizeof why)) << why;
    const JsonNode* root = doc.root();
    ASSERT_TRUE(JsonDocument::is_object(root));
    EXPECT_EQ(4u, JsonDocument::child_count(root));
    const JsonNode* s = doc.object_get(root, "s");
    ASSERT_TRUE(JsonDocument::is_string(s));
    EXPECT_EQ(8u, JsonDocument::string_length(s));  // a + é (2) + emoji (4) + \n
    EXPECT_TRUE(doc.string_equals(s, "a\xc3\xa9\xf0\x9f\x98\x80\n"));
    EXPECT_FALSE(doc.string_equals(s, "a"));
    char out[16];
    EXPECT_TRUE(doc.copy_string(s, out, 9));
    EXPECT_STREQ("a\xc3\xa9\xf0\x9f\x98\x80\n", out);
    EXPECT_FALSE(doc.copy_string(s, out, 8));  // never truncated: refused, left empty
    EXPECT_STREQ("", out);
    double v = 0;
    EXPECT_TRUE(JsonDocument::number(doc.object_get(root, "n"), &v));
    EXPECT_EQ(-150.0, v);
    EXPECT_FALSE(JsonDocument::number(s, &v));
    const JsonNode* arr = doc.object_get(root, "arr");
    ASSERT_TRUE(JsonDocument::is_array(arr));
    const JsonNode* e = doc.first_child(arr);
    EXPECT_EQ(JsonType::true_value, e->type);
    e = doc.next_sibling(e);
    EXPECT_EQ(JsonType::false_value, e->type);
    e = doc.next_sibling(e);
    EXPECT_TRUE(JsonDocument::is_null(e));
    e = doc.next_sibling(e);
    EXPECT_TRUE(JsonDocument::is_object(e));
    EXPECT_EQ(nullptr, doc.first_child(e));
    EXPECT_EQ(nullptr, doc.next_sibling(e));
    // Members in document order, with their keys.
    std::vector<std::string> keys;
    for (const JsonNode* m = doc.first_child(root); m; m = doc.next_sibling(m)) {
        char key[8];
        ASSERT_TRUE(doc.copy_key(m, key, sizeof key));
        keys.push_back(key);
    }
    EXPECT_EQ((std::vector<std::string>{"s", "n", "arr", "o"}), keys);
    // Absent and null inputs chain to "absent".
    EXPECT_EQ(nullptr, doc.object_get(root, "missing"));
    EXPECT_EQ(nullptr, doc.object_get(doc.object_get(root, "missing"), "k"));
    EXPECT_EQ(nullptr, doc.object_get(arr, "s"));
    EXPECT_FALSE(doc.string_equals(nullptr, "a"));
    EXPECT_TRUE(JsonDocument::number(doc.object_get(doc.object_get(root, "o"), "k"), &v));
    EXPECT_EQ(1.0, v);
}

TEST(JsonReader, ReasonsNameTheByte) {
    JsonDocument doc;
    char why[128];
    EXPECT_FALSE(doc.parse("[1, 2,]", 7, why, sizeof why));
    EXPECT_STREQ("at byte 6: expected a value (byte 0x5d)", why);
    EXPECT_EQ(nullptr, doc.root());
    EXPECT_FALSE(doc.failed_for_memory());
    // A failed parse after a good one leaves the document empty.
    EXPECT_TRUE(doc.parse("[1]", 3, why, sizeof why));
    EXPECT_NE(nullptr, doc.root());
    EXPECT_FALSE(doc.parse("[1] 2", 5, why, sizeof why));
    EXPECT_EQ(nullptr, doc.root());
    EXPECT_STREQ("at byte 4: text after the top-level value", why);
    EXPECT_FALSE(doc.parse("[01]", 4, why, sizeof why));
    EXPECT_STREQ("at byte 2: leading zero in a number", why);
}

TEST(JsonReader, ScalarsAtTheTopLevel) {
    JsonDocument doc;
    double v = 0;
    ASSERT_TRUE(doc.parse(" 42 ", 4, nullptr, 0));
    EXPECT_TRUE(JsonDocument::number(doc.root(), &v));
    EXPECT_EQ(42.0, v);
    ASSERT_TRUE(doc.parse("\"\"", 2, nullptr, 0));
    EXPECT_TRUE(doc.string_equals(doc.root(), ""));
    ASSERT_TRUE(doc.parse("-0", 2, nullptr, 0));
    EXPECT_TRUE(JsonDocument::number(doc.root(), &v));
    EXPECT_TRUE(std::signbit(v));
    // Underflow is the nearest double, not an error.
    ASSERT_TRUE(doc.parse("1e-999", 6, nullptr, 0));
    EXPECT_TRUE(JsonDocument::number(doc.root(), &v));
    EXPECT_EQ(0.0, v);
    // A number ending exactly where the text ends (no NUL after it to stop strtod).
    const char digits[3] = {'1', '2', '3'};
    ASSERT_TRUE(doc.parse(digits, 2, nullptr, 0));
    EXPECT_TRUE(JsonDocument::number(doc.root(), &v));
    EXPECT_EQ(12.0, v);
}

// --- Files ---

class ProfileFiles : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/ridge-profile-test-XXXXXX";
        ASSERT_NE(nullptr, mkdtemp(pattern));
        dir_ = pattern;
    }
    void TearDown() override {
        for (const std::string& f : files_) unlink(f.c_str());
        for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it) rmdir(it->c_str());
        rmdir(dir_.c_str());
    }
    std::string write_file(const std::string& name, const std::string& contents) {
        const std::string path = dir_ + "/" + name;
        FILE* f = std::fopen(path.c_str(), "wb");
        EXPECT_NE(nullptr, f);
        if (f == nullptr) return path;
        EXPECT_EQ(contents.size(), std::fwrite(contents.data(), 1, contents.size(), f));
        std::fclose(f);
        files_.push_back(path);
        return path;
    }
    std::string make_dir(const std::string& name) {
        const std::string path = dir_ + "/" + name;
        EXPECT_EQ(0, mkdir(path.c_str(), 0700));
        dirs_.push_back(path);
        return path;
    }
    Result load(const std::string& path) {
        Result r;
        char why[256] = "unset";
        r.status = ridge::load_profile_file(path.c_str(), intel(), &r.profile, why, sizeof why);
        r.why = why;
        return r;
    }

    std::string dir_;
    std::vector<std::string> files_, dirs_;
};

int open_descriptor_count() {
    int count = 0;
    DIR* d = opendir("/proc/self/fd");
    if (d == nullptr) return -1;
    while (readdir(d) != nullptr) ++count;
    closedir(d);
    return count;
}

TEST_F(ProfileFiles, ValidFileLoads) {
    const Result r = load(write_file("p.json", full_profile()));
    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_EQ(3, r.profile.blocking_count);
    EXPECT_EQ(384, r.profile.find("ukr_f32_gemm_32x12__avx512")->KC);
    EXPECT_EQ(8e6, r.profile.min_flops_per_thread);
}

TEST_F(ProfileFiles, MissingFileIsNotFound) {
    Result r = load(dir_ + "/absent.json");
    EXPECT_EQ(ProfileStatus::not_found, r.status) << r.why;
    expect_empty(r.profile);
    EXPECT_NE(std::string::npos, r.why.find("absent.json")) << r.why;
    // A path through a missing directory, or through a file (ENOTDIR).
    EXPECT_EQ(ProfileStatus::not_found, load(dir_ + "/no/such/dir.json").status);
    const std::string file = write_file("plain", "x");
    EXPECT_EQ(ProfileStatus::not_found, load(file + "/p.json").status);
    EXPECT_EQ(ProfileStatus::not_found, load("").status);
    Profile out;
    EXPECT_EQ(ProfileStatus::not_found, ridge::load_profile_file(nullptr, intel(), &out, nullptr, 0));
}

TEST_F(ProfileFiles, DirectoryIsUnreadable) {
    const std::string dir = make_dir("d.json");
    const Result r = load(dir);
    EXPECT_EQ(ProfileStatus::unreadable, r.status) << r.why;
    EXPECT_EQ(dir + " is a directory", r.why);  // refused by its type, before any read
    expect_one_line_reason(r.why);
}

// A file that holds more than fstat said (here /proc's, which report size 0) is
// refused, not read in part.
TEST_F(ProfileFiles, FileLargerThanItsSizeIsUnreadable) {
    struct stat st;
    if (stat("/proc/self/status", &st) != 0 || st.st_size != 0) GTEST_SKIP() << "no /proc reporting size 0";
    const Result r = load("/proc/self/status");
    EXPECT_EQ(ProfileStatus::unreadable, r.status) << r.why;
    EXPECT_NE(std::string::npos, r.why.find("grew while being read")) << r.why;
}

TEST_F(ProfileFiles, FifoIsUnreadableWithoutBlocking) {
    const std::string path = dir_ + "/fifo.json";
    ASSERT_EQ(0, mkfifo(path.c_str(), 0600));
    files_.push_back(path);
    const Result r = load(path);  // with no writer, a blocking open would hang here
    EXPECT_EQ(ProfileStatus::unreadable, r.status) << r.why;
    EXPECT_NE(std::string::npos, r.why.find("not a regular file")) << r.why;
}

TEST_F(ProfileFiles, SizeLimit) {
    // Exactly kMaxProfileBytes (padded with whitespace) is read; one byte more is not.
    std::string text = full_profile();
    text.resize(ridge::kMaxProfileBytes, ' ');
    Result r = load(write_file("max.json", text));
    EXPECT_EQ(ProfileStatus::loaded, r.status) << r.why;
    text.push_back(' ');
    r = load(write_file("over.json", text));
    EXPECT_EQ(ProfileStatus::unreadable, r.status) << r.why;
    EXPECT_NE(std::string::npos, r.why.find("1048577 bytes")) << r.why;
    expect_empty(r.profile);
    r = load(write_file("huge.json", std::string(4 << 20, '[')));
    EXPECT_EQ(ProfileStatus::unreadable, r.status) << r.why;
}

TEST_F(ProfileFiles, ContentsAreJudgedLikeText) {
    EXPECT_EQ(ProfileStatus::corrupt, load(write_file("empty.json", "")).status);
    EXPECT_EQ(ProfileStatus::corrupt, load(write_file("cut.json", full_profile().substr(0, 100))).status);
    EXPECT_EQ(ProfileStatus::wrong_format, load(write_file("other.json", "{\"format\": \"x\"}")).status);
    const Result r = load(write_file("amd.json", full_profile()));
    EXPECT_EQ(ProfileStatus::loaded, r.status);
    Profile out;
    const std::string path = dir_ + "/amd.json";
    EXPECT_EQ(ProfileStatus::other_cpu,
              ridge::load_profile_file(path.c_str(), make_signature("AuthenticAMD", 25, 1, "fma"), &out, nullptr, 0));
}

// A symlink loop (ELOOP): an open error other than "no such file", even for root.
TEST_F(ProfileFiles, SymlinkLoopIsUnreadable) {
    const std::string loop = dir_ + "/loop.json";
    ASSERT_EQ(0, symlink("loop.json", loop.c_str()));
    files_.push_back(loop);
    const Result r = load(loop);
    EXPECT_EQ(ProfileStatus::unreadable, r.status) << r.why;
    EXPECT_NE(std::string::npos, r.why.find("cannot open")) << r.why;
    expect_one_line_reason(r.why);
}

TEST_F(ProfileFiles, NoPermissionIsUnreadable) {
    if (geteuid() == 0) GTEST_SKIP() << "root reads any file: no permission error to provoke";
    const std::string path = write_file("secret.json", full_profile());
    ASSERT_EQ(0, chmod(path.c_str(), 0));
    const Result r = load(path);
    EXPECT_EQ(ProfileStatus::unreadable, r.status) << r.why;
}

// The fuzzer's seeds are valid profiles (for the fuzzer's CPU): a seed that stopped
// loading would leave the fuzzer stuck before the kernels and figures.
TEST_F(ProfileFiles, FuzzSeedsLoad) {
    int seeds = 0;
    DIR* d = opendir(RIDGE_PROFILE_CORPUS);
    ASSERT_NE(nullptr, d) << RIDGE_PROFILE_CORPUS;
    while (const dirent* e = readdir(d)) {
        const std::string name = e->d_name;
        if (name.size() < 5 || name.substr(name.size() - 5) != ".json") continue;
        ++seeds;
        const Result r = load(std::string(RIDGE_PROFILE_CORPUS) + "/" + name);
        EXPECT_EQ(ProfileStatus::loaded, r.status) << name << ": " << r.why;
        EXPECT_GE(r.profile.blocking_count, 1) << name;
    }
    closedir(d);
    EXPECT_GE(seeds, 1);
}

// A caller's setlocale must not change how numbers read: strtod follows LC_NUMERIC,
// and in German "1.5" reads as 1. The locale is compiled here (localedef, into the
// test's directory, found through LOCPATH), since a build machine may have none.
TEST_F(ProfileFiles, NumbersIgnoreTheProcessLocale) {
    const std::string compile = "localedef -i de_DE -f UTF-8 '" + dir_ + "/de_DE.UTF-8' >/dev/null 2>&1";
    const bool compiled = std::system(compile.c_str()) == 0;
    const char* locpath = std::getenv("LOCPATH");
    const std::string saved_locpath = locpath ? locpath : "";
    setenv("LOCPATH", dir_.c_str(), 1);
    const std::string saved_locale = std::setlocale(LC_NUMERIC, nullptr);
    const bool german = compiled && std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr;
    const bool comma = german && std::strtod("1.5", nullptr) == 1.0;  // the trap is really set

    Parts p;
    p.small_path = "\"small_path\": {\"max_volume\": 1.5, \"max_a_floats\": 2.25e3}";
    const Result r = parse(p.text());

    std::setlocale(LC_NUMERIC, saved_locale.c_str());
    if (locpath)
        setenv("LOCPATH", saved_locpath.c_str(), 1);
    else
        unsetenv("LOCPATH");
    EXPECT_EQ(0, std::system(("rm -rf '" + dir_ + "/de_DE.UTF-8'").c_str()));

    ASSERT_EQ(ProfileStatus::loaded, r.status) << r.why;
    EXPECT_EQ(1.5, r.profile.small_max_volume);
    EXPECT_EQ(2250.0, r.profile.small_max_a_floats);
    if (!comma) GTEST_SKIP() << "could not set a decimal-comma locale (localedef, de_DE sources); read in C only";
}

TEST_F(ProfileFiles, NoDescriptorLeaks) {
    const std::string good = write_file("good.json", full_profile());
    const std::string bad = write_file("bad.json", "{");
    std::string big_text(ridge::kMaxProfileBytes + 1, ' ');
    const std::string big = write_file("big.json", big_text);
    const std::string dir = make_dir("dir");
    const int before = open_descriptor_count();
    ASSERT_GT(before, 0);
    for (int i = 0; i < 50; ++i)
        for (const std::string* p : {&good, &bad, &big, &dir}) load(*p);
    EXPECT_EQ(before, open_descriptor_count());
}

// A path with a newline in it is quoted on one line.
TEST_F(ProfileFiles, ReasonsQuotePathsOnOneLine) {
    const Result r = load(make_dir("line\nbreak"));
    EXPECT_EQ(ProfileStatus::unreadable, r.status);
    expect_one_line_reason(r.why);
    EXPECT_NE(std::string::npos, r.why.find("line?break")) << r.why;
}

// --- Where the profile is looked for ---

// Saves RIDGE_PROFILE, XDG_CONFIG_HOME and HOME, clears them for the test, and
// puts them back afterwards, whatever the test did.
class ProfilePath : public ProfileFiles {
protected:
    static constexpr const char* kVariables[3] = {"RIDGE_PROFILE", "XDG_CONFIG_HOME", "HOME"};

    void SetUp() override {
        ProfileFiles::SetUp();
        for (int i = 0; i < 3; ++i) {
            const char* v = std::getenv(kVariables[i]);
            had_[i] = v != nullptr;
            saved_[i] = v ? v : "";
            unsetenv(kVariables[i]);
        }
    }
    void TearDown() override {
        for (int i = 0; i < 3; ++i) {
            if (had_[i])
                setenv(kVariables[i], saved_[i].c_str(), 1);
            else
                unsetenv(kVariables[i]);
        }
        ProfileFiles::TearDown();
    }

    // A signature no machine has, so that /etc/ridge holds nothing for it.
    static CpuSignature test_cpu() { return make_signature("RidgeTestCPU", 99, 7, "fma"); }
    static std::string stem() { return "RidgeTestCPU-99-7"; }

    // Creates <base>/ridge/<stem>.json, or <base>/.config/ridge/<stem>.json, with `base`
    // dir_ or a directory under it; returns its path.
    std::string config_file(const std::string& base, bool dot_config) {
        std::string relative = base == dir_ ? "" : base.substr(dir_.size() + 1) + "/";
        if (dot_config) {
            relative += ".config/";
            make_dir(relative.substr(0, relative.size() - 1));
        }
        make_dir(relative + "ridge");
        return write_file(relative + "ridge/" + stem() + ".json", "{}");
    }

    struct Found {
        bool exists;
        std::string path;
        std::string source;
    };
    Found find(size_t path_size = 4096) {
        std::vector<char> path(path_size, 'x');
        const char* source = "unset";
        const bool exists = ridge::profile_path(test_cpu(), path.data(), path.size(), &source);
        return {exists, path.data(), source ? source : "(null)"};
    }

    bool had_[3] = {};
    std::string saved_[3];
};

TEST_F(ProfilePath, StemNamesTheCpu) {
    char stem[64];
    ridge::profile_file_stem(intel(), stem, sizeof stem);
    EXPECT_STREQ("GenuineIntel-6-143", stem);
    ridge::profile_file_stem(make_signature("AuthenticAMD", 26, 68, ""), stem, sizeof stem);
    EXPECT_STREQ("AuthenticAMD-26-68", stem);
    // Bytes unsafe in a file name are replaced; no vendor reads "unknown".
    ridge::profile_file_stem(make_signature("  Shanghai  ", 7, 59, ""), stem, sizeof stem);
    EXPECT_STREQ("__Shanghai__-7-59", stem);
    ridge::profile_file_stem(make_signature("../etc/x", 1, 2, ""), stem, sizeof stem);
    EXPECT_STREQ(".._etc_x-1-2", stem);
    ridge::profile_file_stem(make_signature("", 0, 0, ""), stem, sizeof stem);
    EXPECT_STREQ("unknown-0-0", stem);
    CpuSignature full;  // 16 vendor bytes, no NUL
    std::memset(full.vendor, 'V', sizeof full.vendor);
    ridge::profile_file_stem(full, stem, sizeof stem);
    EXPECT_STREQ("VVVVVVVVVVVVVVVV-0-0", stem);
    char small[6];
    ridge::profile_file_stem(intel(), small, sizeof small);
    EXPECT_STREQ("Genui", small);
}

TEST_F(ProfilePath, RidgeProfileComesFirst) {
    const std::string explicit_file = write_file("mine.json", "{}");
    setenv("RIDGE_PROFILE", explicit_file.c_str(), 1);
    setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
    config_file(dir_, false);
    const Found f = find();
    EXPECT_TRUE(f.exists);
    EXPECT_EQ(explicit_file, f.path);
    EXPECT_EQ("RIDGE_PROFILE", f.source);
}

TEST_F(ProfilePath, MissingRidgeProfileDoesNotFallThrough) {
    // Named but absent: no profile, even though XDG's place has one.
    setenv("RIDGE_PROFILE", (dir_ + "/absent.json").c_str(), 1);
    setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
    config_file(dir_, false);
    const Found f = find();
    EXPECT_FALSE(f.exists);
    EXPECT_EQ(dir_ + "/absent.json", f.path);
    EXPECT_EQ("RIDGE_PROFILE", f.source);
}

TEST_F(ProfilePath, HomeWhenXdgHasNone) {
    const std::string xdg_dir = make_dir("xdg");
    setenv("XDG_CONFIG_HOME", xdg_dir.c_str(), 1);
    setenv("HOME", dir_.c_str(), 1);
    const std::string home = config_file(dir_, true);
    const Found f = find();
    EXPECT_TRUE(f.exists);
    EXPECT_EQ(home, f.path);
    EXPECT_EQ("HOME", f.source);
}

TEST_F(ProfilePath, RelativeXdgIsIgnored) {
    setenv("XDG_CONFIG_HOME", "relative/config", 1);
    setenv("HOME", dir_.c_str(), 1);
    const Found f = find();
    EXPECT_FALSE(f.exists);
    EXPECT_EQ(dir_ + "/.config/ridge/" + stem() + ".json", f.path);
    EXPECT_EQ("HOME", f.source);
}

TEST_F(ProfilePath, WhereToCreateWhenNoneExists) {
    setenv("RIDGE_PROFILE", (dir_ + "/new.json").c_str(), 1);
    setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
    setenv("HOME", dir_.c_str(), 1);
    Found f = find();
    EXPECT_FALSE(f.exists);
    EXPECT_EQ(dir_ + "/new.json", f.path);
    EXPECT_EQ("RIDGE_PROFILE", f.source);

    unsetenv("RIDGE_PROFILE");
    f = find();
    EXPECT_FALSE(f.exists);
    EXPECT_EQ(dir_ + "/ridge/" + stem() + ".json", f.path);
    EXPECT_EQ("XDG_CONFIG_HOME", f.source);

    setenv("XDG_CONFIG_HOME", "", 1);  // empty counts as unset
    f = find();
    EXPECT_FALSE(f.exists);
    EXPECT_EQ(dir_ + "/.config/ridge/" + stem() + ".json", f.path);
    EXPECT_EQ("HOME", f.source);

    unsetenv("HOME");  // nothing to write to: /etc is the administrator's
    f = find();
    EXPECT_FALSE(f.exists);
    EXPECT_EQ("", f.path);
    EXPECT_EQ("none", f.source);
}

TEST_F(ProfilePath, PathsThatDoNotFitAreSkippedNotCut) {
    // RIDGE_PROFILE names an existing file through a long path; XDG's is short.
    const std::string long_name(100, 'd');
    make_dir(long_name);
    const std::string long_file = write_file(long_name + "/profile-with-a-long-name.json", "{}");
    setenv("RIDGE_PROFILE", long_file.c_str(), 1);
    const std::string short_base = make_dir("x");
    setenv("XDG_CONFIG_HOME", short_base.c_str(), 1);
    const std::string xdg = config_file(short_base, false);
    ASSERT_LT(xdg.size(), long_file.size());

    Found f = find(long_file.size() + 1);  // room for the long one and its NUL
    EXPECT_TRUE(f.exists);
    EXPECT_EQ(long_file, f.path);
    EXPECT_EQ("RIDGE_PROFILE", f.source);
    f = find(long_file.size());  // one byte short: skipped, XDG's wins
    EXPECT_TRUE(f.exists);
    EXPECT_EQ(xdg, f.path);
    EXPECT_EQ("XDG_CONFIG_HOME", f.source);
    // Neither fits: /etc/ridge/<stem>.json would, but it does not exist and is no
    // place to create; so no path at all, rather than a cut one.
    f = find(xdg.size());
    EXPECT_FALSE(f.exists);
    EXPECT_EQ("", f.path);
    EXPECT_EQ("none", f.source);
    f = find(1);
    EXPECT_FALSE(f.exists);
    EXPECT_EQ("", f.path);
    char* no_path = nullptr;
    EXPECT_FALSE(ridge::profile_path(test_cpu(), no_path, 0, nullptr));
}

}  // namespace
