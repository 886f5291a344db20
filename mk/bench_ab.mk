# make bench-ab REV=<git rev>: bench/bench_compact.c built against the tensorpack.h of REV and
# against the working tree's, run alternately (bench/ab.sh; ROUNDS, RUNS, ONLY, OLD_CFLAGS,
# NEW_CFLAGS pass through the environment). Prints per row both medians, ranges and new/old.
.PHONY: bench-ab
REV ?= d7b1b8c
bench-ab:
	@CC='$(CC)' sh bench/ab.sh '$(REV)'

# make bench: bench_compact runs torch's copy_ and numpy's copyto on its cases through
# bench/bench_peers.py (a python3 that imports numpy or torch: Debian's python3-numpy /
# python3-torch live in /usr/bin/python3); without one the table says so in one line.
BENCH_PY := $(shell for p in /usr/bin/python3 python3; do $$p -c 'import numpy' >/dev/null 2>&1 && { echo $$p; break; }; done)
export BENCH_PEERS := $(if $(BENCH_PY),$(BENCH_PY) $(CURDIR)/bench/bench_peers.py,)
