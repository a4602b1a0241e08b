// A short piece of text in a fixed array: what the library keeps instead of
// std::string, because nothing in libridge may allocate through a path that
// can throw (and, built with -fno-exceptions, terminate) when memory runs out.
// Text that does not fit is cut, never overflowed: these are explanations
// for people (RIDGE_VERBOSE), not data.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstring>

namespace ridge {

template <size_t Capacity>
class FixedText {
public:
    FixedText() = default;
    FixedText(const char* text) { set("%s", text); }  // NOLINT: implicit, like a string literal

    const char* c_str() const { return text_; }
    bool empty() const { return text_[0] == '\0'; }
    bool starts_with(const char* prefix) const { return std::strncmp(text_, prefix, std::strlen(prefix)) == 0; }
    bool contains(const char* part) const { return std::strstr(text_, part) != nullptr; }
    bool operator==(const char* other) const { return std::strcmp(text_, other) == 0; }

    // Replaces the text with printf-formatted `format`.
    __attribute__((format(printf, 2, 3))) void set(const char* format, ...) {
        va_list args;
        va_start(args, format);
        std::vsnprintf(text_, Capacity, format, args);
        va_end(args);
    }

    // Appends printf-formatted `format` after what is there.
    __attribute__((format(printf, 2, 3))) void append(const char* format, ...) {
        const size_t used = std::strlen(text_);
        if (used + 1 >= Capacity) return;
        va_list args;
        va_start(args, format);
        std::vsnprintf(text_ + used, Capacity - used, format, args);
        va_end(args);
    }

private:
    char text_[Capacity] = {};
};

}  // namespace ridge
