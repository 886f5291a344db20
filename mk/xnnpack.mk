# XNNPACK part (issues 4 and 7): the real-XNNPACK suites tests/xnnrt_*.c, built against the
# installed libXNNPACK (Debian libxnnpack-dev, whose xnnpack.h needs libpthreadpool-dev).
# tests/test_xnn_*.c are plain suites (the Makefile's pattern); tests/verify_xnnpack.cpp is built
# by mk/fb.mk's official-verifier rule.

XNNRT_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/xnnrt_*.c))

ifeq ($(HAVE_XNNPACK),1)
TESTS += $(XNNRT_TESTS)
# each links the shared objects with the loader (tests/impl/xnnpack_rt.c); a static pattern
# rule (it wins over the Makefile's $(BUILD)/tests/% whether or not the objects exist yet)
$(filter-out $(BUILD)/tests/xnnrt_converter,$(XNNRT_TESTS)): $(BUILD)/tests/xnnrt_%: tests/xnnrt_%.c $(HEADERS) tests/tp_test.h tests/tp_count_alloc.h \
                        $$(call tp_objs,tests/xnnrt_$$*.c,san,xnnpack_rt)
	@mkdir -p $(dir $@)
	$(T) $(CC) $(DEP) $(TCFLAGS) $< $(call tp_objs,$<,san,xnnpack_rt) -o $@ -lXNNPACK $(LIBM)
else
SKIPPED += xnnpack-runtime:libxnnpack-dev (and libpthreadpool-dev) not installed;
endif
