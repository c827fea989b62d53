/* test_cli_weak.c — validate/weak.tsv as compiled into smsim: every row has
 * its three fields and a pattern that compiles (cli_weak_check), and the
 * table in the binary is the committed file (byte for byte).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cli/cli.h"

extern const unsigned char cli_weak_tsv[];

static void test_rows_well_formed(void **state)
{
    (void)state;
    char err[256] = "";
    int n = cli_weak_check(err, sizeof err);
    if (n < 0)
        fail_msg("%s", err);
    assert_true(n >= 1);
}

static void test_table_is_the_file(void **state)
{
    (void)state;
    FILE *f = fopen(SMSIM_SOURCE_DIR "/validate/weak.tsv", "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal((const char *)cli_weak_tsv, buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_well_formed),
        cmocka_unit_test(test_table_is_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
