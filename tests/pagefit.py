"""Whether a report page fits a window, measured in headless Chromium (``tests.browser``), not eyeballed.

``fit(browser, page, width)`` loads ``page`` in a window ``width`` pixels wide, saves a screenshot of the whole
page beside it, and returns what does not fit, one line each:

- ``page``: the page itself scrolls sideways (something sticks out of it, or is cut off at its edge);
- ``cell``: a table cell whose content is wider than the cell (it spills over the next column, or is hidden);
- ``word``: a word of a cell broken over two lines or more (a column squeezed below its longest word: "Spec"
  three letters a line), as the browser laid it out (the word's boxes on two lines); a word may break after a
  ``/`` (a path) or a hyphen (``basic-strategy``), and Chinese between any two characters, where people break
  them too;
- ``chart``: a chart wider than the space it has, a label cut off at its edge, or two labels of a chart drawn
  over each other;
- ``hidden``: a table wider than the page, shown in a frame that scrolls sideways (acceptable only in a narrow
  window: at 1,400 pixels every column must be in view).
"""

from __future__ import annotations

import base64
from pathlib import Path

from tests.browser import Browser

__all__ = ["fit", "MEASURE"]

#: The measurements, in the page: a list of [kind, what] pairs.
MEASURE = r"""
(function () {
  var out = [];
  var root = document.documentElement;
  if (root.scrollWidth > window.innerWidth + 1) {
    out.push(["page", "the page is " + root.scrollWidth + " px wide in a " + window.innerWidth + " px window"]);
  }
  function name(el) {
    var t = el.closest("table");
    return (t && t.id ? "#" + t.id + " " : "") + el.tagName.toLowerCase() + " '" +
      el.textContent.trim().slice(0, 40) + "'";
  }
  document.querySelectorAll("table").forEach(function (t) {
    if (t.scrollWidth > t.clientWidth + 1) {
      out.push(["hidden", (t.id || "a table") + " is " + t.scrollWidth + " px wide in " + t.clientWidth + " px"]);
    }
  });
  document.querySelectorAll("td, th").forEach(function (c) {
    if (c.offsetParent === null) { return; }  // not displayed (a closed <details>)
    if (c.scrollWidth > c.clientWidth + 1) {
      out.push(["cell", name(c) + ": content " + c.scrollWidth + " px in a " + c.clientWidth + " px cell"]);
    }
    var walker = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      var el = n.parentElement;
      if (!el || el.offsetParent === null || el.closest("svg")) { continue; }
      // A word; it may break after a "/" (a path) or a hyphen (basic-strategy), and Chinese between characters.
      var re = /[\u2e80-\u9fff\uf900-\ufaff]|[^\s\/\u2e80-\u9fff\uf900-\ufaff-]+[\/-]?/g, m;
      while ((m = re.exec(n.textContent)) !== null) {
        var range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        var tops = {};
        Array.prototype.forEach.call(range.getClientRects(), function (r) {
          if (r.width > 0) { tops[Math.round(r.top)] = true; }
        });
        if (Object.keys(tops).length > 1) {
          out.push(["word", name(c) + ": '" + m[0].slice(0, 30) + "' is broken over " + Object.keys(tops).length +
                    " lines"]);
        }
      }
    }
  });
  document.querySelectorAll("svg").forEach(function (s) {
    var box = s.getBoundingClientRect(), room = s.parentElement.getBoundingClientRect();
    if (box.right > room.right + 1 || box.right > window.innerWidth + 1) {
      out.push(["chart", "a chart reaches " + Math.round(box.right) + " px, past " + Math.round(room.right)]);
    }
    var labels = Array.prototype.map.call(s.querySelectorAll("text.label"), function (t) {
      return [t.textContent, t.getBoundingClientRect()];
    });
    labels.forEach(function (l) {
      if (l[1].left < box.left - 1 || l[1].right > box.right + 1) {
        out.push(["chart", "label '" + l[0] + "' is cut off at the chart's edge"]);
      }
    });
    for (var i = 0; i < labels.length; i++) {
      for (var j = i + 1; j < labels.length; j++) {
        var a = labels[i][1], b = labels[j][1];
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
          out.push(["chart", "labels '" + labels[i][0] + "' and '" + labels[j][0] + "' overlap"]);
        }
      }
    }
  });
  return out;
})()
"""


def fit(b: Browser, page: Path, width: int, height: int = 1000) -> list[tuple[str, str]]:
    """What of ``page`` does not fit a window ``width`` pixels wide (``MEASURE``); its screenshot is saved as
    ``PAGE-WIDTH.png`` beside it."""
    b.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                  "mobile": False})
    b.open(page.as_uri(), "document.readyState === 'complete'")
    found = [(str(kind), str(what)) for kind, what in b.eval(MEASURE)]
    shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
    page.with_name(f"{page.stem}-{width}.png").write_bytes(base64.b64decode(shot["data"]))
    return found
