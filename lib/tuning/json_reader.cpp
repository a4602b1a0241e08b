// The strict JSON reader: a recursive-descent parser (depth-limited) writing into
// one malloc block sized before parsing starts, so parsing itself never allocates.
#include "tuning/json_reader.h"

#include <locale.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ridge {
namespace {

// Texts this long or longer are refused: node indices are 32-bit and 0xFFFFFFFF means "none".
constexpr size_t kMaxTextBytes = 0xFFFFFFFEu;

// How many values `text` can hold at most. Every value but the top-level one comes
// right after (whitespace aside) a '[' (first element), a ',' (next element or member)
// or a ':' (a member's value), and each such byte introduces at most one value; bytes
// inside strings only make the bound looser. So this sizes the node array exactly
// enough without a first parse.
size_t max_value_count(const char* text, size_t length) {
    size_t count = 1;
    for (size_t i = 0; i < length; ++i)
        if (text[i] == '[' || text[i] == ',' || text[i] == ':') ++count;
    return count;
}

// strtod follows the process's LC_NUMERIC (a caller's setlocale could make it
// expect "1,5"); JSON numbers always use '.', so they are converted in the C locale.
// glibc hands out its static C locale for this request without allocating.
locale_t c_locale() {
    static const locale_t c = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
    return c;
}

bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// Value of one hex digit, or -1.
int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Writes code point `cp` (a valid scalar value, not a surrogate) as UTF-8; returns the byte count.
size_t encode_utf8(uint32_t cp, char* out) {
    if (cp < 0x80) {
        out[0] = static_cast<char>(cp);
        return 1;
    }
    if (cp < 0x800) {
        out[0] = static_cast<char>(0xC0 | (cp >> 6));
        out[1] = static_cast<char>(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = static_cast<char>(0xE0 | (cp >> 12));
        out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out[2] = static_cast<char>(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = static_cast<char>(0xF0 | (cp >> 18));
    out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[3] = static_cast<char>(0x80 | (cp & 0x3F));
    return 4;
}

// The length of the well-formed UTF-8 sequence at `s` (at most `avail` bytes), or 0
// if it is not one. Follows the Unicode standard's table of well-formed byte
// sequences (Table 3-7): no overlong forms, no encoded surrogates, nothing above U+10FFFF.
size_t utf8_sequence_length(const unsigned char* s, size_t avail) {
    const unsigned char lead = s[0];
    size_t length = 0;
    unsigned char second_min = 0x80, second_max = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) second_min = 0xA0;  // below: overlong
        if (lead == 0xED) second_max = 0x9F;  // above: surrogates U+D800..U+DFFF
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) second_min = 0x90;  // below: overlong
        if (lead == 0xF4) second_max = 0x8F;  // above: beyond U+10FFFF
    } else {
        return 0;  // a stray continuation byte, C0/C1 (always overlong) or F5..FF
    }
    if (avail < length) return 0;
    if (s[1] < second_min || s[1] > second_max) return 0;
    for (size_t i = 2; i < length; ++i)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return length;
}

// Orders object members by key bytes (then by length), for the duplicate check.
int compare_keys(const JsonNode& a, const JsonNode& b, const char* strings) {
    const uint32_t common = a.key_length < b.key_length ? a.key_length : b.key_length;
    const int c = std::memcmp(strings + a.key_offset, strings + b.key_offset, common);
    if (c != 0) return c;
    return a.key_length < b.key_length ? -1 : (a.key_length > b.key_length ? 1 : 0);
}

// Heapsort of member indices by key: O(n log n) whatever a hostile file holds,
// in place, no recursion (the duplicate check must not be quadratic: a 1 MiB object
// can have 10^5 members).
void sift_down(uint32_t* idx, size_t root, size_t count, const JsonNode* nodes, const char* strings) {
    for (;;) {
        size_t largest = root;
        const size_t left = 2 * root + 1, right = left + 1;
        if (left < count && compare_keys(nodes[idx[left]], nodes[idx[largest]], strings) > 0) largest = left;
        if (right < count && compare_keys(nodes[idx[right]], nodes[idx[largest]], strings) > 0) largest = right;
        if (largest == root) return;
        const uint32_t t = idx[root];
        idx[root] = idx[largest];
        idx[largest] = t;
        root = largest;
    }
}

void sort_members_by_key(uint32_t* idx, size_t count, const JsonNode* nodes, const char* strings) {
    for (size_t i = count / 2; i-- > 0;) sift_down(idx, i, count, nodes, strings);
    for (size_t end = count; end-- > 1;) {
        const uint32_t t = idx[0];
        idx[0] = idx[end];
        idx[end] = t;
        sift_down(idx, 0, end, nodes, strings);
    }
}

// One parse: the cursor over the text and the areas it fills. Every parse_* returns
// false after writing the reason; nothing is undone piecemeal (the caller drops the
// whole block).
class Parser {
public:
    Parser(const char* text, size_t length, JsonNode* nodes, size_t node_capacity, uint32_t* scratch,
           char* strings, char* why, size_t why_size)
        : text_(reinterpret_cast<const unsigned char*>(text)), length_(length), nodes_(nodes),
          node_capacity_(node_capacity), scratch_(scratch), strings_(strings), why_(why), why_size_(why_size) {}

    // The whole text is one value and whitespace around it.
    bool parse_document() {
        uint32_t root = 0;
        if (!parse_value(0, &root)) return false;
        skip_whitespace();
        if (pos_ != length_) return fail("text after the top-level value");
        return true;
    }

    uint32_t node_count() const { return static_cast<uint32_t>(node_count_); }

private:
    bool at_end() const { return pos_ >= length_; }
    unsigned char peek() const { return text_[pos_]; }

    bool fail(const char* what) {
        if (why_ && why_size_ > 0) std::snprintf(why_, why_size_, "at byte %zu: %s", pos_, what);
        return false;
    }

    bool fail_byte(const char* what) {
        if (at_end()) return fail("unexpected end of text");
        if (why_ && why_size_ > 0)
            std::snprintf(why_, why_size_, "at byte %zu: %s (byte 0x%02x)", pos_, what, peek());
        return false;
    }

    // RFC 8259's four whitespace bytes, nothing else (no NUL, no form feed, no BOM).
    void skip_whitespace() {
        while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
    }

    // A fresh node; the capacity bound (max_value_count) makes running out a parser bug,
    // still refused rather than written past.
    bool new_node(JsonType type, uint32_t* index) {
        if (node_count_ >= node_capacity_) return fail("more values than the text can hold (reader bug)");
        *index = static_cast<uint32_t>(node_count_++);
        nodes_[*index] = JsonNode();
        nodes_[*index].type = type;
        return true;
    }

    bool parse_value(int depth, uint32_t* index) {
        skip_whitespace();
        if (at_end()) return fail("unexpected end of text, expected a value");
        const unsigned char c = peek();
        if (c == '{') return parse_object(depth, index);
        if (c == '[') return parse_array(depth, index);
        if (c == '"') return parse_string_value(index);
        if (c == '-' || is_digit(c)) return parse_number(index);
        if (c == 't') return parse_literal("true", JsonType::true_value, index);
        if (c == 'f') return parse_literal("false", JsonType::false_value, index);
        if (c == 'n') return parse_literal("null", JsonType::null_value, index);
        return fail_byte("expected a value");
    }

    bool parse_literal(const char* word, JsonType type, uint32_t* index) {
        const size_t n = std::strlen(word);
        if (length_ - pos_ < n || std::memcmp(text_ + pos_, word, n) != 0) return fail_byte("invalid literal");
        pos_ += n;
        return new_node(type, index);
    }

    // Checks the number grammar -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? by hand
    // (strtod alone would take hex, "inf", "nan", "1.", leading '+'), then converts.
    bool parse_number(uint32_t* index) {
        const size_t start = pos_;
        if (peek() == '-') ++pos_;
        if (at_end() || !is_digit(peek())) return fail_byte("expected a digit");
        if (peek() == '0') {
            ++pos_;
            if (!at_end() && is_digit(peek())) return fail("leading zero in a number");
        } else {
            while (!at_end() && is_digit(peek())) ++pos_;
        }
        if (!at_end() && peek() == '.') {
            ++pos_;
            if (at_end() || !is_digit(peek())) return fail_byte("expected a digit after '.'");
            while (!at_end() && is_digit(peek())) ++pos_;
        }
        if (!at_end() && (peek() == 'e' || peek() == 'E')) {
            ++pos_;
            if (!at_end() && (peek() == '+' || peek() == '-')) ++pos_;
            if (at_end() || !is_digit(peek())) return fail_byte("expected a digit in the exponent");
            while (!at_end() && is_digit(peek())) ++pos_;
        }
        double value = 0;
        if (!convert_number(start, pos_ - start, &value)) return false;
        if (!new_node(JsonType::number, index)) return false;
        nodes_[*index].number = value;
        return true;
    }

    // strtod needs a NUL-terminated copy. It goes in the free part of the string area,
    // which always has room: decoded strings never outgrow their source bytes, so the
    // area used so far is at most `start`, leaving length - start + 1 >= digits + 1 bytes.
    bool convert_number(size_t start, size_t digits, double* value) {
        if (strings_used_ + digits + 1 > length_ + 1) return fail("no room to convert a number (reader bug)");
        const locale_t c = c_locale();
        if (c == static_cast<locale_t>(nullptr)) return fail("cannot convert numbers (no C locale)");
        char* copy = strings_ + strings_used_;
        std::memcpy(copy, text_ + start, digits);
        copy[digits] = '\0';
        char* end = nullptr;
        *value = strtod_l(copy, &end, c);
        if (end != copy + digits) return fail("number not converted whole (reader bug)");
        if (!std::isfinite(*value)) return fail("number too large for a double");
        return true;
    }

    bool parse_string_value(uint32_t* index) {
        uint32_t offset = 0, length = 0;
        if (!parse_string(&offset, &length)) return false;
        if (!new_node(JsonType::string, index)) return false;
        nodes_[*index].string_offset = offset;
        nodes_[*index].string_length = length;
        return true;
    }

    // Decodes the string at the cursor (which is on its opening quote) into the string area.
    bool parse_string(uint32_t* offset, uint32_t* length) {
        if (at_end() || peek() != '"') return fail_byte("expected a string");
        ++pos_;
        const size_t begin = strings_used_;
        for (;;) {
            if (at_end()) return fail("unterminated string");
            const unsigned char c = peek();
            if (c == '"') break;
            if (c < 0x20) return fail_byte("control character in a string");
            if (c == '\\') {
                if (!parse_escape()) return false;
            } else if (c < 0x80) {
                strings_[strings_used_++] = static_cast<char>(c);
                ++pos_;
            } else if (!copy_utf8_sequence()) {
                return false;
            }
        }
        ++pos_;  // the closing quote
        *offset = static_cast<uint32_t>(begin);
        *length = static_cast<uint32_t>(strings_used_ - begin);
        return true;
    }

    bool copy_utf8_sequence() {
        const size_t n = utf8_sequence_length(text_ + pos_, length_ - pos_);
        if (n == 0) return fail_byte("invalid UTF-8 in a string");
        std::memcpy(strings_ + strings_used_, text_ + pos_, n);
        strings_used_ += n;
        pos_ += n;
        return true;
    }

    // One escape, cursor on the backslash.
    bool parse_escape() {
        ++pos_;
        if (at_end()) return fail("unterminated escape");
        const unsigned char c = peek();
        char simple = 0;
        switch (c) {
            case '"': simple = '"'; break;
            case '\\': simple = '\\'; break;
            case '/': simple = '/'; break;
            case 'b': simple = '\b'; break;
            case 'f': simple = '\f'; break;
            case 'n': simple = '\n'; break;
            case 'r': simple = '\r'; break;
            case 't': simple = '\t'; break;
            case 'u': return parse_unicode_escape();
            default: return fail_byte("invalid escape");
        }
        strings_[strings_used_++] = simple;
        ++pos_;
        return true;
    }

    // Four hex digits after "\u" (cursor on the 'u'); leaves the cursor after them.
    bool read_hex4(uint32_t* unit) {
        ++pos_;
        if (length_ - pos_ < 4) return fail("truncated \\u escape");
        uint32_t v = 0;
        for (size_t i = 0; i < 4; ++i) {
            const int h = hex_value(text_[pos_ + i]);
            if (h < 0) return fail("\\u escape needs four hex digits");
            v = (v << 4) | static_cast<uint32_t>(h);
        }
        pos_ += 4;
        *unit = v;
        return true;
    }

    // \uXXXX, or a surrogate pair \uD8xx\uDCxx for a code point above U+FFFF. A lone
    // surrogate is not a character (it cannot be written as UTF-8), and \u0000 would
    // end the string early for any C reader: both are refused.
    bool parse_unicode_escape() {
        uint32_t unit = 0;
        if (!read_hex4(&unit)) return false;
        uint32_t code_point = unit;
        if (unit >= 0xDC00 && unit <= 0xDFFF) return fail("low surrogate without a high one");
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            if (length_ - pos_ < 2 || text_[pos_] != '\\' || text_[pos_ + 1] != 'u')
                return fail("high surrogate not followed by a low one");
            ++pos_;  // the backslash; read_hex4 steps over the 'u'
            uint32_t low = 0;
            if (!read_hex4(&low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return fail("high surrogate not followed by a low one");
            code_point = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
        }
        if (code_point == 0) return fail("\\u0000 in a string");
        strings_used_ += encode_utf8(code_point, strings_ + strings_used_);
        return true;
    }

    bool open_container(int depth) {
        if (depth >= JsonDocument::kMaxDepth) return fail("nesting deeper than 32 levels");
        ++pos_;  // '[' or '{'
        return true;
    }

    // Appends `child` to `parent`'s children, after `*last` (kNoNode: none yet).
    void link_child(uint32_t parent, uint32_t* last, uint32_t child) {
        if (*last == JsonNode::kNoNode)
            nodes_[parent].first_child = child;
        else
            nodes_[*last].next_sibling = child;
        *last = child;
        ++nodes_[parent].child_count;
    }

    bool parse_array(int depth, uint32_t* index) {
        if (!open_container(depth)) return false;
        if (!new_node(JsonType::array, index)) return false;
        const uint32_t self = *index;
        uint32_t last = JsonNode::kNoNode;
        skip_whitespace();
        if (!at_end() && peek() == ']') {
            ++pos_;
            return true;
        }
        for (;;) {
            uint32_t child = 0;
            if (!parse_value(depth + 1, &child)) return false;
            link_child(self, &last, child);
            skip_whitespace();
            if (at_end()) return fail("unterminated array");
            if (peek() == ']') break;
            if (peek() != ',') return fail_byte("expected ',' or ']' in an array");
            ++pos_;
        }
        ++pos_;
        return true;
    }

    bool parse_object(int depth, uint32_t* index) {
        if (!open_container(depth)) return false;
        if (!new_node(JsonType::object, index)) return false;
        const uint32_t self = *index;
        uint32_t last = JsonNode::kNoNode;
        skip_whitespace();
        if (!at_end() && peek() == '}') {
            ++pos_;
            return true;
        }
        for (;;) {
            uint32_t child = 0;
            if (!parse_member(depth, &child)) return false;
            link_child(self, &last, child);
            skip_whitespace();
            if (at_end()) return fail("unterminated object");
            if (peek() == '}') break;
            if (peek() != ',') return fail_byte("expected ',' or '}' in an object");
            ++pos_;
        }
        ++pos_;
        return check_unique_keys(self);
    }

    // "key": value; the value's node carries the key.
    bool parse_member(int depth, uint32_t* child) {
        skip_whitespace();
        uint32_t key_offset = 0, key_length = 0;
        if (!parse_string(&key_offset, &key_length)) return false;
        skip_whitespace();
        if (at_end() || peek() != ':') return fail_byte("expected ':' after a key");
        ++pos_;
        if (!parse_value(depth + 1, child)) return false;
        nodes_[*child].key_offset = key_offset;
        nodes_[*child].key_length = key_length;
        return true;
    }

    // Runs when an object closes. Its nested objects have all closed before it, so
    // the scratch array is free for this object's member list.
    bool check_unique_keys(uint32_t object) {
        size_t count = 0;
        for (uint32_t m = nodes_[object].first_child; m != JsonNode::kNoNode; m = nodes_[m].next_sibling)
            scratch_[count++] = m;
        sort_members_by_key(scratch_, count, nodes_, strings_);
        for (size_t i = 1; i < count; ++i)
            if (compare_keys(nodes_[scratch_[i - 1]], nodes_[scratch_[i]], strings_) == 0)
                return fail("duplicate key in the object ending here");
        return true;
    }

    const unsigned char* text_;
    size_t length_;
    size_t pos_ = 0;
    JsonNode* nodes_;
    size_t node_capacity_;
    size_t node_count_ = 0;
    uint32_t* scratch_;  // node_capacity_ entries
    char* strings_;      // length_ + 1 bytes
    size_t strings_used_ = 0;
    char* why_;
    size_t why_size_;
};

void write_reason(char* why, size_t why_size, const char* text) {
    if (why && why_size > 0) std::snprintf(why, why_size, "%s", text);
}

}  // namespace

JsonDocument::~JsonDocument() { release(); }

void JsonDocument::release() {
    std::free(nodes_);
    nodes_ = nullptr;
    strings_ = nullptr;
    node_count_ = 0;
}

bool JsonDocument::parse(const char* text, size_t length, char* why, size_t why_size) {
    release();
    out_of_memory_ = false;
    write_reason(why, why_size, "");
    if (text == nullptr && length > 0) {
        write_reason(why, why_size, "no text");
        return false;
    }
    if (length >= kMaxTextBytes) {
        write_reason(why, why_size, "text of 4 GiB or more");
        return false;
    }
    // One block: the nodes, the scratch array for the duplicate-key check (one index
    // per node), then the decoded strings. sizeof(JsonNode) is a multiple of 8, so
    // the scratch array is aligned; the strings need no alignment.
    const size_t capacity = max_value_count(text, length);
    const size_t bytes = capacity * sizeof(JsonNode) + capacity * sizeof(uint32_t) + length + 1;
    void* block = std::malloc(bytes);
    if (block == nullptr) {
        out_of_memory_ = true;
        if (why && why_size > 0) std::snprintf(why, why_size, "out of memory (%zu bytes for the parse)", bytes);
        return false;
    }
    JsonNode* nodes = static_cast<JsonNode*>(block);
    uint32_t* scratch = reinterpret_cast<uint32_t*>(nodes + capacity);
    char* strings = reinterpret_cast<char*>(scratch + capacity);
    Parser parser(text, length, nodes, capacity, scratch, strings, why, why_size);
    if (!parser.parse_document()) {
        std::free(block);
        return false;
    }
    nodes_ = nodes;
    strings_ = strings;
    node_count_ = parser.node_count();
    return true;
}

const JsonNode* JsonDocument::root() const { return node_count_ > 0 ? &nodes_[0] : nullptr; }

const JsonNode* JsonDocument::first_child(const JsonNode* container) const {
    if (!is_object(container) && !is_array(container)) return nullptr;
    return container->first_child == JsonNode::kNoNode ? nullptr : &nodes_[container->first_child];
}

const JsonNode* JsonDocument::next_sibling(const JsonNode* child) const {
    if (child == nullptr || child->next_sibling == JsonNode::kNoNode) return nullptr;
    return &nodes_[child->next_sibling];
}

const JsonNode* JsonDocument::object_get(const JsonNode* object, const char* key) const {
    if (!is_object(object) || key == nullptr) return nullptr;
    const size_t n = std::strlen(key);
    for (const JsonNode* m = first_child(object); m; m = next_sibling(m))
        if (m->key_length == n && std::memcmp(strings_ + m->key_offset, key, n) == 0) return m;
    return nullptr;
}

bool JsonDocument::number(const JsonNode* n, double* value) {
    if (!is_number(n)) return false;
    *value = n->number;
    return true;
}

bool JsonDocument::string_equals(const JsonNode* n, const char* s) const {
    if (!is_string(n) || s == nullptr) return false;
    return std::strlen(s) == n->string_length && std::memcmp(strings_ + n->string_offset, s, n->string_length) == 0;
}

namespace {

// Copies `length` bytes and a NUL if they fit whole; otherwise leaves `out` empty.
bool copy_whole(const char* bytes, size_t length, char* out, size_t out_size) {
    if (out == nullptr || out_size == 0) return false;
    if (length >= out_size) {
        out[0] = '\0';
        return false;
    }
    std::memcpy(out, bytes, length);
    out[length] = '\0';
    return true;
}

}  // namespace

bool JsonDocument::copy_string(const JsonNode* n, char* out, size_t out_size) const {
    if (!is_string(n)) {
        copy_whole("", 0, out, out_size);  // leaves `out` empty, as promised
        return false;
    }
    return copy_whole(strings_ + n->string_offset, n->string_length, out, out_size);
}

bool JsonDocument::copy_key(const JsonNode* member, char* out, size_t out_size) const {
    if (member == nullptr) {
        copy_whole("", 0, out, out_size);
        return false;
    }
    return copy_whole(strings_ + member->key_offset, member->key_length, out, out_size);
}

}  // namespace ridge
