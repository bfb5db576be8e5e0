#!/usr/bin/python3
"""The device's page in headless Chromium, as a phone and a desktop see it.

Usage: device_page.py PORT SCREENSHOT_DIR [PM25_FILE]

Opens http://127.0.0.1:PORT/ at 1280 px, reads the card, the map and the logger's
panel, waits for the next sensor reading to arrive without a reload; with PM25_FILE
(the sensor double's --pm25-file), changes the air to PM2.5 60.0 and waits for the card
to follow; checks that ages tick; then looks at the page again at 360 px; at both widths,
reads the day's figure's smallest text as rendered. Prints one JSON object of what it saw; the Swift test
decides what is right. Exit 2 when the browser cannot be started (a missing part is a
failure, never a skip).
"""

import json
import os
import re
import sys
import urllib.request

from headless import browser
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

PORT = int(sys.argv[1])
SHOTS = sys.argv[2]
PM25_FILE = sys.argv[3] if len(sys.argv) > 3 else None
BASE = f"http://127.0.0.1:{PORT}"
# Generous: the next reading comes at the sensor's interval, on a busy machine.
PATIENCE = 120


def text(driver, element_id):
    # In one script: the page replaces its card at every row, so an element found in one
    # call may be gone by the next.
    return driver.execute_script(
        "var e = document.getElementById(arguments[0]); return e ? e.innerText.trim() : null;", element_id)


def chart(driver, wait):
    """The day's figure as the page shows it: the address it was drawn for, its own and its
    shown width, and its smallest text in CSS px as rendered (the SVG's font-size scaled by
    shown width / own width). Waits for page.js to ask for the figure at its shown width."""
    wait.until(lambda d: d.execute_script("""
        var i = document.getElementById('chart');
        return i && i.complete && i.naturalWidth > 0 && (i.currentSrc || '').indexOf('width=') >= 0;
    """))
    src, shown, own = driver.execute_script("""
        var i = document.getElementById('chart');
        return [i.currentSrc, i.getBoundingClientRect().width, i.naturalWidth];
    """)
    with urllib.request.urlopen(src, timeout=60) as answer:
        svg = answer.read().decode("utf-8")
    sizes = [float(size) for size in re.findall(r'font-size="([0-9.]+)"', svg)]
    return {"src": src, "shown_width": shown, "own_width": own,
            "smallest_px": round(min(sizes) * shown / own, 2) if sizes and own else None}


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
        seen["card_class"] = driver.execute_script("return document.getElementById('card').className;")
        wait = WebDriverWait(driver, PATIENCE, poll_frequency=0.2)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#map path.here"))
        seen["track_paths"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.track"))
        seen["here_marker"] = len(driver.find_elements(By.CSS_SELECTOR, "#map path.here"))
        seen["chart_desktop"] = chart(driver, wait)
        wait.until(lambda d: text(d, "live") == "live")
        # The moment the reading arrives, as the page sees it.
        driver.execute_script("""
            window.__arrived = null;
            new MutationObserver(function () {
              var element = document.getElementById('measured-age');
              var age = element ? element.textContent : '';
              if (window.__arrived === null && age.indexOf('just now') === 0) window.__arrived = Date.now();
            }).observe(document.body, { childList: true, characterData: true, subtree: true });
        """)
        # Read in the same script as the wait's test: the ages tick and the card is replaced,
        # so a second look may already say "5 s ago".
        live = wait.until(lambda d: d.execute_script("""
            var age = document.getElementById('measured-age');
            var time = age && age.querySelector('time');
            if (!age || age.innerText.trim().indexOf('just now') !== 0) return null;
            return [document.getElementById('measured').innerText.trim(), age.innerText.trim(),
                    time ? time.getAttribute('title') : null];
        """))
        seen["live_measured"], seen["live_measured_age"], seen["live_measured_time"] = live
        # A [sensor.room] reading arrives too, on its own line, leaving the PM line as it was.
        seen["live_sensor_room"] = wait.until(
            lambda d: (lambda t: t if "just now" in t else None)(text(d, "sensor-room") or ""))
        seen["measured_after_climate"] = text(driver, "measured")
        seen["live_rows"] = text(driver, "rows")
        seen["same_load"] = driver.execute_script("return window.__sameLoad || null;")
        seen["arrived_ms"] = driver.execute_script("return window.__arrived;")
        if PM25_FILE:
            # The air changes: the whole card follows, its headline and colour too.
            before = text(driver, "aqi")
            with open(PM25_FILE, "w") as values:
                values.write("60.0\n")
            wait.until(lambda d: "PM2.5 60.0" in (text(d, "measured") or "") and text(d, "aqi") != before)
            seen["changed_measured"] = text(driver, "measured")
            seen["changed_aqi"] = text(driver, "aqi")
            seen["changed_category"] = text(driver, "category")
            seen["changed_card_class"] = driver.execute_script("return document.getElementById('card').className;")
            seen["changed_advice"] = text(driver, "advice")
            # A screen reader is told: the region that stays says the new index and category.
            seen["changed_announced"] = driver.execute_script(
                "return document.getElementById('announce').textContent;")
            seen["changed_same_load"] = driver.execute_script("return window.__sameLoad || null;")
            with urllib.request.urlopen(BASE + "/api/now", timeout=60) as answer:
                seen["changed_api_now"] = json.load(answer)
        driver.save_screenshot(os.path.join(SHOTS, "serve-desktop.png"))
        # Ages tick without a reload or an event: the reading's age set 100 s before the
        # card's moment (again on each poll, should a new card replace the element).
        driver.execute_script("window.airlocPage.events.close();")
        shift = """
            var t = document.querySelector('#measured-age time');
            var card = document.getElementById('card');
            if (t && !t.dataset.shifted) {
              t.dataset.at = new Date(Date.parse(card.dataset.now) - 100000).toISOString();
              t.dataset.shifted = 'yes';
            }
            return t ? t.textContent : null;
        """
        wait.until(lambda d: (d.execute_script(shift) or "").endswith("min ago"))
        seen["ticked_age"] = text(driver, "measured-age")

        driver.set_window_size(360, 780)
        driver.get(BASE + "/")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#map path.here"))
        seen["phone_inner_width"] = driver.execute_script("return window.innerWidth;")
        seen["phone_scroll_width"] = driver.execute_script("return document.documentElement.scrollWidth;")
        seen["phone_card_width"] = driver.execute_script(
            "return Math.round(document.getElementById('card').getBoundingClientRect().width);")
        seen["phone_aqi"] = text(driver, "aqi")
        seen["chart_phone"] = chart(driver, wait)
        driver.execute_script("document.getElementById('day').scrollIntoView();")
        driver.save_screenshot(os.path.join(SHOTS, "serve-phone-day.png"))
        driver.save_screenshot(os.path.join(SHOTS, "serve-phone.png"))
        seen["errors"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        driver.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
