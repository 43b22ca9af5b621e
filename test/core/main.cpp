#include <cstdio>

#include "check.hpp"
#include "fixtures.hpp"

int main() {
    std::printf("core: targets compared with the scalar reference:");
    for (const soageo::KernelTable* k : fixture::targets()) std::printf(" %s", k->name);
    std::printf("\n");
    int passed = 0, failed = 0;
    for (const check::Case& c : check::cases()) {
        int before = check::failures();
        c.run();
        if (check::failures() == before) {
            ++passed;
        } else {
            ++failed;
            std::printf("FAIL %s\n", c.name);
        }
    }
    std::printf("core: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
