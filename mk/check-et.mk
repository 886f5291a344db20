# make check-et ET_RUNNER=PATH (issue 30): every program (.pte) that tools/demo.c and the
# .pte-writing examples write, run by ExecuTorch's own executor_runner on its all-ones inputs,
# each output compared with the values the writer computed in C (NAME.expected beside each
# NAME.pte; tools/check-et.sh). Not part of `make test`: it needs a runner built from an
# ExecuTorch source tree (tools/et-runner.sh ET_SRC [BUILD_DIR]).
.PHONY: check-et
CHECK_ET_DIR      := $(BUILD)/check-et
CHECK_ET_EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(shell grep -l tp_pte_create examples/*.c))

check-et: $(BUILD)/tools/demo $(CHECK_ET_EXAMPLES)
ifeq ($(strip $(ET_RUNNER)),)
	@echo "check-et: skipped: no ET_RUNNER given. Build ExecuTorch's executor_runner from its source tree"
	@echo "  (git clone --recursive the ExecuTorch repository into a directory named executorch), e.g."
	@echo "    tools/et-runner.sh $$HOME/executorch $$HOME/et-build"
	@echo "  then: make check-et ET_RUNNER=$$HOME/et-build/executor_runner"
else
	@rm -rf $(CHECK_ET_DIR) && mkdir -p $(CHECK_ET_DIR)/demo $(CHECK_ET_DIR)/examples
	@$(BUILD)/tools/demo $(CHECK_ET_DIR)/demo > $(CHECK_ET_DIR)/demo.log 2>&1 || \
	  { tail -n 20 $(CHECK_ET_DIR)/demo.log; echo "check-et: the demo failed"; exit 1; }
	@for e in $(abspath $(CHECK_ET_EXAMPLES)); do \
	  (cd $(CHECK_ET_DIR)/examples && $$e > $$(basename $$e).log 2>&1) || \
	    { tail -n 20 $(CHECK_ET_DIR)/examples/$$(basename $$e).log; echo "check-et: $$e failed"; exit 1; }; \
	done
	@sh tools/check-et.sh "$(ET_RUNNER)" $(CHECK_ET_DIR)/demo $(CHECK_ET_DIR)/examples
endif
