#!/usr/bin/env python3
"""Compares the first search result of two gazetteer files over every shared place name.

usage: scripts/compare-rankings.py GEONAMES_DIR OLD.bin NEW.bin [--min-population N]

A ranking change is judged by more than the acceptance suites: this asks both files for
every name that several places in GEONAMES_DIR/cities500.txt share, one of them with at
least N people (default 20,000), through the real CLI (`airloc search NAME --offline
--json --limit 1`, AIRLOC_DATA pointing at each file), and prints each name whose first
result differs, then how many differ and how many of those lost a place named exactly
the query to one that is not. Needs a release build (`make release`).
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


def first_result(data: str, name: str):
    env = {"AIRLOC_DATA": data, "HOME": "/nonexistent", "PATH": os.environ.get("PATH", "/usr/bin")}
    run = subprocess.run(
        [AIRLOC, "search", name, "--offline", "--json", "--limit", "1"],
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
    args = parser.parse_args()
    if not os.access(AIRLOC, os.X_OK):
        print(f"error: {AIRLOC} not found; run `make release` first", file=sys.stderr)
        return 69
    names = shared_names(os.path.join(args.geonames, "cities500.txt"), args.min_population)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        old = list(pool.map(lambda n: first_result(args.old, n), names))
        new = list(pool.map(lambda n: first_result(args.new, n), names))
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
