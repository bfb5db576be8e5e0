#!/usr/bin/env python3
"""A local stand-in for the servers airloc uploads to, each parsing a request as the real
server does (../shared/reference/air-sensors.md, "Community servers"; the servers' own
decoders), for tests. It listens on 127.0.0.1 only.

  /owntracks/pub                      OwnTracks Recorder's HTTP endpoint: one JSON object
                                      per POST, Basic auth; `_type`, `lat`, `lon`, `tst`
                                      required for a location; answers [] (200).
  /traccar/                           Traccar's OsmAnd protocol (port 5055 on a real
                                      server): GET or POST, parameters in the query or a
                                      form body; `id` must be a known device (else 400);
                                      `timestamp` in epoch s, ms or ISO 8601; `speed` in
                                      knots. Without lat/lon: a status report, no position.
  /sensor-community/v1/push-sensor-data/
                                      sensor.community: X-Sensor and X-Pin headers, a
                                      JSON body with `sensordatavalues`; 201.
  /opensensemap/boxes/<box>/data      openSenseMap: a JSON array of measurements
                                      (`sensor`, `value`, `createdAt` in UTC with Z and at
                                      most milliseconds, `location`); the box's token in
                                      Authorization; 401 for a wrong token, 404 for an
                                      unknown box, 422 for a bad measurement, else 201.

Usage:
  upload-double.py [--port N] [--user U --password P] [--traccar-id ID]...
                   [--box ID --token T --sensor ID]... [--fault JSON]...

--port 0 (default) picks a free port; the first line on stdout is "PORT <n>".
A fault is JSON: {"path": "/traccar/", "status": 503, "retry_after": "2", "times": 3,
"delay": 1.5, "mode": "close"} ("path" a prefix; "*" for any). Control endpoints:
  GET    /__received   what each server stored: {"owntracks": [...], "traccar": [...],
                       "sensor_community": [...], "opensensemap": [...]}, plus
                       "attempts": every request's path and status
  POST   /__fault      add a fault;  DELETE /__fault  remove them
"""
import argparse
import base64
import datetime
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LOCK = threading.Lock()
FAULTS = []
STORED = {"owntracks": [], "traccar": [], "sensor_community": [], "opensensemap": [], "attempts": []}
CONFIG = {}


def take_fault(path):
    with LOCK:
        for fault in FAULTS:
            prefix = fault.get("path", "*")
            if (prefix == "*" or path.startswith(prefix)) and fault.get("times", 1) != 0:
                if "times" in fault:
                    fault["times"] -= 1
                return dict(fault)
    return None


def traccar_time(text):
    """Traccar's OsmAnd decoder: epoch seconds, epoch milliseconds, or ISO 8601."""
    if re.fullmatch(r"\d+(\.\d+)?", text):
        value = float(text)
        return value / 1000 if value > 1e11 else value
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def owntracks(handler, body):
    expected = "Basic " + base64.b64encode(f"{CONFIG['user']}:{CONFIG['password']}".encode()).decode()
    if handler.headers.get("Authorization") != expected:
        return 401, {"error": "unauthorized"}
    if body is None:  # a GET: the Recorder's endpoint takes POSTs only
        return 405, {"error": "method not allowed"}
    try:
        message = json.loads(body)
    except json.JSONDecodeError:
        return 400, {"error": "not JSON"}
    if not isinstance(message, dict) or message.get("_type") != "location":
        return 200, []  # other types are accepted and not stored as positions
    for key in ("lat", "lon", "tst"):
        if not isinstance(message.get(key), (int, float)) or isinstance(message.get(key), bool):
            return 400, {"error": f"{key} missing"}
    message["_user"] = handler.headers.get("X-Limit-U")
    message["_device"] = handler.headers.get("X-Limit-D")
    with LOCK:
        STORED["owntracks"].append(message)
    return 200, []


def traccar(handler, query, body):
    params = {k: v[0] for k, v in parse_qs(query).items()}
    if body:
        params.update({k: v[0] for k, v in parse_qs(body.decode()).items()})
    device = params.get("id") or params.get("deviceid")
    if device not in CONFIG["traccar_ids"]:
        return 400, b""  # Traccar answers an unknown device with 400 Bad Request
    if "lat" not in params or "lon" not in params:
        return 200, b""  # a status report: the device is online, no position stored
    try:
        position = {
            "id": device, "lat": float(params.pop("lat")), "lon": float(params.pop("lon")),
            "time": traccar_time(params.pop("timestamp")) if "timestamp" in params else time.time(),
            "speed_knots": float(params.pop("speed")) if "speed" in params else None,
        }
    except ValueError as error:
        return 400, str(error).encode()
    params.pop("id", None)
    position["attributes"] = params  # every other key becomes a position attribute
    with LOCK:
        STORED["traccar"].append(position)
    return 200, b""


def sensor_community(handler, body):
    sensor = handler.headers.get("X-Sensor", "")
    pin = handler.headers.get("X-Pin", "")
    if not sensor.startswith("raspi-") or pin not in ("1", "7", "9", "11"):
        return 400, {"error": "X-Sensor raspi-<id> and X-Pin are required"}
    try:
        message = json.loads(body or b"")
        values = {v["value_type"]: v["value"] for v in message["sensordatavalues"]}
    except (json.JSONDecodeError, KeyError, TypeError):
        return 400, {"error": "sensordatavalues missing"}
    if any(not isinstance(v, str) for v in values.values()):
        return 400, {"error": "values are strings"}
    # airrohr's GPS pin sends lat, lon and height; the height is optional here, since a
    # station that does not know its altitude leaves it out rather than send a made-up 0.
    expected = {"1": {"P1", "P2"}, "9": {"lat", "lon"}}.get(pin)
    if expected and not expected.issubset(values):
        return 400, {"error": f"pin {pin} needs {sorted(expected)}"}
    with LOCK:
        STORED["sensor_community"].append({"sensor": sensor, "pin": pin, "values": values,
                                           "software_version": message.get("software_version")})
    return 201, {"ok": True}


def opensensemap(handler, path, body):
    match = re.fullmatch(r"/opensensemap/boxes/([^/]+)/data", path)
    if not match:
        return 404, {"code": "NotFound"}
    if match.group(1) != CONFIG["box"]:
        return 404, {"code": "NotFound", "message": "Box not found"}
    if handler.headers.get("Authorization") != CONFIG["token"]:
        return 401, {"code": "Unauthorized", "message": "Box access token not valid!"}
    try:
        measurements = json.loads(body or b"")
    except json.JSONDecodeError:
        return 422, {"code": "UnprocessableEntity", "message": "not JSON"}
    if not isinstance(measurements, list):
        return 422, {"code": "UnprocessableEntity", "message": "expected an array"}
    kept = []
    for m in measurements:
        created = m.get("createdAt", "") if isinstance(m, dict) else ""
        # UTC with Z, at most milliseconds (RFC 3339), as the API validates it.
        if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z", created):
            return 422, {"code": "UnprocessableEntity", "message": f"invalid createdAt {created!r}"}
        if m.get("sensor") not in CONFIG["sensors"]:
            return 422, {"code": "UnprocessableEntity", "message": f"unknown sensor {m.get('sensor')!r}"}
        try:
            float(m["value"])
        except (KeyError, TypeError, ValueError):
            return 422, {"code": "UnprocessableEntity", "message": "value must be a number"}
        location = m.get("location")
        if location is not None and not (
                (isinstance(location, list) and len(location) in (2, 3)) or
                (isinstance(location, dict) and "lat" in location and ("lng" in location or "lon" in location))):
            return 422, {"code": "UnprocessableEntity", "message": "invalid location"}
        kept.append(m)
    with LOCK:
        STORED["opensensemap"].extend(kept)
    return 201, b"Measurements saved in box"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body, retry_after=None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if not isinstance(body, bytes) else "text/plain")
        self.send_header("Content-Length", str(len(data)))
        if retry_after is not None:
            self.send_header("Retry-After", str(retry_after))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self, method):
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length", "0") or 0)
        body = self.rfile.read(length) if method == "POST" else None
        if parts.path == "/__received":
            with LOCK:
                return self.answer(200, STORED)
        if parts.path == "/__fault":
            if method == "DELETE":
                with LOCK:
                    FAULTS.clear()
            else:
                with LOCK:
                    FAULTS.append(json.loads(body or b"{}"))
            return self.answer(200, {"ok": True})
        fault = take_fault(parts.path)
        if fault and fault.get("delay"):
            time.sleep(float(fault["delay"]))
        if fault and fault.get("mode") == "close":
            self.close_connection = True
            return
        if fault and "status" in fault:
            status, reply = int(fault["status"]), {"error": "injected"}
        elif parts.path.startswith("/owntracks/pub"):
            status, reply = owntracks(self, body)
        elif parts.path.startswith("/traccar"):
            status, reply = traccar(self, parts.query, body)
        elif parts.path.startswith("/sensor-community/v1/push-sensor-data"):
            status, reply = sensor_community(self, body) if method == "POST" else (200, {"ok": True})
        elif parts.path.startswith("/opensensemap"):
            status, reply = opensensemap(self, parts.path, body) if method == "POST" else (200, {"ok": True})
        else:
            status, reply = 404, {"error": "no such server"}
        with LOCK:
            STORED["attempts"].append({"method": method, "path": parts.path, "status": status})
        self.answer(status, reply, retry_after=fault.get("retry_after") if fault else None)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_DELETE(self):
        self.handle_any("DELETE")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--user", default="owner")
    parser.add_argument("--password", default="secret")
    parser.add_argument("--traccar-id", action="append", default=[])
    parser.add_argument("--box", default="5f0000000000000000000001")
    parser.add_argument("--token", default="box-token")
    parser.add_argument("--sensor", action="append", default=[])
    parser.add_argument("--fault", action="append", default=[])
    args = parser.parse_args()
    CONFIG.update(user=args.user, password=args.password, traccar_ids=set(args.traccar_id), box=args.box,
                  token=args.token, sensors=set(args.sensor))
    FAULTS.extend(json.loads(text) for text in args.fault)
    # A real server's accept queue (the default of 5 refuses a burst of new connections).
    ThreadingHTTPServer.request_queue_size = 128
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
