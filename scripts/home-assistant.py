#!/usr/bin/env python3
"""Home Assistant's own `mqtt` integration (and its `owntracks` one), run in-process
against a broker: the real client of what airloc publishes for it, for the end-to-end
tests (docs/fleet.md's discovery, docs/uploads.md's owntracks-mqtt).

Usage: home-assistant.py --port BROKER_PORT --config DIR [--discovery] [--owntracks]

It starts a Home Assistant core in DIR, adds the `mqtt` integration (the broker on
127.0.0.1:BROKER_PORT; MQTT discovery on with --discovery) and, with --owntracks, the
`owntracks` integration, as config entries; prints "READY" once they are set up, then one
line per state change it sees:
  STATE <entity_id> <latitude> <longitude> <gps_accuracy>    (a device tracker)
  SENSOR <entity_id> <state> <friendly name>                 (a sensor)
Home Assistant comes from .build/homeassistant (installed by `make test`: pip --target).
"""
import argparse
import asyncio
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".build", "homeassistant"))


async def main(port, config_dir, discovery, owntracks):
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

    await hass.config_entries.async_add(entry("mqtt", {"broker": "127.0.0.1", "port": port, "discovery": discovery}))
    if owntracks:
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
        for state in hass.states.async_all("sensor"):
            if seen.get(state.entity_id) != state.state:
                seen[state.entity_id] = state.state
                print(f"SENSOR {state.entity_id} {state.state} {state.attributes.get('friendly_name')}", flush=True)
        await asyncio.sleep(0.2)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--discovery", action="store_true", help="MQTT discovery on")
    parser.add_argument("--owntracks", action="store_true", help="the owntracks integration too")
    args = parser.parse_args()
    try:
        asyncio.run(main(args.port, args.config, args.discovery, args.owntracks))
    except KeyboardInterrupt:
        pass
