#!/usr/bin/env python3
"""The Markdown side of tests/docs/docs_test.sh: links and runnable blocks.

  docs_extract.py SOURCE_DIR OUT_DIR [PAGE...]

PAGE: paths relative to SOURCE_DIR (default: README.md and every docs/**/*.md).

Links. Every relative link of the pages ([text](target), [text](target#anchor),
reference definitions "[id]: target") must name a file or directory that
exists; an anchor into a Markdown page (or "#anchor" alone, into the page
itself) must be one of that page's headings as GitHub spells them (lower case,
punctuation dropped, spaces to '-', "-1", "-2"... for repeats). Links inside
code (fenced blocks, `spans`) are not links. Every page under docs/ must be
linked from docs/README.md, the guide's index. Problems are printed, one per
line, as "PAGE:LINE: what is wrong"; the exit status is 1 when there is one.

Blocks. Every fenced block whose info string starts with the words "sh test"
is written to OUT_DIR/<n>.sh, and OUT_DIR/blocks.tsv lists them, one per line:
    n <TAB> page <TAB> line of the opening fence <TAB> attributes
The attributes are the words after "sh test": "criu" (skipped when cr/criu
cannot run here, as `lazarus info --mca cr criu` says), "requires=CMD[,CMD...]"
(skipped when a command is not on PATH).
A page under docs/ (but the index, docs/README.md) with a plain ```sh block
(an illustration) but no "sh test" block is reported: every page with
commands runs some of them.
"""
import os
import re
import sys

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
INLINE_LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
KNOWN_ATTRS = re.compile(r"^(criu|requires=[A-Za-z0-9_.+-]+(,[A-Za-z0-9_.+-]+)*)$")


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = text.lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def scan(path):
    """(lines outside code with their numbers, headings' anchors, fenced blocks)."""
    prose, anchors, blocks = [], [], []
    seen = {}
    fence = None  # (marker, info, start line, lines)
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = FENCE.match(line)
            if fence is not None:
                if m and m.group(2)[0] == fence[0][0] and len(m.group(2)) >= len(fence[0]) and not m.group(3).strip():
                    blocks.append({"info": fence[1], "line": fence[2], "text": fence[3]})
                    fence = None
                else:
                    fence[3].append(line)
                continue
            if m:
                fence = (m.group(2), m.group(3).strip(), no, [])
                continue
            h = HEADING.match(line)
            if h:
                base = slug(h.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                anchors.append(base if n == 0 else "%s-%d" % (base, n))
            prose.append((no, line))
    if fence is not None:
        blocks.append({"info": fence[1], "line": fence[2], "text": fence[3], "unclosed": True})
    return prose, set(anchors), blocks


def main():
    src, out = sys.argv[1], sys.argv[2]
    pages = sys.argv[3:]
    if not pages:
        pages = ["README.md"]
        for root, _, files in os.walk(os.path.join(src, "docs")):
            for name in files:
                if name.endswith(".md"):
                    pages.append(os.path.relpath(os.path.join(root, name), src))
    pages = sorted(set(pages), key=lambda p: (p != "README.md", p))
    problems = []
    cache = {}

    def info(rel):
        if rel not in cache:
            cache[rel] = scan(os.path.join(src, rel))
        return cache[rel]

    os.makedirs(out, exist_ok=True)
    rows = []
    index_links = set()
    for page in pages:
        prose, anchors, blocks = info(page)
        here = os.path.dirname(page)
        for no, line in prose:
            bare = CODE_SPAN.sub("", line)
            targets = INLINE_LINK.findall(bare)
            d = REF_DEF.match(bare)
            if d:
                targets.append(d.group(1))
            for target in targets:
                if SCHEME.match(target) or target.startswith("//"):
                    continue
                path, _, anchor = target.partition("#")
                rel = os.path.normpath(os.path.join(here, path)) if path else page
                full = os.path.join(src, rel)
                if path and not os.path.exists(full):
                    problems.append("%s:%d: link to %s: %s does not exist" % (page, no, target, rel))
                    continue
                if page == "docs/README.md" and path:
                    index_links.add(rel)
                if anchor and rel.endswith(".md") and os.path.isfile(full):
                    if anchor not in info(rel)[1]:
                        problems.append("%s:%d: link to %s: %s has no heading with the anchor '#%s'"
                                        % (page, no, target, rel, anchor))
        has_test = has_sh = False
        for b in blocks:
            if b.get("unclosed"):
                problems.append("%s:%d: a fenced block is never closed" % (page, b["line"]))
                continue
            words = b["info"].split()
            if words[:1] == ["sh"] and words[1:2] != ["test"]:
                has_sh = True
            if words[:2] != ["sh", "test"]:
                continue
            has_test = True
            attrs = words[2:]
            for a in attrs:
                if not KNOWN_ATTRS.match(a):
                    problems.append("%s:%d: unknown attribute '%s' of a sh test block (criu, requires=CMD)"
                                    % (page, b["line"], a))
            n = len(rows) + 1
            with open(os.path.join(out, "%d.sh" % n), "w", encoding="utf-8") as f:
                f.write("\n".join(b["text"]) + "\n")
            rows.append("%d\t%s\t%d\t%s" % (n, page, b["line"], " ".join(attrs)))
        if page.startswith("docs/") and page != "docs/README.md" and has_sh and not has_test:
            problems.append("%s: has ```sh examples but no ```sh test block: run at least one of them" % page)
    if "docs/README.md" in pages:
        for page in pages:
            if page.startswith("docs/") and page != "docs/README.md" and page not in index_links:
                problems.append("docs/README.md: does not link to %s (the index lists every page)" % page)
    with open(os.path.join(out, "blocks.tsv"), "w", encoding="utf-8") as f:
        f.write("".join(r + "\n" for r in rows))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
