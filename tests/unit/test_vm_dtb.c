/* SPDX-License-Identifier: MIT */
/* dts_add_property: the lab's device-tree edit (src/vm/dtb.c), on dtc's own output shapes
 * and on malformed text. */
#include "check.h"
#include "vm/dtb.h"
#include "vm/vm_arch.h"

#include <stdlib.h>
#include <string.h>

static const char qemu_virt[] =
    "/dts-v1/;\n\n/ {\n\tcompatible = \"linux,dummy-virt\";\n\n"
    "\ttimer {\n\t\tinterrupts = <0x01 0x0d 0x304>;\n\t\talways-on;\n"
    "\t\tcompatible = \"arm,armv8-timer\\0arm,armv7-timer\";\n\t};\n\n"
    "\tapb-pclk {\n\t\tcompatible = \"fixed-clock\";\n\t};\n};\n";

TEST(dts_property_goes_into_the_one_compatible_node)
{
    char *out, why[200];
    size_t n;
    CHECK(dts_add_property(qemu_virt, strlen(qemu_virt), "arm,armv8-timer", "fsl,erratum-a008585",
                           &out, &n, why, sizeof why));
    CHECK(n == strlen(out));
    const char *timer = strstr(out, "timer {"), *prop = strstr(out, "fsl,erratum-a008585;");
    CHECK(timer && prop && prop > timer && prop < strstr(out, "apb-pclk"));
    CHECK(strstr(out, "timer {\n\t\tfsl,erratum-a008585;\n\t\tinterrupts"));
    free(out);
    /* the second entry of a list, and the ", " form */
    CHECK(dts_add_property(qemu_virt, strlen(qemu_virt), "arm,armv7-timer", "x", &out, &n, why,
                           sizeof why));
    free(out);
    const char *listed = "/ {\n\tt {\n\t\tcompatible = \"a,b\", \"c,d\";\n\t};\n};\n";
    CHECK(dts_add_property(listed, strlen(listed), "c,d", "p", &out, &n, why, sizeof why));
    CHECK(strstr(out, "t {\n\t\tp;"));
    free(out);
}

TEST(dts_edit_refuses_what_it_cannot_place)
{
    char *out, why[200];
    size_t n;
    /* absent; a prefix of a name is not the name; the name outside a compatible property */
    CHECK(!dts_add_property(qemu_virt, strlen(qemu_virt), "arm,armv9-timer", "p", &out, &n, why, sizeof why));
    CHECK(strstr(why, "no node") && !out);
    CHECK(!dts_add_property(qemu_virt, strlen(qemu_virt), "arm,armv8", "p", &out, &n, why, sizeof why));
    const char *model = "/ {\n\tn {\n\t\tmodel = \"arm,armv8-timer\";\n\t};\n};\n";
    CHECK(!dts_add_property(model, strlen(model), "arm,armv8-timer", "p", &out, &n, why, sizeof why));
    /* two nodes */
    const char *two = "/ {\n\ta {\n\t\tcompatible = \"x\";\n\t};\n\tb {\n\t\tcompatible = \"x\";\n\t};\n};\n";
    CHECK(!dts_add_property(two, strlen(two), "x", "p", &out, &n, why, sizeof why));
    CHECK(strstr(why, "more than one"));
    /* no opening brace before it */
    const char *bare = "compatible = \"x\";\n";
    CHECK(!dts_add_property(bare, strlen(bare), "x", "p", &out, &n, why, sizeof why));
    /* properties that would break the source */
    CHECK(!dts_add_property(qemu_virt, strlen(qemu_virt), "arm,armv8-timer", "a; b {", &out, &n, why, sizeof why));
    CHECK(!dts_add_property(qemu_virt, strlen(qemu_virt), "arm,armv8-timer", "", &out, &n, why, sizeof why));
    CHECK(!dts_add_property(qemu_virt, strlen(qemu_virt), "", "p", &out, &n, why, sizeof why));
    /* truncated input: the string at the very end */
    const char *cut = "/ {\n\tcompatible = \"x";
    CHECK(!dts_add_property(cut, strlen(cut), "x", "p", &out, &n, why, sizeof why));
    /* every prefix of a real tree: never a crash (ASan build) */
    for (size_t len = 0; len <= strlen(qemu_virt); len++)
        if (dts_add_property(qemu_virt, len, "arm,armv8-timer", "p", &out, &n, why, sizeof why))
            free(out);
}

/* qemu's command line for a machine model: -machine, -cpu only where the model takes one,
 * the model's console, -dtb, and the dump form (dumpdtb=FILE, no console, no -dtb). */
static const char *arg_after(char **argv, const char *flag)
{
    for (int i = 0; argv[i]; i++)
        if (!strcmp(argv[i], flag))
            return argv[i + 1];
    return NULL;
}

TEST(qemu_args_follow_the_machine_model)
{
    static struct qemu_args a;
    const struct vm_arch *rv = vm_arch_find("riscv64"), *arm = vm_arch_find("aarch64");
    struct vm_boot b = {rv, vm_machine_find(rv, "sifive_u"), NULL, "/k", "/i", "x=1", 2, 512,
                        false, 10, 0, NULL};
    CHECK(b.machine && !vm_machine_find(rv, "pc") && vm_machine_find(rv, NULL) &&
          !strcmp(vm_machine_find(rv, NULL)->name, "virt"));
    vm_qemu_args(&b, NULL, &a);
    CHECK(!strcmp(arg_after(a.argv, "-machine"), "sifive_u"));
    CHECK(arg_after(a.argv, "-cpu") == NULL);
    CHECK(strstr(arg_after(a.argv, "-append"), "console=ttySIF0 ") &&
          strstr(arg_after(a.argv, "-append"), " x=1"));
    CHECK(!strcmp(arg_after(a.argv, "-bios"), "default") && !arg_after(a.argv, "-dtb"));
    b.machine = vm_machine_find(rv, "virt");
    vm_qemu_args(&b, NULL, &a);
    CHECK(!strcmp(arg_after(a.argv, "-cpu"), "rv64") && strstr(a.append, "console=ttyS0 "));
    /* under TCG the guest's command line says so (its facts record the emulated CPU) */
    CHECK(strstr(a.append, " clockscope.emulated=tcg") != NULL);
    b.kvm = true;
    vm_qemu_args(&b, NULL, &a);
    CHECK(strstr(a.append, "clockscope.emulated") == NULL);
    b.kvm = false;

    struct vm_boot e = {arm, vm_machine_find(arm, NULL), "/t/patched.dtb", "/k", "/i", NULL, 2,
                        512, false, 10, 0, NULL};
    vm_qemu_args(&e, NULL, &a);
    CHECK(!strcmp(arg_after(a.argv, "-dtb"), "/t/patched.dtb"));
    CHECK(!strcmp(arg_after(a.argv, "-serial"), "stdio"));
    vm_qemu_args(&e, "/t/qemu.dtb", &a);
    CHECK(!strcmp(arg_after(a.argv, "-machine"), "virt,dumpdtb=/t/qemu.dtb"));
    CHECK(!arg_after(a.argv, "-dtb") && !strcmp(arg_after(a.argv, "-serial"), "null"));
    /* the same CPUs and memory shape the dumped tree */
    CHECK(!strcmp(arg_after(a.argv, "-smp"), "2") && !strcmp(arg_after(a.argv, "-m"), "512"));
}
