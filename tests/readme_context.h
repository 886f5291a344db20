/* readme_context.h - what the README's snippets take from the reader's program (a blob and its
   size, a .ptd, input and output buffers, a Vulkan device), so that tests/readme_snippets.sh can
   compile and link every snippet as written. Included after the headers. */
#ifndef TP_README_CONTEXT_H
#define TP_README_CONTEXT_H
const unsigned char *blob, *vk_blob;
size_t blob_size, ptd_size, vk_size;
const void *ptd, *file_bytes;
size_t file_size;
float x[64], y[64];
tp_ptd *vk_ptd;
tp_store *store;
tp_xnn_graph *g;
#ifdef TENSORPACK_VULKAN_RUNTIME
VkPhysicalDevice physical;
VkDevice device;
uint32_t queue_family;
#endif
#endif
