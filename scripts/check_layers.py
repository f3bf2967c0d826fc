#!/usr/bin/env python3
"""Checks that every #include between gpudoctor's modules points down the
data flow (cli -> agent -> http -> report -> render -> store/analyze/... ->
rules -> collect -> knowledge -> parse/nvml -> facts -> core), and that:
  - facts/ (the evidence value types) includes only core/ and facts/;
  - rules/ includes no collect/ header (rules read facts, not collectors);
  - store/ includes no rules/ header (it keeps facts, not rule types);
  - render/ includes no collect/ header (it shows facts, not collectors);
  - inside src/rules/ the groups use only the engine, never each other.
Prints one line per include that breaks a rule and exits 1 if there is any.
Usage: scripts/check_layers.py [SRC_DIR]   (default: src/ of this checkout)
"""
import os
import re
import sys

# Module -> layer. A file may include its own module or any module of a
# lower layer; a module of the same or a higher layer is an error.
LAYERS = {
    "core": 0,
    "facts": 1,
    "window": 1.5,
    "parse": 2,
    "nvml": 2,
    "cuda": 2,
    "status": 2,
    "knowledge": 3,
    "collect": 4,
    "rules": 5,
    "diagnosis": 5.5,
    "analyze": 6,
    "check": 6,
    "fix": 6,
    "stress": 6,
    "store": 6,
    "prom": 6,
    "render": 7,
    "report": 8,
    "http": 9,
    "agent": 10,
    "cli": 11,
}

# Modules that may include only the modules listed (besides the layering).
ONLY = {
    "facts": ({"core", "facts"},
              "facts/ holds plain evidence types and may include only core/ and facts/"),
}

# (module, target) pairs that the layering allows but that are errors.
FORBIDDEN = {
    ("rules", "collect"):
        "rules read evidence from facts/ (DiagnosisInput), never from a collector",
    ("store", "rules"):
        "the store keeps facts (facts/diagnosis_input.h, facts/timeline.h), not rule types",
    ("render", "collect"):
        "renderers show facts (facts/), never a collector's header",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([^"]+)"', re.M)


def rules_group(path_in_rules):
    parts = path_in_rules.split("/")
    return parts[0] if len(parts) > 1 else ""


def check(src):
    problems = []
    for dirpath, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src)
            module = rel.split(os.sep)[0]
            if module not in LAYERS:
                problems.append(f"{rel}: module '{module}' has no layer in scripts/check_layers.py")
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                target, rest = m.group(1), m.group(2)
                line = text.count("\n", 0, m.start()) + 1
                if target not in LAYERS:
                    continue  # a third-party header such as nlohmann/json.hpp
                if module in ONLY and target not in ONLY[module][0]:
                    problems.append(f"{rel}:{line}: {module} includes {target}/{rest}: "
                                    f"{ONLY[module][1]}")
                    continue
                if (module, target) in FORBIDDEN:
                    problems.append(f"{rel}:{line}: {module} includes {target}/{rest}: "
                                    f"{FORBIDDEN[(module, target)]}")
                    continue
                if target == module == "rules":
                    own = rules_group(os.path.relpath(path, os.path.join(src, "rules")).replace(os.sep, "/"))
                    other = rules_group(rest)
                    if other not in ("engine", own):
                        problems.append(f"{rel}:{line}: rules/{own} includes rules/{rest}: "
                                        "a rule group uses only rules/engine")
                    elif own == "engine" and other != "engine":
                        problems.append(f"{rel}:{line}: rules/engine includes rules/{rest}")
                    continue
                if target != module and LAYERS[target] >= LAYERS[module]:
                    problems.append(f"{rel}:{line}: {module} (layer {LAYERS[module]}) includes "
                                    f"{target}/{rest} (layer {LAYERS[target]})")
    return problems


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
    if not os.path.isdir(src):
        print(f"check_layers: {src} is not a directory", file=sys.stderr)
        return 2
    problems = check(src)
    for p in problems:
        print(p)
    print(f"check_layers: {len(problems)} include(s) against the layering")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
