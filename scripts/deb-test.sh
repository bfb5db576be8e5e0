#!/usr/bin/env bash
# `make deb-test`: the package as a Debian user meets it, on a throwaway machine (CI runs
# it as root): build, list, lintian, install with dpkg -i, use it from PATH, remove,
# purge — and check what each step leaves behind. docs/packaging.md.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "Error: deb-test installs a package: run it as root on a throwaway machine" >&2; exit 77; }
scripts/install-deps.sh dpkg-dev lintian man-db bash-completion systemd zsh
deb=$(scripts/build-deb.sh | tail -1)
fail() { echo "deb-test: FAIL: $*" >&2; exit 1; }
echo "== $deb"

echo "== contents"
expected="/etc/airloc/airloc.conf /usr/bin/airloc /usr/lib/systemd/system/airloc-log.service
/usr/lib/systemd/system/airloc-collect.service /usr/share/doc/airloc/collector.md
/usr/lib/systemd/system/airloc-serve.service /usr/share/doc/airloc/serve.md
/usr/share/doc/airloc/sensors.md /usr/share/doc/airloc/uploads.md /usr/share/doc/airloc/plot.md
/usr/lib/udev/rules.d/61-airloc-gps.rules /usr/share/airloc/gazetteer.bin
/usr/share/bash-completion/completions/airloc /usr/share/doc/airloc/changelog.gz
/usr/share/doc/airloc/copyright /usr/share/fish/vendor_completions.d/airloc.fish
/usr/share/man/man1/airloc.1.gz /usr/share/man/man5/airloc.conf.5.gz
/usr/share/zsh/vendor-completions/_airloc"
contents=$(dpkg-deb -c "$deb" | awk '{ print substr($6, 2) }')
for path in $expected; do grep -qx "$path" <<<"$contents" || fail "$path is not in the package"; done
echo "all $(wc -w <<<"$expected") expected files present"

echo "== lintian"
lintian --fail-on error --tag-display-limit 0 "$deb" 2>&1 | grep -v "running with root privileges" || true
lintian --fail-on error "$deb" >/dev/null 2>&1 || fail "lintian reports errors"

echo "== dpkg -i"
dpkg -i "$deb" >/dev/null || { apt-get install -y -f -qq >/dev/null; dpkg -s airloc >/dev/null || fail "dpkg -i"; }
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
run() { env -i HOME="$home" PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
# The whole output first, then grep: `cmd | grep -q` fails under pipefail whenever grep
# has its match and exits before cmd's last write (SIGPIPE): a race a loaded machine hit.
version=$(run airloc --version) || fail "airloc --version exited $?"
grep -qx "airloc $(awk -F'"' '/string =/ { print $2 }' Sources/Web/AirlocVersion.swift)" <<<"$version" \
    || fail "airloc --version said: $version"
answer=$(run airloc reverse 52.52 13.40) || fail "airloc reverse from PATH exited $?: $answer"
grep -q "Berlin" <<<"$answer" || fail "airloc reverse from PATH, data found without AIRLOC_DATA: $answer"
for page in airloc airloc.conf; do
    warnings=$(MANWIDTH=80 run man --warnings "$page" 2>&1 >/dev/null)
    [ -z "$warnings" ] || fail "man $page warns: $warnings"
done
bash -c 'source /usr/share/bash-completion/completions/airloc && complete -p airloc >/dev/null \
    && COMP_WORDS=(airloc lo) COMP_CWORD=1 && _airloc && [ "${COMPREPLY[*]}" = "locate log" ]' \
    || fail "bash completion of 'airloc lo'"
zsh -n /usr/share/zsh/vendor-completions/_airloc || fail "the zsh completion does not parse"
for unit in airloc-log airloc-collect airloc-serve; do
    systemd-analyze verify "/usr/lib/systemd/system/$unit.service" || fail "systemd-analyze verify $unit"
done
getent passwd airloc >/dev/null || fail "no airloc user"
[ "$(stat -c '%U %a' /var/lib/airloc)" = "airloc 700" ] || fail "/var/lib/airloc"
echo "installed: --version, reverse, both man pages, bash and zsh completion, unit, service user: ok"

echo "== dpkg -r"
dpkg -r airloc >/dev/null
for path in $expected; do
    if [ "$path" = /etc/airloc/airloc.conf ]; then
        [ -f "$path" ] || fail "the conffile went with dpkg -r"
    else
        [ ! -e "$path" ] || fail "$path left after dpkg -r"
    fi
done
echo "only the conffile is left"

echo "== dpkg --purge"
dpkg --purge airloc >/dev/null
for path in $expected /etc/airloc /var/lib/airloc /var/cache/airloc; do
    [ ! -e "$path" ] || fail "$path left after purge"
done
echo "nothing is left"
