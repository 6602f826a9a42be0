#!/usr/bin/env python3
"""md2man.py: turn a man page written in a small subset of Markdown into roff (man(7)).

    md2man.py [--version "mcpidl 0.1.0"] [-o OUT] SOURCE.md

The subset, enough for docs/mcpidlc.1.md and readable as Markdown on its own:

    # NAME(SECTION)                  the title (first line)
    <!-- ... -->                     comments, dropped
    ## HEADING / ### Subheading      .SH / .SS
    paragraph lines                  .PP, joined
    * `--opt` *ARG*:                 an item with a tag (.TP); its body is indented by two
      body, indented                 spaces, and may have several paragraphs
    - text                           a bullet (.IP \\(bu)
    ```  ...  ```                    a literal block (.nf), indented
    `code` **bold** *italic*         \\fB \\fB \\fI
    [text](url)                      text

Only the Python standard library is used, so that a build needs nothing but Debian's python3.
"""
import argparse
import os
import re
import sys


def escape(text):
    """Escape roff's special characters in plain text."""
    text = text.replace("\\", "\\e")
    text = text.replace("-", "\\-")
    return text


def inline(text):
    """Markdown inline markup to roff font escapes."""
    out = []
    pos = 0
    # `code`, **bold**, *italic*, [text](url)
    pattern = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*|\*([^*\s][^*]*?)\*|\[([^\]]+)\]\(([^)]+)\)")
    for m in pattern.finditer(text):
        out.append(escape(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append("\\fB" + escape(m.group(1)) + "\\fR")
        elif m.group(2) is not None:
            out.append("\\fB" + inline(m.group(2)) + "\\fR")
        elif m.group(3) is not None:
            out.append("\\fI" + inline(m.group(3)) + "\\fR")
        else:
            out.append(inline(m.group(4)))
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


def line_out(text):
    """A text line: protect a leading control character."""
    if text.startswith((".", "'")):
        return "\\&" + text
    return text


def convert(lines, version):
    out = []
    title = lines[0].strip()
    m = re.fullmatch(r"#\s+([\w.-]+)\((\d\w*)\)", title)
    if not m:
        sys.exit("md2man: the first line must be '# name(section)'")
    name, section = m.group(1), m.group(2)
    out.append('.TH "%s" "%s" "" "%s" "User Commands"' % (name.upper(), section, version))
    i = 1
    n = len(lines)
    para = []      # the lines of the paragraph being collected
    in_item = False  # inside a tagged item: paragraphs continue with .IP

    def flush():
        nonlocal para
        if para:
            if in_item:
                out.append(".IP")
            elif not out[-1].startswith((".SH", ".SS")):
                out.append(".PP")
            out.append(line_out(inline(" ".join(p.strip() for p in para))))
            para = []

    while i < n:
        line = lines[i].rstrip("\n")
        stripped = line.strip()
        if stripped.startswith("<!--"):
            while "-->" not in lines[i]:
                i += 1
            i += 1
            continue
        if stripped.startswith("```"):
            flush()
            indent = len(line) - len(line.lstrip())
            out.append(".IP" if in_item else ".PP")
            out.append(".RS 4" if not in_item else ".RS 0")
            out.append(".nf")
            i += 1
            while i < n and not lines[i].strip().startswith("```"):
                code = lines[i].rstrip("\n")
                code = code[indent:] if code[:indent].strip() == "" else code.lstrip()
                out.append(line_out(escape(code)))
                i += 1
            out.append(".fi")
            out.append(".RE")
            i += 1
            continue
        if stripped == "":
            flush()
            # An item ends at the first line that is neither blank nor indented.
            i += 1
            continue
        if line.startswith("## "):
            flush()
            in_item = False
            out.append('.SH "%s"' % escape(line[3:].strip().upper()))
        elif line.startswith("### "):
            flush()
            in_item = False
            out.append('.SS "%s"' % escape(line[4:].strip()))
        elif line.startswith("* ") and stripped.endswith(":"):
            flush()
            in_item = True
            out.append(".TP")
            out.append(line_out(inline(stripped[2:-1])))
            # The first paragraph of the body follows the tag directly.
            i += 1
            body = []
            while i < n and lines[i].startswith("  ") and lines[i].strip():
                body.append(lines[i].strip())
                i += 1
            if body:
                out.append(line_out(inline(" ".join(body))))
            continue
        elif line.startswith("- "):
            flush()
            item = [line[2:].strip()]
            i += 1
            while i < n and lines[i].startswith("  ") and lines[i].strip():
                item.append(lines[i].strip())
                i += 1
            out.append(".IP \\(bu 2")
            out.append(line_out(inline(" ".join(item))))
            continue
        else:
            if in_item and not line.startswith("  ") and not para:
                in_item = False
            para.append(line)
        i += 1
    flush()
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description="Markdown man page source to roff.")
    ap.add_argument("source")
    ap.add_argument("-o", "--output", help="the roff file (default: standard output)")
    ap.add_argument("--version", default="", help="the footer's source, e.g. 'mcpidl 0.1.0'")
    args = ap.parse_args()
    with open(args.source, encoding="utf-8") as f:
        lines = f.read().split("\n")
    roff = ('.\\" Generated by md2man.py from %s; do not edit.\n'
            % args.source.replace("\\", "/").rsplit("/", 1)[-1]) + convert(lines, args.version)
    if args.output:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        tmp = args.output + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(roff)
        os.replace(tmp, args.output)
    else:
        sys.stdout.write(roff)


if __name__ == "__main__":
    main()
