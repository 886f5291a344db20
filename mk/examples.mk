# The examples run as a suite of their own: each checks what it teaches and exits non-zero when
# it does not hold.
TESTS += $(BUILD)/tests/examples
$(BUILD)/tests/examples: tests/run_examples.sh $(EXAMPLES)
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nexec sh %s/tests/run_examples.sh %s\n' "$(CURDIR)" "$(abspath $(EXAMPLES))" > $@
	@chmod +x $@
