#!/bin/bash
# cli_errors.sh — every class of user-facing error, table-driven.
#
# The table below is the single source of docs/errors.md: each row is run and
# must exit != 0 with nothing on stdout and exactly one line on stderr that
# matches the row's pattern (a whole-line extended regex); then the page is
# regenerated from the table and the real messages and must equal
# docs/errors.md, so the page cannot drift from the program.
#
# Usage (from the repo root):
#   bash tests/cli_errors.sh /path/to/smsim              # the test
#   bash tests/cli_errors.sh /path/to/smsim --markdown > docs/errors.md
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_errors.sh /path/to/smsim [--markdown]}
MODE=${2:-test}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
C=configs/h100.yaml
E=tests/data/errors
TR=tests/data/trace

# '## section' lines start a section; other lines are
#   ARGS (shell words after "smsim") | PATTERN (ERE, whole line) | what triggers it
# $C, $E and $TR expand (config, this test's inputs, the native trace fixtures).
table() {
    cat <<'TABLE'
## Configuration file (`--config FILE`)
--config $E/nonexistent.yaml $TR/counts.trace | .*nonexistent\.yaml: cannot open: .* | the file does not exist or cannot be read
config --config $E/cfg_syntax.yaml | .*cfg_syntax\.yaml:[0-9]+:[0-9]+: malformed YAML: .* | YAML syntax error (libyaml's message)
config --config $E/cfg_unknown_section.yaml | .*:[0-9]+:[0-9]+: unknown section 'warp'.* | a top-level key that is not a section
config --config $E/cfg_unknown_key.yaml | .*:[0-9]+:[0-9]+: unknown key 'sm_cuont' in section 'gpu' \(did you mean 'sm_count'\?\) | a misspelt key (with the nearest key as a hint)
config --config $E/cfg_dup.yaml | .*:[0-9]+:[0-9]+: duplicate key 'gpu\.sm_count' \(first at line [0-9]+\) | a key given twice
config --config $E/cfg_type.yaml | .*:[0-9]+:[0-9]+: gpu\.sm_count: expected an integer, got 'many' | a value of the wrong type
config --config $E/cfg_range.yaml | .*:[0-9]+:[0-9]+: gpu\.sm_count: -4 is out of range \[1, 1024\] | a number outside the key's range
config --config $E/cfg_enum.yaml | .*:[0-9]+:[0-9]+: scheduler\.policy: expected one of gto, lrr, got 'fifo' | a word that is not one of the key's values
config --config $E/cfg_missing.yaml | .*:1:1: missing required key 'gpu\.cc_major' | a required key is absent (no silent defaults)
config --config $E/cfg_rule.yaml | .*:[0-9]+:[0-9]+: sm\.max_threads \(2000\) must equal sm\.max_warps x sm\.warp_size .* | keys that are valid alone but inconsistent (docs/config.md, consistency rules)
## Overrides (`--set section.key=value`)
config --config $C --set | smsim: --set needs a value.* | `--set` at the end of the line
config --config $C --set nokey | --set:1:1: expected section\.key=value, got 'nokey' | no `=` or no `.`
config --config $C --set gpu=3 | --set:1:1: 'gpu' is a section, not a key; give section\.key=value | a section instead of a key
config --config $C --set gpu.bogus=1 | --set:1:1: unknown key 'gpu\.bogus'.* | an unknown key
config --config $C --set gpu.sm_count=abc | --set:1:[0-9]+: gpu\.sm_count: expected an integer, got 'abc' | a value of the wrong type
config --config $C --set gpu.sm_count=0 | --set:1:[0-9]+: gpu\.sm_count: 0 is out of range \[1, 1024\] | out of range
config --config $C --set shared_memory.carveouts_kb=[1,0] | --set:1:[0-9]+: shared_memory\.carveouts_kb must be strictly ascending .* | the result breaks a consistency rule
## Native trace (docs/trace-format.md)
--config $C $E/nonexistent.trace | .*nonexistent\.trace: cannot open: .* | the trace does not exist
--config $C $TR/err_unknown_opcode.trace | .*err_unknown_opcode\.trace:2:3: unknown opcode 'FFMAX' | an opcode not in the SASS table
--config $C $TR/err_bad_register.trace | .*err_bad_register\.trace:2:8: bad register 'R256' .* | a register name out of range
--config $C $TR/err_missing_field.trace | .*err_missing_field\.trace:1:1: kernel 'k': missing header field 'block' | a required kernel header field is absent
--config $C $TR/err_unterminated_kernel.trace | .*err_unterminated_kernel\.trace:1:1: unterminated kernel 'k' .* | a kernel without its closing `}`
--config $C $TR/err_expr_div0.trace | .*err_expr_div0\.trace:2:14: division by zero | an expression that divides by zero
--config $C $TR/err_include_missing.trace | .*err_include_missing\.trace:1:9: cannot open include "no_such_file\.trace": .* | an include that cannot be opened
## Accel-Sim trace (docs/accelsim.md)
--config $C $E/bad_version.traceg | .*bad_version\.traceg:12:[0-9]+: -accelsim tracer version '9' is not supported \(3, 4 or 5\) | an unsupported tracer version in the header
--config $C $E/kernelslist.g | .*kernelslist\.g:2:1: cannot open kernel trace '.*kernel-9\.traceg': .* | a kernel list naming a missing .traceg
--config $C $E/bad_inst.traceg | smsim: .*bad_inst\.traceg: kernel 0: .*bad_inst\.traceg:[0-9]+:[0-9]+: expected a source register R0\.\.R255, got 'zz' | a malformed instruction line (found when the block is read, during the run)
## Launches that cannot run (engine)
--config $C $E/launch_threads.trace | smsim: .*launch_threads\.trace: kernel 0: kernel 'too_wide': block of 2048 threads is not a valid launch | more threads per block than the GPU allows
--config $C $E/launch_regs.trace | smsim: .*launch_regs\.trace: kernel 0: kernel 'fat' cannot run: .* registers .* | not even one block fits the register file
--config $C $E/launch_smem.trace | smsim: .*launch_smem\.trace: kernel 0: kernel 'big_smem' cannot run: shared memory per block .* | not even one block fits shared memory
--config $C $E/launch_second.trace | smsim: .*launch_second\.trace: kernel 1: kernel 'fat' cannot run: .* | a later kernel fails: nothing is printed for the earlier ones either
## Command line: `smsim --config CFG TRACE` (run)
bogus | smsim: unknown subcommand 'bogus' \(see smsim --help\) | a first word that is neither a subcommand nor a file
--config $C | smsim: missing TRACE file \(see smsim --help\) | no trace
$TR/counts.trace | smsim: missing --config CFG\.yaml \(see smsim --help\) | no configuration
--config $C $TR/counts.trace --frob | smsim: unknown option '--frob' \(see smsim --help\) | an unknown option
--config $C $TR/counts.trace --seed | smsim: option --seed needs a value | an option without its value
--config $C $TR/counts.trace --seed -1 | smsim: --seed '-1': expected an integer in 0\.\.[0-9]+ | a number out of range
--config $C $TR/counts.trace --format xml | smsim: --format 'xml': expected text, json or csv | an unknown format
--config $C $TR/counts.trace $TR/counts.trace | smsim: more than one trace given .* | two traces
--config $C $TR/counts.trace --kernel 5 | smsim: --kernel 5: the trace has [0-9]+ kernels? .* | a kernel index past the end
--config $C $TR/counts.trace --grid 1 --format json | smsim: --grid needs --format text .* | options that do not combine
## Command line: `smsim occupancy`
occupancy --threads 128 --regs 32 | smsim: occupancy: --config is required .* | no configuration
occupancy --config $C --regs 32 | smsim: occupancy: --threads is required | a required option is missing
occupancy --config $C --threads 0 --regs 32 | smsim: --threads '0': expected an integer in 1\.\.[0-9]+ | a number out of range
occupancy --config $C --threads 128 --regs 32 --vary foo | smsim: --vary 'foo': expected threads, regs or smem | an unknown --vary
occupancy --config $C --threads 128 --regs 32 --bogus | smsim: occupancy: unknown option '--bogus' .* | an unknown option
## Command line: `smsim sweep`
sweep --config $C $TR/counts.trace | smsim: missing --vary KEY=SPEC .* | nothing to vary
sweep --config $C $TR/counts.trace --vary gpu.sm_count | smsim: --vary 'gpu\.sm_count': expected key=a:b:step or key=v1,v2,\.\.\. | a --vary without values
sweep --config $C $TR/counts.trace --vary gpu.bogus=1:2:1 | smsim: sweep point 0 \(gpu\.bogus=1\): --set:1:1: unknown key 'gpu\.bogus'.* | a point that is not a valid configuration
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1:2:1 --jobs x | smsim: --jobs 'x': expected an integer in 1\.\.[0-9]+ | a bad number
sweep --bogus | smsim: unknown option '--bogus' \(see smsim sweep --help\) | an unknown option
## Command line: `smsim saturate`
saturate --config $C | smsim: missing TRACE file \(see smsim saturate --help\) | no trace
saturate --config $C $TR/counts.trace --threshold 2 | smsim: --threshold '2': expected a number in \(0, 1\] | a threshold out of range
saturate --config $C $TR/counts.trace --metric foo | smsim: --metric 'foo': not a metric smsim reports .* | an unknown metric
saturate --config $C traces/two_kernels.trace | smsim: .*two_kernels\.trace has 2 kernels: choose one with --kernel 0\.\.1 | a multi-kernel trace without --kernel
## Command line: `smsim merge`
merge | smsim: missing --sweep-manifest DIR/manifest\.json .* | no manifest
merge --sweep-manifest $E/nonexistent/manifest.json | .*manifest\.json: cannot open: .* | the manifest cannot be read
merge --bogus | smsim: unknown option '--bogus' \(see smsim merge --help\) | an unknown option
## Command line: `smsim config`
config | smsim: config: --config is required .* | no configuration
config --schema --config $C | smsim: config: --schema takes no --config or --set | options that do not combine
config --config $C extra | smsim: config: unexpected argument 'extra' .* | a stray argument
## Command line: `smsim export`
export $TR/counts.trace | smsim: export: missing --accelsim OUTDIR .* | no output directory
export --accelsim OUTDIR | smsim: export: missing TRACE file .* | no trace
export --accelsim OUTDIR $TR/counts.trace --binary-version abc | smsim: --binary-version 'abc': expected an integer in [0-9]+\.\.[0-9]+ | a bad number
## Command line: `smsim bench`
bench --bogus | smsim: bench: unknown option '--bogus' .* | an unknown option
bench --repeat 0 | smsim: --repeat '0': expected an integer in 1\.\.[0-9]+ | a number out of range
bench --only nope | smsim: bench: --only 'nope': unknown workload | an unknown workload
TABLE
}

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf '%s' "$s"; }

fails=0
n=0
md="$T/errors.md"
{
    echo "# Error messages"
    echo
    echo "Every user-facing error is one line on stderr, nothing is printed on stdout, and"
    echo "smsim exits non-zero. Input errors name the place: \`file:line:col: message\`"
    echo "(\`--set:1:col:\` for an override); command-line errors start with \`smsim:\`."
    echo "An error while simulating names the trace and the kernel index."
    echo
    echo "This page is generated by \`bash tests/cli_errors.sh build/smsim --markdown >"
    echo "docs/errors.md\` from the table in [tests/cli_errors.sh](../tests/cli_errors.sh),"
    echo "which also runs every row as a test (the inputs are in"
    echo "[tests/data/errors/](../tests/data/errors/) and"
    echo "[tests/data/trace/](../tests/data/trace/)), so the messages below are the real ones."
} >"$md"
while IFS= read -r line; do
    case $line in
    '## '*)
        printf '\n%s\n\n| what | command | message |\n|---|---|---|\n' "$line" >>"$md"
        continue ;;
    '') continue ;;
    esac
    args=$(trim "${line%%|*}")
    rest=${line#*|}
    pat=$(trim "${rest%%|*}")
    what=$(trim "${rest#*|}")
    n=$((n + 1))
    eval "set -- $args"
    "$SMSIM" "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    msg=$(head -n 1 "$T/err")
    if [ "$MODE" = test ]; then
        [ $rc -ne 0 ] || { echo "FAIL: smsim $args: exit 0"; fails=$((fails + 1)); }
        [ -s "$T/out" ] && { echo "FAIL: smsim $args: stdout not empty"; fails=$((fails + 1)); }
        nl=$(wc -l <"$T/err")
        [ "$nl" -eq 1 ] || { echo "FAIL: smsim $args: $nl lines on stderr:"; cat "$T/err"; fails=$((fails + 1)); }
        printf '%s\n' "$msg" | grep -Eqx -- "$pat" ||
            { echo "FAIL: smsim $args: stderr '$msg' does not match '$pat'"; fails=$((fails + 1)); }
    fi
    esc() { printf '%s' "$1" | sed 's/|/\\|/g'; }
    shown=$(eval "printf '%s ' $args" | sed 's/ $//')
    printf '| %s | `smsim %s` | `%s` |\n' "$(esc "$what")" "$(esc "$shown")" "$(esc "$msg")" >>"$md"
done < <(table)

if [ "$MODE" = --markdown ]; then
    cat "$md"
    exit 0
fi
if ! diff -u docs/errors.md "$md" >"$T/diff" 2>&1; then
    echo "FAIL: docs/errors.md is out of date; regenerate with"
    echo "  bash tests/cli_errors.sh build/smsim --markdown > docs/errors.md"
    head -n 40 "$T/diff"
    fails=$((fails + 1))
fi
echo "$n error cases checked, $fails failures"
[ $fails -eq 0 ]
