/* cli.h — the smsim subcommands.  main.c only dispatches to these; each
 * returns the process exit status (0 ok, 1 bad input/usage, 2 internal).
 * Every error is printed as one line on stderr, and nothing on stdout
 * (no partial output).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SMSIM_CLI_H
#define SMSIM_CLI_H

int cli_run(int argc, char **argv);       /* smsim --config X TRACE (simulate)   */
int cli_config(int argc, char **argv);    /* smsim config --config X [--set ...]  */
int cli_occupancy(int argc, char **argv); /* smsim occupancy --config X --threads ... */

/* Shared helpers for subcommands. */
struct arch;
struct arch_override;
/* Parse "--set k=v" into a growing array; returns 0 or -1 (one-line error printed). */
int cli_add_override(struct arch_override **ov, int *n, const char *text);
/* Strict decimal integer for option `opt` in [lo, hi] (no sign when lo >= 0,
 * no trailing characters, no overflow); 0, or -1 with
 * "smsim: OPT 'S': expected an integer in LO..HI" printed. */
int cli_parse_int(const char *opt, const char *s, long lo, long hi, int *v);
/* arch_load() that prints its one-line error on stderr; 0 or -1. */
int cli_load_arch(const char *path, const struct arch_override *ov, int n, struct arch *a);

#endif
