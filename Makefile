# tensorpack - build, test, demo, bench.
#   make demo    export the motivating cases and show they come out right
#   make test    every test suite (sanitized), names any suite skipped for a missing dependency
#   make bench   speed, as ratios against memcpy / peers in the same run
# Fragments in mk/*.mk add suites; each appends to TESTS (programs run by `make test`),
# RESULTS (suites with a result rule of their own), SKIPPED ("suite:reason;"), EXAMPLES and
# BENCHES.
# Parallel by default (every core; each target's output in one piece); a -j on the command
# line wins. make test runs every suite as a target of its own (tests/run_one.sh writes
# $(BUILD)/results/<suite>.log and .rc) and then tests/run.sh prints them in a fixed order.

ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2) \
             --output-sync=target
endif

CC      ?= cc
CXX     ?= c++
BUILD   := build
STRICT  := -std=c99 -Wall -Wextra -pedantic -Werror
# Debug info of the test builds: line tables (-g1) are what the sanitizers' reports print; full
# DWARF (-g) costs a third more compile time. make TDEBUG=-g for a build to step through in gdb.
TDEBUG  := -g1
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
TCFLAGS := $(STRICT) -O1 $(TDEBUG) $(SAN) -I. -Itests
BCFLAGS := -std=c99 -Wall -Wextra -O2 -I. -Itests
HEADERS := tensorpack.h tensorpack_xnnpack.h tensorpack_vulkan.h
LIBM    := -lm

# Optional real peers: detected, never required to build the library.
H := \#
HAVE_FLATC   := $(shell command -v flatc >/dev/null 2>&1 && printf '$(H)include <flatbuffers/flatbuffers.h>\nint main(){return 0;}\n' | $(CXX) -x c++ - -o /dev/null 2>/dev/null && echo 1)
HAVE_XNNPACK := $(shell printf '$(H)include <xnnpack.h>\nint main(void){return (int)xnn_initialize(0);}\n' | $(CC) -x c - -o /dev/null -lXNNPACK -lm 2>/dev/null && echo 1)
HAVE_VULKAN  := $(shell printf '$(H)include <vulkan/vulkan.h>\nint main(void){return (int)vkEnumerateInstanceVersion(0);}\n' | $(CC) -x c - -o /dev/null -lvulkan 2>/dev/null && echo 1)

# Plain suites: tests/test_*.c, one program each, no dependency but libc.
TESTS    := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_*.c))
RESULTS  :=
SKIPPED  :=
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/[0-9]*.c))
BENCHES  :=

# Each compile step of the tests goes through tests/timed.sh: the time table of make test.
T = @sh tests/timed.sh $(BUILD)/times $@
# ... and writes what it included (TARGET.d, read back below): a program is rebuilt, and its
# suite run again, when any file it includes changes, not only the ones its rule names.
DEP = -MMD -MP -MF $@.d
# When make started (the time table shows only what ran since).
TP_T0 := $(shell date +%s)

# ---- The implementation, compiled once per flavor -------------------------------------------
# As an stb user builds it: tests/impl/<part>.c defines one part's *_IMPLEMENTATION (core,
# xnnpack, vulkan; xnnpack_rt / vulkan_rt add the runtime parts), compiled once per flavor into
# $(BUILD)/impl/<flavor>/<part>.o, and <flavor>-count/<part>.o with every allocation counted
# (tests/tp_count_alloc.h). A test program includes the headers for declarations only and links
# them: $(call tp_objs,SOURCE,FLAVOR) names its objects. A source that defines a part itself
# (a test needing other settings: TP_NO_STDIO, TP_COUNT_STEPS, static internals; it says why
# in a comment) links none of the flavor's when it defines the core, else the parts it does not
# define. Flavors: san (here: TCFLAGS), cxx (C++, here), plat/s390x/win (mk/platforms.mk), fuzz
# (mk/fuzz.mk).
IMPL_DEPS := $(wildcard tests/impl/*.c) $(HEADERS) tests/tp_count_alloc.h
# $(call tp_flavor,FLAVOR,COMPILER AND FLAGS[,FLAGS OF THE _rt PARTS]): its two object sets.
define tp_flavor
$(BUILD)/impl/$(1)/%.o: tests/impl/%.c $(IMPL_DEPS)
	@mkdir -p $$(dir $$@)
	$$(T) $(2) $$(if $$(filter %_rt.o,$$@),$(3)) -c $$< -o $$@
$(BUILD)/impl/$(1)-count/%.o: tests/impl/%.c $(IMPL_DEPS)
	@mkdir -p $$(dir $$@)
	$$(T) $(2) -DTP_IMPL_COUNT_ALLOC $$(if $$(filter %_rt.o,$$@),$(3)) -c $$< -o $$@
endef
# Every file made is kept (the objects and the cross programs are only prerequisites of rules).
.SECONDARY:
# Who defines which part (grep: a line "#define TENSORPACK_..._IMPLEMENTATION"), who counts.
TP_SOURCES   := $(wildcard tests/*.c tests/*.cpp fuzz/*.c)
tp_defining   = $(shell grep -lE '^[[:space:]]*$(H)[[:space:]]*define[[:space:]]+$(1)([[:space:]]|$$)' $(TP_SOURCES))
TP_OWN_CORE  := $(call tp_defining,TENSORPACK_IMPLEMENTATION)
TP_OWN_XNN   := $(call tp_defining,TENSORPACK_XNNPACK_IMPLEMENTATION)
TP_OWN_VK    := $(call tp_defining,TENSORPACK_VULKAN_IMPLEMENTATION)
TP_COUNTING  := $(shell grep -l 'tp_count_alloc\.h' $(TP_SOURCES))
# $(call tp_objs,SOURCE,FLAVOR[,XNNPACK PART,VULKAN PART]) (parts: xnnpack_rt, vulkan_rt)
tp_objs = $(if $(filter $(1),$(TP_OWN_CORE)),,$(addprefix $(BUILD)/impl/$(2)$(if $(filter \
  $(1),$(TP_COUNTING)),-count)/,core.o $(if $(filter $(1),$(TP_OWN_XNN)),,$(or $(3),xnnpack).o) \
  $(if $(filter $(1),$(TP_OWN_VK)),,$(or $(4),vulkan).o)))
# tools/tpdump.c, fuzz/make_seeds.c and the examples are whole programs that define the
# implementation themselves, as a user's one file does; the test build compiles them with the
# headers' own include-once guards set (the implementation is then skipped) and links a flavor.
TP_LINKED := -DTENSORPACK_IMPLEMENTATION_DONE -DTENSORPACK_XNNPACK_IMPLEMENTATION_DONE \
             -DTENSORPACK_VULKAN_IMPLEMENTATION_DONE
tp_all = $(addprefix $(BUILD)/impl/$(1)/,core.o xnnpack.o vulkan.o)
# Of those that define the implementation themselves, the ones that run in well under a second
# are built at -O0 (3-4 s less each; the flavors compile the same code at -O1): $(call
# tp_quick,NAME) is the option the rules add after their flags (the last -O wins).
TP_QUICK := test_sha256 test_pte_plan test_dlpack test_nostdio test_bigendian_sim
tp_quick = $(if $(filter $(1),$(TP_QUICK)),-O0)

$(eval $(call tp_flavor,san,$(CC) $(TCFLAGS)))
# C++ (the verify_*.cpp programs, the vkrt suites' C++ build): as C++11, -Wconversion.
CXX_IMPL_FLAGS := -x c++ -std=c++11 -Wall -Wextra -pedantic -Werror -Wconversion \
                  -Wsign-conversion -O1 $(TDEBUG) $(SAN) -I. -Itests
$(eval $(call tp_flavor,cxx,$(CXX) $(CXX_IMPL_FLAGS)))

.SECONDEXPANSION:
.PHONY: all test demo bench examples clean
all: examples

-include $(sort $(wildcard mk/*.mk))
-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d)

$(BUILD)/tests/%: tests/%.c $(HEADERS) tests/tp_test.h tests/tp_count_alloc.h \
                  $$(call tp_objs,tests/$$*.c,san)
	@mkdir -p $(dir $@)
	$(T) $(CC) $(DEP) $(TCFLAGS) $(call tp_quick,$*) $< $(call tp_objs,$<,san) -o $@ $(LIBM)

$(BUILD)/examples/%: examples/%.c $(HEADERS) $(call tp_all,san)
	@mkdir -p $(dir $@)
	$(T) $(CC) $(DEP) $(STRICT) -O1 $(TDEBUG) $(SAN) -I. $(TP_LINKED) $< $(call tp_all,san) -o $@ $(LIBM) \
	  $(EXAMPLE_LIBS_$*)

$(BUILD)/bench/%: bench/%.c $(HEADERS) $(wildcard bench/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(BCFLAGS) $< -o $@ $(LIBM) $(BENCH_LIBS_$*)

examples: $(EXAMPLES)

# make test: every suite's result ($(BUILD)/results/<suite>.rc), the slow ones first so that they
# start early, then the summary in the order of SUITES. A suite of TESTS is its program's file
# name; RESULTS come with their own rules (mk/platforms.mk: s390x/<program>, mk/fuzz.mk: ...).
SUITES = $(patsubst $(BUILD)/tests/%,%,$(TESTS)) $(RESULTS)
SLOW_SUITES := compile_matrix packaging readme_snippets s390x/% windows/% fuzz/% verdict golden
$(BUILD)/results/%.rc: $(BUILD)/tests/% tests/run_one.sh
	@sh tests/run_one.sh $(BUILD)/results/$* $<

# Suites that read README.md when they run (on every platform they run on).
README_READERS := test_readme_map test_xnn_support
$(foreach p,$(README_READERS),$(BUILD)/results/$(p).rc $(BUILD)/results/s390x/$(p).rc \
  $(BUILD)/results/windows/$(p).rc): README.md

test: $(addprefix $(BUILD)/results/,$(addsuffix .rc,$(filter $(SLOW_SUITES),$(SUITES)) \
        $(filter-out $(SLOW_SUITES),$(SUITES)))) | $(filter demo,$(MAKECMDGOALS))
	@SKIPPED='$(SKIPPED)' TP_T0=$(TP_T0) sh tests/run.sh $(BUILD) $(SUITES)

# One table (bench/bench_table.h): the header once, then every program's rows.
bench: $(BENCHES)
	@printf '| case | tensorpack | peer | limit | ratio [range] | target | | vs torch copy_ | vs numpy copyto |\n|---|---|---|---|---|---|---|---|---|\n'
	@for b in $(BENCHES); do $$b || exit 1; done

clean:
	rm -rf $(BUILD)
