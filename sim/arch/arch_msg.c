/* arch_msg.c — making a message safe for a terminal.  Every module's
 * messages quote input bytes back (a key, a cell, an opcode, a file name);
 * this one helper, in the first module of the data flow so that every
 * module can call it, shows the bytes a terminal would obey instead.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <string.h>
#include "arch/arch.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0. */
static int utf8_len(const unsigned char *s)
{
    int n = s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
            : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

void arch_msg_escape(char *msg, size_t cap)
{
    char out[ARCH_MSG_MAX];
    size_t k = 0, lim = cap < sizeof out ? cap : sizeof out;
    const unsigned char *s = (const unsigned char *)msg;
    for (size_t i = 0; s[i];) {
        int n = s[i] >= 0x80 ? utf8_len(s + i) : 1;
        /* U+FEFF (a byte-order mark) is invisible: show its bytes */
        int bom = n == 3 && s[i] == 0xEF && s[i + 1] == 0xBB && s[i + 2] == 0xBF;
        if (n == 0 || bom || (n == 1 && (s[i] < 0x20 || s[i] == 0x7F))) {
            int m = bom ? 3 : 1;
            if (k + 4 * (size_t)m + 1 > lim)
                break;
            for (int j = 0; j < m; j++)
                k += (size_t)snprintf(out + k, 5, "\\x%02x", s[i + j]);
            i += (size_t)m;
        } else {
            if (k + (size_t)n + 1 > lim)
                break;
            memcpy(out + k, s + i, (size_t)n);
            k += (size_t)n;
            i += (size_t)n;
        }
    }
    out[k] = '\0';
    memcpy(msg, out, k + 1);
}
