# Fuzz part: libFuzzer targets for every parser (fuzz/fuzz_*.c, one target per file).
#   make fuzz            build every target and run each for FUZZ_SECONDS (default 60) from the
#                        seed corpus; prints a summary (executions, cov/ft, crashes)
#   make test            runs one suite fuzz/<target> per target (tests/fuzz_smoke.sh),
#                        bounded and deterministic (-runs=N -seed=1 on the seed corpus), plus
#                        every committed reproducer fuzz/crashes/<target>-<n> (which must no
#                        longer crash); the reader targets bound their work (tpdump: also its
#                        output and heap) per input byte (fuzz/fuzz_bound.h), and every cost
#                        seed must break its target's bounds divided by 4
# Seeds: fuzz/make_seeds.c writes valid blobs/.ptd/views with the library's own writers into
# $(BUILD)/fuzz/corpus/<target>/, and the cost seeds seed-cost-* (small worst shapes of
# tests/linear_shapes.h). Nothing binary is committed except crash reproducers.
# Targets: fuzz_fb_reader, fuzz_ptd, fuzz_pte, fuzz_vk_blob, fuzz_views, fuzz_safetensors, fuzz_json, fuzz_tpdump (tools/tpdump.c as a
# library), fuzz_xnn_blob (tp_xnn_read_blob, the pure XNNPACK reader: every machine) and
# fuzz_xnn_load (tp_xnn_load onto the real XNNPACK: only with XNNPACK; its seeds are
# fuzz_xnn_blob's), fuzz_xnn_invoke (load, bind every external, invoke: only with XNNPACK) and
# fuzz_xnn_check (tp_xnn_check_blob, every machine), both seeded with fuzz_xnn_blob's seeds.
# The blob targets share their input framing (blob + .ptd): fuzz/fuzz_input.h.
# Needs clang with libFuzzer (Debian: clang + libclang-rt-14-dev).

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
# TP_COUNT_STEPS: the implementation counts its work, which the reader targets bound per input
# byte (fuzz/fuzz_bound.h).
FUZZ_FLAGS   := -std=c99 -Wall -Wextra -pedantic -Werror $(TDEBUG) -O1 -DTP_COUNT_STEPS \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I.
HAVE_LIBFUZZER := $(shell printf '$(H)include <stddef.h>\n$(H)include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' | $(FUZZ_CC) -x c - -fsanitize=fuzzer,address,undefined -o /dev/null 2>/dev/null && echo 1)

# every corpus directory fuzz/make_seeds.c writes into (also used by mk/platforms.mk)
FUZZ_SEED_DIRS := fuzz_fb_reader fuzz_ptd fuzz_vk_blob fuzz_views fuzz_xnn_blob fuzz_tpdump fuzz_pte fuzz_safetensors fuzz_json
FUZZ_NAMES := fuzz_fb_reader fuzz_ptd fuzz_vk_blob fuzz_views fuzz_tpdump fuzz_pte fuzz_xnn_blob fuzz_safetensors fuzz_json
FUZZ_NAMES += fuzz_xnn_check
ifeq ($(HAVE_XNNPACK),1)
FUZZ_NAMES += fuzz_xnn_load fuzz_xnn_invoke
endif
# targets whose seeds are fuzz_xnn_blob's (copied after make_seeds)
FUZZ_XNN_SEEDED := fuzz_xnn_load fuzz_xnn_invoke fuzz_xnn_check
FUZZ_BINS   := $(addprefix $(BUILD)/fuzz/,$(FUZZ_NAMES))
FUZZ_CORPUS := $(BUILD)/fuzz/corpus
FUZZ_SEEDS  := $(FUZZ_CORPUS)/.stamp
# Smoke runs per target (deterministic with -seed=1): about 10-20 s of one core each under
# ASan+UBSan; the flatbuffer walker does ~1000 inputs/s, so it gets fewer.
FUZZ_RUNS_fuzz_fb_reader := 4000
FUZZ_RUNS_DEFAULT        := 20000
FUZZ_LIBS_fuzz_xnn_load  := -lXNNPACK
FUZZ_LIBS_fuzz_xnn_invoke := -lXNNPACK
# The magics of every format (XH00, XN01, VH00, VK00, FT01, FH01, ET12, eh00, ...): libFuzzer
# splices them in, in `make fuzz` and in the smoke run.
FUZZ_DICT := fuzz/tensorpack.dict

.PHONY: fuzz fuzz-build

ifeq ($(HAVE_LIBFUZZER),1)
# The smoke run is one suite per target (fuzz/<target>), so that they run in parallel.
RESULTS += $(addprefix fuzz/,$(FUZZ_NAMES))

# The implementation once for every target (the fuzz flavor, Makefile's tp_flavor); the loader
# part with lower limits, so that XNNPACK stays within libFuzzer's memory limit.
FUZZ_RT_FLAGS := -DTP_XNN_RUNTIME_MAX_ACTIVATION_BYTES='((uint64_t)64 << 20)' \
                 -DTP_XNN_RUNTIME_MAX_OPERATOR_BYTES='((uint64_t)64 << 20)'
$(eval $(call tp_flavor,fuzz,$(FUZZ_CC) $(FUZZ_FLAGS),$(FUZZ_RT_FLAGS)))
FUZZ_OBJS_fuzz_xnn_load   := xnnpack_rt
FUZZ_OBJS_fuzz_xnn_invoke := xnnpack_rt
$(BUILD)/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz_input.h fuzz/fuzz_bound.h $(HEADERS) \
                      $$(call tp_objs,fuzz/fuzz_$$*.c,fuzz,$$(FUZZ_OBJS_fuzz_$$*))
	@mkdir -p $(dir $@)
	$(T) $(FUZZ_CC) $(DEP) $(FUZZ_FLAGS) $< $(call tp_objs,$<,fuzz,$(FUZZ_OBJS_fuzz_$*)) -o $@ \
	  $(FUZZ_LIBS_fuzz_$*) $(LIBM)

$(BUILD)/fuzz/fuzz_tpdump: tools/tpdump.c
$(BUILD)/fuzz/fuzz_xnn_load: fuzz/fuzz_xnn_invoke.c

$(BUILD)/fuzz/make_seeds: fuzz/make_seeds.c fuzz/seeds_safetensors.h $(HEADERS) $(call tp_all,san)
	@mkdir -p $(dir $@)
	$(T) $(CC) $(DEP) $(TCFLAGS) $(TP_LINKED) $< $(call tp_all,san) -o $@ $(LIBM)

$(FUZZ_SEEDS): $(BUILD)/fuzz/make_seeds
	@rm -rf $(FUZZ_CORPUS)
	@for t in $(FUZZ_SEED_DIRS); do \
	  mkdir -p $(FUZZ_CORPUS)/$$t || exit 1; done
	$(BUILD)/fuzz/make_seeds $(FUZZ_CORPUS)
	@for t in $(FUZZ_XNN_SEEDED); do \
	  rm -rf $(FUZZ_CORPUS)/$$t && cp -R $(FUZZ_CORPUS)/fuzz_xnn_blob $(FUZZ_CORPUS)/$$t || exit 1; done
	@touch $@

fuzz-build: $(FUZZ_BINS) $(FUZZ_SEEDS)

# make fuzz: each target runs FUZZ_SECONDS on a work corpus (seeds + what it found before);
# crashes land in $(BUILD)/fuzz/artifacts/<target>/.
fuzz: fuzz-build
	@summary=''; bad=0; \
	for t in $(FUZZ_NAMES); do \
	  w=$(BUILD)/fuzz/work/$$t; a=$(BUILD)/fuzz/artifacts/$$t; mkdir -p $$w $$a; \
	  cp -n $(FUZZ_CORPUS)/$$t/* $$w/ 2>/dev/null; \
	  echo "== $$t ($(FUZZ_SECONDS) s)"; \
	  $(BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -dict=$(FUZZ_DICT) \
	    -artifact_prefix=$$a/ $$w > $(BUILD)/fuzz/$$t.log 2>&1; rc=$$?; \
	  execs=$$(grep -E '^stat::number_of_executed_units' $(BUILD)/fuzz/$$t.log | awk '{print $$2}'); \
	  cov=$$(grep -E '^#[0-9]+' $(BUILD)/fuzz/$$t.log | grep -oE 'cov: [0-9]+ ft: [0-9]+' | tail -n 1); \
	  if [ $$rc -eq 0 ]; then st=ok; else st="CRASH (exit $$rc; see $(BUILD)/fuzz/$$t.log, $$a)"; bad=1; fi; \
	  line="$$t: $$execs execs, $$cov, $$st"; echo "$$line"; summary="$$summary$$line\n"; \
	done; \
	echo "== fuzz summary"; printf "$$summary"; exit $$bad

# The smoke test for make test: tests/fuzz_smoke.sh for one target, with the paths, the
# dictionary and the run counts.
$(BUILD)/results/fuzz/%.rc: $(BUILD)/fuzz/% $(FUZZ_SEEDS) $(wildcard fuzz/crashes/*) $(FUZZ_DICT) \
                            tests/fuzz_smoke.sh tests/run_one.sh mk/fuzz.mk
	@sh tests/run_one.sh $(basename $@) env FUZZ_BIN="$(abspath $(BUILD))/fuzz" \
	  FUZZ_CORPUS="$(abspath $(FUZZ_CORPUS))" FUZZ_DICT="$(abspath $(FUZZ_DICT))" TP_ROOT="$(CURDIR)" \
	  FUZZ_NAMES="$*" FUZZ_RUNS_DEFAULT=$(FUZZ_RUNS_DEFAULT) \
	  FUZZ_RUNS_fuzz_fb_reader=$(FUZZ_RUNS_fuzz_fb_reader) sh tests/fuzz_smoke.sh
else
SKIPPED += fuzz-smoke:clang libFuzzer (libclang-rt-14-dev) not installed;
fuzz fuzz-build:
	@echo "fuzz: clang with libFuzzer not found (install clang and libclang-rt-14-dev)"; exit 1
endif
