#!/usr/bin/env bash
# `make test-system`: the package as it ships, installed with apt in a booted Debian 12 under
# systemd (docs/packaging.md, "The system test"). Builds this release's .deb, the previous
# release's (packaging/previous-release) and the Debian image (both cached), then
# scripts/system-test.py boots it three times. Root: debootstrap and the image need it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "Error: the system test builds a Debian root file system: run it as root" >&2; exit 77; }
started=$(date +%s)
image=$(scripts/system-image.sh)
echo "system test: image $image ($(($(date +%s) - started)) s)"
scripts/install-deps.sh dpkg-dev >/dev/null
deb=$(scripts/build-deb.sh | tail -1)
echo "system test: this release $deb ($(($(date +%s) - started)) s)"
previous=$(scripts/previous-release.sh)
echo "system test: the previous release $previous ($(($(date +%s) - started)) s)"
work=$(mktemp -d /tmp/airloc-system-test.XXXXXX)
if python3 scripts/system-test.py "$image" "$deb" "$previous" "$work"; then
    rm -rf "$work"
    echo "system test: passed in $(($(date +%s) - started)) s in all"
else
    # The consoles and the guest's words stay for reading; the disk is large.
    rm -f "$work/station.qcow2" "$work/control.img"
    echo "system test: FAIL (the consoles and the guest's words: $work)" >&2
    exit 1
fi
