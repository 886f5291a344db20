/* A tensorpack Vulkan blob on a real Vulkan device (lavapipe on CPU machines): its constants
   are uploaded with tp_vk_upload_blob, and a compute shader computes y = W x with the uploaded
   weight, which is a transposed view at an offset into a larger storage. The result must match
   a double-precision C reference; the whole-storage bytes would not. Inline and named (.ptd)
   constants, the staging path, fp16 constants and malformed blobs are covered too.
   Exit 77 (skipped) when there is no Vulkan device. */
#define _POSIX_C_SOURCE 200809L
#define TENSORPACK_IMPLEMENTATION
#define TENSORPACK_VULKAN_IMPLEMENTATION
#define TENSORPACK_VULKAN_RUNTIME
#include "tensorpack_vulkan.h"
#include "tp_test.h"

#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static const uint32_t matvec_spv[] =
#include "shaders/matvec.spv.inc"
    ;

static struct {
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  uint32_t family;
  VkQueue queue;
  VkPhysicalDeviceMemoryProperties mem;
  int all_host_visible; /* every memory type is host-visible: buffers can be mapped to check */
} C;

/* 0: ready; 77: no instance or no device with a compute queue; 1: a failure after that. */
static int setup(void) {
  VkApplicationInfo app;
  VkInstanceCreateInfo ici;
  VkPhysicalDevice devs[16];
  uint32_t ndev = 16, d, i;
  VkResult r;
  memset(&app, 0, sizeof app);
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "tensorpack-vkrt";
  app.apiVersion = VK_API_VERSION_1_0;
  memset(&ici, 0, sizeof ici);
  ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ici.pApplicationInfo = &app;
  r = vkCreateInstance(&ici, NULL, &C.instance);
  if (r != VK_SUCCESS) {
    printf("vkCreateInstance: VkResult %d\n", (int)r);
    return 77;
  }
  /* Keep lavapipe loaded until exit, or LeakSanitizer reports the ICD's unload. */
  (void)dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  r = vkEnumeratePhysicalDevices(C.instance, &ndev, devs);
  if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || ndev == 0) {
    printf("no Vulkan device (VkResult %d, %u devices)\n", (int)r, ndev);
    return 77;
  }
  for (d = 0; d < ndev && !C.physical; d++) {
    VkQueueFamilyProperties qf[16];
    uint32_t nq = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &nq, qf);
    for (i = 0; i < nq; i++)
      if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        C.physical = devs[d];
        C.family = i;
        break;
      }
  }
  if (!C.physical) {
    printf("no Vulkan device with a compute queue\n");
    return 77;
  }
  {
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci;
    VkDeviceCreateInfo dci;
    VkPhysicalDeviceProperties props;
    memset(&qci, 0, sizeof qci);
    qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci.queueFamilyIndex = C.family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    memset(&dci, 0, sizeof dci);
    dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    r = vkCreateDevice(C.physical, &dci, NULL, &C.device);
    if (r != VK_SUCCESS) {
      printf("vkCreateDevice: VkResult %d\n", (int)r);
      return 1;
    }
    vkGetDeviceQueue(C.device, C.family, 0, &C.queue);
    vkGetPhysicalDeviceProperties(C.physical, &props);
    printf("device: %s\n", props.deviceName);
  }
  vkGetPhysicalDeviceMemoryProperties(C.physical, &C.mem);
  C.all_host_visible = 1;
  for (i = 0; i < C.mem.memoryTypeCount; i++)
    if (!(C.mem.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
      C.all_host_visible = 0;
  return 0;
}

static void teardown(void) {
  if (C.device) vkDestroyDevice(C.device, NULL);
  if (C.instance) vkDestroyInstance(C.instance, NULL);
}

/* A host-visible, coherent storage buffer of n bytes holding `data` (NULL: zeros). */
static int host_buffer(size_t n, const void *data, VkBuffer *buf, VkDeviceMemory *mem) {
  VkBufferCreateInfo bi;
  VkMemoryRequirements req;
  VkMemoryAllocateInfo ai;
  void *p = NULL;
  uint32_t i;
  const VkMemoryPropertyFlags want =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  memset(&bi, 0, sizeof bi);
  bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bi.size = n;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (vkCreateBuffer(C.device, &bi, NULL, buf) != VK_SUCCESS) return 0;
  vkGetBufferMemoryRequirements(C.device, *buf, &req);
  memset(&ai, 0, sizeof ai);
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = UINT32_MAX;
  for (i = 0; i < C.mem.memoryTypeCount; i++)
    if ((req.memoryTypeBits & (1u << i)) && (C.mem.memoryTypes[i].propertyFlags & want) == want) {
      ai.memoryTypeIndex = i;
      break;
    }
  if (ai.memoryTypeIndex == UINT32_MAX) return 0;
  if (vkAllocateMemory(C.device, &ai, NULL, mem) != VK_SUCCESS) return 0;
  if (vkBindBufferMemory(C.device, *buf, *mem, 0) != VK_SUCCESS) return 0;
  if (vkMapMemory(C.device, *mem, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS) return 0;
  if (data) memcpy(p, data, n);
  else memset(p, 0, n);
  vkUnmapMemory(C.device, *mem);
  return 1;
}

/* y = W x on the device, W being an uploaded buffer of rows x cols floats. 1 on success. */
static int run_matvec(VkBuffer w, uint32_t rows, uint32_t cols, const float *x, float *y) {
  VkBuffer xb = VK_NULL_HANDLE, yb = VK_NULL_HANDLE;
  VkDeviceMemory xm = VK_NULL_HANDLE, ym = VK_NULL_HANDLE;
  VkDescriptorSetLayoutBinding bind[3];
  VkDescriptorSetLayoutCreateInfo dl;
  VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
  VkPushConstantRange pc;
  VkPipelineLayoutCreateInfo pl;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkShaderModuleCreateInfo smi;
  VkShaderModule sm = VK_NULL_HANDLE;
  VkComputePipelineCreateInfo cpi;
  VkPipeline pipe = VK_NULL_HANDLE;
  VkDescriptorPoolSize ps;
  VkDescriptorPoolCreateInfo dpi;
  VkDescriptorPool dpool = VK_NULL_HANDLE;
  VkDescriptorSetAllocateInfo dsai;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkDescriptorBufferInfo dbi[3];
  VkWriteDescriptorSet wr[3];
  VkCommandPoolCreateInfo cpci;
  VkCommandPool cpool = VK_NULL_HANDLE;
  VkCommandBufferAllocateInfo cbai;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkCommandBufferBeginInfo cbbi;
  VkMemoryBarrier mb;
  VkSubmitInfo si;
  VkFenceCreateInfo fci;
  VkFence fence = VK_NULL_HANDLE;
  uint32_t push[2];
  int ok = 0, i;
  void *p = NULL;

  if (!host_buffer((size_t)cols * 4, x, &xb, &xm)) goto done;
  if (!host_buffer((size_t)rows * 4, NULL, &yb, &ym)) goto done;
  memset(bind, 0, sizeof bind);
  for (i = 0; i < 3; i++) {
    bind[i].binding = (uint32_t)i;
    bind[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bind[i].descriptorCount = 1;
    bind[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  memset(&dl, 0, sizeof dl);
  dl.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  dl.bindingCount = 3;
  dl.pBindings = bind;
  if (vkCreateDescriptorSetLayout(C.device, &dl, NULL, &dsl) != VK_SUCCESS) goto done;
  memset(&pc, 0, sizeof pc);
  pc.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  pc.size = sizeof push;
  memset(&pl, 0, sizeof pl);
  pl.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &dsl;
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &pc;
  if (vkCreatePipelineLayout(C.device, &pl, NULL, &layout) != VK_SUCCESS) goto done;
  memset(&smi, 0, sizeof smi);
  smi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  smi.codeSize = sizeof matvec_spv;
  smi.pCode = matvec_spv;
  if (vkCreateShaderModule(C.device, &smi, NULL, &sm) != VK_SUCCESS) goto done;
  memset(&cpi, 0, sizeof cpi);
  cpi.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpi.stage.module = sm;
  cpi.stage.pName = "main";
  cpi.layout = layout;
  if (vkCreateComputePipelines(C.device, VK_NULL_HANDLE, 1, &cpi, NULL, &pipe) != VK_SUCCESS)
    goto done;
  memset(&ps, 0, sizeof ps);
  ps.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  ps.descriptorCount = 3;
  memset(&dpi, 0, sizeof dpi);
  dpi.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  dpi.maxSets = 1;
  dpi.poolSizeCount = 1;
  dpi.pPoolSizes = &ps;
  if (vkCreateDescriptorPool(C.device, &dpi, NULL, &dpool) != VK_SUCCESS) goto done;
  memset(&dsai, 0, sizeof dsai);
  dsai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  dsai.descriptorPool = dpool;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &dsl;
  if (vkAllocateDescriptorSets(C.device, &dsai, &set) != VK_SUCCESS) goto done;
  memset(dbi, 0, sizeof dbi);
  memset(wr, 0, sizeof wr);
  dbi[0].buffer = w;
  dbi[1].buffer = xb;
  dbi[2].buffer = yb;
  for (i = 0; i < 3; i++) {
    dbi[i].range = VK_WHOLE_SIZE;
    wr[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    wr[i].dstSet = set;
    wr[i].dstBinding = (uint32_t)i;
    wr[i].descriptorCount = 1;
    wr[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    wr[i].pBufferInfo = &dbi[i];
  }
  vkUpdateDescriptorSets(C.device, 3, wr, 0, NULL);
  memset(&cpci, 0, sizeof cpci);
  cpci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  cpci.queueFamilyIndex = C.family;
  if (vkCreateCommandPool(C.device, &cpci, NULL, &cpool) != VK_SUCCESS) goto done;
  memset(&cbai, 0, sizeof cbai);
  cbai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cbai.commandPool = cpool;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  if (vkAllocateCommandBuffers(C.device, &cbai, &cb) != VK_SUCCESS) goto done;
  memset(&cbbi, 0, sizeof cbbi);
  cbbi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  cbbi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (vkBeginCommandBuffer(cb, &cbbi) != VK_SUCCESS) goto done;
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
  push[0] = rows;
  push[1] = cols;
  vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
  vkCmdDispatch(cb, (rows + 63u) / 64u, 1, 1);
  memset(&mb, 0, sizeof mb);
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                       &mb, 0, NULL, 0, NULL);
  if (vkEndCommandBuffer(cb) != VK_SUCCESS) goto done;
  memset(&fci, 0, sizeof fci);
  fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  if (vkCreateFence(C.device, &fci, NULL, &fence) != VK_SUCCESS) goto done;
  memset(&si, 0, sizeof si);
  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  if (vkQueueSubmit(C.queue, 1, &si, fence) != VK_SUCCESS) goto done;
  if (vkWaitForFences(C.device, 1, &fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS) goto done;
  if (vkMapMemory(C.device, ym, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS) goto done;
  memcpy(y, p, (size_t)rows * 4);
  vkUnmapMemory(C.device, ym);
  ok = 1;
done:
  if (fence) vkDestroyFence(C.device, fence, NULL);
  if (cpool) vkDestroyCommandPool(C.device, cpool, NULL);
  if (dpool) vkDestroyDescriptorPool(C.device, dpool, NULL);
  if (pipe) vkDestroyPipeline(C.device, pipe, NULL);
  if (sm) vkDestroyShaderModule(C.device, sm, NULL);
  if (layout) vkDestroyPipelineLayout(C.device, layout, NULL);
  if (dsl) vkDestroyDescriptorSetLayout(C.device, dsl, NULL);
  if (xb) vkDestroyBuffer(C.device, xb, NULL);
  if (xm) vkFreeMemory(C.device, xm, NULL);
  if (yb) vkDestroyBuffer(C.device, yb, NULL);
  if (ym) vkFreeMemory(C.device, ym, NULL);
  return ok;
}

/* Compares an uploaded buffer's bytes with `want` (only where every memory type is mappable). */
static void check_buffer_bytes(const tp_vk_device_constant *c, const void *want, size_t n) {
  void *p = NULL;
  TPT_EQ_U64(c->nbytes, n);
  if (!C.all_host_visible || c->nbytes != n || n == 0) return;
  TPT_CHECK(vkMapMemory(C.device, c->memory, 0, VK_WHOLE_SIZE, 0, &p) == VK_SUCCESS);
  if (p) {
    TPT_MEMEQ(p, want, n);
    vkUnmapMemory(C.device, c->memory);
  }
}

/* ---- the model: y = W x, W [ROWS][COLS] = transpose of slab 1 of a [2][COLS][ROWS] storage -- */
enum { ROWS = 37, COLS = 29 };
static float g_storage[2 * COLS * ROWS];
static float g_x[COLS];
static float g_w_rowmajor[ROWS * COLS];

static void make_model(void) {
  int i, r, c;
  for (i = 0; i < 2 * COLS * ROWS; i++) g_storage[i] = (float)sin(0.37 * i) * 2.0f;
  for (i = 0; i < COLS; i++) g_x[i] = (float)cos(0.11 * i) - 0.25f;
  for (r = 0; r < ROWS; r++)
    for (c = 0; c < COLS; c++) g_w_rowmajor[r * COLS + c] = g_storage[COLS * ROWS + c * ROWS + r];
}

static tp_tensor weight_view(void) {
  tp_tensor s, slab, w;
  tp_storage st;
  int64_t sz[3] = {2, COLS, ROWS};
  st.data = g_storage;
  st.nbytes = sizeof g_storage;
  TPT_STATUS(tp_view(st, TP_F32, 3, sz, NULL, 0, &s), TP_OK);
  TPT_STATUS(tp_select(&s, 0, 1, &slab), TP_OK);   /* offset COLS*ROWS elements */
  TPT_STATUS(tp_transpose(&slab, 0, 1, &w), TP_OK); /* [ROWS][COLS], strides (1, ROWS) */
  return w;
}

/* max |y - y_ref| with y_ref from W given row-major, in double */
static double max_err(const float *y, const float *w_rowmajor) {
  double worst = 0;
  int r, c;
  for (r = 0; r < ROWS; r++) {
    double acc = 0, e;
    for (c = 0; c < COLS; c++) acc += (double)w_rowmajor[r * COLS + c] * (double)g_x[c];
    e = fabs(acc - (double)y[r]);
    if (e > worst) worst = e;
  }
  return worst;
}

/* Builds the linear graph; returns the blob in *m; *wid = the weight's value id. */
static void build_blob(tp_store *store, int force_fp16, tp_membuf *m, uint32_t *wid) {
  tp_vk_options o;
  tp_vk_graph *g = NULL;
  tp_tensor w = weight_view();
  size_t xd[1] = {COLS}, yd[1] = {ROWS};
  uint32_t x, y, args[3];
  tp_sink sink;
  memset(&o, 0, sizeof o);
  o.store = store;
  o.force_fp16 = force_fp16;
  memset(m, 0, sizeof *m);
  TPT_STATUS(tp_vk_graph_create(&o, &g), TP_OK);
  TPT_STATUS(tp_vk_add_tensor(g, TP_VK_FLOAT32, 1, xd, NULL, -1, -1, -1, TP_VK_UNSET, &x), TP_OK);
  TPT_STATUS(tp_vk_add_tensor(g, TP_VK_FLOAT32, 2, NULL, &w, -1, TP_VK_BUFFER, -1, TP_VK_UNSET, wid),
             TP_OK);
  TPT_STATUS(tp_vk_add_tensor(g, TP_VK_FLOAT32, 1, yd, NULL, -1, -1, -1, TP_VK_UNSET, &y), TP_OK);
  args[0] = *wid;
  args[1] = x;
  args[2] = y;
  TPT_STATUS(tp_vk_add_op(g, 0, "aten.mv.default", args, 3), TP_OK);
  TPT_STATUS(tp_vk_set_io(g, &x, 1, &y, 1), TP_OK);
  sink = tp_sink_membuf(m);
  TPT_STATUS(tp_vk_write(g, &sink), TP_OK);
  tp_vk_graph_destroy(g);
}

static void run_and_check(const tp_vk_upload *u, uint32_t wid) {
  float y[ROWS];
  double err, err_storage;
  TPT_CHECK(wid < u->value_count);
  if (wid >= u->value_count) return;
  TPT_CHECK(u->values[wid].is_constant);
  TPT_CHECK(u->values[wid].buffer != VK_NULL_HANDLE);
  TPT_EQ_INT(u->values[wid].datatype, TP_VK_FLOAT32);
  TPT_EQ_INT(u->values[wid].ndim, 2);
  TPT_EQ_INT(u->values[wid].dims[0], ROWS);
  TPT_EQ_INT(u->values[wid].dims[1], COLS);
  check_buffer_bytes(&u->values[wid], g_w_rowmajor, sizeof g_w_rowmajor);
  TPT_CHECK(run_matvec(u->values[wid].buffer, ROWS, COLS, g_x, y));
  err = max_err(y, g_w_rowmajor);
  /* what a writer that takes the storage from its first byte would have given */
  err_storage = max_err(y, g_storage);
  printf("  max |y - ref| = %.3g (whole-storage bytes would be off by %.3g)\n", err,
         err_storage);
  TPT_CHECK(err < 1e-5);
  TPT_CHECK(err_storage > 0.5);
}

static void test_inline_upload(void) {
  tp_membuf m;
  tp_vk_upload u;
  uint32_t wid = 0, i;
  build_blob(NULL, 0, &m, &wid);
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, C.physical, C.device, C.family, 0, &u),
             TP_OK);
  TPT_EQ_STR(u.err.msg, "");
  TPT_EQ_INT(u.value_count, 3);
  for (i = 0; i < u.value_count; i++)
    if (i != wid) {
      TPT_CHECK(!u.values[i].is_constant);
      TPT_CHECK(u.values[i].buffer == VK_NULL_HANDLE);
    }
  TPT_CHECK(!u.values[wid].staged || !C.all_host_visible);
  run_and_check(&u, wid);
  tp_vk_upload_free(&u);
  TPT_CHECK(u.values == NULL && u.value_count == 0);
  tp_vk_upload_free(&u); /* twice is fine */
  tp_membuf_free(&m);
}

static void test_forced_staging(void) {
  tp_membuf m;
  tp_vk_upload u;
  uint32_t wid = 0;
  build_blob(NULL, 0, &m, &wid);
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, C.physical, C.device, C.family,
                               TP_VK_UPLOAD_FORCE_STAGING, &u), TP_OK);
  if (u.values) TPT_EQ_INT(u.values[wid].staged, 1);
  run_and_check(&u, wid);
  tp_vk_upload_free(&u);
  tp_membuf_free(&m);
}

static void test_named_upload(void) {
  tp_store *st = NULL;
  tp_membuf m, pm;
  tp_sink ps;
  tp_ptd pd;
  tp_vk_upload u;
  uint32_t wid = 0;
  TPT_STATUS(tp_store_create(&st), TP_OK);
  build_blob(st, 0, &m, &wid);
  memset(&pm, 0, sizeof pm);
  ps = tp_sink_membuf(&pm);
  TPT_STATUS(tp_store_write_ptd(st, &ps), TP_OK);
  TPT_STATUS(tp_ptd_open(&pd, pm.data, pm.size), TP_OK);
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, &pd, C.physical, C.device, C.family, 0, &u),
             TP_OK);
  run_and_check(&u, wid);
  tp_vk_upload_free(&u);
  /* without the .ptd: a clear error, nothing left allocated */
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, C.physical, C.device, C.family, 0, &u),
             TP_ERR_FORMAT);
  TPT_CONTAINS(u.err.msg, "but no .ptd was given");
  TPT_CHECK(u.values == NULL);
  /* with a .ptd that lacks the key */
  {
    tp_store *other = NULL;
    tp_membuf om;
    tp_sink os;
    tp_ptd opd;
    float one[1] = {1};
    memset(&om, 0, sizeof om);
    TPT_STATUS(tp_store_create(&other), TP_OK);
    TPT_STATUS(tp_store_add_bytes(other, "unrelated", one, sizeof one, 16, 1, NULL), TP_OK);
    os = tp_sink_membuf(&om);
    TPT_STATUS(tp_store_write_ptd(other, &os), TP_OK);
    TPT_STATUS(tp_ptd_open(&opd, om.data, om.size), TP_OK);
    TPT_STATUS(tp_vk_upload_blob(m.data, m.size, &opd, C.physical, C.device, C.family, 0, &u),
               TP_ERR_FORMAT);
    TPT_CONTAINS(u.err.msg, "is not in the .ptd");
    tp_membuf_free(&om);
    tp_store_destroy(other);
  }
  tp_membuf_free(&pm);
  tp_membuf_free(&m);
  tp_store_destroy(st);
}

/* fp16 (force_fp16), int32 and empty constants: bytes as written, empty ones get no buffer. */
static void test_other_constants(void) {
  float f[4] = {1.0f, -2.0f, 70000.0f, 0.5f};
  int32_t iv[3] = {7, -8, 9};
  int64_t s4[1] = {4}, s3[1] = {3}, s0[2] = {3, 0};
  tp_tensor tf, ti, te;
  tp_storage st;
  tp_vk_options o;
  tp_vk_graph *g = NULL;
  tp_membuf m;
  tp_sink sink;
  tp_vk_upload u;
  uint32_t a, b, c;
  unsigned char want_h[8];
  st.data = f;
  st.nbytes = sizeof f;
  TPT_STATUS(tp_view(st, TP_F32, 1, s4, NULL, 0, &tf), TP_OK);
  TPT_STATUS(tp_view(st, TP_F32, 2, s0, NULL, 0, &te), TP_OK);
  st.data = iv;
  st.nbytes = sizeof iv;
  TPT_STATUS(tp_view(st, TP_I32, 1, s3, NULL, 0, &ti), TP_OK);
  tp_store_le16(want_h + 0, 0x3c00);
  tp_store_le16(want_h + 2, 0xc000);
  tp_store_le16(want_h + 4, 0x7bff);
  tp_store_le16(want_h + 6, 0x3800);
  memset(&o, 0, sizeof o);
  o.force_fp16 = 1;
  memset(&m, 0, sizeof m);
  TPT_STATUS(tp_vk_graph_create(&o, &g), TP_OK);
  TPT_STATUS(tp_vk_add_tensor(g, TP_VK_FLOAT32, 1, NULL, &tf, -1, -1, -1, TP_VK_UNSET, &a), TP_OK);
  TPT_STATUS(tp_vk_add_tensor(g, TP_VK_INT32, 1, NULL, &ti, -1, -1, -1, TP_VK_UNSET, &b), TP_OK);
  TPT_STATUS(tp_vk_add_tensor(g, TP_VK_FLOAT32, 2, NULL, &te, -1, -1, -1, TP_VK_UNSET, &c), TP_OK);
  sink = tp_sink_membuf(&m);
  TPT_STATUS(tp_vk_write(g, &sink), TP_OK);
  tp_vk_graph_destroy(g);
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, C.physical, C.device, C.family, 0, &u),
             TP_OK);
  if (u.values) {
    TPT_EQ_INT(u.values[a].datatype, TP_VK_FLOAT16);
    check_buffer_bytes(&u.values[a], want_h, 8);
    TPT_EQ_INT(u.values[b].datatype, TP_VK_INT32);
    check_buffer_bytes(&u.values[b], iv, 12);
    TPT_CHECK(u.values[c].is_constant);
    TPT_EQ_U64(u.values[c].nbytes, 0);
    TPT_CHECK(u.values[c].buffer == VK_NULL_HANDLE);
    TPT_EQ_INT(u.values[c].ndim, 2);
  }
  tp_vk_upload_free(&u);
  tp_membuf_free(&m);
}

static void test_malformed(void) {
  tp_membuf m;
  tp_vk_upload u;
  uint32_t wid = 0;
  build_blob(NULL, 0, &m, &wid);
  TPT_STATUS(tp_vk_upload_blob(m.data, 20, NULL, C.physical, C.device, C.family, 0, &u),
             TP_ERR_FORMAT);
  TPT_CONTAINS(u.err.msg, "no valid VH00 header");
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size - 16, NULL, C.physical, C.device, C.family, 0, &u),
             TP_ERR_FORMAT); /* raw bytes cut short: the header's region leaves the buffer */
  m.data[36] = 'X';
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, C.physical, C.device, C.family, 0, &u),
             TP_ERR_FORMAT);
  m.data[36] = 'V';
  /* shrink the declared raw bytes: the constant no longer fits */
  tp_store_le64(m.data + 22, 64);
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, C.physical, C.device, C.family, 0, &u),
             TP_ERR_FORMAT);
  TPT_CONTAINS(u.err.msg, "exceeds the 64 raw bytes");
  TPT_CHECK(u.values == NULL);
  TPT_STATUS(tp_vk_upload_blob(m.data, m.size, NULL, C.physical, C.device, C.family, 0, NULL),
             TP_ERR_INVALID);
  tp_membuf_free(&m);
}

int main(void) {
  int rc;
  char tmpl[] = "/tmp/tp-vkrt-cache-XXXXXX";
  (void)tpt_range;
  setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
  if (mkdtemp(tmpl)) setenv("XDG_CACHE_HOME", tmpl, 1);
  rc = setup();
  if (rc != 0) {
    teardown();
    if (rc == 77) printf("vkrt_upload: skipped, no Vulkan device\n");
    return rc;
  }
  make_model();
  TPT_RUN(test_inline_upload);
  TPT_RUN(test_forced_staging);
  TPT_RUN(test_named_upload);
  TPT_RUN(test_other_constants);
  TPT_RUN(test_malformed);
  teardown();
  rmdir(tmpl);
  return tpt_finish("vkrt_upload");
}
