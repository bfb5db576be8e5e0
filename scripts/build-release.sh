#!/usr/bin/env bash
# The release build of one product, as it ships (make release, make install, the .deb,
# make bench, make data): the same flags everywhere, so what is measured is what ships.
#   --static-swift-stdlib   the Swift runtime and Foundation linked in: a cold start does
#                           not load and relocate a dozen Swift libraries (docs/performance.md)
#   lld, -z pack-relative-relocs   the binary's 120,000 relative relocations as a 15 kB
#                           RELR table instead of 1.9 MB of RELA read at every start
#                           (glibc >= 2.36; the package's Depends says so)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 PRODUCT" >&2; exit 64; }
exec "${SWIFT:-swift}" build -c release --static-swift-stdlib \
    -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs --product "$1"
