#!/usr/bin/env python3
"""Prints the search benchmark's queries, one per line as KIND<TAB>QUERY: every
keystroke (2 to 10 characters) of 50 real place names ("name"), then every keystroke
(4 to 10) of the same names with their 3rd and 4th letters swapped ("typo"). Shared by
airloc-bench and the Python peers so both answer exactly the same list."""
NAMES = [
    "Berlin", "München", "Paris", "London", "New York", "Los Angeles", "Tokyo", "São Paulo", "Mexico City",
    "Mumbai", "Shanghai", "Cairo", "Lagos", "Istanbul", "Moscow", "Buenos Aires", "Sydney", "Toronto",
    "Chicago", "Madrid", "Rome", "Vienna", "Zürich", "Amsterdam", "Brussels", "Copenhagen", "Stockholm",
    "Oslo", "Helsinki", "Warsaw", "Prague", "Budapest", "Athens", "Lisbon", "Dublin", "Edinburgh",
    "Manchester", "Hamburg", "Köln", "Frankfurt am Main", "San Francisco", "Seattle", "Portland",
    "Springfield", "Birmingham", "Reykjavík", "Nairobi", "Johannesburg", "Bangkok", "Singapore",
]


def keystrokes(text, shortest):
    return [text[:n] for n in range(shortest, min(10, len(text)) + 1)]


def main():
    for name in NAMES:
        for query in keystrokes(name, 2):
            print(f"name\t{query}")
    for name in NAMES:
        if len(name) >= 5:
            typo = name[:2] + name[3] + name[2] + name[4:]
            for query in keystrokes(typo, 4):
                print(f"typo\t{query}")


if __name__ == "__main__":
    main()
