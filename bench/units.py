# SPDX-License-Identifier: GPL-2.0-only
"""Sizes as bench's scripts read and print them: one module that bench.py
and report.py both import, so neither imports the other for them."""

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30


def parse_size(s):
    """'8M', '64KiB', '1g', '4096' -> bytes"""
    s = s.strip().upper().rstrip("B").rstrip("I")
    mult = {"K": KIB, "M": MIB, "G": GIB}
    if s and s[-1] in mult:
        return int(float(s[:-1]) * mult[s[-1]])
    return int(s)


def size_str(n):
    """bytes -> the largest unit that divides them: 8M, 64K, 4095"""
    for unit, m in (("G", GIB), ("M", MIB), ("K", KIB)):
        if n >= m and n % m == 0:
            return "%d%s" % (n // m, unit)
    return str(n)
