/* cli_gz.c — gzip an output in memory (--timeline F.json.gz), with zlib.
 * The header carries no time stamp or name, so the same input gives the
 * same bytes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "cli/cli.h"

int cli_is_gz(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 3 && !strcmp(path + n - 3, ".gz");
}

int cli_gzip(const char *in, size_t n, char **out, size_t *outn)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip wrapper; level 6, zlib's default */
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    char *buf = malloc(cap);
    if (!buf) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = (Bytef *)(uintptr_t)in;
    z.next_out = (Bytef *)buf;
    z.avail_out = (uInt)cap;
    int rc = Z_OK;
    size_t left = n;
    while (rc == Z_OK) {
        /* avail_in is 32 bits: feed a large input in pieces */
        if (z.avail_in == 0 && left) {
            uInt chunk = left > (1u << 30) ? (1u << 30) : (uInt)left;
            z.avail_in = chunk;
            left -= chunk;
        }
        rc = deflate(&z, left || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
        if (rc == Z_OK && z.avail_out == 0)
            rc = Z_BUF_ERROR; /* cannot happen within deflateBound */
    }
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(buf);
        return -1;
    }
    *out = buf;
    *outn = (size_t)z.total_out;
    return 0;
}
