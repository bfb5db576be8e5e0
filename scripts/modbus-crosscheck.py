#!/usr/bin/env python3
"""The Modbus sensors checked against pymodbus (PyPI), an implementation of Modbus RTU that
owes nothing to airloc's: prints one JSON object with pymodbus's own frames for the requests
airloc sends, and what pymodbus's RTU framer decodes from the sensor doubles' replies.

    modbus-crosscheck.py S8_DEVICE SCD30_DEVICE     (PYTHONPATH holding pymodbus)
"""
import json, os, select, struct, sys, termios, time, tty

from pymodbus.framer.rtu import FramerRTU
from pymodbus.pdu import DecodePDU
from pymodbus.pdu.register_message import (
    ReadHoldingRegistersRequest, ReadInputRegistersRequest, WriteSingleRegisterRequest)

framer = FramerRTU(DecodePDU(is_server=False))
requests = {
    "s8_co2": ReadInputRegistersRequest(address=3, count=1, dev_id=0xFE),
    "s8_status": ReadInputRegistersRequest(address=0, count=1, dev_id=0xFE),
    "scd30_start": WriteSingleRegisterRequest(address=0x36, registers=[0], dev_id=0x61),
    "scd30_ready": ReadHoldingRegistersRequest(address=0x27, count=1, dev_id=0x61),
    "scd30_read": ReadHoldingRegistersRequest(address=0x28, count=6, dev_id=0x61),
}
frames = {name: framer.buildFrame(request) for name, request in requests.items()}


def ask(device, frame, length):
    """Sends `frame` to the double and returns pymodbus's decoding of its reply."""
    fd = os.open(device, os.O_RDWR | os.O_NOCTTY)
    try:
        tty.setraw(fd)
        termios.tcflush(fd, termios.TCIFLUSH)
        os.write(fd, frame)
        data, deadline = b"", time.monotonic() + 30
        while len(data) < length and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1)
            if ready:
                data += os.read(fd, 256)
        used, pdu = framer.handleFrame(data, 0, 0)
        return pdu
    finally:
        os.close(fd)


s8_device, scd30_device = sys.argv[1], sys.argv[2]
out = {"frames": {name: frame.hex(" ") for name, frame in frames.items()}}
co2 = ask(s8_device, frames["s8_co2"], 7)
status = ask(s8_device, frames["s8_status"], 7)
out["s8"] = {"co2": co2.registers[0] if co2 else None, "status": status.registers[0] if status else None}
start = ask(scd30_device, frames["scd30_start"], 8)
ready = ask(scd30_device, frames["scd30_ready"], 7)
reading = ask(scd30_device, frames["scd30_read"], 17)
values = None
if reading:
    raw = b"".join(struct.pack(">H", r) for r in reading.registers)
    values = list(struct.unpack(">fff", raw))
out["scd30"] = {"started": start is not None and start.registers == [0] if start else False,
                "ready": ready.registers[0] if ready else None, "values": values}
print(json.dumps(out))
