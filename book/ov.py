import re,sys
log=open('book.log',encoding='latin-1').read()
tex=open('book.tex').read().split('\n')
heads=[(i,l) for i,l in enumerate(tex,1) if re.match(r'\\(chapter|part|section)\b',l)]
seen=set()
for m in re.finditer(r'Overfull \\hbox \(([\d.]+)pt too wide\) in (paragraph|alignment) at lines (\d+)--(\d+)',log):
    w=float(m.group(1)); a=int(m.group(3))
    if w<1: continue
    h=[l for i,l in heads if i<=a]
    ch=next((l for l in reversed(h) if l.startswith('\\chapter')),'')[:50]
    key=(ch,m.group(2),round(w))
    if key in seen: continue
    seen.add(key)
    print(f"{w:7.1f} {m.group(2)[:5]} {a:6d} {ch}  | {tex[a-1][:110]}")
