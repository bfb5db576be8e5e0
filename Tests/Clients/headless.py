"""Headless Chromium for the page tests (device_page.py, fleet_page.py).

A missing part is a failure, never a skip: without selenium or a browser that starts,
the scripts exit 2 with the reason.
"""

import sys

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError as error:
    print(f"selenium is not installed ({error}): make test-deps installs python3-selenium", file=sys.stderr)
    sys.exit(2)


def browser(width, height):
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--no-first-run", "--hide-scrollbars", f"--window-size={width},{height}"):
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    try:
        return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    except Exception as error:  # noqa: BLE001 - the reason is what the test needs to see
        print(f"headless Chromium did not start: {error}", file=sys.stderr)
        sys.exit(2)
