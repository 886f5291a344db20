# The compile matrix: headers as C99 and C++ under gcc and clang, warnings as errors.
TESTS += $(BUILD)/tests/compile_matrix
$(BUILD)/tests/compile_matrix: tests/compile_matrix.sh tests/compile_all.c $(HEADERS)
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nTP_ROOT=%s exec sh %s/tests/compile_matrix.sh\n' "$(CURDIR)" "$(CURDIR)" > $@
	@chmod +x $@
