#!/usr/bin/env python3
"""The functions `airloc log run` runs, for scripts/hot-functions.sh (make hot-functions).

  hot-functions.py callgrind BINARY CALLGRIND_OUT...   names of the functions called
  hot-functions.py faults BINARY PERF_DATA ORDER       functions whose code faulted in
                                                       outside the ordered ones

Each prints one symbol of BINARY's text per line, in first-seen order; only names that
BINARY defines are printed (lld orders by them; others would be ignored anyway).
"""
import bisect
import re
import subprocess
import sys


def text_symbols(binary):
    """(address, name) of every text symbol, sorted by address."""
    out = subprocess.run(["nm", "-n", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    symbols = []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "tTwW":
            symbols.append((int(parts[0], 16), parts[2]))
    return symbols


def callgrind(binary, outputs):
    defined = {name for _, name in text_symbols(binary)}
    names = {}
    for output in outputs:
        seen = {}
        with open(output, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                # fn=(id) name / cfn=(id) name: a name is given once, at its first use.
                match = re.match(r"^c?fn=\((\d+)\) (.*)$", line.rstrip("\n"))
                if match and match.group(1) not in seen:
                    name = re.sub(r"'\d+$", "", match.group(2))  # callgrind's recursion marks
                    seen[match.group(1)] = name
                    if name in defined:
                        names.setdefault(name, None)
    return list(names)


def faults(binary, data, order):
    ordered = {line.strip() for line in open(order, encoding="utf-8")}
    symbols = text_symbols(binary)
    addresses = [address for address, _ in symbols]
    script = subprocess.run(
        ["perf", "script", "-i", data, "--show-mmap-events", "-F", "ip,addr"],
        capture_output=True, text=True, check=True).stdout
    base, text, names = None, None, {}
    suffix = "/" + binary.split("/")[-1]
    for line in script.splitlines():
        mapping = re.search(r"\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0) [^\]]*\]: (\S+) (\S+)$", line)
        if mapping:
            if mapping.group(5).endswith(suffix):
                start, size = int(mapping.group(1), 16), int(mapping.group(2), 16)
                if int(mapping.group(3), 16) == 0 and base is None:
                    base = start
                if mapping.group(4) == "r-xp":
                    text = (start, start + size)
            continue
        fields = line.split()
        if not fields or text is None or base is None:
            continue
        try:
            address = int(fields[0], 16)
        except ValueError:
            continue
        if text[0] <= address < text[1]:
            index = bisect.bisect_right(addresses, address - base) - 1
            if index >= 0 and symbols[index][1] not in ordered:
                names.setdefault(symbols[index][1], None)
    return list(names)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "callgrind":
        names = callgrind(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 5 and sys.argv[1] == "faults":
        names = faults(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        print(__doc__, file=sys.stderr)
        return 64
    for name in names:
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
