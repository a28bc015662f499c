#!/usr/bin/env bash
# The dependency direction of the layers, checked two ways:
#   1. includes: a file may include only headers of its own layer or of a lower one;
#   2. symbols: no object file of a layer calls or reads a symbol defined by a higher layer
#      (nm over the objects of build/), which also catches declarations written by hand.
# Layers, lowest first: kernel (sim/) and p4 (p4/engine/, which depends on nothing else),
# net (models/net/), transport (models/transport/), ddl (models/ddl/), app (sim/app/).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}

layer_of() { # path -> layer name
    case "$1" in
    sim/app/*) echo app ;;
    sim/*) echo kernel ;;
    p4/engine/*) echo p4 ;;
    models/net/*) echo net ;;
    models/transport/*) echo transport ;;
    models/ddl/*) echo ddl ;;
    *) echo other ;;
    esac
}
# what each layer may use (itself included)
declare -A allowed=(
    [kernel]="kernel"
    [p4]="p4"
    [net]="net p4 kernel"
    [transport]="transport net p4 kernel"
    [ddl]="ddl transport net p4 kernel"
    [app]="app ddl transport net p4 kernel"
)

bad=0
for f in $(git ls-files 'sim/*.[ch]' 'models/*.[ch]' 'p4/engine/*.[ch]'); do
    from=$(layer_of "$f")
    while read -r inc; do
        to=$(layer_of "$inc")
        [ "$to" = other ] && { echo "$f: includes '$inc', which is outside every layer"; bad=1; continue; }
        case " ${allowed[$from]} " in
        *" $to "*) ;;
        *) echo "$f: layer $from includes '$inc' of layer $to"; bad=1 ;;
        esac
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done

# symbols: defined-by map over all layer objects, then every undefined reference of a layer
declare -A owner=()
for f in $(git ls-files 'sim/*.c' 'models/*.c' 'p4/engine/*.c'); do
    o="$BUILD/${f%.c}.o"
    [ -f "$o" ] || { echo "missing object $o (build first)"; exit 1; }
    l=$(layer_of "$f")
    for s in $(nm --defined-only -g "$o" | awk '{print $3}'); do owner[$s]=$l; done
done
for f in $(git ls-files 'sim/*.c' 'models/*.c' 'p4/engine/*.c'); do
    o="$BUILD/${f%.c}.o"
    from=$(layer_of "$f")
    for s in $(nm -u "$o" | awk '{print $2}'); do
        to=${owner[$s]:-}
        [ -z "$to" ] && continue
        case " ${allowed[$from]} " in
        *" $to "*) ;;
        *) echo "$f: layer $from uses '$s' of layer $to"; bad=1 ;;
        esac
    done
done
[ $bad -eq 0 ] && echo "layers: every include and symbol points down"
exit $bad
