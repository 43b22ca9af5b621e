// The skynet model: 8 threads, each with its own lua_State, all running the workload at once;
// each digest must equal the one the same workload gave alone. Then the process-wide shared
// objects (soageo.share): one thread publishes versions while 7 others attach, query and release
// them (test/hosts/share_workload.lua). Built plain for `make test` and with ThreadSanitizer
// for `make tsan`.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "host.hpp"

namespace {

std::string run_alone(int size, int seed, int rounds) {
    lua_State* L = luaL_newstate();
    std::string out, err;
    if (!host::prepare(L, &err)) return "prepare failed: " + err;
    for (int r = 0; r < rounds; ++r) {
        std::string d;
        if (host::run(L, size, seed + r, &d) != LUA_OK) d = "error: " + d;
        out += d + ";";
    }
    if (host::check(L, &err) != LUA_OK) out += "check failed: " + err;
    lua_close(L);
    return out;
}

// Calls S.<fn>(a, b) of share_workload.lua in a new lua_State; returns its string or the error.
std::string run_share(const char* fn, int a, int b) {
    lua_State* L = luaL_newstate();
    std::string err;
    if (!host::prepare(L, &err)) return "prepare failed: " + err;
    std::string out;
    if (luaL_dostring(L, "S = require 'share_workload'") != LUA_OK) {
        out = lua_tostring(L, -1);
    } else {
        lua_getglobal(L, "S");
        lua_getfield(L, -1, fn);
        lua_pushinteger(L, a);
        lua_pushinteger(L, b);
        const int rc = lua_pcall(L, 2, 1, 0);
        const char* s = lua_tostring(L, -1);
        out = std::string(rc == LUA_OK ? "" : "error: ") + (s ? s : "(not a string)");
    }
    lua_close(L);
    return out;
}

// One writer publishing `versions` versions, 7 readers; every one must end "ok".
int share_threads(int versions) {
    const int readers = 7;
    std::vector<std::string> got(readers + 1);
    std::vector<std::thread> pool;
    pool.emplace_back([&] { got[0] = run_share("writer", versions, 0); });
    for (int t = 1; t <= readers; ++t) pool.emplace_back([&, t] { got[t] = run_share("reader", versions, t); });
    for (std::thread& th : pool) th.join();
    int failed = 0, checks = 0;
    for (int t = 1; t <= readers; ++t)
        if (got[t].compare(0, 3, "ok ") == 0) checks += std::atoi(got[t].c_str() + 3);
    for (int t = 0; t <= readers; ++t)
        if (got[t].compare(0, 2, "ok") != 0) {
            std::printf("threads: share %s %d: %s\n", t ? "reader" : "writer", t, got[t].c_str());
            ++failed;
        }
    const std::string after = run_share("check", versions, 0);
    if (after != "ok") {
        std::printf("threads: share check: %s\n", after.c_str());
        ++failed;
    }
    std::printf("threads: share: 1 writer x %d versions, %d readers attaching, querying and releasing (%d views checked): %s\n",
                versions, readers, checks, failed ? "FAILED" : "answers equal, no holder left");
    return failed;
}

}  // namespace

int main(int argc, char** argv) {
    const int threads = 8, size = argc > 1 ? std::atoi(argv[1]) : 300, rounds = 3;
    std::vector<std::string> want(threads), got(threads);
    for (int t = 0; t < threads; ++t) want[t] = run_alone(size, 100 + t, rounds);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { got[t] = run_alone(size, 100 + t, rounds); });
    for (std::thread& th : pool) th.join();
    int passed = 0, failed = 0;
    for (int t = 0; t < threads; ++t) {
        bool ok = got[t] == want[t] && want[t].find("error") == std::string::npos &&
                  want[t].find("failed") == std::string::npos;
        if (!ok) std::printf("threads: thread %d: alone %s, concurrent %s\n", t, want[t].c_str(), got[t].c_str());
        ok ? ++passed : ++failed;
    }
    std::printf("threads: %d threads x %d rounds, each with its own lua_State, digests equal to the solo runs\n", threads, rounds);
    share_threads(40) ? ++failed : ++passed;
    std::printf("threads: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
