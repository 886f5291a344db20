# Vulkan part (issues 5 and 7): the upload onto a real Vulkan device (lavapipe on CPU machines).
# tests/test_vk_*.c build through the Makefile's plain rule, tests/verify_vulkan.cpp through
# mk/fb.mk. tests/vkrt_*.c need libvulkan: built and run only when HAVE_VULKAN. The SPIR-V they
# use is committed (tests/shaders/*.spv.inc, glslc -mfmt=c output); when glslc is installed the
# rule regenerates it and fails on any difference, but glslc is never required.

VK_SHADERS := $(wildcard tests/shaders/*.comp)
VK_SHADER_INCS := $(patsubst %.comp,%.spv.inc,$(VK_SHADERS))
HAVE_GLSLC := $(shell command -v glslc >/dev/null 2>&1 && echo 1)

ifeq ($(HAVE_VULKAN),1)
# Each vkrt test runs twice: built as C99 and as C++ (the runtime part must compile as both).
VKRT_C   := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/vkrt_*.c))
VKRT_CXX := $(patsubst tests/%.c,$(BUILD)/tests/%_cxx,$(wildcard tests/vkrt_*.c))
TESTS += $(VKRT_C) $(VKRT_CXX)

# The C build links the san objects, the C++ one the cxx objects (the implementation as C++),
# both with the upload part (tests/impl/vulkan_rt.c). Static pattern rules: they win over the
# Makefile's $(BUILD)/tests/% whether or not the objects exist yet.
$(VKRT_CXX): $(BUILD)/tests/vkrt_%_cxx: tests/vkrt_%.c $(HEADERS) tests/tp_test.h tests/vk_compute.h $(VK_SHADER_INCS) \
                           $$(call tp_objs,tests/vkrt_$$*.c,cxx,,vulkan_rt)
	@mkdir -p $(dir $@)
	$(T) $(CXX) $(DEP) $(CXX_IMPL_FLAGS) $< -x none $(call tp_objs,$<,cxx,,vulkan_rt) -o $@ -lvulkan -ldl $(LIBM)

$(VKRT_C): $(BUILD)/tests/vkrt_%: tests/vkrt_%.c $(HEADERS) tests/tp_test.h tests/vk_compute.h $(VK_SHADER_INCS) \
                       $$(call tp_objs,tests/vkrt_$$*.c,san,,vulkan_rt)
	@mkdir -p $(dir $@)
ifeq ($(HAVE_GLSLC),1)
	@for s in $(VK_SHADERS); do \
	  glslc --target-env=vulkan1.0 -O -mfmt=c $$s -o $(dir $@)shader.check.inc && \
	  cmp -s $(dir $@)shader.check.inc $${s%.comp}.spv.inc || \
	  { echo "$${s%.comp}.spv.inc is stale: regenerate it with glslc (see $$s)"; exit 1; }; \
	done; rm -f $(dir $@)shader.check.inc
endif
	$(T) $(CC) $(DEP) $(TCFLAGS) $< $(call tp_objs,$<,san,,vulkan_rt) -o $@ -lvulkan -ldl $(LIBM)
else
SKIPPED += vulkan-runtime:libvulkan-dev/mesa-vulkan-drivers not installed;
endif

# test_vk_ops also runs tools/tpdump.c's Vulkan printer (included as a library).
$(BUILD)/tests/test_vk_ops: tools/tpdump.c
