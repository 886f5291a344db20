# The compile matrix: headers as C99 and C++ under gcc and clang, warnings as errors.
TESTS += $(BUILD)/tests/compile_matrix
# (it also compiles the whole programs, each with its own implementation)
$(BUILD)/tests/compile_matrix: tests/compile_matrix.sh tests/compile_all.c $(HEADERS) \
                               $(wildcard examples/[0-9]*.c) tools/tpdump.c fuzz/make_seeds.c
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nTP_ROOT=%s exec sh %s/tests/compile_matrix.sh\n' "$(CURDIR)" "$(CURDIR)" > $@
	@chmod +x $@
