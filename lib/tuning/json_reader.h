// A small, strict JSON (RFC 8259) reader for the files the library reads itself
// (the tuning profile). The library must never throw or abort (it is built with
// -fno-exceptions, where a failed allocation in a std container terminates), so:
// no std containers, no std::string, no operator new; one std::malloc block per
// parsed document, and every failure is a return value.
//
// The whole text is parsed up front into a flat array of nodes (one per value).
// Containers link their children through first_child / next_sibling; an object's
// children carry their member key. Strings, keys included, are decoded (escapes
// resolved) into a second area of the same block, so lookups compare bytes only.
//
// What is rejected, so that every reader of a file sees the same values:
// - anything outside the grammar: trailing garbage (besides whitespace), leading
//   zeros, "1.", ".5", "+1", hex, NaN, Infinity, comments, single quotes, trailing
//   commas, an empty text;
// - numbers that do not fit a finite double (1e999); underflow rounds to 0 or a
//   subnormal, which is what the number means;
// - in strings: raw control characters (U+0000..U+001F, NUL bytes included),
//   unknown escapes, \u with fewer than four hex digits, a lone or reversed
//   surrogate, \u0000 (it would cut a C string short), and bytes that are not
//   well-formed UTF-8 (overlong forms, encoded surrogates, > U+10FFFF, truncated
//   sequences): RFC 8259 section 8.1 requires UTF-8;
// - duplicate keys in one object (RFC 8259 leaves them undefined: two readers could
//   pick two different values);
// - nesting deeper than kMaxDepth containers, and texts of 2^32 - 2 bytes or more.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ridge {

enum class JsonType : uint8_t { null_value, false_value, true_value, number, string, array, object };

// One value. Offsets point into the document's decoded-string area; indices into
// its node array (kNoNode: none). Read through JsonDocument, not directly.
struct JsonNode {
    static constexpr uint32_t kNoNode = 0xFFFFFFFFu;
    double number = 0;               // JsonType::number only
    uint32_t string_offset = 0;      // JsonType::string only: the decoded bytes
    uint32_t string_length = 0;
    uint32_t key_offset = 0;         // a member of an object: its decoded key
    uint32_t key_length = 0;
    uint32_t first_child = kNoNode;  // array or object: the first element or member
    uint32_t next_sibling = kNoNode; // the next element or member of the parent
    uint32_t child_count = 0;        // array or object
    JsonType type = JsonType::null_value;
};

class JsonDocument {
public:
    // Containers nested deeper than this are refused (the parser recurses once per level).
    static constexpr int kMaxDepth = 32;

    JsonDocument() = default;
    ~JsonDocument();
    JsonDocument(const JsonDocument&) = delete;
    JsonDocument& operator=(const JsonDocument&) = delete;

    // Parses `length` bytes of `text` (no NUL terminator needed). On failure the
    // document is empty and `why` (if not null) gets a one-line reason with the byte
    // offset, NUL-terminated and truncated to `why_size`. A document can be parsed
    // again; the previous one is released first.
    bool parse(const char* text, size_t length, char* why, size_t why_size);
    // True when the last parse failed only because memory for the nodes could not be had.
    bool failed_for_memory() const { return out_of_memory_; }

    // The top-level value, or nullptr before a successful parse.
    const JsonNode* root() const;

    // Every query takes nullptr and answers "absent" / false, so lookups chain
    // (object_get(object_get(root(), "cpu"), "vendor")) without a check per step.
    static bool is_object(const JsonNode* n) { return n && n->type == JsonType::object; }
    static bool is_array(const JsonNode* n) { return n && n->type == JsonType::array; }
    static bool is_string(const JsonNode* n) { return n && n->type == JsonType::string; }
    static bool is_number(const JsonNode* n) { return n && n->type == JsonType::number; }
    static bool is_bool(const JsonNode* n) {
        return n && (n->type == JsonType::true_value || n->type == JsonType::false_value);
    }
    static bool is_null(const JsonNode* n) { return n && n->type == JsonType::null_value; }

    // The member of `object` named `key` (a NUL-terminated string), or nullptr.
    const JsonNode* object_get(const JsonNode* object, const char* key) const;
    // The first element of an array or member of an object, then the next one; nullptr at the end.
    const JsonNode* first_child(const JsonNode* container) const;
    const JsonNode* next_sibling(const JsonNode* child) const;

    // A number's value; false for anything else.
    static bool number(const JsonNode* n, double* value);
    // A string's decoded bytes equal `s` (NUL-terminated); false for non-strings.
    bool string_equals(const JsonNode* n, const char* s) const;
    // A string's decoded length in bytes (0 for non-strings).
    static size_t string_length(const JsonNode* n) { return is_string(n) ? n->string_length : 0; }
    // Copies a string, NUL-terminated, into `out`. False (and `out` empty, when it has
    // room for the NUL) if `n` is not a string or does not fit whole: never truncates.
    bool copy_string(const JsonNode* n, char* out, size_t out_size) const;
    // The same for the key of an object member (`n` from first_child/next_sibling of an object).
    bool copy_key(const JsonNode* member, char* out, size_t out_size) const;
    static size_t key_length(const JsonNode* member) { return member ? member->key_length : 0; }
    // How many elements or members a container has (0 for anything else).
    static size_t child_count(const JsonNode* n) { return is_object(n) || is_array(n) ? n->child_count : 0; }

private:
    void release();

    JsonNode* nodes_ = nullptr;  // start of the one malloc block
    char* strings_ = nullptr;    // decoded strings, after the nodes in the same block
    uint32_t node_count_ = 0;
    bool out_of_memory_ = false;
};

}  // namespace ridge
