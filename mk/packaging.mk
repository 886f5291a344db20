# Packaging (issue 13): `make install PREFIX=...` (headers, CMake config package, tensorpack.pc,
# the same files `cmake --install` puts there) and the packaging suite, tests/packaging.sh:
# consumer projects built four ways (add_subdirectory, FetchContent, find_package after install,
# pkg-config after make install), as C and as C++, and run. Skipped without cmake / pkg-config.
PREFIX  ?= /usr/local
DESTDIR ?=
.PHONY: install
install:
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/cmake/tensorpack \
	  $(DESTDIR)$(PREFIX)/share/pkgconfig
	install -m 644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/
	install -m 644 cmake/tensorpackConfig.cmake cmake/tensorpackConfigVersion.cmake \
	  cmake/tensorpack-runtimes.cmake $(DESTDIR)$(PREFIX)/share/cmake/tensorpack/
	sed 's|@TP_PREFIX@|$(PREFIX)|' cmake/tensorpack.pc.in > $(DESTDIR)$(PREFIX)/share/pkgconfig/tensorpack.pc
	chmod 644 $(DESTDIR)$(PREFIX)/share/pkgconfig/tensorpack.pc

HAVE_CMAKE := $(shell command -v cmake >/dev/null 2>&1 && command -v pkg-config >/dev/null 2>&1 && echo 1)
ifeq ($(HAVE_CMAKE),1)
TESTS += $(BUILD)/tests/packaging
$(BUILD)/tests/packaging: tests/packaging.sh CMakeLists.txt $(wildcard cmake/*) $(HEADERS) mk/packaging.mk
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nTP_ROOT=%s HAVE_XNNPACK=%s exec sh %s/tests/packaging.sh\n' "$(CURDIR)" "$(HAVE_XNNPACK)" "$(CURDIR)" > $@
	@chmod +x $@
else
SKIPPED += packaging:cmake or pkg-config not installed;
endif
