#!/usr/bin/env bash
# Every ddlsim command quoted in README.md and docs/*.md still runs, so the docs cannot drift
# from the program: `run` and `check` commands are checked with `ddlsim check` and their --set
# options (a renamed file, a removed key or a bad value fails); `describe` and
# `p4 check|test` run as written; `sweep` and `figure` must name an existing file; quoted
# benchmark binaries (build/bench/NAME) must have a source in bench/. Placeholders (prog.p4,
# FILE, NAME, KIND, [...]) are skipped.
set -u
cd "$(dirname "$0")/../.."
bin=${BUILD:-build}/ddlsim
fail=0
checked=0
bad() { echo "FAIL $1: $2"; fail=1; }

while IFS= read -r line; do
    src=${line%%:*}
    cmd=${line#*:}
    cmd=${cmd%% #*}
    read -r -a w <<<"$cmd"
    sub=${w[1]:-}
    [ ${#w[@]} -ge 3 ] || continue
    case "$cmd" in *prog.p4*|*FILE*|*NAME*|*KIND*|*\[*|*OUTDIR*) continue ;; esac
    case "$sub" in
    run|check)
        args=(check "${w[2]}")
        for ((i = 3; i < ${#w[@]}; i++)); do
            case "${w[i]}" in --set) args+=("${w[i]}" "${w[i + 1]}"); i=$((i + 1)) ;; esac
        done
        out=$("$bin" "${args[@]}" 2>&1) || bad "$src" "'$cmd' -> ddlsim ${args[*]}: $out"
        ;;
    describe|p4)
        out=$("$bin" "${w[@]:1}" 2>&1 >/dev/null) || bad "$src" "'$cmd': $out"
        ;;
    sweep)
        [ -f "${w[2]}" ] || bad "$src" "'$cmd': no file ${w[2]}"
        ;;
    figure)
        [ "${w[2]}" = all ] || [ -f "configs/figures/${w[2]}.yaml" ] ||
            bad "$src" "'$cmd': no figure ${w[2]}"
        ;;
    *) continue ;;
    esac
    checked=$((checked + 1))
done < <(grep -oHE 'build/ddlsim [a-z0-9]+( [^`|;)]*)?' README.md docs/*.md | sed 's/ *$//')

while IFS= read -r line; do
    src=${line%%:*}
    name=${line#*:build/bench/}
    [ -f "bench/$name.c" ] || bad "$src" "build/bench/$name has no source bench/$name.c"
    checked=$((checked + 1))
done < <(grep -oHE 'build/bench/bench_[a-z0-9_]+' README.md docs/*.md | sort -u)

[ $checked -gt 20 ] || bad "doc_commands" "only $checked commands found: the extraction broke"
[ $fail -eq 0 ] && echo "doc_commands: $checked quoted commands run"
exit $fail
