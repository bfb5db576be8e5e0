#!/usr/bin/env bash
# The system test's machine (docs/packaging.md, "The station as it ships"): a Debian 12 root
# filesystem made by debootstrap from the machine's configured Debian archive, with
# systemd, udev, gpsd and a kernel, packed into an ext4 image that qemu boots directly
# (-kernel/-initrd). Built once and cached: the cache key is this script's own text, so a
# change here builds it again.
#
#   scripts/system-image.sh            prints the cache directory (building it when missing)
#
# The guest has no network. What `apt install ./airloc_*.deb` may have to fetch (the
# package's Depends, whatever they are) comes from a local archive inside the image,
# /srv/airloc-archive: the libraries any airloc release might depend on, downloaded here
# with their own dependencies. Only what the package asks for is installed from it, so a
# dependency the package forgets is missing in the guest as it would be on a Pi.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "Error: building the system image needs root (debootstrap)" >&2; exit 77; }
scripts/install-deps.sh debootstrap qemu-system-x86 qemu-utils e2fsprogs dpkg-dev >&2

key=$(sha256sum "$0" | cut -c1-16)
cache_root=${AIRLOC_SYSTEM_CACHE:-/var/cache/airloc-system-test}
cache="$cache_root/debian12-$key"
if [ -f "$cache/ready" ]; then
    echo "$cache"
    exit 0
fi

# The archive this machine's apt uses (deb822 or one-line sources), unless given.
mirror=${AIRLOC_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(grep -hs '^URIs:' /etc/apt/sources.list.d/debian.sources | head -1 | awk '{ print $2 }')
fi
if [ -z "$mirror" ]; then
    mirror=$(grep -hs '^deb ' /etc/apt/sources.list | grep -v security | head -1 | awk '{ print $2 }')
fi
[ -n "$mirror" ] || { echo "Error: no Debian archive configured (set AIRLOC_DEBIAN_MIRROR)" >&2; exit 69; }

rm -rf "$cache"
mkdir -p "$cache"
work=$(mktemp -d "$cache_root/build.XXXXXX")
trap 'umount -R "$work/root/proc" 2>/dev/null || true; rm -rf "$work"' EXIT
root="$work/root"

echo "system image: debootstrap bookworm from $mirror (a few minutes, once)" >&2
# minbase and only what a Pi owner's station has before airloc: systemd as PID 1, udev,
# gpsd, sudo, a kernel; sqlite3, curl and jq for the test's own look at the logbook and the page.
debootstrap --variant=minbase \
    --include=systemd,systemd-sysv,udev,dbus,kmod,linux-image-amd64,initramfs-tools,gpsd,sudo,sqlite3,curl,jq,procps,iproute2 \
    bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -30 "$work/debootstrap.log" >&2
    echo "Error: debootstrap failed (log above)" >&2
    exit 69
}

# The local archive: downloaded inside the root (its apt knows what is installed there).
archive_packages="adduser libmicrohttpd12 libpq5 libmosquitto1 libcurl4 libcurl3-gnutls libinih1 libsqlite3-0 libgps28 gpsd-clients"
cp /etc/resolv.conf "$root/etc/resolv.conf"
chroot "$root" apt-get update -qq
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -qq -y --download-only --no-install-recommends \
    $archive_packages >/dev/null
mkdir -p "$root/srv/airloc-archive"
mv "$root"/var/cache/apt/archives/*.deb "$root/srv/airloc-archive/"
(cd "$root/srv/airloc-archive" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null | gzip -9n > Packages.gz)
rm -f "$root"/etc/apt/sources.list.d/* "$root/etc/resolv.conf"
echo "deb [trusted=yes] file:/srv/airloc-archive ./" > "$root/etc/apt/sources.list"
chroot "$root" apt-get update -qq
chroot "$root" apt-get clean

# The machine: root without a password on the console, the disk, a name, the clock in UTC.
chroot "$root" passwd -dq root
echo "/dev/vda / ext4 defaults,errors=remount-ro 0 1" > "$root/etc/fstab"
echo station > "$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 station\n' > "$root/etc/hosts"
ln -sf /usr/share/zoneinfo/Etc/UTC "$root/etc/localtime"
# The network: DHCP on the wired port (qemu's user network, restricted to the host's
# stand-in for the air service), as a station's Wi-Fi or Ethernet would give.
mkdir -p "$root/etc/systemd/network"
printf '[Match]\nName=en* eth*\n\n[Network]\nDHCP=ipv4\n' > "$root/etc/systemd/network/50-wired.network"
chroot "$root" systemctl enable systemd-networkd.service >/dev/null 2>&1
# gpsd reads the receiver on the second serial port (qemu's -serial, fed from the host).
cat > "$root/etc/default/gpsd" <<'EOF'
START_DAEMON="true"
DEVICES="/dev/ttyS1"
GPSD_OPTIONS="-n"
USBAUTO="false"
EOF
chroot "$root" systemctl enable gpsd.service >/dev/null 2>&1
# No getty on the sensor and GPS ports: only the console (ttyS0) gets one.
chroot "$root" systemctl mask serial-getty@ttyS1.service serial-getty@ttyS2.service serial-getty@ttyS3.service \
    >/dev/null 2>&1
# The test's agent: the host's disk (/dev/vdb, made anew for each boot) holds the steps
# for this boot (scripts/system-test-guest.sh); their words go to ttyS3.
cat > "$root/usr/local/sbin/airloc-system-test" <<'EOF'
#!/bin/sh
mkdir -p /mnt/host
mount -o ro /dev/vdb /mnt/host || { echo "FAIL no host disk" > /dev/ttyS3; exit 1; }
exec /bin/bash /mnt/host/guest.sh
EOF
chmod 0755 "$root/usr/local/sbin/airloc-system-test"
cat > "$root/etc/systemd/system/airloc-system-test.service" <<'EOF'
[Unit]
Description=airloc system test agent (the host's steps for this boot)
After=multi-user.target
[Service]
Type=simple
ExecStart=/usr/local/sbin/airloc-system-test
[Install]
WantedBy=multi-user.target
EOF
chroot "$root" systemctl enable airloc-system-test.service >/dev/null 2>&1
# The journal kept on disk: the test reads the previous boot's after a power cut.
mkdir -p "$root/var/log/journal"

cp "$root"/boot/vmlinuz-* "$cache/vmlinuz"
cp "$root"/boot/initrd.img-* "$cache/initrd.img"
chmod 0644 "$cache/vmlinuz" "$cache/initrd.img"
rm -rf "$root"/boot/* "$root"/var/cache/apt/*.bin
mkfs.ext4 -q -F -L station -d "$root" "$cache/root.img" 3G
echo "$mirror" > "$cache/mirror"
touch "$cache/ready"
# Older keys' images are of no use any more.
find "$cache_root" -mindepth 1 -maxdepth 1 -name 'debian12-*' ! -name "debian12-$key" -exec rm -rf {} +
echo "$cache"
