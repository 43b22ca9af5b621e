# soageo: a Lua 5.4/5.5 module with a C++17 core. `make` builds soageo/core.so.
#
# Switches (override on the command line: make LUA_INCDIR=$SKYNET/3rd/lua):
#   LUA          Lua interpreter for tests, demo and benchmarks   (lua5.4)
#   LUA_INCDIR   directory holding lua.h / lua.hpp of the Lua that will load the module
#                (pkg-config's lua5.4; skynet users: $SKYNET/3rd/lua). Another Lua's module is
#                built in build/lua<release>-<hash>/ (printed), not in ./soageo/core.so
#   CXX          C++17 compiler                                    (g++)
#   CFLAGS       optimisation and position-independent code; LuaRocks passes its own (-O2 -fPIC)
#   LIBFLAG      flags that make a loadable module                 (-shared)
#   INST_LIBDIR  where `make install` puts soageo/core.so (LuaRocks sets it)
#   INST_LUADIR  where `make install` puts soageo.lua     (LuaRocks sets it)
#   DESTDIR      staging root prepended to both by `make install` (empty)
#   TARGETS      SIMD targets compiled in (default: all this CPU family has; scalar is always built)
#   FUZZ_SECONDS bounded time of each fuzz target under `make fuzz`
#   BENCH_DOC    where `make bench` and `make world` write their report (doc/benchmarks.md)
#   BENCH_README whose headline figures `make bench` rewrites from that report (README.md when
#                BENCH_DOC is doc/benchmarks.md, else none)
#   JOBS         spec files `make test` runs at once                  (the number of CPUs)
#
# Targets: all module-dir test test-long core-test bench bench-box2d demo scene world install clean asan tsan valgrind fuzz fuzz-short
#          fuzz-corpus test-neon test-neon-lua test-lua test-skynet deps run-deps

LUA          ?= lua5.4
LUA54_INCDIR := $(shell pkg-config --variable=includedir lua5.4 2>/dev/null || echo /usr/include)/lua5.4
LUA_INCDIR   ?= $(LUA54_INCDIR)
CXX          ?= g++
CFLAGS       ?= -O2 -fPIC
LIBFLAG      ?= -shared
INST_LIBDIR  ?= /usr/local/lib/lua/5.4
INST_LUADIR  ?= /usr/local/share/lua/5.4
FUZZ_SECONDS ?= 20
BENCH_DOC    ?= doc/benchmarks.md
BENCH_README ?= $(if $(filter doc/benchmarks.md,$(BENCH_DOC)),README.md,)
# `make -n` still runs a recipe line that names $(MAKE): the reports then only say what they would do.
DRY_RUN      := $(findstring n,$(firstword -$(MAKEFLAGS)))
JOBS         ?=

MACHINE := $(shell $(CXX) -dumpmachine 2>/dev/null)
ifneq (,$(findstring x86_64,$(MACHINE)))
TARGETS ?= sse2 avx2 avx512
else ifneq (,$(findstring aarch64,$(MACHINE)))
TARGETS ?= neon
else
TARGETS ?=
endif

# Not negotiable, whatever CFLAGS says: exact float semantics (no FMA contraction, errno-free
# sqrt), hidden symbols with only luaopen_soageo_core exported, warnings on.
SOAGEO_FLAGS := -std=c++17 -ffp-contract=off -fno-math-errno -fvisibility=hidden \
                -fvisibility-inlines-hidden -Wall -Wextra
TARGET_FLAGS_scalar := -fno-tree-vectorize -fno-tree-slp-vectorize
TARGET_FLAGS_sse2   := -msse2
TARGET_FLAGS_avx2   := -mavx2 -mpopcnt
TARGET_FLAGS_avx512 := -mavx512f -mpopcnt
TARGET_FLAGS_neon   :=
HAVE_FLAGS := $(foreach t,$(TARGETS),-DSOAGEO_HAVE_$(shell echo $(t) | tr a-z A-Z))

BUILD    := build
CORE_SRC := $(filter-out csrc/core/target_%.cpp,$(wildcard csrc/core/*.cpp))
LUA_SRC  := $(wildcard csrc/lua/*.cpp)
CORE_OBJ := $(CORE_SRC:csrc/%.cpp=$(BUILD)/%.o) $(foreach t,scalar $(TARGETS),$(BUILD)/core/target_$(t).o)
HEADERS  := $(wildcard csrc/core/*.hpp csrc/core/*.inl csrc/lua/*.hpp)

# A LUA_INCDIR other than the default (a skynet's Lua) builds the binding and the module in a
# directory of their own, named after that Lua's release and its headers' directory, so that
# ./soageo/core.so, which the specs and `lua5.4` in the checkout load, stays the default Lua's
# (a skynet build used to overwrite it). The core has no Lua in it: its objects are shared.
# An explicit BUILD, LUA_BUILD or MODULE (test-skynet, asan, world-stage...) is used as given.
incdir_key = $(or $(realpath $(1)),$(abspath $(1)))
ifneq ($(call incdir_key,$(LUA_INCDIR)),$(call incdir_key,$(LUA54_INCDIR)))
ifeq ($(origin BUILD),file)
OTHER_LUA := yes
endif
endif
ifdef OTHER_LUA
ifeq (,$(wildcard $(LUA_INCDIR)/lua.h))
$(error LUA_INCDIR=$(LUA_INCDIR) holds no lua.h)
endif
# The release as lua.h computes it (5.5 derives it from numbers, 5.4 spells it out).
LUA_RELEASE := $(shell v=$$(printf '\043include "lua.h"\nLUA_VERSION_RELEASE_NUM\n' | $(CXX) -E -P -I'$(LUA_INCDIR)' -x c - 2>/dev/null | tail -n 1); \
                 v=$$(($${v:-0})); echo $$((v / 10000)).$$((v / 100 % 100)).$$((v % 100)))
LUA_BUILD ?= $(BUILD)/lua$(LUA_RELEASE)-$(shell printf '%s' '$(call incdir_key,$(LUA_INCDIR))' | cksum | cut -d' ' -f1)
MODULE   := $(LUA_BUILD)/soageo/core.so
# Said after every build and install, with lualib/ and examples/ linked beside the module:
# that directory is what examples/skynet's configs take as SOAGEO.
define say_module
	@ln -sfn $(CURDIR)/lualib $(LUA_BUILD)/lualib
	@ln -sfn $(CURDIR)/examples $(LUA_BUILD)/examples
	@echo "soageo: built for Lua $(LUA_RELEASE) ($(LUA_INCDIR)): $(MODULE)"
	@echo "soageo: ./soageo/core.so stays the default Lua's; examples/skynet: SOAGEO=$(CURDIR)/$(LUA_BUILD)"
endef
else
LUA_BUILD ?= $(BUILD)# the binding's objects (test-skynet shares one core between two Luas)
MODULE   := soageo/core.so
endif
LUA_OBJ  := $(LUA_SRC:csrc/%.cpp=$(LUA_BUILD)/%.o)

.PHONY: FORCE all module-dir test test-run test-long test-long-run bench bench-run bench-box2d demo demo-run scene scene-run world world-run world-stage world-skynet-proof install clean asan tsan valgrind fuzz test-neon test-neon-lua test-lua fuzz-short fuzz-corpus deps run-deps core-test test-skynet

all: $(MODULE)
	$(say_module)

$(BUILD)/core/target_%.o: csrc/core/target_%.cpp $(HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(CFLAGS) $(SOAGEO_FLAGS) $(TARGET_FLAGS_$*) -c $< -o $@

$(BUILD)/core/%.o: csrc/core/%.cpp $(HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(CFLAGS) $(SOAGEO_FLAGS) $(HAVE_FLAGS) -c $< -o $@

# The binding objects follow LUA_INCDIR: $(LUA_BUILD)/lua-incdir records the directory they were
# built against and is rewritten (so newer than them) only when it changes, so switching to
# another Lua rebuilds them instead of answering "Nothing to be done".
LUA_STAMP := $(LUA_BUILD)/lua-incdir
$(LUA_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(LUA_INCDIR)' | cmp -s - $@ || echo '$(LUA_INCDIR)' > $@
FORCE:

$(LUA_BUILD)/lua/%.o: csrc/lua/%.cpp $(HEADERS) $(LUA_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(CFLAGS) $(SOAGEO_FLAGS) -I$(LUA_INCDIR) -c $< -o $@

# No -llua: the module resolves Lua's symbols from the process that loads it. -ldl: dladdr and
# dlopen pin the module on its first share (csrc/core/shared.cpp); glibc before 2.34 needs it.
$(MODULE): $(CORE_OBJ) $(LUA_OBJ)
	@mkdir -p $(dir $@)
	$(CXX) $(LIBFLAG) $(CFLAGS) -o $@ $^ -ldl

# The core's invariants (SOAGEO_ASSERT, csrc/core/invariant.hpp) are checked in the core test,
# asan and fuzz builds and compiled out of the module: the core test links its own checked
# objects ($(BUILD)/checked/).
CHECKED_OBJ := $(CORE_OBJ:$(BUILD)/%=$(BUILD)/checked/%)
$(BUILD)/checked/core/target_%.o: csrc/core/target_%.cpp $(HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(CFLAGS) -DSOAGEO_CHECKS $(SOAGEO_FLAGS) $(TARGET_FLAGS_$*) -c $< -o $@

$(BUILD)/checked/core/%.o: csrc/core/%.cpp $(HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(CFLAGS) -DSOAGEO_CHECKS $(SOAGEO_FLAGS) $(HAVE_FLAGS) -c $< -o $@

# C++ tests of the core: no Lua involved.
CORE_TEST_SRC := $(wildcard test/core/*.cpp)
$(BUILD)/core_test: $(CORE_TEST_SRC) $(CHECKED_OBJ) $(wildcard test/core/*.hpp)
	$(CXX) $(CFLAGS) -DSOAGEO_CHECKS $(SOAGEO_FLAGS) $(HAVE_FLAGS) -Icsrc -o $@ $(CORE_TEST_SRC) $(CHECKED_OBJ) -ldl -pthread

# The core tests alone, e.g. after a change to csrc/core/ (make test runs them too).
core-test: $(BUILD)/core_test
	$(BUILD)/core_test

# Test hosts embedding Lua 5.4 (linked here only: the module itself never links liblua).
LUA_LIBS ?= $(shell pkg-config --libs lua5.4 2>/dev/null || echo -llua5.4)
$(BUILD)/%_host: test/hosts/%_host.cpp test/hosts/host.hpp $(CORE_OBJ) $(LUA_OBJ)
	$(CXX) $(CFLAGS) $(SOAGEO_FLAGS) -I$(LUA_INCDIR) -o $@ $< $(CORE_OBJ) $(LUA_OBJ) $(LUA_LIBS) -ldl -pthread

deps:
	@sh .ci/deps.sh
# What the examples need, without the test tools (busted, luarocks, objdump).
run-deps:
	@sh .ci/deps.sh run

# test, demo, scene, world and bench install missing packages first, then run make again: on a fresh
# machine this Makefile was read before g++ existed, so it could not see the SIMD targets.
test: deps
	@$(MAKE) --no-print-directory test-run
test-run: $(MODULE) $(BUILD)/core_test $(BUILD)/oom_host $(BUILD)/thread_host
	@JOBS=$(JOBS) LUA=$(LUA) BUILD=$(BUILD) sh test/run.sh

# The same suites with the soaks at their long sizes (test/long.lua); CI runs it after make test.
test-long: deps
	@$(MAKE) --no-print-directory test-long-run
test-long-run: $(MODULE) $(BUILD)/core_test $(BUILD)/oom_host $(BUILD)/thread_host
	@SOAGEO_LONG=1 JOBS=$(JOBS) LUA=$(LUA) BUILD=$(BUILD) sh test/run.sh

demo: run-deps
	@$(MAKE) --no-print-directory demo-run
demo-run: $(MODULE)
	$(LUA) examples/skill_cone.lua

# The scene simulation (examples/scene): ENTITIES and TICKS default to 5,000 and 100.
scene: run-deps
	@$(MAKE) --no-print-directory scene-run
scene-run: $(MODULE)
	$(LUA) examples/scene_sim.lua $(ENTITIES) $(TICKS)

# A world larger than one service (examples/world/): WORLD_ENTITIES (100,000) for WORLD_TICKS (20)
# on WORLD_COLS x WORLD_ROWS regions (2x2), as one layer and as regions side by side.
WORLD_ENTITIES ?= 100000
WORLD_TICKS    ?= 20
WORLD_COLS     ?= 2
WORLD_ROWS     ?= 2
world: run-deps
	@if [ -n "$(SKYNET)" ] && [ -n "$(DRY_RUN)" ]; then echo "would run: $(LUA) bench/world_report.lua '$(MAKE) world-run' $(BENCH_DOC)"; \
	elif [ -n "$(SKYNET)" ]; then SKYNET=$(abspath $(SKYNET)) $(LUA) bench/world_report.lua "$(MAKE) --no-print-directory world-run" $(BENCH_DOC); \
	else $(MAKE) --no-print-directory world-run; fi
# With SKYNET=<a built skynet tree> it also runs them as skynet services (one service vs the
# region services, thread = 2): examples/skynet/world/run.sh bench, against a module built for
# that skynet's Lua in build-world/<tree>/, then the proof scene over two nodes (run.sh
# cluster); it prints the targets with their verdicts and the load average, and writes them as
# a section of doc/benchmarks.md (bench/world_report.lua). `make world-skynet-proof SKYNET=...`
# runs the proof there: one node, and two nodes through cluster on 127.0.0.1.
world-run: $(MODULE)
	$(LUA) examples/world_sim.lua $(WORLD_ENTITIES) $(WORLD_TICKS) $(WORLD_COLS) $(WORLD_ROWS)
	@if [ -n "$(SKYNET)" ]; then $(MAKE) --no-print-directory world-stage && \
	    SKYNET=$(abspath $(SKYNET)) SOAGEO=$(CURDIR)/$(WORLD_STAGE) WORLD_ENTITIES=$(WORLD_ENTITIES) \
	    WORLD_TICKS=$(WORLD_TICKS) WORLD_COLS=$(WORLD_COLS) WORLD_ROWS=$(WORLD_ROWS) sh examples/skynet/world/run.sh bench && \
	    SKYNET=$(abspath $(SKYNET)) SOAGEO=$(CURDIR)/$(WORLD_STAGE) sh examples/skynet/world/run.sh cluster; \
	else echo "make world: add SKYNET=/path/to/skynet (a built tree) to run the regions as skynet services too"; fi
WORLD_STAGE = build-world/$(notdir $(abspath $(SKYNET)))
world-stage:
	@test -x "$(SKYNET)/skynet" -a -f "$(SKYNET)/3rd/lua/lua.h" || { echo "SKYNET=$(SKYNET) is not a built skynet tree" >&2; exit 2; }
	@$(MAKE) --no-print-directory BUILD=$(WORLD_STAGE) MODULE=$(WORLD_STAGE)/soageo/core.so \
	    LUA_INCDIR=$(abspath $(SKYNET))/3rd/lua $(WORLD_STAGE)/soageo/core.so
	@ln -sfn $(CURDIR)/lualib $(WORLD_STAGE)/lualib
	@ln -sfn $(CURDIR)/examples $(WORLD_STAGE)/examples
world-skynet-proof: world-stage
	SKYNET=$(abspath $(SKYNET)) SOAGEO=$(CURDIR)/$(WORLD_STAGE) sh examples/skynet/world/run.sh proof
	SKYNET=$(abspath $(SKYNET)) SOAGEO=$(CURDIR)/$(WORLD_STAGE) sh examples/skynet/world/run.sh cluster

# bench also writes this machine's section of doc/benchmarks.md (one per CPU model, the others kept)
# from what the programs print, with the verdicts of bench/targets.lua (bench/report.lua), and the
# README's headline figures from that section (bench/report_headlines.lua).
bench: deps
	@$(if $(DRY_RUN),echo "would run: $(LUA) bench/report.lua '$(MAKE) bench-run' $(BENCH_DOC) $(BENCH_README)",\
	CXX="$(CXX)" LUA="$(LUA)" $(LUA) bench/report.lua "$(MAKE) --no-print-directory bench-run" $(BENCH_DOC) $(BENCH_README))
bench-run: $(MODULE) $(BUILD)/bench_kernels $(BUILD)/bench_shapes $(BUILD)/bench_pairs $(BUILD)/bench_snapshot $(BUILD)/bench_index \
           $(BUILD)/bench_layout
	$(BUILD)/bench_kernels
	$(LUA) bench/bench_lua.lua
	$(BUILD)/bench_shapes
	$(LUA) bench/bench_shapes_lua.lua
	$(BUILD)/bench_pairs
	$(LUA) bench/bench_pairs_lua.lua
	$(LUA) bench/bench_moves_lua.lua
	$(LUA) bench/bench_interest_lua.lua
	$(BUILD)/bench_snapshot
	$(BUILD)/bench_index
	$(LUA) bench/bench_index_lua.lua
	$(LUA) bench/bench_history_lua.lua
	$(LUA) bench/bench_share_lua.lua
	$(BUILD)/bench_layout
	@if [ -n "$(BOX2D)" ]; then $(MAKE) --no-print-directory bench-box2d; fi
	$(LUA) bench/bench_walls_lua.lua

# Walls against Box2D v3 (bench/bench_box2d.cpp), natively: make bench-box2d BOX2D=<a Box2D v3
# source directory> (e.g. a checkout of github.com/erincatto/box2d at v3.1.1). Box2D is built
# with CMake in $(BUILD)/box2d, outside the sources; `make bench BOX2D=<dir>` runs it too.
bench-box2d: $(CORE_OBJ)
	@test -f "$(BOX2D)/include/box2d/box2d.h" || { echo "make bench-box2d: BOX2D=$(BOX2D) is not a Box2D v3 source directory" >&2; exit 2; }
	cmake -S "$(BOX2D)" -B $(BUILD)/box2d -DCMAKE_BUILD_TYPE=Release -DBOX2D_SAMPLES=OFF -DBOX2D_UNIT_TESTS=OFF \
	    -DBOX2D_BENCHMARKS=OFF -DBOX2D_VALIDATE=OFF -DBOX2D_DOCS=OFF > /dev/null
	cmake --build $(BUILD)/box2d -j2 > /dev/null
	$(CXX) $(CFLAGS) $(SOAGEO_FLAGS) -Icsrc -I"$(BOX2D)/include" -o $(BUILD)/bench_box2d bench/bench_box2d.cpp \
	    $(CORE_OBJ) $(BUILD)/box2d/src/libbox2d.a -lm -pthread
	$(BUILD)/bench_box2d

# The benchmarks' streaming ceiling (bench/stream_probe.cpp), compiled per target like the
# kernels, linked into the benchmarks only.
WIDE_sse2   := -DSOAGEO_WIDE_SSE2
WIDE_avx2   := -DSOAGEO_WIDE_AVX2
WIDE_avx512 := -DSOAGEO_WIDE_AVX512
WIDE_neon   := -DSOAGEO_WIDE_NEON
STREAM_OBJ  := $(foreach t,scalar $(TARGETS),$(BUILD)/bench/stream_$(t).o)
.SECONDARY: $(STREAM_OBJ)
$(BUILD)/bench/stream_%.o: bench/stream_probe.cpp $(HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(CFLAGS) $(SOAGEO_FLAGS) $(TARGET_FLAGS_$*) -DSOAGEO_TARGET=$* $(WIDE_$*) -Icsrc -c $< -o $@

$(BUILD)/bench_%: bench/bench_%.cpp bench/bench.hpp $(CORE_OBJ) $(STREAM_OBJ)
	$(CXX) $(CFLAGS) $(SOAGEO_FLAGS) $(HAVE_FLAGS) -Icsrc -o $@ $< $(CORE_OBJ) $(STREAM_OBJ) -ldl -pthread

# Where soageo/core.so for LUA_INCDIR is (lualib/ and examples/ beside it once built): what
# examples/skynet's configs take as SOAGEO: SOAGEO=$(make -s module-dir LUA_INCDIR=$SKYNET/3rd/lua)
module-dir:
	@echo $(CURDIR)$(if $(OTHER_LUA),/$(LUA_BUILD))

# DESTDIR (empty by default) prefixes both, for staging a package: make install DESTDIR=/tmp/stage
install: $(MODULE)
	$(say_module)
	mkdir -p $(DESTDIR)$(INST_LIBDIR)/soageo $(DESTDIR)$(INST_LUADIR)
	cp $(MODULE) $(DESTDIR)$(INST_LIBDIR)/soageo/core.so
	cp lualib/soageo.lua $(DESTDIR)$(INST_LUADIR)/soageo.lua

# aarch64 NEON path: cross-built core test run under qemu (static, so no target sysroot needed).
test-neon:
	@sh .ci/deps.sh neon
	$(MAKE) --no-print-directory BUILD=build-neon CXX=aarch64-linux-gnu-g++ CFLAGS="-O2 -static" \
	    TARGETS=neon build-neon/core_test
	qemu-aarch64 build-neon/core_test

# The specs on aarch64 too (NEON_SPECS, default every spec), in quick mode (test/quick.lua),
# under qemu: a Lua 5.4 cross-built from the 3rd/lua of a skynet tree (NEON_LUA_SKYNET: one that
# ../shared/skynet/build.sh made, as CI passes build/skynet/v1.8.0; its sources stay there), the
# module cross-built against it, both run with the aarch64 libraries Debian's cross compiler
# brings, by test/mini_busted.lua. Ends with one line "Lua 5.4: N passed, N failed".
NEON_SPECS ?= $(wildcard test/*_spec.lua)
NEON_LUA = build-neon-lua/interp
test-neon-lua:
	@sh .ci/deps.sh neon
	@if [ ! -f "$(NEON_LUA_SKYNET)/3rd/lua/lua.h" ]; then \
	    echo "test-neon-lua: NEON_LUA_SKYNET=/path/to/skynet (a tree with 3rd/lua and skynet-src) is needed"; exit 2; fi
	rm -rf $(NEON_LUA) && mkdir -p $(NEON_LUA)
	cp $(NEON_LUA_SKYNET)/3rd/lua/*.c $(NEON_LUA_SKYNET)/3rd/lua/*.h $(NEON_LUA_SKYNET)/3rd/lua/*.hpp \
	    $(NEON_LUA_SKYNET)/3rd/lua/makefile $(NEON_LUA)/
	$(MAKE) --no-print-directory -C $(NEON_LUA) linux CC="aarch64-linux-gnu-gcc -std=gnu99" \
	    AR="aarch64-linux-gnu-ar rcu" RANLIB=aarch64-linux-gnu-ranlib \
	    MYCFLAGS="-I$(abspath $(NEON_LUA_SKYNET))/skynet-src" > $(NEON_LUA)/build.log
	$(MAKE) --no-print-directory BUILD=build-neon-lua MODULE=build-neon-lua/soageo/core.so \
	    CXX=aarch64-linux-gnu-g++ CFLAGS="-O2 -fPIC" TARGETS=neon LUA_INCDIR=$(NEON_LUA) build-neon-lua/soageo/core.so
	SOAGEO_QUICK=1 SOAGEO_CPATH="build-neon-lua/?.so;" SOAGEO_SPEC_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu" \
	    qemu-aarch64 -L /usr/aarch64-linux-gnu $(NEON_LUA)/lua test/mini_busted.lua $(NEON_SPECS)

# Sanitizers. asan: AddressSanitizer + UBSan (no recovery) over the core tests, the OOM and
# thread hosts, and the whole busted suite (the interpreter is not instrumented, so libasan is
# preloaded into it). tsan: the thread host under ThreadSanitizer. valgrind: the busted suite
# under memcheck (SOAGEO_QUICK=1 shrinks the random scenes: memcheck runs ~30x slower).
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -DSOAGEO_CHECKS
asan:
	@sh .ci/deps.sh
	$(MAKE) --no-print-directory BUILD=build-asan MODULE=build-asan/soageo/core.so CFLAGS="-O1 -fPIC $(SAN_FLAGS)" \
	    build-asan/soageo/core.so build-asan/core_test build-asan/oom_host build-asan/thread_host
	build-asan/core_test
	ASAN_OPTIONS=detect_leaks=1 build-asan/oom_host
	ASAN_OPTIONS=detect_leaks=1 build-asan/thread_host
	LD_PRELOAD="$$($(CXX) -print-file-name=libasan.so) $$($(CXX) -print-file-name=libubsan.so)" \
	    ASAN_OPTIONS=detect_leaks=0 busted --lua=$(LUA) --cpath="build-asan/?.so" -o plainTerminal

tsan:
	$(MAKE) --no-print-directory BUILD=build-tsan MODULE=build-tsan/soageo/core.so \
	    CFLAGS="-O1 -fPIC -fsanitize=thread -g" build-tsan/thread_host
	TSAN_OPTIONS=halt_on_error=1 build-tsan/thread_host

valgrind: $(MODULE)
	@sh .ci/deps.sh extra
	SOAGEO_QUICK=1 valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
	    $(LUA) test/mini_busted.lua $(wildcard test/*_spec.lua)

# libFuzzer (clang): fuzz/<name>_fuzz.cpp. `make fuzz` runs each for FUZZ_SECONDS over its
# tracked corpus fuzz/corpus/<name>/ and writes new inputs and crash artifacts to fuzz/finds/<name>/
# (ignored by git), so a run leaves the checkout clean; CI runs `make fuzz-short`.
# `make fuzz-corpus` merges what fuzz/finds/ found into the tracked corpus (on purpose only).
FUZZ_CXX     ?= clang++
FUZZ_TARGETS := kernels load api merge aoi
FUZZ_CFLAGS  := -O1 -g -fPIC -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -DSOAGEO_CHECKS
$(BUILD)/fuzz_%: fuzz/%_fuzz.cpp $(wildcard fuzz/*.hpp) $(CORE_OBJ) $(LUA_OBJ)
	$(CXX) $(CFLAGS) $(SOAGEO_FLAGS) $(HAVE_FLAGS) -fsanitize=fuzzer -Icsrc -I$(LUA_INCDIR) -o $@ $< \
	    $(CORE_OBJ) $(LUA_OBJ) $(LUA_LIBS) -ldl -pthread

fuzz:
	@sh .ci/deps.sh extra
	$(MAKE) --no-print-directory BUILD=build-fuzz MODULE=build-fuzz/soageo/core.so CXX=$(FUZZ_CXX) \
	    CFLAGS="$(FUZZ_CFLAGS)" $(FUZZ_TARGETS:%=build-fuzz/fuzz_%)
	for t in $(FUZZ_TARGETS); do \
	    mkdir -p fuzz/corpus/$$t fuzz/finds/$$t; \
	    build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=fuzz/finds/$$t/ \
	        fuzz/finds/$$t fuzz/corpus/$$t > build-fuzz/$$t.log 2>&1; \
	    status=$$?; echo "fuzz_$$t:"; grep -E "^#[0-9]+ +DONE|stat::number_of_executed_units" build-fuzz/$$t.log; \
	    if [ $$status -ne 0 ]; then tail -n 30 build-fuzz/$$t.log; exit 1; fi; \
	done

fuzz-short:
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=10

fuzz-corpus:
	$(MAKE) --no-print-directory BUILD=build-fuzz MODULE=build-fuzz/soageo/core.so CXX=$(FUZZ_CXX) \
	    CFLAGS="$(FUZZ_CFLAGS)" $(FUZZ_TARGETS:%=build-fuzz/fuzz_%)
	for t in $(FUZZ_TARGETS); do \
	    mkdir -p fuzz/corpus/$$t fuzz/finds/$$t; \
	    build-fuzz/fuzz_$$t -merge=1 fuzz/corpus/$$t fuzz/finds/$$t > build-fuzz/$$t-merge.log 2>&1 || exit 1; \
	done

# The specs on another Lua, e.g. skynet's 5.5, which busted cannot run on (its C helpers are
# built for the packaged 5.4): make test-lua LUA=$SKYNET/3rd/lua/lua LUA_INCDIR=$SKYNET/3rd/lua
test-lua:
	rm -rf build-lua
	$(MAKE) --no-print-directory BUILD=build-lua MODULE=build-lua/soageo/core.so LUA_INCDIR=$(LUA_INCDIR) build-lua/soageo/core.so
	SOAGEO_CPATH="build-lua/?.so;" $(LUA) test/mini_busted.lua $(wildcard test/*_spec.lua)

# soageo inside real skynet processes (test/skynet/run.sh; one function per case there):
#   make test-skynet SKYNET=/path/to/skynet    (a built tree: ./skynet, 3rd/lua/lua.h, 3rd/lua/lua)
# The module is built against $(SKYNET)/3rd/lua in build-skynet/<tree>-<hash>/ (its own
# soageo/core.so; the Lua 5.4 one is untouched), plus one against OTHER_LUA_INCDIR, the headers
# of a Lua of another version (default Debian's 5.4; for a 5.4 skynet pass a 5.5 tree's
# 3rd/lua), which must refuse to load. Ends with one line "N passed, N failed".
OTHER_LUA_INCDIR ?= $(LUA54_INCDIR)
SKYNET_DIR   = $(abspath $(SKYNET))
SKYNET_BUILD = build-skynet/$(notdir $(SKYNET_DIR))-$(shell printf '%s' '$(SKYNET_DIR)' | cksum | cut -d' ' -f1)
test-skynet: deps
	@if [ -z "$(SKYNET)" ]; then \
	    echo "make test-skynet: name a built skynet tree: make test-skynet SKYNET=/path/to/skynet" \
	         "(its directory holding ./skynet, 3rd/lua/lua.h and 3rd/lua/lua, after make linux there)" >&2; exit 2; fi
	@for f in skynet 3rd/lua/lua.h 3rd/lua/lua; do if [ ! -e "$(SKYNET_DIR)/$$f" ]; then \
	    echo "make test-skynet: SKYNET=$(SKYNET) is not a built skynet tree: $(SKYNET_DIR)/$$f is missing" \
	         "(pass SKYNET=<a skynet checkout where make linux has run; the interpreter 3rd/lua/lua" \
	         "comes from make -C 3rd/lua linux>)" >&2; exit 2; fi; done
	@$(MAKE) --no-print-directory BUILD=$(SKYNET_BUILD) MODULE=$(SKYNET_BUILD)/soageo/core.so \
	    LUA_INCDIR=$(SKYNET_DIR)/3rd/lua $(SKYNET_BUILD)/soageo/core.so
	@$(MAKE) --no-print-directory BUILD=$(SKYNET_BUILD) MODULE=$(SKYNET_BUILD)/soageo/core.so \
	    LUA_INCDIR=$(SKYNET_DIR)/3rd/lua INST_LIBDIR=$(SKYNET_BUILD)/inst/luaclib \
	    INST_LUADIR=$(SKYNET_BUILD)/inst/lualib install >/dev/null
	@if [ "$$(sh test/skynet/lua_version.sh $(OTHER_LUA_INCDIR))" != "$$(sh test/skynet/lua_version.sh $(SKYNET_DIR)/3rd/lua)" ]; then \
	    $(MAKE) --no-print-directory BUILD=$(SKYNET_BUILD) LUA_BUILD=$(SKYNET_BUILD)/other \
	        MODULE=$(SKYNET_BUILD)/other/soageo/core.so LUA_INCDIR=$(OTHER_LUA_INCDIR) \
	        $(SKYNET_BUILD)/other/soageo/core.so; fi
	@for d in lualib examples test; do ln -sfn $(CURDIR)/$$d $(SKYNET_BUILD)/$$d; done
	@SKYNET=$(SKYNET_DIR) STAGE=$(CURDIR)/$(SKYNET_BUILD) ROOT=$(CURDIR) \
	    OTHER_LUA_INCDIR=$(OTHER_LUA_INCDIR) sh test/skynet/run.sh

clean:
	rm -rf $(BUILD) build-* soageo/core.so
