#!/usr/bin/env bash
# A package that depends on a tagged copy of airloc by version builds against AirlocKit and
# runs (docs/library.md). SwiftPM refuses a dependency by version whose targets carry unsafe
# build flags ("contains unsafe build flags"), so this is what proves there are none.
# Usage: scripts/check-dependent.sh   (the committed state: HEAD)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
swift=${SWIFT:-swift}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/.*static let string = "\([0-9.]*\)".*/\1/p' "$root"/Sources/Web/AirlocVersion.swift)
[ -n "$version" ] || { echo "check-dependent: no version in Sources/Web/AirlocVersion.swift" >&2; exit 1; }
git clone -q "$root" "$work/airloc"
git -C "$work/airloc" tag -f "$version" >/dev/null
mkdir -p "$work/uses-airloc/Sources/uses-airloc"
cat > "$work/uses-airloc/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "uses-airloc",
    dependencies: [.package(url: "file://$work/airloc", from: "$version")],
    targets: [
        .executableTarget(name: "uses-airloc", dependencies: [.product(name: "AirlocKit", package: "airloc")])
    ])
SWIFT
cat > "$work/uses-airloc/Sources/uses-airloc/main.swift" <<'SWIFT'
import AirQuality
import Geo

// Offline: the US AQI category of a reading, and a distance.
let berlin = try Coordinate(latitude: 52.52, longitude: 13.405)
let potsdam = try Coordinate(latitude: 52.39, longitude: 13.065)
print(AQICategory(aqi: 57).name, Int(berlin.distance(to: potsdam) / 1000))
SWIFT
cd "$work/uses-airloc"
"$swift" build -q 2>&1 | grep -v "^\[" || true
out=$("$swift" run -q uses-airloc)
echo "check-dependent: a package depending on airloc $version by version printed: $out"
[ "$out" = "Moderate 27" ] || { echo "check-dependent: expected 'Moderate 27'" >&2; exit 1; }
