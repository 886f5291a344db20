# tpdump: the inspector tool and its tests.
#   $(BUILD)/tools/tpdump            the tool, sanitized like the tests
#   tests/test_tpdump*.c             include tools/tpdump.c with -DTPDUMP_NO_MAIN and also run
#                                    the built tool (its path comes in as TPDUMP_BIN)
#   tests/test_tpdump_flatc.c        blobs made by `flatc --binary` from tests/data/tpdump_*.json;
#                                    only with HAVE_FLATC.

TPDUMP_BIN   := $(BUILD)/tools/tpdump
TPDUMP_TESTS := $(filter $(BUILD)/tests/test_tpdump%,$(TESTS))

all: $(TPDUMP_BIN)

$(TPDUMP_BIN): tools/tpdump.c $(HEADERS) $(call tp_all,san)
	@mkdir -p $(dir $@)
	$(T) $(CC) $(DEP) $(TCFLAGS) $(TP_LINKED) $< $(call tp_all,san) -o $@ $(LIBM)

# The generic tests/%.c rule builds them; these add the tool, its source and its path.
$(TPDUMP_TESTS): tools/tpdump.c $(TPDUMP_BIN) $(wildcard tests/data/tpdump_*)
$(TPDUMP_TESTS): TCFLAGS += -DTPDUMP_BIN='"$(TPDUMP_BIN)"'

ifneq ($(HAVE_FLATC),1)
TESTS   := $(filter-out $(BUILD)/tests/test_tpdump_flatc,$(TESTS))
SKIPPED += tpdump-flatc:flatbuffers-compiler not installed;
endif
