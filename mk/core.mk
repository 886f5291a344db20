# Core part (tensorpack.h sections 1-6): the compact-copy benchmark. The core's test suites are
# plain tests/test_*.c files, built and run by the Makefile's generic rule.
BENCHES += $(BUILD)/bench/bench_compact
# The link-time ABI check: files built with different TP_MAX_DIMS / TP_NO_STDIO do not link.
TESTS += $(BUILD)/tests/abi_link
$(BUILD)/tests/abi_link: tests/abi_link.sh $(HEADERS)
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nTP_ROOT=%s exec sh %s/tests/abi_link.sh\n' "$(CURDIR)" "$(CURDIR)" > $@
	@chmod +x $@
