/* vk_compute.h - a minimal Vulkan compute harness for tensorpack's tests and demo (not part of
   the library): one instance and device with a compute queue (vkc_setup / vkc_teardown) and
   y = W x with tests/shaders/matvec.comp on a device buffer W (vkc_run_matvec), e.g. a constant
   uploaded by tp_vk_upload_blob. Include after tensorpack_vulkan.h with
   TENSORPACK_VULKAN_RUNTIME; link -lvulkan -ldl. Needs _POSIX_C_SOURCE >= 200809L for dlopen. */
#ifndef TP_VK_COMPUTE_H
#define TP_VK_COMPUTE_H
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static const uint32_t matvec_spv[] =
#include "shaders/matvec.spv.inc"
    ;

static struct vkc_state {
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  uint32_t family;
  VkQueue queue;
  VkPhysicalDeviceMemoryProperties mem;
  int all_host_visible; /* every memory type is host-visible: buffers can be mapped to check */
} vkc;

/* 0: ready; 77: no instance or no device with a compute queue; 1: a failure after that. */
static int vkc_setup(void) {
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
  r = vkCreateInstance(&ici, NULL, &vkc.instance);
  if (r != VK_SUCCESS) {
    printf("vkCreateInstance: VkResult %d\n", (int)r);
    return 77;
  }
  /* Keep lavapipe loaded until exit, or LeakSanitizer reports the ICD's unload. */
  (void)dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  r = vkEnumeratePhysicalDevices(vkc.instance, &ndev, devs);
  if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || ndev == 0) {
    printf("no Vulkan device (VkResult %d, %u devices)\n", (int)r, ndev);
    return 77;
  }
  for (d = 0; d < ndev && !vkc.physical; d++) {
    VkQueueFamilyProperties qf[16];
    uint32_t nq = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &nq, qf);
    for (i = 0; i < nq; i++)
      if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        vkc.physical = devs[d];
        vkc.family = i;
        break;
      }
  }
  if (!vkc.physical) {
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
    qci.queueFamilyIndex = vkc.family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    memset(&dci, 0, sizeof dci);
    dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    r = vkCreateDevice(vkc.physical, &dci, NULL, &vkc.device);
    if (r != VK_SUCCESS) {
      printf("vkCreateDevice: VkResult %d\n", (int)r);
      return 1;
    }
    vkGetDeviceQueue(vkc.device, vkc.family, 0, &vkc.queue);
    vkGetPhysicalDeviceProperties(vkc.physical, &props);
    printf("    Vulkan device: %s\n", props.deviceName);
  }
  vkGetPhysicalDeviceMemoryProperties(vkc.physical, &vkc.mem);
  vkc.all_host_visible = 1;
  for (i = 0; i < vkc.mem.memoryTypeCount; i++)
    if (!(vkc.mem.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
      vkc.all_host_visible = 0;
  return 0;
}

static void vkc_teardown(void) {
  if (vkc.device) vkDestroyDevice(vkc.device, NULL);
  if (vkc.instance) vkDestroyInstance(vkc.instance, NULL);
}

/* A host-visible, coherent storage buffer of n bytes holding `data` (NULL: zeros). */
static int vkc_host_buffer(size_t n, const void *data, VkBuffer *buf, VkDeviceMemory *mem) {
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
  if (vkCreateBuffer(vkc.device, &bi, NULL, buf) != VK_SUCCESS) return 0;
  vkGetBufferMemoryRequirements(vkc.device, *buf, &req);
  memset(&ai, 0, sizeof ai);
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = UINT32_MAX;
  for (i = 0; i < vkc.mem.memoryTypeCount; i++)
    if ((req.memoryTypeBits & (1u << i)) && (vkc.mem.memoryTypes[i].propertyFlags & want) == want) {
      ai.memoryTypeIndex = i;
      break;
    }
  if (ai.memoryTypeIndex == UINT32_MAX) return 0;
  if (vkAllocateMemory(vkc.device, &ai, NULL, mem) != VK_SUCCESS) return 0;
  if (vkBindBufferMemory(vkc.device, *buf, *mem, 0) != VK_SUCCESS) return 0;
  if (vkMapMemory(vkc.device, *mem, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS) return 0;
  if (data) memcpy(p, data, n);
  else memset(p, 0, n);
  vkUnmapMemory(vkc.device, *mem);
  return 1;
}

/* y = W x on the device, W being an uploaded buffer of rows x cols floats. 1 on success. */
static int vkc_run_matvec(VkBuffer w, uint32_t rows, uint32_t cols, const float *x, float *y) {
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

  if (!vkc_host_buffer((size_t)cols * 4, x, &xb, &xm)) goto done;
  if (!vkc_host_buffer((size_t)rows * 4, NULL, &yb, &ym)) goto done;
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
  if (vkCreateDescriptorSetLayout(vkc.device, &dl, NULL, &dsl) != VK_SUCCESS) goto done;
  memset(&pc, 0, sizeof pc);
  pc.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  pc.size = sizeof push;
  memset(&pl, 0, sizeof pl);
  pl.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &dsl;
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &pc;
  if (vkCreatePipelineLayout(vkc.device, &pl, NULL, &layout) != VK_SUCCESS) goto done;
  memset(&smi, 0, sizeof smi);
  smi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  smi.codeSize = sizeof matvec_spv;
  smi.pCode = matvec_spv;
  if (vkCreateShaderModule(vkc.device, &smi, NULL, &sm) != VK_SUCCESS) goto done;
  memset(&cpi, 0, sizeof cpi);
  cpi.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpi.stage.module = sm;
  cpi.stage.pName = "main";
  cpi.layout = layout;
  if (vkCreateComputePipelines(vkc.device, VK_NULL_HANDLE, 1, &cpi, NULL, &pipe) != VK_SUCCESS)
    goto done;
  memset(&ps, 0, sizeof ps);
  ps.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  ps.descriptorCount = 3;
  memset(&dpi, 0, sizeof dpi);
  dpi.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  dpi.maxSets = 1;
  dpi.poolSizeCount = 1;
  dpi.pPoolSizes = &ps;
  if (vkCreateDescriptorPool(vkc.device, &dpi, NULL, &dpool) != VK_SUCCESS) goto done;
  memset(&dsai, 0, sizeof dsai);
  dsai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  dsai.descriptorPool = dpool;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &dsl;
  if (vkAllocateDescriptorSets(vkc.device, &dsai, &set) != VK_SUCCESS) goto done;
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
  vkUpdateDescriptorSets(vkc.device, 3, wr, 0, NULL);
  memset(&cpci, 0, sizeof cpci);
  cpci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  cpci.queueFamilyIndex = vkc.family;
  if (vkCreateCommandPool(vkc.device, &cpci, NULL, &cpool) != VK_SUCCESS) goto done;
  memset(&cbai, 0, sizeof cbai);
  cbai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cbai.commandPool = cpool;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  if (vkAllocateCommandBuffers(vkc.device, &cbai, &cb) != VK_SUCCESS) goto done;
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
  if (vkCreateFence(vkc.device, &fci, NULL, &fence) != VK_SUCCESS) goto done;
  memset(&si, 0, sizeof si);
  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  if (vkQueueSubmit(vkc.queue, 1, &si, fence) != VK_SUCCESS) goto done;
  if (vkWaitForFences(vkc.device, 1, &fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS) goto done;
  if (vkMapMemory(vkc.device, ym, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS) goto done;
  memcpy(y, p, (size_t)rows * 4);
  vkUnmapMemory(vkc.device, ym);
  ok = 1;
done:
  if (fence) vkDestroyFence(vkc.device, fence, NULL);
  if (cpool) vkDestroyCommandPool(vkc.device, cpool, NULL);
  if (dpool) vkDestroyDescriptorPool(vkc.device, dpool, NULL);
  if (pipe) vkDestroyPipeline(vkc.device, pipe, NULL);
  if (sm) vkDestroyShaderModule(vkc.device, sm, NULL);
  if (layout) vkDestroyPipelineLayout(vkc.device, layout, NULL);
  if (dsl) vkDestroyDescriptorSetLayout(vkc.device, dsl, NULL);
  if (xb) vkDestroyBuffer(vkc.device, xb, NULL);
  if (xm) vkFreeMemory(vkc.device, xm, NULL);
  if (yb) vkDestroyBuffer(vkc.device, yb, NULL);
  if (ym) vkFreeMemory(vkc.device, ym, NULL);
  return ok;
}

#endif
