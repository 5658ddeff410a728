/* dts_add_property: the lab's device-tree edit (src/vm/dtb.c), on dtc's own output shapes
 * and on malformed text. */
#include "check.h"
#include "vm/dtb.h"

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
