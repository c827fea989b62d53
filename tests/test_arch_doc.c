/* test_arch_doc.c — docs/config.md is exactly what the schema generates
 * (`smsim config --schema`), so the reference cannot drift from the code.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "arch/arch.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, got, m);
    fclose(f);
    fclose(m);
    return buf;
}

static void test_doc_matches_schema(void **state)
{
    (void)state;
    char *gen = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&gen, &len);
    assert_non_null(m);
    arch_print_schema_markdown(m);
    fclose(m);
    char *doc = slurp(SMSIM_SOURCE_DIR "/docs/config.md");
    if (!doc)
        fail_msg("docs/config.md is missing; create it with: smsim config --schema > docs/config.md");
    if (strcmp(gen, doc)) {
        /* name the first differing line to make the fix obvious */
        int line = 1;
        size_t i = 0;
        while (gen[i] && gen[i] == doc[i]) {
            if (gen[i] == '\n')
                line++;
            i++;
        }
        fail_msg("docs/config.md differs from the schema at line %d; regenerate it with: "
                 "smsim config --schema > docs/config.md", line);
    }
    /* a few things the reference must say */
    assert_non_null(strstr(doc, "| `sm.max_warps` | integer | warps | required | 1 to 1024 |"));
    assert_non_null(strstr(doc, "| `scheduler.policy` | `gto` \\| `lrr` \\| `gty` \\| `gyb` \\| `gob` \\| `grr` |  | default `gto` |"));
    assert_non_null(strstr(doc, "`--set section.key=value`"));
    assert_non_null(strstr(doc, "`registers.per_block` <= `registers.per_sm`"));
    free(gen);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doc_matches_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
