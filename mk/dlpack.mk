# DLPack input (issue 13): tests/test_dlpack.c needs dlpack.h (Debian libdlpack-dev, header
# only). Without it the suite is skipped and named.
HAVE_DLPACK := $(shell printf '$(H)include <dlpack/dlpack.h>\nint main(void){return DLPACK_VERSION > 0 ? 0 : 1;}\n' | $(CC) -x c - -o /dev/null 2>/dev/null && echo 1)
ifneq ($(HAVE_DLPACK),1)
TESTS   := $(filter-out $(BUILD)/tests/test_dlpack,$(TESTS))
SKIPPED += test_dlpack:dlpack.h (libdlpack-dev) not installed;
endif
