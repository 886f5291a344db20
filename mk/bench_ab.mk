# make bench-ab REV=<git rev>: bench/bench_compact.c built against the tensorpack.h of REV and
# against the working tree's, run alternately (bench/ab.sh; ROUNDS, RUNS, ONLY, OLD_CFLAGS,
# NEW_CFLAGS pass through the environment). Prints per row both medians, ranges and new/old.
.PHONY: bench-ab
REV ?= d7b1b8c
bench-ab:
	@CC='$(CC)' sh bench/ab.sh '$(REV)'
