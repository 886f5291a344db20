/* The atomic file write on every platform this suite runs on (natively, on s390x under qemu,
   on Windows under wine: mk/platforms.mk): a write creates the file, a second write replaces
   an existing file (on Windows rename does not replace; MoveFileEx does), a failed produce or
   a failed commit leaves the old file as it was and no temp file ("<path>.tmp.<n>") behind. */
#include "tensorpack.h"
#include "tp_test.h"

#include <stdlib.h>
#include <time.h>

static char g_dir[512]; /* where the files go: $TMPDIR, %TEMP%, /tmp or . */
static char g_path[600];
static unsigned g_tag;  /* in every name, so parallel runs (native, qemu, wine) never collide */

static void make_path(const char *name) {
  snprintf(g_path, sizeof g_path, "%s/tp_atomic_%u_%s", g_dir, g_tag, name);
}

/* The whole file at path into buf (NUL-terminated); -1 when it cannot be opened. */
static long read_all(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  size_t n;
  if (!f) return -1;
  n = fread(buf, 1, cap - 1, f);
  buf[n] = '\0';
  fclose(f);
  return (long)n;
}

/* Number of "<path>.tmp.<n>" files present (tp_atomic_open tries n = 0..63). */
static int temp_files(const char *path) {
  char tmp[700];
  int n, found = 0;
  for (n = 0; n < 64; n++) {
    FILE *f;
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, n);
    f = fopen(tmp, "rb");
    if (f) {
      found++;
      fclose(f);
    }
  }
  return found;
}

typedef struct text {
  const char *s;
  tp_status fail_with; /* TP_OK: write s; else write half of it, then fail */
} text;

static tp_status produce_text(void *ctx, tp_sink *sink) {
  const text *t = (const text *)ctx;
  size_t n = strlen(t->s);
  if (t->fail_with != TP_OK) {
    tp_status s = tp_sink_write(sink, t->s, n / 2);
    return s != TP_OK ? s : t->fail_with;
  }
  return tp_sink_write(sink, t->s, n);
}

static tp_status write_text(const char *path, const char *s, tp_status fail_with) {
  text t;
  t.s = s;
  t.fail_with = fail_with;
  return tp_atomic_write(path, produce_text, &t, NULL);
}

static void test_create_and_replace(void) {
  char buf[256];
  make_path("a.bin");
  remove(g_path);
  TPT_STATUS(write_text(g_path, "first version\n", TP_OK), TP_OK);
  TPT_EQ_INT(read_all(g_path, buf, sizeof buf), 14);
  TPT_EQ_STR(buf, "first version\n");
  /* an existing file is replaced (binary: "\n" stays one byte on Windows) */
  TPT_STATUS(write_text(g_path, "second, longer version\n", TP_OK), TP_OK);
  TPT_EQ_INT(read_all(g_path, buf, sizeof buf), 23);
  TPT_EQ_STR(buf, "second, longer version\n");
  TPT_STATUS(write_text(g_path, "3\n", TP_OK), TP_OK); /* shorter: nothing of the old left */
  TPT_EQ_INT(read_all(g_path, buf, sizeof buf), 2);
  TPT_EQ_STR(buf, "3\n");
  TPT_EQ_INT(temp_files(g_path), 0);
  remove(g_path);
}

static void test_failures_leave_nothing(void) {
  char buf[256], bad[700];
  make_path("b.bin");
  remove(g_path);
  TPT_STATUS(write_text(g_path, "kept\n", TP_OK), TP_OK);
  /* produce fails half way: the old file stays whole, the temp file is gone */
  TPT_STATUS(write_text(g_path, "never seen\n", TP_ERR_FORMAT), TP_ERR_FORMAT);
  TPT_EQ_INT(read_all(g_path, buf, sizeof buf), 5);
  TPT_EQ_STR(buf, "kept\n");
  TPT_EQ_INT(temp_files(g_path), 0);
  /* a failed first write leaves no file at all */
  remove(g_path);
  TPT_STATUS(write_text(g_path, "never seen\n", TP_ERR_IO), TP_ERR_IO);
  TPT_EQ_INT(read_all(g_path, buf, sizeof buf), -1);
  TPT_EQ_INT(temp_files(g_path), 0);
  /* a missing directory: TP_ERR_IO at open, nothing created */
  snprintf(bad, sizeof bad, "%s/tp_no_such_dir_atomic/x.bin", g_dir);
  TPT_STATUS(write_text(bad, "x", TP_OK), TP_ERR_IO);
  TPT_EQ_INT(temp_files(bad), 0);
  /* commit onto a path that is a directory: the rename / MoveFileEx fails, the temp goes */
  TPT_STATUS(write_text(g_dir, "x", TP_OK), TP_ERR_IO);
  TPT_EQ_INT(temp_files(g_dir), 0);
}

static void test_open_commit_abort(void) {
  tp_atomic_file af;
  tp_sink sink;
  char buf[256];
  make_path("c.bin");
  remove(g_path);
  TPT_STATUS(write_text(g_path, "old\n", TP_OK), TP_OK);
  /* two writers at once get two temp files; the last commit wins, neither leaves a temp */
  {
    tp_atomic_file a2;
    tp_sink s2;
    TPT_STATUS(tp_atomic_open(&af, g_path, &sink), TP_OK);
    TPT_STATUS(tp_atomic_open(&a2, g_path, &s2), TP_OK);
    TPT_EQ_INT(temp_files(g_path), 2);
    TPT_STATUS(tp_sink_write(&sink, "one\n", 4), TP_OK);
    TPT_STATUS(tp_sink_write(&s2, "two!\n", 5), TP_OK);
    TPT_STATUS(tp_atomic_commit(&af), TP_OK);
    TPT_EQ_INT(read_all(g_path, buf, sizeof buf), 4);
    TPT_STATUS(tp_atomic_commit(&a2), TP_OK);
    TPT_EQ_INT(read_all(g_path, buf, sizeof buf), 5);
    TPT_EQ_STR(buf, "two!\n");
    TPT_EQ_INT(temp_files(g_path), 0);
  }
  /* abort: the old file stays, the temp goes */
  TPT_STATUS(tp_atomic_open(&af, g_path, &sink), TP_OK);
  TPT_STATUS(tp_sink_write(&sink, "aborted\n", 8), TP_OK);
  TPT_EQ_INT(temp_files(g_path), 1);
  tp_atomic_abort(&af);
  TPT_EQ_INT(temp_files(g_path), 0);
  TPT_EQ_STR((read_all(g_path, buf, sizeof buf), buf), "two!\n");
  /* commit after the object was cleared: invalid, nothing touched */
  TPT_STATUS(tp_atomic_commit(&af), TP_ERR_INVALID);
  TPT_EQ_STR((read_all(g_path, buf, sizeof buf), buf), "two!\n");
  remove(g_path);
}

int main(void) {
  g_tag = (unsigned)time(NULL) ^ (unsigned)clock() * 2654435761u;
  tpt_tmpdir(g_dir, sizeof g_dir);
  (void)tpt_range;
  TPT_RUN(test_create_and_replace);
  TPT_RUN(test_failures_leave_nothing);
  TPT_RUN(test_open_commit_abort);
  return tpt_finish("atomic_file");
}
