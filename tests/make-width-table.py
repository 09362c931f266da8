#!/usr/bin/env python3
# Prints the display-width ranges of base/base-width.c from glibc's wcwidth() in the C.UTF-8
# locale (Debian 12: glibc 2.36, Unicode 15.0 data): the code points a terminal draws in no
# cell (combining marks, format characters, Hangul medial vowels) and in two (East Asian
# wide and fullwidth, emoji presentation).  Run it and paste its output over the tables:
#   python3 tests/make-width-table.py
import ctypes

libc = ctypes.CDLL("libc.so.6")
libc.setlocale.restype = ctypes.c_char_p
if libc.setlocale(6, b"C.UTF-8") is None:  # LC_ALL
    raise SystemExit("no C.UTF-8 locale")
zero, wide = [], []
for cp in range(0x20, 0x110000):
    if 0xD800 <= cp < 0xE000:
        continue
    w = libc.wcwidth(cp)
    ranges = zero if w == 0 else wide if w == 2 else None
    if ranges is None:
        continue
    if ranges and ranges[-1][1] == cp - 1:
        ranges[-1][1] = cp
    else:
        ranges.append([cp, cp])
for name, ranges in (("width_zero", zero), ("width_wide", wide)):
    print("static const struct width_range %s[] = {" % name)
    cells = ["{0x%x, 0x%x}" % (a, b) for a, b in ranges]
    for i in range(0, len(cells), 5):
        print("    " + ", ".join(cells[i:i + 5]) + ",")
    print("};")
