#!/usr/bin/env python3
"""book/html/site.py: the HTML edition, cut out of Pandoc's one-pass output.

    site.py PANDOC.html CSS JS OUT

PANDOC.html is what Pandoc writes with book/html/template.html (--section-divs). Pandoc 2.17 has
no writer for an HTML book of several pages, so this script makes one (standard library only):

  OUT/html/index.html       the title, the contents and the first section of the front matter
  OUT/html/<id>.html        a page per other front-matter section, part introduction, chapter,
                            summary and appendix, named after its section's id; every link into
                            another page rewritten to point there
  OUT/html/chapters/NN-slug/FILE.html   each source file of a chapter (book/book.lua's .source-file
                            divs, cut out of the last page), highlighted, outside the reading order
  OUT/html/search.html      the search page; OUT/html/search-index.js its index, one entry per
                            section (loaded as a <script>, so that it works from file://)
  OUT/html/book.css, book.js, charts/   the one style sheet, the one script, the charts (SVG)
  OUT/book.html             the whole book on one self-contained page (styles and charts inlined)

Every page has the sidebar (the contents, with the current page's sections, and a search box),
and previous and next links. Charts are boxes that scroll sideways where the column is too narrow
to show their smallest text at MIN_TEXT_PX or more. Code lines carry their indentation
(--i, in characters) so that a wrapped line continues under its own first character."""

import base64
import html
import json
import os
import re
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svgtext import MIN_TEXT_PX, svg_text_size  # noqa: E402

BOOK_TITLE = "CUDA Performance Guidelines, Measured"


def die(msg):
    print(f"error: book/html/site.py: {msg}", file=sys.stderr)
    sys.exit(1)


BLOCK_TAGS = re.compile(r"</?(?:p|div|section|h[1-6]|li|ul|ol|dl|dt|dd|pre|table|caption|thead|"
                        r"tbody|tr|td|th|figure|figcaption|blockquote|header|nav|br|hr)\b[^>]*>", re.I)


def text_of(fragment):
    """The visible text of an HTML fragment, white space collapsed: a block's tags part words,
    an inline element's (code, emphasis, links) do not."""
    text = re.sub(r"<[^>]*>", "", BLOCK_TAGS.sub(" ", fragment))
    return re.sub(r"\s+", " ", html.unescape(text)).strip()


class Section:
    def __init__(self, start, open_end, attrs):
        self.start, self.open_end, self.attrs = start, open_end, attrs
        self.id = (re.search(r'\bid="([^"]*)"', attrs) or [None, ""])[1]
        self.classes = (re.search(r'\bclass="([^"]*)"', attrs) or [None, ""])[1].split()
        self.close = self.end = None
        self.children = []

    def level(self):
        return next((int(c[5:]) for c in self.classes if re.fullmatch(r"level\d", c)), 9)


def section_tree(body):
    """The <section> elements of BODY as a tree (Pandoc writes them with --section-divs; a
    listing's '<section' is escaped, so every tag found here is one)."""
    root = Section(0, 0, "")
    stack = [root]
    for m in re.finditer(r"<section\b([^>]*)>|</section>", body):
        if m.group(0).startswith("</"):
            if len(stack) == 1:
                die(f"unbalanced </section> at offset {m.start()}")
            s = stack.pop()
            s.close, s.end = m.start(), m.end()
        else:
            s = Section(m.start(), m.end(), m.group(1))
            stack[-1].children.append(s)
            stack.append(s)
    if len(stack) != 1:
        die("unclosed <section>")
    return root.children


def heading(fragment):
    m = re.search(r"<h([1-6])\b[^>]*>(.*?)</h\1>", fragment, re.S)
    return text_of(m.group(2)) if m else ""


class Page:
    def __init__(self, file, title, html_, kind, part=None, sid=None):
        self.file, self.title, self.html, self.kind, self.part, self.id = file, title, html_, kind, part, sid
        self.children = []  # the chapters of a part, for the contents


# A chapter's source file (book/book.lua source_blocks): a paragraph and its listing.
SOURCE_FILE = re.compile(r'<div id="(src-[^"]*)"\s+class="source-file"\s+data-path="([^"]*)">.*?</pre></div>\s*</div>',
                         re.S)


def cut_pages(body):
    """The pages, in reading order: index (the first front section), then one per top-level
    section; a section of chapters (a part) gives its introduction and one page per chapter."""
    tops = section_tree(body)
    if not tops:
        die("no sections in the Pandoc output (was it written with --section-divs?)")
    pages = []
    lead = body[:tops[0].start]
    first = tops[0] if tops[0].level() >= 2 else None
    index_html = lead + (body[first.start:first.end] if first else "")
    pages.append(Page("index.html", heading(body[first.start:first.end]) if first else "Front page",
                      index_html, "index", sid=first.id if first else None))
    for s in tops:
        if s is first:
            continue
        name = re.sub(r"[^A-Za-z0-9_-]", "-", s.id) or f"section-{len(pages)}"
        chapters = [c for c in s.children if "chapter" in c.classes]
        if not chapters:
            pages.append(Page(name + ".html", heading(body[s.start:s.end]), body[s.start:s.end],
                              "section", sid=s.id))
            continue
        # A part: its introduction (the section without its chapters), then the chapters.
        intro, pos = [body[s.start:s.open_end]], s.open_end
        for c in chapters:
            intro.append(body[pos:c.start])
            pos = c.end
        intro.append(body[pos:s.end])
        part = Page(name + ".html", heading(body[s.start:s.end]), "".join(intro), "part", sid=s.id)
        pages.append(part)
        for c in chapters:
            cname = re.sub(r"[^A-Za-z0-9_-]", "-", c.id)
            page = Page(cname + ".html", heading(body[c.start:c.end]), body[c.start:c.end],
                        "chapter", part=part, sid=c.id)
            part.children.append(page)
            pages.append(page)
    files = [p.file for p in pages]
    if len(set(files)) != len(files):
        die(f"two sections give one page name: {sorted(f for f in files if files.count(f) > 1)}")
    return pages


# --- Code lines: indentation for wrapped lines ------------------------------------------------

LINE = re.compile(r'<span id="((?:cb|pl)\d+-\d+)">((?:<a [^>]*></a>)?)([^\n]*)')


def indent_lines(fragment):
    """Each code line's span gets style="--i:N" (N leading spaces; a tab counts 4), which
    book.css turns into a hanging indent: a wrapped line continues under its first character.
    A plain code block (no highlighting, so no line spans) gets a span per line first."""
    counter = iter(range(1, 1 << 30))

    def plain(m):
        block = f"pl{next(counter)}"
        lines = m.group(1).split("\n")
        spans = [f'<span id="{block}-{k}">{line}</span>' for k, line in enumerate(lines, 1)]
        return '<pre class="plain"><code class="sourceCode">' + "\n".join(spans) + "</code></pre>"
    fragment = re.sub(r"<pre><code>(.*?)</code></pre>", plain, fragment, flags=re.S)

    def block(m):
        diff = re.search(r'class="[^"]*\bdiff\b', m.group(1)) is not None

        def one(line):
            rest = html.unescape(re.sub(r"<[^>]*>", "", line.group(3)))
            mark = rest[:1] if diff and rest[:1] in "+- " else ""  # a diff line's own first column
            body = rest[len(mark):]
            n = len(mark) + len(body) - len(body.lstrip(" \t")) + 3 * body[:len(body) - len(body.lstrip(" \t"))].count("\t")
            style = f' style="--i:{n}"' if n else ""
            return f'<span id="{line.group(1)}"{style}>{line.group(2)}{line.group(3)}'
        return f"<pre{m.group(1)}>{LINE.sub(one, m.group(2))}</pre>"
    return re.sub(r"<pre\b([^>]*)>(.*?)</pre>", block, fragment, flags=re.S)


# --- Tables --------------------------------------------------------------------------------------

WIDE_COLUMNS = 5  # a table of this many columns or more is laid out as cards on a phone (book.css)


def labelled(table):
    """A table of WIDE_COLUMNS columns or more: class "wide", and each cell labelled with its
    column's heading (data-label), so that a phone shows each row as a card of label: value
    pairs that fits the column, where the rows themselves would not."""
    head = re.search(r"<thead>(.*?)</thead>", table, re.S)
    names = [re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]*>", "", h))).strip()
             for h in re.findall(r"<th\b[^>]*>(.*?)</th>", head.group(1), re.S)] if head else []
    if len(names) < WIDE_COLUMNS:
        return table

    def row(m):
        cells = iter(names)
        return re.sub(r"<td\b", lambda c: f'<td data-label="{html.escape(next(cells, ""))}"', m.group(0))
    body = re.sub(r"<tr\b.*?</tr>", row, table[head.end():], flags=re.S)
    return re.sub(r"^<table\b", '<table class="wide"', table[:head.end()]) + body


# --- Charts ------------------------------------------------------------------------------------

class Images:
    """Copies each local image into OUT/html/charts once and says how to show it."""

    def __init__(self, site):
        self.site, self.names = site, {}

    def local(self, src):
        src = html.unescape(src)
        if src in self.names:
            return self.names[src]
        if not os.path.isfile(src):
            die(f"image {src} does not exist")
        name = os.path.basename(src)
        if name in self.names.values():
            name = f"{len(self.names)}-{name}"
        os.makedirs(os.path.join(self.site, "charts"), exist_ok=True)
        shutil.copyfile(src, os.path.join(self.site, "charts", name))
        self.names[src] = "charts/" + name
        return self.names[src]


def charts(fragment, images, inline=False):
    """Every <img> of a local file: copied into the site (or inlined as a data: URL), sized by its
    viewBox, at least as wide as keeps its smallest text at MIN_TEXT_PX, in a box that
    scrolls sideways when the column is narrower, linked to the chart alone at full size."""
    def one(m):
        tag = m.group(0)
        src = html.unescape(re.search(r'\bsrc="([^"]*)"', tag).group(1))
        if re.match(r"(data:|https?:|//)", src):
            return tag
        rel = images.local(src)
        attrs = re.sub(r'\s(src|style|width|height)="[^"]*"', "", tag[4:].rstrip("/> \n"))
        dims, style = "", ""
        metrics = svg_text_size(src) if src.endswith(".svg") else None
        if metrics:
            w, h, font = metrics
            dims = f' width="{w:g}" height="{h:g}"'
            style = f' style="min-width:{-(-w * MIN_TEXT_PX // font):.0f}px"'
        # A phone (a column under 600 px) gets the chart's narrow edition (charts.lua), which
        # fits its column whole with its text at MIN_TEXT_PX or more.
        phone = src[:-4] + "-phone.svg" if src.endswith(".svg") else None
        phone = phone if phone and os.path.isfile(phone) else None
        if inline:
            def url_of(path):
                data = base64.b64encode(open(path, "rb").read()).decode()
                return f"data:{'image/svg+xml' if path.endswith('.svg') else 'image/png'};base64,{data}"
            source = f'<source media="(max-width: 600px)" srcset="{url_of(phone)}">' if phone else ""
            return f'<div class="chart-box"><picture>{source}<img src="{url_of(src)}"{dims}{style}{attrs}></picture></div>'
        source = f'<source media="(max-width: 600px)" srcset="{images.local(phone)}">' if phone else ""
        return (f'<div class="chart-box"><a class="chart-link" href="{rel}" title="The chart alone, '
                f'full size"><picture>{source}<img src="{rel}"{dims}{style}{attrs}></picture></a></div>')
    return re.sub(r"<img\b[^>]*>", one, fragment)


# --- Links --------------------------------------------------------------------------------------

def relink(page, where):
    """href="#id" to a section of another page becomes href="page.html#id" (the page alone for
    its own top section)."""
    def one(m):
        target = html.unescape(m.group(1))
        owner = where.get(target)
        if owner is None or owner is page:
            return m.group(0)
        return f'href="{owner.file}"' if target == owner.id else f'href="{owner.file}#{m.group(1)}"'
    return re.sub(r'href="#([^"]*)"', one, page.html)


# --- Chrome: the sidebar, the pager, the page --------------------------------------------------

def esc(s):
    return html.escape(s, quote=True)


def sections_of(page):
    """(id, heading text) of the page's sections one level below its top, for the sidebar."""
    out = [("contents-heading", "Contents")] if page.kind == "index" else []
    for s in section_tree(page.html):
        for c in s.children:
            t = heading(page.html[c.start:c.end])
            if c.id and t:
                out.append((c.id, t))
    return out


def contents(pages, current=None, sub=(), link=lambda p: p.file):
    """The contents as nested lists: top pages, a part's chapters under it; the current page
    marked, with its sections SUB under it. LINK gives a page's address."""
    def item(p):
        cur = ' aria-current="page"' if p is current else ""
        li = [f'<li class="toc-{p.kind}"><a href="{esc(link(p))}"{cur}>{esc(p.title)}</a>']
        if p is current and sub:
            li.append('<ul class="toc-sections">' + "".join(
                f'<li><a href="#{esc(i)}">{esc(t)}</a></li>' for i, t in sub) + "</ul>")
        if p.children:
            li.append("<ol>" + "".join(item(c) for c in p.children) + "</ol>")
        li.append("</li>")
        return "".join(li)
    return '<ol class="toc">' + "".join(item(p) for p in pages if p.kind != "chapter") + "</ol>"


def sidebar(pages, current, sub):
    return (f'<nav id="sidebar" aria-label="Contents"><div class="sidebar-head">'
            f'<p class="sidebar-title"><a href="index.html">{esc(BOOK_TITLE)}</a></p>'
            f'<button type="button" class="theme-toggle" aria-label="Theme">◐ System</button>'
            f'<form class="search-form" action="search.html" method="get" role="search">'
            f'<input type="search" name="q" placeholder="Search the book" aria-label="Search the book">'
            f'</form></div>{contents(pages, current, sub)}</nav>')


def pager(prev, nxt, where):
    links = []
    if prev:
        links.append(f'<a rel="prev" href="{prev.file}"><span class="pager-dir">← Previous</span> '
                     f'<span class="pager-title">{esc(prev.title)}</span></a>')
    if nxt:
        links.append(f'<a rel="next" href="{nxt.file}"><span class="pager-dir">Next →</span> '
                     f'<span class="pager-title">{esc(nxt.title)}</span></a>')
    return f'<nav class="pager pager-{where}" aria-label="Previous and next">{"".join(links)}</nav>'


def themed(css):
    """The theme button (book.js sets data-theme on the root: light, dark, or none for the
    system's setting): each of book.css's dark blocks, @media (prefers-color-scheme: dark), is
    kept for the system's dark unless the reader chose light, and repeated for a chosen dark.
    book.css stays the one owner of the dark colours."""
    def scope(body, attr):
        def rule(m):
            sels = [x.strip() for x in m.group(1).split(",")]
            sels = [(":root" + attr + x[5:]) if x.startswith(":root") else f":root{attr} {x}" for x in sels]
            return ", ".join(sels) + " {" + m.group(2) + "}\n"
        return re.sub(r"([^{}]+?)\s*\{([^{}]*)\}", rule, body)
    def block(m):
        body = m.group(1)
        return ("@media (prefers-color-scheme: dark) {\n" + scope(body, ':not([data-theme="light"])') + "\n}\n"
                + scope(body, '[data-theme="dark"]') + "\n")
    css = re.sub(r"@media \(prefers-color-scheme: dark\) \{((?:[^{}]*\{[^{}]*\})*[^{}]*)\}", block, css)
    return css + (':root[data-theme="light"] { color-scheme: light; }\n'
                  ':root[data-theme="dark"] { color-scheme: dark; }\n')


def document(lang, title, head, kind, body):
    """An HTML document: HEAD after its title, BODY in <body class="KIND">."""
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title>
{head}
</head>
<body class="{kind}">
{body}
</body>
</html>
"""


def page_html(title, lang, body, side, scripts=()):
    head = '<link rel="stylesheet" href="book.css">\n' + "".join(f'<script src="{s}"></script>' for s in scripts)
    return document(lang, title, head + '<script src="book.js" defer></script>', "site", f"""<header class="topbar">
<button type="button" id="toc-toggle" aria-controls="sidebar" aria-expanded="false">☰ Contents</button>
<a class="topbar-title" href="index.html">{esc(BOOK_TITLE)}</a>
<a class="topbar-search" href="search.html" aria-label="Search">Search</a>
<button type="button" class="theme-toggle" aria-label="Theme">◐ System</button>
</header>
{side}
<main id="content">
{body}
</main>""")


# --- Search index ----------------------------------------------------------------------------

def search_entries(pages):
    """One entry per section of every page: [page number, section id, heading, text], the text
    being the section's own (its subsections are entries of their own)."""
    entries = []
    for n, p in enumerate(pages):
        h = p.html
        tops = section_tree(h)
        lead = h[:tops[0].start] if tops else h
        if text_of(lead):
            entries.append([n, "", p.title, text_of(lead)])

        def walk(s):
            own, pos = [], s.open_end
            for c in s.children:
                own.append(h[pos:c.start])
                pos = c.end
            own.append(h[pos:s.close])
            chunk = "".join(own)
            entries.append([n, s.id, heading(chunk) or p.title, text_of(chunk)])
            for c in s.children:
                walk(c)
        for s in tops:
            walk(s)
    return entries


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    src, css_file, js_file, out = argv
    doc = open(src, encoding="utf-8").read()
    lang = (re.search(r'<html lang="([^"]*)"', doc) or [None, "en"])[1]
    highlighting = re.search(r'<style id="highlighting">(.*?)</style>', doc, re.S)
    title_block = re.search(r'<header id="title-block-header">.*?</header>', doc, re.S)
    body = re.search(r'<div id="book-body">\n?(.*)</div>\s*</body>', doc, re.S)
    if not (highlighting and title_block and body):
        die(f"{src} was not written with book/html/template.html")
    css = themed("/* Pandoc's code highlighting (tango), then book/book.css. */\n" + highlighting.group(1)
                 + open(css_file, encoding="utf-8").read())
    body = re.sub(r"<table\b.*?</table>", lambda m: f'<div class="table-box">{labelled(m.group(0))}</div>',
                  indent_lines(body.group(1)), flags=re.S)

    site = os.path.join(out, "html")
    shutil.rmtree(site, ignore_errors=True)
    os.makedirs(site)
    sources = [Page(path + ".html", path, m.group(0), "source", sid=sid) for m, sid, path in
               ((m, m.group(1), html.unescape(m.group(2))) for m in SOURCE_FILE.finditer(body))]
    body = re.sub(r'<div class="source-files">\s*</div>', "", SOURCE_FILE.sub("", body))
    pages = cut_pages(body)
    where = {}
    for p in pages + sources:
        for i in re.findall(r'\bid="([^"]*)"', p.html):
            where.setdefault(html.unescape(i), p)
    images = Images(site)
    single = [title_block.group(0), '<nav id="TOC" class="single-toc" aria-label="Contents">',
              contents(pages, link=lambda p: "#" + (p.id if p.kind != "index" else "title-block-header")),
              "</nav>"]
    for p in pages + sources:
        single.append(p.html)
    for p in pages:
        p.html = charts(relink(p, where), images)
    for n, p in enumerate(pages):
        prev, nxt = pages[n - 1] if n else None, pages[n + 1] if n + 1 < len(pages) else None
        main_html = [pager(prev, nxt, "top")]
        if p.part:
            main_html.append(f'<p class="breadcrumb"><a href="{p.part.file}">{esc(p.part.title)}</a></p>')
        if p.kind == "index":
            main_html.append(title_block.group(0))
            main_html.append('<nav class="index-contents" aria-labelledby="contents-heading">'
                             '<h2 id="contents-heading">Contents</h2>' + contents(pages) + "</nav>")
        main_html.append(p.html)
        main_html.append(pager(prev, nxt, "bottom"))
        title = BOOK_TITLE if p.kind == "index" else f"{p.title} · {BOOK_TITLE}"
        with open(os.path.join(site, p.file), "w", encoding="utf-8") as f:
            f.write(page_html(title, lang, "\n".join(main_html), sidebar(pages, p, sections_of(p))))

    for s in sources:  # a page two or more folders down: its links up to the site's top
        up = "../" * s.file.count("/")
        doc = page_html(f"{s.title} · {BOOK_TITLE}", lang, f'<h1>{esc(s.title)}</h1>\n{relink(s, where)}',
                        sidebar(pages, None, ()))
        os.makedirs(os.path.join(site, os.path.dirname(s.file)), exist_ok=True)
        with open(os.path.join(site, s.file), "w", encoding="utf-8") as f:
            f.write(re.sub(r'(\s(?:href|src|action)=")(?![#/]|[a-z]+:)', r"\g<1>" + up, doc))

    search_main = ('<h1 id="search">Search</h1>'
                   '<form class="search-page-form" action="search.html" method="get" role="search">'
                   '<input type="search" name="q" id="search-q" aria-label="Search the book" '
                   'placeholder="Words to find, e.g. shared memory"> <button type="submit">Search</button></form>'
                   '<p id="search-status" role="status">Type words to find; every section that has all of '
                   'them is listed.</p><ol id="search-results"></ol>')
    with open(os.path.join(site, "search.html"), "w", encoding="utf-8") as f:
        f.write(page_html(f"Search · {BOOK_TITLE}", lang, search_main, sidebar(pages, None, ()),
                          scripts=("search-index.js",)))
    index = {"pages": [[p.file, p.title] for p in pages], "entries": search_entries(pages)}
    with open(os.path.join(site, "search-index.js"), "w", encoding="utf-8") as f:
        f.write("/* The search index of the book (book/html/site.py): pages [file, title], entries\n"
                "   [page, section id, heading, text]. A script, not JSON, so that file:// loads it. */\n"
                "window.BOOK_INDEX = ")
        json.dump(index, f, ensure_ascii=False, separators=(",", ":"))
        f.write(";\n")
    with open(os.path.join(site, "book.css"), "w", encoding="utf-8") as f:
        f.write(css)
    shutil.copyfile(js_file, os.path.join(site, "book.js"))

    # The one-page edition: the same body, styles and charts inlined, no scripts.
    one = charts("\n".join(single), images, inline=True)
    with open(os.path.join(out, "book.html"), "w", encoding="utf-8") as f:
        f.write(document(lang, BOOK_TITLE, f"<style>\n{css}\n</style>", "single", f'<main id="content">\n{one}\n</main>'))
    print(f"book: {site}/index.html ({len(pages)} pages, search index of "
          f"{len(index['entries'])} sections)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
