"""Hostile clients against `airloc serve` (ServeEndToEndTests): prints one JSON object
of what each saw. Usage: hostile_clients.py PORT PASSWORD"""
import base64, json, socket, sys, time

port, password = int(sys.argv[1]), sys.argv[2]
auth = "Authorization: Basic " + base64.b64encode(("airloc:" + password).encode()).decode() + "\r\n"
seen = {}


def connect():
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    return s


def ask(head):
    s = connect()
    s.sendall(head.encode())
    data = b""
    while True:
        try:
            chunk = s.recv(65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    s.close()
    line = data.split(b"\r\n", 1)[0].decode(errors="replace")
    return int(line.split()[1]) if line.startswith("HTTP/") else 0, data


def get(path, extra=auth):
    return ask("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + extra + "\r\n")


seen["post"] = ask("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nConnection: close\r\n" + auth + "\r\nabcd")[0]
seen["dotdot"] = get("/leaflet/../../../../etc/passwd")[0]
seen["no_password"] = get("/", extra="")[0]
seen["wrong_password"] = get("/", extra="Authorization: Basic " + base64.b64encode(b"airloc:nope").decode() + "\r\n")[0]
seen["head_9k"] = get("/", extra=auth + "X-Pad: " + "a" * 9000 + "\r\n")[0]
seen["head_100k"] = get("/", extra=auth + "X-Pad: " + "a" * 100000 + "\r\n")[0]
# The query string is part of the head: a 9 KB one is refused as a 9 KB header is.
seen["query_9k"] = get("/api/now?pad=" + "a" * 9000)[0]

# A client that trickles its head one byte at a time is cut off (the server closes it).
s = connect()
started = time.monotonic()
closed = False
for byte in "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + "b" * 200:
    try:
        s.sendall(byte.encode())
        s.settimeout(1)
        if s.recv(1) == b"":
            closed = True
            break
    except socket.timeout:
        continue
    except OSError:
        closed = True
        break
seen["trickle_closed"] = closed
seen["trickle_seconds"] = round(time.monotonic() - started, 1)
s.close()

# An event stream that is never read while the flood below goes on.
stream = connect()
stream.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
stream.sendall(("GET /api/events HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n").encode())

# 200 connections at once from another address, each sending half a head; then all
# dropped. The server takes 16 of them (its limit per address) and refuses the rest.
flood = []
for _ in range(200):
    try:
        c = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.2", 0))
        c.sendall(b"GET / HTTP/1.1\r\n")
        flood.append(c)
    except OSError:
        pass
seen["flood_opened"] = len(flood)
for c in flood:
    c.close()
status, body = get("/api/status")
seen["after_flood"] = status
seen["status_body"] = body.split(b"\r\n\r\n", 1)[-1].decode(errors="replace")
stream.close()
print(json.dumps(seen))
