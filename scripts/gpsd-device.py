#!/usr/bin/env python3
"""Waits until the gpsd that gpsfake started lists gpsfake's pty as its device.

    scripts/gpsd-device.py GPSFAKE_PID GPSD_PORT [SECONDS]

gpsfake tells gpsd about its pty once, as soon as gpsd's control socket file exists,
and drops the request silently when gpsd is not listening on it yet (gpsd binds, then
listens; a busy machine widens the gap): gpsd then runs with no device for ever. After
two seconds without one, this sends gpsd the "+/dev/pts/N" gpsfake meant to send (a
second one for a device gpsd has is harmless). Exit 0 when gpsd has the device, 69 when
it still has none after SECONDS (default 60).
"""
import os
import socket
import sys
import time


def devices(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
            connection.sendall(b"?DEVICES;\n")
            answer = b""
            deadline = time.monotonic() + 2
            while b'"class":"DEVICES"' not in answer and time.monotonic() < deadline:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                answer += chunk
            return b'"path":"' in answer
    except OSError:
        return False


def register(pid):
    control = os.path.join(os.environ.get("TMPDIR", "/tmp"), "gpsfake-%d.sock" % pid)
    ptys = []
    # The pty's slave side: the second one gpsfake opened (it first opens one only to see
    # that ptys work, and keeps it; until the second exists there is nothing to
    # register); not stdin/stdout/stderr (maybe the user's terminal).
    for descriptor in sorted(int(d) for d in os.listdir("/proc/%d/fd" % pid)):
        if descriptor <= 2:
            continue
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, descriptor))
        except OSError:
            continue
        if target.startswith("/dev/pts/"):
            ptys.append(target)
    if len(ptys) < 2 or not os.path.exists(control):
        return
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(1)
            connection.connect(control)
            connection.sendall(("+%s\r\n\0" % ptys[-1]).encode())
            connection.recv(12)
    except OSError:
        pass


def main():
    pid, port = int(sys.argv[1]), int(sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 60
    start = time.monotonic()
    registered = start
    while time.monotonic() - start < seconds:
        if devices(port):
            return 0
        if time.monotonic() - registered > 2:
            register(pid)
            registered = time.monotonic()
        time.sleep(0.1)
    print("Error: gpsd on port %d has no device from gpsfake after %d s" % (port, seconds), file=sys.stderr)
    return 69


if __name__ == "__main__":
    sys.exit(main())
