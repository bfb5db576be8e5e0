#!/usr/bin/env bash
# The release build of one product, as it ships (make release, make install, the .deb,
# make bench, make data): the same flags everywhere, so what is measured is what ships.
#   --static-swift-stdlib   the Swift runtime and Foundation linked in: a cold start does
#                           not load and relocate a dozen Swift libraries (docs/performance.md)
#   lld, -z pack-relative-relocs   the binary's 120,000 relative relocations as a 15 kB
#                           RELR table instead of 1.9 MB of RELA read at every start
#                           (glibc >= 2.36; the package's Depends says so)
#   -function-sections, --symbol-ordering-file   the functions `log run` runs
#                           (scripts/hot-functions.order, made by `make hot-functions`)
#                           laid out together at the start of the code: the kernel maps a
#                           file's pages in whole folios and 64 KiB windows, so scattered,
#                           they kept 11 MB of code resident for 1 MB run (docs/performance.md)
# HOT_FUNCTIONS=FILE links with another order (an empty file: none).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 PRODUCT" >&2; exit 64; }
root=$(cd "$(dirname "$0")/.." && pwd)
order=${HOT_FUNCTIONS:-$root/scripts/hot-functions.order}
binary=$root/.build/release/$1
# SwiftPM relinks when an object changes, not when the order does.
if [ -e "$binary" ] && { [ "$order" -nt "$binary" ] || [ -n "${HOT_FUNCTIONS:-}" ]; }; then rm -f "$binary"; fi
cd "$root"
exec "${SWIFT:-swift}" build -c release --static-swift-stdlib \
    -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
    -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
    -Xlinker "--symbol-ordering-file=$order" -Xlinker --no-warn-symbol-ordering --product "$1"
