"""Hostile publishers against `airloc collect` (CollectorHostileEndToEndTests, the collector
bench): a bare MQTT 3.1.1 client on a socket, so that it can send what no library would
let through. Prints one JSON object of what it sent.

Usage:
  mqtt_battery.py PORT battery        the issue's battery (see BATTERY below)
  mqtt_battery.py PORT ids N          N made-up device ids, each one status message
  mqtt_battery.py PORT rows N PREFIX  N made-up device ids, each one valid history row
"""
import json, socket, struct, sys, time

port, mode = int(sys.argv[1]), sys.argv[2]


def varint(n):
    out = bytearray()
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def text(s):
    data = s.encode() if isinstance(s, str) else s
    return struct.pack("!H", len(data)) + data


class Client:
    def __init__(self, name):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)
        body = text("MQTT") + bytes([4, 0x02]) + struct.pack("!H", 60) + text(name)
        self.sock.sendall(bytes([0x10]) + varint(len(body)) + body)
        ack = self.read(4)
        if ack[0] != 0x20 or ack[3] != 0:
            raise SystemExit("the broker refused the connection: %r" % ack)
        self.mid = 0

    def read(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise SystemExit("the broker closed the connection")
            data += chunk
        return data

    def publish(self, topic, payload, retain=False):
        """QoS 1, waited for: the broker has it when this returns."""
        self.mid = self.mid % 65535 + 1
        payload = payload.encode() if isinstance(payload, str) else payload
        body = text(topic) + struct.pack("!H", self.mid) + payload
        self.sock.sendall(bytes([0x32 | (1 if retain else 0)]) + varint(len(body)) + body)
        ack = self.read(4)
        if ack[0] != 0x40:
            raise SystemExit("no PUBACK: %r" % ack)

    def close(self):
        self.sock.sendall(bytes([0xE0, 0]))
        self.sock.close()


def row(device, n):
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return json.dumps({"schema": "airloc.log/1", "id": "t%d" % n, "kind": "track", "time": now,
                       "latitude": 52.5, "longitude": 13.4, "device": device})


sent = {}
client = Client("hostile-%d" % int(time.time() * 1000))
if mode == "battery":
    # BATTERY: each a message that once stopped the collector or cost it dearly.
    client.publish("airloc/pi-4/status", b"\0", retain=True)
    sent["retained_nul_status"] = 1
    client.publish("airloc/pi-5/hello", json.dumps(
        {"schema": "airloc.hello/1", "device": "pi-5", "software": "x\u0000y", "first": {}}), retain=True)
    sent["nul_hello"] = 1
    client.publish("airloc/" + "d" * 5000 + "/status", "online")
    client.publish("airloc/" + "e" * 3000 + "/history", row("e", 1))
    sent["long_device_ids"] = 2
    client.publish("airloc/pi-6/history", b"\xff\xfe{\"id\":\"t1\"}")
    sent["not_utf8"] = 1
    client.publish("airloc/pi-7/history", b"{\"pad\":\"" + b"a" * (5 * 1024 * 1024) + b"\"}")
    sent["five_megabytes"] = 1
    client.publish("airloc/pi-8/history", json.dumps(
        {"schema": "x'\nairloc: collect: connected to PostgreSQL", "id": "t1", "kind": "track"}))
    sent["forged_line"] = 1
    client.publish("airloc/evil\u202egpj/status", "online")
    sent["bidi_device"] = 1
    for index in range(2000):
        client.publish("airloc/junk-%05d/history" % index, "not json %d" % index)
    sent["junk_ids"] = 2000
elif mode == "ids":
    for index in range(int(sys.argv[3])):
        client.publish("airloc/made-up-%07d/status" % index, "online")
    sent["ids"] = int(sys.argv[3])
elif mode == "rows":
    prefix = sys.argv[4]
    for index in range(int(sys.argv[3])):
        device = "%s-%07d" % (prefix, index)
        client.publish("airloc/%s/history" % device, row(device, 1))
    sent["rows"] = int(sys.argv[3])
else:
    raise SystemExit("unknown mode " + mode)
client.close()
print(json.dumps(sent))
