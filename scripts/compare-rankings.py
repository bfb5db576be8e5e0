#!/usr/bin/env python3
"""Compares the first search result of two gazetteer files over every shared place name.

usage: scripts/compare-rankings.py GEONAMES_DIR OLD.bin NEW.bin [--min-population N]
           [--old-airloc PATH] [--new-airloc PATH]

A ranking change is judged by more than the acceptance suites: this asks both files for
every name that several places in GEONAMES_DIR/cities500.txt share, one of them with at
least N people (default 20,000), through the real CLI (`airloc search NAME --offline
--json --limit 1`, AIRLOC_DATA pointing at each file), and prints each name whose first
result differs, then how many differ and how many of those lost a place named exactly
the query to one that is not. Both sides run .build/release/airloc (`make release`)
unless told otherwise: a ranking change in the code needs the old binary as well.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import unicodedata

AIRLOC = os.path.join(os.path.dirname(__file__), "..", ".build", "release", "airloc")


def fold(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def shared_names(cities: str, min_population: int) -> list[str]:
    populations = collections.defaultdict(list)
    with open(cities, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) > 14:
                populations[cols[1]].append(int(cols[14] or 0))
    return sorted(n for n, p in populations.items() if len(p) > 1 and max(p) >= min_population)


def first_result(airloc: str, data: str, name: str):
    env = {"AIRLOC_DATA": data, "HOME": "/nonexistent", "PATH": os.environ.get("PATH", "/usr/bin")}
    run = subprocess.run(
        [airloc, "search", name, "--offline", "--json", "--limit", "1"],
        capture_output=True, text=True, env=env, timeout=30)
    results = json.loads(run.stdout).get("results", []) if run.stdout else []
    if not results:
        return None
    r = results[0]
    return (r["id"], r["name"], r.get("admin1") or "", r.get("country") or "", r.get("population") or 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("geonames")
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--min-population", type=int, default=20_000)
    parser.add_argument("--old-airloc", default=AIRLOC)
    parser.add_argument("--new-airloc", default=AIRLOC)
    args = parser.parse_args()
    for binary in (args.old_airloc, args.new_airloc):
        if not os.access(binary, os.X_OK):
            print(f"error: {binary} not found; run `make release` first", file=sys.stderr)
            return 69
    names = shared_names(os.path.join(args.geonames, "cities500.txt"), args.min_population)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        old = list(pool.map(lambda n: first_result(args.old_airloc, args.old, n), names))
        new = list(pool.map(lambda n: first_result(args.new_airloc, args.new, n), names))
    changed = lost = 0
    for name, a, b in zip(names, old, new):
        if a == b:
            continue
        changed += 1
        exact_lost = a and b and fold(a[1]) == fold(name) and fold(b[1]) != fold(name)
        lost += bool(exact_lost)
        describe = lambda r: "nothing" if r is None else f"{r[1]}, {r[2]}, {r[3]} ({r[4]:,})"
        print(f"{'!' if exact_lost else ' '} {name}: {describe(a)} -> {describe(b)}")
    print(f"{changed} of {len(names)} shared names changed their first result; "
          f"{lost} lost a place named exactly so (marked !)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
