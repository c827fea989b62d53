/* study_out.c — a sweep table as CSV, JSON and a gnuplot script.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report/report.h"
#include "study/study.h"

int study_write_csv(FILE *f, const struct study_table *t)
{
    for (int j = 0; j < t->nvars; j++) {
        if (j)
            fputc(',', f);
        report_csv_string(f, t->keys[j], 0);
    }
    for (int i = 0; i < t->nmetrics; i++) {
        if (t->nvars || i)
            fputc(',', f);
        report_csv_string(f, t->metrics[i], 0);
    }
    fputc('\n', f);
    for (long p = 0; p < t->npoints; p++) {
        for (int j = 0; j < t->nvars; j++) {
            if (j)
                fputc(',', f);
            report_csv_string(f, t->vals[p * t->nvars + j], 0);
        }
        for (int i = 0; i < t->nmetrics; i++) {
            if (t->nvars || i)
                fputc(',', f);
            double v = t->m[p * t->nmetrics + i];
            if (isfinite(v)) {
                char buf[REPORT_NUM_MAX];
                report_format_number(buf, v);
                fputs(buf, f);
            }
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* Does s read as a JSON number? (then it is written unquoted) */
static int json_numeric(const char *s)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        p += strspn(p, "0123456789");
    else
        return 0;
    if (*p == '.') {
        p++;
        size_t n = strspn(p, "0123456789");
        if (!n)
            return 0;
        p += n;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        size_t n = strspn(p, "0123456789");
        if (!n)
            return 0;
        p += n;
    }
    return *p == '\0';
}

int study_write_json(FILE *f, const struct study_table *t)
{
    fputs("{\n  \"config\": ", f);
    report_json_string(f, t->config_name);
    fputs(",\n  \"kernel\": ", f);
    report_json_string(f, t->kernel_name);
    fputs(",\n  \"vary\": [", f);
    for (int j = 0; j < t->nvars; j++) {
        if (j)
            fputs(", ", f);
        report_json_string(f, t->keys[j]);
    }
    fputs("],\n  \"points\": [", f);
    for (long p = 0; p < t->npoints; p++) {
        fprintf(f, "%s\n    {\n      \"point\": %ld,\n      \"vary\": {", p ? "," : "", p);
        for (int j = 0; j < t->nvars; j++) {
            const char *v = t->vals[p * t->nvars + j];
            fputs(j ? ", " : "", f);
            report_json_string(f, t->keys[j]);
            fputs(": ", f);
            if (json_numeric(v))
                fputs(v, f);
            else
                report_json_string(f, v);
        }
        fputs("},\n      \"metrics\": {", f);
        for (int i = 0; i < t->nmetrics; i++) {
            fputs(i ? ",\n        " : "\n        ", f);
            report_json_string(f, t->metrics[i]);
            fputs(": ", f);
            report_json_number(f, t->m[p * t->nmetrics + i]);
        }
        fputs("\n      }\n    }", f);
    }
    fputs(t->npoints ? "\n  ]\n}\n" : "]\n}\n", f);
    return ferror(f) ? -1 : 0;
}

void study_gp_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        if (*s != '\n')
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* Terminal line for an output name, or NULL for an unknown extension. */
static const char *gp_terminal(const char *out)
{
    size_t n = strlen(out);
    if (n > 4 && !strcmp(out + n - 4, ".svg"))
        return "set terminal svg size 800,500 dynamic font 'sans,12' background rgb 'white'";
    if (n > 4 && !strcmp(out + n - 4, ".png"))
        return "set terminal pngcairo size 1000,625 font 'sans,11'";
    return NULL;
}

int study_write_gnuplot(FILE *f, const struct study_table *t, const char *out,
                        const char *title, const char *const *ys, int ny)
{
    const char *term = gp_terminal(out);
    if (!term || t->nvars < 1 || t->npoints < 1)
        return -1;
    int cols[8];
    if (ny > 8)
        ny = 8;
    for (int i = 0; i < ny; i++)
        if ((cols[i] = study_table_metric(t, ys[i])) < 0)
            return -1;
    /* x numeric when every value of the first key is */
    int numeric = 1;
    for (long p = 0; p < t->npoints; p++) {
        char *end;
        strtod(t->vals[p * t->nvars], &end);
        if (*end || end == t->vals[p * t->nvars])
            numeric = 0;
    }
    long n0 = 1; /* values of the first key: points until it changes */
    {
        long stride = 1; /* points per value of the first key */
        while (stride < t->npoints && !strcmp(t->vals[0], t->vals[stride * t->nvars]))
            stride++;
        n0 = t->npoints / stride;
    }
    long series = t->npoints / n0;
    fprintf(f, "# gnuplot script written by smsim\n%s\nset output ", term);
    study_gp_string(f, out);
    fputs("\nset title ", f);
    study_gp_string(f, title);
    fputs(" noenhanced\nset xlabel ", f);
    study_gp_string(f, t->keys[0]);
    fputs(" noenhanced\nset ylabel ", f);
    study_gp_string(f, ny == 1 ? ys[0] : "value");
    fputs(" noenhanced\nset key outside bottom center horizontal noenhanced\n"
          "set grid\nset yrange [0:*]\nset offsets graph 0.02, graph 0.02, graph 0.06, 0\n"
          "set datafile separator ','\n", f);
    if (!numeric)
        fputs("set xtics rotate by -30\n", f);
    for (long s = 0; s < series; s++) {
        fprintf(f, "$d%ld << EOD\n", s);
        for (long i = 0; i < n0; i++) {
            long p = i * series + s;
            if (numeric)
                fputs(t->vals[p * t->nvars], f);
            else
                fprintf(f, "%ld", i);
            for (int k = 0; k < ny; k++) {
                double v = t->m[p * t->nmetrics + cols[k]];
                char buf[REPORT_NUM_MAX];
                report_format_number(buf, v);
                fprintf(f, ",%s", isfinite(v) ? buf : "NaN");
            }
            if (!numeric)
                fprintf(f, ",%s", t->vals[p * t->nvars]);
            fputc('\n', f);
        }
        fputs("EOD\n", f);
    }
    fputs("plot ", f);
    int first = 1;
    for (long s = 0; s < series; s++) {
        /* the other keys' values name the series */
        char lab[300] = "";
        size_t at = 0;
        for (int j = 1; j < t->nvars && at < sizeof lab; j++) {
            int w = snprintf(lab + at, sizeof lab - at, "%s%s=%s", j > 1 ? " " : "", t->keys[j],
                             t->vals[s * t->nvars + j]);
            if (w > 0)
                at += (size_t)w;
        }
        for (int k = 0; k < ny; k++) {
            char name[420];
            snprintf(name, sizeof name, "%s%s%s", ys[k], lab[0] ? " " : "", lab);
            fprintf(f, "%s$d%ld using 1:%d with linespoints pt 7 ps 0.6 title ",
                    first ? "" : ", \\\n     ", s, k + 2);
            study_gp_string(f, name);
            first = 0;
        }
    }
    if (!numeric) /* xtic labels from the last column */
        fprintf(f, ", \\\n     $d0 using 1:(NaN):xtic(%d) notitle", ny + 2);
    fputs("\n", f);
    return ferror(f) ? -1 : 0;
}

/* Is `name` an executable in PATH? */
static int in_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char buf[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n + strlen(name) + 2 < sizeof buf) {
            memcpy(buf, path, n);
            buf[n] = '\0';
            if (n == 0)
                strcpy(buf, ".");
            strcat(buf, "/");
            strcat(buf, name);
            if (access(buf, X_OK) == 0)
                return 1;
        }
        path += n;
        if (*path == ':')
            path++;
    }
    return 0;
}

/* In gnuplot's stderr `tail` (NUL-terminated, no trailing blanks): its
 * last error line, '[ "FILE", ]line N: message' (what follows, such as
 * "No output will be generated", is a consequence), else the last line;
 * leading blanks skipped.  The line is cut out in place. */
static char *gp_error_line(char *tail)
{
    char *best = NULL;
    for (char *ln = tail; ln && *ln;) {
        char *nl = strchr(ln, '\n');
        char *p = ln;
        while (*p == ' ' || *p == '\t')
            p++;
        const char *at = strstr(p, "line ");
        if (at && (!nl || at < nl)) {
            const char *d = at + 5;
            while (*d >= '0' && *d <= '9')
                d++;
            if (d > at + 5 && *d == ':')
                best = p;
        }
        ln = nl ? nl + 1 : NULL;
    }
    if (!best) {
        char *ln = strrchr(tail, '\n');
        best = ln ? ln + 1 : tail;
        while (*best == ' ' || *best == '\t')
            best++;
    }
    char *nl = strchr(best, '\n');
    if (nl)
        *nl = '\0';
    return best;
}

int study_run_gnuplot(const char *script, size_t len, char err[STUDY_ERR_MAX])
{
    if (!in_path("gnuplot")) {
        snprintf(err, STUDY_ERR_MAX, "smsim: gnuplot not found in PATH: cannot draw the plot "
                 "(install gnuplot, e.g. apt-get install gnuplot-nox)");
        return -1;
    }
    int fd[2];
    /* gnuplot's own message (a file it cannot write, a script error) goes
     * to a temporary file, so the error line can quote it */
    FILE *log = tmpfile();
    if (pipe(fd)) {
        snprintf(err, STUDY_ERR_MAX, "smsim: cannot run gnuplot: %s", strerror(errno));
        if (log)
            fclose(log);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        if (log)
            fclose(log);
        snprintf(err, STUDY_ERR_MAX, "smsim: cannot run gnuplot: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        dup2(fd[0], 0);
        close(fd[0]);
        close(fd[1]);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, 1);
        dup2(log ? fileno(log) : devnull, 2);
        execlp("gnuplot", "gnuplot", (char *)NULL);
        _exit(127);
    }
    close(fd[0]);
    /* gnuplot may exit before reading everything: no SIGPIPE for that */
    struct sigaction ign, old;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old);
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd[1], script + off, len - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    close(fd[1]);
    sigaction(SIGPIPE, &old, NULL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (off < len || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        /* gnuplot's own error ("line 3: cannot open file; output not
         * changed"), else the last non-blank line it printed; escaped by
         * the caller's printing */
        char said[300] = "";
        if (log) {
            char tail[4096];
            long end = (fseek(log, 0, SEEK_END), ftell(log));
            long from = end > (long)sizeof tail - 1 ? end - (long)sizeof tail + 1 : 0;
            size_t n = 0;
            if (end > 0 && !fseek(log, from, SEEK_SET))
                n = fread(tail, 1, sizeof tail - 1, log);
            tail[n] = '\0';
            while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
                tail[--n] = '\0';
            char *ln = gp_error_line(tail);
            snprintf(said, sizeof said, "%s%.250s", *ln ? ": " : "", ln);
        }
        if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
            snprintf(err, STUDY_ERR_MAX, "smsim: gnuplot could not be started");
        else
            snprintf(err, STUDY_ERR_MAX,
                     "smsim: gnuplot failed (exit status %d) drawing the plot%s",
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1, said);
        if (log)
            fclose(log);
        arch_msg_escape(err, STUDY_ERR_MAX);
        return -1;
    }
    if (log)
        fclose(log);
    return 0;
}
