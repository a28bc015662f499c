# Set-up shared by the scripts in tests/cli (sourced, not run): work from the repository root,
# $root that root, $bin the ddlsim under test (absolute), $tmp a scratch folder removed on exit,
# fail MESSAGE to stop the script with "FAIL: MESSAGE", need PROGRAM to require a tool.
cd "$(dirname "$0")/../.." || exit 1
root=$PWD
case ${BUILD:-build} in
/*) bin=${BUILD}/ddlsim ;;
*) bin=$root/${BUILD:-build}/ddlsim ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# need PROGRAM: stop with FAIL when a tool the script needs is not installed.
need() { command -v "$1" >/dev/null || fail "$1 missing (scripts/install-deps.sh)"; }
