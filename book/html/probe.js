/* book/html/probe.js: measures one rendered page of the HTML edition for book/html/check.py,
   which evaluates it in headless Chromium at each width and judges the numbers it returns.
   Returns a JSON-able object; changes nothing on the page except folding the sidebar back. */
(() => {
  const main = document.querySelector('main') || document.body;
  const root = document.scrollingElement || document.documentElement;
  const vw = document.documentElement.clientWidth;
  const out = {scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, viewport: vw,
               clipped: [], counts: {}, charts: [], overlaps: [], lines: 0, wrapped: 0,
               unindented: [], copy: {}, sidebar: {}, pager: {}, headings: [], toc: []};

  const where = (el) => {
    const own = el.closest('[id]');
    const name = el.tagName.toLowerCase() + (el.className && typeof el.className === 'string'
      ? '.' + el.className.trim().split(/\s+/).join('.') : '');
    return name + (own ? ' in #' + own.id : '');
  };
  const shown = (el) => {
    if (!el) return false;
    const s = getComputedStyle(el), r = el.getBoundingClientRect();
    return s.display !== 'none' && s.visibility !== 'hidden' && r.width > 0 && r.height > 0;
  };

  /* Clipped: content cut off where the reader cannot scroll to it. */
  const viewportClips = ['hidden', 'clip'].includes(getComputedStyle(document.documentElement).overflowX) ||
                        ['hidden', 'clip'].includes(getComputedStyle(document.body).overflowX);
  /* Anything in the text (a listing, one of its lines, a table, a cell) that hides part of its
     own content. */
  for (const el of main.querySelectorAll('*')) {
    const ov = getComputedStyle(el).overflowX;
    if ((ov === 'hidden' || ov === 'clip') && el.scrollWidth > el.clientWidth + 1 && shown(el)) {
      if (out.clipped.length < 30) out.clipped.push(where(el) + ' hides ' + (el.scrollWidth - el.clientWidth) + ' px of its own content');
    }
  }
  /* A listing, table or chart whose box reaches past an ancestor that hides instead of scrolling,
     or past the edge of a page that does not scroll sideways. */
  const kinds = {pre: 0, table: 0, img: 0, svg: 0};
  for (const el of main.querySelectorAll('pre, table, img, svg')) {
    if (!shown(el)) continue;
    kinds[el.tagName.toLowerCase()]++;
    const r = el.getBoundingClientRect();
    const ov = getComputedStyle(el).overflowX;
    if (ov === 'hidden' || ov === 'clip') continue;  /* judged above */
    let left = r.left, right = r.left + Math.max(r.width, ov === 'visible' ? el.scrollWidth : 0);
    let verdict = null;
    for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
      const aov = getComputedStyle(a).overflowX;
      if (aov === 'visible') continue;
      const ar = a.getBoundingClientRect();
      if (aov === 'auto' || aov === 'scroll') { verdict = 'scrolls'; break; }
      if (right > ar.right + 1 || left < ar.left - 1) {
        verdict = where(el) + ' is cut off by ' + where(a) + ' (' + Math.round(right - ar.right) + ' px)';
        break;
      }
    }
    if (verdict === null && viewportClips && (right > vw + 1 || left < -1)) {
      verdict = where(el) + ' reaches ' + Math.round(right - vw) + ' px past the edge of a page that does not scroll sideways';
    }
    if (verdict && verdict !== 'scrolls') out.clipped.push(verdict);
  }
  out.counts = kinds;

  /* Tables that do not fit their column: their box scrolls sideways. */
  out.tablesScroll = [];
  for (const box of main.querySelectorAll('.table-box')) {
    if (shown(box) && box.scrollWidth > box.clientWidth + 1) out.tablesScroll.push(where(box) + ' (' + (box.scrollWidth - box.clientWidth) + ' px more)');
  }
  /* Captions: a table wider than its column scrolls in its box, its caption wrapped to the box's
     width, not cut at its edge; measured with the collapsed sections (the full record) opened. */
  out.captionsCut = [];
  const closed = Array.from(main.querySelectorAll('details:not([open])'));
  closed.forEach((d) => { d.open = true; });
  for (const cap of main.querySelectorAll('.table-box > table > caption')) {
    const box = cap.closest('.table-box');
    if (!shown(cap) || !shown(box)) continue;
    const c = cap.getBoundingClientRect(), b = box.getBoundingClientRect();
    if (c.right > b.right + 2 || c.left < b.left - 2) {
      out.captionsCut.push(where(cap.parentElement) + ': its caption is ' + Math.round(c.width) + ' px wide in a ' +
                           Math.round(b.width) + ' px box ("' + cap.textContent.trim().slice(0, 40) + '...")');
    }
  }
  closed.forEach((d) => { d.open = false; });
  /* Charts: their rendered size, to set against their SVG's own size and font sizes. */
  for (const img of main.querySelectorAll('img')) {
    if (!shown(img)) continue;
    const r = img.getBoundingClientRect();
    /* The edition shown (a <picture> may pick the phone's), relative to the page. */
    const base = location.href.replace(/[#?].*$/, '').replace(/[^/]*$/, '');
    const shownSrc = (img.currentSrc || img.src).startsWith(base) ? (img.currentSrc || img.src).slice(base.length) : img.getAttribute('src');
    const box = img.closest('.chart-box');
    out.charts.push({src: shownSrc, width: r.width, height: r.height, where: where(img),
                     scrolls: box ? box.scrollWidth > box.clientWidth + 1 : false});
  }

  /* Code lines: each at least one line high and below the previous one, so that line numbers
     never overlap; a wrapped line continues no further left than its own first character. */
  for (const pre of main.querySelectorAll('pre')) {
    const lines = pre.querySelectorAll(':scope > code > span[id]');
    let prev = null;
    for (const span of lines) {
      out.lines++;
      const r = span.getBoundingClientRect();
      const lh = parseFloat(getComputedStyle(span).lineHeight) || 16;
      if (r.height < 0.9 * lh || (prev && r.top - prev.top < 0.9 * lh)) {
        if (out.overlaps.length < 20) out.overlaps.push('#' + span.id + ' (' + Math.round(r.top - (prev ? prev.top : r.top)) + ' px below the line before, ' + Math.round(r.height) + ' px high, line height ' + Math.round(lh) + ')');
      }
      prev = r;
      if (r.height < 1.5 * lh) continue;
      /* Wrapped: the x of its first non-blank character, and the left of every later line. */
      const walker = document.createTreeWalker(span, NodeFilter.SHOW_TEXT);
      let first = null;
      for (let n = walker.nextNode(); n && !first; n = walker.nextNode()) {
        const k = n.data.search(/\S/);
        if (k >= 0) {
          const rg = document.createRange();
          rg.setStart(n, k);
          rg.setEnd(n, k + 1);
          first = rg.getClientRects()[0];
        }
      }
      if (!first) continue;
      out.wrapped++;
      const all = document.createRange();
      all.selectNodeContents(span);
      const boxes = Array.from(all.getClientRects()).filter((b) => b.width >= 1);
      if (!boxes.length) continue;
      /* Where the line starts (its first column, blank or not) and how wide it is: an indentation
         deeper than 40% of that width need only be kept to 40%. */
      const start = Math.min.apply(null, boxes.filter((b) => b.top < boxes[0].top + lh / 2).map((b) => b.left));
      const keep = Math.min(first.left, start + 0.4 * (r.right - start));
      for (const box of boxes) {
        if (box.top < first.top + lh / 2) continue;
        if (box.left < keep - 1) {
          if (out.unindented.length < 20) out.unindented.push('#' + span.id + ' continues ' + Math.round(keep - box.left) + ' px left of where its indentation puts it');
          break;
        }
      }
    }
  }

  /* Copy buttons. */
  out.copy = {blocks: main.querySelectorAll('div.sourceCode').length,
              buttons: main.querySelectorAll('.copy-button').length};

  /* The sidebar and the pager. */
  const sidebar = document.getElementById('sidebar');
  const toggle = document.getElementById('toc-toggle');
  const s = out.sidebar;
  s.present = !!sidebar;
  s.links = sidebar ? sidebar.querySelectorAll('ol.toc a').length : 0;
  s.shown = shown(sidebar);
  s.toggleShown = shown(toggle);
  if (sidebar) {
    const r = sidebar.getBoundingClientRect();
    s.inView = r.left >= -1 && r.right <= vw + 1 && r.top <= 1 && r.bottom > 200;
    window.scrollTo(0, root.scrollHeight);
    const r2 = sidebar.getBoundingClientRect();
    s.inViewAtEnd = shown(sidebar) && r2.top <= 1 && r2.bottom > 200;
    window.scrollTo(0, 0);
    if (toggle && s.toggleShown) {
      toggle.click();
      const r3 = sidebar.getBoundingClientRect();
      s.unfolds = shown(sidebar) && r3.width > vw / 2 && r3.top < window.innerHeight / 2;
      toggle.click();
      s.foldsAgain = !shown(sidebar);
    }
  }
  for (const where_ of ['top', 'bottom']) {
    const nav = document.querySelector('nav.pager-' + where_);
    out.pager[where_] = nav ? {
      shown: shown(nav),
      prev: nav.querySelector('a[rel="prev"]') ? nav.querySelector('a[rel="prev"]').getAttribute('href') : null,
      next: nav.querySelector('a[rel="next"]') ? nav.querySelector('a[rel="next"]').getAttribute('href') : null
    } : null;
  }
  if (sidebar) {
    out.toc = Array.from(sidebar.querySelectorAll('ol.toc a')).filter((a) => !a.closest('.toc-sections'))
      .map((a) => a.getAttribute('href'));
  }

  /* Sections with ids: heading and the first words of their first paragraph (what search must find). */
  for (const sec of main.querySelectorAll('section[id]')) {
    const h = sec.querySelector(':scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > h5, :scope > h6');
    const para = sec.querySelector(':scope > p');
    const words = para ? para.textContent.trim().split(/\s+/).slice(0, 8).join(' ') : '';
    if (h && h.textContent.trim()) out.headings.push([sec.id, h.textContent.trim(), words]);
  }
  return out;
})()
