/* arch_schema.h — internal to sim/arch: the one table of configuration keys
 * and the table of cross-key consistency checks.  Loading, --set, YAML
 * printing and docs/config.md are all driven by these two tables, so they
 * cannot drift apart.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_ARCH_SCHEMA_H
#define SMSIM_ARCH_SCHEMA_H

#include <stddef.h>
#include "arch/arch.h"

/* Value types a key can have. */
enum ak_type {
    AK_INT,     /* decimal integer (exact, no fraction, no overflow)     */
    AK_DOUBLE,  /* finite decimal number                                 */
    AK_STRING,  /* printable text, at most ARCH_NAME_MAX-1 bytes          */
    AK_ENUM,    /* one of names[], stored as its index in an int          */
    AK_INTLIST  /* list of integers, at most ARCH_MAX_CARVEOUTS entries   */
};

/* One configuration key. */
struct arch_key {
    const char *path;          /* "section.key" or "section.sub.key"           */
    int type;                  /* enum ak_type                                 */
    size_t off;                /* offsetof the value in struct arch            */
    size_t count_off;          /* AK_INTLIST: offsetof the entry count         */
    double min, max;           /* inclusive range (each entry, for lists)      */
    const char *def;           /* default as YAML text; NULL = required        */
    const char *unit;          /* unit for the docs ("" = dimensionless)       */
    const char *const *names;  /* AK_ENUM: NULL-terminated value names         */
    const char *doc;           /* one-line meaning                             */
};

/* One top-level section, in print order. */
struct arch_section {
    const char *path;          /* "gpu", "sm", ...                              */
    const char *doc;           /* one-line description for the docs            */
};

/* One cross-key consistency check. */
struct arch_check {
    const char *key;           /* key the error is reported at                 */
    const char *others;        /* other keys involved, space-separated: an error
                                  is reported at the last --set among them all */
    const char *doc;           /* the rule, for docs/config.md                 */
    /* Returns 1 and writes a message (without position) when a violates the
     * rule, else 0. */
    int (*violated)(const struct arch *a, char *msg, size_t n);
};

/* The tables; *n receives the entry count. */
const struct arch_key *arch_schema_keys(int *n);
const struct arch_section *arch_schema_sections(int *n);
const struct arch_check *arch_schema_checks(int *n);

/* Index of the key with this exact path, or -1. */
int arch_schema_find(const char *path);

/* 1 when `path` names a section (some key lies below it), else 0. */
int arch_schema_is_section(const char *path);

#endif
