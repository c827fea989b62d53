/* conv_xz.c — xz compression of an export (`smsim export --xz`): the
 * .traceg.xz files Accel-Sim's tools and smsim's own reader
 * (trace_accelsim_io.c) decode.  Streamed in fixed-size chunks, so memory
 * does not grow with the trace; no time stamp is stored, so the same input
 * gives the same bytes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include "convert/conv_accelsim.h"

/* Preset 3: about 32 MiB of encoder memory, and most of preset 6's ratio on
 * the repetitive text of a trace. */
enum { CONV_XZ_PRESET = 3, CONV_XZ_CHUNK = 1 << 16 };

int conv_xz_copy(FILE *in, FILE *out)
{
    lzma_stream zs = LZMA_STREAM_INIT;
    if (lzma_easy_encoder(&zs, CONV_XZ_PRESET, LZMA_CHECK_CRC64) != LZMA_OK) {
        errno = ENOMEM;
        return -1;
    }
    static const size_t chunk = CONV_XZ_CHUNK;
    unsigned char ib[CONV_XZ_CHUNK], ob[CONV_XZ_CHUNK];
    lzma_action act = LZMA_RUN;
    int rc = 0;
    zs.next_out = ob;
    zs.avail_out = chunk;
    for (;;) {
        if (zs.avail_in == 0 && act == LZMA_RUN) {
            zs.next_in = ib;
            zs.avail_in = fread(ib, 1, chunk, in);
            if (ferror(in)) {
                rc = -1;
                break;
            }
            if (feof(in))
                act = LZMA_FINISH;
        }
        lzma_ret r = lzma_code(&zs, act);
        if (zs.avail_out == 0 || r == LZMA_STREAM_END) {
            size_t n = chunk - zs.avail_out;
            if (fwrite(ob, 1, n, out) != n) {
                rc = -1;
                break;
            }
            zs.next_out = ob;
            zs.avail_out = chunk;
        }
        if (r == LZMA_STREAM_END)
            break;
        if (r != LZMA_OK) {
            errno = r == LZMA_MEM_ERROR ? ENOMEM : EIO;
            rc = -1;
            break;
        }
    }
    lzma_end(&zs);
    return rc;
}
