# XNNPACK part (issues 4 and 7): the real-XNNPACK suites tests/xnnrt_*.c, built against the
# installed libXNNPACK (Debian libxnnpack-dev, whose xnnpack.h needs libpthreadpool-dev).
# tests/test_xnn_*.c are plain suites (the Makefile's pattern); tests/verify_xnnpack.cpp is built
# by mk/fb.mk's official-verifier rule.

# Probe again here: the Makefile's probe keeps a literal backslash before '#include' under
# GNU make 4.3 (see mk/fb.mk), so it never finds the library.
XNN__HASH := \#
HAVE_XNNPACK_RT := $(shell printf '$(XNN__HASH)include <xnnpack.h>\nint main(void){return (int)xnn_initialize(0);}\n' | $(CC) -x c - -o /dev/null -lXNNPACK -lm 2>/dev/null && echo 1)

XNNRT_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/xnnrt_*.c))

ifeq ($(HAVE_XNNPACK_RT),1)
TESTS += $(XNNRT_TESTS)
$(BUILD)/tests/xnnrt_%: tests/xnnrt_%.c $(HEADERS) tests/tp_test.h
	@mkdir -p $(dir $@)
	$(CC) $(TCFLAGS) $< -o $@ -lXNNPACK $(LIBM)
else
SKIPPED += xnnpack-runtime:libxnnpack-dev (and libpthreadpool-dev) not installed;
endif
