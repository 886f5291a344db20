# tensorpack - build, test, demo, bench.
#   make demo    export the motivating cases and show they come out right
#   make test    every test suite (sanitized), names any suite skipped for a missing dependency
#   make bench   speed, as ratios against memcpy / peers in the same run
# Fragments in mk/*.mk add suites; each appends to TESTS (programs run by `make test`),
# SKIPPED ("suite:reason;"), EXAMPLES and BENCHES.

CC      ?= cc
CXX     ?= c++
BUILD   := build
STRICT  := -std=c99 -Wall -Wextra -pedantic -Werror
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
TCFLAGS := $(STRICT) -O1 -g $(SAN) -I. -Itests
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
SKIPPED  :=
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/[0-9]*.c))
BENCHES  :=

.PHONY: all test demo bench examples clean
all: examples

-include $(sort $(wildcard mk/*.mk))

$(BUILD)/tests/%: tests/%.c $(HEADERS) tests/tp_test.h tests/tp_count_alloc.h
	@mkdir -p $(dir $@)
	$(CC) $(TCFLAGS) $< -o $@ $(LIBM)

$(BUILD)/examples/%: examples/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(STRICT) -O1 -g $(SAN) -I. $< -o $@ $(LIBM) $(EXAMPLE_LIBS_$*)

$(BUILD)/bench/%: bench/%.c $(HEADERS) $(wildcard bench/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(BCFLAGS) $< -o $@ $(LIBM) $(BENCH_LIBS_$*)

examples: $(EXAMPLES)

test: $(TESTS) $(EXAMPLES)
	@SKIPPED='$(SKIPPED)' sh tests/run.sh $(TESTS)

# One table (bench/bench_table.h): the header once, then every program's rows.
bench: $(BENCHES)
	@printf '| case | tensorpack | peer | limit | ratio [range] | target | | vs torch copy_ | vs numpy copyto |\n|---|---|---|---|---|---|---|---|---|\n'
	@for b in $(BENCHES); do $$b || exit 1; done

clean:
	rm -rf $(BUILD)
