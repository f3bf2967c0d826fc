#!/usr/bin/env python3
"""Writes the ctest file of the GoogleTest binary: one ctest test per test
that takes 2 s or more (tests/ctest_costs.txt), and the quick tests of a
suite together in one ctest test (at most 40 to one), run by name.

Each ctest test is a start of the test binary, and under the sanitizers a
start costs about a quarter of a second of CPU (the binary's instrumented
data is registered, and scanned for leaks at exit): one start per quick test
was a third of the sanitizer phase's CPU time.

A test that may skip (its file or a test header it includes calls
GTEST_SKIP) keeps a ctest test of its own, so that ctest reports the skip;
a group fails if any of its tests skips, naming this script.

Usage: ctest_groups.py TEST_BINARY TESTS_SOURCE_DIR COSTS_FILE TIMEOUT_S OUT_FILE
"""
import os
import re
import subprocess
import sys

GROUP_MAX = 40
SUITE_RE = re.compile(r"^\s*(?:TEST|TEST_F|TEST_P|TYPED_TEST)\(\s*(\w+)\s*,", re.M)
INCLUDE_RE = re.compile(r'^#include "([^"]+)"', re.M)


def may_skip_suites(source_dir):
    """Suites defined in a file that skips, or includes a test header that does."""
    skipping_headers = set()
    files = []
    for root, _, names in os.walk(source_dir):
        for name in names:
            path = os.path.join(root, name)
            if name.endswith(".h"):
                with open(path, encoding="utf-8", errors="replace") as f:
                    if "GTEST_SKIP" in f.read():
                        skipping_headers.add(os.path.relpath(path, source_dir))
            elif name.endswith(".cpp"):
                files.append(path)
    suites = set()
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        here = os.path.relpath(os.path.dirname(path), source_dir)
        includes = {os.path.normpath(os.path.join(here, i)) for i in INCLUDE_RE.findall(text)}
        includes |= set(INCLUDE_RE.findall(text))
        if "GTEST_SKIP" in text or includes & skipping_headers:
            suites.update(SUITE_RE.findall(text))
    return suites


def listed_tests(binary):
    out = subprocess.run([binary, "--gtest_list_tests"], check=True, capture_output=True,
                         text=True, timeout=120).stdout
    tests, suite = [], None
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        else:
            tests.append(suite + line.split("#")[0].strip())
    return tests


def slow_tests(costs_file):
    slow = set()
    with open(costs_file, encoding="utf-8") as f:
        for line in f:
            if line.startswith("---"):
                break
            parts = line.split()
            if len(parts) == 3:
                slow.add(parts[0])
    return slow


def quote(text):
    return "[==[" + text + "]==]"


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    binary, source_dir, costs_file, timeout_s, out_file = sys.argv[1:]
    tests = listed_tests(binary)
    slow = slow_tests(costs_file)
    skipping = may_skip_suites(source_dir)
    alone, groups = [], {}
    for name in tests:
        suite = name.split(".", 1)[0]
        base_suite = suite.split("/")[-1]
        if name in slow or base_suite in skipping:
            alone.append(name)
        else:
            groups.setdefault(suite, []).append(name)
    work_dir = os.path.dirname(binary)
    lines = []

    def add(ctest_name, gtest_filter, properties):
        lines.append(f"add_test({quote(ctest_name)} {quote(binary)} "
                     f"{quote('--gtest_filter=' + gtest_filter)} --gtest_also_run_disabled_tests)")
        lines.append(f"set_tests_properties({quote(ctest_name)} PROPERTIES WORKING_DIRECTORY "
                     f"{quote(work_dir)} TIMEOUT {timeout_s} {properties})")

    for name in alone:
        add(name, name, "SKIP_REGULAR_EXPRESSION " + quote(r"\[  SKIPPED \]"))
    for suite, names in groups.items():
        chunks = [names[i:i + GROUP_MAX] for i in range(0, len(names), GROUP_MAX)]
        for i, chunk in enumerate(chunks):
            ctest_name = suite + ".*" + (f"[{i + 1}/{len(chunks)}]" if len(chunks) > 1 else "")
            add(ctest_name, ":".join(chunk),
                "FAIL_REGULAR_EXPRESSION " + quote(r"\[  SKIPPED \]"))
    tmp = out_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"# Written by scripts/ctest_groups.py: {len(tests)} tests, {len(alone)} alone, "
                f"the rest in {len(lines) // 2 - len(alone)} groups.\n")
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, out_file)


if __name__ == "__main__":
    main()
