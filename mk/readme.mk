# README snippets (issue 13): every ```c block of README.md compiled and linked as C and C++.
TESTS += $(BUILD)/tests/readme_snippets
$(BUILD)/tests/readme_snippets: tests/readme_snippets.sh tests/readme_context.h README.md $(HEADERS)
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nTP_ROOT=%s exec sh %s/tests/readme_snippets.sh\n' "$(CURDIR)" "$(CURDIR)" > $@
	@chmod +x $@
