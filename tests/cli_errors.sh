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
V=tests/data/validate
N=tests/data/ncu
S=tests/data/sass
EV=tests/data/events
SF="--sass $S/ffma_ilp1.sass --kernel ilp1"
SL="--grid 1 --block 32 --regs 16 --smem-static 0 --smem-dynamic 0"

# '## section' lines start a section; in a section whose title starts with
# "Warnings" each row must instead exit 0 with exactly one matching line on
# stderr (stdout is the command's answer).  Other lines are
#   ARGS (shell words after "smsim") | PATTERN (ERE, whole line) | what triggers it
# $C, $E, $TR, $V, $N, $S and $EV expand (config, this test's inputs, the native
# trace, validation, ncu CSV, SASS and tracer event fixtures); $SF and $SL are a SASS file
# with its --kernel and a small launch for sass2trace.
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
config --config $E/cfg_enum.yaml | .*:[0-9]+:[0-9]+: scheduler\.policy: expected one of gto, lrr, gty, gyb, gob, grr, got 'fifo' | a word that is not one of the key's values
config --config $E/cfg_missing.yaml | .*:1:1: missing required key 'gpu\.cc_major' | a required key is absent (no silent defaults)
config --config $E/cfg_rule.yaml | .*:[0-9]+:[0-9]+: sm\.max_threads \(2000\) must equal sm\.max_warps x sm\.warp_size .* | keys that are valid alone but inconsistent (docs/config.md, consistency rules)
config --config $E/cfg_deep.yaml | .*cfg_deep\.yaml:1:[0-9]+: YAML nested deeper than 64 levels | lists or mappings nested more than 64 deep (a configuration needs 3)
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
--config $C $TR/err_expr_nest.trace | .*err_expr_nest\.trace:2:72: expression nested deeper than 64 levels | parentheses, prefix operators or min/max arguments nested more than 64 deep
--config $C $TR/err_include_missing.trace | .*err_include_missing\.trace:1:9: cannot open include "no_such_file\.trace": .* | an include that cannot be opened
--config $C /dev/zero | /dev/zero:1:1: NUL byte in line \(not a text trace\?\) | a trace that is not text (a device, a binary file)
--config $C $E/long_line.trace | .*long_line\.trace:1:1: line longer than 65535 bytes \(not a text trace\?\) | a line of more than 65535 bytes
--config $C $E/ctl_escape.trace | .*ctl_escape\.trace:2:3: expected an instruction, 'loop', 'when' or '\}', got '\\x1b\[2J\\x1b\]0;x\\x07' | control bytes from the input (here a terminal escape sequence) are shown as `\xHH` in every trace message, never sent to the terminal; so are bytes that are not UTF-8 and a byte-order mark that is not at the start of the file (one there is skipped)
--config $C $E/mac_cr.trace | .*mac_cr\.trace:1:[0-9]+: carriage return \(\\r\) inside a line: old Mac line endings\? \(lines end with \\n or \\r\\n\) | a file whose lines end with `\r` alone
--config $C $E/bar_range.trace | .*bar_range\.trace:2:12: barrier id '0x10' is not 0\.\.15 | a `BAR` whose barrier id is not one of the 16 named barriers
--config $C $E/bar_id.trace | .*bar_id\.trace:2:12: barrier id 1, but kernel 'k' declares barriers=1 \(ids 0\.\.0\) | a `BAR` id not below the header's `barriers=` (without `barriers=`, the count is one more than the highest id used)
--config $C $E/device.traceg | .*device\.traceg: an Accel-Sim trace must be a regular file \(it is read by offset\), not a pipe or device | an Accel-Sim trace from a pipe, a device or `-` (here a link to /dev/null; native traces may come from a pipe, a FIFO or `-` for standard input)
## Accel-Sim trace (docs/accelsim.md)
--config $C $E/bad_version.traceg | .*bad_version\.traceg:12:[0-9]+: -accelsim tracer version '9' is not supported \(3, 4 or 5\) | an unsupported tracer version in the header
--config $C $E/grid_wrap.traceg | .*grid_wrap\.traceg:3:13: -grid dim has more than 4294967295 blocks | a grid whose product of dimensions exceeds 32-bit block indices (once wrapped modulo 2^64: 4 x 2^64 + 2 blocks ran as 2)
--config $C $E/block_wrap.traceg | .*block_wrap\.traceg:4:14: -block dim has more than 4294967295 threads | a block whose product of dimensions exceeds 2^32 threads
--config $C $E/kernelslist.g | .*kernelslist\.g:2:1: cannot open kernel trace '.*kernel-9\.traceg': .* | a kernel list naming a missing .traceg
--config $C $E/kl_dir/kernelslist.g | .*kl_dir/kernelslist\.g:1:1: kernel trace '.*kernel-1\.traceg' is a directory | a kernel list naming a directory
--config $C $E/bad_inst.traceg | smsim: .*bad_inst\.traceg: kernel 0: .*bad_inst\.traceg:[0-9]+:[0-9]+: expected a source register R0\.\.R255, got 'zz' | a malformed instruction line (found when the block is read, during the run)
## Launches that cannot run (engine)
--config $C $E/launch_threads.trace | smsim: .*launch_threads\.trace: kernel 0: kernel 'too_wide': block of 2048 threads is not a valid launch | more threads per block than the GPU allows
--config $C $E/launch_regs.trace | smsim: .*launch_regs\.trace: kernel 0: kernel 'fat' cannot run: .* registers .* | not even one block fits the register file
--config $C $E/launch_smem.trace | smsim: .*launch_smem\.trace: kernel 0: kernel 'big_smem' cannot run: shared memory per block .* | not even one block fits shared memory
--config $C $E/launch_second.trace | smsim: .*launch_second\.trace: kernel 1: kernel 'fat' cannot run: .* | a later kernel fails: nothing is printed for the earlier ones either
--config $C $E/insts_huge.trace | smsim: .*insts_huge\.trace: kernel 0: kernel 'huge' executes 2\^64 or more warp-instructions, more than 100000000000 \(give --max-insts N, 0 for no limit, or --max-cycles N\) | a kernel larger than `--max-insts` (default 10^11 warp-instructions unless `--max-cycles` is given), counted before any kernel runs
--config $C tests/data/insts/block1_huge.trace | smsim: .*block1_huge\.trace: kernel 0: kernel 'block1' executes at least 18446744065119617027 warp-instructions, more than 100000000000 \(give --max-insts N, 0 for no limit, or --max-cycles N\) | a kernel whose count depends on block or warp: its warps are counted until the sum passes the limit (`at least` names a lower bound)
## Command line: `smsim --config CFG TRACE` (run)
bogus | smsim: unknown subcommand 'bogus' \(see smsim --help\) | a first word that is neither a subcommand nor a file
--config $C | smsim: missing TRACE file \(see smsim --help\) | no trace
$TR/counts.trace | smsim: missing --config CFG\.yaml \(see smsim --help\) | no configuration
--config $C $TR/counts.trace --frob | smsim: unknown option '--frob' \(see smsim --help\) | an unknown option
--config $C $TR/counts.trace --seed | smsim: option --seed needs a value | an option without its value
--config $C $TR/counts.trace --seed -1 | smsim: --seed '-1': expected an integer in 0\.\.18446744073709551615 | a seed that is not a 64-bit unsigned integer (every subcommand's `--seed`)
--config $C $TR/counts.trace --kernel x | smsim: --kernel 'x': expected an integer in 0\.\.2147483647 | a kernel index that is not a number (every subcommand's `--kernel`)
--config $C $TR/counts.trace --format xml | smsim: --format 'xml': expected text, json or csv | an unknown format
--config $C $TR/counts.trace $TR/counts.trace | smsim: more than one trace given .* | two traces
--config $C $TR/counts.trace --kernel 5 | smsim: --kernel 5: the trace has [0-9]+ kernels? .* | a kernel index past the end
--config $C $TR/counts.trace --grid 1 --format json | smsim: --grid needs --format text .* | options that do not combine
--config $C $TR/counts.trace --blocks-per-sm 0 | smsim: --blocks-per-sm '0': expected an integer in 1\.\.2147483647 | a cap below one block
--config $C $TR/counts.trace --carveout 101 | smsim: --carveout '101': expected an integer in 0\.\.100 | a carveout that is not a percentage
--config $C $TR/counts.trace --threads 0 | smsim: --threads '0': expected an integer in 1\.\.1024 | a thread count out of range
--config $C $TR/counts.trace --max-cycles 1e6 | smsim: --max-cycles '1e6': expected an integer in 0\.\.18446744073709551615 | a cycle limit that is not a plain integer
--config $C $TR/counts.trace --max-insts 1e6 | smsim: --max-insts '1e6': expected an integer in 0\.\.18446744073709551615 | an instruction limit that is not a plain integer
--config $C $TR/counts.trace --grid 0 | smsim: --grid '0': expected an integer in 1\.\.100000 | a grid width out of range
--config $C $TR/counts.trace --timeline-cycles 0 | smsim: --timeline-cycles '0': expected an integer in 1\.\.[0-9]+ | a timeline length out of range
--config $C $TR/counts.trace --timeline-sms 0 | smsim: --timeline-sms '0': expected N \(the first N SMs\) or a list of SMs and ranges such as 0-3,7 | a timeline SM selection that is not a count (1..100000) or a list of SMs and ranges
--config $C $TR/counts.trace --timeline-sms 0,200 | smsim: --timeline-sms: SM 200 is not on the GPU \(.* has 132 SMs: 0\.\.131\) | a selected SM the GPU does not have
--config $C $TR/counts.trace --timeline-from 200 --timeline-to 100 | smsim: --timeline-to 100 is not after --timeline-from 200 | an empty timeline window
--config $C $TR/counts.trace --timeline-to 100 --timeline-cycles 10 | smsim: --timeline-to and --timeline-cycles both give the window's end \(give one\) | two ends of the window
--config $C $TR/counts.trace --stall-profile 10 | smsim: --stall-profile needs --stall-csv FILE\.csv or --stall-svg FILE\.svg \(where to write it\) | a stall profile with nowhere to go
--config $C $TR/counts.trace --stall-svg $E/s.svg | smsim: --stall-svg needs --stall-profile BIN \(the bin width in cycles\) | a stall-profile file without the bin width
--config $C $TR/counts.trace --stall-profile 0 --stall-csv $E/s.csv | smsim: --stall-profile '0': expected an integer in 1\.\.1099511627776 | a bin width out of range
--config $C $TR/counts.trace --source-csv $E/same.csv --stall-profile 9 --stall-csv $E/same.csv | smsim: --stall-csv and --source-csv name the same file '.*same\.csv' | two outputs name one file (any two of `--timeline`, `--stall-csv`, `--stall-svg`, `--source-csv`, `-o`)
--config $C $TR/counts.trace --metrics '(' | smsim: --metrics '\(': bad regular expression: .* | a `--metrics` that is not a regular expression
--config $C $TR/counts.trace --metrics nomatch | smsim: --metrics 'nomatch' matches no metric smsim reports \(docs/metrics\.md\) | a `--metrics` that selects nothing
--config $C $TR/counts.trace --csv-units x | smsim: --csv-units 'x': expected row or none | a `--csv-units` that is not `row` or `none`
--config $C $TR/counts.trace -o $E/nonexistent/report.txt | smsim: cannot write '.*nonexistent/report\.txt': .* | `-o` names a file that cannot be created (every subcommand's `-o`)
--config $C $TR/counts.trace --timeline $E/nonexistent/t.json | smsim: cannot write '.*nonexistent/t\.json': .* | the `--timeline` file cannot be created
--config $C $TR/counts.trace --timeline $E/t.json -o $E/nonexistent/report.txt | smsim: cannot write '.*nonexistent/report\.txt': .* | an unwritable `-o` is found before the run, and no `--timeline` is written (outputs go to a temporary file renamed into place: an error never leaves a partial file or destroys the previous one)
--config $C $TR/counts.trace -o $TR/counts.trace | smsim: -o '.*counts\.trace' is the input trace \(it would be overwritten\) | `-o` names the trace (also `compare`, `saturate`; `validate`: the manifest)
--config $C $TR/counts.trace -o $C | smsim: -o '.*h100\.yaml' is the configuration \(it would be overwritten\) | `-o` names the configuration
--config $C $TR/counts.trace --timeline $E/same.json -o $E/same.json | smsim: --timeline and -o name the same file '.*same\.json' | `--timeline` and `-o` name one file
--config $C $TR/counts.trace --max-cycles 5 | smsim: .*counts\.trace: kernel 0: kernel 'counts': simulation passed max_cycles \(5\) | a kernel that runs longer than `--max-cycles`
## Command line: `smsim compare` (docs/validation.md)
compare --config $C $V/tiny_ilp1_b1.trace | smsim: missing --ncu REPORT\.csv \(or --source SOURCE\.csv; see smsim compare --help\) | no ncu CSV
compare --ncu $N/compare.raw.csv --source $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace | smsim: compare: --ncu and --source are two comparisons \(give one\) | both kinds of comparison
compare --source $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace | .*compare\.raw\.csv:[0-9]+:1: expected the header of ncu's Source page export .* | `--source` given a raw-page export (not the Source page)
compare --source validate/data/h200/kit-2026-11-29/source/dchain-k4-b4.sass.csv --config $C $V/tiny_ilp1_b1.trace | smsim: .*tiny_ilp1_b1\.trace: the trace gives no instruction addresses .* | `--source` with a trace whose instructions have no `/*ADDR*/` addresses
compare --source validate/data/h200/kit-2026-11-29/source/smem-tile-b4.sass.csv --config $C validate/traces/dchain-k4/b1.trace | smsim: offset 0x0020 is 'S2UR' in .*smem-tile-b4\.sass\.csv but 'LDC\.64' in .*dchain-k4/b1\.trace:8 \(another kernel or binary\?\) | `--source` with another kernel's export (an opcode differs at some offset)
compare --ncu $N/compare.raw.csv $V/tiny_ilp1_b1.trace | smsim: missing --config CFG\.yaml \(see smsim compare --help\) | no configuration
compare --ncu $N/compare.raw.csv --config $C | smsim: missing TRACE file \(see smsim compare --help\) | no trace
compare --ncu $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace $V/tiny_ilp1_b2.trace | smsim: more than one trace given \('.*tiny_ilp1_b1\.trace' and '.*tiny_ilp1_b2\.trace'\) | two traces
compare --ncu $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace --bogus | smsim: unknown option '--bogus' \(see smsim compare --help\) | an unknown option
compare --ncu $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace --ncu-id | smsim: option --ncu-id needs a value | an option without its value
compare --ncu $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace --format xml | smsim: --format 'xml': expected text, json or csv | an unknown format
compare --ncu $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace --blocks-per-sm 0 | smsim: --blocks-per-sm '0': expected an integer in 1\.\.2147483647 | a cap below one block
compare --ncu $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace --carveout 101 | smsim: --carveout '101': expected an integer in 0\.\.100 | a carveout that is not a percentage
compare --ncu $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace --threads 0 | smsim: --threads '0': expected an integer in 1\.\.1024 | a thread count out of range
compare --ncu $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace --seed x | smsim: --seed 'x': expected an integer in 0\.\.18446744073709551615 | a seed that is not a number
compare --ncu $E/nonexistent.csv --config $C $V/tiny_ilp1_b1.trace | .*nonexistent\.csv: cannot open: .* | the CSV does not exist or cannot be read
compare --ncu $E --config $C $V/tiny_ilp1_b1.trace | .*errors: read error: Is a directory | the CSV is a directory
compare --ncu $E/ncu_no_table.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_no_table\.csv:3:1: no table: expected ncu's CSV header .* | a file with no CSV table (only `==PROF==` lines)
compare --ncu $E/ncu_no_id.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_no_id\.csv:1:1: not an Nsight Compute CSV: the header has no "ID" column .* | a CSV that is not an ncu export
compare --ncu $E/ncu_unterminated.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_unterminated\.csv:2:5: unterminated quoted field \(no closing '"'\) | a quoted field without its closing quote
compare --ncu $N/bad-quote.csv --config $C $V/tiny_ilp1_b1.trace | .*bad-quote\.csv:4:[0-9]+: unexpected '2' after a quoted field \(expected ',' or the end of the line\) | text after a closing quote
compare --ncu $E/ncu_ctl_escape.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_ctl_escape\.csv:3:[0-9]+: sm__cycles_elapsed\.avg: '1\\x1b\[2J2' is not a number | control bytes in a cell (here a terminal escape) are shown as `\xHH`, in every ncu message
compare --ncu $N/compare.raw.csv --ncu-id 0 --config $C $E/insts_huge.trace | smsim: .*insts_huge\.trace: kernel 0: kernel 'huge' executes 2\^64 or more warp-instructions, more than 100000000000 \(give --max-insts N, 0 for no limit, or --max-cycles N\) | a kernel above `--max-insts` (the limit of every subcommand that simulates)
compare --ncu $E/ncu_stray_quote.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_stray_quote\.csv:2:6: stray '"' inside an unquoted field | a quote inside an unquoted field
compare --ncu $N/bad-width.csv --config $C $V/tiny_ilp1_b1.trace | .*bad-width\.csv:4:[0-9]+: 4 fields, but the header \(line 1\) has 3 columns | a row wider or narrower than the header (raw page)
compare --ncu $E/ncu_details_header.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_details_header\.csv:1:1: details-page header without "Metric Name", "Metric Unit" and "Metric Value" | a details-page export that lacks one of its metric columns
compare --ncu $E/ncu_details_id.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_details_id\.csv:1:[0-9]+: "ID" must come before the metric columns | a details page whose "ID" is not a per-launch column
compare --ncu $E/ncu_details_order.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_details_order\.csv:1:[0-9]+: "Metric Name", "Metric Unit" and "Metric Value" must come after the per-launch columns | a details page with a metric column among the per-launch columns
compare --ncu $E/ncu_details_width.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_details_width\.csv:3:1: 5 fields, but the header \(line 1\) has 6 columns | a row wider or narrower than the header (details page)
compare --ncu $N/compare3.raw.csv --config $C $V/tiny_ilp1_b1.trace | smsim: .*compare3\.raw\.csv: 3 launches: choose one with --ncu-id ID or --ncu-kernel REGEX \(the "ID" and "Kernel Name" columns\): IDs 0-1 'tiny_ilp1', ID 2 'tiny_other' | a CSV of several launches without `--ncu-id` or `--ncu-kernel` (the launches listed, consecutive IDs of one kernel together)
compare --ncu $N/compare3.raw.csv --config $C $V/tiny_ilp1_b1.trace --ncu-kernel ilp1 | smsim: .*compare3\.raw\.csv: 2 launches with a Kernel Name matching 'ilp1': choose one with --ncu-id ID or --ncu-kernel REGEX \(the "ID" and "Kernel Name" columns\): IDs 0-1 'tiny_ilp1' | `--ncu-kernel` matches several launches
compare --ncu $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace --ncu-id 7 | smsim: .*compare\.raw\.csv: no launch with ID 7 \(2 launches: IDs 0-1 'tiny_ilp1'\) | an `--ncu-id` that is not in the CSV (also: `--ncu-kernel` matching none)
compare --ncu $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace --ncu-kernel 'a[' | smsim: --ncu-kernel 'a\[': bad regular expression: .* | a bad `--ncu-kernel` regular expression
compare --ncu $S/nested.csv --config $C $V/tiny_ilp1_b1.trace | .*nested\.csv:1:1: this is ncu's Source page \(per instruction: a "Kernel Name" line, then Address, Source, \.\.\.\), not the raw page of launches: give it to compare --source or sass2trace --counts, and export the launches with ncu -i REPORT --csv --page raw --print-units base | ncu's Source page given where the raw page of launches is read (`compare --ncu`, `sass2trace --ncu`)
compare --ncu $N/compare.raw.csv --config $C traces/two_kernels.trace --ncu-id 0 | smsim: traces/two_kernels\.trace has 2 kernels: choose one with --kernel 0\.\.1 | a multi-kernel trace without `--kernel`
compare --ncu $N/compare.raw.csv --config $C $V/tiny_ilp1_b1.trace --ncu-id 0 --kernel 3 | smsim: --kernel 3: the trace has 1 kernel \(0\.\.0\) | a kernel index past the end
compare --ncu $E/ncu_nan.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_nan\.csv:3:[0-9]+: sm__cycles_elapsed\.avg: 'lots' is not a number | a measured value that is not a number
compare --ncu $E/ncu_no_metric.csv --config $C $V/tiny_ilp1_b1.trace | smsim: .*ncu_no_metric\.csv: row ID 0 has none of the metrics smsim reports .* | the CSV row has no metric column smsim predicts
compare --ncu $E/ncu_unit.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_unit\.csv:3:[0-9]+: sm__cycles_elapsed\.avg: unknown unit 'furlong' \(smsim cannot scale it\) | a compared metric in a unit smsim does not know (it would be read at scale 1)
compare --ncu $E/ncu_dup_id.csv --config $C $V/tiny_ilp1_b1.trace --ncu-id 0 | .*ncu_dup_id\.csv:4:1: duplicate ID '0' \(first at line 3\) | two rows with the same `ID` (raw page)
compare --ncu $E/ncu_dup_col.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_dup_col\.csv:1:[0-9]+: duplicate column 'sm__cycles_elapsed\.avg' \(first at column [0-9]+\) | a column name given twice in the header (raw page)
compare --ncu $E/ncu_details_dup.csv --config $C $V/tiny_ilp1_b1.trace | .*ncu_details_dup\.csv:3:[0-9]+: duplicate metric 'sm__cycles_elapsed\.avg' for ID 0 with another value \(first at line 2\) | a details-page metric given twice for one launch with different values (the same value in two sections is fine)
## Command line: `smsim validate` (docs/validation.md)
validate --manifest $V/manifest.tsv | smsim: missing DIR, the measurements to validate against, .* | no DIR
validate $V/nothere --manifest $V/manifest.tsv | smsim: .*nothere: not a directory | DIR is not a directory
validate $V $V | smsim: more than one DIR given .* | two DIRs
validate $V --bogus | smsim: unknown option '--bogus' \(see smsim validate --help\) | an unknown option
validate $V --manifest | smsim: option --manifest needs a value | an option without its value
validate $V --format csv | smsim: --format 'csv': expected text or json | an unknown format
validate $V --plot x.pdf | smsim: --plot 'x\.pdf': expected a \.svg or \.png file name | a plot file of another kind (every subcommand's `--plot`)
validate $V --plot-metric foo | smsim: --plot-metric 'foo': not a compared metric \(one of .*\) | an unknown `--plot-metric`
validate $V --jobs 0 | smsim: --jobs '0': expected an integer in 1\.\.1024 | a job count out of range
validate $V --max-insts -1 | smsim: --max-insts '-1': expected an integer in 0\.\.18446744073709551615 | a negative instruction limit
validate $V --carveout 101 | smsim: --carveout '101': expected an integer in -1\.\.100 | a carveout that is not a percentage (or -1)
validate $V --seed x | smsim: --seed 'x': expected an integer in 0\.\.18446744073709551615 | a seed that is not a number
validate $V --manifest $E/nonexistent.tsv | .*nonexistent\.tsv: cannot open the manifest: .* | the manifest does not exist or cannot be read
validate tests/data --manifest $E/val_empty.tsv | .*val_empty\.tsv:2:1: empty manifest: expected a header row .* | a manifest without its header row
validate tests/data --manifest $E/val_header.tsv | .*val_header\.tsv:1:1: header has no column 'trace' .* | a header that lacks a column
validate tests/data --manifest $E/val_no_launch.tsv | .*val_no_launch\.tsv:2:1: the manifest lists no launch | a header and no row
validate tests/data --manifest $E/val_missing.tsv | .*val_missing\.tsv:2:[0-9]+: missing ncu_csv \(3 fields, need 4\) | a row with too few fields
validate tests/data --manifest $E/val_blocks.tsv | .*val_blocks\.tsv:2:[0-9]+: blocks_per_sm '0': expected an integer in 1\.\.1024 | a bad `blocks_per_sm`
validate $V --manifest $V/manifest.tsv --case '(' | smsim: --case '\(': bad regular expression: .* | a `--case` that is not a regular expression
validate $V --manifest $V/manifest.tsv --case nomatch | smsim: --case 'nomatch' matches no case of .*manifest\.tsv | a `--case` that selects nothing
validate $E --manifest $V/manifest.tsv | smsim: .*manifest\.tsv: no launch of the manifest is measured under .*errors \(its ncu_csv paths\) | DIR holds none of the manifest's CSVs
validate tests/data --manifest $E/val_no_csv.tsv | .*val_no_csv\.tsv:2:[0-9]+: ncu_csv '.*nonexistent\.csv': .* | a row's CSV does not exist
validate tests/data --manifest $E/val_bad_csv.tsv | .*ncu_stray_quote\.csv:2:6: stray '"' inside an unquoted field | a row's CSV is malformed (any message of `smsim compare`'s CSV rows)
validate tests/data --manifest $E/val_no_id.tsv | .*val_no_id\.tsv:2:[0-9]+: ncu_id '99': .*tiny\.raw\.csv has no row with that ID \(5 rows\) | a row's `ncu_id` is not in its CSV
validate tests/data --manifest $E/val_nan.tsv | .*ncu_nan\.csv:3:[0-9]+: sm__cycles_elapsed\.avg: 'lots' is not a number | a measured value that is not a number
validate tests/data --manifest $E/val_no_trace.tsv | .*val_no_trace\.tsv:2:8: trace '.*nonexistent\.trace': .* | a row's trace does not exist
validate tests/data --manifest $E/val_bad_trace.tsv | .*err_unknown_opcode\.trace:2:3: unknown opcode 'FFMAX' | a row's trace is malformed (any trace message above)
validate tests/data --manifest $E/val_cannot_run.tsv | .*val_cannot_run\.tsv:2:8: trace '.*launch_regs\.trace': kernel 'fat' cannot run on .* | a row's launch does not fit the configured GPU
validate tests/data --manifest $E/val_engine.tsv | smsim: .*bad_inst\.traceg: kernel 0: .*bad_inst\.traceg:[0-9]+:[0-9]+: expected a source register .* | a row's trace fails while it is simulated
validate $V --manifest $V/manifest.tsv --max-insts 1 --thresholds $E/nonexistent.tsv | .*nonexistent\.tsv: cannot open the thresholds: .* | the thresholds file does not exist
validate $V --manifest $V/manifest.tsv --max-insts 1 --thresholds $E/thr_fields.tsv | .*thr_fields\.tsv:1:1: expected METRIC<TAB>STAT<TAB>LIMIT | a thresholds line with fewer than three fields
validate $V --manifest $V/manifest.tsv --max-insts 1 --thresholds $E/thr_limit.tsv | .*thr_limit\.tsv:1:[0-9]+: limit 'ten' is not a number | a limit that is not a number
validate $V --manifest $V/manifest.tsv --max-insts 1 --thresholds $E/thr_metric.tsv | .*thr_metric\.tsv:1:1: unknown metric 'sm__bogus' .* | a metric that validate does not compare
validate $V --manifest $V/manifest.tsv --max-insts 1 --thresholds $E/thr_stat.tsv | .*thr_stat\.tsv:1:[0-9]+: unknown statistic 'median' \(expected mape_pct, max_err_pct or pearson_r\) | an unknown statistic
validate $V --manifest $V/manifest.tsv --max-insts 1 --thresholds $E/thr_sat.tsv | .*thr_sat\.tsv:1:[0-9]+: saturation: unknown statistic 'mape_pct' \(expected max_abs_err_warps_per_scheduler\) | a statistic saturation does not have
## Command line: `smsim occupancy`
occupancy --block-size 128 --regs 32 | smsim: occupancy: --config is required .* | no configuration
occupancy --config $C --regs 32 | smsim: occupancy: --block-size is required | a required option is missing
occupancy --config $C --block-size 128 | smsim: occupancy: --regs is required | the other required option is missing
occupancy --config $C --block-size 0 --regs 32 | smsim: --block-size '0': expected an integer in 1\.\.[0-9]+ | a number out of range
occupancy --config $C --block-size 128 --regs 32 --carveout half | smsim: --carveout 'half': expected an integer in 0\.\.100 | a carveout that is neither a percentage nor `none`
occupancy --config $C --block-size 128 --regs 32 --format xml | smsim: --format 'xml': expected text, json or csv | an unknown format
occupancy --config $C --block-size 128 --regs 32 --vary foo | smsim: --vary 'foo': expected threads, regs or smem | an unknown --vary
occupancy --config $C --block-size 128 --regs 32 --bogus | smsim: occupancy: unknown option '--bogus' .* | an unknown option
occupancy --config $C --block-size 128 --regs | smsim: --regs needs a value | an option without its value
occupancy --config $C --block-size 128 --block-size 256 --regs 32 | smsim: --block-size given twice | an option given twice
occupancy --config $C --block-size 128 --threads 256 --regs 32 | smsim: --block-size and --threads \(its old name\) both given | the block size under its new and its old name
occupancy --config= --block-size 128 --regs 32 | smsim: --config needs a file name | an empty `--config=`
occupancy --config $C --block-size 128 --regs 32 --plot occ.pdf | smsim: --plot 'occ\.pdf': expected a \.svg or \.png file name | a plot that is neither SVG nor PNG
occupancy --config $C extra | smsim: occupancy: unexpected argument 'extra' .* | a stray argument
## Command line: `smsim sweep` (docs/studies.md)
sweep $TR/counts.trace --vary gpu.sm_count=1 | smsim: missing --config CFG\.yaml \(see smsim sweep --help\) | no configuration
sweep --config $C --vary gpu.sm_count=1 | smsim: missing TRACE file \(see smsim sweep --help\) | no trace
sweep --config $C $TR/counts.trace | smsim: missing --vary KEY=SPEC .* | nothing to vary
sweep --config $C $TR/counts.trace --vary gpu.sm_count | smsim: --vary 'gpu\.sm_count': expected key=a:b:step or key=v1,v2,\.\.\. | a --vary without values
sweep --config $C $TR/counts.trace --vary sm_count=1 | smsim: --vary 'sm_count=1': key 'sm_count' is not section\.key | a key without its section
sweep --config $C $TR/counts.trace --vary launch.warps=1 | smsim: --vary 'launch\.warps=1': unknown launch key 'launch\.warps' .* | an unknown launch key
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1:2 | smsim: --vary 'gpu\.sm_count=1:2': a range is a:b:step \(three numbers\) | a range without its step
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1:x:1 | smsim: --vary 'gpu\.sm_count=1:x:1': a range is a:b:step with decimal numbers | a range bound that is not a number
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1:2:0 | smsim: --vary 'gpu\.sm_count=1:2:0': step must be positive | a zero or negative step
sweep --config $C $TR/counts.trace --vary gpu.sm_count=4:2:1 | smsim: --vary 'gpu\.sm_count=4:2:1': empty range \(4 > 2\) | a range that ends before it starts
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1:200000:1 | smsim: --vary 'gpu\.sm_count=1:200000:1': more than [0-9]+ values | a range of too many values
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1,,2 | smsim: --vary 'gpu\.sm_count=1,,2': empty value in the list | an empty list item
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 --vary gpu.sm_count=2 | smsim: --vary 'gpu\.sm_count=2': key 'gpu\.sm_count' is already varied | a key varied twice
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1:1000:1 --vary sm.max_warps=1:1000:1 | smsim: the sweep has more than [0-9]+ points | a grid product of too many points
sweep --config $C $TR/counts.trace --vary gpu.bogus=1:2:1 | smsim: sweep point 0 \(gpu\.bogus=1\): --set:1:1: unknown key 'gpu\.bogus'.* | a point that is not a valid configuration
sweep --config $C $TR/counts.trace --vary launch.regs=0 | smsim: sweep point 0 \(launch\.regs=0\): launch\.regs: expected an integer in 1\.\.255, got '0' | a launch value out of range
sweep --config $C $TR/counts.trace --vary launch.threads=2048 | smsim: sweep point 0 \(launch\.threads=2048\): block of 2048 threads exceeds sm\.max_threads_per_block \(1024\) | a block larger than the GPU allows
sweep --config $C $TR/counts.trace --vary launch.smem_dynamic=10000000 | smsim: sweep point 0 \(launch\.smem_dynamic=10000000\): the launch cannot run: shared memory per block .* | a point whose launch does not fit
sweep --config $C traces/two_kernels.trace --vary gpu.sm_count=1 | smsim: traces/two_kernels\.trace has 2 kernels: choose one with --kernel 0\.\.1 | a multi-kernel trace without --kernel
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 --kernel 1 | smsim: --kernel 1: the trace has 1 kernel \(0\.\.0\) | a kernel index past the end
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 --format text | smsim: --format 'text': expected csv or json | an unknown format
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 --jobs x | smsim: --jobs 'x': expected an integer in 1\.\.[0-9]+ | a bad number
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 --max-cycles -5 | smsim: --max-cycles '-5': expected an integer in 0\.\.18446744073709551615 | a negative cycle limit
sweep --config $C $E/insts_huge.trace --vary gpu.sm_count=1 | smsim: sweep point 0 \(gpu\.sm_count=1\): kernel 'huge' executes 2\^64 or more warp-instructions, more than 100000000000 \(give --max-insts N, 0 for no limit, or --max-cycles N\) | a point above `--max-insts` (each point's launch counts: `launch.threads` changes the warps)
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 -o $TR/counts.trace | smsim: -o '.*counts\.trace' is the input trace \(it would be overwritten\) | an output that is an input
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 -o x.svg --plot x.svg | smsim: -o and --plot name the same file 'x\.svg' | the table and the plot in one file
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 --plot $E/nonexistent/p.svg | smsim: cannot write '.*nonexistent/p\.svg': No such file or directory | a plot that cannot be written (every output is checked before the run)
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 -o $E | smsim: cannot write '.*errors': Is a directory | an output that is a directory
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 --emit-jobs $TR/counts.trace | smsim: --emit-jobs '.*counts\.trace' is the input trace \(it would be overwritten\) | a jobs file that is an input
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 --emit-jobs jobs.sh -o x.csv | smsim: --emit-jobs writes jobs, not a table: .* | options that do not combine
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 --emit-jobs jobs.sh --job-dir /dev/null/jobs | smsim: cannot create --job-dir '/dev/null/jobs': .* | the job directory cannot be created
sweep --config $C $TR/counts.trace --vary gpu.sm_count=1 --plot-metric a --plot-metric b --plot-metric c --plot-metric d --plot-metric e --plot-metric f --plot-metric g --plot-metric h --plot-metric i | smsim: at most 8 --plot-metric options | too many plotted metrics
sweep --bogus | smsim: unknown option '--bogus' \(see smsim sweep --help\) | an unknown option
## Command line: `smsim saturate` (docs/studies.md)
saturate $TR/counts.trace | smsim: missing --config CFG\.yaml \(see smsim saturate --help\) | no configuration
saturate --config $C | smsim: missing TRACE file \(see smsim saturate --help\) | no trace
saturate --config $C $TR/counts.trace --threshold 2 | smsim: --threshold '2': expected a number in \(0, 1\] | a threshold out of range
saturate --config $C $TR/counts.trace --tolerance 0 | smsim: --tolerance '0': expected a number in \(0, 1\] | a tolerance out of range
saturate --config $C $TR/counts.trace --format xml | smsim: --format 'xml': expected text, json or csv | an unknown format
saturate --config $C $TR/counts.trace --jobs 0 | smsim: --jobs '0': expected an integer in 1\.\.4096 | a job count out of range
saturate --config $C $TR/counts.trace --metric foo | smsim: --metric 'foo': not a metric smsim reports .* | an unknown metric
saturate --config $C traces/two_kernels.trace | smsim: .*two_kernels\.trace has 2 kernels: choose one with --kernel 0\.\.1 | a multi-kernel trace without --kernel
saturate --config $C $E/launch_regs.trace | smsim: .*launch_regs\.trace: kernel 'fat' cannot run: .* registers .* | not even one block fits
saturate --config $C $E/bad_inst.traceg | smsim: .*bad_inst\.traceg: kernel '.*': .*bad_inst\.traceg:[0-9]+:[0-9]+: expected a source register .* | the trace fails when its first warp is read
saturate --config $C $E/insts_huge.trace | smsim: .*insts_huge\.trace: kernel 0: kernel 'huge' executes 2\^64 or more warp-instructions, more than 100000000000 \(give --max-insts N, 0 for no limit, or --max-cycles N\) | a kernel above `--max-insts`
## Command line: `smsim merge` (docs/studies.md)
merge | smsim: missing --sweep-manifest DIR/manifest\.json .* | no manifest
merge --sweep-manifest $E/nonexistent/manifest.json | .*manifest\.json: cannot open: .* | the manifest cannot be read
merge --bogus | smsim: unknown option '--bogus' \(see smsim merge --help\) | an unknown option
merge --sweep-manifest $E/merge/manifest.json --format text | smsim: --format 'text': expected csv or json | an unknown format
merge --sweep-manifest $E/merge/not_manifest.json | .*not_manifest\.json: not a sweep manifest \(written by smsim sweep --emit-jobs\) | a JSON file that is not a manifest
merge --sweep-manifest $E/merge/bad_vary.json | .*bad_vary\.json: bad "vary" list | a manifest whose "vary" is not a list of keys
merge --sweep-manifest $E/merge/bad_point.json | .*bad_point\.json: point 0: expected "file" and "vary" | a manifest point without its file
merge --sweep-manifest $E/merge/manifest.json $E/merge/point-0.json $E/merge/point-2.json | .*point-2\.json: not a point of the sweep in .*manifest\.json | a file the manifest does not list
merge --sweep-manifest $E/merge/manifest.json $E/merge/point-0.json $E/merge/point-0.json | .*point-0\.json: point 0 given twice | a point given twice
merge --sweep-manifest $E/merge/manifest.json $E/merge/point-0.json | .*manifest\.json: point 1 \(point-1\.json\) has no output among the files given | a point without its output
merge --sweep-manifest $E/merge/manifest.json $E/merge/point-0.json $E/merge/syntax/point-1.json | .*syntax/point-1\.json:[0-9]+:[0-9]+: not valid JSON: .* | a job output that is not JSON
merge --sweep-manifest $E/merge/manifest.json $E/merge/point-0.json $E/merge/shape/point-1.json | .*shape/point-1\.json: not the JSON output of one smsim kernel or sweep point | a JSON file that is no job output
merge --sweep-manifest $E/merge/manifest.json $E/merge/point-0.json $E/merge/cfg/point-1.json | .*cfg/point-1\.json: config 'Other GPU' is not the manifest's 'Test GPU' | a job run on another configuration
merge --sweep-manifest $E/merge/manifest.json $E/merge/point-0.json $E/merge/count/point-1.json | .*count/point-1\.json: 1 metrics, the other files have 2 | a job output with other metrics
merge --sweep-manifest $E/merge/manifest.json $E/merge/point-0.json $E/merge/name/point-1.json | .*name/point-1\.json: metric 1 is 'sm__cycles_elapsed\.max', the other files have 'sm__cycles_elapsed\.avg' | a job output with metrics in another order
merge --sweep-manifest $E/merge/manifest.json -o $E/merge/manifest.json | smsim: -o '.*manifest\.json' is the sweep manifest \(it would be overwritten\) | an output that is an input (the manifest or a job output; checked before they are read)
## Command line: `smsim config`
config | smsim: config: --config is required .* | no configuration
config --schema --config $C | smsim: config: --schema takes no --config or --set | options that do not combine
config --config $C extra | smsim: config: unexpected argument 'extra' .* | a stray argument
config --config $C --bogus | smsim: config: unknown option '--bogus' \(see smsim config --help\) | an unknown option
config --config | smsim: --config needs a value | an option without its value
config --config $C --config $C | smsim: --config given twice | `--config` given twice
config --config= | smsim: --config needs a file name | an empty `--config=`
## Command line: `smsim export`
export $TR/counts.trace | smsim: export: missing --accelsim OUTDIR .* | no output directory
export --accelsim OUTDIR | smsim: export: missing TRACE file .* | no trace
export --accelsim OUTDIR $TR/counts.trace $TR/counts.trace | smsim: export: more than one trace given .* | two traces
export --accelsim OUTDIR $TR/counts.trace --bogus | smsim: export: unknown option '--bogus' \(see smsim export --help\) | an unknown option
export --accelsim OUTDIR $TR/counts.trace --binary-version abc | smsim: --binary-version 'abc': expected an integer in [0-9]+\.\.[0-9]+ | a bad number
export --accelsim OUTDIR $TR/counts.trace --seed -1 | smsim: --seed '-1': expected an integer in 0\.\.18446744073709551615 | a seed that is not a number
export --accelsim /dev/null/out $TR/counts.trace | smsim: cannot create directory '/dev/null/out': .* | the output directory cannot be created
export --accelsim OUTDIR $E/insts_huge.trace | smsim: .*insts_huge\.trace: kernel 0: kernel 'huge' executes 2\^64 or more warp-instructions, more than 100000000000 \(give --max-insts N, 0 for no limit, or --max-cycles N\) | a kernel above `--max-insts` (each instruction becomes a line of the export)
export --accelsim tests/data/accelsim/v3 tests/data/accelsim/v3/kernelslist.g | smsim: --accelsim '.*v3/kernelslist\.g' is the input trace \(it would be overwritten\) | an export into the directory of its own input
## Command line: `smsim sass2trace` (docs/sass-converter.md)
sass2trace --sass $S/ffma_ilp1.sass $SL | smsim: sass2trace: missing --kernel \(or --ncu REPORT\.csv for the launch; see smsim sass2trace --help\) | a required option is missing
sass2trace $SF $SL --ncu-id 0 | smsim: sass2trace: --ncu-id needs --ncu REPORT\.csv | `--ncu-id` or `--ncu-kernel` without `--ncu`
sass2trace $SF --ncu $N/compare3.raw.csv | smsim: .*compare3\.raw\.csv: 3 launches: choose one with --ncu-id ID or --ncu-kernel REGEX .* | a report of several launches without `--ncu-id`/`--ncu-kernel` (as `compare`)
sass2trace $SF --ncu $E/ncu_nan.csv | smsim: --ncu .*ncu_nan\.csv: no 'launch__grid_dim_x' value \(export with ncu --csv --page raw --print-units base\) | a report without one of the launch__ metrics sass2trace reads
sass2trace $SF $SL stray | smsim: sass2trace: unknown option 'stray' \(see smsim sass2trace --help\) | a stray argument (sass2trace takes none)
sass2trace $SF $SL --grid 0,1 | smsim: --grid '0,1': expected X\[,Y\[,Z\]\] with each dimension 1\.\.4294967295 | a bad dimension
sass2trace $SF $SL --regs 300 | smsim: --regs '300': expected an integer in 1\.\.255 | a number out of range
sass2trace $SF $SL --trip 0x1c4=3 | smsim: --trip '0x1c4=3': expected PC=VALUE with PC an instruction address \(0x\.\.\., a multiple of 16\) | an address that is not an instruction's
sass2trace $SF $SL --trip 0x1c0=4 --trip 0x1c0=5 | smsim: --trip 0x1c0 given twice | the same address given twice
sass2trace $SF $SL --trip 0x1c0=4 --tolerance 200 | smsim: --tolerance '200': expected a percentage 0\.\.100 | a tolerance out of range
sass2trace $SF $SL --trip 0x1c0=4 --expect-insts x | smsim: --expect-insts 'x': expected an integer in 0\.\.18446744073709551615 | an instruction count that is not a number
sass2trace --sass $E/nonexistent.sass --kernel x $SL | .*nonexistent\.sass: cannot open: .* | the listing does not exist
sass2trace --sass $S/ffma_ilp1.sass --kernel nomatch $SL | .*ffma_ilp1\.sass:1:1: kernel 'nomatch' not found \(functions: .*\) | no function matches `--kernel`
sass2trace $SF $SL | .*ffma_ilp1\.sass:[0-9]+:[0-9]+: the loop 0x00a0\.\.0x01c0 has no trip count \(give --trip 0x01c0=N or --counts\) | a loop whose trip count is unknown
sass2trace $SF $SL --trip 0x1c0=4 --expect-insts 5 | smsim: .*: the trace executes 91 warp-instructions, --expect-insts is 5 \(.*\) | the converted trace is not the expected size
sass2trace $SF $SL --trip 0x1c0=4 -o $E/nonexistent/x.trace | smsim: cannot write '.*nonexistent/x\.trace': No such file or directory | the output file cannot be written (checked before the conversion)
sass2trace $SF $SL --trip 0x1c0=4 -o $S/ffma_ilp1.sass | smsim: -o '.*ffma_ilp1\.sass' is the SASS listing \(it would be overwritten\) | an output that is an input (the listing, `--counts` or `--annotate`)
## Tracer event files: `smsim sass2trace --events` (docs/tracing.md)
sass2trace --events $EV/recon.smev --sass $EV/recon.sass | smsim: sass2trace: missing -o DIR \(see smsim sass2trace --help\) | `--events` without an output directory
sass2trace --events $EV/recon.smev --sass $EV/recon.sass --grid 1 -o $E/nonexistent-dir | smsim: sass2trace: --grid does not apply with --events \(the event file's header names the kernel and the launch\) | a launch option with `--events` (the event file's header gives the launch)
sass2trace $SF $SL --xz | smsim: sass2trace: --xz applies only with --events \(a native trace is written as text\) | `--xz` without `--events`
sass2trace --events $EV/err_truncated.smev --sass $EV/recon.sass -o $E/nonexistent-dir | .*err_truncated\.smev: record 12 \(byte 2322\): truncated record \(11 of its 16 header bytes\) | the file ends inside a record (also: inside a record's addresses)
sass2trace --events $EV/err_badkey.smev --sass $EV/recon.sass -o $E/nonexistent-dir | .*err_badkey\.smev:6: unknown header key 'nrogs' | a header line whose key is not in the format (also: a key missing or given twice, a bad value, version not 1, no `#events`)
sass2trace --events $EV/err_warp.smev --sass $EV/recon.sass -o $E/nonexistent-dir | .*err_warp\.smev: record 3 \(byte 258\): warp 5 outside the launch \(2 warps: grid 1,1,1, 2 per block\) | a record's warp id is not below grid x warps per block (also: outside the sampled blocks; kind unknown; pc not a multiple of 16; mask 0)
sass2trace --events $EV/err_pc.smev --sass $EV/recon.sass -o $E/nonexistent-dir | .*err_pc\.smev: record 3 \(byte 258\): pc 0x0200 is not an instruction of '_Z5reconPf' \(18 instructions in .*recon\.sass\) | a record's pc lies outside the kernel's function (also: the instruction there is not of the record's kind)
sass2trace --events $EV/err_nopath.smev --sass $EV/recon.sass -o $E/nonexistent-dir | .*err_nopath\.smev: record 5 \(byte [0-9]+\): pc: warp 0 has no path from after 0x0060 to 0x00e0 'STG\.E' that passes no unpredicated instrumented instruction without a record | no control-flow path explains the warp's next record (wrong listing, divergence, or a record missing)
## Command line: `smsim bench`
bench --bogus | smsim: bench: unknown option '--bogus' .* | an unknown option
bench --repeat 0 | smsim: --repeat '0': expected an integer in 1\.\.[0-9]+ | a number out of range
bench --only nope | smsim: bench: --only 'nope': unknown workload | an unknown workload
bench --quick --only stream_copy --max-insts 1000 | smsim: bench: workload stream_copy: kernel 'stream_copy' executes [0-9]+ warp-instructions, more than 1000 \(give --max-insts N, 0 for no limit, or --max-cycles N\) | a workload above `--max-insts` (default 10^11, as everywhere)
## Warnings (one line on stderr; the command still succeeds)
--config $C tests/data/weak/copy_small.trace --set gpu.sm_count=2 | smsim: caution: kernel 'copy_float4' is of a class the validation marks weak \(memory-streaming, validate/weak\.tsv\): .*; see docs/validation\.md | a kernel of a class the validation marks weak (validate/weak.tsv; also `sweep`, `saturate`; not with `--quiet`)
occupancy --config $C --threads 128 --regs 32 | smsim: occupancy: --threads is deprecated, use --block-size \(threads per block\); the old name goes in the next release | the old name of `--block-size`
TABLE
}

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf '%s' "$s"; }

fails=0
n=0
warn=0
md="$T/errors.md"
{
    echo "# Error messages"
    echo
    echo "Every user-facing error is one line on stderr, nothing is printed on stdout, and"
    echo "smsim exits non-zero. Input errors name the place: \`file:line:col: message\`"
    echo "(\`--set:1:col:\` for an override); command-line errors start with \`smsim:\`."
    echo "An error while simulating names the trace and the kernel index. The warnings"
    echo "of the last section are one line on stderr too, and the command succeeds."
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
        case $line in '## Warnings'*) warn=1 ;; *) warn=0 ;; esac
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
    if [ "$MODE" = test ] && [ "$warn" = 1 ]; then
        [ $rc -eq 0 ] || { echo "FAIL: smsim $args: a warning, yet exit $rc"; fails=$((fails + 1)); }
    elif [ "$MODE" = test ]; then
        [ $rc -ne 0 ] || { echo "FAIL: smsim $args: exit 0"; fails=$((fails + 1)); }
        [ -s "$T/out" ] && { echo "FAIL: smsim $args: stdout not empty"; fails=$((fails + 1)); }
    fi
    if [ "$MODE" = test ]; then
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
