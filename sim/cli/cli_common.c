/* cli_common.c — helpers shared by the smsim subcommands.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
/* realpath() is an X/Open function */
#define _XOPEN_SOURCE 700
/* mkstemps() is a BSD/GNU function */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch/arch.h"
#include "cli/cli.h"
#include "report/report.h"
#include "study/study.h"
#include "trace/trace.h"

/* Append one override.  Its syntax and value are checked by arch_load(),
 * which reports errors as "--set:N:C: ..." with the override's position, so
 * every --set message has one format whichever subcommand received it. */
int cli_add_override(struct arch_override **ov, int *n, const char *text)
{
    if (!text) {
        fprintf(stderr, "smsim: --set needs a value (section.key=value)\n");
        return -1;
    }
    struct arch_override *grown = realloc(*ov, (size_t)(*n + 1) * sizeof **ov);
    if (!grown) {
        fprintf(stderr, "smsim: out of memory\n");
        return -1;
    }
    grown[*n].text = text;
    *ov = grown;
    (*n)++;
    return 0;
}

void cli_error(const char *fmt, ...)
{
    char buf[ARCH_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == '\n')
        buf[--n] = '\0';
    arch_msg_escape(buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
}

int cli_parse_int(const char *opt, const char *s, long lo, long hi, int *v)
{
    char *end = NULL;
    long x = 0;
    int ok = (s[0] >= '0' && s[0] <= '9') ||
             (lo < 0 && s[0] == '-' && s[1] >= '0' && s[1] <= '9');
    if (ok) {
        errno = 0;
        x = strtol(s, &end, 10);
        ok = *end == '\0' && errno == 0 && x >= lo && x <= hi;
    }
    if (!ok) {
        fprintf(stderr, "smsim: %s '%s': expected an integer in %ld..%ld\n", opt, s, lo, hi);
        return -1;
    }
    *v = (int)x;
    return 0;
}

int cli_parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
    char *end = NULL;
    unsigned long long x = 0;
    int ok = s[0] >= '0' && s[0] <= '9';
    if (ok) {
        errno = 0;
        x = strtoull(s, &end, 10);
        ok = *end == '\0' && errno == 0 && x >= lo && x <= hi;
    }
    if (!ok) {
        fprintf(stderr, "smsim: %s '%s': expected an integer in %llu..%llu\n", opt, s,
                (unsigned long long)lo, (unsigned long long)hi);
        return -1;
    }
    *v = x;
    return 0;
}

int cli_load_arch(const char *path, const struct arch_override *ov, int n, struct arch *a)
{
    char err[ARCH_ERR_MAX];
    if (arch_load(path, ov, n, a, err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

/* Index of s in the NULL-terminated list, or -1. */
static int find_name(const char *const *list, const char *s)
{
    for (int k = 0; list && list[k]; k++)
        if (!strcmp(list[k], s))
            return k;
    return -1;
}

int cli_opt_next(struct cli_opts *st, const char **name, const char **val)
{
    *name = NULL;
    *val = NULL;
    if (st->i >= st->argc)
        return CLI_OPT_END;
    const char *arg = st->argv[st->i++];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
        return CLI_OPT_HELP;
    if (!st->no_args && (arg[0] != '-' || arg[1] == '\0')) {
        *val = arg;
        return CLI_OPT_ARG;
    }
    if (find_name(st->flags, arg) >= 0) {
        *name = arg;
        return CLI_OPT_FLAG;
    }
    /* Only long options may carry "=value"; "-o=x" stays one unknown word. */
    const char *eq = strchr(arg, '=');
    if (eq && !strncmp(arg, "--", 2) && (size_t)(eq - arg) < sizeof st->name) {
        memcpy(st->name, arg, (size_t)(eq - arg));
        st->name[eq - arg] = '\0';
        *val = eq + 1;
    } else {
        snprintf(st->name, sizeof st->name, "%s", arg);
    }
    st->k = find_name(st->known, st->name);
    if (st->k < 0) {
        fprintf(stderr, "smsim: %sunknown option '%s' (see %s)\n", st->tag, arg, st->help);
        return CLI_OPT_ERROR;
    }
    if (!*val) {
        if (st->i >= st->argc) {
            fprintf(stderr, "smsim: %soption %s needs a value\n", st->tag, st->name);
            return CLI_OPT_ERROR;
        }
        *val = st->argv[st->i++];
    }
    *name = st->name;
    return CLI_OPT_VALUE;
}

/* --format: the word's enum report_format if it is one of c->formats, else
 * -1 after "expected A, B or C" listing them. */
static int parse_format(const struct cli_common *c, const char *val)
{
    int n = 0;
    while (c->formats[n])
        n++;
    for (int k = 0; k < n; k++)
        if (!strcmp(c->formats[k], val))
            return report_parse_format(val);
    char list[128] = "";
    size_t at = 0;
    for (int k = 0; k < n; k++) {
        const char *sep = k == 0 ? "" : k == n - 1 ? " or " : ", ";
        int w = snprintf(list + at, sizeof list - at, "%s%s", sep, c->formats[k]);
        if (w < 0 || (size_t)w >= sizeof list - at)
            break;
        at += (size_t)w;
    }
    fprintf(stderr, "smsim: --format '%s': expected %s\n", val, list);
    return -1;
}

/* One shared option: 1 consumed, 0 not one of c->has, -1 after a message. */
static int common_value(struct cli_common *c, const char *name, const char *val)
{
    if ((c->has & CLI_C_CONFIG) && !strcmp(name, "--config")) {
        c->config = val;
    } else if ((c->has & CLI_C_SET) && !strcmp(name, "--set")) {
        if (cli_add_override(&c->ov, &c->nov, val))
            return -1;
    } else if ((c->has & CLI_C_SEED) && !strcmp(name, "--seed")) {
        if (cli_parse_u64(name, val, 0, UINT64_MAX, &c->seed))
            return -1;
    } else if ((c->has & CLI_C_KERNEL) && !strcmp(name, "--kernel")) {
        if (cli_parse_int(name, val, 0, INT32_MAX, &c->kernel))
            return -1;
    } else if ((c->has & CLI_C_FORMAT) && !strcmp(name, "--format")) {
        int f = parse_format(c, val);
        if (f < 0)
            return -1;
        c->format = f;
    } else if ((c->has & CLI_C_PLOT) && !strcmp(name, "--plot")) {
        size_t n = strlen(val);
        if (n < 5 || (strcmp(val + n - 4, ".svg") && strcmp(val + n - 4, ".png"))) {
            fprintf(stderr, "smsim: --plot '%s': expected a .svg or .png file name\n", val);
            return -1;
        }
        c->plot = val;
    } else if ((c->has & CLI_C_OUT) && !strcmp(name, "-o")) {
        c->out = val;
    } else if ((c->has & CLI_C_CAP) && !strcmp(name, "--blocks-per-sm")) {
        if (cli_parse_int(name, val, 1, INT32_MAX, &c->cap))
            return -1;
    } else if ((c->has & CLI_C_CARVEOUT) && !strcmp(name, "--carveout")) {
        if (cli_parse_int(name, val, 0, 100, &c->carveout))
            return -1;
    } else if ((c->has & CLI_C_THREADS) && !strcmp(name, "--threads")) {
        if (cli_parse_int(name, val, 1, 1024, &c->threads))
            return -1;
    } else if ((c->has & CLI_C_MAXCYC) && !strcmp(name, "--max-cycles")) {
        if (cli_parse_u64(name, val, 0, UINT64_MAX, &c->max_cycles))
            return -1;
    } else if ((c->has & CLI_C_MAXINSTS) && !strcmp(name, "--max-insts")) {
        if (cli_parse_u64(name, val, 0, UINT64_MAX, &c->max_insts))
            return -1;
        c->max_insts_given = 1;
    } else if ((c->has & CLI_C_JOBS) && !strcmp(name, "--jobs")) {
        if (cli_parse_int(name, val, 1, 4096, &c->jobs))
            return -1;
    } else {
        return 0;
    }
    return 1;
}

int cli_common_opt(struct cli_common *c, struct cli_opts *st, const char **name,
                   const char **val)
{
    for (;;) {
        int kind = cli_opt_next(st, name, val);
        if (kind == CLI_OPT_HELP) {
            fputs(c->usage, stdout);
            return kind;
        }
        if (kind == CLI_OPT_ARG && (c->has & CLI_C_POS)) {
            if (c->pos) {
                fprintf(stderr, "smsim: %smore than one %s given ('%s' and '%s')\n", st->tag,
                        c->pos_name, c->pos, *val);
                return CLI_OPT_ERROR;
            }
            c->pos = *val;
            continue;
        }
        if (kind == CLI_OPT_END && (c->has & CLI_C_CONFIG) && c->config &&
            c->config != c->config_found)
            c->config = cli_find_config(c->config, c->config_found, sizeof c->config_found);
        if (kind != CLI_OPT_VALUE)
            return kind;
        int rc = common_value(c, *name, *val);
        if (rc < 0)
            return CLI_OPT_ERROR;
        if (rc == 0)
            return kind;
    }
}

int cli_common_done(const struct cli_common *c, const struct cli_opts *st)
{
    if ((c->has & CLI_C_CONFIG) && !c->config) {
        fprintf(stderr, "smsim: %smissing --config CFG.yaml (see %s)\n", st->tag, st->help);
        return 1;
    }
    if ((c->has & CLI_C_POS) && !c->pos) {
        fprintf(stderr, "smsim: %smissing TRACE file (see %s)\n", st->tag, st->help);
        return 1;
    }
    return 0;
}

uint64_t cli_insts_limit(const struct cli_common *c)
{
    return study_insts_limit(c->max_insts_given, c->max_insts,
                             (c->has & CLI_C_MAXCYC) ? c->max_cycles : 0);
}

int cli_check_insts(const char *trace, int index, struct trace_kernel *k, uint64_t limit)
{
    char msg[STUDY_ERR_MAX];
    if (!study_insts_check(k, limit, msg, sizeof msg))
        return 0;
    fprintf(stderr, "smsim: %s: kernel %d: %s\n", trace, index, msg);
    return 1;
}

int cli_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (n > 4096 ? 4096 : (int)n) : 1;
}

int cli_pick_kernel(const char *trace, int nkernels, int *kernel)
{
    if (nkernels < 1) {
        fprintf(stderr, "smsim: %s: no kernel in the trace\n", trace);
        return 1;
    }
    if (*kernel < 0 && nkernels > 1) {
        fprintf(stderr, "smsim: %s has %d kernels: choose one with --kernel 0..%d\n", trace,
                nkernels, nkernels - 1);
        return 1;
    }
    if (*kernel >= nkernels) {
        fprintf(stderr, "smsim: --kernel %d: the trace has %d kernel%s (0..%d)\n", *kernel,
                nkernels, nkernels == 1 ? "" : "s", nkernels - 1);
        return 1;
    }
    if (*kernel < 0)
        *kernel = 0;
    return 0;
}

/* Writing an output never destroys the previous file or leaves a partial
 * one (a full disk, a failed run): the text goes to a temporary file in the
 * target's directory, which replaces the target by rename() only once it is
 * complete and synced.  A target that exists and is not a regular file
 * (/dev/null, /dev/stdout, a FIFO) is written in place: renaming over it
 * would replace the device.  A symbolic link is followed, so the file it
 * names is replaced and the link stays. */

/* The file a write to `path` replaces: its resolved name (malloc'd) and
 * whether it is written in place (*direct). */
static char *out_target(const char *path, int *direct, mode_t *mode)
{
    struct stat st;
    *direct = 0;
    mode_t um = umask(0);
    umask(um);
    *mode = 0666 & ~um;
    if (!stat(path, &st)) {
        if (!S_ISREG(st.st_mode)) {
            *direct = 1;
            return strdup(path);
        }
        *mode = st.st_mode & 07777;
        char *real = realpath(path, NULL);
        return real ? real : strdup(path);
    }
    return strdup(path);
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* cli_out_begin, the temporary name ending in `sfx` (its extension, for
 * gnuplot's terminal choice) when sfx is not "". */
static int out_begin(struct cli_out *o, const char *path, const char *buf, size_t len,
                     const char *sfx)
{
    mode_t mode;
    memset(o, 0, sizeof *o);
    o->path = path;
    char *target = out_target(path, &o->direct, &mode);
    if (!target) {
        fputs("smsim: out of memory\n", stderr);
        return 1;
    }
    int fd, e = 0;
    if (o->direct) {
        fd = open(target, O_WRONLY | O_TRUNC);
    } else {
        size_t n = strlen(target) + strlen(sfx) + 16;
        o->tmp = malloc(n);
        if (!o->tmp) {
            free(target);
            fputs("smsim: out of memory\n", stderr);
            return 1;
        }
        snprintf(o->tmp, n, "%s.tmpXXXXXX%s", target, sfx);
        fd = mkstemps(o->tmp, (int)strlen(sfx));
        if (fd >= 0)
            fchmod(fd, mode);
    }
    o->target = target;
    if (fd < 0) {
        e = errno;
    } else {
        if (write_all(fd, buf, len) || (!o->direct && fsync(fd)))
            e = errno ? errno : EIO;
        if (close(fd) && !e)
            e = errno;
    }
    if (e) {
        fprintf(stderr, "smsim: cannot write '%s': %s\n", path, strerror(e));
        cli_out_abort(o);
        return 1;
    }
    return 0;
}

int cli_out_begin(struct cli_out *o, const char *path, const char *buf, size_t len)
{
    return out_begin(o, path, buf, len, "");
}

int cli_plot(const char *path, int (*render)(FILE *f, const char *out, void *ud), void *ud)
{
    const char *dot = strrchr(path, '.');
    struct cli_out o;
    if (out_begin(&o, path, "", 0, dot && !strchr(dot, '/') ? dot : ""))
        return 1;
    char *gp = NULL;
    size_t gplen = 0;
    FILE *g = open_memstream(&gp, &gplen);
    int e = !g || render(g, o.tmp ? o.tmp : o.target, ud);
    if ((g && fclose(g)) || e) {
        free(gp);
        cli_out_abort(&o);
        fputs("smsim: out of memory\n", stderr);
        return 2;
    }
    char err[STUDY_ERR_MAX];
    int rc = study_run_gnuplot(gp, gplen, err);
    free(gp);
    if (rc) {
        fprintf(stderr, "%s\n", err);
        cli_out_abort(&o);
        return 1;
    }
    if (o.tmp) { /* gnuplot wrote it: on disk before it replaces the old plot */
        int fd = open(o.tmp, O_RDONLY);
        if (fd >= 0) {
            fsync(fd);
            close(fd);
        }
    }
    return cli_out_commit(&o);
}

int cli_out_commit(struct cli_out *o)
{
    int rc = 0;
    if (o->tmp && rename(o->tmp, o->target)) {
        fprintf(stderr, "smsim: cannot write '%s': %s\n", o->path, strerror(errno));
        rc = 1;
    }
    cli_out_abort(o);
    return rc;
}

void cli_out_abort(struct cli_out *o)
{
    if (o->tmp)
        unlink(o->tmp); /* after a commit, the name is gone already */
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
}

int cli_write_file(const char *path, const char *buf, size_t len)
{
    struct cli_out o;
    if (cli_out_begin(&o, path, buf, len))
        return 1;
    return cli_out_commit(&o);
}

int cli_check_out(const char *path)
{
    /* a run may take hours: find an unwritable -o before it, by creating
     * (and removing) the temporary file the write will use */
    struct stat st;
    if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "smsim: cannot write '%s': %s\n", path, strerror(EISDIR));
        return 1;
    }
    if (!stat(path, &st) && !S_ISREG(st.st_mode))
        return 0; /* a device or FIFO: opening it could block or have effects */
    struct cli_out o;
    if (cli_out_begin(&o, path, "", 0))
        return 1;
    cli_out_abort(&o);
    return 0;
}

/* Do a and b name one file?  By identity when both exist, else by their
 * resolved directories and base names. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!stat(a, &sa) && !stat(b, &sb))
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ra[2] = { NULL, NULL };
    const char *in[2] = { a, b };
    const char *base[2];
    for (int i = 0; i < 2; i++) {
        const char *sl = strrchr(in[i], '/');
        base[i] = sl ? sl + 1 : in[i];
        char *dir = sl ? strndup(in[i], (size_t)(sl - in[i]) + 1) : strdup(".");
        ra[i] = dir ? realpath(dir, NULL) : NULL;
        free(dir);
    }
    int same = ra[0] && ra[1] && !strcmp(ra[0], ra[1]) && !strcmp(base[0], base[1]);
    free(ra[0]);
    free(ra[1]);
    return same;
}

int cli_check_outputs(const char *const out[][2], int nout, const char *const in[][2], int nin)
{
    for (int i = 0; i < nout; i++) {
        if (!out[i][1])
            continue;
        for (int j = 0; j < nin; j++)
            if (in[j][1] && same_file(out[i][1], in[j][1])) {
                fprintf(stderr, "smsim: %s '%s' is the %s (it would be overwritten)\n",
                        out[i][0], out[i][1], in[j][0]);
                return 1;
            }
        for (int j = 0; j < i; j++)
            if (out[j][1] && same_file(out[i][1], out[j][1])) {
                fprintf(stderr, "smsim: %s and %s name the same file '%s'\n", out[j][0],
                        out[i][0], out[i][1]);
                return 1;
            }
    }
    for (int i = 0; i < nout; i++)
        if (out[i][1] && cli_check_out(out[i][1]))
            return 1;
    return 0;
}

int cli_write_out(const char *out, const char *buf, size_t len, const char *what)
{
    if (out)
        return cli_write_file(out, buf, len);
    if (fwrite(buf, 1, len, stdout) != len || fflush(stdout)) {
        fprintf(stderr, "smsim: cannot write the %s to stdout\n", what);
        return 1;
    }
    return 0;
}
