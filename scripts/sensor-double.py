#!/usr/bin/env python3
"""A sensor on a pseudo-terminal, speaking the real protocol (the tests' and the demo's
stand-in for an SDS011, a Plantower PMS or a Sensirion SPS30; and for the CO2 sensors
mh-z19, senseair-s8 and scd30, which answer each request and never report on their own).

    sensor-double.py MODEL [--pm25 X] [--pm10 X] [--humidity X] [--temperature X]
                     [--co2 PPM] [--status N] [--fault F] [--link PATH] [--pm25-file PATH]
                     [--port PATH]

--status is the SenseAir S8's meter status word (IR1; 0x20 "out of range").
--port PATH: speak on that existing terminal (a virtual machine's serial port, which qemu
shows on the host as a pty) instead of a new pty; ends when the other side closes it.
--pm25-file: while that file holds a number, it is the PM2.5 of every reading from then
on (the air changes under a running logger).
Prints "DEVICE <path>" on stdout once the pty is ready (and makes PATH a symlink to it
with --link), then one line per command it understood ("CMD sleep", "CMD read", ...) and
"DATA n" per reading sent, flushed, so a test can wait for them. Frames follow
../shared/reference/air-sensors.md. Faults:
  corrupt      every reading with a wrong checksum
  corrupt-odd  every other reading with a wrong checksum (the rest are good)
  truncate     readings cut short
  corrupt-first=N  the first N readings with a wrong checksum, the rest good (a line
               noisy for a while: a reading's whole timeout, then clean)
  garbage      bytes that are never a frame, in place of every answer
  silent       reads commands, never answers
  vanish-after=N  closes the pty after N readings (an adapter pulled out)
Ends on SIGTERM (the test harness kills its process group).
"""
import os, select, signal, struct, sys, time, tty

args = sys.argv[1:]
if not args or args[0] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0 if args else 64)
model = args[0]
opts = {"pm25": 12.3, "pm10": 20.1, "humidity": 45.0, "temperature": 21.5, "co2": 800.0, "status": 0.0,
        "fault": "", "link": "", "pm25-file": "", "port": ""}
i = 1
while i < len(args):
    key = args[i].lstrip("-")
    if "=" in key:
        key, value = key.split("=", 1)
    else:
        i += 1
        value = args[i]
    opts[key] = value if key in ("fault", "link", "pm25-file", "port") else float(value)
    i += 1
fault = opts["fault"]
vanish_after = int(fault.split("=")[1]) if fault.startswith("vanish-after=") else None
corrupt_first = int(fault.split("=")[1]) if fault.startswith("corrupt-first=") else 0

if opts["port"]:
    # qemu's side of the line: the guest's UART, whatever speed the guest sets.
    path = opts["port"]
    master = os.open(path, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(master)
    slave = None
else:
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
if opts["link"]:
    try:
        os.unlink(opts["link"])
    except FileNotFoundError:
        pass
    os.symlink(path, opts["link"])
print("DEVICE", path, flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

CO2_MODELS = ("mh-z19", "senseair-s8", "scd30")
state = {"awake": True, "active": model in ("sds011",) or model.startswith("pms"), "measuring": model != "sps30",
         "readings": 0, "answered": 0}


def say(line):
    print(line, flush=True)


def send(data):
    if fault == "silent":
        return
    if fault == "garbage":
        data = bytes((0x10 + (b * 7) % 0x60) for b in range(len(data)))  # never a header byte
    os.write(master, data)


def reading_sent(asked=True):
    state["readings"] += 1
    say("DATA %d" % state["readings"])
    if asked:
        state["answered"] += 1
    # Only readings a client asked for count: a client not there yet cannot see it vanish.
    if vanish_after is not None and state["answered"] >= vanish_after:
        say("VANISH")
        os.close(master)
        if slave is not None:
            os.close(slave)
        time.sleep(3600)


def spoil(frame, index):
    if fault == "corrupt" or (fault == "corrupt-odd" and index % 2 == 1) or index < corrupt_first:
        frame = bytearray(frame)
        frame[len(frame) // 2] ^= 0x01
        return bytes(frame)
    if fault == "truncate":
        return frame[: len(frame) // 2]
    return frame


def refresh():
    if not opts["pm25-file"]:
        return
    try:
        with open(opts["pm25-file"]) as f:
            opts["pm25"] = float(f.read().strip())
    except (OSError, ValueError):
        pass


# --- SDS011 -------------------------------------------------------------------------
def sds_data():
    refresh()
    p25, p10 = int(round(opts["pm25"] * 10)), int(round(opts["pm10"] * 10))
    body = bytes([p25 & 0xFF, p25 >> 8, p10 & 0xFF, p10 >> 8, 0xA1, 0x60])
    return bytes([0xAA, 0xC0]) + body + bytes([sum(body) & 0xFF, 0xAB])


def sds_reply(cmd, d1=0, d2=0, d3=0):
    body = bytes([cmd, d1, d2, d3, 0xA1, 0x60])
    return bytes([0xAA, 0xC5]) + body + bytes([sum(body) & 0xFF, 0xAB])


def sds_command(frame):
    if len(frame) != 19 or sum(frame[2:17]) & 0xFF != frame[17]:
        say("BAD command")
        return
    cmd, d1, d2 = frame[2], frame[3], frame[4]
    if cmd == 0x02:
        state["active"] = d2 == 0 if d1 == 1 else state["active"]
        say("CMD " + ("active" if state["active"] else "query-mode"))
        send(sds_reply(0x02, d1, 0 if state["active"] else 1))
    elif cmd == 0x04:
        say("CMD read")
        if state["awake"]:
            send(spoil(sds_data(), state["readings"]))
            reading_sent()
    elif cmd == 0x06:
        if d1 == 1:
            state["awake"] = d2 == 1
            say("CMD " + ("wake" if state["awake"] else "sleep"))
        send(sds_reply(0x06, d1, 1 if state["awake"] else 0))
    elif cmd == 0x08:
        say("CMD period %d" % d2)
        send(sds_reply(0x08, d1, d2))
    elif cmd == 0x07:
        say("CMD firmware")
        send(sds_reply(0x07, 18, 11, 16))


# --- Plantower -----------------------------------------------------------------------
def pms_data():
    refresh()
    p25 = int(round(opts["pm25"]))
    p10 = int(round(opts["pm10"]))
    cf1 = int(round(opts["pm25"] * 1.5))
    values = [p25 // 2, cf1, p10, p25 // 2, p25, p10, 900, 300, 80, 20, 5, 1, 0]
    if model == "pms5003t":
        values[9] = int(round(opts["temperature"] * 10))
        values[10] = int(round(opts["humidity"] * 10))
    frame = bytes([0x42, 0x4D, 0, 28]) + b"".join(struct.pack(">H", v & 0xFFFF) for v in values)
    return frame + struct.pack(">H", sum(frame) & 0xFFFF)


def pms_command(frame):
    if len(frame) != 7 or sum(frame[:5]) != (frame[5] << 8 | frame[6]):
        say("BAD command")
        return
    cmd, data = frame[2], frame[4]
    if cmd == 0xE1:
        state["active"] = data == 1
        say("CMD " + ("active" if state["active"] else "passive"))
    elif cmd == 0xE2:
        say("CMD read")
        if state["awake"]:
            send(spoil(pms_data(), state["readings"]))
            reading_sent()
    elif cmd == 0xE4:
        state["awake"] = data == 1
        say("CMD " + ("wake" if state["awake"] else "sleep"))


# --- SPS30 (SHDLC) --------------------------------------------------------------------
STUFF = {0x7E: 0x5E, 0x7D: 0x5D, 0x11: 0x31, 0x13: 0x33}


def shdlc(cmd, data, status=0):
    body = bytes([0, cmd, status, len(data)]) + data
    body += bytes([~sum(body) & 0xFF])
    out = bytearray([0x7E])
    for b in body:
        out += bytes([0x7D, STUFF[b]]) if b in STUFF else bytes([b])
    return bytes(out + b"\x7E")


def sps_values():
    refresh()
    p25, p10 = opts["pm25"], opts["pm10"]
    floats = [p25 * 0.6, p25, (p25 + p10) / 2, p10, 30.0, 40.0, 45.0, 46.0, 46.5, 0.6]
    return b"".join(struct.pack(">f", f) for f in floats)


def sps_command(body):
    cmd = body[1]
    if cmd == 0x00:
        state["measuring"] = True
        say("CMD start")
        send(shdlc(0x00, b""))
    elif cmd == 0x01:
        state["measuring"] = False
        say("CMD stop")
        send(shdlc(0x01, b""))
    elif cmd == 0x03:
        say("CMD read")
        if state["awake"] and state["measuring"]:
            send(spoil(shdlc(0x03, sps_values()), state["readings"]))
            reading_sent()
        elif state["awake"]:
            send(shdlc(0x03, b""))
    elif cmd == 0x10:
        state["awake"] = False
        say("CMD sleep")
        send(shdlc(0x10, b""))
    elif cmd == 0x11:
        state["awake"] = True
        say("CMD wake")
        send(shdlc(0x11, b""))
    elif cmd == 0xD0:
        say("CMD serial")
        send(shdlc(0xD0, b"DOUBLE0001\x00"))
    else:
        send(shdlc(cmd, b"", status=0x43))


def unstuff(raw):
    out, escape = bytearray(), False
    for b in raw:
        if escape:
            out.append({v: k for k, v in STUFF.items()}.get(b, 0))
            escape = False
        elif b == 0x7D:
            escape = True
        else:
            out.append(b)
    return bytes(out)


# --- CO2: MH-Z19 (9-byte frames), SenseAir S8 and SCD30 (Modbus RTU) --------------------
def mhz19_checksum(frame):
    return (0xFF - (sum(frame[1:8]) & 0xFF) + 1) & 0xFF


def mhz19_command(frame):
    if frame[1] != 0x01 or mhz19_checksum(frame) != frame[8]:
        say("BAD command")
        return
    if frame[2] == 0x86:
        say("CMD read")
        ppm = int(round(opts["co2"]))
        reply = bytes([0xFF, 0x86, ppm >> 8, ppm & 0xFF, 0x47, 0, 0, 0])
        send(spoil(reply + bytes([mhz19_checksum(reply + b"\0")]), state["readings"]))
        reading_sent()
    elif frame[2] == 0x79:
        say("CMD abc " + ("on" if frame[3] == 0xA0 else "off"))


def crc16_modbus(data):
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def modbus_frame(body):
    crc = crc16_modbus(body)
    return bytes(body) + bytes([crc & 0xFF, crc >> 8])


def modbus_command(frame):
    if crc16_modbus(frame[:6]) != (frame[6] | frame[7] << 8):
        say("BAD command")
        return
    address, function, register, word = frame[0], frame[1], frame[2] << 8 | frame[3], frame[4] << 8 | frame[5]
    if model == "senseair-s8" and function == 0x04 and word == 1 and register in (0, 3):
        value = int(round(opts["co2"])) if register == 3 else int(opts["status"])
        say("CMD read " + ("co2" if register == 3 else "status"))
        send(spoil(modbus_frame([address, 0x04, 2, value >> 8, value & 0xFF]), state["readings"]))
        if register == 3:
            reading_sent()
    elif model == "scd30" and function == 0x06 and register == 0x36:
        say("CMD start")
        send(bytes(frame))
    elif model == "scd30" and function == 0x03 and register == 0x27:
        send(modbus_frame([address, 0x03, 2, 0, 1]))
    elif model == "scd30" and function == 0x03 and register == 0x28 and word == 6:
        say("CMD read")
        floats = b"".join(struct.pack(">f", v) for v in (opts["co2"], opts["temperature"], opts["humidity"]))
        send(spoil(modbus_frame(list(bytes([address, 0x03, 12]) + floats)), state["readings"]))
        reading_sent()
    else:
        send(modbus_frame([address, function | 0x80, 0x02]))


def fixed_frames(buffer, header, length, handle):
    """Hands each whole `length`-byte command starting with `header` to `handle`; returns
    the bytes left for the next read."""
    while len(buffer) >= length:
        start = buffer.find(header)
        if start < 0:
            return b""
        if len(buffer) - start < length:
            return buffer[start:]
        handle(buffer[start : start + length])
        buffer = buffer[start + length :]
    return buffer


buffer = b""
last_active = time.monotonic()
while True:
    ready, _, _ = select.select([master], [], [], 0.2)
    if master in ready:
        try:
            data = os.read(master, 512)
        except OSError:
            if opts["port"]:
                sys.exit(0)  # the machine behind the port is gone
            data, buffer = b"", b""
        if not data and opts["port"]:
            sys.exit(0)
        buffer += data
    if model == "sds011":
        buffer = fixed_frames(buffer, b"\xAA\xB4", 19, sds_command)
    elif model == "mh-z19":
        buffer = fixed_frames(buffer, b"\xFF", 9, mhz19_command)
    elif model in ("senseair-s8", "scd30"):
        buffer = fixed_frames(buffer, bytes([0xFE if model == "senseair-s8" else 0x61]), 8, modbus_command)
    elif model == "sps30":
        while True:
            start = buffer.find(b"\x7E")
            end = buffer.find(b"\x7E", start + 1) if start >= 0 else -1
            if start < 0 or end < 0:
                break
            body = unstuff(buffer[start + 1 : end])
            buffer = buffer[end + 1 :]
            if len(body) >= 4 and len(body) == 4 + body[2] and ~sum(body[:-1]) & 0xFF == body[-1]:
                sps_command(body)
            elif body:
                buffer = b"\x7E" + buffer  # the closing marker began the next frame
    else:
        buffer = fixed_frames(buffer, b"\x42\x4D", 7, pms_command)
    # Active reporting (SDS011 by default, Plantower in active mode): one reading a second.
    if model not in ("sps30",) + CO2_MODELS and state["active"] and state["awake"] and time.monotonic() - last_active >= 1:
        last_active = time.monotonic()
        send(spoil(sds_data() if model == "sds011" else pms_data(), state["readings"]))
        reading_sent(asked=False)
