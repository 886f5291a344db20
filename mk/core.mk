# Core part (tensorpack.h sections 1-6): the compact-copy benchmark. The core's test suites are
# plain tests/test_*.c files, built and run by the Makefile's generic rule.
BENCHES += $(BUILD)/bench/bench_compact
