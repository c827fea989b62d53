#!/usr/bin/env bash
# Layering: data flows one way, between modules and between the files of a
# module.  From the object files of the module libraries (sim/<module>/*.c,
# built into CMakeFiles/smsim_<module>.dir/) this builds the graph "file A
# references a global symbol that file B defines" and checks
#  (a) no circle between the files of one module (a -> b -> a, or longer):
#      every one found is printed as "sim/x/a.c -> sim/x/b.c -> sim/x/a.c";
#  (b) no module references a symbol defined in a module that comes after it
#      in SMSIM_MODULES (CMakeLists.txt), the order the libraries link in.
# Optimised builds compile to LTO objects, which gcc-nm reads (plain nm
# reads them only with the plugin); a non-LTO build's objects read the same.
# Exit 77 (skipped) when the objects or nm are missing.
# SPDX-License-Identifier: GPL-3.0-or-later
set -euo pipefail
SMSIM=${1:?usage: cli_layering.sh SMSIM}
cd "$(dirname "$0")/.."
build=$(cd "$(dirname "$SMSIM")" 2>/dev/null && pwd) ||
    { echo "SKIP: no build directory $(dirname "$SMSIM")"; exit 77; }

NM=
for c in gcc-nm nm; do
    if command -v "$c" >/dev/null 2>&1; then
        NM=$c
        break
    fi
done
[ -n "$NM" ] || { echo "SKIP: neither gcc-nm nor nm found"; exit 77; }

modules=$(sed -n 's/^set(SMSIM_MODULES \(.*\))$/\1/p' CMakeLists.txt)
[ -n "$modules" ] || { echo "FAIL: no 'set(SMSIM_MODULES ...)' line in CMakeLists.txt"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one line per symbol: "D|U rank module file symbol"
: >"$tmp/syms"
rank=0
for m in $modules; do
    rank=$((rank + 1))
    for src in sim/"$m"/*.c; do
        [ -e "$src" ] || continue
        obj=$build/CMakeFiles/smsim_$m.dir/$src.o
        [ -f "$obj" ] || { echo "SKIP: $obj missing (build smsim first)"; exit 77; }
        # defined globals (T D B R C G S V W), undefined references (U);
        # statics are lower-case or, in LTO objects, absent
        "$NM" -P "$obj" 2>/dev/null |
            awk -v r=$rank -v m="$m" -v f="$src" '
                $2 ~ /^[TDBRCGSVW]$/ { print "D", r, m, f, $1 }
                $2 == "U"            { print "U", r, m, f, $1 }' >>"$tmp/syms" ||
            { echo "SKIP: $NM cannot read $obj"; exit 77; }
    done
done
[ -s "$tmp/syms" ] || { echo "SKIP: no module objects under $build"; exit 77; }

# Edges "file -> file" (dependency by symbol), then (b) and (a).
awk '
    $1 == "D" { def[$5] = $4; rk[$5] = $2; mod[$5] = $3; next }
    { u[++n] = $0 }
    END {
        bad = 0
        for (i = 1; i <= n; i++) {
            split(u[i], a, " ")
            s = a[5]
            if (!(s in def) || def[s] == a[4])
                continue
            if (rk[s] > a[2]) {
                printf "FAIL: %s (module %s) uses %s, defined in %s (module %s, later in SMSIM_MODULES)\n",
                       a[4], a[3], s, def[s], mod[s]
                bad++
            }
            if (mod[s] == a[3])
                print "E", a[3], a[4], def[s], s
        }
        exit (bad > 0)
    }' "$tmp/syms" >"$tmp/edges" && order_ok=1 || order_ok=0
grep '^FAIL' "$tmp/edges" || true
grep '^E' "$tmp/edges" >"$tmp/e" || true

# (a) Elementary circles inside each module: a depth-first search from each
# file s through files that sort after s finds every circle exactly once
# (with its smallest file first).  Modules have a handful of files, so the
# enumeration stays small; it stops at 100 circles.
awk '
    { m = $2; a = $3; b = $4
      if (!((a SUBSEP b) in adj)) { adj[a, b] = 1; out[a] = out[a] " " b }
      modof[a] = m; modof[b] = m; node[a] = 1; node[b] = 1 }
    function dfs(v, depth,    k, nb, i, w, line, j) {
        path[depth] = v
        onpath[v] = 1
        k = split(out[v], nb, " ")
        for (i = 1; i <= k; i++) {
            w = nb[i]
            if (w == start) {
                line = path[1]
                for (j = 2; j <= depth; j++)
                    line = line " -> " path[j]
                print "CIRCLE: " line " -> " start
                if (++found >= 100)
                    exit 1
            } else if (w > start && !(w in onpath) && modof[w] == modof[start])
                dfs(w, depth + 1)
        }
        delete onpath[v]
    }
    END {
        found = 0
        for (s in node) list[++nn] = s
        # sort the files (insertion sort: few files) for a stable report
        for (i = 2; i <= nn; i++) {
            x = list[i]
            for (j = i - 1; j >= 1 && list[j] > x; j--) list[j + 1] = list[j]
            list[j + 1] = x
        }
        for (i = 1; i <= nn; i++) {
            start = list[i]
            dfs(start, 1)
        }
        exit (found > 0)
    }' "$tmp/e" >"$tmp/circles" && circ_ok=1 || circ_ok=0
if [ "$circ_ok" = 0 ]; then
    sed 's/^CIRCLE: /FAIL: circle /' "$tmp/circles"
    # the symbols behind each edge of a circle, to say what to move
    echo "edges in circles (file -> file: symbols):"
    awk 'NR == FNR { n = split($0, p, " -> "); for (i = 1; i < n; i++) c[p[i] " " p[i + 1]] = 1; next }
         { k = $3 " " $4; if (k in c) s[k] = s[k] " " $5 }
         END { for (k in s) { split(k, f, " "); print "  " f[1] " -> " f[2] ":" s[k] } }' \
        <(sed 's/^CIRCLE: //' "$tmp/circles") "$tmp/e" | sort
fi
nfiles=$(awk '$1 == "D" || $1 == "U" { print $4 }' "$tmp/syms" | sort -u | wc -l)
nedges=$(awk '{ print $3, $4 }' "$tmp/e" | sort -u | wc -l)
echo "$nfiles files in modules: $modules; $nedges file-to-file edges inside modules"
if [ "$order_ok" = 1 ] && [ "$circ_ok" = 1 ]; then
    echo "layering ok: no circle inside a module, every module uses only earlier ones"
    exit 0
fi
exit 1
