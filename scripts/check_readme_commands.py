#!/usr/bin/env python3
"""Runs the commands of the README's "Common uses" table as written, against
the fake NVML, so that the README cannot drift from the binary.

  check_readme_commands.py GPUDOCTOR FAKE_NVML README SCENARIO [FIXTURES_DIR]

Each command runs in a fresh working directory with GPUDOCTOR_DATA_DIR set
there, the fake NVML playing SCENARIO. A command passes when gpudoctor
understood it (no usage error, no crash) and did its job:
- diagnose, analyze, report: a report and an exit code of 0, 1 or 2;
- watch: one line per GPU and interval (output is not a terminal);
- agent: samples recorded in the data directory within a few seconds;
- fleet against a Prometheus that does not exist here: exit 3 with one line
  naming the server.
Commands run in the order of the table (the agent records before report
reads). ctest runs this (Docs.ReadmeCommandsRun).
"""
import gzip
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time


def commands_of(readme):
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"^## Common uses\n(.*?)(?=^## )", text, re.S | re.M)
    if not m:
        sys.exit(f"{readme}: no '## Common uses' section")
    found = []
    for line in m.group(1).splitlines():
        if not line.startswith("|"):
            continue
        found += [c for c in re.findall(r"`([^`]+)`", line) if c.split()[0] == "gpudoctor"]
    if len(found) < 5:
        sys.exit(f"{readme}: found {len(found)} gpudoctor commands in 'Common uses', expected at least 5")
    return found


def write_bug_report(path, fixtures):
    body = ""
    excerpt = os.path.join(fixtures, "text", "bugreport-rtx3060-laptop-arch-2022-header-excerpt.log")
    if fixtures and os.path.exists(excerpt):
        body = open(excerpt, encoding="utf-8", errors="replace").read()
    body += ("\nNov 29 10:00:05 node kernel: [  500.123456] NVRM: Xid (PCI:0000:3b:00): 79, "
             "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n")
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(body)


def run(argv, env, cwd, seconds, stop_early=None):
    """(exit code or None when we stopped it, stdout, stderr). stop_early,
    called every 0.2 s with the output so far, ends the run when true."""
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as out_file, \
            tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as err_file:
        p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=out_file, stderr=err_file, text=True)

        def output():
            out_file.seek(0)
            return out_file.read()

        deadline = time.monotonic() + seconds
        while p.poll() is None and time.monotonic() < deadline:
            if stop_early and stop_early(output()):
                break
            time.sleep(0.2)
        stopped = p.poll() is None
        if stopped:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        err_file.seek(0)
        return (None if stopped else p.returncode), output(), err_file.read()


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    binary, fake_nvml, readme, scenario = (os.path.abspath(a) for a in sys.argv[1:5])
    fixtures = os.path.abspath(sys.argv[5]) if len(sys.argv) == 6 else ""
    failures = []
    with tempfile.TemporaryDirectory() as cwd:
        data = os.path.join(cwd, "data")
        env = {"PATH": "/usr/bin:/bin", "GPUDOCTOR_NVML_LIBRARY": fake_nvml, "FAKE_NVML_SCENARIO": scenario,
               "GPUDOCTOR_DATA_DIR": data, "HOME": cwd, "TERM": "dumb"}
        write_bug_report(os.path.join(cwd, "nvidia-bug-report.log.gz"), fixtures)
        for command in commands_of(readme):
            argv = shlex.split(command)
            argv[0] = binary
            sub = next((a for a in argv[1:] if not a.startswith("-")), "diagnose")
            if sub == "agent":
                db = os.path.join(data, "gpudoctor.db")
                code, out, err = run(argv, env, cwd, 20, lambda _: os.path.exists(db) and time.sleep(2.5) is None)
                if code == 3 and "9835" in err:
                    # Another agent (another test run on this machine) holds
                    # the port: record without serving, so that the commands
                    # after it still have a history to read.
                    print(f"NOTE {command}: port 9835 is taken on this machine; run again with --no-listen")
                    code, out, err = run(argv + ["--no-listen"], env, cwd, 20,
                                         lambda _: os.path.exists(db) and time.sleep(2.5) is None)
                ok = code is None and os.path.exists(db)
            elif sub == "watch":
                # Stopped once it has printed its first line per GPU (a slow
                # machine takes longer to start; a minute at most).
                code, out, err = run(argv, env, cwd, 60, lambda so_far: "gpu=0" in so_far)
                ok = code is None and "gpu=0" in out
            elif sub == "fleet":
                code, out, err = run(argv, env, cwd, 60)
                lines = err.strip().splitlines()
                ok = code == 3 and len(lines) == 1 and "prometheus" in lines[0]
            else:
                code, out, err = run(argv, env, cwd, 120)
                ok = code in (0, 1, 2) and out.strip() != ""
            if "see gpudoctor --help" in err:
                ok = False
            status = "ok  " if ok else "FAIL"
            print(f"{status} {command} (exit {code})")
            if not ok:
                failures.append(command)
                print(f"  stdout: {out[-2000:]}\n  stderr: {err[-2000:]}")
    if failures:
        print(f"{len(failures)} README command(s) failed: {failures}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
