// A minimal test harness for the core: it has to build for aarch64 under qemu too, where
// Debian ships no GoogleTest, so it depends on nothing but the standard library.
#pragma once

#include <cstdio>
#include <vector>

namespace check {

struct Case {
    const char* name;
    void (*run)();
};

inline std::vector<Case>& cases() {
    static std::vector<Case> all;  // filled by static initialisers before main; test-only
    return all;
}

inline int& failures() {
    static int n = 0;
    return n;
}

struct Register {
    Register(const char* name, void (*run)()) { cases().push_back({name, run}); }
};

}  // namespace check

#define TEST_CASE(name)                                            \
    static void name();                                            \
    static const check::Register name##_registered(#name, name);   \
    static void name()

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            std::printf("  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);        \
            ++check::failures();                                                         \
        }                                                                                \
    } while (0)

#define CHECK_MSG(cond, ...)                                                             \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            std::printf("  %s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);        \
            std::printf(__VA_ARGS__);                                                    \
            std::printf("\n");                                                           \
            ++check::failures();                                                         \
        }                                                                                \
    } while (0)
