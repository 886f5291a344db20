/* The README's map "From PyTorch: which call, which layout" against the headers:
   every tensorpack name in it (`tp_...` / `TP_...` in backticks) is declared in one of the three
   headers (a TPDEF function, a typedef, a struct field's type or a #define); every Vulkan op
   named in backticks is in TP_VK_OPS; every tp_xnn_define_* call the header declares is named;
   every op of TP_VK_OPS is listed as "`op` (its kinds) {its types}" (no braces where its types
   are ""); the node kind count it states is the header's. The README's "API at a glance"
   names exactly the public functions the headers declare (TPDEF declarations of tp_ names,
   tp__ ones are the headers' own). Reads
   README.md and the headers from the current directory (the repository root, as make test
   runs it). */
#include "tensorpack_xnnpack.h"
#include "tensorpack_vulkan.h"
#include "tp_test.h"

#include <ctype.h>
#include <stdlib.h>

static char *g_hdr[3];
static char *g_sec; /* the map section, NUL-terminated */

/* name declared: "TPDEF ... name(", "#define name", "} name;", "typedef ... name;" or the
   X-macro / unary-macro forms the headers use for their calls */
static int declared(const char *name) {
  int h;
  size_t n = strlen(name);
  if (n > 150) return 0;
  for (h = 0; h < 3; h++) {
    const char *p = g_hdr[h];
    while (p && (p = strstr(p, name)) != NULL) {
      const char *e = p + n, *ls = p;
      int ident_before = p > g_hdr[h] && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
      int ident_after = isalnum((unsigned char)*e) || *e == '_';
      p = e;
      if (ident_before || ident_after) continue;
      while (ls > g_hdr[h] && ls[-1] != '\n') ls--;
      if (!strncmp(ls, "TPDEF ", 6) && *e == '(') return 1;
      if (!strncmp(ls, "#define ", 8) && ls + 8 == e - n) return 1;
      if (*e == ';' && (e - n > ls + 1 && !strncmp(e - n - 2, "} ", 2))) return 1;
      if (!strncmp(ls, "typedef ", 8) && (*e == ';' || *e == ' ')) return 1;
    }
  }
  return 0;
}

static int in_section(const char *needle) {
  return strstr(g_sec, needle) != NULL;
}

static void test_names_exist(void) {
  const char *p = g_sec;
  int names = 0, ops = 0, bad = 0;
  while ((p = strchr(p, '`')) != NULL) {
    const char *q = strchr(p + 1, '`');
    char span[400];
    size_t n;
    if (!q) break;
    n = (size_t)(q - p - 1);
    if (n < sizeof span) {
      size_t i;
      int is_op = n > 0;
      memcpy(span, p + 1, n);
      span[n] = '\0';
      /* a whole span like aten.linear.default: a Vulkan op */
      for (i = 0; i < n; i++)
        if (!(islower((unsigned char)span[i]) || isdigit((unsigned char)span[i]) ||
              span[i] == '_' || span[i] == '.'))
          is_op = 0;
      if (is_op && strchr(span, '.') && strncmp(span, "tp_", 3) != 0) {
        ops++;
        if (tp_vk_op_find(span) < 0) {
          printf("  README map: Vulkan op `%s` is not in TP_VK_OPS\n", span);
          bad++;
        }
      } else { /* every tp_ / TP_ identifier in it */
        const char *s = span;
        while (*s) {
          if ((!strncmp(s, "tp_", 3) || !strncmp(s, "TP_", 3)) &&
              (s == span || !(isalnum((unsigned char)s[-1]) || s[-1] == '_'))) {
            char id[160];
            size_t k = 0;
            while ((isalnum((unsigned char)s[k]) || s[k] == '_') && k + 1 < sizeof id) {
              id[k] = s[k];
              k++;
            }
            id[k] = '\0';
            if (s[k] == '*' || id[k - 1] == '_') { /* a pattern (tp_xnn_define_*), not a name */
              s += k;
              continue;
            }
            names++;
            if (!declared(id)) {
              printf("  README map: `%s` is declared in no header\n", id);
              bad++;
            }
            s += k;
          } else {
            s++;
          }
        }
      }
    }
    p = q + 1;
  }
  printf("  %d tensorpack names and %d Vulkan ops in the map checked\n", names, ops);
  TPT_CHECK(names > 80 && ops > 30);
  TPT_EQ_INT(bad, 0);
}

static void test_every_call_listed(void) {
  const char *p = g_hdr[1], *end = strstr(g_hdr[1], "stop here"); /* the declarations */
  int calls = 0, missing = 0, kinds = 0, k;
  size_t i, described = 0;
  char want[600];
  while ((p = strstr(p, "TPDEF tp_status tp_xnn_define_")) != NULL && (!end || p < end)) {
    char id[100];
    size_t n = 0;
    p += strlen("TPDEF tp_status ");
    while ((isalnum((unsigned char)p[n]) || p[n] == '_') && n + 1 < sizeof id) {
      id[n] = p[n];
      n++;
    }
    id[n] = '\0';
    snprintf(want, sizeof want, "`%s`", id);
    calls++;
    if (!in_section(want)) {
      printf("  README map does not name %s\n", id);
      missing++;
    }
  }
  for (i = 0; i < tp_vk_op_count(); i++) { /* "`op` (kinds) {types}" or "`op` (kinds)" + ; . */
    const char *t = tp_vk_op_types(i), *hit;
    described++;
    if (t[0])
      snprintf(want, sizeof want, "`%s` (%s) {%s}", tp_vk_op_name(i), tp_vk_op_args(i), t);
    else
      snprintf(want, sizeof want, "`%s` (%s)", tp_vk_op_name(i), tp_vk_op_args(i));
    hit = strstr(g_sec, want);
    if (!hit || (hit[strlen(want)] != ';' && hit[strlen(want)] != '.')) {
      printf("  README map does not list %s\n", want);
      missing++;
    }
  }
  for (k = 0; k < 256; k++) {
    const char *nm = tp_xnn_node_name(k);
    if (nm && nm[0] && nm[0] != '?') kinds++;
  }
  snprintf(want, sizeof want, "one per node kind (%d)", kinds);
  TPT_CHECK(in_section(want));
  printf("  %d tp_xnn_define_* calls, %d node kinds, %lu described Vulkan ops looked for\n",
         calls, kinds, (unsigned long)described);
  TPT_CHECK(calls > 50 && described == tp_vk_op_count());
  TPT_EQ_INT(missing, 0);
}

/* The public functions: every "TPDEF ... tp_name(...);" declaration (a ';' before any '{') of a
   name that is not tp__, in the three headers, is named in the API section, and every tp_ name
   there is such a declaration. The declarations are collected in one pass over the headers. */
static char *g_api; /* the API section, NUL-terminated */
static char g_pub[1024][80];
static int g_npub;
static void collect_public(void) {
  int h;
  const char *p;
  for (h = 0; h < 3; h++)
    for (p = g_hdr[h]; (p = strstr(p, "\nTPDEF ")) != NULL;) {
      const char *q = strchr(p + 7, '('), *e;
      p += 7;
      if (!q || q[strcspn(q, ";{")] != ';') continue; /* a definition */
      for (e = q; e > p && (isalnum((unsigned char)e[-1]) || e[-1] == '_'); e--) {
      }
      if (q - e < 4 || q - e >= 80 || strncmp(e, "tp_", 3) || !strncmp(e, "tp__", 4)) continue;
      if (g_npub < 1024) {
        memcpy(g_pub[g_npub], e, (size_t)(q - e));
        g_pub[g_npub++][q - e] = '\0';
      }
    }
}
static int public_decl(const char *name) {
  int i;
  for (i = 0; i < g_npub; i++)
    if (!strcmp(g_pub[i], name)) return 1;
  return 0;
}
static void test_api_listed(void) {
  int i, listed = 0, bad = 0;
  const char *p;
  collect_public();
  for (i = 0; i < g_npub; i++) { /* every public declaration is named */
    char want[100];
    snprintf(want, sizeof want, "`%.79s`", g_pub[i]);
    if (!strstr(g_api, want)) {
      printf("  README's API at a glance does not name %s\n", want);
      bad++;
    }
  }
  for (p = g_api; (p = strstr(p, "`tp_")) != NULL; p++) { /* every name there is one */
    char id[160];
    size_t k = 0;
    while ((isalnum((unsigned char)p[1 + k]) || p[1 + k] == '_') && k + 1 < sizeof id) {
      id[k] = p[1 + k];
      k++;
    }
    id[k] = '\0';
    if (p[1 + k] != '`') continue;
    listed++;
    if (!public_decl(id)) {
      printf("  README's API at a glance names `%s`, which no header declares public\n", id);
      bad++;
    }
  }
  printf("  %d public declarations, %d names listed\n", g_npub, listed);
  TPT_CHECK(g_npub > 300 && g_npub < 1024);
  TPT_EQ_INT(listed, g_npub);
  TPT_EQ_INT(bad, 0);
}

/* The inputs: README.md and the three headers read, and the map's section in README. */
static char *g_readme;
static void test_inputs_found(void) {
  TPT_CHECK(g_readme && g_hdr[0] && g_hdr[1] && g_hdr[2]);
  if (!g_readme || !g_hdr[0] || !g_hdr[1] || !g_hdr[2])
    printf("  run from the repository root (or set TP_ROOT)\n");
  TPT_CHECK(g_sec != NULL);
  TPT_CHECK(g_api != NULL);
}

int main(void) {
  const char *root = getenv("TP_ROOT");
  char path[600], *b;
  static const char *const hs[3] = {"tensorpack.h", "tensorpack_xnnpack.h", "tensorpack_vulkan.h"};
  int i;
  (void)tpt_range;
  if (!root || !*root) root = ".";
  snprintf(path, sizeof path, "%s/README.md", root);
  g_readme = tpt_read_file(path, NULL);
  for (i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", root, hs[i]);
    g_hdr[i] = tpt_read_file(path, NULL);
  }
  if (g_readme && g_hdr[0] && g_hdr[1] && g_hdr[2]) {
    g_sec = strstr(g_readme, "\n## From PyTorch: which call, which layout");
    g_api = strstr(g_readme, "\n## The API at a glance");
    if (g_sec && (b = strstr(g_sec + 1, "\n## ")) != NULL) *b = '\0';
    if (g_api && (b = strstr(g_api + 1, "\n## ")) != NULL) *b = '\0';
  }
  TPT_RUN(test_inputs_found);
  if (g_sec) {
    TPT_RUN(test_names_exist);
    TPT_RUN(test_every_call_listed);
  }
  if (g_api) TPT_RUN(test_api_listed);
  free(g_readme);
  for (i = 0; i < 3; i++) free(g_hdr[i]);
  return tpt_finish("readme_map");
}
