#!/usr/bin/env python3
"""Checks that Package.swift's target graph is the house's layers (docs/architecture.md).

Three rules, run by `make lint`:
- every module a target's sources import is declared in its dependencies, and nothing
  declared goes unimported (C libraries aside), so the graph says what really links;
- a target depends only on targets in lower layers, so nothing links one above it;
- a few targets never link certain others, even through a dependency (NEVER).

Exit status 0 when both hold; 1 with one line per breach.
"""
import glob
import re
import sys

# The data's path, bottom up: a target may use any layer below its own, never its own
# layer's neighbours or a layer above. Test targets and executables sit on top.
LAYERS = [
    ["CThreadSanitizer"],
    ["Platform", "Geo", "CGPS", "CINIH", "CSQLite", "CMosquitto", "CCurl", "CPostgres", "CRsvg",
     "CMicroHTTPD", "CWideChar", "CSpawn"],
    ["Web", "Arguments"],
    ["Gazetteer", "Location", "AirQuality"],
    ["Readings", "FleetWire"],
    ["Sensors"],
    ["Settings"],
    ["Airloc", "Configuration", "Logbook", "MQTT", "FleetStore", "HTTPService", "GeocodeAcceptance"],
    ["FieldLog", "Plot", "TerminalUI", "Collector", "TestSupport"],
    ["Fleet", "Uploads", "Serve", "CollectorStation"],
    ["LoggerStation", "Diagnosis", "ManualPages", "FuzzTargets"],
    ["AirlocCLI"],
]
# What a target must not link, even through another: storage links neither the sensor
# drivers nor MQTT nor the settings (the wire's values are enough), and the pages link
# neither the collector's ingest nor MQTT (docs/architecture.md).
NEVER = {
    "Logbook": ["MQTT", "Sensors", "Settings"],
    "Serve": ["Collector", "MQTT"],
    "FleetWire": ["MQTT", "Settings"],
    "Settings": ["Airloc", "MQTT", "Logbook"],
}
TARGET = re.compile(r'\.(target|executableTarget|testTarget|systemLibrary)\(\s*name: "([^"]+)"(.*?)\)(?=,\s*(//|\.|\]))',
                    re.S)


def is_c_library(name, targets) -> bool:
    """A C target is imported in its one file (often through another C header), so it is declared, never checked."""
    kind, _, path = targets.get(name, ("", [], ""))
    return kind == "systemLibrary" or not glob.glob(path + "/**/*.swift", recursive=True)


def main() -> int:
    package = open("Package.swift").read()
    layer = {name: index for index, names in enumerate(LAYERS) for name in names}
    targets = {}
    for match in TARGET.finditer(package):
        kind, name, body = match.group(1), match.group(2), match.group(3)
        listed = re.search(r"dependencies: \[(.*?)\]", body, re.S)
        path = re.search(r'path: "([^"]+)"', body)
        targets[name] = (
            kind,
            re.findall(r'"([^"]+)"', listed.group(1)) if listed else [],
            path.group(1) if path else ("Tests/" if kind == "testTarget" else "Sources/") + name,
        )
    breaches = []
    for name, (kind, dependencies, path) in targets.items():
        if kind == "systemLibrary":
            continue
        imported = set()
        for source in glob.glob(path + "/**/*.swift", recursive=True):
            for line in open(source):
                found = re.match(r"^(?:@testable )?import (\w+)", line)
                if found and found.group(1) in targets and found.group(1) != name:
                    imported.add(found.group(1))
        top = kind != "target"  # tests and executables may use everything
        for missing in sorted(imported - set(dependencies)):
            breaches.append(f"{name} imports {missing} without declaring it")
        if name != "EndToEndTests":  # it depends on the executables it runs, not imports
            for unused in sorted(set(dependencies) - imported):
                if not is_c_library(unused, targets) and targets.get(unused, ("",))[0] != "executableTarget":
                    breaches.append(f"{name} declares {unused} and never imports it")
        if top:
            continue
        if name not in layer:
            breaches.append(f"{name} has no layer in scripts/check-layers.py")
            continue
        for dependency in dependencies:
            if layer.get(dependency, -1) >= layer[name]:
                breaches.append(f"{name} (layer {layer[name]}) links {dependency} (layer {layer.get(dependency)})")
    def linked(name, seen=None):
        seen = set() if seen is None else seen
        for dependency in targets.get(name, ("", [], ""))[1]:
            if dependency not in seen:
                seen.add(dependency)
                linked(dependency, seen)
        return seen

    for name, forbidden in NEVER.items():
        for dependency in sorted(linked(name) & set(forbidden)):
            breaches.append(f"{name} links {dependency} (through its dependencies), which it must not")
    for breach in breaches:
        print(breach, file=sys.stderr)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
