/* fuzz_arch.c — fuzz target for the YAML configuration loader.
 *
 * Input: a YAML document, optionally followed by a NUL byte and up to four
 * NUL-separated "--set" overrides ("section.key=value").  On success the
 * configuration is printed, re-loaded and printed again: arch_print_yaml()
 * must produce YAML that arch_load() accepts, unchanged (docs/config.md).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "fuzz_util.h"

static char *print(const struct arch *a, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        abort();
    arch_print_yaml(a, f);
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct arch_override ov[4];
    int n = 0;
    size_t yl = strlen(text);
    for (size_t at = yl; at < size && n < 4;) {
        ov[n++].text = text + at + 1;
        at += 1 + strlen(text + at + 1);
    }
    struct arch a;
    char err[ARCH_ERR_MAX];
    if (arch_load_string(text, "fuzz.yaml", ov, n, &a, err)) {
        fz_check_error(err);
    } else {
        size_t l1, l2;
        char *y1 = print(&a, &l1);
        struct arch b;
        if (arch_load_string(y1, "printed.yaml", NULL, 0, &b, err)) {
            fprintf(stderr, "fuzz: printed configuration does not load: %s\n%s", err, y1);
            abort();
        }
        char *y2 = print(&b, &l2);
        if (l1 != l2 || memcmp(y1, y2, l1)) {
            fprintf(stderr, "fuzz: print/load round trip differs:\n%s---\n%s", y1, y2);
            abort();
        }
        free(y1);
        free(y2);
    }
    free(text);
    return 0;
}
