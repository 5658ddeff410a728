# clockscope build.
#   make                      native build: build/clockscope
#   make STATIC=1             static binary (for boards, VMs, initramfs)
#   make SAN=1 O=build/san    AddressSanitizer + UBSan build
#   make cross                static aarch64 and riscv64 builds (Debian cross compilers):
#                             build/aarch64/clockscope, build/riscv64/clockscope
#   make test                 the whole test suite (see README)
#   make install PREFIX=DIR   DIR/bin/clockscope
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
CLI_DIRS := common vdso measure bench warp
CLI_SRC  := src/main.c $(foreach d,$(CLI_DIRS),$(wildcard src/$(d)/*.c)) src/arch/$(ARCH).c
CLI_OBJ  := $(CLI_SRC:%.c=$(O)/obj/%.o)
LIB_OBJ  := $(filter-out $(O)/obj/src/main.o,$(CLI_OBJ))
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(O)/obj/%.o)

.PHONY: all test install cross fuzz clean
all: $(O)/clockscope

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

install: $(O)/clockscope
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(O)/clockscope $(DESTDIR)$(PREFIX)/bin/clockscope

cross:
	$(MAKE) O=build/aarch64 CC=aarch64-linux-gnu-gcc STATIC=1 all
	$(MAKE) O=build/riscv64 CC=riscv64-linux-gnu-gcc STATIC=1 all

# libFuzzer harnesses (need clang): build/fuzz/fuzz_vdso_elf CORPUS, build/fuzz/fuzz_kernel_log CORPUS
fuzz:
	@mkdir -p build/fuzz
	clang -std=c11 -g -O1 -D_GNU_SOURCE -Isrc -fsanitize=fuzzer,address,undefined \
	    -o build/fuzz/fuzz_vdso_elf tests/fuzz/fuzz_vdso_elf.c src/vdso/vdso_elf.c
	clang -std=c11 -g -O1 -D_GNU_SOURCE -Isrc -fsanitize=fuzzer,address,undefined \
	    -o build/fuzz/fuzz_kernel_log tests/fuzz/fuzz_kernel_log.c src/warp/kernel_log.c

# The whole suite: C unit tests (native, sanitized, cross under qemu-user), CLI tests,
# corpus, fuzz smoke, VM tests.  tests/README.md says what each part needs.
test:
	sh scripts/install-deps.sh
	$(PYTHON) -m pytest -q tests

clean:
	rm -rf build

-include $(CLI_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)
