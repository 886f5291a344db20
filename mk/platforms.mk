# Real platforms (issue 14 item 7): the plain suites built for other hosts and run there.
#   s390x/<program>          tests/test_*.c and tests/golden.c built with s390x-linux-gnu-gcc
#                            (a real big-endian host), run under qemu-s390x, no sanitizers, one
#                            suite each (in parallel); s390x/bytes: golden's list and the seed
#                            corpus (fuzz/make_seeds.c: blobs, .ptd files) prove the bytes
#                            written there identical to x86's, tpdump prints them the same.
#   windows/<program>        the same with x86_64-w64-mingw32-gcc under wine64 (headless, a
#                            private WINEPREFIX in $(BUILD)/wine), and windows/bytes.
# Each platform links its flavor of the implementation (Makefile: tp_flavor, tp_objs):
# $(BUILD)/impl/s390x/, win/; plat/ (native, unsanitized) for the native side of the bytes.
#   $(BUILD)/tests/tsan_concurrency
#                            tests/tsan_concurrency.c under -fsanitize=thread: threads writing
#                            and reading blobs and .ptd files at once.
# Each is named in SKIPPED when its toolchain or emulator is missing (Debian: gcc-s390x-linux-gnu
# libc6-dev-s390x-cross qemu-user; gcc-mingw-w64-x86-64 wine64; clang or gcc with libtsan).
# tests/cross_run.sh compares the seeds and tpdump's reports (the <platform>/bytes suites).

S390X_CC   ?= s390x-linux-gnu-gcc
S390X_ROOT ?= /usr/s390x-linux-gnu
QEMU_S390X ?= qemu-s390x
MINGW_CC   ?= x86_64-w64-mingw32-gcc
WINE64     ?= $(firstword $(shell command -v wine64 2>/dev/null) $(wildcard /usr/lib/wine/wine64))
TSAN_CC    ?= clang
PLAT_STRICT := $(STRICT) -O1 $(TDEBUG) -I. -Itests
PLAT_PROBE  := printf '$(H)include <stdio.h>\nint main(void){puts("ok");return 0;}\n'

# The plain suites, by name. test_tpdump_flatc needs flatc (run by the suite through the shell).
PLAT_NAMES := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
ifneq ($(HAVE_FLATC),1)
PLAT_NAMES := $(filter-out test_tpdump_flatc,$(PLAT_NAMES))
endif
# test_dlpack needs the host's dlpack.h, which the cross sysroots do not have.
PLAT_NAMES := $(filter-out test_dlpack,$(PLAT_NAMES))
# tests/golden.c (the golden guard) runs there too: its SHA-256 list was made on x86, so it
# proves every artifact written there byte-identical.
PLAT_NAMES += $(if $(wildcard tests/golden.c),golden)
PLAT_SEED_DIRS := $(FUZZ_SEED_DIRS)

$(eval $(call tp_flavor,plat,$(CC) $(PLAT_STRICT)))
$(BUILD)/plat/make_seeds: fuzz/make_seeds.c fuzz/seeds_safetensors.h $(HEADERS) $(call tp_all,plat)
	@mkdir -p $(dir $@)
	$(T) $(CC) $(DEP) $(PLAT_STRICT) $(TP_LINKED) $< $(call tp_all,plat) -o $@ $(LIBM)
$(BUILD)/plat/tpdump: tools/tpdump.c $(HEADERS) $(call tp_all,plat)
	@mkdir -p $(dir $@)
	$(T) $(CC) $(DEP) $(PLAT_STRICT) $(TP_LINKED) $< $(call tp_all,plat) -o $@ $(LIBM)
# Suites that write files of fixed names (in /tmp or the current directory) run on one
# platform at a time: <platform>/<name> after the native <name>.
PLAT_FIXED_PATHS := test_errors test_progress test_store test_store_stream test_xnn_blob

# ---- s390x -----------------------------------------------------------------------------------
HAVE_S390X := $(shell d=$$(mktemp -d) && $(PLAT_PROBE) | $(S390X_CC) -x c - -o $$d/p 2>/dev/null && \
                $(QEMU_S390X) -L $(S390X_ROOT) $$d/p 2>/dev/null | grep -q ok && echo 1; rm -rf $$d)
S390X_RUN  := $(QEMU_S390X) -L $(S390X_ROOT)
S390X_DIR  := $(BUILD)/s390x
S390X_BINS := $(addprefix $(S390X_DIR)/,$(PLAT_NAMES))

ifeq ($(HAVE_S390X),1)
RESULTS += $(addprefix s390x/,$(PLAT_NAMES)) s390x/bytes
$(eval $(call tp_flavor,s390x,$(S390X_CC) $(PLAT_STRICT)))
$(S390X_DIR)/%: tests/%.c $(HEADERS) tests/tp_test.h tests/tp_count_alloc.h \
                $$(call tp_objs,tests/$$*.c,s390x)
	@mkdir -p $(dir $@)
	$(T) $(S390X_CC) $(DEP) $(PLAT_STRICT) $(call tp_quick,$*) $< $(call tp_objs,$<,s390x) -o $@ $(LIBM)
$(S390X_DIR)/tpdump: tools/tpdump.c $(HEADERS) $(call tp_all,s390x)
	@mkdir -p $(dir $@)
	$(T) $(S390X_CC) $(DEP) $(PLAT_STRICT) $(TP_LINKED) $< $(call tp_all,s390x) -o $@ $(LIBM)
$(S390X_DIR)/make_seeds: fuzz/make_seeds.c fuzz/seeds_safetensors.h $(HEADERS) $(call tp_all,s390x)
	@mkdir -p $(dir $@)
	$(T) $(S390X_CC) $(DEP) $(PLAT_STRICT) $(TP_LINKED) $< $(call tp_all,s390x) -o $@ $(LIBM)
# the tpdump suites run the tool through the shell: the s390x build, under qemu
S390X_TPDUMP_TESTS := $(filter $(S390X_DIR)/test_tpdump%,$(S390X_BINS))
$(S390X_TPDUMP_TESTS): tools/tpdump.c $(S390X_DIR)/tpdump
$(S390X_TPDUMP_TESTS): \
  PLAT_STRICT += -DTPDUMP_BIN='"$(S390X_RUN) $(abspath $(S390X_DIR))/tpdump"'
$(S390X_DIR)/golden: tests/data/golden.sha256
# (without sanitizers gcc 12 sees golden.c's intended snprintf truncation of a long name)
$(S390X_DIR)/golden: PLAT_STRICT += -Wno-format-truncation -DGOLDEN_TMP='"$(abspath $(S390X_DIR))/golden.tmp"'
$(BUILD)/results/s390x/%.rc: $(S390X_DIR)/% tests/run_one.sh
	@sh tests/run_one.sh $(basename $@) $(S390X_RUN) $<
$(patsubst %,$(BUILD)/results/s390x/%.rc,$(filter $(PLAT_FIXED_PATHS),$(PLAT_NAMES))): \
  $(BUILD)/results/s390x/%.rc: | $(BUILD)/results/%.rc
$(BUILD)/results/s390x/bytes.rc: $(S390X_DIR)/make_seeds $(S390X_DIR)/tpdump $(BUILD)/plat/make_seeds \
                                 $(BUILD)/plat/tpdump tests/cross_run.sh tests/run_one.sh
	@sh tests/run_one.sh $(basename $@) env TOOLS="$(abspath $(BUILD))/plat/tpdump $(abspath $(S390X_DIR))/tpdump" \
	  SEEDS="$(abspath $(BUILD))/plat/make_seeds $(abspath $(S390X_DIR))/make_seeds" \
	  SEED_DIRS="$(PLAT_SEED_DIRS)" sh tests/cross_run.sh s390x "$(S390X_RUN)"
else
SKIPPED += s390x:$(S390X_CC) (gcc-s390x-linux-gnu libc6-dev-s390x-cross) or $(QEMU_S390X) (qemu-user) not working;
endif

# ---- Windows (MinGW-w64 under wine64) --------------------------------------------------------
# Not built there: the suites that run tpdump through a POSIX shell (system() with redirections).
WIN_POSIX_ONLY := test_tpdump test_tpdump_flatc
WIN_NAMES  := $(filter-out $(WIN_POSIX_ONLY),$(PLAT_NAMES))
WIN_DIR    := $(BUILD)/win
WIN_BINS   := $(addsuffix .exe,$(addprefix $(WIN_DIR)/,$(WIN_NAMES)))
WINE_PREFIX := $(abspath $(BUILD))/wine
# headless: no debug output; no Mono / Gecko installers on the first start of the prefix
WIN_RUN    := env WINEDEBUG=-all WINEDLLOVERRIDES=mscoree,mshtml= WINEPREFIX=$(WINE_PREFIX) $(WINE64)
HAVE_WINDOWS := $(shell [ -n "$(WINE64)" ] && d=$$(mktemp -d) && $(PLAT_PROBE) | $(MINGW_CC) -x c - -o $$d/p.exe 2>/dev/null && echo 1; rm -rf $$d)

ifeq ($(HAVE_WINDOWS),1)
RESULTS += $(addprefix windows/,$(WIN_NAMES)) windows/bytes
$(eval $(call tp_flavor,win,$(MINGW_CC) $(PLAT_STRICT)))
$(WIN_DIR)/%.exe: tests/%.c $(HEADERS) tests/tp_test.h tests/tp_count_alloc.h \
                  $$(call tp_objs,tests/$$*.c,win)
	@mkdir -p $(dir $@)
	$(T) $(MINGW_CC) $(DEP) $(PLAT_STRICT) $(call tp_quick,$*) $< $(call tp_objs,$<,win) -o $@ $(LIBM)
$(WIN_DIR)/golden.exe: tests/data/golden.sha256
$(WIN_DIR)/golden.exe: PLAT_STRICT += -Wno-format-truncation -DGOLDEN_TMP='"$(abspath $(WIN_DIR))/golden.tmp"'
$(WIN_DIR)/tpdump.exe: tools/tpdump.c $(HEADERS) $(call tp_all,win)
	@mkdir -p $(dir $@)
	$(T) $(MINGW_CC) $(DEP) $(PLAT_STRICT) $(TP_LINKED) $< $(call tp_all,win) -o $@ $(LIBM)
$(WIN_DIR)/make_seeds.exe: fuzz/make_seeds.c fuzz/seeds_safetensors.h $(HEADERS) $(call tp_all,win)
	@mkdir -p $(dir $@)
	$(T) $(MINGW_CC) $(DEP) $(PLAT_STRICT) $(TP_LINKED) $< $(call tp_all,win) -o $@ $(LIBM)
# The private prefix is made once, before the programs start in parallel. Every make test
# then starts its wineserver first, kept 60 s past its last client: programs started in
# parallel each brought up and shut down a server of their own, and one that connected while
# another's was exiting died with "wine client error: recvmsg: Connection reset by peer".
WINESERVER ?= $(firstword $(shell command -v wineserver 2>/dev/null) $(wildcard /usr/lib/wine/wineserver64))
$(WINE_PREFIX)/.made:
	@mkdir -p $(dir $@)
	$(T) $(WIN_RUN) wineboot --init
	@touch $@
.PHONY: wine-server
wine-server: | $(WINE_PREFIX)/.made
	@env WINEPREFIX=$(WINE_PREFIX) $(WINESERVER) -p60 2>/dev/null || true
$(BUILD)/results/windows/%.rc: $(WIN_DIR)/%.exe tests/run_one.sh | wine-server
	@sh tests/run_one.sh $(basename $@) $(WIN_RUN) $<
$(patsubst %,$(BUILD)/results/windows/%.rc,$(filter $(PLAT_FIXED_PATHS),$(WIN_NAMES))): \
  $(BUILD)/results/windows/%.rc: | $(if $(filter 1,$(HAVE_S390X)),$(BUILD)/results/s390x/%.rc,$(BUILD)/results/%.rc)
# tpdump.exe (built warning-free) prints the .ptd seeds as the native tpdump does (cross_run.sh TOOLS)
$(BUILD)/results/windows/bytes.rc: $(WIN_DIR)/tpdump.exe $(WIN_DIR)/make_seeds.exe $(BUILD)/plat/make_seeds \
                                   $(BUILD)/plat/tpdump tests/cross_run.sh tests/run_one.sh | wine-server
	@sh tests/run_one.sh $(basename $@) sh -c 'echo "  not built for Windows (they run tpdump through a POSIX shell): $(WIN_POSIX_ONLY)"; \
	  TOOLS="$(abspath $(BUILD))/plat/tpdump $(abspath $(WIN_DIR))/tpdump.exe" \
	  SEEDS="$(abspath $(BUILD))/plat/make_seeds $(abspath $(WIN_DIR))/make_seeds.exe" \
	  SEED_DIRS="$(PLAT_SEED_DIRS)" exec sh tests/cross_run.sh windows "$(WIN_RUN)"' 
else
SKIPPED += windows:$(MINGW_CC) (gcc-mingw-w64-x86-64) or wine64 (wine64) not installed;
endif

# ---- ThreadSanitizer --------------------------------------------------------------------------
# The probe runs a TSan program: some kernels/containers refuse TSan's memory layout.
# (-O0: the program runs in 0.4 s; at -O1 clang took 9 s to compile it under TSan, at -O0 2 s)
TSAN_FLAGS := $(STRICT) -O0 $(TDEBUG) -fsanitize=thread -I. -Itests
HAVE_TSAN  := $(shell d=$$(mktemp -d) && printf '$(H)include <pthread.h>\nstatic void *f(void *p){return p;}\nint main(void){pthread_t t; if (pthread_create(&t, 0, f, 0)) return 1; return pthread_join(t, 0);}\n' | \
                $(TSAN_CC) -x c - -fsanitize=thread -pthread -o $$d/p 2>/dev/null && $$d/p && echo 1; rm -rf $$d)
ifeq ($(HAVE_TSAN),1)
TESTS += $(BUILD)/tests/tsan_concurrency
$(BUILD)/tests/tsan_concurrency: tests/tsan_concurrency.c tools/tpdump.c $(HEADERS) tests/tp_test.h
	@mkdir -p $(dir $@)
	$(T) $(TSAN_CC) $(DEP) $(TSAN_FLAGS) $< -o $@ -pthread $(LIBM)
else
SKIPPED += tsan:$(TSAN_CC) -fsanitize=thread cannot build or run a threaded program;
endif
