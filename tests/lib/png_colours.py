"""png_colours.py FILE [RRGGBB ...] -- what a rendered PNG holds, for the
plot tests: prints "WIDTH HEIGHT COLOURS" (the number of distinct colours)
and then, per colour asked, "RRGGBB PIXELS" (pixels within 40 of it on each
channel: antialiasing blends line colours with the background). Decodes
8-bit non-interlaced truecolour PNGs (colour types 2 and 6, what gnuplot's
pngcairo writes) with zlib alone; anything else is an error naming the
file. Exit 1 on a file that is not such a PNG."""
import struct
import sys
import zlib


def fail(msg):
    sys.stderr.write("png_colours: %s: %s\n" % (sys.argv[1], msg))
    sys.exit(1)


def decode(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG")
    pos, idat, head = 8, b"", None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if head is None:
        fail("no IHDR chunk")
    width, height, depth, ctype, _, _, interlace = head
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail("depth %d, colour type %d, interlace %d: only 8-bit RGB(A), not interlaced" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif f != 0:
                fail("row %d: filter %d" % (y, f))
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    try:
        data = open(sys.argv[1], "rb").read()
    except OSError as e:
        fail(e.strerror)
    width, height, bpp, rows = decode(data)
    pixels = [row[i:i + 3] for row in rows for i in range(0, len(row), bpp)]
    print(width, height, len(set(pixels)))
    for want in sys.argv[2:]:
        r, g, b = (int(want[k:k + 2], 16) for k in (0, 2, 4))
        n = sum(1 for p in pixels if abs(p[0] - r) <= 40 and abs(p[1] - g) <= 40 and abs(p[2] - b) <= 40)
        print(want, n)


main()
