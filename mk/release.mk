# SPDX-License-Identifier: MIT
# Installing and releasing clockscope (included from the Makefile; docs/install.md).
#   make install [PREFIX=DIR] [DESTDIR=STAGE]   everything the commands need, see below
#   make man                  $(O)/man/clockscope.1 and clockscope-COMMAND.1, from --help (help2man)
#   make dist                 dist/clockscope-VERSION-ARCH.tar.gz for x86_64, aarch64, riscv64,
#                             the .debs of this machine's arch, dist/SHA256SUMS
#   make deb                  only the .debs: clockscope, libfastclock1, libfastclock-dev
#                             (lintian-checked, scripts/make-deb.sh)
#
# The version: VERSION's number, plus `git describe` of the checkout when there is one
# ("0.1.0 (git 47e6571-dirty)"); a build from an exported tree says "0.1.0 (no git)".

VERSION_NUMBER := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
# Only this repository's own git: a tree unpacked inside some other checkout has none.
OWN_GIT        := [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] &&
GIT_DESCRIBE   := $(shell $(OWN_GIT) git describe --tags --always --dirty 2>/dev/null)
VERSION_STRING := $(VERSION_NUMBER) ($(if $(GIT_DESCRIBE),git $(GIT_DESCRIBE),no git))
# For file names and the Debian version: 0.1.0+git412.47e6571(.dirty).  The count of
# commits orders two builds of one history as the history does (dpkg and apt compare it as
# a number; the hash alone would order them by chance), the hash names the commit, and a
# dirty tree sorts above its commit's clean build.  A tree without git: VERSION's number.
GIT_COUNT      := $(if $(GIT_DESCRIBE),$(shell git rev-list --count HEAD 2>/dev/null))
GIT_SHORT      := $(if $(GIT_DESCRIBE),$(shell git rev-parse --short HEAD 2>/dev/null))
DIST_VERSION   := $(VERSION_NUMBER)$(if $(GIT_COUNT),+git$(GIT_COUNT).$(GIT_SHORT)$(if $(filter %-dirty,$(GIT_DESCRIBE)),.dirty))

# version.o is rebuilt when the version (or how this file defines it) changes, and only then.
$(O)/version.txt: FORCE
	@mkdir -p $(O)
	@echo '$(VERSION_STRING)' | cmp -s - $@ || echo '$(VERSION_STRING)' > $@
$(O)/obj/src/common/version.o: $(O)/version.txt mk/release.mk
$(O)/obj/src/common/version.o: CPPFLAGS += -DCLOCKSCOPE_VERSION='"$(VERSION_STRING)"'
.PHONY: FORCE
FORCE:

# ---- make install ------------------------------------------------------------------------
BINDIR      = $(PREFIX)/bin
# libfastclock's directory (its .so, .a and pkgconfig/); the Debian packages put it in the
# multiarch one (make install LIBDIR=/usr/lib/x86_64-linux-gnu, scripts/make-deb.sh).  The
# shim is clockscope's own, not a library for others: it stays in SHIMDIR, where `run`
# finds it from bin/ (../lib/clockscope/) whatever LIBDIR is.
LIBDIR      = $(PREFIX)/lib
INCLUDEDIR  = $(PREFIX)/include
LIBEXECDIR  = $(PREFIX)/libexec
MANDIR      = $(PREFIX)/share/man
DOCDIR      = $(PREFIX)/share/doc/clockscope
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions
# zsh reads /usr/local/share/zsh/site-functions, and in Debian's /usr the packages'
# vendor-completions; fish reads vendor_completions.d under every XDG data directory.
ZSHCOMPDIR  = $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHCOMPDIR = $(PREFIX)/share/fish/vendor_completions.d
# Where `make vm-binaries` / `make cross` leave the static guests `clockscope vm` boots.
VM_ARCHES   := x86_64 aarch64 riscv64
VM_BIN_DIR  ?= build
SHIMDIR     = $(PREFIX)/lib/clockscope
MAN_COMMANDS := bench warp vdso doctor facts run vm metrics ladder profile runtimes collect report
# Man pages come from running a clockscope of this machine's arch (a cross build passes
# the native one: make dist does).
MAN_BIN      ?= $(O)/clockscope
MAN_DIR      ?= $(O)/man
MAN_PAGES    := $(MAN_DIR)/clockscope.1 $(MAN_COMMANDS:%=$(MAN_DIR)/clockscope-%.1)
DOC_FILES    := README.md $(wildcard docs/*.md)

# Man pages need help2man; without it `make install` installs the rest and says so.
HAVE_HELP2MAN := $(shell command -v help2man 2>/dev/null)
INSTALL_MAN   := $(if $(HAVE_HELP2MAN),$(MAN_PAGES))

.PHONY: install install-guests man
install: $(O)/clockscope $(FC_OUTPUTS) $(INSTALL_MAN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(SHIMDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DOCDIR) \
	    $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 $(O)/clockscope $(DESTDIR)$(BINDIR)/clockscope
	install -m 644 $(O)/$(FC_SONAME) $(DESTDIR)$(LIBDIR)/$(FC_SONAME)
	ln -sf $(FC_SONAME) $(DESTDIR)$(LIBDIR)/libfastclock.so
	install -m 644 $(O)/libfastclock.a $(DESTDIR)$(LIBDIR)/libfastclock.a
	install -m 644 src/fastclock/fastclock.h $(DESTDIR)$(INCLUDEDIR)/fastclock.h
	$(call fastclock_pc,$(PREFIX),$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))) > $(DESTDIR)$(LIBDIR)/pkgconfig/fastclock.pc
	install -m 644 $(O)/libclockscope-shim.so $(DESTDIR)$(SHIMDIR)/libclockscope-shim.so
	$(if $(INSTALL_MAN),install -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/,@echo "  man pages: skipped, help2man is not installed (apt-get install help2man)")
	install -m 644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	@# The licence travels with every copy: the tarballs and a plain install carry it here
	@# (each .deb carries it as its copyright file, scripts/make-deb.sh).
	install -m 644 LICENSE $(DESTDIR)$(DOCDIR)/LICENSE
	install -m 644 completion/clockscope.bash $(DESTDIR)$(BASHCOMPDIR)/clockscope
	install -m 644 completion/_clockscope $(DESTDIR)$(ZSHCOMPDIR)/_clockscope
	install -m 644 completion/clockscope.fish $(DESTDIR)$(FISHCOMPDIR)/clockscope.fish
	@$(MAKE) -s install-guests
	@echo "installed clockscope $(VERSION_STRING) under $(DESTDIR)$(PREFIX)"

# The static guests that were built, with the shim `run` needs in them (beside each, where
# `clockscope vm` looks for it), each checked to be what its name says (a stale or
# dynamic file would only fail later, inside a VM).  Missing ones are named with their recipe.
# The Debian packages that give each guest's compiler (the host's own gcc for its own arch).
GUEST_PKGS_x86_64  := $(if $(filter x86_64,$(ARCH)),gcc libc6-dev,gcc-x86-64-linux-gnu libc6-dev-amd64-cross)
GUEST_PKGS_aarch64 := $(if $(filter aarch64,$(ARCH)),gcc libc6-dev,gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
GUEST_PKGS_riscv64 := $(if $(filter riscv64,$(ARCH)),gcc libc6-dev,gcc-riscv64-linux-gnu libc6-dev-riscv64-cross)
install-guests:
	@$(foreach a,$(VM_ARCHES),\
	if [ -f $(VM_BIN_DIR)/$(a)/clockscope ]; then \
	    install -D -m 755 $(VM_BIN_DIR)/$(a)/clockscope $(DESTDIR)$(LIBEXECDIR)/clockscope/$(a)/clockscope && \
	    echo "  guest $(a): $(LIBEXECDIR)/clockscope/$(a)/clockscope"; \
	    if [ -f $(VM_BIN_DIR)/$(a)/libclockscope-shim.so ]; then \
	        install -m 644 $(VM_BIN_DIR)/$(a)/libclockscope-shim.so \
	            $(DESTDIR)$(LIBEXECDIR)/clockscope/$(a)/libclockscope-shim.so && \
	        echo "  guest $(a): $(LIBEXECDIR)/clockscope/$(a)/libclockscope-shim.so (run in the guest)"; \
	    fi; \
	else \
	    echo "  guest $(a): not built ($(VM_BIN_DIR)/$(a)/clockscope), so 'clockscope vm --arch $(a)'" \
	         "will not work from this install: apt-get install $(GUEST_PKGS_$(a))," \
	         "then make vm-binaries and make install again"; \
	fi;)

# ---- man pages from the commands' own --help ---------------------------------------------
man: $(MAN_PAGES)

HELP2MAN := help2man --no-info --no-discard-stderr

# help2man runs a program with --help and --version: a small wrapper per page, which names
# the page (clockscope-run) and capitalises "usage:" so help2man makes it the SYNOPSIS.
# COLUMNS: report's --help (Python's argparse) wraps its usage to the terminal's width, and
# help2man takes only the usage's first line as the SYNOPSIS; wide, the usage is one line.
# $(call man_wrapper,PAGE,SUBCOMMAND)
man_wrapper = printf '\#!/bin/sh\nif [ "$$1" = --version ]; then %s --version | sed "s/^clockscope/%s/"; exit; fi\nCOLUMNS=300 %s %s "$$@" | sed "s/^usage:/Usage:/"\n' \
    '$(abspath $(MAN_BIN))' '$(1)' '$(abspath $(MAN_BIN))' '$(2)' > $(MAN_DIR)/bin/$(1) && \
    chmod +x $(MAN_DIR)/bin/$(1)

$(MAN_DIR)/clockscope.1: $(MAN_BIN) docs/man-extra.h2m mk/release.mk
	@mkdir -p $(MAN_DIR)/bin
	@echo "  MAN $@"
	@$(call man_wrapper,clockscope,)
	@$(HELP2MAN) --name='what reading the time costs on Linux, why, and what to do about it' \
	    --include=docs/man-extra.h2m --output=$@ $(abspath $(MAN_DIR))/bin/clockscope

$(MAN_DIR)/clockscope-%.1: $(MAN_BIN) mk/release.mk
	@mkdir -p $(MAN_DIR)/bin
	@echo "  MAN $@"
	@$(call man_wrapper,clockscope-$*,$*)
	@$(HELP2MAN) --name="$$($(MAN_BIN) --help | sed -n 's/^  $* *//p')" \
	    --output=$@ $(abspath $(MAN_DIR))/bin/clockscope-$*

# ---- releases: make dist, make deb ----------------------------------------------------------
# One tarball per arch: the static clockscope, that arch's shim and libfastclock (shared
# objects built by its cross compiler), header, relocatable pkg-config file, man pages,
# completion, docs, and the static vm guests of all three arches.  The .debs are this machine's
# arch.  dist/SHA256SUMS covers them all (verify: cd dist && sha256sum -c SHA256SUMS).
DIST_DIR   := dist
DIST_STAGE := build/dist
CC_x86_64  := x86_64-linux-gnu-gcc
CC_aarch64 := aarch64-linux-gnu-gcc
CC_riscv64 := riscv64-linux-gnu-gcc
DIST_TARBALLS := $(VM_ARCHES:%=$(DIST_DIR)/clockscope-$(DIST_VERSION)-%.tar.gz)

.PHONY: dist deb dist-prereqs
dist:
	@rm -rf $(DIST_DIR)
	@$(MAKE) -s dist-prereqs
	@$(MAKE) -s $(DIST_TARBALLS) deb
	@cd $(DIST_DIR) && rm -f SHA256SUMS && \
	    sha256sum clockscope-$(DIST_VERSION)-*.tar.gz *_$(DIST_VERSION)_*.deb > SHA256SUMS && \
	    sha256sum -c --quiet SHA256SUMS && cat SHA256SUMS

# What every tarball and the .deb share, made once and in order before any of them starts:
# the static guests of all arches, the native clockscope, and the man pages help2man takes
# from that binary's --help.  Each tarball used to make these itself, so under `make -j4 dist`
# three sub-makes built the same files at once and help2man ran build/clockscope while
# another sub-make was still linking it (a fresh clone failed; tests/test_install.py's dist
# fixture builds a fresh clone with -j4).
dist-prereqs:
	@$(MAKE) -s vm-binaries
	@$(MAKE) -s O=build all
	@$(if $(HAVE_HELP2MAN),$(MAKE) -s O=build man,echo "make dist: needs help2man (apt-get install help2man)" >&2; exit 1)

$(DIST_DIR)/clockscope-$(DIST_VERSION)-%.tar.gz: dist-prereqs
	@rm -rf $(DIST_STAGE)/$* && mkdir -p $(DIST_STAGE)/$* $(DIST_DIR)
	@$(MAKE) -s O=build/$* CC=$(CC_$*) STATIC=1 MAN_BIN=build/clockscope MAN_DIR=build/man \
	    PREFIX=/clockscope-$(DIST_VERSION)-$* DESTDIR=$(abspath $(DIST_STAGE)/$*) install >/dev/null
	@# Relocatable: pkg-config answers for wherever the tarball was unpacked.
	@$(call fastclock_pc,$${pcfiledir}/../..) > $(DIST_STAGE)/$*/clockscope-$(DIST_VERSION)-$*/lib/pkgconfig/fastclock.pc
	@sh scripts/strip-tree.sh $(DIST_STAGE)/$*
	@tar -C $(DIST_STAGE)/$* --owner=0 --group=0 --sort=name -czf $@ clockscope-$(DIST_VERSION)-$*
	@echo "  DIST $@"

deb: $(O)/clockscope $(FC_OUTPUTS)
	@$(MAKE) -s vm-binaries
	@sh scripts/make-deb.sh '$(O)' '$(DIST_VERSION)' '$(DIST_DIR)'
