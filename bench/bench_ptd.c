/* bench_ptd: 1 GiB of strided view data written as a .ptd file with sha256 keys, against plain
   fwrite of the same bytes, in the same run, to the same directory.

   The 256 strided 4 MiB views and the fwrite baseline are bench_views.h's. The .ptd path adds them under sha256 keys with tp_store_add_all - through a
   2-thread pthreads parallel_for hook (bench_pool.h), and again serially - then
   tp_store_write_ptd_file streams them with tp_compact_write. No side calls fsync: all measure
   the write path into the page cache; sync() runs (untimed) before each timed write so that
   none starts behind another's dirty pages.
   Interleaved rounds; medians and ranges as in bench_table.h.
   Peak RSS growth of the .ptd write: VmHWM after the write minus VmRSS before it, with VmHWM
   reset through /proc/self/clear_refs (Linux).

   Targets (issues 6, 16): adds with sha256 keys + .ptd write >= 0.8x fwrite throughput on 2
   cores, RSS growth < 64 MiB. */
#define _XOPEN_SOURCE 700
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include "bench_table.h"
#include "bench_pool.h"

#include "bench_views.h"

#define ROUNDS 11

/* The .pte row's delegate blob: 64 bytes (the program's point here is its embedded named data). */
static tp_status produce_blob(void *ctx, tp_sink *sink) {
  (void)ctx;
  return tp_sink_zeros(sink, 64);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "/tmp";
  char ptd_path[512], raw_path[512], what[160];
  float *data;
  unsigned char *flat;
  tp_storage st;
  tp_tensor views[VIEWS];
  tp_store_item items[VIEWS];
  size_t i, view_bytes = BV_VIEW_BYTES;
  double t_write[ROUNDS], t_raw[ROUNDS], t_par[ROUNDS], t_ser[ROUNDS], t_all_par[ROUNDS],
      t_all_ser[ROUNDS], t_pte[ROUNDS];
  char pte_path[512];
  long rss_growth_kb = -1;
  uint64_t ptd_size = 0;
  int round, hwm_ok = 1, threads = 2;
  double gib = (double)view_bytes * VIEWS / (1024.0 * 1024.0 * 1024.0);

  snprintf(ptd_path, sizeof ptd_path, "%s/tp_bench_ptd.ptd", dir);
  snprintf(raw_path, sizeof raw_path, "%s/tp_bench_ptd.raw", dir);
  snprintf(pte_path, sizeof pte_path, "%s/tp_bench_ptd.pte", dir);
  bv_setup("bench_ptd", &data, &flat, &st, views);
  for (i = 0; i < VIEWS; i++) {
    memset(&items[i], 0, sizeof items[i]);
    items[i].view = &views[i];
    items[i].order = TP_ORDER_ROW_MAJOR;
  }

  for (round = -1; round < ROUNDS; round++) {
    tp_store *s, *ser;
    tp_store_options o;
    double t0, add_par, add_ser, wr, raw;
    long rss0;

    /* .ptd: adds with sha256 keys through the 2-thread hook, then the streamed write */
    memset(&o, 0, sizeof o);
    o.parallel_for = bench_pool_for;
    o.parallel_ctx = &threads;
    if (tp_store_create(&o, &s) != TP_OK) return 1;
    t0 = bv_now();
    if (tp_store_add_all(s, items, VIEWS) != TP_OK) {
      fprintf(stderr, "bench_ptd: add: %s\n", tp_store_error(s));
      return 1;
    }
    add_par = bv_now() - t0;
    if (tp_store_ptd_size(s, &ptd_size) != TP_OK) return 1;
    sync();
    rss0 = bv_rss_begin(&hwm_ok);
    t0 = bv_now();
    if (tp_store_write_ptd_file(s, ptd_path) != TP_OK) {
      fprintf(stderr, "bench_ptd: write: %s\n", tp_store_error(s));
      return 1;
    }
    wr = bv_now() - t0;
    bv_rss_end(rss0, &rss_growth_kb);
    tp_store_destroy(s);
    remove(ptd_path);

    /* a self-contained program: the same adds (hook), embedded in a .pte as named data */
    {
      tp_pte *prog;
      tp_pte_options po;
      tp_pte_method m;
      tp_pte_tensor arg;
      memset(&po, 0, sizeof po);
      memset(&m, 0, sizeof m);
      memset(&arg, 0, sizeof arg);
      arg.role = TP_PTE_INPUT | TP_PTE_OUTPUT;
      arg.dtype = TP_F32;
      arg.ndim = 1;
      arg.sizes[0] = 16;
      m.name = "forward";
      m.args = &arg;
      m.n_args = 1;
      m.backend_id = "XnnpackBackend";
      m.blob_size = 64;
      m.produce = produce_blob;
      if (tp_store_create(&o, &s) != TP_OK) return 1;
      sync();
      t0 = bv_now();
      if (tp_store_add_all(s, items, VIEWS) != TP_OK) return 1;
      po.embed = s;
      if (tp_pte_create(&po, &prog) != TP_OK || tp_pte_add_method(prog, &m) != TP_OK) return 1;
      if (tp_pte_write_file(prog, pte_path) != TP_OK) {
        fprintf(stderr, "bench_ptd: pte: %s\n", tp_pte_error(prog));
        return 1;
      }
      if (round >= 0) t_pte[round] = bv_now() - t0;
      tp_pte_destroy(prog);
      tp_store_destroy(s);
      remove(pte_path);
    }

    /* the same adds on the calling thread alone (the write is the same code either way) */
    if (tp_store_create(NULL, &ser) != TP_OK) return 1;
    t0 = bv_now();
    if (tp_store_add_all(ser, items, VIEWS) != TP_OK) return 1;
    add_ser = bv_now() - t0;
    tp_store_destroy(ser);

    /* baseline: plain fwrite of the compacted bytes */
    raw = bv_fwrite_flat(raw_path, flat);
    if (raw < 0) return 1;
    if (round >= 0) {
      t_write[round] = wr;
      t_raw[round] = raw;
      t_par[round] = add_par;
      t_ser[round] = add_ser;
      t_all_par[round] = add_par + wr;
      t_all_ser[round] = add_ser + wr;
    }
  }
  bt_row_rate("1 GiB strided views -> .ptd, sha256 keys, 2-thread hook (add_all + write)",
              "fwrite", t_all_par, t_raw, ROUNDS, 0.8);
  bt_row_rate("same, adds on one thread", "fwrite", t_all_ser, t_raw, ROUNDS, 0.8);
  bt_row_rate("same views -> self-contained .pte (embedded named data), 2-thread hook", "fwrite",
              t_pte, t_raw, ROUNDS, 0.8);
  bt_row_rate("tp_store_write_ptd_file alone (the adds done)", "fwrite", t_write, t_raw, ROUNDS,
              0.8);
  snprintf(what, sizeof what, "%.2f GiB/s with the 2-thread hook, %.2f GiB/s on one thread (%s)",
           gib / bt_median(t_par, ROUNDS), gib / bt_median(t_ser, ROUNDS),
           tp_sha256_accelerated() ? "SHA-NI" : "portable SHA-256");
  bt_note("tp_store_add_all, 256 views x 4 MiB, sha256 keys", what);
  bv_rss_note("peak RSS growth of the .ptd write", hwm_ok, rss_growth_kb);
  (void)ptd_size;
  free(flat);
  free(data);
  return 0;
}
