#!/usr/bin/env bash
# Hostile inputs: each case runs ddlsim under a memory limit (ulimit -v) and a time limit
# (timeout) and must exit with the code it names and print every line it expects, exactly
# (stdout and stderr together). A case is
#   - a file under tests/hostile/<topic>/ (its input), whose first lines (comments: "# " in YAML
#     and STF, "// " in P4) hold the case:
#         cmd: check FILE             ddlsim arguments; FILE is the case file
#         exit: 2
#         expect: FILE:3:7: error: ...     one or more, each a whole output line
#         contains: error: nesting too deep    (generated inputs) a line holding this text
#         file_kb: 64                 optional: a file size limit (ulimit -f, SIGXFSZ ignored),
#                                     so writes fail as on a full disk
#     The case runs in the file's folder, so messages name the file by its base name. `cmd`
#     may name other files of that folder (an STF case names its program) and $tmp, a scratch
#     folder (run outputs), which `expect` lines may name too.
#   - a line of tests/hostile/cli.cases: "exit | expected line | arguments" (run from the
#     repository root), for command lines that need no input file;
#   - a file written at test time by tests/hostile/gen.sh (large inputs are generated, never
#     committed), in the same format.
# Usage: tests/hostile/run.sh [-v] [PATTERN]   (PATTERN: a substring of the case's path)
set -u
cd "$(dirname "$0")/../.."
root=$PWD
bin=$root/${BUILD:-build}/ddlsim
verbose=0
[ "${1:-}" = "-v" ] && verbose=1 && shift
pattern=${1:-}
# Memory limit of every case, in KB. AddressSanitizer reserves terabytes of address space, so
# an ASan build runs without it (its own checks stand in), and with ten times the time (the
# 200,000-host cases take 5-10 s plain; under ASan dumbbell_max takes 90 s on an idle machine,
# most of it the kernel mapping ASan's shadow memory, and went past 120 s on a loaded one).
mem_kb=${HOSTILE_MEM_KB:-3000000}
time_s=${HOSTILE_SECONDS:-30}
case "$bin" in *asan*) mem_kb=unlimited time_s=${HOSTILE_SECONDS:-300} ;; esac
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_case NAME DIR EXIT ARGS-STRING EXPECT-LINES(newline separated) [FILE-KB]
run_case() {
    local name=$1 dir=$2 want_rc=$3 args=$4 expects=$5 file_kb=${6:-unlimited}
    local out rc
    out=$(cd "$dir" && ulimit -v "$mem_kb" && ulimit -f "$file_kb" && trap '' XFSZ &&
        eval "timeout -k 5 $time_s \"$bin\" $args" 2>&1)
    rc=$?
    local bad=""
    [ "$rc" = "$want_rc" ] || bad="exit $rc, want $want_rc"
    while IFS= read -r line; do
        [ -z "$line" ] && continue
        case "$line" in
        '~'*) grep -qF -- "${line#\~}" <<<"$out" || bad="${bad:+$bad; }missing: ${line#\~}" ;;
        *) grep -qxF -- "$line" <<<"$out" || bad="${bad:+$bad; }missing: $line" ;;
        esac
    done <<<"$expects"
    if [ -n "$bad" ]; then
        fail=$((fail + 1))
        echo "FAIL $name: $bad"
        head -c 2000 <<<"$out" | sed 's/^/    | /'
    else
        pass=$((pass + 1))
        [ $verbose -eq 1 ] && echo "ok   $name"
    fi
}

# file_case PATH: the header of the file describes the case
file_case() {
    local f=$1 dir base cmd="" rc="" expects="" file_kb="" line key val
    dir=$(dirname "$f")
    base=$(basename "$f")
    while IFS= read -r line; do
        line=${line#\# }
        line=${line#// }
        key=${line%%: *}
        val=${line#*: }
        case "$key" in
        cmd) cmd=$val ;;
        exit) rc=$val ;;
        expect) val=${val//FILE/$base} && expects+="${val//\$tmp/$tmp}"$'\n' ;;
        contains) val=${val//FILE/$base} && expects+="~${val//\$tmp/$tmp}"$'\n' ;;
        file_kb) file_kb=$val ;;
        *) break ;;
        esac
    done < <(head -c 8192 "$f" | head -n 40)
    if [ -z "$cmd" ] || [ -z "$rc" ]; then
        fail=$((fail + 1))
        echo "FAIL $f: no 'cmd:' or 'exit:' header"
        return
    fi
    run_case "$f" "$dir" "$rc" "${cmd//FILE/$base}" "$expects" "$file_kb"
}

cases=()
while IFS= read -r f; do
    cases+=("$f")
done < <(find tests/hostile -mindepth 2 -type f ! -name '*.sh' ! -name '*.cases' ! -name '*.md' |
    LC_ALL=C sort)
# generated inputs
mkdir -p "$tmp/gen"
tests/hostile/gen.sh "$tmp/gen" || { echo "FAIL gen.sh"; exit 1; }
while IFS= read -r f; do
    cases+=("$f")
done < <(find "$tmp/gen" -type f ! -name '*.aux' | LC_ALL=C sort)

for f in "${cases[@]}"; do
    [ -n "$pattern" ] && [[ "$f" != *"$pattern"* ]] && continue
    file_case "$f"
done

n=0
while IFS= read -r line; do
    n=$((n + 1))
    case "$line" in '#'* | '') continue ;; esac
    rc=${line%% | *}
    rest=${line#* | }
    expect=${rest%% | *}
    args=${rest#* | }
    [ -n "$pattern" ] && [[ "cli.cases:$n $args" != *"$pattern"* ]] && continue
    run_case "cli.cases:$n ($args)" "$root" "$rc" "$args" "$expect"
done <tests/hostile/cli.cases

echo "hostile: $pass passed, $fail failed (limits: ${mem_kb} KB, ${time_s} s)"
[ $fail -eq 0 ]
