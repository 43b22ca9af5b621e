// The skynet model: 8 threads, each with its own lua_State, all running the workload at once;
// each digest must equal the one the same workload gave alone. Built plain for `make test`
// and with ThreadSanitizer for `make tsan`.
#include <cstdio>
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
    std::printf("threads: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
