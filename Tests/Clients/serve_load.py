"""Hostile clients against `airloc serve` beside a normal one (ServeUnderAttackEndToEndTests).

Usage: serve_load.py PORT PASSWORD ATTACK SECONDS   (PASSWORD "-": none)

The attacker connects from 127.0.0.2 (another host on the network, as loopback lets a test
have one); the normal client, from 127.0.0.1, asks /api/now about five times a second and
/api/status once a second for SECONDS, authenticated when a password is set. ATTACK is one of
  streams  70 clients GET /api/events and never read
  slow     300 sockets, each trickling one byte of a request head every 2 s, reconnecting
           whenever the server cuts it off
  heavy    8 clients pulling /api/track over 1970-2100, following every next page, again
           and again
  figures  128 clients from 8 addresses (127.0.0.2-9) asking /day.svg at ever other widths,
           again and again
Prints one JSON object: the normal client's latencies (s; a failure counts as 1e9), the
logbook's track rows as /api/status said them over time, and what the attacker saw."""
import base64, json, socket, sys, threading, time

port, password, attack, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
auth = "" if password == "-" else "Authorization: Basic " + base64.b64encode(("airloc:" + password).encode()).decode() + "\r\n"
ATTACKER = ("127.0.0.2", 0)
stop = threading.Event()
seen = {"attack": {}}
lock = threading.Lock()


def count(key, n=1):
    with lock:
        seen["attack"][key] = seen["attack"].get(key, 0) + n


def request(path, source=None, timeout=10):
    """One GET on a connection of its own: (status, body)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=source)
    try:
        s.sendall(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + auth + "\r\n").encode())
        data = b""
        while True:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    line = head.split(b"\r\n", 1)[0].decode(errors="replace")
    status = int(line.split()[1]) if line.startswith("HTTP/") else 0
    if b"transfer-encoding: chunked" in head.lower():
        body = unchunk(body)
    return status, head.decode(errors="replace"), body


def unchunk(body):
    out, rest = b"", body
    while rest:
        size, _, rest = rest.partition(b"\r\n")
        n = int(size.split(b";")[0] or b"0", 16)
        if n == 0:
            break
        out, rest = out + rest[:n], rest[n + 2:]
    return out


def streams():
    held = []
    for _ in range(70):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=ATTACKER)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(("GET /api/events HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n").encode())
            held.append(s)
            count("opened")
        except OSError:
            count("refused")
    count("started")
    stop.wait()
    for s in held:
        s.close()


def slow_one():
    head = ("GET /api/now HTTP/1.1\r\nHost: x\r\nX-Slow: " + "b" * 4000).encode()
    begun = False
    while not stop.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=ATTACKER)
            count("connections")
        except OSError:
            count("refused")
            s = None
        if not begun:
            begun = True
            count("started")
        if s is None:
            stop.wait(2)
            continue
        try:
            for byte in head:
                s.sendall(bytes([byte]))
                if stop.wait(2):
                    break
                s.setblocking(False)
                try:
                    if s.recv(1) == b"":
                        count("cut_off")
                        break
                except BlockingIOError:
                    pass
                finally:
                    s.setblocking(True)
        except OSError:
            count("cut_off")
        finally:
            s.close()


def heavy_one():
    count("started")
    while not stop.is_set():
        path = "/api/track?since=1970-01-01T00:00:00Z&until=2100-01-01T00:00:00Z"
        while path and not stop.is_set():
            try:
                status, head, body = request(path, source=ATTACKER, timeout=60)
            except OSError:
                count("failed")
                break
            count("pages")
            count("bytes", len(body))
            try:
                path = json.loads(body).get("next") if status == 200 else None
            except ValueError:
                count("not_json")
                path = None


def figures_one(index):
    source = ("127.0.0.%d" % (2 + index % 8), 0)
    count("started")
    width = 200 + index * 7
    while not stop.is_set():
        width = 200 + (width + 53) % 1400
        try:
            status, _, _ = request("/day.svg?width=%d" % width, source=source, timeout=60)
            count("status_%d" % status)
        except OSError:
            count("failed")


workers = {
    "streams": [streams], "slow": [slow_one] * 300, "heavy": [heavy_one] * 8,
    "figures": [lambda i=i: figures_one(i) for i in range(128)],
}[attack]
threads = [threading.Thread(target=w, daemon=True) for w in workers]
for t in threads:
    t.start()
# The attack takes hold before the normal client measures: every worker has begun.
ready = time.monotonic() + 60
while seen["attack"].get("started", 0) < len(threads) and time.monotonic() < ready:
    time.sleep(0.05)
latencies, rows = [], []
end = time.monotonic() + seconds
turn = 0
while time.monotonic() < end:
    started = time.monotonic()
    try:
        status, _, body = request("/api/status" if turn % 5 == 0 else "/api/now", timeout=10)
        took = time.monotonic() - started if status == 200 else 1e9
        if turn % 5 == 0 and status == 200:
            rows.append([time.time(), json.loads(body).get("track_rows", 0)])
    except (OSError, ValueError):
        took = 1e9
    if turn % 5 != 0:
        latencies.append(took)
    turn += 1
    time.sleep(0.2)
stop.set()
seen["latencies"] = latencies
seen["rows"] = rows
print(json.dumps(seen))
