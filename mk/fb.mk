# FlatBuffers part: the official-verifier rig and the encoder benchmark.
# With flatc + libflatbuffers-dev (HAVE_FLATC): tests/schemas/*.fbs -> $(BUILD)/gen/*_generated.h,
# and every tests/verify_*.cpp becomes a test program $(BUILD)/tests/verify_* built against the
# generated code. Without them the official-verifier suites are named as skipped.

FB_SCHEMAS := tests/schemas/xnnpack.fbs tests/schemas/vulkan.fbs \
              tests/schemas/flat_tensor.fbs tests/schemas/scalar_type.fbs
FB_GEN     := $(BUILD)/gen/xnnpack_generated.h $(BUILD)/gen/vulkan_generated.h \
              $(BUILD)/gen/flat_tensor_generated.h $(BUILD)/gen/scalar_type_generated.h
FB_VERIFY  := $(patsubst tests/%.cpp,$(BUILD)/tests/%,$(wildcard tests/verify_*.cpp))
FB_CXXFLAGS := -std=c++17 -Wall -Wextra -Werror -O1 $(TDEBUG) $(SAN) -I. -Itests -I$(BUILD)/gen

ifeq ($(HAVE_FLATC),1)
TESTS   += $(FB_VERIFY)
BENCHES += $(BUILD)/bench/bench_fb

# One flatc run per schema; flat_tensor.fbs includes scalar_type.fbs (found through -I).
# --reflect-names adds mini-reflection type tables (<Table>TypeTable()) used by verify_fb.
$(BUILD)/gen/%_generated.h: tests/schemas/%.fbs $(FB_SCHEMAS)
	@mkdir -p $(dir $@)
	flatc --cpp --reflect-names -I tests/schemas -o $(BUILD)/gen $<

# each links the implementation compiled as C++ (the cxx flavor, Makefile)
$(BUILD)/tests/verify_%: tests/verify_%.cpp $(FB_GEN) $(HEADERS) tests/tp_test.h $(wildcard tests/tp_verify.h) \
                         $$(call tp_objs,tests/verify_$$*.cpp,cxx)
	@mkdir -p $(dir $@)
	$(T) $(CXX) $(DEP) $(FB_CXXFLAGS) $< $(call tp_objs,$<,cxx) -o $@ $(LIBM)

$(BUILD)/bench/bench_fb: bench/bench_fb.cpp $(FB_GEN) $(HEADERS) bench/bench_table.h
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -Wall -Wextra -O2 -DNDEBUG -I. -Itests -I$(BUILD)/gen $< -o $@ $(LIBM)

# The encoder target holds for both compilers: the same benchmark built with clang++ too.
ifneq ($(shell command -v clang++ 2>/dev/null),)
BENCHES += $(BUILD)/bench/bench_fb_clang
$(BUILD)/bench/bench_fb_clang: bench/bench_fb.cpp $(FB_GEN) $(HEADERS) bench/bench_table.h
	@mkdir -p $(dir $@)
	clang++ -std=c++17 -Wall -Wextra -O2 -DNDEBUG -I. -Itests -I$(BUILD)/gen $< -o $@ $(LIBM)
endif
else
SKIPPED += official-verifier:flatbuffers-compiler/libflatbuffers-dev not installed;
endif
