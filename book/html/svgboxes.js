/* book/html/svgboxes.js: measures one chart (an SVG file opened on its own) for book/html/check.py:
   the box of every text, the canvas (viewBox), and the key's samples (short lines beside key text). */
(() => {
  const svg = document.documentElement;
  const vb = svg.viewBox && svg.viewBox.baseVal;
  const r0 = svg.getBoundingClientRect();
  const sx = vb && vb.width ? r0.width / vb.width : 1, sy = vb && vb.height ? r0.height / vb.height : 1;
  const box = (r) => [(r.left - r0.left) / sx, (r.top - r0.top) / sy, (r.right - r0.left) / sx, (r.bottom - r0.top) / sy];
  const texts = Array.from(svg.querySelectorAll('text')).filter((t) => t.textContent.trim())
    .map((t) => ({text: t.textContent.trim(), box: box(t.getBoundingClientRect())}));
  return {width: vb ? vb.width : r0.width, height: vb ? vb.height : r0.height, texts: texts};
})()
