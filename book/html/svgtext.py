"""How large a chart's text is: the HTML edition's one rule for charts on screen (their smallest
text at MIN_TEXT_PX or more, as rendered) and the reading of an SVG it rests on. site.py gives each
chart the width that keeps the rule; check.py checks the rendered pages against it."""

import re

MIN_TEXT_PX = 11


def svg_text_size(path):
    """(viewBox width, viewBox height, smallest font size) of an SVG file, or None where it has no
    viewBox or no font size."""
    try:
        svg = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return None
    vb = re.search(r'viewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)', svg)
    sizes = [float(x) for x in re.findall(r'font-size(?:="|:\s*)([\d.]+)', svg)]
    if not vb or not sizes:
        return None
    return float(vb.group(1)), float(vb.group(2)), min(sizes)
