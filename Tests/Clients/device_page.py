#!/usr/bin/python3
"""The device's page in headless Chromium, as a phone and a desktop see it.

Usage: device_page.py PORT SCREENSHOT_DIR

Opens http://127.0.0.1:PORT/ at 1280 px, reads the card, the map and the logger's
panel, waits for the next sensor reading to arrive without a reload, then looks at
the page again at 360 px. Prints one JSON object of what it saw; the Swift test
decides what is right. Exit 2 when the browser cannot be started (a missing part is a
failure, never a skip).
"""

import json
import os
import sys
import urllib.request

from headless import browser
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

PORT = int(sys.argv[1])
SHOTS = sys.argv[2]
BASE = f"http://127.0.0.1:{PORT}"
# Generous: the next reading comes at the sensor's interval, on a busy machine.
PATIENCE = 120


def text(driver, element_id):
    found = driver.find_elements(By.ID, element_id)
    return found[0].text if found else None


def main():
    seen = {}
    with urllib.request.urlopen(BASE + "/api/now", timeout=60) as answer:
        seen["api_now"] = json.load(answer)
    # The logger panel's counts as rendered before the browser's page: a row the browser
    # counts live comes after them, however soon it arrives after the page loads (the
    # browser's own first read of the panel may already include one).
    with urllib.request.urlopen(BASE + "/", timeout=60) as answer:
        page = answer.read().decode("utf-8")
    start = page.find('<dd id="rows">')
    seen["rows_rendered"] = page[start + len('<dd id="rows">'):page.find("</dd>", start)] if start >= 0 else None

    driver = browser(1280, 900)
    driver.set_page_load_timeout(60)
    try:
        driver.get(BASE + "/")
        driver.execute_script("window.__sameLoad = 'yes';")
        for element_id in ("place", "aqi", "category", "advice", "measured", "measured-age", "rows", "live",
                           "sensor-room"):
            seen[element_id] = text(driver, element_id)
        seen["card_class"] = driver.find_element(By.ID, "card").get_attribute("class")
        wait = WebDriverWait(driver, PATIENCE, poll_frequency=0.2)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#map path.here"))
        seen["track_paths"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.track"))
        seen["here_marker"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.here"))
        seen["chart_loaded"] = driver.execute_script(
            "var i = document.getElementById('chart'); return i.complete && i.naturalWidth > 0;")
        wait.until(lambda d: text(d, "live") == "live")
        # The moment the reading arrives, as the page sees it.
        driver.execute_script("""
            window.__arrived = null;
            new MutationObserver(function () {
              var age = document.getElementById('measured-age').textContent;
              if (window.__arrived === null && age.indexOf('just now') === 0) window.__arrived = Date.now();
            }).observe(document.getElementById('measured-age'), { childList: true, characterData: true, subtree: true });
        """)
        wait.until(lambda d: (text(d, "measured-age") or "").startswith("just now"))
        seen["live_measured"] = text(driver, "measured")
        seen["live_measured_age"] = text(driver, "measured-age")
        # A [sensor.room] reading arrives too, on its own line, leaving the PM line as it was.
        wait.until(lambda d: "just now" in (text(d, "sensor-room") or ""))
        seen["live_sensor_room"] = text(driver, "sensor-room")
        seen["measured_after_climate"] = text(driver, "measured")
        seen["live_rows"] = text(driver, "rows")
        seen["same_load"] = driver.execute_script("return window.__sameLoad || null;")
        seen["arrived_ms"] = driver.execute_script("return window.__arrived;")
        driver.save_screenshot(os.path.join(SHOTS, "serve-desktop.png"))

        driver.set_window_size(360, 780)
        driver.get(BASE + "/")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#map path.here"))
        seen["phone_inner_width"] = driver.execute_script("return window.innerWidth;")
        seen["phone_scroll_width"] = driver.execute_script("return document.documentElement.scrollWidth;")
        seen["phone_card_width"] = driver.execute_script(
            "return Math.round(document.getElementById('card').getBoundingClientRect().width);")
        seen["phone_aqi"] = text(driver, "aqi")
        driver.save_screenshot(os.path.join(SHOTS, "serve-phone.png"))
        seen["errors"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        driver.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
