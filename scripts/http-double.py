#!/usr/bin/env python3
"""A local stand-in for the web services airloc uses (Open-Meteo air quality,
geocoding and archive; Zippopotam.us; IP geolocation), for tests and `make demo`.

It serves responses of the recorded shapes (../shared/reference/open-meteo.md,
postal-and-ip.md) and injects faults on demand. It listens on 127.0.0.1 only.

Usage:
  http-double.py [--port N] [--fault JSON]...

--port 0 (default) picks a free port; the first line on stdout is "PORT <n>".

A fault is JSON: {"path": "/v1/air-quality", "status": 429, "reason": "minutely",
"body": "...", "delay": 3.0, "mode": "truncate" | "cut" | "garbage" | "close",
"times": 1}. Every key but "path" is optional. "reason" picks one of Open-Meteo's
429 texts (minutely, hourly, daily) or is used verbatim; "times" limits how many
requests the fault applies to (default: all). Modes: truncate = a complete answer
whose JSON stops half-way; cut = the connection drops mid-body; garbage = an HTML
page instead of JSON; close = the connection closes without an answer.

Control endpoints (for tests):
  POST   /__fault      add a fault (JSON body as above)
  DELETE /__fault      remove all faults
  GET    /__requests   every request received so far: [{"method","path","query"}]
"""
import argparse
import datetime
import json
import math
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

RATE_LIMIT_REASONS = {
    "minutely": "Minutely API request limit exceeded. Please try again in one minute.",
    "hourly": "Hourly API request limit exceeded. Please try again in the next hour.",
    "daily": "Daily API request limit exceeded. Please try again tomorrow.",
}

LOCK = threading.Lock()
FAULTS = []
REQUESTS = []


def air_quality(query):
    """The Berlin response recorded in 2024 (reference/open-meteo.md), placed at the
    grid cell nearest the requested point, with the US AQI sub-indices added."""
    try:
        lat = float(query.get("latitude", ["52.52"])[0])
        lon = float(query.get("longitude", ["13.40"])[0])
    except ValueError:
        return 400, {"error": True, "reason": "Latitude must be a number"}
    if not -90 <= lat <= 90:
        return 400, {"error": True, "reason": f"Latitude must be in range of -90 to 90°. Given: {lat}."}
    if not -180 <= lon <= 180:
        return 400, {"error": True, "reason": f"Longitude must be in range of -180 to 180°. Given: {lon}."}
    if "hourly" in query:
        return air_quality_history(query)
    # The data's own time is the current hour at the place (UTC+1 here), as the live
    # service answers, so that a client's cache ("current until the next hour") works.
    local_hour = time.gmtime(time.time() + 3600)
    current = {
        "time": time.strftime("%Y-%m-%dT%H:00", local_hour), "interval": 3600, "us_aqi": 41, "pm10": 9.7, "pm2_5": 8.8,
        "carbon_monoxide": 220.0, "nitrogen_dioxide": 17.7, "sulphur_dioxide": 1.3, "ozone": 54.0,
        "us_aqi_pm2_5": 41, "us_aqi_pm10": 9, "us_aqi_nitrogen_dioxide": 9, "us_aqi_sulphur_dioxide": 1,
        "us_aqi_ozone": 25, "us_aqi_carbon_monoxide": 2, "european_aqi": 22, "european_aqi_pm2_5": 22,
        "european_aqi_pm10": 13, "european_aqi_nitrogen_dioxide": 15, "european_aqi_ozone": 18,
        "european_aqi_sulphur_dioxide": 1,
    }
    wanted = query.get("current", [""])[0].split(",")
    current = {k: v for k, v in current.items() if k in ("time", "interval") or k in wanted}
    for name in wanted:
        current.setdefault(name, None)  # unknown-to-us variables come back null, as the server does
    units = {"time": "iso8601", "interval": "seconds"}
    units.update({k: ("USAQI" if k.startswith("us_aqi") else "EAQI" if k.startswith("european_aqi") else
                      "grains/m³" if k.endswith("_pollen") else "μg/m³") for k in current if k not in units})
    return 200, {
        "latitude": round(round(lat / 0.1) * 0.1 + 0.05, 6), "longitude": round(round(lon / 0.1) * 0.1, 6),
        "generationtime_ms": 0.17, "utc_offset_seconds": 3600, "timezone": "Europe/Berlin",
        "timezone_abbreviation": "CET", "elevation": 38.0, "current_units": units, "current": current,
    }


def air_quality_history(query):
    """The hourly series a logger asks for to back-fill (start_hour..end_hour, GMT): US AQI
    100 + the hour of day, PM2.5 a tenth of it; before 2013 the service's 400."""
    import datetime
    try:
        start = datetime.datetime.strptime(query["start_hour"][0], "%Y-%m-%dT%H:%M")
        end = datetime.datetime.strptime(query["end_hour"][0], "%Y-%m-%dT%H:%M")
    except (KeyError, ValueError):
        return 400, {"error": True, "reason": "Parameter 'start_hour' is invalid"}
    if start.year < 2013:
        return 400, {"error": True, "reason": "Parameter 'start_date' is out of allowed range from 2013-01-01 to 2026-12-07"}
    times, aqi, pm25 = [], [], []
    hour = start
    while hour <= end:
        times.append(hour.strftime("%Y-%m-%dT%H:%M"))
        aqi.append(100 + hour.hour)
        pm25.append((100 + hour.hour) / 10)
        hour += datetime.timedelta(hours=1)
    return 200, {"latitude": 52.549995, "longitude": 13.400002, "utc_offset_seconds": 0, "timezone": "GMT",
                 "hourly_units": {"time": "iso8601", "us_aqi": "USAQI", "pm2_5": "μg/m³"},
                 "hourly": {"time": times, "us_aqi": aqi, "pm2_5": pm25}}


WEEK_WOBBLE = [-0.6, -0.3, 0.0, 0.3, 0.6, 0.3, -0.3]


def archive(query):
    """ERA5 daily means (reference/open-meteo.md, archive): a smooth seasonal curve with
    a wobble, exactly 1.8 °C warmer from 2025 on over any 7 days (the "trend" a test can
    assert on any date), and null for the last 5 days before today, as the archive lags."""
    try:
        start = datetime.date.fromisoformat(query["start_date"][0])
        end = datetime.date.fromisoformat(query["end_date"][0])
        float(query["latitude"][0]), float(query["longitude"][0])
    except (KeyError, ValueError):
        return 400, {"error": True, "reason": "Parameter 'start_date' is invalid or missing"}
    if query.get("daily", [""])[0] != "temperature_2m_mean":
        return 400, {"error": True, "reason": "Data corrupted at path ''. Cannot initialize Variable from invalid String value"}
    if end < start or start < datetime.date(1940, 1, 1):
        return 400, {"error": True, "reason": f"Parameter 'start_date' is out of allowed range from 1940-01-01 to {datetime.date.today()}"}
    lag = datetime.date.today() - datetime.timedelta(days=5)
    times, values = [], []
    day = start
    while day <= end:
        times.append(day.isoformat())
        if day > lag:
            values.append(None)
        else:
            # The calendar day, not the day of the year: leap years must not shift the normals.
            doy = datetime.date(2001, day.month, min(day.day, 28) if day.month == 2 else day.day).timetuple().tm_yday
            value = 10 + 10 * math.sin(2 * math.pi * (doy - 110) / 365.25)
            if day.year >= 2025:  # recent: 1.8 warmer; the wobble sums to 0 over any 7 days
                value += 1.8 + WEEK_WOBBLE[day.toordinal() % 7]
            elif not (day.month == 2 and day.day == 29):  # baseline: the wobble cancels over
                value += ((day.year * 7 + doy) % 5 - 2) * 0.3  # the 30 years of each calendar day
            values.append(value)
        day += datetime.timedelta(days=1)
    return 200, {"latitude": 52.5, "longitude": 13.5, "generationtime_ms": 12.0, "utc_offset_seconds": 3600,
                 "timezone": "Europe/Berlin", "timezone_abbreviation": "CET", "elevation": 38.0,
                 "daily_units": {"time": "iso8601", "temperature_2m_mean": "°C"},
                 "daily": {"time": times, "temperature_2m_mean": values}}


def geocoding(query):
    name = query.get("name", [""])[0].lower()
    if name.startswith("ber"):
        return 200, {"results": [{
            "id": 2950159, "name": "Berlin", "latitude": 52.52437, "longitude": 13.41053, "elevation": 74.0,
            "feature_code": "PPLC", "country_code": "DE", "admin1_id": 2950157, "timezone": "Europe/Berlin",
            "population": 3426354, "country_id": 2921044, "country": "Germany", "admin1": "Land Berlin"}],
            "generationtime_ms": 0.5}
    if name.startswith("zzyzx"):  # a place below the offline data's population cut
        return 200, {"results": [{
            "id": 5409851, "name": "Zzyzx", "latitude": 35.14331, "longitude": -116.10446, "elevation": 283.0,
            "feature_code": "PPL", "country_code": "US", "admin1_id": 5332921, "timezone": "America/Los_Angeles",
            "country_id": 6252001, "country": "United States", "admin1": "California"}],
            "generationtime_ms": 0.4}
    return 200, {"generationtime_ms": 0.2}


# Zippopotam.us: the answers in reference/postal-and-ip.md. DE 39167 is the Hohe Börde
# area with its eight villages (names and points from GeoNames' postal data, the service's
# own source); the reference records only that there are eight.
ZIPPOPOTAM = {
    "/us/90210": {"post code": "90210", "country": "United States", "country abbreviation": "US", "places": [
        {"place name": "Beverly Hills", "longitude": "-118.4065", "state": "California",
         "state abbreviation": "CA", "latitude": "34.0901"}]},
    "/us/84321": {"post code": "84321", "country": "United States", "country abbreviation": "US", "places": [
        {"place name": "Logan", "longitude": "-111.8226", "state": "Utah", "state abbreviation": "UT",
         "latitude": "41.747"}]},
    "/de/39167": {"post code": "39167", "country": "Germany", "country abbreviation": "DE", "places": [
        {"place name": name, "longitude": lon, "state": "Sachsen-Anhalt", "state abbreviation": "ST",
         "latitude": lat} for name, lat, lon in [
            ("Eichenbarleben", "52.1667", "11.4"), ("Groß Santersleben", "52.1833", "11.45"),
            ("Hermsdorf", "52.2", "11.5"), ("Hohenwarsleben", "52.1833", "11.4833"),
            ("Irxleben", "52.1667", "11.4833"), ("Niederndodeleben", "52.1333", "11.5"),
            ("Ochtmersleben", "52.1667", "11.4"), ("Wellen", "52.1333", "11.4333")]]},
    "/gb/sw1a": {"post code": "SW1A", "country": "Great Britain", "country abbreviation": "GB", "places": [
        {"place name": "London", "longitude": "-0.1404", "state": "England", "state abbreviation": "ENG",
         "latitude": "51.5018"}]},
}


def zippopotam(path):
    body = ZIPPOPOTAM.get(path.lower())
    return (200, body) if body else (404, {})


# IP geolocation, one shape per service (reference/postal-and-ip.md). The address is from
# the documentation range; the position is central Berlin, as a city-level service says.
def ipwhois(query):
    return 200, {"ip": "192.0.2.10", "success": True, "type": "IPv4", "continent": "Europe",
                 "country": "Germany", "country_code": "DE", "region": "Land Berlin", "region_code": "BE",
                 "city": "Berlin", "latitude": 52.5200066, "longitude": 13.404954, "postal": "10178",
                 "timezone": {"id": "Europe/Berlin", "abbr": "CET", "utc": "+01:00"}}


def ipinfo(query):
    return 200, {"ip": "192.0.2.10", "city": "Berlin", "region": "Berlin", "country": "DE",
                 "loc": "52.5244,13.4105", "postal": "10178", "timezone": "Europe/Berlin"}


def ipapi(query):  # ipapi.co; ip-api.com shares the path, tests give its shape as a fault body
    return 200, {"ip": "192.0.2.10", "city": "Berlin", "region": "Land Berlin", "region_code": "BE",
                 "country_code": "DE", "country_name": "Germany", "postal": "10178",
                 "latitude": 52.5196, "longitude": 13.4069, "timezone": "Europe/Berlin"}


ROUTES = {"/v1/air-quality": air_quality, "/v1/archive": archive, "/v1/search": geocoding, "/": ipwhois, "/json": ipinfo, "/json/": ipapi}


def take_fault(path):
    with LOCK:
        for fault in FAULTS:
            if fault.get("path") in (path, "*") and fault.get("times", 1) != 0:
                if "times" in fault:
                    fault["times"] -= 1
                return dict(fault)
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: tests read stdout/stderr
        pass

    def send_body(self, status, body, mode=None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        if mode == "truncate":  # a complete HTTP answer whose JSON stops half-way
            data = data[: len(data) // 2]
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if mode == "cut":  # the connection drops mid-body
            self.wfile.write(data[: len(data) // 2])
            self.close_connection = True
            return
        self.wfile.write(data)

    def do_GET(self):
        parts = urlsplit(self.path)
        if parts.path == "/__requests":
            with LOCK:
                return self.send_body(200, list(REQUESTS))
        with LOCK:
            REQUESTS.append({"method": "GET", "path": parts.path, "query": parts.query})
        fault = take_fault(parts.path)
        if fault and fault.get("delay"):
            time.sleep(float(fault["delay"]))
        if fault and fault.get("mode") == "close":
            self.close_connection = True
            return
        handler = ROUTES.get(parts.path or "/")
        if re.fullmatch(r"/[a-z]{2}/[^/]+", parts.path):
            status, body = zippopotam(parts.path)
        else:
            status, body = handler(parse_qs(parts.query)) if handler else (404, {})
        if fault and "status" in fault:
            status = int(fault["status"])
            reason = fault.get("reason")
            if "body" in fault:
                body = fault["body"].encode() if isinstance(fault["body"], str) else fault["body"]
            elif status == 429:
                body = {"error": True, "reason": RATE_LIMIT_REASONS.get(reason, reason or RATE_LIMIT_REASONS["minutely"])}
            elif status == 503:
                body = {"error": True, "reason": reason or "The service is overloaded"}
            elif status >= 400:
                body = {"error": True, "reason": reason or "Injected failure"}
        if fault and fault.get("mode") == "garbage":
            body = b"<html><body>502 Bad Gateway</body></html>"
        self.send_body(status, body, mode=fault.get("mode") if fault else None)

    def do_POST(self):
        if self.path != "/__fault":
            return self.send_body(404, {})
        length = int(self.headers.get("Content-Length", "0"))
        try:
            fault = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            return self.send_body(400, {"error": True, "reason": "fault must be JSON"})
        with LOCK:
            FAULTS.append(fault)
        self.send_body(200, {"ok": True})

    def do_DELETE(self):
        with LOCK:
            FAULTS.clear()
        self.send_body(200, {"ok": True})


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fault", action="append", default=[], help="a fault as JSON (repeatable)")
    args = parser.parse_args()
    for text in args.fault:
        FAULTS.append(json.loads(text))
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
