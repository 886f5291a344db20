# Named data store and .ptd part. tests/test_store*.c and tests/test_ptd*.c are plain
# suites (the Makefile builds every tests/test_*.c); tests/verify_ptd.cpp is built by mk/fb.mk's
# verify_* rule when flatc is present. Here: the .ptd write benchmark.
BENCHES += $(BUILD)/bench/bench_ptd
