#!/usr/bin/env bash
# The previous release's package, built from the commit packaging/previous-release names
# with that commit's own scripts (its `make deb`), for the system test's upgrade. Cached by
# commit beside the system image; prints the .deb's path.
set -euo pipefail
cd "$(dirname "$0")/.."
read -r version commit < <(grep -v '^#' packaging/previous-release)
cache_root=${AIRLOC_SYSTEM_CACHE:-/var/cache/airloc-system-test}
out="$cache_root/release-$version-$commit"
arch=$(dpkg --print-architecture)
deb="$out/airloc_${version}_${arch}.deb"
if [ -f "$deb" ]; then
    echo "$deb"
    exit 0
fi
if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
    # A shallow clone does not hold it: fetch the history once.
    git fetch --quiet --unshallow 2>/dev/null || true
    git cat-file -e "$commit^{commit}" 2>/dev/null \
        || { echo "Error: commit $commit (release $version) is not in this clone" >&2; exit 69; }
fi
mkdir -p "$cache_root"
src=$(mktemp -d "$cache_root/src.XXXXXX")
trap 'rm -rf "$src"' EXIT
git archive "$commit" | tar -x -C "$src"
echo "previous release: building $version from $commit (once; cached in $out)" >&2
(cd "$src" && make --no-print-directory deps >/dev/null && scripts/install-deps.sh dpkg-dev >/dev/null \
    && scripts/build-deb.sh) >"$src.log" 2>&1 || { tail -30 "$src.log" >&2; echo "Error: building release $version failed" >&2; exit 70; }
built=$(tail -1 "$src.log")
mkdir -p "$out"
mv "$src/$built" "$deb"
rm -f "$src.log"
echo "$deb"
