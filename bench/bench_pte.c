/* bench_pte: a program (.pte) carrying 1 GiB of strided-view constants as named data, against
   plain fwrite of the same bytes, in the same run, to the same directory.

   The constants are bench_ptd's (bench_views.h): 256 strided views of 4 MiB. They go into a
   store (sha256 keys; hashing not timed) that the program embeds (options.embed), next to one
   method whose 40-byte "blob" comes from a producer; tp_pte_write_file streams the
   flatbuffer, the blob and then every view through tp_compact_write into a temp file and
   renames it. The baseline is bench_views.h's fwrite of the same bytes. sync() (untimed) before
   each timed write; no fsync on either side. 3 rounds; the median and range go to make bench's table. Peak RSS growth of the .pte write: VmHWM after
   the write minus VmRSS before it, VmHWM reset through /proc/self/clear_refs (Linux).

   Targets (issue 11): .pte write >= 0.8x fwrite throughput, RSS growth < 64 MiB. */
#define _XOPEN_SOURCE 700
#define TENSORPACK_IMPLEMENTATION
#include "tensorpack.h"
#include "bench_table.h"
#include "bench_views.h"

static tp_status blob40(void *ctx, tp_sink *sink) {
  static const unsigned char b[40] = {0, 0, 0, 0, 'X', 'H', '0', '0'};
  (void)ctx;
  return tp_sink_write(sink, b, sizeof b);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "/tmp";
  char pte_path[512], raw_path[512];
  float *data;
  unsigned char *flat;
  tp_storage st;
  tp_tensor views[VIEWS];
  size_t i;
  double t_pte[3], t_raw[3];
  long rss_growth_kb = -1;
  uint64_t pte_size = 0;
  int round, hwm_ok = 1;
  tp_store *s = NULL;
  tp_pte *p = NULL;
  tp_pte_options o;
  tp_pte_method m;
  tp_pte_tensor args[2];

  snprintf(pte_path, sizeof pte_path, "%s/tp_bench_pte.pte", dir);
  snprintf(raw_path, sizeof raw_path, "%s/tp_bench_pte.raw", dir);
  bv_setup("bench_pte", &data, &flat, &st, views);
  if (tp_store_create(NULL, &s) != TP_OK) return 1;
  for (i = 0; i < VIEWS; i++)
    if (tp_store_add(s, NULL, &views[i], TP_ORDER_ROW_MAJOR, 0, NULL) != TP_OK) {
      fprintf(stderr, "bench_pte: view %lu: %s\n", (unsigned long)i, tp_store_error(s));
      return 1;
    }
  memset(&o, 0, sizeof o);
  o.embed = s;
  memset(args, 0, sizeof args);
  args[0].role = TP_PTE_INPUT;
  args[1].role = TP_PTE_OUTPUT;
  args[0].dtype = args[1].dtype = TP_F32;
  args[0].ndim = args[1].ndim = 2;
  args[0].sizes[0] = args[1].sizes[0] = 1;
  args[0].sizes[1] = args[1].sizes[1] = VC;
  memset(&m, 0, sizeof m);
  m.name = "forward";
  m.args = args;
  m.n_args = 2;
  m.backend_id = "XnnpackBackend";
  m.blob_size = 40;
  m.produce = blob40;
  if (tp_pte_create(&o, &p) != TP_OK || tp_pte_add_method(p, &m) != TP_OK ||
      tp_pte_size(p, &pte_size) != TP_OK) {
    fprintf(stderr, "bench_pte: %s\n", p ? tp_pte_error(p) : "create");
    return 1;
  }

  for (round = 0; round < 3; round++) {
    double t0;
    long rss0;
    sync();
    rss0 = bv_rss_begin(&hwm_ok);
    t0 = bv_now();
    if (tp_pte_write_file(p, pte_path) != TP_OK) {
      fprintf(stderr, "bench_pte: write: %s\n", tp_pte_error(p));
      return 1;
    }
    t_pte[round] = bv_now() - t0;
    bv_rss_end(rss0, &rss_growth_kb);
    remove(pte_path);
    t_raw[round] = bv_fwrite_flat(raw_path, flat);
    if (t_raw[round] < 0) return 1;
  }
  /* rows of make bench's table (bench_table.h); 3 rounds, interleaved */
  bt_row_rate("1 GiB strided views embedded in a .pte: tp_pte_write_file (adds done)", "fwrite",
              t_pte, t_raw, 3, 0.8);
  bv_rss_note("peak RSS growth of the .pte write", hwm_ok, rss_growth_kb);
  (void)pte_size;
  tp_pte_destroy(p);
  tp_store_destroy(s);
  free(flat);
  free(data);
  return 0;
}
