#!/usr/bin/env bash
# pymodbus from PyPI into DIR (default .build/pymodbus): the independent Modbus RTU framer and
# CRC that the SenseAir S8 and SCD30 frames and doubles are checked against
# (scripts/modbus-crosscheck.py, Tests/SensorsTests/ModbusCrossCheckTests.swift). Run by
# `make test`; a second run finds DIR complete and does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.build/pymodbus}
[ -f "$dir/.complete" ] && exit 0
rm -rf "$dir"
python3 -m pip install --quiet --disable-pip-version-check --no-warn-conflicts --target "$dir" pymodbus==3.11.4
touch "$dir/.complete"
