#!/usr/bin/env python3
"""`make test-system`: the shipped package in a booted Debian 12 under systemd (qemu).

    system-test.py IMAGE_DIR NEW_DEB PREVIOUS_DEB WORK_DIR

IMAGE_DIR is scripts/system-image.sh's (root.img, vmlinuz, initrd.img). Three boots of one
disk, each given its steps on a second disk (scripts/system-test-guest.sh and the phase):
  install   the previous release with apt, the always grant, the logger; the upgrade to
            this release over the running logger; the sensor and the page; doctor --service;
            the journal; then a reboot
  reboot    the services back and the logbook continued; policy = allow instead of the
            grant; then the host kills the machine while the logger writes (a power cut)
  powercut  the logbook intact, every row acknowledged before the cut there; apt purge
The guest's ttyS1 is a GPS receiver (NMEA from here, 1 Hz, a walk through Berlin read by
gpsd), ttyS2 an SDS011 (scripts/sensor-double.py, the real protocol), ttyS3 the guest's
words, ttyS0 the console (WORK_DIR/console-PHASE.log). The guest's network is qemu's
user network restricted to one address, 10.0.2.100:80, which reaches the air service's
stand-in here (scripts/http-double.py on 127.0.0.1) through a relay qemu starts per
connection: nothing else is reachable. TCG unless AIRLOC_QEMU_ACCEL=kvm. Exit 0 when every phase said DONE; else 1 with the
guest's words.
"""
import datetime
import importlib.util
import math
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# A whole phase under TCG on two busy cores takes minutes; this only bounds a hang.
PHASE_LIMIT = float(os.environ.get("AIRLOC_SYSTEM_PHASE_LIMIT", "1500"))


def load_nmea():
    spec = importlib.util.spec_from_file_location("nmea_track", os.path.join(HERE, "nmea-track.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NMEA = load_nmea()


def feed_gps(path, stop):
    """A receiver with a 3D fix walking east through Berlin at 1.4 m/s, one burst a second
    stamped with the current UTC time (what gpsd and the logger check the clock against)."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    import tty

    tty.setraw(fd)
    start = time.time()
    try:
        while not stop.is_set():
            # A receiver speaks at the top of each second, of that second.
            second = math.floor(time.time()) + 1
            while time.time() < second:
                # Whatever gpsd sends the receiver is read and dropped meanwhile.
                ready, _, _ = select.select([fd], [], [], max(0.0, second - time.time()))
                if ready:
                    os.read(fd, 4096)
            lon = 13.4050 + (second - start) * 1.4 / (111320 * math.cos(math.radians(52.52)))
            moment = datetime.datetime.fromtimestamp(second, datetime.timezone.utc).replace(tzinfo=None)
            burst = "".join(s + "\r\n" for s in NMEA.sentences(moment, 52.5200, lon, True))
            os.write(fd, burst.encode())
    except OSError:
        pass  # the machine is gone
    finally:
        os.close(fd)


def relay(port):
    """`system-test.py --relay PORT`: one guest connection (qemu's guestfwd gives it on
    stdin and stdout) carried to 127.0.0.1:PORT and back."""
    import socket

    peer = socket.create_connection(("127.0.0.1", port), timeout=30)
    peer.settimeout(None)
    inbound, outbound = sys.stdin.fileno(), sys.stdout.fileno()
    sources = [inbound, peer.fileno()]
    while sources:
        ready, _, _ = select.select(sources, [], [], 120)
        if not ready:
            return 0  # an idle connection: the guest's client has its own timeouts
        for fd in ready:
            data = os.read(fd, 65536)
            if fd == peer.fileno():
                if not data:
                    return 0
                while data:
                    data = data[os.write(outbound, data):]
            else:
                if not data:
                    peer.shutdown(socket.SHUT_WR)
                    sources.remove(fd)
                else:
                    peer.sendall(data)
    return 0


def air_double():
    """The air service's stand-in (scripts/http-double.py): its process and port."""
    process = subprocess.Popen([sys.executable, os.path.join(HERE, "http-double.py"), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    line = process.stdout.readline()
    if not line.startswith("PORT "):
        process.kill()
        raise SystemExit("the air service's stand-in did not start")
    threading.Thread(target=lambda: process.stdout.read(), daemon=True).start()
    return process, int(line.split()[1])


def control_disk(work, phase, new_deb, previous_deb, variables):
    """The guest's second disk: the steps, the phase, the numbers, the packages."""
    folder = os.path.join(work, "control")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    shutil.copy(os.path.join(HERE, "system-test-guest.sh"), os.path.join(folder, "guest.sh"))
    with open(os.path.join(folder, "phase"), "w") as f:
        f.write(phase + "\n")
    with open(os.path.join(folder, "vars"), "w") as f:
        for key, value in variables.items():
            f.write(f"{key}='{value}'\n")
    if phase == "install":
        shutil.copy(new_deb, os.path.join(folder, "airloc.deb"))
        shutil.copy(previous_deb, os.path.join(folder, "previous.deb"))
    image = os.path.join(work, "control.img")
    if os.path.exists(image):
        os.unlink(image)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-d", folder, image, "256M"], check=True)
    return image


def accelerator():
    chosen = os.environ.get("AIRLOC_QEMU_ACCEL")
    if chosen:
        return chosen
    return "tcg"


def boot(image_dir, disk, control, work, phase, air_port, cut_after_acks=None):
    """Boots once and follows the guest's words until DONE (or, with cut_after_acks, kills
    the machine after that many ACK lines). Returns (words, ok)."""
    results = os.path.join(work, f"results-{phase}.log")
    console = os.path.join(work, f"console-{phase}.log")
    for path in (results,):
        open(path, "w").close()
    accel = accelerator()
    command = [
        "qemu-system-x86_64", "-accel", accel, "-cpu", "max" if accel == "tcg" else "host", "-smp", "2",
        "-m", "1024", "-display", "none", "-monitor", "none", "-no-reboot",
        "-kernel", os.path.join(image_dir, "vmlinuz"), "-initrd", os.path.join(image_dir, "initrd.img"),
        "-append", "root=/dev/vda rw console=ttyS0 quiet",
        "-drive", f"file={disk},if=virtio,format=qcow2",
        "-drive", f"file={control},if=virtio,format=raw,readonly=on",
        "-nic", f"user,model=virtio-net-pci,restrict=on,"
        f"guestfwd=tcp:10.0.2.100:80-cmd:{sys.executable} {os.path.abspath(__file__)} --relay {air_port}",
        "-chardev", f"file,id=console,path={console}", "-serial", "chardev:console",
        "-chardev", "pty,id=gps", "-serial", "chardev:gps",
        "-chardev", "pty,id=pm", "-serial", "chardev:pm",
        "-chardev", f"file,id=results,path={results}", "-serial", "chardev:results",
    ]
    qemu = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    ptys = {}
    while len(ptys) < 2:
        line = qemu.stdout.readline()
        if not line:
            raise SystemExit(f"qemu ended before its serial ports were ready (exit {qemu.wait()})")
        match = re.search(r"char device redirected to (\S+) \(label (\w+)\)", line)
        if match:
            ptys[match.group(2)] = match.group(1)
    # qemu's further words (none expected) are kept, never left to fill the pipe.
    qemu_words = []
    threading.Thread(target=lambda: qemu_words.extend(qemu.stdout), daemon=True).start()
    stop = threading.Event()
    gps = threading.Thread(target=feed_gps, args=(ptys["gps"], stop), daemon=True)
    gps.start()
    sensor = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "sensor-double.py"), "sds011", "--pm25", "17.4", "--pm10", "23.8",
         "--port", ptys["pm"]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    words = []
    acks = 0
    ok = False
    deadline = time.monotonic() + PHASE_LIMIT
    position = 0
    try:
        while True:
            with open(results, "rb") as f:
                f.seek(position)
                chunk = f.read()
            # Only whole lines: the rest is read again next time.
            complete = chunk[: chunk.rfind(b"\n") + 1]
            position += len(complete)
            for line in complete.decode(errors="replace").splitlines():
                line = line.strip()
                if not line:
                    continue
                words.append(line)
                print(f"  [{phase}] {line}", flush=True)
                if line.startswith("ACK "):
                    acks += 1
                if line.startswith("DONE "):
                    ok = line == f"DONE {phase}"
            if cut_after_acks is not None and acks >= cut_after_acks:
                os.killpg(qemu.pid, signal.SIGKILL)  # the power cut: no shutdown, no flush
                qemu.wait()
                ok = not any(w.startswith("FAIL") for w in words)
                print(f"  [{phase}] power cut after {acks} ACK lines", flush=True)
                break
            if qemu.poll() is not None:
                break
            if time.monotonic() > deadline:
                os.killpg(qemu.pid, signal.SIGKILL)
                qemu.wait()
                words.append(f"FAIL the phase did not end within {PHASE_LIMIT:.0f} s")
                print(f"  [{phase}] {words[-1]}", flush=True)
                ok = False
                break
            # The guest writes its words to a file qemu keeps: looked at twice a second.
            time.sleep(0.5)
    finally:
        stop.set()
        if qemu.poll() is None:
            os.killpg(qemu.pid, signal.SIGKILL)
            qemu.wait()
        sensor.terminate()
        sensor.wait()
        gps.join(timeout=5)
    if qemu_words:
        print("".join(qemu_words), file=sys.stderr)
    return words, ok


def numbers(words, prefix):
    """The key=value pairs of the last line starting with prefix."""
    lines = [w for w in words if w.startswith(prefix + " ")]
    if not lines:
        return {}
    return dict(pair.split("=", 1) for pair in lines[-1].split()[1:] if "=" in pair)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--relay":
        return relay(int(sys.argv[2]))
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 64
    image_dir, new_deb, previous_deb, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    disk = os.path.join(work, "station.qcow2")
    if os.path.exists(disk):
        os.unlink(disk)
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", os.path.join(image_dir, "root.img"),
                    "-F", "raw", disk], check=True)
    version = subprocess.run(["dpkg-deb", "-f", new_deb, "Version"], capture_output=True, text=True,
                             check=True).stdout.strip()
    previous_version = subprocess.run(["dpkg-deb", "-f", previous_deb, "Version"], capture_output=True, text=True,
                                      check=True).stdout.strip()
    print(f"system test: {previous_version} → {version} on Debian 12 under systemd ({accelerator()})", flush=True)
    started = time.monotonic()
    double, air_port = air_double()
    try:
        return run_phases(image_dir, disk, work, new_deb, previous_deb, version, previous_version, air_port, started)
    finally:
        double.kill()
        double.wait()


def run_phases(image_dir, disk, work, new_deb, previous_deb, version, previous_version, air_port, started):
    variables = {"version": version, "previous_version": previous_version}
    plan = [("install", None), ("reboot", 3), ("powercut", None)]
    for phase, cut in plan:
        phase_started = time.monotonic()
        control = control_disk(work, phase, new_deb, previous_deb, variables)
        words, ok = boot(image_dir, disk, control, work, phase, air_port, cut_after_acks=cut)
        print(f"  [{phase}] {time.monotonic() - phase_started:.0f} s", flush=True)
        if not ok:
            print(f"system test: FAIL in phase {phase} (console: {work}/console-{phase}.log)", file=sys.stderr)
            return 1
        variables.update(numbers(words, "ACK" if cut else "ROWS"))
    print(f"system test: passed in {time.monotonic() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
