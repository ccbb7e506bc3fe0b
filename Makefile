# SPDX-License-Identifier: GPL-2.0
# jitmod + jitread: top-level build.  `make help` lists the targets.

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build
KSRC_TAR ?= /usr/src/linux-source-6.1.tar.xz
KSFT := $(BUILD)/ksft
# Debian's python3 has the python3-numpy/matplotlib that make deps installs.
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
NPROC := $(shell nproc)

# Kernel tree for `make`: the running kernel's, else the newest installed.
RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
NEWEST_KDIR := $(lastword $(sort $(wildcard /lib/modules/*/build)))
ifneq ($(wildcard $(RUNNING_KDIR)/Makefile),)
KDIR ?= $(RUNNING_KDIR)
else
KDIR ?= $(NEWEST_KDIR)
KDIR_NOTE := no build tree for the running kernel $(shell uname -r); using $(NEWEST_KDIR)
endif

all: module user

help:
	@echo "make build-deps   install what builds and runs jitread and jitmod here (root)"
	@echo "make deps         install the whole lab: build, test, QEMU kernels, Prometheus, MPI (root)"
	@echo "make              build jitmod.ko (running kernel, else newest headers) and jitread"
	@echo "make modules-all  build the modules for every kernel tree (installed and make kernels)"
	@echo "make kernels      fetch the kernel matrix's build trees into build/kernels"
	@echo "make qemu         fetch QEMU 10 into build/qemu, for guests on deterministic time"
	@echo "make check        host unit tests + selftests in QEMU on generic and rt kernels"
	@echo "make demo         boot the rt kernel in QEMU, compare kernel and user noise on CPUs 1-3"
	@echo "make demo-fleet   jitread serve scraped by a real Prometheus, natively; PromQL answers"
	@echo "make checkpatch   run the kernel's checkpatch.pl --strict on module/"
	@echo "make man          build/man/jitread*.1 and jitmod.4 from Documentation/"
	@echo "make install      jitread, its MPI plugin, man pages, completion, serve's units (PREFIX, DESTDIR)"
	@echo "make install-dkms the module's sources for DKMS in /usr/src/jitmod-VERSION"
	@echo "make deb          Debian packages jitread, jitread-mpi, jitmod-dkms in build/deb; lintian"
	@echo "make fuzz         libFuzzer on the replay decoder and JSON writer (FUZZ_SECONDS=60)"
	@echo "make bench-reader jitread replay throughput (BENCH_EVENTS); live reader vs trace-cmd in QEMU"
	@echo "make bench-user   user sampler vs oslat ns/iteration; pipeline transit"
	@echo "make bench-merge  the survey's fleet merge: MB/s of rank reports, rank 0's RSS"
	@echo "make bench        everything against osnoise/oslat/trace-cmd in one run: bench/results.json"

deps:
	@bash scripts/deps.sh
	@bash scripts/pydeps.sh $(BUILD)/pyvenv
	@bash scripts/kernels.sh $(BUILD)
	@bash scripts/qemu.sh $(BUILD)

# what building and running jitread and jitmod here needs, and no more
build-deps:
	@bash scripts/deps.sh build

kernels:
	@bash scripts/kernels.sh $(BUILD)

qemu:
	@bash scripts/qemu.sh $(BUILD)

module:
	@if [ -z "$(KDIR)" ]; then \
		echo "make: no kernel build tree in /lib/modules/*/build; run 'make deps'" >&2; exit 1; fi
	$(if $(KDIR_NOTE),@echo "make: $(KDIR_NOTE)")
	$(MAKE) -C module KDIR=$(KDIR)

user:
	$(MAKE) -s -C user

# One copy of the module sources per kernel, so each build keeps its .ko;
# the selftests' injector (never installed) is built beside it.
modules-all:
	@bash scripts/modules-all.sh $(BUILD)

# The kselftest harness comes from Debian's kernel source, never the repo.
# The Python selftests import jitpy, staged beside them.
$(KSRC_TAR):
	@echo "make: $(KSRC_TAR) missing; run 'make deps'" >&2; exit 1

# What make takes from the kernel source, in one pass over its tarball
# (xz, about 12 s of CPU a pass), kept under its own paths in KSRC.
KSRC := $(BUILD)/ksrc
KSRC_FILES := $(addprefix tools/testing/selftests/,lib.mk kselftest.h \
		kselftest_harness.h kselftest) \
	$(addprefix scripts/,checkpatch.pl spelling.txt \
		const_structs.checkpatch)
$(KSRC)/.taken: | $(KSRC_TAR)
	@rm -rf $(KSRC) && mkdir -p $(KSRC)
	tar -xJf $(KSRC_TAR) -C $(KSRC) --strip-components=1 \
		$(addprefix linux-source-6.1/,$(KSRC_FILES))
	@touch $@

$(KSFT)/lib.mk: $(KSRC)/.taken
	@mkdir -p $(KSFT) && cp -a $(KSRC)/tools/testing/selftests/. $(KSFT)/

ksft: $(KSFT)/lib.mk
	@rsync -a --delete --exclude=/build --exclude=/jitpy selftests/jitmod/ $(KSFT)/jitmod/
	@rsync -a --delete --exclude=__pycache__ jitpy/ $(KSFT)/jitmod/jitpy/
	$(MAKE) -s -C $(KSFT)/jitmod OUTPUT=$(KSFT)/jitmod

# the matrix's modules are built beside the first guests (jitpy/harness)
# the builds first, on every CPU: the harness's lanes start after them
check:
	@$(MAKE) --no-print-directory -j$(NPROC) ksft user
	@bash scripts/modules-all.sh --only installed $(BUILD)
	@$(PYTHON) -m jitpy.harness

# jitread serve scraped by a real Prometheus, natively (no module).
demo-fleet: user
	@$(PYTHON) -m jitpy.fleet.demo $(DEMO_FLEET_ARGS)

demo: modules-all user
	@$(PYTHON) -m jitpy.vm -k rt -s 4 -t 15m -- \
		sh scripts/demo-guest.sh $(DEMO_ARGS)

# checkpatch.pl is not in Debian's headers packages; take it from the source.
CHECKPATCH := $(BUILD)/checkpatch/checkpatch.pl
$(CHECKPATCH): $(KSRC)/.taken
	@mkdir -p $(BUILD)/checkpatch && cp -a $(KSRC)/scripts/. $(BUILD)/checkpatch/

# Fails on any ERROR or WARNING.  The CHECKs left are the TRACE_EVENT
# macro layout, which the kernel's own trace headers draw just the same.
checkpatch: $(CHECKPATCH)
	@$(CHECKPATCH) --no-tree --strict --terse --show-types \
		-f $(filter-out %.mod.c %_gen.h,$(wildcard module/*.[ch] selftests/jitmod/jitinject/*.c bench/jitbench/*.c)) \
		include/*.h \
		| tee $(BUILD)/checkpatch.log
	@! grep -qE ': (ERROR|WARNING):' $(BUILD)/checkpatch.log

# libFuzzer on jitread's replay decoder and report writers (FUZZ_SECONDS).
fuzz:
	$(MAKE) -C user fuzz

# Replay throughput on a synthetic recording of BENCH_EVENTS events.
bench-reader: user modules-all
	@$(PYTHON) -m jitpy.bench.reader

bench-user: user
	@$(PYTHON) -m jitpy.bench.user

bench-merge: user
	@$(PYTHON) -m jitpy.bench.merge

bench: user modules-all
	@$(PYTHON) -m jitpy.bench.suite

# jitread(1) and a page per subcommand, jitread-CMD(1), from their
# reStructuredText sources; jitmod(4) for the module.
MAN_PAGES := $(patsubst Documentation/%.rst,$(BUILD)/man/%.1,\
	$(wildcard Documentation/jitread*.rst)) $(BUILD)/man/jitmod.4
man: $(MAN_PAGES)
$(BUILD)/man/%.1: Documentation/%.rst
	@mkdir -p $(@D)
	@command -v rst2man >/dev/null || { echo "make: rst2man missing; run 'make deps'" >&2; exit 1; }
	rst2man --exit-status=2 $< $@
$(BUILD)/man/jitmod.4: Documentation/jitmod.4.rst
	@mkdir -p $(@D)
	@command -v rst2man >/dev/null || { echo "make: rst2man missing; run 'make deps'" >&2; exit 1; }
	rst2man --exit-status=2 $< $@

# make install: jitread, its MPI plugin (where it was built), the man
# pages, bash completion, jitread-serve's units (naming BINDIR's jitread),
# its Prometheus rules and its defaults file (kept when one exists), under
# DESTDIR and PREFIX.  install-dkms puts
# the module's sources where DKMS builds them, /usr/src/jitmod-VERSION.
VERSION := $(shell cat $(TOP)/VERSION)
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
PLUGINDIR ?= $(PREFIX)/lib/jitread
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
DOCDIR ?= $(PREFIX)/share/doc/jitread
# the Prometheus rules (dist/jitread.rules.yml), for a rule_files entry
DATADIR ?= $(PREFIX)/share/jitread
# the documents the man pages name, by the package's path
DOCS := jitmod.rst advise.rst fleet.rst install.rst
PKG_DOCDIR := /usr/share/doc/jitread
# jitpy's readers and plots: Debian's python3 looks in /usr/lib/python3/
# dist-packages and, for other prefixes, in PREFIX/lib/python3.N/...
PYVER := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3,$(PREFIX)/lib/python$(PYVER))/dist-packages
PY_FILES := jitpy/__init__.py jitpy/abi.py $(wildcard jitpy/formats/*.py jitpy/plot/*.py)
SYSCONFDIR ?= /etc
DKMSDIR ?= /usr/src/jitmod-$(VERSION)
UNITS := jitread-serve.service jitread-serve.socket
INSTALLED := $(BINDIR)/jitread $(PLUGINDIR)/jitread-mpi.so \
	$(patsubst $(BUILD)/man/%.1,$(MANDIR)/man1/%.1,$(filter %.1,$(MAN_PAGES))) \
	$(MANDIR)/man4/jitmod.4 $(COMPLETIONDIR)/jitread \
	$(addprefix $(UNITDIR)/,$(UNITS)) $(addprefix $(DOCDIR)/,$(DOCS)) \
	$(addprefix $(PYDIR)/,$(PY_FILES)) $(PYDIR)/jitpy/jitmod_abi.h \
	$(DATADIR)/prometheus/jitread.rules.yml

install: user man
	install -D -m 0755 user/jitread $(DESTDIR)$(BINDIR)/jitread
	if [ -f user/jitread-mpi.so ]; then \
		install -D -m 0644 user/jitread-mpi.so \
			$(DESTDIR)$(PLUGINDIR)/jitread-mpi.so; fi
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man4 \
		$(DESTDIR)$(DOCDIR)
	@# the pages name the documents where the package puts them
	for m in $(MAN_PAGES); do \
		d=$(DESTDIR)$(MANDIR)/man$${m##*.}; \
		sed 's|$(PKG_DOCDIR)/|$(DOCDIR)/|g' $$m > $$d/$${m##*/} && \
		chmod 0644 $$d/$${m##*/} || exit 1; done
	install -m 0644 $(addprefix Documentation/,$(DOCS)) $(DESTDIR)$(DOCDIR)/
	for f in $(PY_FILES); do \
		install -D -m 0644 $$f $(DESTDIR)$(PYDIR)/$$f || exit 1; done
	install -m 0644 include/jitmod_abi.h $(DESTDIR)$(PYDIR)/jitpy/
	install -D -m 0644 dist/jitread.bash-completion \
		$(DESTDIR)$(COMPLETIONDIR)/jitread
	install -D -m 0644 dist/jitread.rules.yml \
		$(DESTDIR)$(DATADIR)/prometheus/jitread.rules.yml
	install -d $(DESTDIR)$(UNITDIR)
	for u in $(UNITS); do \
		sed 's|/usr/bin/jitread|$(BINDIR)/jitread|' dist/$$u \
			> $(DESTDIR)$(UNITDIR)/$$u && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; done
	@# the defaults are the administrator's once installed: never replaced
	if [ ! -e $(DESTDIR)$(SYSCONFDIR)/default/jitread-serve ]; then \
		install -D -m 0644 dist/jitread-serve.default \
			$(DESTDIR)$(SYSCONFDIR)/default/jitread-serve; fi

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(DATADIR) 2>/dev/null
	-rm -rf $(addprefix $(DESTDIR)$(PYDIR)/jitpy/,__pycache__ \
		formats/__pycache__ plot/__pycache__)
	-rmdir $(addprefix $(DESTDIR)$(PYDIR)/jitpy/,formats plot) \
		$(DESTDIR)$(PYDIR)/jitpy 2>/dev/null
	@# the defaults go only as installed: an edited file is kept
	if cmp -s dist/jitread-serve.default \
		$(DESTDIR)$(SYSCONFDIR)/default/jitread-serve; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/default/jitread-serve; fi

# The module's sources (not what a build generates), VERSION, and a
# dkms.conf with the version written in (dh_dkms reads it so).
DKMS_FILES := $(filter-out %_gen.h %.mod.c,$(wildcard module/*.[ch] \
	module/Kbuild module/Makefile include/*.h include/*.sh))
install-dkms:
	install -d $(DESTDIR)$(DKMSDIR)
	for f in VERSION $(DKMS_FILES); do \
		install -D -m 0644 $$f $(DESTDIR)$(DKMSDIR)/$$f || exit 1; done
	sed 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="$(VERSION)"/' dkms.conf \
		> $(DESTDIR)$(DKMSDIR)/dkms.conf

uninstall-dkms:
	rm -rf $(DESTDIR)$(DKMSDIR)

# make deb: jitread, jitread-mpi and jitmod-dkms as Debian packages, built
# by debhelper (debian/) from a copy of what git tracks, in build/deb;
# then lintian, which must find no error.  The changelog's date is the
# commit's, so that two builds of one commit give the same packages.
DEB_DIR := $(BUILD)/deb
DEB_SRC := $(DEB_DIR)/jitmod-$(VERSION)
DEB_MAINT := $(shell sed -n 's/^Maintainer: //p' debian/control)
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	git ls-files -z | xargs -0 cp -P --parents -t $(DEB_SRC)
	printf '%s\n' "jitmod ($(VERSION)) unstable; urgency=medium" "" \
		"  * Built by make deb from jitmod's tree." "" \
		" -- $(DEB_MAINT)  $$(git log -1 --format=%cD)" \
		> $(DEB_SRC)/debian/changelog
	cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc
	set -o pipefail; lintian --fail-on error --tag-display-limit 0 \
		$(DEB_DIR)/*.changes \
		| tee $(DEB_DIR)/lintian.log

clean:
	-$(MAKE) -C module KDIR=$(KDIR) clean
	$(MAKE) -C user clean
	rm -rf $(BUILD)

.PHONY: all help deps build-deps kernels qemu module user modules-all ksft check demo demo-fleet checkpatch man fuzz bench-reader bench-user bench-merge bench clean \
	install uninstall install-dkms uninstall-dkms deb
