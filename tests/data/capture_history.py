#!/usr/bin/env python3
"""Writes a 6 h fleet history (one sample a minute, ending at END) built from
real dcgm-exporter /metrics captures (../shared/fixtures/dcgm-exporter/, see
SOURCES.md there): each machine below is one capture, every captured series
kept with its labels as the exporter wrote them (every generation: 2.0 without
Hostname, 2.x with the exporter pod as Hostname and no pci_bus_id, 3.x, 3.3.6+
with pci_bus_id, MIG instances, 2026's lowercase hostname, the DCGM_EXP_*
counters, DCGM's blank sentinel), plus the gauges fleet reads (GPU_TEMP,
POWER_USAGE, SM_CLOCK, GPU_UTIL, XID_ERRORS) under each captured GPU's labels.

Machines (instance = the scrape address added, job="dcgm-exporter"):
  restart  02 (2.x): the exporter pod restarts 3 h before the end under a new
           pod name (Hostname) and address; Xid 48 on gpu 1 (no pci_bus_id)
           10 min before the end
  silent   03 (3.x, r6i3n0): stops reporting 10 min before the end
  mig      04 (3.x, A30 MIG instances)
  pcibus   05 (3.3.6+, pci_bus_id, err_code/err_msg)
  pods     08 (3.3.x, L40S, pods): gpu 0 at 91 C for the last 2 h
  main2026 07 (lowercase hostname, MIG and whole GPUs)
  v20      01 (2.0, no Hostname: the node is its instance)
  counters 09 (DCGM_EXP_* counters); DCGM_EXP_XID_ERRORS_COUNT{xid="43"} is 1
           for 5 min from 2 h before the end
  sentinel 10 (MEMORY_TEMP at DCGM's blank value), on pcibus's address, another port
Formats: openmetrics (promtool tsdb create-blocks-from openmetrics) or vm
(VictoriaMetrics' /api/v1/import JSON lines).
"""
import argparse
import json
import os
import re
import sys

LINE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)\{(.*)\}\s+(\S+)\s*$')
PAIR = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?')
# Labels of one sample that are not the GPU's.
NOT_GPU = {"err_code", "err_msg", "xid", "window_size_in_ms", "clock_event"}
HOUR = 3600


def read_capture(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            labels = dict(PAIR.findall(m.group(2)))
            out.append((m.group(1), labels, float(m.group(3))))
    return out


MACHINES = [
    ("restart", "02_v2.x_dcgm-exporter-58.prom", "10.1.0.5:9400"),
    ("silent", "03_v3.x_dcgm-exporter-250.prom", "10.1.0.6:9400"),
    ("mig", "04_v3.x_mig_dcgm-exporter-317.prom", "10.1.0.11:9400"),
    ("pcibus", "05_v3.3.6_pr326.prom", "10.1.0.13:9400"),
    ("pods", "08_v3.3.x_l40s_pods_dcgm-226.prom", "10.1.0.12:9400"),
    ("main2026", "07_main-2026_mixed_mig_pr736.prom", "10.1.0.7:9400"),
    ("v20", "01_v2.0_gpu-monitoring-tools-138.prom", "10.1.0.8:9400"),
    ("counters", "09_v3.x_exp_counters_pr239_pr261.prom", "10.1.0.10:9400"),
    ("sentinel", "10_readme_sentinel.prom", "10.1.0.13:9401"),
]
RESTARTED = {"Hostname": "dcgm-exporter-q7x2m", "instance": "10.1.0.9:9400"}


def machine_series(name, capture, instance, end):
    """(metric, labels at t, value at t) of one machine; None: no sample."""
    samples = read_capture(capture)
    gpus = {}
    for metric, labels, _ in samples:
        gpu = {k: v for k, v in labels.items() if k not in NOT_GPU}
        gpus[tuple(sorted(gpu.items()))] = gpu
    out = []

    def up(t):
        return not (name == "silent" and end - t < 600)

    def labels_at(base):
        def at(t):
            lab = dict(base, instance=instance, job="dcgm-exporter")
            if name == "restart" and end - t < 3 * HOUR:
                lab.update(RESTARTED)
            return lab
        return at

    for metric, labels, value in samples:
        out.append((metric, labels_at(labels), lambda t, v=value: v if up(t) else None))
    for gpu in gpus.values():
        at = labels_at(gpu)
        g = gpu.get("gpu", "0")
        hot = name == "pods" and g == "0"
        out.append(("DCGM_FI_DEV_GPU_TEMP", at,
                    lambda t, hot=hot: (91 if hot and end - t <= 2 * HOUR else 61) if up(t) else None))
        out.append(("DCGM_FI_DEV_POWER_USAGE", at, lambda t: 210.5 if up(t) else None))
        out.append(("DCGM_FI_DEV_SM_CLOCK", at, lambda t: 1410 if up(t) else None))
        out.append(("DCGM_FI_DEV_GPU_UTIL", at, lambda t: 75 if up(t) else None))
        xid = 48 if name == "restart" and g == "1" else 0
        out.append(("DCGM_FI_DEV_XID_ERRORS", at,
                    lambda t, xid=xid: (xid if end - t <= 600 else 0) if up(t) else None))
        if name == "counters":
            out.append(("DCGM_EXP_XID_ERRORS_COUNT",
                        labels_at(dict(gpu, xid="43", window_size_in_ms="300000")),
                        lambda t: 1 if 2 * HOUR - 300 < end - t <= 2 * HOUR else 0))
    # Keep the last of identical (metric, labels): a capture may repeat one.
    unique = {}
    for metric, at, value in out:
        unique[(metric, tuple(sorted(at(end - 6 * HOUR).items())))] = (metric, at, value)
    return list(unique.values())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--fixtures", required=True, help="the dcgm-exporter/ captures folder")
    p.add_argument("--end", type=int, required=True)
    p.add_argument("--format", choices=["openmetrics", "vm"], default="openmetrics")
    a = p.parse_args()
    end = a.end - a.end % 60
    times = list(range(end - 6 * HOUR + 60, end + 1, 60))
    series = []
    for name, capture, instance in MACHINES:
        series += machine_series(name, os.path.join(a.fixtures, capture), instance, end)
    # One series per distinct label set: a restart splits one into two.
    points = {}
    for metric, at, value in series:
        for t in times:
            v = value(t)
            if v is None:
                continue
            lab = at(t)
            key = (metric, tuple(sorted(lab.items())))
            points.setdefault(key, []).append((t, v))
    out = sys.stdout
    if a.format == "openmetrics":
        for family in sorted({k[0] for k in points}):
            out.write("# TYPE %s gauge\n" % family)
            for (metric, lab), pts in sorted(points.items()):
                if metric != family:
                    continue
                prefix = "%s{%s} " % (metric, ",".join('%s="%s"' % kv for kv in lab))
                out.write("".join("%s%r %d\n" % (prefix, v, t) for t, v in pts))
        out.write("# EOF\n")
    else:
        for (metric, lab), pts in sorted(points.items()):
            m = dict(lab)
            m["__name__"] = metric
            out.write(json.dumps({"metric": m, "values": [v for _, v in pts],
                                  "timestamps": [t * 1000 for t, _ in pts]},
                                 separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
