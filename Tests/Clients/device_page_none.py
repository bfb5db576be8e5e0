#!/usr/bin/python3
"""The device's page in headless Chromium with `[serve] position = none`.

Usage: device_page_none.py PORT

Opens http://127.0.0.1:PORT/ at 1280 px, waits for its script and the day's figure, and
prints one JSON object: the page's whole visible text, the map's note, how many track
lines and markers the map drew, what the figure is, and the browser's console errors.
Exit 2 when the browser cannot be started (a missing part is a failure, never a skip).
"""

import json
import sys
import urllib.request

from headless import browser
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BASE = f"http://127.0.0.1:{int(sys.argv[1])}"


def main():
    seen = {}
    with urllib.request.urlopen(BASE + "/day.svg", timeout=60) as answer:
        seen["figure"] = answer.read().decode("utf-8")
    driver = browser(1280, 900)
    driver.set_page_load_timeout(60)
    try:
        driver.get(BASE + "/")
        wait = WebDriverWait(driver, 60, poll_frequency=0.2)
        wait.until(lambda d: d.execute_script(
            "var i = document.getElementById('chart'); return !i || (i.complete && i.naturalWidth > 0);"))
        wait.until(lambda d: (d.find_element(By.ID, "map-note").text or "") != "")
        seen["text"] = driver.find_element(By.TAG_NAME, "body").text
        seen["map_note"] = driver.find_element(By.ID, "map-note").text
        seen["track_paths"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path"))
        seen["html"] = driver.page_source
        seen["errors"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        driver.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
