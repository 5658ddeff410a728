# Installing and releasing clockscope (included from the Makefile; docs/install.md).
#   make install [PREFIX=DIR] [DESTDIR=STAGE]   everything the commands need, see below
#   make man                  $(O)/man/clockscope.1 and clockscope-COMMAND.1, from --help (help2man)
#   make dist                 dist/clockscope-VERSION-ARCH.tar.gz for x86_64, aarch64, riscv64,
#                             dist/clockscope_VERSION_DEBARCH.deb, dist/SHA256SUMS
#   make deb                  only the .deb (lintian-checked)
#
# The version: VERSION's number, plus `git describe` of the checkout when there is one
# ("0.1.0 (git 47e6571-dirty)"); a build from an exported tree says "0.1.0 (no git)".

VERSION_NUMBER := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
# Only this repository's own git: a tree unpacked inside some other checkout has none.
GIT_DESCRIBE   := $(shell [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] && \
                    git describe --tags --always --dirty 2>/dev/null)
VERSION_STRING := $(VERSION_NUMBER) ($(if $(GIT_DESCRIBE),git $(GIT_DESCRIBE),no git))
# For file names and the Debian version: 0.1.0+g47e6571.dirty
DIST_VERSION   := $(VERSION_NUMBER)$(if $(GIT_DESCRIBE),+g$(subst -,.,$(GIT_DESCRIBE)))

# main.o is rebuilt when the version changes, and only then.
$(O)/version.txt: FORCE
	@mkdir -p $(O)
	@echo '$(VERSION_STRING)' | cmp -s - $@ || echo '$(VERSION_STRING)' > $@
$(O)/obj/src/main.o: $(O)/version.txt
$(O)/obj/src/main.o: CPPFLAGS += -DCLOCKSCOPE_VERSION='"$(VERSION_STRING)"'
.PHONY: FORCE
FORCE:

# ---- make install ------------------------------------------------------------------------
BINDIR      = $(PREFIX)/bin
LIBDIR      = $(PREFIX)/lib
INCLUDEDIR  = $(PREFIX)/include
LIBEXECDIR  = $(PREFIX)/libexec
MANDIR      = $(PREFIX)/share/man
DOCDIR      = $(PREFIX)/share/doc/clockscope
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions
# Where `make vm-binaries` / `make cross` leave the static guests `clockscope vm` boots.
VM_ARCHES   := x86_64 aarch64 riscv64
VM_BIN_DIR  ?= build
MAN_COMMANDS := bench warp vdso doctor facts run vm
MAN_PAGES    := $(O)/man/clockscope.1 $(MAN_COMMANDS:%=$(O)/man/clockscope-%.1)

.PHONY: install install-guests man
install: $(O)/clockscope $(FC_OUTPUTS) $(MAN_PAGES)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(LIBDIR)/clockscope $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(O)/clockscope $(DESTDIR)$(BINDIR)/clockscope
	install -m 644 $(O)/$(FC_SONAME) $(DESTDIR)$(LIBDIR)/$(FC_SONAME)
	ln -sf $(FC_SONAME) $(DESTDIR)$(LIBDIR)/libfastclock.so
	install -m 644 $(O)/libfastclock.a $(DESTDIR)$(LIBDIR)/libfastclock.a
	install -m 644 src/fastclock/fastclock.h $(DESTDIR)$(INCLUDEDIR)/fastclock.h
	$(call fastclock_pc,$(PREFIX)) > $(DESTDIR)$(LIBDIR)/pkgconfig/fastclock.pc
	install -m 644 $(O)/libclockscope-shim.so $(DESTDIR)$(LIBDIR)/clockscope/libclockscope-shim.so
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 completion/clockscope.bash $(DESTDIR)$(BASHCOMPDIR)/clockscope
	@$(MAKE) -s install-guests
	@echo "installed clockscope $(VERSION_STRING) under $(DESTDIR)$(PREFIX)"

# The static guests that were built, each checked to be what its name says (a stale or
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
# $(call man_wrapper,PAGE,SUBCOMMAND)
man_wrapper = printf '\#!/bin/sh\nif [ "$$1" = --version ]; then %s --version | sed "s/^clockscope/%s/"; exit; fi\n%s %s "$$@" | sed "s/^usage:/Usage:/"\n' \
    '$(abspath $(O))/clockscope' '$(1)' '$(abspath $(O))/clockscope' '$(2)' > $(O)/man/bin/$(1) && \
    chmod +x $(O)/man/bin/$(1)

$(O)/man/clockscope.1: $(O)/clockscope docs/man-extra.h2m mk/release.mk
	@mkdir -p $(O)/man/bin
	@echo "  MAN $@"
	@$(call man_wrapper,clockscope,)
	@$(HELP2MAN) --name='what reading the time costs on Linux, why, and what to do about it' \
	    --include=docs/man-extra.h2m --output=$@ $(abspath $(O))/man/bin/clockscope

$(O)/man/clockscope-%.1: $(O)/clockscope mk/release.mk
	@mkdir -p $(O)/man/bin
	@echo "  MAN $@"
	@$(call man_wrapper,clockscope-$*,$*)
	@$(HELP2MAN) --name="$$($(O)/clockscope --help | sed -n 's/^  $* *//p')" \
	    --output=$@ $(abspath $(O))/man/bin/clockscope-$*
