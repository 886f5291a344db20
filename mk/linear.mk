# Linear costs (issue 14, findings 10-11): tests/test_linear.c is a plain suite (the Makefile's
# pattern: it counts work through TP_COUNT_STEPS, defined in the test itself); the bench defines
# 1M named XNNPACK constants and writes the blob and the .ptd, against 1M inline ones.
BENCHES += $(BUILD)/bench/bench_named
