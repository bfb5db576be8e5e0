#!/usr/bin/env python3
"""Home Assistant's own `owntracks` integration, run in-process against a broker, for the
uploads' end-to-end test: the real client of what `[upload.NAME] type = owntracks-mqtt`
publishes (docs/uploads.md).

Usage: ha-owntracks.py --port BROKER_PORT --config DIR

It starts a Home Assistant core in DIR, adds the `mqtt` integration (the broker on
127.0.0.1:BROKER_PORT) and the `owntracks` integration as config entries, prints "READY"
once both are set up, then one line per device-tracker state it sees:
  STATE <entity_id> <latitude> <longitude> <gps_accuracy>
Home Assistant comes from .build/homeassistant (installed by `make test`: pip --target).
"""
import argparse
import asyncio
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".build", "homeassistant"))


async def main(port, config_dir):
    from homeassistant import bootstrap, config_entries, core, loader

    os.makedirs(config_dir, exist_ok=True)
    # The mqtt integration reads it for its YAML part: empty.
    open(os.path.join(config_dir, "configuration.yaml"), "a").close()
    hass = core.HomeAssistant(config_dir)
    hass.config.skip_pip = True
    # As Home Assistant's own start does, without a configuration.yaml of its own.
    loader.async_setup(hass)
    core_config = {"latitude": 0, "longitude": 0, "elevation": 0, "unit_system": "metric", "time_zone": "UTC",
                   "name": "test"}
    if await bootstrap.async_from_config_dict({"homeassistant": core_config}, hass) is None:
        print("Home Assistant did not start", flush=True)
        return 1
    await hass.async_start()

    def entry(domain, data):
        return config_entries.ConfigEntry(
            version=1, minor_version=1, domain=domain, title=domain, data=data, source="user", options={},
            unique_id=None)

    await hass.config_entries.async_add(entry("mqtt", {"broker": "127.0.0.1", "port": port, "discovery": False}))
    await hass.config_entries.async_add(entry("owntracks", {"webhook_id": "airloc-test", "secret": None,
                                                             "cloudhook": False}))
    await hass.async_block_till_done()
    print("READY", flush=True)
    seen = {}
    while True:
        for state in hass.states.async_all("device_tracker"):
            key = (state.attributes.get("latitude"), state.attributes.get("longitude"))
            if seen.get(state.entity_id) != key:
                seen[state.entity_id] = key
                print(f"STATE {state.entity_id} {key[0]} {key[1]} {state.attributes.get('gps_accuracy')}", flush=True)
        await asyncio.sleep(0.2)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    try:
        asyncio.run(main(args.port, args.config))
    except KeyboardInterrupt:
        pass
