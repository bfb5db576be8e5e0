#!/usr/bin/env bash
# Home Assistant 2024.1 and what its owntracks integration imports (mqtt, cloud and the
# integrations cloud loads), from PyPI into DIR (default .build/homeassistant): the real
# client of the discovery and owntracks-mqtt end-to-end tests (scripts/home-assistant.py). Run by
# `make test`; a second run finds DIR complete and does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.build/homeassistant}
[ -f "$dir/.complete" ] && exit 0
rm -rf "$dir"
pip=(python3 -m pip install --quiet --disable-pip-version-check --no-warn-conflicts --target "$dir")
# The pins are Home Assistant 2024.1's own (homeassistant/package_constraints.txt and the
# integrations' manifests); josepy, pyOpenSSL and cryptography as its constraints hold them.
"${pip[@]}" homeassistant==2024.1.0 paho-mqtt==1.6.1 PyNaCl==1.5.0 hass-nabucasa==0.75.1 aiohttp_cors==0.7.0 \
    aiohttp-fast-url-dispatcher==0.3.0 aiohttp-zlib-ng==0.1.3 janus==1.0.0 hassil==1.5.1 \
    home-assistant-intents==2024.1.2 mutagen==1.47.0 webrtc-noise-gain==1.2.3 PyTurboJPEG==1.7.1 ha-ffmpeg==3.1.0 \
    "josepy<2" pyOpenSSL==23.2.0 cryptography==41.0.7 dacite coloredlogs aiorun aenum
# Imported by google_assistant (which cloud loads) for its constants only: without their
# native CHIP SDK, which nothing here runs.
"${pip[@]}" --no-deps python-matter-server==5.1.1 home-assistant-chip-clusters==2023.12.0
touch "$dir/.complete"
