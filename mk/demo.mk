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
