# SPDX-License-Identifier: MIT
# clockscope build.
#   make                      native build: build/clockscope
#   make STATIC=1             static binary (for boards, VMs, initramfs)
#   make SAN=1 O=build/san    AddressSanitizer + UBSan build
#   make cross                static aarch64 and riscv64 builds (Debian cross compilers):
#                             build/aarch64/clockscope, build/riscv64/clockscope
#   make vm-binaries          static x86_64, aarch64, riscv64 builds for clockscope vm
#   make check                the quick inner loop (under a minute): C unit tests, fast CLI tests,
#                             ruff and mypy on the report package (report/pyproject.toml)
#   make test                 the whole test suite (see README, docs/testing.md)
#   make mutants              deliberate breakages (tests/mutants/AREA/*.mutant) must each fail
#                             their tests (docs/testing.md, "Mutants"): the latest commits'
#                             files' and a rotating third of the rest; FILE=src/x.c one
#                             file's; make mutants-all every one
#   make install PREFIX=DIR   DIR/bin/clockscope, DIR/lib/libfastclock.{so,a}, DIR/include/fastclock.h,
#                             DIR/lib/pkgconfig/fastclock.pc, DIR/lib/clockscope/libclockscope-shim.so,
#                             DIR/libexec/clockscope/ARCH/clockscope (the built vm guests), man pages,
#                             bash completion (mk/release.mk; DESTDIR respected)
#   make dist                 release tarballs for the three arches, a .deb, SHA256SUMS (mk/release.mk)
CC      ?= cc
O       ?= build
PREFIX  ?= /usr/local
PYTHON  ?= python3

TRIPLE  := $(shell $(CC) -dumpmachine)
ARCH    := $(firstword $(subst -, ,$(TRIPLE)))
ifeq ($(filter $(ARCH),x86_64 aarch64 riscv64),)
$(error unsupported target '$(TRIPLE)' from CC=$(CC): clockscope supports x86_64, aarch64 and riscv64)
endif

CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror
CPPFLAGS += -D_GNU_SOURCE -Isrc
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) $(CPPFLAGS) -MMD -MP
LDLIBS   += -lpthread -lm
ifneq ($(STATIC),)
LDFLAGS  += -static
endif
ifneq ($(SAN),)
ALL_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS    += -fsanitize=address,undefined
endif

# The directories whose sources make up the clockscope binary, and the one arch file.
CLI_DIRS := common vdso measure bench warp fastclock run facts doctor vm collect metrics ladder profile runtimes
CLI_SRC  := src/main.c $(foreach d,$(CLI_DIRS),$(wildcard src/$(d)/*.c)) src/arch/$(ARCH).c \
            src/arch/defaults.c \
            $(wildcard src/arch/$(ARCH)_inject.c) src/arch/inject_none.c
CLI_OBJ  := $(CLI_SRC:%.c=$(O)/obj/%.o)
LIB_OBJ  := $(filter-out $(O)/obj/src/main.o,$(CLI_OBJ))
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(O)/obj/%.o)

.PHONY: all check test mutants mutants-all install cross vm-binaries fuzz clean
all: $(O)/clockscope fastclock-libs

# libfastclock and the `clockscope run` shim: position-independent objects in $(O)/pic,
# only libfastclock's API exported (-fvisibility=hidden; the shim exports only the calls
# it interposes, src/shim/shim.map).  Not built in SAN builds (an ASan shim cannot be
# preloaded into arbitrary programs); the library's logic is unit-tested there instead.
FC_SRC     := $(wildcard src/fastclock/*.c) src/arch/$(ARCH).c src/arch/defaults.c \
              src/common/trap_guard.c
FC_PIC     := $(FC_SRC:%.c=$(O)/pic/%.o)
# units.c: the count table's rates in the one format (pure, libc only; hidden like the rest).
SHIM_PIC   := $(patsubst %.c,$(O)/pic/%.o,$(wildcard src/shim/*.c)) $(O)/pic/src/common/units.o
FC_OUTPUTS := $(O)/libfastclock.so $(O)/libfastclock.a $(O)/fastclock.pc $(O)/libclockscope-shim.so
FC_SONAME  := libfastclock.so.1

.PHONY: fastclock-libs
fastclock-libs: $(if $(SAN),,$(FC_OUTPUTS))

$(O)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC  $< (PIC)"
	@$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(O)/$(FC_SONAME): $(FC_PIC)
	@echo "  LD  $@"
	@$(CC) -shared -Wl,-soname,$(FC_SONAME) -Wl,-z,nodelete -o $@ $^ -lpthread

$(O)/libfastclock.so: $(O)/$(FC_SONAME)
	@ln -sf $(FC_SONAME) $@

$(O)/libfastclock.a: $(FC_PIC)
	@echo "  AR  $@"
	@rm -f $@ && $(AR) rcs $@ $^

# libfastclock with its counter behind the test seam (src/fastclock/fc_counter.h): the
# program supplies the counter (tests/progs/fc_seam.c).  For tests only, never installed.
SEAM_OBJ   := $(FC_SRC:%.c=$(O)/seam/%.o)
$(O)/seam/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC  $< (counter seam)"
	@$(CC) $(ALL_CFLAGS) -DFC_COUNTER_SEAM -c -o $@ $<

$(O)/libfastclock-seam.a: $(SEAM_OBJ)
	@echo "  AR  $@"
	@rm -f $@ && $(AR) rcs $@ $^

# pkg-config file for a prefix: $(call fastclock_pc,PREFIX[,LIBDIR]) > FILE; LIBDIR is
# written as given (${prefix}/lib/x86_64-linux-gnu), PREFIX/lib when left out.
fastclock_pc = printf 'prefix=%s\nlibdir=%s\nincludedir=$${prefix}/include\n\nName: fastclock\nDescription: the cheapest correct timestamp (calibrated CPU counter, CLOCK_MONOTONIC domain)\nVersion: 1.0.0\nLibs: -L$${libdir} -lfastclock\nLibs.private: -lpthread\nCflags: -I$${includedir}\n' '$(1)' '$(or $(2),$${prefix}/lib)'

# The build tree's own .pc (for using the library straight from the build directory).
$(O)/fastclock.pc: Makefile
	@$(call fastclock_pc,$(abspath $(O))) > $@

$(O)/libclockscope-shim.so: $(SHIM_PIC) $(FC_PIC) src/shim/shim.map
	@echo "  LD  $@"
	@$(CC) -shared -Wl,--version-script=src/shim/shim.map -Wl,-z,nodelete -o $@ $(SHIM_PIC) $(FC_PIC) -ldl -lpthread

# The reader `clockscope run` injects into static and Go programs (docs/run.md): compiled
# freestanding and position-independent, its .text embedded in the binary as bytes by
# scripts/gen-reader-blob.sh, which fails on any relocation and on any use of a register
# the arch forbids (READER_FORBIDDEN_REGS).  The binutils are the target's own (the
# triple's prefix), so that a cross build reads its reader too.
# Go's g register is callee-saved in the C ABI (x28 on arm64, x27 = s11 on riscv64), so a
# C function may save it, use it and restore it; but Go's signal handler takes g from that
# register wherever the signal lands (a SIGPROF inside the reader), so it must never hold
# anything else, even for a moment: -ffixed-* keeps the compiler off it altogether, and
# the script fails the build if the disassembly names it at all.
READER_CFLAGS := -std=c11 $(WARN) -O2 -D_GNU_SOURCE -Isrc -ffreestanding -fPIC -nostdlib \
                 -fno-stack-protector -fno-jump-tables -fno-tree-switch-conversion -fno-asynchronous-unwind-tables \
                 -fno-unwind-tables -fno-toplevel-reorder
READER_CFLAGS_x86_64  := -fcf-protection=none -mno-red-zone
# no calls into libgcc for atomics (outline atomics), no SIMD/FP registers, no landing pads
# (the reader's pages are not mapped guarded)
READER_CFLAGS_aarch64 := -mgeneral-regs-only -mno-outline-atomics -mbranch-protection=none -ffixed-x28
# no linker relaxation (gp-relative or relaxed pairs would need the linker)
READER_CFLAGS_riscv64 := -mno-relax -ffixed-s11
READER_FORBIDDEN_REGS_aarch64 := x28|w28
READER_FORBIDDEN_REGS_riscv64 := s11|x27
# riscv64's object keeps PC-relative relocations (see gen-reader-blob.sh): linked alone at 0
READER_LINK_riscv64 := 1
READER_PCREL_RELOCS_riscv64 := R_RISCV_(BRANCH|JAL|RVC_BRANCH|RVC_JUMP|CALL|CALL_PLT|PCREL_HI20|PCREL_LO12_I|PCREL_LO12_S)
READER_BINUTILS := $(if $(shell command -v $(TRIPLE)-objcopy 2>/dev/null),$(TRIPLE)-,)
$(O)/gen/run_reader_blob.h: src/run/reader/reader.c src/run/run_reader_abi.h src/run/run_timens.h src/fastclock/fc_line.h src/fastclock/fc_read.h src/arch/counter.h src/arch/$(ARCH)/counter.h src/arch/reader_arch.h src/arch/$(ARCH)/reader_arch.h scripts/gen-reader-blob.sh
	@mkdir -p $(O)/gen
	@echo "  CC  $< (freestanding reader)"
	@$(CC) $(READER_CFLAGS) $(READER_CFLAGS_$(ARCH)) -c -o $(O)/gen/reader.o $<
ifneq ($(READER_LINK_$(ARCH)),)
	@$(CC) -static -nostdlib -Wl,--no-relax -Wl,--build-id=none -Wl,-Ttext=0 -Wl,-e,0 \
	    -o $(O)/gen/reader.elf $(O)/gen/reader.o
endif
	@OBJCOPY=$(READER_BINUTILS)objcopy READELF=$(READER_BINUTILS)readelf NM=$(READER_BINUTILS)nm \
	    OBJDUMP=$(READER_BINUTILS)objdump READER_FORBIDDEN_REGS='$(READER_FORBIDDEN_REGS_$(ARCH))' \
	    READER_PCREL_RELOCS='$(READER_PCREL_RELOCS_$(ARCH))' \
	    scripts/gen-reader-blob.sh $(O)/gen/reader.o $@ $(if $(READER_LINK_$(ARCH)),$(O)/gen/reader.elf)
CPPFLAGS += -I$(O)/gen
$(CLI_OBJ): | $(O)/gen/run_reader_blob.h
$(O)/obj/src/run/run_vpatch.o $(O)/obj/tests/unit/test_run_reader.o: $(O)/gen/run_reader_blob.h

$(O)/clockscope: $(CLI_OBJ)
	@echo "  LD  $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/unit_tests: $(UNIT_OBJ) $(LIB_OBJ)
	@echo "  LD  $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC  $<"
	@$(CC) $(ALL_CFLAGS) -c -o $@ $<

# install, man pages, releases and the version string: mk/release.mk
include mk/release.mk

# clockscope report's Python package (report/, issue 12): installed as
# PREFIX/share/clockscope/report/clockscope_report, where `clockscope report` finds it
# beside PREFIX/bin; its dependency (matplotlib) comes from pip or apt.
.PHONY: install-report
install: install-report install-probes
install-report:
	install -d $(DESTDIR)$(PREFIX)/share/clockscope/report/clockscope_report
	install -m 644 report/clockscope_report/*.py $(DESTDIR)$(PREFIX)/share/clockscope/report/clockscope_report/

# clockscope metrics' systemd service and timer (packaging/systemd/, docs/metrics.md), with
# the installed binary's path, and the Prometheus rules and Grafana dashboard beside the docs.
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
.PHONY: install-systemd
install: install-systemd
install-systemd:
	install -d $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(PREFIX)/share/doc/clockscope/prometheus
	sed 's#@BINDIR@#$(PREFIX)/bin#g' packaging/systemd/clockscope-metrics.service \
	    > $(DESTDIR)$(SYSTEMDUNITDIR)/clockscope-metrics.service
	install -m 644 packaging/systemd/clockscope-metrics.timer $(DESTDIR)$(SYSTEMDUNITDIR)/
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/clockscope-metrics.service
	install -m 644 docs/prometheus/* $(DESTDIR)$(PREFIX)/share/doc/clockscope/prometheus/
# clockscope runtimes' probe sources (runtimes/probes/): PREFIX/share/clockscope/probes,
# where `clockscope runtimes` finds them beside PREFIX/bin; built at run time, never here.
.PHONY: install-probes
install-probes:
	install -d $(DESTDIR)$(PREFIX)/share/clockscope/probes
	install -m 644 runtimes/probes/probe.py runtimes/probes/probe.go runtimes/probes/Probe.java \
	    runtimes/probes/probe.js runtimes/probes/probe.rs $(DESTDIR)$(PREFIX)/share/clockscope/probes/

cross:
	$(MAKE) O=build/aarch64 CC=aarch64-linux-gnu-gcc STATIC=1 all
	$(MAKE) O=build/riscv64 CC=riscv64-linux-gnu-gcc STATIC=1 all

# The static binaries `clockscope vm` puts into its guests: build/{x86_64,aarch64,riscv64}/clockscope
vm-binaries: cross
	$(MAKE) O=build/x86_64 CC=x86_64-linux-gnu-gcc STATIC=1 all

# libFuzzer harnesses (need clang): build/fuzz/fuzz_vdso_elf CORPUS,
# build/fuzz/fuzz_kernel_log CORPUS, build/fuzz/fuzz_facts_text CORPUS, build/fuzz/fuzz_vm_frame CORPUS,
# build/fuzz/fuzz_gap_list CORPUS, build/fuzz/fuzz_cli CORPUS, build/fuzz/fuzz_dts_edit CORPUS,
# build/fuzz/fuzz_ladder_fault CORPUS, build/fuzz/fuzz_perf_text CORPUS,
# build/fuzz/fuzz_probe_parse CORPUS, build/fuzz/fuzz_sysfs_readback CORPUS,
# build/fuzz/fuzz_timens_offsets CORPUS
FUZZ_CC := clang -std=c11 -g -O1 -D_GNU_SOURCE -Isrc -fsanitize=fuzzer,address,undefined
fuzz:
	@mkdir -p build/fuzz
	$(FUZZ_CC) -o build/fuzz/fuzz_vdso_elf tests/fuzz/fuzz_vdso_elf.c src/vdso/vdso_elf.c \
	    src/common/arch_table.c
	$(FUZZ_CC) -o build/fuzz/fuzz_kernel_log tests/fuzz/fuzz_kernel_log.c src/facts/tsc_calibration.c
	$(FUZZ_CC) -o build/fuzz/fuzz_facts_text tests/fuzz/fuzz_facts_text.c src/facts/klog.c \
	    src/facts/cpuinfo.c src/facts/kernel_text.c src/facts/logscan.c src/facts/tsc_calibration.c \
	    src/facts/machine.c src/facts/emulation.c src/facts/hypervisor.c src/facts/facts.c src/facts/reader.c \
	    src/common/beneath.c
	$(FUZZ_CC) -o build/fuzz/fuzz_vm_frame tests/fuzz/fuzz_vm_frame.c src/vm/frame.c
	$(FUZZ_CC) -o build/fuzz/fuzz_gap_list tests/fuzz/fuzz_gap_list.c src/bench/gap_list.c
	$(FUZZ_CC) -o build/fuzz/fuzz_ladder_fault tests/fuzz/fuzz_ladder_fault.c src/ladder/fault.c
	$(FUZZ_CC) -o build/fuzz/fuzz_cli tests/fuzz/fuzz_cli.c src/common/cli_parse.c \
	    src/common/cli.c src/common/cpuset.c src/common/exit_status.c
	$(FUZZ_CC) -o build/fuzz/fuzz_json_check tests/fuzz/fuzz_json_check.c src/common/json_read.c
	$(FUZZ_CC) -o build/fuzz/fuzz_dts_edit tests/fuzz/fuzz_dts_edit.c src/vm/dts_edit.c
	$(FUZZ_CC) -o build/fuzz/fuzz_sysfs_readback tests/fuzz/fuzz_sysfs_readback.c \
	    src/vm/sysfs_readback.c
	$(FUZZ_CC) -o build/fuzz/fuzz_perf_text tests/fuzz/fuzz_perf_text.c src/profile/perf_script.c \
	    src/profile/perf_report.c src/profile/perf_lines.c src/profile/tally.c src/profile/attribution.c \
	    src/profile/count_table.c -lm
	$(FUZZ_CC) -o build/fuzz/fuzz_probe_parse tests/fuzz/fuzz_probe_parse.c src/runtimes/probe_parse.c
	$(FUZZ_CC) -o build/fuzz/fuzz_timens_offsets tests/fuzz/fuzz_timens_offsets.c

# The quick inner loop: the native C unit tests, then the CLI tests that need no other
# build (no sanitized or cross build, no qemu, no VM), left out by their markers
# (pytest.ini; tests/conftest.py applies them from the fixtures a test uses).  The whole
# suite is `make test`.
CHECK_TESTS := tests/test_cli.py tests/test_bench.py tests/test_warp.py tests/test_vdso_cmd.py \
               tests/test_doctor.py tests/test_run.py tests/test_fastclock.py tests/test_ladder.py \
               tests/test_docs.py tests/test_readme_examples.py tests/test_mutants.py::test_every_mutant_applies_and_every_c_mutant_compiles
CHECK_MARKERS := not cross and not qemu and not vm and not sanitized
check: all $(O)/unit_tests
	$(O)/unit_tests
	cd report && $(PYTHON) -m ruff check --no-cache clockscope_report
	cd report && $(PYTHON) -m mypy --cache-dir /dev/null clockscope_report
	$(PYTHON) -m pytest -q $(CHECK_TESTS) -m "$(CHECK_MARKERS)"

# The whole suite: C unit tests (native, sanitized, cross under qemu-user), CLI tests,
# corpus, fuzz smoke, VM tests.  docs/testing.md says what each part needs.
# --durations: the 25 slowest tests named in every run, so that a test that grows shows in
# CI's log before the run outgrows its time (docs/testing.md, "CI's time budget").
test:
	sh scripts/install-deps.sh
	$(MAKE) -j$$(nproc) all vm-binaries
	$(PYTHON) -m pytest -q --durations=25 tests

# Each mutant applied in a scratch copy, only its kill tests run (at most 2 at once): those
# of the files the latest commits changed and a rotating third of the rest, within a budget
# (docs/testing.md, "CI's time budget"); FILE=src/x/y.c: that file's; mutants-all:
# every one.
mutants:
	$(PYTHON) tests/mutants/run.py $(foreach f,$(FILE),--file $(f))

mutants-all:
	$(PYTHON) tests/mutants/run.py --all

clean:
	rm -rf build

-include $(CLI_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(FC_PIC:.o=.d) $(SHIM_PIC:.o=.d) $(wildcard $(SEAM_OBJ:.o=.d))
