#!/usr/bin/env python3
"""make man: the man page's option lists from the option table.

usage: python3 scripts/man.py [--check] RAFALE MANPAGE

`RAFALE --man-options` prints the table's lists of options (src/cli/manpage.c):
the run's by --help's groups, each subcommand's own, each between the lines
`.\\" options: KEY` and `.\\" end of options`. MANPAGE holds the same lines
where each list belongs; this writes the table's list there. Which options,
in which order, their headings (names, short name, placeholder) are the
table's; the text under a heading is the page's where it has one for that
option of that command (wherever it stood), else the table's help line.

--check: write nothing; exit 1 with the differences when MANPAGE is not what
it would write (tests/integ/build.py, man_page_options_are_the_tables).
"""
import difflib
import re
import subprocess
import sys

START = '.\\" options: '
END = '.\\" end of options'
LONG = re.compile(r"\\fB\\-\\-((?:[a-z0-9]|\\-)+)\\fR")


def parse(lines, what):
    """The page as pieces, each a line or a list's key, and the lists: {key: [(name, heading, body lines)]}."""
    pieces, lists, key = [], {}, None
    for n, line in enumerate(lines, 1):
        if key is None:
            if line.startswith(START):
                key = line[len(START):].strip()
                if key in lists:
                    sys.exit("%s:%d: the options of %s a second time" % (what, n, key))
                lists[key] = []
                pieces.append((key,))
            elif line == END:
                sys.exit("%s:%d: %s with no list open" % (what, n, END))
            else:
                pieces.append(line)
        elif line == END:
            key = None
        elif line == ".TP":
            lists[key].append([None, None, []])
        elif not lists[key]:
            sys.exit("%s:%d: text before the first option of %s" % (what, n, key))
        elif lists[key][-1][1] is None:
            m = LONG.search(line)
            if not m:
                sys.exit("%s:%d: a heading without --NAME: %s" % (what, n, line))
            lists[key][-1][0] = m.group(1).replace("\\-", "-")
            lists[key][-1][1] = line
        else:
            lists[key][-1][2].append(line)
    if key is not None:
        sys.exit("%s: the options of %s never end (%s)" % (what, key, END))
    return pieces, lists


def command(key):
    return key.split(",")[0]


def merge(page, table):
    pieces, have = parse(page, "man page")
    _, want = parse(table, "rafale --man-options")
    missing = [k for k in want if k not in have]
    if missing:
        sys.exit("the man page has no place for the options of %s: add the lines '%s%s' and '%s' where they belong"
                 % (", ".join(missing), START, missing[0], END))
    extra = [k for k in have if k not in want]
    if extra:
        sys.exit("the option table has no options of %s: remove those lists from the man page" % ", ".join(extra))
    text = {(command(k), name): body for k, entries in have.items() for name, _, body in entries}
    out = []
    for p in pieces:
        if isinstance(p, str):
            out.append(p)
            continue
        out.append(START + p[0])
        for name, heading, body in want[p[0]]:
            out += [".TP", heading] + text.get((command(p[0]), name), body)
        out.append(END)
    return out


def main(argv):
    check = argv[:1] == ["--check"]
    if check:
        argv = argv[1:]
    if len(argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    rafale, path = argv
    table = subprocess.run([rafale, "--man-options"], capture_output=True, text=True, check=True).stdout
    page = open(path).read().split("\n")
    new = merge(page, table.rstrip("\n").split("\n"))
    if new == page:
        return 0
    if check:
        sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in page], [l + "\n" for l in new], path,
                                                   "%s from the option table" % path))
        print("%s: its option lists are not the option table's: run make man" % path)
        return 1
    with open(path, "w") as f:
        f.write("\n".join(new))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
