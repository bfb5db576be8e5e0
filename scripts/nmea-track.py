#!/usr/bin/env python3
"""Writes synthetic NMEA 0183 logs (GGA + RMC + GSA, valid checksums) for gpsfake.

Usage: nmea-track.py KIND LAT LON [LAT2 LON2] [--now [--shift S]] [--seconds N] > file.nmea
KIND:
  fix        30 s of a steady 3D fix near LAT,LON with 8 satellites, HDOP 0.9
  move       30 s of that fix at LAT,LON, then 30 s at LAT2,LON2 (a journey in one
             step: looped, a watch sees the place change at known points of the log)
  lost       10 s of 3D fix, then 10 s with the fix lost (mode 1), then nothing
  nofix      30 s of sentences without a fix (mode 1 throughout)
--now        time-stamp the track from the current UTC time (default 2024-06-15 12:00:00),
             so that gpsd's fixes carry a plausible time (replay it in real time: gpsfake
             -c 0.33, three sentences a second)
--shift S    with --now: S seconds later than now (a receiver right while this device's
             clock is S seconds behind: the logger re-stamps by GPS time)
--seconds N  length of a fix/nofix track (default 30)
Tests and the demo use these so that everything they check is known in advance.
"""
import datetime
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


def sentences(moment: datetime.datetime, lat: float, lon: float, fixed: bool):
    t = moment.strftime("%H%M%S.00")
    d = moment.strftime("%d%m%y")
    la, ns = dm(lat, True)
    lo, ew = dm(lon, False)
    if fixed:
        yield checksum(f"GPGGA,{t},{la},{ns},{lo},{ew},1,08,0.9,35.0,M,39.5,M,,")
        yield checksum(f"GPGSA,A,3,04,05,09,12,17,20,24,28,,,,,1.6,0.9,1.3")
        yield checksum(f"GPRMC,{t},A,{la},{ns},{lo},{ew},0.0,0.0,{d},,,A")
    else:
        yield checksum(f"GPGGA,{t},,,,,0,00,99.9,,M,,M,,")
        yield checksum("GPGSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9")
        yield checksum(f"GPRMC,{t},V,,,,,,,{d},,,N")


def main() -> int:
    args = sys.argv[1:]
    start = datetime.datetime(2024, 6, 15, 12, 0, 0)
    length = 30
    if "--now" in args:
        args.remove("--now")
        start = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0, tzinfo=None)
    if "--shift" in args:
        at = args.index("--shift")
        try:
            start += datetime.timedelta(seconds=int(args[at + 1]))
        except (IndexError, ValueError):
            print(__doc__, file=sys.stderr)
            return 64
        del args[at:at + 2]
    if "--seconds" in args:
        at = args.index("--seconds")
        try:
            length = int(args[at + 1])
        except (IndexError, ValueError):
            print(__doc__, file=sys.stderr)
            return 64
        del args[at:at + 2]
    wanted = 5 if args and args[0] == "move" else 3
    if len(args) != wanted or args[0] not in ("fix", "lost", "nofix", "move"):
        print(__doc__, file=sys.stderr)
        return 64
    kind, lat, lon = args[0], float(args[1]), float(args[2])
    out = ["# synthetic track written by scripts/nmea-track.py " + " ".join(sys.argv[1:])]
    seconds = {"lost": 20, "move": 2 * length}.get(kind, length)
    for second in range(seconds):
        fixed = kind in ("fix", "move") or (kind == "lost" and second < 10)
        here = (float(args[3]), float(args[4])) if kind == "move" and second >= length else (lat, lon)
        out.extend(sentences(start + datetime.timedelta(seconds=second), here[0], here[1], fixed))
    print("\r\n".join(out), end="\r\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
