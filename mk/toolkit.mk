# Converter's toolkit (issue 13): example 07's end-to-end suite on the real XNNPACK runs the
# built example (its path compiled in), so it gets its own rule over mk/xnnpack.mk's pattern.
ifeq ($(HAVE_XNNPACK),1)
XNNRT_CONV_OBJS := $(call tp_objs,tests/xnnrt_converter.c,san,xnnpack_rt)
$(BUILD)/tests/xnnrt_converter: tests/xnnrt_converter.c $(HEADERS) tests/tp_test.h \
                                $(BUILD)/examples/07_gpt2_converter $(XNNRT_CONV_OBJS)
	@mkdir -p $(dir $@)
	$(T) $(CC) $(DEP) $(TCFLAGS) -DTP_EXAMPLE07='"$(abspath $(BUILD)/examples/07_gpt2_converter)"' $< \
	  $(XNNRT_CONV_OBJS) -o $@ -lXNNPACK $(LIBM)
endif
