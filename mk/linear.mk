# Linear costs (issue 14, findings 10-11): tests/test_linear.c is a plain suite (the Makefile's
# pattern: it counts work through TP_COUNT_STEPS, defined in the test itself); the bench defines
# 1M named XNNPACK constants and writes the blob and the .ptd, against 1M inline ones.
BENCHES += $(BUILD)/bench/bench_named

# make bench-probes: issue 21's probes, the hostile files its red team timed, at the sizes it
# gave (bench/bench_probes.c; plain -O2, one markdown table). Not part of make bench (it
# measures no copy) nor of make test (it prints, it does not judge).
.PHONY: bench-probes
$(BUILD)/bench/bench_probes: bench/bench_probes.c tests/linear_shapes.h tests/pte_build.h tools/tpdump.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(DEP) -std=c99 -O2 -Wall -Wextra -pedantic -Werror -I. \
	  $(if $(HAVE_XNNPACK),-DTENSORPACK_XNNPACK_RUNTIME) $< -o $@ $(if $(HAVE_XNNPACK),-lXNNPACK) $(LIBM)
bench-probes: $(BUILD)/bench/bench_probes
	$(BUILD)/bench/bench_probes
