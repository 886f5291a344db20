# One verdict (issue 14 item 3): tests/verdict.c feeds fuzz/make_seeds.c's corpus (written here
# into $(BUILD)/verdict/corpus by the unsanitized $(BUILD)/plat/make_seeds of mk/platforms.mk)
# and fuzz/crashes/ to every reader, the loader (with XNNPACK) and tpdump, and checks README.md's
# table "What bad input gets". Not a tests/test_*.c: it reads directories (host only).
VERDICT_BIN    := $(BUILD)/tests/verdict
VERDICT_CORPUS := $(BUILD)/verdict/corpus
TESTS += $(VERDICT_BIN)

$(VERDICT_CORPUS)/.stamp: $(BUILD)/plat/make_seeds
	@rm -rf $(VERDICT_CORPUS)
	@for t in $(FUZZ_SEED_DIRS); do mkdir -p $(VERDICT_CORPUS)/$$t || exit 1; done
	@$(BUILD)/plat/make_seeds $(VERDICT_CORPUS) > /dev/null
	@touch $@

VERDICT_FLAGS := -DVERDICT_CORPUS='"$(abspath $(VERDICT_CORPUS))"' -DVERDICT_ROOT='"$(CURDIR)"'
VERDICT_OBJS  := $(call tp_all,san)
ifeq ($(HAVE_XNNPACK),1)
VERDICT_FLAGS += -DVERDICT_XNNPACK
VERDICT_LIBS  := -lXNNPACK
VERDICT_OBJS  := $(call tp_objs,tests/verdict.c,san,xnnpack_rt)
endif

$(VERDICT_BIN): tests/verdict.c tools/tpdump.c $(HEADERS) tests/tp_test.h README.md \
                $(VERDICT_CORPUS)/.stamp $(wildcard fuzz/crashes/*) $(VERDICT_OBJS)
	@mkdir -p $(dir $@)
	$(T) $(CC) $(DEP) $(TCFLAGS) $(VERDICT_FLAGS) $< $(VERDICT_OBJS) -o $@ $(VERDICT_LIBS) $(LIBM)
