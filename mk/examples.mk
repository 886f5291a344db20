# The examples run as a suite of their own: each checks what it teaches and exits non-zero when
# it does not hold.
TESTS += $(BUILD)/tests/examples
$(BUILD)/tests/examples: tests/run_examples.sh $(EXAMPLES)
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nexec sh %s/tests/run_examples.sh %s\n' "$(CURDIR)" "$(abspath $(EXAMPLES))" > $@
	@chmod +x $@

# Per-example link flags (the Makefile's EXAMPLE_LIBS_<name>): example 08 brings its own
# pthreads parallel-for hook.
EXAMPLE_LIBS_08_parallel_export := -pthread
