#!/usr/bin/env python3
"""Prints the colour of pixels of a PNG file, as #RRGGBB, one line per X,Y given.

    png-pixel.py FILE X,Y [X,Y ...]

Reads 8-bit RGB or RGBA PNGs, not interlaced (what cairo and rsvg-convert write), with the
standard library only: the plot tests' way of looking at a rendered figure.
"""
import struct, sys, zlib

def read(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG: " + path)
    offset, idat, header = 8, b"", None
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, colour, interlace))
    channels = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, position = [], bytearray(stride), 0
    for _ in range(height):
        kind = raw[position]
        line = bytearray(raw[position + 1:position + 1 + stride])
        position += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(line)
        previous = line
    return width, height, channels, rows

if len(sys.argv) < 3:
    sys.exit(__doc__)
width, height, channels, rows = read(sys.argv[1])
for spec in sys.argv[2:]:
    x, y = (int(round(float(v))) for v in spec.split(","))
    if not (0 <= x < width and 0 <= y < height):
        sys.exit("%d,%d is outside the %dx%d image" % (x, y, width, height))
    pixel = rows[y][x * channels:x * channels + channels]
    # Cairo writes premultiplied colours only in memory; a PNG holds straight alpha.
    print("#%02X%02X%02X" % (pixel[0], pixel[1], pixel[2]))
