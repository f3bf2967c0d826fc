#!/usr/bin/env python3
"""The command and option tables of docs/reference.md, against the binary's --help.

  options_reference.py check BINARY REFERENCE_MD
      Exits 1, listing each difference, when an option of some command's --help
      is missing from that command's table in the reference, or the reference
      names an option the command does not have (and for commands missing on
      either side). ctest runs this (Docs.ReferenceMatchesHelp).
  options_reference.py generate BINARY
      Prints the tables from --help (descriptions as --help words them), to
      paste between the <!-- options-table --> markers after adding options.

The man page is made from the same --help texts (scripts/man_commands.sh), so
the three agree.
"""
import re
import subprocess
import sys

HELP_NAMES = {"-h", "--help"}


def run_help(binary, args):
    out = subprocess.run([binary, *args, "--help"], capture_output=True, text=True,
                         timeout=30, env={"LANG": "C", "PATH": "/usr/bin:/bin"})
    if out.returncode != 0:
        sys.exit(f"{binary} {' '.join(args)} --help exited {out.returncode}: {out.stderr.strip()}")
    return out.stdout


def parse_help(text):
    """[(names, metavar_and_default, description)] of the Options section, and
    the subcommand names."""
    options, subcommands = [], []
    section = None
    for line in text.splitlines():
        if re.match(r"^[A-Z][A-Za-z ]*:\s*$", line):
            section = line.strip().rstrip(":")
            continue
        if section == "Options":
            m = re.match(r"^  (-\S+)(.*)$", line)
            if m:
                names = [n for n in m.group(1).split(",") if n]
                rest = m.group(2).strip()
                parts = re.split(r"\s{2,}", rest, maxsplit=1)
                if len(parts) == 2:
                    meta, desc = parts
                else:
                    # A long type and default leave one space before the
                    # description: "TEXT:{a,b}=a Report ...", "UINT:INT in [1 - 1024] GPUs ...".
                    m2 = re.match(r"^((?:TEXT|UINT|INT|FLOAT|BOOLEAN|ENUM)\S*(?: in \[[^\]]*\])?(?: \.\.\.)?)(?: (.*))?$",
                                  rest)
                    meta, desc = (m2.group(1), m2.group(2) or "") if m2 else ("", rest)
                options.append([names, meta, desc])
            elif options and re.match(r"^\s{4,}\S", line):
                options[-1][2] = (options[-1][2] + " " + line.strip()).strip()
        elif section == "Subcommands":
            m = re.match(r"^  ([a-z][a-z-]*)\s", line + " ")
            if m:
                subcommands.append(m.group(1))
    return options, subcommands


def from_binary(binary):
    """{command: [(names, meta, desc)]}; command '' is the global options."""
    top, subs = parse_help(run_help(binary, []))
    result = {"": top}
    for sub in subs:
        result[sub], _ = parse_help(run_help(binary, [sub]))
    return result


def option_names(options):
    names = set()
    for opt_names, _, _ in options:
        names.update(n for n in opt_names if n not in HELP_NAMES)
    return names


def from_reference(path):
    """{command: set of option names} from the tables under '### `gpudoctor X`'
    headings (and '### Global options') between the options-table markers."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"<!-- options-table -->(.*)<!-- /options-table -->", text, re.S)
    if not m:
        sys.exit(f"{path}: no <!-- options-table --> ... <!-- /options-table --> section")
    result, command = {}, None
    for line in m.group(1).splitlines():
        h = re.match(r"^### (?:`gpudoctor(?: ([a-z-]+))?[^`]*`|Global options)", line)
        if h:
            command = h.group(1) or ""
            result.setdefault(command, set())
            continue
        if command is not None and line.startswith("| `-"):
            first = line.split("|")[1]
            for name in re.findall(r"(?<![\w-])(--?[A-Za-z0-9][A-Za-z0-9-]*)", first):
                if name not in HELP_NAMES:
                    result[command].add(name)
    return result


def check(binary, reference):
    have = {c: option_names(o) for c, o in from_binary(binary).items()}
    documented = from_reference(reference)
    problems = []
    for command in sorted(set(have) | set(documented)):
        label = f"gpudoctor {command}".strip()
        if command not in documented:
            problems.append(f"{label}: in --help, no table in {reference}")
            continue
        if command not in have:
            problems.append(f"{label}: documented in {reference}, but --help has no such command")
            continue
        for name in sorted(have[command] - documented[command]):
            problems.append(f"{label} {name}: in --help, missing from {reference}")
        for name in sorted(documented[command] - have[command]):
            problems.append(f"{label} {name}: in {reference}, not an option of the command")
    for p in problems:
        print(p)
    print(f"{sum(len(v) for v in have.values())} options of {len(have)} commands checked, "
          f"{len(problems)} differences")
    return 1 if problems else 0


def md_cell(text):
    return text.replace("|", "\\|")


def generate(binary):
    for command, options in from_binary(binary).items():
        print("### Global options" if not command else f"### `gpudoctor {command}`")
        print()
        print("| option | meaning |")
        print("|---|---|")
        for names, meta, desc in options:
            if set(names) <= HELP_NAMES:
                continue
            shown = ", ".join(f"`{n}`" for n in names)
            if meta:
                shown += f" `{md_cell(meta)}`"
            print(f"| {shown} | {md_cell(desc)} |")
        print()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 3 and sys.argv[1] == "generate":
        generate(sys.argv[2])
        sys.exit(0)
    sys.exit(__doc__)
