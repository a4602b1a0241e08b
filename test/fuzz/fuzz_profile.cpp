// libFuzzer over the profile reader: the input is a profile text, parsed for a
// fixed CPU signature (the one the seed profiles in profile_corpus/ name, so that
// mutations get past the signature check into the kernels and figures).
//
// Checked on every input, besides what AddressSanitizer and UBSan catch:
// - the JSON reader: a document that parses has a tree consistent with itself
//   (child counts match the links, nesting within kMaxDepth, no string holds a
//   NUL, copy_string and string_equals agree);
// - parse_profile: the status is one parsing can give; `why` is NUL-terminated,
//   one line, empty exactly when loaded; loaded => every value within the ranges
//   profile.h promises and find() reaches every entry; not loaded => the profile
//   is empty; a loaded profile is refused as other_cpu for another model; the same
//   input gives the same answer twice.
// A violation aborts, which libFuzzer reports with the input that caused it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tuning/json_reader.h"
#include "tuning/profile.h"

namespace {

using ridge::CpuSignature;
using ridge::JsonDocument;
using ridge::JsonNode;
using ridge::Profile;
using ridge::ProfileBlocking;
using ridge::ProfileStatus;

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "fuzz_profile: %s\n", what);
    std::abort();
}

void check(bool ok, const char* what) {
    if (!ok) fail(what);
}

CpuSignature seed_cpu() {
    CpuSignature s;
    std::snprintf(s.vendor, sizeof s.vendor, "GenuineIntel");
    s.family = 6;
    s.model = 143;
    std::snprintf(s.features, sizeof s.features, "fma avx2 f16c avx512f avx512bw avx512vl avx512dq avx512_bf16 amx");
    return s;
}

// Walks the tree under `n`, checking it; returns the number of nodes seen.
size_t check_node(const JsonDocument& doc, const JsonNode* n, int depth) {
    check(depth <= JsonDocument::kMaxDepth, "json: nesting beyond kMaxDepth");
    size_t seen = 1;
    if (JsonDocument::is_string(n)) {
        const size_t length = JsonDocument::string_length(n);
        char* copy = static_cast<char*>(std::malloc(length + 1));
        check(copy != nullptr, "out of memory in the fuzzer");
        check(doc.copy_string(n, copy, length + 1), "json: copy_string refused a buffer of the right size");
        check(std::strlen(copy) == length, "json: a string holds a NUL");
        check(doc.string_equals(n, copy), "json: string_equals disagrees with copy_string");
        if (length > 0) check(!doc.copy_string(n, copy, length), "json: copy_string truncated instead of refusing");
        std::free(copy);
    }
    if (JsonDocument::is_object(n) || JsonDocument::is_array(n)) {
        size_t children = 0;
        for (const JsonNode* c = doc.first_child(n); c; c = doc.next_sibling(c)) {
            ++children;
            if (JsonDocument::is_object(n)) {
                char key[64];
                const size_t key_length = JsonDocument::key_length(c);
                if (key_length < sizeof key) {
                    check(doc.copy_key(c, key, sizeof key), "json: copy_key refused a key that fits");
                    check(std::strlen(key) == key_length, "json: a key holds a NUL");
                    check(doc.object_get(n, key) == c, "json: object_get does not find a member by its key");
                }
            }
            seen += check_node(doc, c, depth + 1);
        }
        check(children == JsonDocument::child_count(n), "json: child_count differs from the linked children");
    }
    return seen;
}

void check_json(const char* text, size_t size) {
    JsonDocument doc;
    char why[128];
    std::memset(why, 'x', sizeof why);
    if (!doc.parse(text, size, why, sizeof why)) {
        check(std::memchr(why, '\0', sizeof why) != nullptr, "json: reason not NUL-terminated");
        check(doc.root() == nullptr, "json: failed parse left a root");
        return;
    }
    check(doc.root() != nullptr, "json: parsed without a root");
    const size_t nodes = check_node(doc, doc.root(), 0);
    check(nodes <= size, "json: more values than bytes");
}

bool profile_is_empty(const Profile& p) {
    if (p.blocking_count != 0 || p.has_small_path || p.has_small_alone || p.has_small_alone_lined_a || p.has_threads)
        return false;
    if (p.small_max_volume_alone != 0 || p.small_max_volume_alone_lined_a != 0) return false;
    if (p.small_max_volume != 0 || p.small_max_a_floats != 0 || p.min_flops_per_thread != 0) return false;
    for (const ProfileBlocking& b : p.blocking)
        if (b.kernel[0] != '\0' || b.KC != 0 || b.MC != 0 || b.NC != 0) return false;
    return true;
}

void check_loaded(const Profile& p) {
    check(p.blocking_count >= 0 && p.blocking_count <= Profile::kMaxKernels, "profile: kernel count out of bounds");
    for (int i = 0; i < p.blocking_count; ++i) {
        const ProfileBlocking& b = p.blocking[i];
        const size_t name_length = strnlen(b.kernel, sizeof b.kernel);
        check(name_length >= 1 && name_length <= 47, "profile: kernel name length out of bounds");
        for (size_t c = 0; c < name_length; ++c)
            check(b.kernel[c] >= 0x20 && b.kernel[c] <= 0x7E, "profile: kernel name not printable ASCII");
        check(b.KC >= 1 && b.KC <= (1 << 24), "profile: KC out of range");
        check(b.MC >= 1 && b.MC <= (1 << 24), "profile: MC out of range");
        check(b.NC >= 1 && b.NC <= (1 << 24), "profile: NC out of range");
        check(p.find(b.kernel) == &b, "profile: find() does not reach an entry");
    }
    if (p.has_small_path) {
        check(p.small_max_volume >= 0 && p.small_max_volume <= 1e12, "profile: small_max_volume out of range");
        check(p.small_max_a_floats >= 0 && p.small_max_a_floats <= 1e12, "profile: small_max_a_floats out of range");
    } else {
        check(p.small_max_volume == 0 && p.small_max_a_floats == 0, "profile: small path figures without the flag");
    }
    if (p.has_small_alone) {
        check(p.has_small_path, "profile: a one-thread small-path figure outside small_path");
        check(p.small_max_volume_alone >= 0 && p.small_max_volume_alone <= 1e12,
              "profile: small_max_volume_alone out of range");
    } else {
        check(p.small_max_volume_alone == 0, "profile: one-thread small-path figure without the flag");
    }
    if (p.has_small_alone_lined_a) {
        check(p.has_small_path, "profile: a small-path figure for A on lines outside small_path");
        check(p.small_max_volume_alone_lined_a >= 0 && p.small_max_volume_alone_lined_a <= 1e12,
              "profile: small_max_volume_alone_lined_a out of range");
    } else {
        check(p.small_max_volume_alone_lined_a == 0, "profile: small-path figure for A on lines without the flag");
    }
    if (p.has_threads)
        check(p.min_flops_per_thread >= 0 && p.min_flops_per_thread <= 1e12, "profile: min_flops_per_thread out of range");
    else
        check(p.min_flops_per_thread == 0, "profile: threads figure without the flag");
}

void check_reason(const char* why, size_t size, bool loaded) {
    const void* nul = std::memchr(why, '\0', size);
    check(nul != nullptr, "profile: reason not NUL-terminated");
    const size_t length = std::strlen(why);
    check(loaded == (length == 0), "profile: reason empty exactly when not loaded");
    check(std::strchr(why, '\n') == nullptr && std::strchr(why, '\r') == nullptr, "profile: reason spans lines");
}

void check_profile(const char* text, size_t size) {
    const CpuSignature here = seed_cpu();
    Profile p;
    p.blocking_count = 5;  // stale contents the parse must clear
    char why[256];
    std::memset(why, 'x', sizeof why);
    const ProfileStatus s = ridge::parse_profile(text, size, here, &p, why, sizeof why);
    check(s == ProfileStatus::loaded || s == ProfileStatus::corrupt || s == ProfileStatus::wrong_format ||
              s == ProfileStatus::other_cpu,
          "profile: a status parsing cannot give");
    check_reason(why, sizeof why, s == ProfileStatus::loaded);
    if (s != ProfileStatus::loaded) {
        check(profile_is_empty(p), "profile: refused but not empty");
    } else {
        check_loaded(p);
        CpuSignature elsewhere = here;
        elsewhere.model += 1;
        Profile other;
        check(ridge::parse_profile(text, size, elsewhere, &other, nullptr, 0) == ProfileStatus::other_cpu,
              "profile: loaded for another CPU model");
        check(profile_is_empty(other), "profile: other_cpu but not empty");
    }
    Profile again;
    check(ridge::parse_profile(text, size, here, &again, nullptr, 0) == s, "profile: two answers for one input");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // An exactly-sized copy: AddressSanitizer then reports any read past the text.
    char* text = static_cast<char*>(std::malloc(size == 0 ? 1 : size));
    if (text == nullptr) return 0;
    if (size > 0) std::memcpy(text, data, size);
    check_json(text, size);
    check_profile(text, size);
    std::free(text);
    return 0;
}
