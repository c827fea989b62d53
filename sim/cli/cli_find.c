/* cli_find.c — `--config h100` from any directory: where a configuration
 * named without its path is looked for (README.md, "Install").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
/* realpath() is an X/Open function */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"

/* Fixed at build time (CMakeLists.txt): the install prefix's configuration
 * directory and the source tree's. */
#ifndef SMSIM_CONFIG_DIR
#define SMSIM_CONFIG_DIR ""
#endif
#ifndef SMSIM_SOURCE_CONFIGS
#define SMSIM_SOURCE_CONFIGS ""
#endif

static int is_file(const char *path)
{
    struct stat sb;
    return !stat(path, &sb) && S_ISREG(sb.st_mode);
}

/* DIR/BASE or DIR/BASE.yaml into buf when one is a file; 1 found, else 0. */
static int try_dir(const char *dir, size_t dlen, const char *base, char *buf, size_t n)
{
    if (!dlen)
        return 0;
    int w = snprintf(buf, n, "%.*s/%s", (int)dlen, dir, base);
    if (w > 0 && (size_t)w < n && is_file(buf))
        return 1;
    size_t bl = strlen(base);
    if (bl >= 5 && !strcmp(base + bl - 5, ".yaml"))
        return 0;
    w = snprintf(buf, n, "%.*s/%s.yaml", (int)dlen, dir, base);
    return w > 0 && (size_t)w < n && is_file(buf);
}

const char *cli_find_config(const char *name, char *buf, size_t n)
{
    if (!name || !*name || is_file(name) || name[0] == '/')
        return name;
    const char *base = !strncmp(name, "configs/", 8) ? name + 8 : name;
    if (!*base || strchr(base, '/'))
        return name;
    /* beside the binary: BIN/../share/smsim/configs (a relocated install) */
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl > 0) {
        self[sl] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            char dir[4200], real[PATH_MAX];
            int w = snprintf(dir, sizeof dir, "%s/../share/smsim/configs", self);
            /* named without "bin/..": the provenance shows where it was */
            if (w > 0 && (size_t)w < sizeof dir && realpath(dir, real) &&
                try_dir(real, strlen(real), base, buf, n))
                return buf;
        }
    }
    if (try_dir(SMSIM_CONFIG_DIR, strlen(SMSIM_CONFIG_DIR), base, buf, n) ||
        try_dir(SMSIM_SOURCE_CONFIGS, strlen(SMSIM_SOURCE_CONFIGS), base, buf, n))
        return buf;
    return name;
}
