#!/usr/bin/env python3
"""gen_man.py: the man pages, generated from the programs' own --help.

    gen_man.py OUTDIR BINDIR VERSION

Writes OUTDIR/man1/*.1: lazarus(1) and one page per subcommand, found by
walking the "Subcommands:" lists of `lazarus --help` (lazarus-run(1),
lazarus-snapshot-show(1), ...); mpirun(1) with mpiexec(1) pointing at it;
cr_run(1), cr_checkpoint(1), cr_restart(1); lazarus-ft-config(1); mpicc(1), with mpicxx, mpic++, mpiCC, mpifort,
mpif90 and mpif77 pointing at it. A tool this build does not
have (lazarus-ft-config without another MPI, mpifort without gfortran) gets
no page. A page is the help text
turned into roff: the lines before "Usage:" and the text after the option
lists are its DESCRIPTION, "Usage:" its SYNOPSIS, each "Name:" list
(Positionals, Options, Subcommands, Environment) a section of its own.
So the pages say what --help says, and cannot drift from it.
"""
import os
import re
import subprocess
import sys

SECTION_RE = re.compile(r"^([A-Z][A-Za-z ]*):$")
ITEM_RE = re.compile(r"^  (\S.*?)(?:\s{2,}(\S.*))?$")


def roff(text):
    """Escapes text for roff: backslashes, dashes of options, leading dots."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def parse(help_text):
    """Splits CLI11-style help into description lines, usage, sections, footer."""
    head, usage, sections, footer = [], "", [], []
    current = None
    lines = help_text.rstrip("\n").split("\n")
    i = 0
    while i < len(lines) and not lines[i].startswith("Usage:"):
        head.append(lines[i])
        i += 1
    if i < len(lines):
        usage = lines[i][len("Usage:"):].strip()
        i += 1
    for line in lines[i:]:
        m = SECTION_RE.match(line)
        if m:
            current = (m.group(1), [])
            sections.append(current)
            continue
        if current is not None and line.startswith("  "):
            item = ITEM_RE.match(line)
            deep = len(line) - len(line.lstrip()) >= 8
            if deep and current[1]:  # the description of the item above, continued
                name, desc = current[1][-1]
                current[1][-1] = (name, (desc + " " + line.strip()).strip())
            elif item:
                current[1].append((item.group(1).strip(), (item.group(2) or "").strip()))
            continue
        if not line.strip():
            current = None
            if footer:
                footer.append("")
            continue
        current = None
        footer.append(line)
    return head, usage, sections, footer


def text_block(lines):
    """Paragraphs of plain lines; indented lines are examples, kept as they are."""
    out, pre = [], False
    for line in lines:
        indented = line.startswith("  ")
        if indented and not pre:
            out.append(".PP\n.nf\n.RS 2")
            pre = True
        elif not indented and pre:
            out.append(".RE\n.fi\n.PP")
            pre = False
        if not line.strip():
            out.append(".PP")
        else:
            out.append(roff(line.strip() if not indented else line[2:]))
    if pre:
        out.append(".RE\n.fi")
    return "\n".join(out)


def page(name, help_text, version, see_also):
    head, usage, sections, footer = parse(help_text)
    head = [h for h in head if h.strip()]
    if not head and footer:  # "Usage:" first (cr_run): the first line after it says what it is
        head, footer = footer[:1], footer[1:]
    summary = head[0].rstrip(".") if head else name
    summary = re.sub(r"^Lazarus [0-9.]+: ", "", summary)
    out = [f'.TH {name.upper()} 1 "" "Lazarus {version}" "Lazarus manual"',
           ".SH NAME", f"{roff(name)} \\- {roff(summary)}"]
    if usage:
        out += [".SH SYNOPSIS", ".B " + roff(usage)]
    body = head[1:] + ([""] if head[1:] and footer else []) + footer
    if body:
        out += [".SH DESCRIPTION", text_block(body)]
    for title, items in sections:
        out.append(".SH " + roff(title.upper()))
        for item, desc in items:
            out += [".TP", ".B " + roff(item), roff(desc) if desc else ""]
    if see_also:
        out += [".SH SEE ALSO", ", ".join(f"\\fB{roff(s)}\\fR(1)" for s in see_also)]
    out += [".PP", "The user guide: docs/README.md in the Lazarus sources."]
    return "\n".join(line for line in out if line is not None) + "\n"


def help_of(argv):
    r = subprocess.run(argv + ["--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=dict(os.environ, COLUMNS="100"))
    if r.returncode != 0:
        sys.exit(f"gen_man.py: {' '.join(argv)} --help failed ({r.returncode}):\n{r.stdout}")
    return r.stdout


def subcommands(help_text):
    for title, items in parse(help_text)[2]:
        if title == "Subcommands":
            return [item.split()[0] for item, _ in items]
    return []


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: gen_man.py OUTDIR BINDIR VERSION")
    outdir, bindir, version = sys.argv[1:]
    man1 = os.path.join(outdir, "man1")
    os.makedirs(man1, exist_ok=True)
    pages = {}

    def walk(words):  # lazarus, then each subcommand, depth first
        text = help_of([os.path.join(bindir, words[0])] + words[1:])
        subs = subcommands(text)
        name = "-".join(words)
        see = ["-".join(words + [s]) for s in subs] or ["-".join(words[:-1])]
        pages[name] = page(name, text, version, see)
        for s in subs:
            walk(words + [s])

    walk(["lazarus"])
    pages["mpirun"] = page("mpirun", help_of([os.path.join(bindir, "mpirun")]), version,
                           ["mpiexec", "lazarus-run", "mpicc"])
    for tool in ("cr_run", "cr_checkpoint", "cr_restart", "lazarus-ft-config"):
        if not os.path.exists(os.path.join(bindir, tool)):
            continue  # not built here (liblazarus-ft needs another MPI)
        pages[tool] = page(tool, help_of([os.path.join(bindir, tool)]), version,
                           ["cr_run", "cr_checkpoint", "cr_restart"] if tool.startswith("cr_") else ["mpicc"])
    pages["mpicc"] = page("mpicc", help_of([os.path.join(bindir, "mpicc")]), version, ["mpicxx", "mpifort", "mpirun"])
    aliases = {"mpiexec": "mpirun", "mpicxx": "mpicc", "mpic++": "mpicc", "mpiCC": "mpicc", "mpifort": "mpicc",
               "mpif90": "mpicc", "mpif77": "mpicc"}
    for name, text in pages.items():
        with open(os.path.join(man1, name + ".1"), "w") as f:
            f.write(text)
    for alias, target in list(aliases.items()):
        if not os.path.exists(os.path.join(bindir, alias)):
            del aliases[alias]  # mpifort without a Fortran compiler
            continue
        with open(os.path.join(man1, alias + ".1"), "w") as f:
            f.write(f".so man1/{target}.1\n")
    print(f"gen_man.py: {len(pages) + len(aliases)} pages in {man1}")


if __name__ == "__main__":
    main()
