# Packaging (issues 13, 25): `make install PREFIX=...` (headers, CMake config package, the .pc files,
# the same files `cmake --install` puts there) and the packaging suite, tests/packaging.sh:
# consumer projects built four ways (add_subdirectory, FetchContent, find_package after install,
# pkg-config after make install), as C and as C++, and run. Skipped without cmake / pkg-config.
PREFIX  ?= /usr/local
DESTDIR ?=
# The version has one source, TP_VERSION_* in tensorpack.h; the templates cmake/*.in are filled
# from it here as CMakeLists.txt's configure_file fills them (the same files either way).
TP_VERSION_PART = $(shell sed -n 's/^\#define TP_VERSION_$(1) *\([0-9][0-9]*\) *$$/\1/p' tensorpack.h)
TP_VMAJOR := $(call TP_VERSION_PART,MAJOR)
TP_VMINOR := $(call TP_VERSION_PART,MINOR)
TP_VPATCH := $(call TP_VERSION_PART,PATCH)
TP_VERSION := $(TP_VMAJOR).$(TP_VMINOR).$(TP_VPATCH)
TP_PC_FILES := tensorpack tensorpack-xnnpack-runtime tensorpack-vulkan-runtime
TP_FILL = sed -e 's|@TP_PREFIX@|$(PREFIX)|g' -e 's|@TP_VERSION@|$(TP_VERSION)|g' \
  -e 's|@TP_VERSION_MAJOR@|$(TP_VMAJOR)|g' -e 's|@TP_VERSION_MINOR@|$(TP_VMINOR)|g' \
  -e 's|@TP_VERSION_PATCH@|$(TP_VPATCH)|g'
.PHONY: install
install:
	@case "$(TP_VMAJOR).$(TP_VMINOR).$(TP_VPATCH)" in *[!0-9.]*|.*|*..*|*.) \
	  echo "tensorpack.h: no TP_VERSION_MAJOR / MINOR / PATCH lines to read the version from"; exit 1;; esac
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/cmake/tensorpack \
	  $(DESTDIR)$(PREFIX)/share/pkgconfig
	install -m 644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/
	install -m 644 cmake/tensorpackConfig.cmake cmake/tensorpack-runtimes.cmake \
	  $(DESTDIR)$(PREFIX)/share/cmake/tensorpack/
	$(TP_FILL) cmake/tensorpackConfigVersion.cmake.in > $(DESTDIR)$(PREFIX)/share/cmake/tensorpack/tensorpackConfigVersion.cmake
	chmod 644 $(DESTDIR)$(PREFIX)/share/cmake/tensorpack/tensorpackConfigVersion.cmake
	for pc in $(TP_PC_FILES); do \
	  $(TP_FILL) cmake/$$pc.pc.in > $(DESTDIR)$(PREFIX)/share/pkgconfig/$$pc.pc && \
	  chmod 644 $(DESTDIR)$(PREFIX)/share/pkgconfig/$$pc.pc || exit 1; \
	done

# What the packaging and version suites read when they run (their wrappers are remade, and the
# suites run again, when any of it changes).
PACKAGING_INPUTS := $(HEADERS) CMakeLists.txt $(wildcard cmake/*) mk/packaging.mk
# tests/version.sh: every version statement (banners, prose, the installed .pc / CMake version
# files) says the header's TP_VERSION_*; it needs only sh, sed and make (cmake when installed).
TESTS += $(BUILD)/tests/version
$(BUILD)/tests/version: tests/version.sh $(PACKAGING_INPUTS)
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nTP_ROOT=%s exec sh %s/tests/version.sh\n' "$(CURDIR)" "$(CURDIR)" > $@
	@chmod +x $@

HAVE_CMAKE := $(shell command -v cmake >/dev/null 2>&1 && command -v pkg-config >/dev/null 2>&1 && echo 1)
ifeq ($(HAVE_CMAKE),1)
TESTS += $(BUILD)/tests/packaging
$(BUILD)/tests/packaging: tests/packaging.sh CMakeLists.txt $(wildcard cmake/*) $(HEADERS) mk/packaging.mk
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nTP_ROOT=%s HAVE_XNNPACK=%s HAVE_VULKAN=%s exec sh %s/tests/packaging.sh\n' "$(CURDIR)" "$(HAVE_XNNPACK)" "$(HAVE_VULKAN)" "$(CURDIR)" > $@
	@chmod +x $@
else
SKIPPED += packaging:cmake or pkg-config not installed;
endif
