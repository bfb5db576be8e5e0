#!/usr/bin/env python3
"""Writes synthetic NMEA 0183 logs (GGA + RMC + GSA, valid checksums) for gpsfake.

Usage: nmea-track.py KIND LAT LON > file.nmea
KIND:
  fix        30 s of a steady 3D fix near LAT,LON with 8 satellites, HDOP 0.9
  lost       10 s of 3D fix, then 10 s with the fix lost (mode 1), then nothing
  nofix      30 s of sentences without a fix (mode 1 throughout)
Tests and the demo use these so that everything they check is known in advance.
"""
import sys


def checksum(body: str) -> str:
    value = 0
    for ch in body:
        value ^= ord(ch)
    return f"${body}*{value:02X}"


def dm(value: float, is_lat: bool) -> tuple[str, str]:
    hemi = ("N" if value >= 0 else "S") if is_lat else ("E" if value >= 0 else "W")
    value = abs(value)
    degrees = int(value)
    minutes = (value - degrees) * 60
    text = f"{degrees:02d}{minutes:07.4f}" if is_lat else f"{degrees:03d}{minutes:07.4f}"
    return text, hemi


def sentences(second: int, lat: float, lon: float, fixed: bool):
    hh, mm, ss = 12, second // 60, second % 60
    t = f"{hh:02d}{mm:02d}{ss:02d}.00"
    la, ns = dm(lat, True)
    lo, ew = dm(lon, False)
    if fixed:
        yield checksum(f"GPGGA,{t},{la},{ns},{lo},{ew},1,08,0.9,35.0,M,39.5,M,,")
        yield checksum(f"GPGSA,A,3,04,05,09,12,17,20,24,28,,,,,1.6,0.9,1.3")
        yield checksum(f"GPRMC,{t},A,{la},{ns},{lo},{ew},0.0,0.0,150624,,,A")
    else:
        yield checksum(f"GPGGA,{t},,,,,0,00,99.9,,M,,M,,")
        yield checksum("GPGSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9")
        yield checksum(f"GPRMC,{t},V,,,,,,,150624,,,N")


def main() -> int:
    if len(sys.argv) != 4 or sys.argv[1] not in ("fix", "lost", "nofix"):
        print(__doc__, file=sys.stderr)
        return 64
    kind, lat, lon = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    out = ["# synthetic track written by scripts/nmea-track.py " + " ".join(sys.argv[1:])]
    for second in range(30 if kind != "lost" else 20):
        fixed = kind == "fix" or (kind == "lost" and second < 10)
        out.extend(sentences(second, lat, lon, fixed))
    print("\r\n".join(out), end="\r\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
