/* et_poison_free.c - an LD_PRELOAD library for the differential test (tools/et-diff.sh): free()
   fills the block with 0x7f bytes before releasing it, so that a program reading memory it
   freed reads 0x7f7f7f7f (about 3.4e38 as fp32) every time instead of whatever the allocator
   left there.

   Why: ExecuTorch's XNNPACK backend frees the delegate blob once the runtime is created
   (XNNPACKBackend.cpp, processed->Free()), and an XNNPACK node that does not pack its constant
   input at create (concatenate, a binary node, prelu, copy, ...) reads it from that freed blob
   each time it runs. Without the poison such a graph runs right or wrong depending on what the
   allocator reused (2 of 189 random concatenates with a constant input came out wrong); with
   it, every one is wrong, as the writer's rule at target 0 says.

   Built by tools/et-diff.sh: cc -shared -fPIC tools/et_poison_free.c -o WORK/poison.so -ldl
   (glibc: malloc_usable_size gives the block's size). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <string.h>

/* The C library's free(), found once. */
static void (*et_real_free)(void *);

void free(void *p) {
  if (!et_real_free) et_real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
  if (p) memset(p, 0x7f, malloc_usable_size(p));
  et_real_free(p);
}
