#!/usr/bin/python3
"""The fleet's page in headless Chromium.

Usage: fleet_page.py PORT SCREENSHOT_DIR DEVICES SHARE_TOKEN

Opens http://127.0.0.1:PORT/ (the fleet page of `airloc serve` with [serve] source =
collector), waits for a marker per device, reads where each marker is, chooses the first
device and waits for its day to be drawn, then waits for a newer position to reach a
marker without a reload; then opens the share link's page. Prints one JSON object of what
it saw; the Swift test decides what is right. Exit 2 when the browser cannot be started
(a missing part is a failure, never a skip).
"""

import json
import os
import sys

from headless import browser
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

PORT = int(sys.argv[1])
SHOTS = sys.argv[2]
DEVICES = int(sys.argv[3])
SHARE = sys.argv[4]
BASE = f"http://127.0.0.1:{PORT}"
# Generous: the loggers log a fix a second, the collector stores them, on a busy machine.
PATIENCE = 120

MARKERS = """
  var out = {};
  Object.keys(window.airlocFleet.markers).forEach(function (id) {
    var at = window.airlocFleet.markers[id].getLatLng();
    out[id] = { lat: at.lat, lon: at.lng, time: window.airlocFleet.times[id] };
  });
  return out;
"""


def main():
    seen = {}
    driver = browser(1280, 900)
    driver.set_page_load_timeout(60)
    try:
        driver.get(BASE + "/")
        driver.execute_script("window.__sameLoad = 'yes';")
        wait = WebDriverWait(driver, PATIENCE, poll_frequency=0.2)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#map path.device-marker")) >= DEVICES)
        seen["marker_paths"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.device-marker"))
        # The markers and /api/last of one moment: read the answer, then the markers of the
        # poll that follows it.
        polls = driver.execute_script("return window.airlocFleet.polls;")
        wait.until(lambda d: d.execute_script("return window.airlocFleet.polls;") > polls)
        seen["markers"] = driver.execute_script(MARKERS)
        seen["list"] = [li.get_attribute("data-device") for li in driver.find_elements(By.CSS_SELECTOR, "#devices li")]
        seen["ages"] = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#devices .age")]
        seen["live"] = driver.find_element(By.ID, "live").text

        first = sorted(seen["markers"].keys())[0]
        seen["chosen"] = first
        driver.find_element(By.CSS_SELECTOR, f"#devices li[data-device='{first}'] button.device").click()
        wait.until(lambda d: d.execute_script("return window.airlocFleet.points;") > 0)
        seen["day_paths"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.day-track"))
        seen["day_points"] = driver.execute_script("return window.airlocFleet.points;")
        seen["track_note"] = driver.find_element(By.ID, "track-note").text
        seen["chosen_class"] = driver.find_element(
            By.CSS_SELECTOR, f"#devices li[data-device='{first}']").get_attribute("class")

        # Live: a newer position reaches a marker, with no reload.
        before = seen["markers"]
        wait.until(lambda d: any((now.get("time") or "") > (before.get(i, {}).get("time") or "")
                                 for i, now in d.execute_script(MARKERS).items()))
        seen["markers_later"] = driver.execute_script(MARKERS)
        seen["later_seen_ms"] = driver.execute_script("return Date.now();")
        seen["same_load"] = driver.execute_script("return window.__sameLoad || null;")
        driver.save_screenshot(os.path.join(SHOTS, "fleet-desktop.png"))
        seen["errors"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]

        # The share link: its device's window alone, without the password.
        driver.get(BASE + "/?share=" + SHARE)
        wait.until(lambda d: d.execute_script("return window.airlocFleet && window.airlocFleet.points;") > 0)
        seen["share_day_paths"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.day-track"))
        seen["share_markers"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.device-marker"))
        seen["share_list"] = len(driver.find_elements(By.CSS_SELECTOR, "#devices li"))
        seen["share_title"] = driver.title
        seen["share_errors"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        driver.save_screenshot(os.path.join(SHOTS, "fleet-share.png"))
    finally:
        driver.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
