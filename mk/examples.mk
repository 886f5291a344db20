# The examples run as a suite of their own: each checks what it teaches and exits non-zero when
# it does not hold.
TESTS += $(BUILD)/tests/examples
$(BUILD)/tests/examples: tests/run_examples.sh $(EXAMPLES)
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nexec sh %s/tests/run_examples.sh %s\n' "$(CURDIR)" "$(abspath $(EXAMPLES))" > $@
	@chmod +x $@

# gpt2_layouts: examples/09_gpt2_program on every checkpoint layout people have (the Hub's
# download, GPT2LMHeadModel's save, ours, an untied head): the same .pte bytes for the same
# weights, and each refusal's sentence (tests/gpt2_layouts.sh; under a second).
TESTS += $(BUILD)/tests/gpt2_layouts
$(BUILD)/tests/gpt2_layouts: tests/gpt2_layouts.sh $(BUILD)/examples/09_gpt2_program
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nexec sh %s/tests/gpt2_layouts.sh %s\n' "$(CURDIR)" "$(abspath $(BUILD)/examples/09_gpt2_program)" > $@
	@chmod +x $@

# torch_reference (optional): examples/09's float64 C reference logits against PyTorch's GPT-2
# forward (tools/gpt2_reference.py) for tiny checkpoints of several shapes and layouts, to 1e-6
# (tests/torch_reference.sh). Needs a python3 that has torch (Debian: python3-torch); the probe
# finds the module without importing it.
TORCH_PYTHON ?= $(firstword $(foreach p,python3 /usr/bin/python3,$(shell $(p) -c 'import \
  importlib.util, sys; sys.exit(importlib.util.find_spec("torch") is None)' >/dev/null 2>&1 && \
  echo $(p))))
ifneq ($(TORCH_PYTHON),)
TESTS += $(BUILD)/tests/torch_reference
$(BUILD)/tests/torch_reference: tests/torch_reference.sh tools/gpt2_reference.py \
                                $(BUILD)/examples/09_gpt2_program
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nexec sh %s/tests/torch_reference.sh %s %s\n' "$(CURDIR)" "$(abspath $(BUILD)/examples/09_gpt2_program)" "$(TORCH_PYTHON)" > $@
	@chmod +x $@
else
SKIPPED += torch_reference:python3-torch not installed;
endif

# Per-example link flags (the Makefile's EXAMPLE_LIBS_<name>): example 08 brings its own
# pthreads parallel-for hook.
EXAMPLE_LIBS_08_parallel_export := -pthread

# make bench-gpt2: examples/09_gpt2_program at -O2 on GPT-2 124M's shape (bench/gpt2_124m.sh):
# the conversion's time and peak memory against copying the bytes it writes.
.PHONY: bench-gpt2
$(BUILD)/bench/09_gpt2_program: examples/09_gpt2_program.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(BCFLAGS) $< -o $@ $(LIBM)
bench-gpt2: $(BUILD)/bench/09_gpt2_program
	@sh bench/gpt2_124m.sh $(abspath $<) $(abspath $(BUILD))/bench/gpt2_124m
