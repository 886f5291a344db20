/* et_diff.c - the differential test against ExecuTorch's runtime (issue 20; tools/et-diff.sh
   builds and drives it).

     et_diff RUNNER DIR FIRST COUNT
     et_diff --describe SEED        (the graph of SEED: values, nodes, writer verdict)

   For seeds FIRST .. FIRST+COUNT-1: the graph of tests/xnn_graphs.h, its writer verdict at
   target 0 (accepted, or refused with the status), then the graph written as a one-delegate
   .pte (tp_xnn_add_pte_method) - a refused one at TP_XNN_TARGET_UNCHECKED so that its bytes
   exist - run in RUNNER (ExecuTorch's executor_runner) with random inputs, one process per
   graph under `timeout 20`, its outputs compared with the float64 reference of
   tests/xnn_graphs_ref.h; three input sets per graph (a rule that is wrong can be right by
   chance on one). The ExecuTorch verdict:
     ok              ran, every output element within its tolerance
     wrong           ran, an output off (the max error and the element count are printed)
     init-refused    "Loading of method ... failed" (the backend's init refused the blob)
     execute-failed  "Execution of method ... failed"
     input-refused   the runner refused our inputs (a program writer's bug, ours)
     load-refused    the program did not parse
     crashed(SIGNAME) killed by a signal with none of the sentences above
     timeout         ran past 20 s
     unwritable      the writer could not write the bytes even unchecked (no run)
   One line per seed on stdout, the table's format (tests/data/et_verdicts_xnnpack.txt):
     SEED KINDS DATATYPES SPOIL WRITER ET [MAXERR]
   and, on stderr, the writer's sentence and the runner's error line for every graph whose
   verdicts are not (accepted, ok). The graph files stay in DIR (SEED.pte, SEED-inK.bin). */
#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_XNNPACK_IMPLEMENTATION
#include "../tensorpack.h"
#include "../tensorpack_xnnpack.h"
#define XG_REFERENCE
#include "../tests/xnn_graphs.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#define XG_TRIALS 3 /* input sets per graph */

static xg_graph g_graph;

static const char *sig_name(int s) {
  switch (s) {
    case SIGSEGV: return "SIGSEGV";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    default: return "SIG?";
  }
}

/* "qdint8/qcint4>fp32": the main node's input / weight datatypes > its output's */
static void dts_of(const xg_graph *G, char *buf, size_t size) {
  const xg_node *n = &G->n[0];
  uint32_t i;
  for (i = 0; i < G->nnode; i++)
    if (G->n[i].kind == G->kind) n = &G->n[i];
  snprintf(buf, size, "%s%s%s>%s", tp_xnn_datatype_name(G->v[n->in[0]].dt),
           n->filter != XG_NONE || n->nin > 1 ? "/" : "",
           n->filter != XG_NONE ? tp_xnn_datatype_name(G->v[n->filter].dt)
           : n->nin > 1 ? tp_xnn_datatype_name(G->v[n->in[1]].dt) : "",
           tp_xnn_datatype_name(G->v[n->out].dt));
}

static int write_file(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(p, 1, n, f) == n;
  if (f && fclose(f) != 0) ok = 0;
  return ok;
}

static unsigned char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  unsigned char *p;
  long len;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  p = (unsigned char *)malloc((size_t)len + 1);
  if (p && fread(p, 1, (size_t)len, f) != (size_t)len) {
    free(p);
    p = NULL;
  }
  fclose(f);
  *n = (size_t)len;
  return p;
}

/* the first "E ..." line of the runner's log, or its last line */
static void log_line(const char *path, char *buf, size_t size) {
  size_t n = 0;
  unsigned char *p = read_file(path, &n);
  char *s, *e;
  buf[0] = 0;
  if (!p) return;
  p[n] = 0;
  s = strstr((char *)p, "\nE ");
  if (!s) s = strstr((char *)p, "Check failed");
  if (!s) {
    s = (char *)p + n;
    while (s > (char *)p && (s[-1] == '\n')) s--;
    *s = 0;
    while (s > (char *)p && s[-1] != '\n') s--;
  } else if (*s == '\n') {
    s++;
  }
  e = strchr(s, '\n');
  if (e) *e = 0;
  snprintf(buf, size, "%s", s);
  free(p);
}

static int log_has(const char *path, const char *what) {
  size_t n = 0;
  unsigned char *p = read_file(path, &n);
  int has;
  if (!p) return 0;
  p[n] = 0;
  has = strstr((char *)p, what) != NULL;
  free(p);
  return has;
}

/* compares output file `path` of value v with its reference: max error into *err; 1 when
   every element is within its tolerance */
static int compare(const xg_value *v, const xr_t *r, const char *path, double *err, char *why,
                   size_t wsize) {
  size_t n = 0, es = xg_esize(v->dt), i, bad = 0;
  unsigned char *p = read_file(path, &n);
  xg_value nat = *v;
  int ok = 1;
  *err = 0;
  if (!p) {
    snprintf(why, wsize, "no output file");
    return 0;
  }
  if (n != r->n * es) {
    snprintf(why, wsize, "%lu output bytes, the reference has %lu elements of %lu",
             (unsigned long)n, (unsigned long)r->n, (unsigned long)es);
    free(p);
    return 0;
  }
  nat.nd = r->nd;
  memcpy(nat.dims, r->d, sizeof r->d);
  for (i = 0; i < r->n; i++) {
    double got = xr_elem(&nat, p, NULL, i), d;
    if (isnan(got) && isnan(r->x[i])) continue;
    if (isinf(r->t[i])) continue;
    d = fabs(got - r->x[i]);
    if (isnan(d)) d = INFINITY;
    if (d > *err) *err = d;
    if (!(d <= r->t[i])) {
      if (!bad)
        snprintf(why, wsize, "element %lu: %.9g, reference %.9g (tolerance %.3g)",
                 (unsigned long)i, got, r->x[i], r->t[i]);
      bad++;
      ok = 0;
    }
  }
  if (bad) {
    size_t l = strlen(why);
    snprintf(why + l, wsize - l, "; %lu of %lu elements off", (unsigned long)bad,
             (unsigned long)r->n);
  }
  free(p);
  return ok;
}

static int run_seed(const char *runner, const char *dir, uint64_t seed) {
  xg_graph *G = &g_graph;
  char verdict[64], sentence[1024], kinds[160], dts[80], base[512], path[600], cmd[4096];
  char inputs[2048], et[64], why[512], line[512], maxerr[48];
  tp_xnn_graph *g = NULL;
  tp_pte *p = NULL;
  tp_status st;
  uint32_t i, k = 0;
  unsigned char *in[XG_MAXV];
  xr_t R[XG_MAXV];
  xg_rng rng;
  int rc, have_ref, trial;
  size_t il = 0;

  xg_generate(seed, G);
  xg_kinds(G, kinds, sizeof kinds);
  dts_of(G, dts, sizeof dts);
  st = xg_verdict(G, verdict, sizeof verdict, sentence, sizeof sentence);
  snprintf(base, sizeof base, "%s/%llu", dir, (unsigned long long)seed);
  why[0] = maxerr[0] = 0;
  memset(R, 0, sizeof R);
  memset(in, 0, sizeof in);

  /* the bytes: at target 0 when accepted, else unchecked */
  if (xg_define(G, st == TP_OK ? TP_XNN_TARGET_EXECUTORCH : TP_XNN_TARGET_UNCHECKED, &g) != TP_OK ||
      tp_pte_create(NULL, &p) != TP_OK || tp_xnn_add_pte_method(p, "forward", g) != TP_OK) {
    snprintf(et, sizeof et, "unwritable");
    snprintf(why, sizeof why, "%s", p && tp_pte_status(p) != TP_OK ? tp_pte_error(p) : tp_xnn_graph_error(g));
    goto done;
  }
  snprintf(path, sizeof path, "%s.pte", base);
  if (tp_pte_save(p, path, NULL) != TP_OK) {
    snprintf(et, sizeof et, "unwritable");
    snprintf(why, sizeof why, "%s", tp_pte_error(p));
    goto done;
  }

  /* XG_TRIALS sets of random inputs, each written and kept for the reference; the verdict is
     the first trial's that is not ok (a wrong rule can be right by chance on one set) */
  for (trial = 0; trial < XG_TRIALS; trial++) {
  for (i = 0; i < XG_MAXV; i++) {
    xr_free(&R[i]);
    free(in[i]);
    in[i] = NULL;
  }
  k = 0;
  il = 0;
  rng.s = seed ^ 0x5DEECE66Dull ^ ((uint64_t)trial << 40);
  inputs[0] = 0;
  for (i = 0; i < G->nval; i++) {
    const xg_value *v = &G->v[i];
    size_t nb;
    if (v->role != XG_INPUT) continue;
    nb = xg_numel(v) * xg_esize(v->dt);
    in[k] = (unsigned char *)calloc(nb + 16, 1);
    if (!in[k]) return 1;
    xg_fill(&rng, v->dt, in[k], xg_numel(v), xg_kind_positive(G->kind));
    snprintf(path, sizeof path, "%s-in%u.bin", base, k);
    if (!write_file(path, in[k], nb)) {
      fprintf(stderr, "et_diff: cannot write %s\n", path);
      return 1;
    }
    il += (size_t)snprintf(inputs + il, sizeof inputs - il, "%s%s", k ? "," : "", path);
    k++;
  }
  have_ref = xr_graph(G, in, R) == 1;

  snprintf(cmd, sizeof cmd,
           "timeout -s KILL 20 %s --model_path %s.pte %s%s --output_file %s-out "
           "--print_output none > %s.log 2>&1",
           runner, base, k ? "--inputs " : "", inputs, base, base);
  for (i = 0; i < 8; i++) { /* old outputs must not count */
    snprintf(path, sizeof path, "%s-out-%u.bin", base, i);
    remove(path);
  }
  rc = system(cmd);
  snprintf(path, sizeof path, "%s.log", base);
  log_line(path, line, sizeof line);
  if (rc == -1 || !WIFEXITED(rc)) {
    snprintf(et, sizeof et, "crashed(shell)");
  } else {
    int code = WEXITSTATUS(rc);
    if (log_has(path, "Loading of method")) snprintf(et, sizeof et, "init-refused");
    else if (log_has(path, "Execution of method")) snprintf(et, sizeof et, "execute-failed");
    else if (log_has(path, "Failed to parse model") || log_has(path, "Program::load"))
      snprintf(et, sizeof et, "load-refused");
    else if (log_has(path, "prepare_input") || log_has(path, "Failed to prepare"))
      snprintf(et, sizeof et, "input-refused");
    else if (code == 137) snprintf(et, sizeof et, "timeout");
    else if (code > 128) snprintf(et, sizeof et, "crashed(%s)", sig_name(code - 128));
    else if (code != 0) snprintf(et, sizeof et, "failed(%d)", code);
    else {
      /* ran: compare each output */
      uint32_t o = 0;
      double worst = 0;
      int good = 1;
      snprintf(et, sizeof et, "ok");
      for (i = 0; i < G->nval; i++) {
        double e = 0;
        char w[256];
        if (G->v[i].role != XG_OUTPUT) continue;
        snprintf(path, sizeof path, "%s-out-%u.bin", base, o++);
        w[0] = 0;
        if (!have_ref || !R[i].ok) {
          good = 0;
          snprintf(why, sizeof why, "ran, but the reference has no answer for output %u", o - 1);
          continue;
        }
        if (!compare(&G->v[i], &R[i], path, &e, w, sizeof w)) {
          good = 0;
          snprintf(why, sizeof why, "output %u: %s", o - 1, w);
        }
        if (e > worst) worst = e;
      }
      if (!good) {
        snprintf(et, sizeof et, "wrong");
        snprintf(maxerr, sizeof maxerr, " %.3g", worst);
      }
    }
  }
  if (!why[0]) snprintf(why, sizeof why, "%s", line);
  if (strcmp(et, "ok") != 0) break;
  }

done:
  printf("%llu %s %s %s %s %s%s\n", (unsigned long long)seed, kinds, dts, G->bad[0] ? G->bad : "-",
         verdict, et, maxerr);
  if (st != TP_OK || strcmp(et, "ok") != 0)
    fprintf(stderr, "%llu %s %s %s | %s | %s\n", (unsigned long long)seed, kinds, verdict, et,
            st != TP_OK ? sentence : "", why);
  fflush(stdout);
  for (i = 0; i < XG_MAXV; i++) {
    xr_free(&R[i]);
    free(in[i]);
  }
  tp_pte_destroy(p);
  tp_xnn_graph_destroy(g);
  return 0;
}

/* et_diff --describe SEED: the graph's values and nodes, for reading a verdict */
static void describe(uint64_t seed) {
  xg_graph *G = &g_graph;
  char verdict[64], sentence[1024];
  uint32_t i, k;
  xg_generate(seed, G);
  xg_verdict(G, verdict, sizeof verdict, sentence, sizeof sentence);
  printf("seed %llu: %s%s%s\n", (unsigned long long)seed, verdict, sentence[0] ? ": " : "",
         sentence);
  for (i = 0; i < G->nval; i++) {
    const xg_value *v = &G->v[i];
    printf("  value %u: %s %s [", i, v->role == XG_INPUT ? "input" : v->role == XG_OUTPUT ? "output"
                                     : v->role == XG_CONST ? "const" : "internal",
           tp_xnn_datatype_name(v->dt));
    for (k = 0; k < v->nd; k++) printf("%s%lu", k ? ", " : "", (unsigned long)v->dims[k]);
    printf("] scale %g zp %d cdim %lu block %lu nnb %lu ext %d\n", (double)v->scale, (int)v->zp,
           (unsigned long)v->cdim, (unsigned long)v->block, (unsigned long)v->nnb,
           v->ext == XG_NONE ? -1 : (int)v->ext);
  }
  for (i = 0; i < G->nnode; i++) {
    const xg_node *n = &G->n[i];
    printf("  node %u: %s in", i, tp_xnn_node_name(n->kind));
    for (k = 0; k < n->nin; k++) printf(" %u", n->in[k]);
    printf(" filter %d bias %d out %u out2 %d flags 0x%x min %g max %g param %g\n",
           n->filter == XG_NONE ? -1 : (int)n->filter, n->bias == XG_NONE ? -1 : (int)n->bias,
           n->out, n->out2 == XG_NONE ? -1 : (int)n->out2, n->flags, (double)n->omin,
           (double)n->omax, (double)n->param);
    printf("    pad %u %u %u %u k %ux%u s %ux%u d %ux%u adj %ux%u groups %u gic %u goc %u axis %u"
           " new %lux%lu vec",
           n->pad[0], n->pad[1], n->pad[2], n->pad[3], n->kh, n->kw, n->sh, n->sw, n->dh, n->dw,
           n->adjh, n->adjw, n->groups, n->gic, n->goc, n->axis, (unsigned long)n->newh,
           (unsigned long)n->neww);
    for (k = 0; k < n->nv; k++) printf(" %lu/%lu", (unsigned long)n->v1[k], (unsigned long)n->v2[k]);
    printf("\n");
  }
}

int main(int argc, char **argv) {
  unsigned long long first, count, s;
  if (argc == 3 && !strcmp(argv[1], "--describe")) {
    describe(strtoull(argv[2], NULL, 10));
    return 0;
  }
  if (argc != 5) {
    fprintf(stderr, "usage: %s RUNNER DIR FIRST COUNT\n", argv[0]);
    return 2;
  }
  first = strtoull(argv[3], NULL, 10);
  count = strtoull(argv[4], NULL, 10);
  for (s = first; s < first + count; s++)
    if (run_seed(argv[1], argv[2], s) != 0) return 1;
  return 0;
}
