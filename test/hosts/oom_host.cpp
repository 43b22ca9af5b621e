// Out-of-memory test host: runs the workload with an allocator that fails from the k-th
// allocation on, for k = 1, 2, ... until the workload completes. Every failure must surface as a
// Lua "not enough memory" error; afterwards every layer and aoi the workload touched must be
// consistent and usable (W.check), and closing the state must free every byte.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "host.hpp"

namespace {

struct Budget {
    size_t live = 0;        // bytes currently allocated
    long long count = 0;    // allocations since armed
    long long fail_at = 0;  // 0: never fail
    bool armed = false;
};

void* limited_alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
    auto* b = static_cast<Budget*>(ud);
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        b->live -= old;
        std::free(ptr);
        return nullptr;
    }
    // From the k-th growing allocation on, every one fails (a single failure is absorbed by
    // Lua's emergency collection and retry, so it would never reach soageo's code).
    if (b->armed && nsize > old && ++b->count >= b->fail_at) return nullptr;
    void* p = std::realloc(ptr, nsize);
    if (p) b->live = b->live - old + nsize;
    return p;
}


// Returns the k at which the workload of `size` entities completed; counts into passed/failed.
long long exhaust(int size, int& passed, int& failed) {
    long long k = 1;
    for (;; ++k) {
        Budget b;
        lua_State* L = lua_newstate(limited_alloc, &b);
        std::string msg;
        if (!L || !host::prepare(L, &msg)) {
            std::printf("oom: cannot prepare the state: %s\n", msg.c_str());
            ++failed;
            return k;
        }
        b.armed = true;
        b.count = 0;
        b.fail_at = k;
        int rc = host::run(L, size, 42, &msg);
        b.armed = false;
        bool ok = true;
        if (rc != LUA_OK && msg.find("not enough memory") == std::string::npos) {
            std::printf("oom: k=%lld: unexpected error: %s\n", k, msg.c_str());
            ok = false;
        }
        std::string why;
        if (host::check(L, &why) != LUA_OK) {
            std::printf("oom: k=%lld: inconsistent after the failure: %s\n", k, why.c_str());
            ok = false;
        }
        lua_close(L);
        if (b.live != 0) {
            std::printf("oom: k=%lld: %zu bytes leaked\n", k, b.live);
            ok = false;
        }
        ok ? ++passed : ++failed;
        if (rc == LUA_OK) return k;  // the workload completed: every allocation point was hit
    }
}

}  // namespace

int main(int argc, char** argv) {
    int passed = 0, failed = 0;
    std::vector<int> sizes = {8, 24, 100, 400};
    if (argc > 1) sizes = {std::atoi(argv[1])};
    for (int size : sizes) {
        long long k = exhaust(size, passed, failed);
        std::printf("oom: %d entities: the workload completed at k=%lld; every earlier k failed as a Lua error\n", size, k);
    }
    std::printf("oom: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
