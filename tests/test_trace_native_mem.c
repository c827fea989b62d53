/* test_trace_native_mem.c — trace_native_open_mem(), the in-memory entry of
 * the native reader that the fuzz harness uses (tests/fuzz/fuzz_native.c):
 * same kernels as from the file, includes resolved next to the given name,
 * errors named after it, and an empty or NUL-holding text rejected as from
 * a file.
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
#include "trace/trace.h"
#include "trace/trace_native.h"

#define D "tests/data/trace/"

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    char *buf = malloc(1 << 16);
    assert_non_null(buf);
    *len = fread(buf, 1, 1 << 16, fp);
    assert_true(*len < (1 << 16));
    fclose(fp);
    return buf;
}

/* include_ok.trace holds kernel "first", includes sub/good.trace, then "last". */
static void test_same_as_file(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp(D "include_ok.trace", &len);
    struct trace_file f = {0}, m = {0};
    char err[TRACE_ERR_MAX] = "";
    assert_int_equal(trace_native_open(D "include_ok.trace", &f, err), 0);
    assert_int_equal(trace_native_open_mem(D "include_ok.trace", text, len, &m, err), 0);
    assert_int_equal(m.nkernels, 3);
    assert_int_equal(f.nkernels, 3);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(m.kernels[i]->launch.name, f.kernels[i]->launch.name);
        assert_int_equal(m.kernels[i]->warp_insts_hint, f.kernels[i]->warp_insts_hint);
    }
    assert_string_equal(m.kernels[1]->launch.name, "sub_good"); /* resolved in D "sub/" */
    free(text);
    struct trace_file *pf = malloc(sizeof *pf), *pm = malloc(sizeof *pm);
    assert_non_null(pf);
    assert_non_null(pm);
    *pf = f;
    *pm = m;
    trace_close(pf);
    trace_close(pm);
}

static void expect_mem_error(const char *name, const char *text, size_t len, const char *want)
{
    struct trace_file *t = calloc(1, sizeof *t);
    assert_non_null(t);
    char err[TRACE_ERR_MAX] = "";
    assert_int_equal(trace_native_open_mem(name, text, len, t, err), -1);
    assert_string_equal(err, want);
    trace_close(t);
}

static void test_errors(void **state)
{
    (void)state;
    expect_mem_error("mem.trace", "", 0, "mem.trace:1:1: no kernel in trace");
    static const char nul[] = "kernel k grid=1 block=32 regs=8 {\n  EX\0IT\n}\n";
    expect_mem_error("mem.trace", nul, sizeof nul - 1,
                     "mem.trace:2:5: NUL byte in line (not a text trace?)");
    /* includes resolve next to the name; the cycle is found among them */
    static const char cyc[] = "include \"cycle_a.trace\"\n";
    expect_mem_error(D "x.trace", cyc, sizeof cyc - 1,
                     D "cycle_b.trace:4:9: include cycle: \"cycle_a.trace\" is already being read");
    /* the text ends at len: what follows is not read */
    static const char cut[] = "kernel k grid=1 block=32 regs=8 {\n  EXIT\n}\n";
    expect_mem_error("mem.trace", cut, sizeof cut - 3,
                     "mem.trace:1:1: unterminated kernel 'k' (missing '}' at end of file)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_file),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
