#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (Fuzz/corpus/<target>/), checked in.

Each seed is a well-formed input the target's parser accepts (a frame as the sensor
doubles send it, a message as a logger publishes it, gpsd's JSON from gpsd's own
regression captures in ../shared/corpus/nmea when present), so the fuzzer starts from
the parsers' deep paths. Run again after a format changes: `python3 scripts/fuzz-seeds.py`.
"""
import glob
import hashlib
import os
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CORPUS = os.path.join(ROOT, "Fuzz", "corpus")


def seed(target, data):
    if isinstance(data, str):
        data = data.encode()
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(directory, name), "wb") as out:
        out.write(data)


def crc16_modbus(data):
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return bytes(data) + bytes([crc & 0xFF, crc >> 8])


def sds(pm25, pm10, command=0xC0):
    p25, p10 = int(round(pm25 * 10)), int(round(pm10 * 10))
    body = bytes([p25 & 0xFF, p25 >> 8, p10 & 0xFF, p10 >> 8, 0xA1, 0x60])
    return bytes([0xAA, command]) + body + bytes([sum(body) & 0xFF, 0xAB])


def pms(pm25, pm10, temperature=None, humidity=None):
    values = [pm25 // 2, pm25 * 3 // 2, pm10, pm25 // 2, pm25, pm10, 900, 300, 80, 20, 5, 1, 0]
    if temperature is not None:
        values[9], values[10] = int(temperature * 10) & 0xFFFF, int(humidity * 10)
    frame = bytes([0x42, 0x4D, 0, 28]) + b"".join(struct.pack(">H", v & 0xFFFF) for v in values)
    return frame + struct.pack(">H", sum(frame) & 0xFFFF)


STUFF = {0x7E: 0x5E, 0x7D: 0x5D, 0x11: 0x31, 0x13: 0x33}


def shdlc(command, data, status=0):
    body = bytes([0, command, status, len(data)]) + data
    body += bytes([~sum(body) & 0xFF])
    out = bytearray([0x7E])
    for b in body:
        out += bytes([0x7D, STUFF[b]]) if b in STUFF else bytes([b])
    return bytes(out + b"\x7E")


def mhz19(ppm):
    frame = bytes([0xFF, 0x86, ppm >> 8, ppm & 0xFF, 0x47, 0, 0, 0])
    return frame + bytes([(0xFF - (sum(frame[1:8]) & 0xFF) + 1) & 0xFF])


def main():
    # Serial frames: the first byte of an input is where the stream is cut in two.
    seed("sds011", b"\x05" + sds(12.3, 20.1) + sds(40.2, 55.0))
    seed("sds011", b"\x00" + b"\x01\x02" + sds(999.9, 1999.9) + sds(0, 0, command=0xC5))
    seed("plantower", b"\x10" + pms(18, 25) + pms(250, 400, temperature=-12.5, humidity=81.2))
    seed("plantower", b"\x03" + b"\x42\x4d\x00" + pms(1, 1))
    floats = b"".join(struct.pack(">f", f) for f in [7.2, 12.0, 14.0, 16.0, 30.0, 40.0, 45.0, 46.0, 46.5, 0.6])
    seed("sps30", b"\x09" + shdlc(0x03, floats) + shdlc(0x00, b""))
    seed("sps30", b"\x02" + shdlc(0xD0, b"SPS30\x00") + shdlc(0xD3, b"\x7e\x7d\x11\x13" * 4))
    seed("mhz19", b"\x04" + mhz19(412) + mhz19(5000))
    seed("mhz19", b"\x00" + b"\xff\x86" + mhz19(0))
    co2 = struct.pack(">fff", 612.5, 21.4, 48.0)
    seed("modbus-scd30", b"\x06" + crc16_modbus(bytes([0x61, 0x03, 12]) + co2) + crc16_modbus([0x61, 0x03, 2, 0, 1]))
    seed("modbus-scd30", b"\x01" + crc16_modbus([0x61, 0x83, 0x02]))
    seed("modbus-s8", b"\x03" + crc16_modbus([0xFE, 0x04, 2, 0x01, 0x9A]) + crc16_modbus([0xFE, 0x04, 2, 0, 0]))
    # IIO and hwmon files, one a line (in_temp_input, in_humidityrelative_raw, _offset,
    # _scale, in_pressure_input, in_concentration_co2_raw, _scale, temp1_input,
    # humidity1_input); "-" leaves a file out.
    seed("kernel-values", "24125\n48213\n0\n0.001\n101.325\n-\n-\n-\n-\n")
    seed("kernel-values", "-\n-\n-\n-\n-\n612\n0.0001\n23500\n51000\n")

    # gpsd's JSON: its own regression captures' lines (BSD, ../shared/corpus/nmea/COPYING.gpsd).
    lines = []
    for path in sorted(glob.glob(os.path.join(ROOT, "..", "shared", "corpus", "nmea", "*.chk")))[:12]:
        with open(path, errors="replace") as capture:
            lines += [line for line in capture if line.startswith("{")][:4]
    lines += [
        '{"class":"POLL","time":"2026-11-29T12:33:33.609Z","active":1,"tpv":[{"class":"TPV","device":"/dev/pts/1",'
        '"mode":3,"time":"2026-11-29T12:33:33.000Z","lat":52.52,"lon":13.405,"altHAE":80.1,"eph":4.2}],"sky":[]}\n',
        '{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","driver":"u-blox",'
        '"activated":"2026-11-29T12:33:30.000Z"}]}\n',
        '{"class":"ERROR","message":"Unrecognized request \'FOO\'"}\n',
        '{"class":"SKY","device":"/dev/ttyACM0","uSat":9,"satellites":[]}\n',
    ]
    for index in range(0, len(lines), 4):
        seed("gpsd-json", "".join(lines[index:index + 4]))

    # The fleet's wire.
    row = '{"schema":"airloc.log/1","id":"t%d","kind":"track","time":"2026-11-18T10:00:00Z","lat":52.52,"lon":13.4}'
    seed("wire-collector", "fleet/pi/history\n" + row % 1)
    seed("wire-collector", "fleet/pi/history\n" + '{"schema":"airloc.log/1","id":"a3","kind":"air","time":'
         '"2026-11-18T10:00:00Z","revision":2,"incarnation":"k2","us_aqi":64,"pm2_5":18.4}')
    seed("wire-collector", "fleet/pi/status\nonline")
    seed("wire-collector", 'fleet/pi/hello\n{"schema":"airloc.hello/1","device":"pi","software":"airloc 0.4",'
         '"incarnation":"k2","first":{"track":8},"acked":{"track":7},"last":{"track":9}}')
    seed("wire-collector", "kfleet/zz/history\n" + row % 2)
    seed("wire-logger", '{"incarnation":"k2","revised":{},"schema":"airloc.ack/1","stored":{"track":[[4,6],[9,9]]},'
         '"through":{"air":0,"sensor":3,"track":2},"time":"2026-11-18T10:00:01Z"}')
    seed("wire-logger", '{"schema":"airloc.replay/1","kind":"track","from":3,"until":8,"incarnation":"k2"}')
    seed("wire-logger", '{"schema":"airloc.hello/1","device":"pi","software":"airloc 0.4","first":{"track":1},'
         '"acked":{"track":0},"last":{"track":5}}')

    # Requests to serve: method, path?query, headers.
    for path in ["/", "/api/now", "/api/track?since=2026-11-18T00:00:00Z&until=2026-11-19T00:00:00Z",
                 "/api/map?since=-2h", "/day.svg?width=640", "/metrics", "/data.json", "/events",
                 "/api/track?after=t5&since=-1d", "/s/abc?share=xyz"]:
        seed("http-request", "GET\n" + path + "\naccept: application/json\n")
    seed("http-request", "GET\n/api/now\nauthorization: Basic YWlybG9jOnNlY3JldA==\n")
    seed("http-request", "POST\n/api/now\nauthorization: Basic bm9wZQ==\n")

    # Configuration files.
    example = os.path.join(ROOT, "config", "airloc.conf")
    if os.path.exists(example):
        seed("config", open(example, "rb").read())
    seed("config", "[location]\nlatitude = 52.52\nlongitude = 13.405\nproviders = gpsd, manual\n"
         "[sensor]\nmodel = sds011\ndevice = /dev/ttyUSB0\n[sensor.room]\nmodel = bme280\nwhere = iio\n"
         "[mqtt]\nbroker = mqtt://broker.lan:1883\nposition = coarse\n[upload.home]\ntype = traccar\n"
         "url = http://traccar.lan:5055\n[serve]\nport = 8080\n[collect]\ndatabase = postgresql:///fleet\n")
    seed("config", "[air]\nscale = eu\n[log]\ninterval = 30s\nretention = 90d\n[authorization]\nstatus = authorized\n")

    # Data files: a gazetteer's head and a logbook are made by the replay test's setup
    # when it needs them; these seeds are small damaged ones.
    seed("gazetteer-file", b"AIRLOCGZ" + bytes(56))
    seed("logbook-file", b"SQLite format 3\x00" + bytes(84))

    # Service answers.
    seed("air-answer", '{"latitude":52.52,"longitude":13.4,"utc_offset_seconds":3600,"current":{"time":'
         '"2026-11-18T10:00","interval":3600,"us_aqi":64,"pm2_5":18.4,"pm10":25.1,"ozone":51,'
         '"nitrogen_dioxide":12,"carbon_monoxide":210,"sulphur_dioxide":2}}')
    seed("air-answer", '{"hourly":{"time":["2026-11-18T10:00","2026-11-18T11:00"],"us_aqi":[64,null],'
         '"pm2_5":[18.4,null]},"utc_offset_seconds":0}')
    seed("air-answer", '{"daily":{"time":["2026-11-17","2026-11-18"],"temperature_2m_mean":[4.1,null]}}')
    seed("place-answer", '{"results":[{"id":2950159,"name":"Berlin","latitude":52.52437,"longitude":13.41053,'
         '"feature_code":"PPLC","country_code":"DE","country":"Germany","admin1":"Land Berlin",'
         '"timezone":"Europe/Berlin","population":3426354}]}')
    seed("place-answer", '{"post code":"90210","country":"United States","places":[{"place name":"Beverly Hills",'
         '"longitude":"-118.4065","latitude":"34.0901","state":"California","state abbreviation":"CA"}]}')
    seed("place-answer", '{"success":true,"latitude":52.52,"longitude":13.4,"city":"Berlin","region":"Berlin",'
         '"country_code":"DE","timezone":{"id":"Europe/Berlin"},"loc":"52.52,13.40","status":"success",'
         '"lat":52.52,"lon":13.4}')
    seed("upload-answer", b"\x32\x00" + b"120\n" + b"Too many requests")
    seed("upload-answer", b"\x7d\x00" + b"Wed, 21 Oct 2026 07:28:00 GMT\n" + b"busy")
    seed("upload-answer", b"\x64\x00" + b"\n" + b"device unknown")
    return 0


if __name__ == "__main__":
    sys.exit(main())
