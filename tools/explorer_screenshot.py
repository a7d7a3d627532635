"""Writes docs/explorer.png, the README's picture of the explorer: the page of
`grad(loss)` of examples/mlp.py, in headless Chromium, with `predict`'s line hovered.

  python tools/explorer_screenshot.py [OUT.png]

Needs Debian's chromium and chromium-driver (as the browser tests do)."""
import os
import shutil
import sys
import tempfile

import numpy as np
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "examples"))

import mlp  # noqa: E402  (examples/ is not a package)
import stablejax as sj  # noqa: E402


def page(path: str) -> None:
  rng = np.random.default_rng(0)
  params = (rng.standard_normal((4, 16), np.float32), np.zeros(16, np.float32))
  x = rng.standard_normal((64, 4), np.float32)
  y = np.tanh(x @ rng.standard_normal((4, 16), np.float32))
  sj.explore(sj.grad(mlp.loss), params, x, y, path=path)


def screenshot(html: str, out: str) -> None:
  options = webdriver.ChromeOptions()
  options.binary_location = shutil.which("chromium") or ""
  for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1500,820"):
    options.add_argument(arg)
  driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
  try:
    driver.get("file://" + html)
    line = driver.find_element(By.CSS_SELECTOR, '.src-line[data-line="10"]')  # predict's body
    ActionChains(driver).move_to_element(line).perform()
    driver.save_screenshot(out)
  finally:
    driver.quit()


if __name__ == "__main__":
  out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "docs",
                                                                           "explorer.png"))
  with tempfile.TemporaryDirectory() as tmp:
    html = os.path.join(tmp, "mlp.html")
    page(html)
    screenshot(html, out)
  print(out)
