#!/usr/bin/env python3
"""The per-code severity table of docs/reference.md, against the binary.

  severity_reference.py check BINARY REFERENCE_MD
      Exits 1, listing each difference, when the table between the
      <!-- severity-table --> markers is not what `gpudoctor rules --severity`
      prints (a code missing on either side, another level, name, reason or
      recovery action).
      ctest runs this (Docs.SeverityMatchesBinary).
  severity_reference.py generate BINARY REFERENCE_MD
      Rewrites that table from the binary, after a change to the Xid or SXid
      catalog or the severity policy.

The binary runs with an empty configuration file, so the table shows
gpudoctor's own levels, not a local [severity] override.
"""
import json
import re
import subprocess
import sys
import tempfile

MARKERS = re.compile(r"(<!-- severity-table -->\n)(.*?)(<!-- /severity-table -->)", re.S)


def from_binary(binary):
    with tempfile.NamedTemporaryFile("w", suffix=".toml") as empty:
        out = subprocess.run([binary, "rules", "--severity", "--json", "--config", empty.name],
                             capture_output=True, text=True, timeout=30,
                             env={"LANG": "C", "PATH": "/usr/bin:/bin"})
    if out.returncode != 0:
        sys.exit(f"{binary} rules --severity --json exited {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def md_cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def table(codes):
    lines = ["| code | name | level | why | recovery |", "|---|---|---|---|---|"]
    for c in codes:
        lines.append(f"| `{c['code']}` | {md_cell(c['name'])} | {c['level']} | {md_cell(c['why'])} | "
                     f"{recovery(c)} |")
    return "\n".join(lines) + "\n"


def recovery(code):
    return code.get("recovery") or "-"


def section(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = MARKERS.search(text)
    if not m:
        sys.exit(f"{path}: no <!-- severity-table --> ... <!-- /severity-table --> section")
    return text, m


def rows(markdown):
    out = {}
    for line in markdown.splitlines():
        m = re.match(r"^\| `([a-z]+\.\d+)` \| (.*) \| (info|warning|critical) \| (.*) \| ([a-z_-]+) \|$", line)
        if m:
            out[m.group(1)] = (m.group(2), m.group(3), m.group(4), m.group(5))
    return out


def check(binary, reference):
    want = {c["code"]: (md_cell(c["name"]), c["level"], md_cell(c["why"]), recovery(c))
            for c in from_binary(binary)}
    _, m = section(reference)
    have = rows(m.group(2))
    problems = []
    for code in want:
        if code not in have:
            problems.append(f"{code}: missing from the table ({want[code][1]})")
        elif have[code] != want[code]:
            problems.append(f"{code}: the table says {have[code]}, the binary {want[code]}")
    for code in have:
        if code not in want:
            problems.append(f"{code}: in the table, unknown to the binary")
    if problems:
        print(f"{reference} and `gpudoctor rules --severity` disagree "
              f"(regenerate: scripts/severity_reference.py generate BINARY {reference}):")
        for p in problems:
            print("  " + p)
        return 1
    print(f"severity table: {len(want)} codes agree")
    return 0


def generate(binary, reference):
    text, m = section(reference)
    new = text[:m.start(2)] + table(from_binary(binary)) + text[m.end(2):]
    with open(reference, "w", encoding="utf-8") as f:
        f.write(new)
    return 0


def main(argv):
    if len(argv) != 4 or argv[1] not in ("check", "generate"):
        sys.exit(__doc__)
    return check(argv[2], argv[3]) if argv[1] == "check" else generate(argv[2], argv[3])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
