/* book/html/book.js: the one script of the HTML edition (copied to book/out/html/book.js).
   The contents button of a phone, the sidebar scrolled to the current page, a copy button on
   every listing, the search page (its hits open their page with the words marked), the left
   and right arrow keys for the previous and next page, and the theme button. Works from file:// without a network: the search index
   is a script (search-index.js) that search.html loads, not a file fetched. */
(function () {
  'use strict';

  /* Contents: on a narrow screen the sidebar is folded behind the button of the top bar. */
  var toggle = document.getElementById('toc-toggle');
  var sidebar = document.getElementById('sidebar');
  function showCurrent() {  /* the current page's entry a third of the way down the sidebar */
    var current = sidebar && sidebar.querySelector('[aria-current="page"]');
    if (current) sidebar.scrollTop = Math.max(0, current.offsetTop - sidebar.clientHeight / 3);
  }
  function setOpen(open) {
    document.body.classList.toggle('toc-open', open);
    if (toggle) {
      toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
      toggle.textContent = open ? '\u2715 Close' : '\u2630 Contents';
    }
    if (open) showCurrent();
  }
  if (toggle && sidebar) {
    toggle.addEventListener('click', function () {
      setOpen(!document.body.classList.contains('toc-open'));
    });
    sidebar.addEventListener('click', function (e) {
      if (e.target.closest && e.target.closest('a')) setOpen(false);
    });
    document.addEventListener('keydown', function (e) {
      if (e.key === 'Escape') setOpen(false);
    });
    showCurrent();
  }

  /* Theme: the system's setting unless the reader chose light or dark with the button (kept in
     localStorage, where the browser allows it): data-theme on the root, which the style sheet's
     dark rules read (book/html/site.py scopes them). */
  var THEMES = ['system', 'light', 'dark'];
  function stored() { try { return localStorage.getItem('book-theme') || 'system'; } catch (e) { return 'system'; } }
  function applyTheme(theme) {
    if (theme === 'system') document.documentElement.removeAttribute('data-theme');
    else document.documentElement.setAttribute('data-theme', theme);
    document.querySelectorAll('.theme-toggle').forEach(function (b) {
      b.textContent = '\u25d0 ' + theme.charAt(0).toUpperCase() + theme.slice(1);
      b.setAttribute('aria-label', 'Theme: ' + theme + ' (click for ' + THEMES[(THEMES.indexOf(theme) + 1) % 3] + ')');
    });
  }
  applyTheme(stored());
  document.querySelectorAll('.theme-toggle').forEach(function (b) {
    b.addEventListener('click', function () {
      var next = THEMES[(THEMES.indexOf(stored()) + 1) % THEMES.length];
      try { localStorage.setItem('book-theme', next); } catch (e) { /* not kept across pages */ }
      applyTheme(next);
    });
  });

  /* Left and right arrow keys: the previous and the next page (not while typing, nor with a
     modifier key, which the browser keeps for itself). */
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.defaultPrevented) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var rel = e.key === 'ArrowLeft' ? 'prev' : e.key === 'ArrowRight' ? 'next' : null;
    var link = rel && document.querySelector('nav.pager a[rel="' + rel + '"]');
    if (link) { e.preventDefault(); location.href = link.href; }
  });

  /* A page opened from a search hit (?h=words): the words marked in its text, the first one
     scrolled into view. */
  var wanted = new URLSearchParams(location.search).get('h');
  var main = document.getElementById('content');
  if (wanted && main) {
    var terms = wanted.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 1; });
    var scope = (location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)))) || main;
    var walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT, {acceptNode: function (n) {
      return n.parentNode.closest('script, style, mark, nav, pre, svg') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
    }});
    var nodes = [], n;
    while ((n = walker.nextNode())) nodes.push(n);
    var first = null;
    nodes.forEach(function (node) {
      var text = node.nodeValue, low = text.toLowerCase(), pos = 0, frag = null;
      while (pos < text.length) {
        var best = -1, len = 0;
        terms.forEach(function (w) {
          var i = low.indexOf(w, pos);
          if (i !== -1 && (best === -1 || i < best)) { best = i; len = w.length; }
        });
        if (best === -1) break;
        frag = frag || document.createDocumentFragment();
        frag.appendChild(document.createTextNode(text.slice(pos, best)));
        var mark = document.createElement('mark');
        mark.className = 'search-mark';
        mark.textContent = text.slice(best, best + len);
        frag.appendChild(mark);
        first = first || mark;
        pos = best + len;
      }
      if (frag) { frag.appendChild(document.createTextNode(text.slice(pos))); node.parentNode.replaceChild(frag, node); }
    });
    if (first) first.scrollIntoView({block: 'center'});
  }

  /* Copy buttons: the code's text, without the line numbers (those are drawn by CSS). */
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).then(function () { return true; },
                                                      function () { return fallback(text); });
    }
    return Promise.resolve(fallback(text));
  }
  function fallback(text) {
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    area.remove();
    return ok;
  }
  var blocks = document.querySelectorAll('main div.sourceCode');
  Array.prototype.forEach.call(blocks, function (block) {
    var code = block.querySelector('code');
    if (!code) return;
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy-button';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy this code');
    button.addEventListener('click', function () {
      copyText(code.textContent).then(function (ok) {
        button.textContent = ok ? 'Copied' : 'Select and copy';
        setTimeout(function () { button.textContent = 'Copy'; }, 1600);
      });
    });
    var bar = document.createElement('div');
    bar.className = 'code-bar';
    var listing = block.closest('.listing');
    var caption = listing && listing.querySelector('.listing-caption');
    if (caption && caption.nextElementSibling === block) {
      caption.classList.add('with-copy');
      caption.appendChild(button);
    } else {
      bar.appendChild(button);
      block.parentNode.insertBefore(bar, block);
    }
  });

  /* Search: every section that contains all the words of the query, best first. */
  function norm(s) {
    return s.toLowerCase().replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"')
            .replace(/[\u00a0\s]+/g, ' ');
  }
  function count(hay, needle) {
    var n = 0, i = hay.indexOf(needle);
    while (i !== -1 && n < 20) { n++; i = hay.indexOf(needle, i + needle.length); }
    return n;
  }
  var prepared = null;
  function search(query) {
    var index = window.BOOK_INDEX;
    if (!index) return [];
    if (!prepared) {
      prepared = index.entries.map(function (e) {
        return {page: e[0], id: e[1], heading: e[2], text: e[3], lheading: norm(e[2]), ltext: norm(e[3])};
      });
    }
    var phrase = norm(query).trim();
    var words = phrase.split(' ').filter(function (w) { return w.length > 0; });
    if (!words.length) return [];
    var results = [];
    prepared.forEach(function (e, order) {
      var score = 0;
      for (var k = 0; k < words.length; k++) {
        var inHeading = e.lheading.indexOf(words[k]) !== -1;
        var n = count(e.ltext, words[k]);
        if (!n && !inHeading) return;
        score += (inHeading ? 10 : 0) + Math.min(n, 5);
      }
      if (words.length > 1) {  /* the words together, as typed, count more */
        score += (e.lheading.indexOf(phrase) !== -1 ? 20 : 0) + (e.ltext.indexOf(phrase) !== -1 ? 5 : 0);
      }
      var page = index.pages[e.page];
      results.push({
        href: page[0] + (e.id && e.id !== pageTopId(e) ? '#' + e.id : ''),
        page: page[1], heading: e.heading, score: score, order: order, entry: e, words: words
      });
    });
    results.sort(function (a, b) { return b.score - a.score || a.order - b.order; });
    return results;
  }
  var topIds = {};
  function pageTopId(e) {
    /* The first entry with an id on a page is its top section: link to the page alone. */
    if (!(e.page in topIds)) {
      var first = prepared.find(function (x) { return x.page === e.page && x.id; });
      topIds[e.page] = first ? first.id : '';
    }
    return topIds[e.page];
  }
  window.bookSearch = function (query) {
    return search(query).map(function (r) {
      return {href: r.href, page: r.page, heading: r.heading, score: r.score};
    });
  };
  function snippet(r) {
    var text = r.entry.text, low = norm(text), at = -1;
    for (var k = 0; k < r.words.length && at === -1; k++) at = low.indexOf(r.words[k]);
    var start = Math.max(0, at - 80), end = Math.min(text.length, Math.max(at, 0) + 160);
    var piece = (start > 0 ? '…' : '') + text.slice(start, end) + (end < text.length ? '…' : '');
    var frag = document.createDocumentFragment(), lowPiece = norm(piece), pos = 0;
    while (pos < piece.length) {
      var best = -1, len = 0;
      r.words.forEach(function (w) {
        var i = lowPiece.indexOf(w, pos);
        if (i !== -1 && (best === -1 || i < best)) { best = i; len = w.length; }
      });
      if (best === -1) { frag.appendChild(document.createTextNode(piece.slice(pos))); break; }
      frag.appendChild(document.createTextNode(piece.slice(pos, best)));
      var mark = document.createElement('mark');
      mark.textContent = piece.slice(best, best + len);
      frag.appendChild(mark);
      pos = best + len;
    }
    return frag;
  }
  var list = document.getElementById('search-results');
  if (list) {
    var input = document.getElementById('search-q');
    var status = document.getElementById('search-status');
    var show = function () {
      var q = input.value.trim();
      list.textContent = '';
      if (!window.BOOK_INDEX) { status.textContent = 'The search index (search-index.js) did not load.'; return; }
      if (!q) { status.textContent = 'Type words to find; every section that has all of them is listed.'; return; }
      var results = search(q);
      status.textContent = results.length === 0 ? 'No section has all of these words.'
        : results.length + (results.length === 1 ? ' section has' : ' sections have') + ' all of these words' +
          (results.length > 100 ? '; the first 100:' : ':');
      results.slice(0, 100).forEach(function (r) {
        var li = document.createElement('li');
        var a = document.createElement('a');
        /* the hit's page marks the words it was found by (?h=) */
        var at = r.href.indexOf('#');
        a.href = (at === -1 ? r.href : r.href.slice(0, at)) + '?h=' + encodeURIComponent(r.words.join(' ')) +
          (at === -1 ? '' : r.href.slice(at));
        a.className = 'search-hit';
        a.textContent = r.heading === r.page ? r.page : r.page + ' › ' + r.heading;
        var p = document.createElement('p');
        p.className = 'search-snippet';
        p.appendChild(snippet(r));
        li.appendChild(a);
        li.appendChild(p);
        list.appendChild(li);
      });
    };
    var params = new URLSearchParams(location.search);
    input.value = params.get('q') || '';
    document.querySelectorAll('input[name="q"]').forEach(function (i) { i.value = input.value; });
    show();
    var timer = null;
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        show();
        var url = new URL(location.href);
        url.searchParams.set('q', input.value);
        try { history.replaceState(null, '', url.href); } catch (e) { /* file:// may refuse */ }
      }, 150);
    });
  }
})();
