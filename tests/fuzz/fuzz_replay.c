/* fuzz_replay.c — feeds files through a harness's LLVMFuzzerTestOneInput().
 *
 * Usage: fuzz_replay_<target> FILE|DIR...  Each file (each regular file of a
 * directory) is one input.  A harness aborts on a broken contract, ASan/UBSan
 * (in the sanitizer build) on memory errors; otherwise this exits 0.  ctest
 * runs it over the seed corpus and tests/data/crashers/<target>/.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz_util.h"

static int run_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return 1;
    }
    size_t cap = 4096, n = 0, r;
    uint8_t *buf = malloc(cap);
    while (buf && (r = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(fp);
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int bad = 0, files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st)) {
            perror(argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]);
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            perror(argv[i]);
            return 1;
        }
        char **names = NULL;
        size_t nn = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
            if (de->d_name[0] == '.')
                continue;
            char **nm = realloc(names, (nn + 1) * sizeof *names);
            if (!nm)
                return 1;
            names = nm;
            names[nn] = malloc(strlen(argv[i]) + strlen(de->d_name) + 2);
            if (!names[nn])
                return 1;
            sprintf(names[nn], "%s/%s", argv[i], de->d_name);
            nn++;
        }
        closedir(d);
        qsort(names, nn, sizeof *names, cmp_str); /* same order every run */
        for (size_t j = 0; j < nn; j++) {
            if (!stat(names[j], &st) && S_ISREG(st.st_mode)) {
                bad |= run_file(names[j]);
                files++;
            }
            free(names[j]);
        }
        free(names);
    }
    printf("replayed %d inputs\n", files);
    return bad;
}
