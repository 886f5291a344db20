# Programs (.pte), tensorpack.h section 9. tests/test_pte.c is a plain suite (the Makefile's
# pattern); tests/verify_pte.cpp is built by mk/fb.mk's verify_* rule, which needs the code
# flatc generates from tests/schemas/program.fbs (added here); the bench writes a program
# carrying 1 GiB of strided-view constants.
ifeq ($(HAVE_FLATC),1)
$(BUILD)/tests/verify_pte: $(BUILD)/gen/program_generated.h
$(BUILD)/gen/program_generated.h: tests/schemas/program.fbs tests/schemas/scalar_type.fbs
endif
BENCHES += $(BUILD)/bench/bench_pte
