# make demo: the seed's cases exported (and run on XNNPACK / Vulkan when installed).
DEMO_FLAGS :=
DEMO_LIBS  :=
ifeq ($(HAVE_XNNPACK),1)
DEMO_FLAGS += -DTP_DEMO_XNNPACK
DEMO_LIBS  += -lXNNPACK
endif
ifeq ($(HAVE_VULKAN),1)
DEMO_FLAGS += -DTP_DEMO_VULKAN
DEMO_LIBS  += -lvulkan -ldl
endif

$(BUILD)/tools/demo: tools/demo.c $(HEADERS) tests/vk_compute.h
	@mkdir -p $(dir $@)
	$(CC) $(STRICT) -O1 -g -I. -Itests $(DEMO_FLAGS) $< -o $@ $(DEMO_LIBS) -lm

demo: $(BUILD)/tools/demo $(BUILD)/tools/tpdump
	@mkdir -p $(BUILD)/demo
	@$(BUILD)/tools/demo $(BUILD)/demo
	@echo
	@echo "tpdump $(BUILD)/demo/qkv_named.xnn --ptd $(BUILD)/demo/qkv.ptd   (named keys = the chunks' sha256)"
	@$(BUILD)/tools/tpdump $(BUILD)/demo/qkv_named.xnn --ptd $(BUILD)/demo/qkv.ptd
	@[ "$(HAVE_XNNPACK)" = 1 ] || echo "without libxnnpack-dev libpthreadpool-dev: the blobs above are not run on the real XNNPACK (make test skips its xnnrt suites)"
	@[ "$(HAVE_VULKAN)" = 1 ] || echo "without libvulkan-dev mesa-vulkan-drivers glslc: the Vulkan blob is not uploaded to a device"
	@[ "$(HAVE_FLATC)" = 1 ] || echo "without flatbuffers-compiler libflatbuffers-dev: make test cannot check the bytes with the official FlatBuffers verifier"
	@[ "$(HAVE_LIBFUZZER)" = 1 ] || echo "without clang libclang-rt-14-dev: make test runs no fuzz smoke and no clang builds"
	@[ "$(HAVE_DLPACK)" = 1 ] || echo "without libdlpack-dev: tp_view_from_dlpack is not tested"
	@[ "$(HAVE_CMAKE)" = 1 ] || echo "without cmake pkg-config: the packaging suite (CMake and pkg-config consumers) is skipped"
