# The golden guard: bytes stay identical through refactors. tests/golden.c writes a broad corpus
# (XNNPACK blobs of every node and value kind, inline and named with their .ptd, the seed cases,
# Vulkan blobs of every value kind, .ptd files) and compares each artifact's SHA-256 with the
# committed tests/data/golden.sha256. A difference names the artifact. Regenerate the list only
# for an intended change of bytes:  $(BUILD)/tests/golden --print > tests/data/golden.sha256
TESTS += $(BUILD)/tests/golden
$(BUILD)/tests/golden: tests/golden.c tests/data/golden.sha256 $(HEADERS) tests/tp_test.h \
                     $(call tp_all,san)
	@mkdir -p $(dir $@)
	$(T) $(CC) $(DEP) $(TCFLAGS) -DGOLDEN_LIST='"$(CURDIR)/tests/data/golden.sha256"' \
	  -DGOLDEN_TMP='"$(abspath $(BUILD))/tests/golden.tmp"' $< $(call tp_all,san) -o $@ $(LIBM)
