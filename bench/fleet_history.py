#!/usr/bin/env python3
"""Writes a synthetic fleet history in dcgm-exporter's metric and label names,
for `gpudoctor fleet` tests and benchmarks: NODES nodes x GPUS GPUs, one sample
every INTERVAL seconds for HOURS hours ending at END (Unix seconds).

Node n has a fault of kind n % SPACING (kinds 1-6; the others are healthy):
  1 GPU 2 runs at 90-91 C all along (over the 85 C high-temperature threshold)
  2 GPU 5 in HW thermal slowdown for the last 2 h: clocks-event reasons 0x40,
    SM clock 1100 MHz, the thermal violation counter rising
  3 GPU 1 reports Xid 79 3 h before the end and stops reporting 2 min later
  4 GPU 3 reports Xid 13 5 h before the end
  5 GPU 0 counts 2 uncorrectable (DBE) ECC errors 6 h before the end
  6 the whole node stops reporting 4 h before the end
Formats: openmetrics (for `promtool tsdb create-blocks-from openmetrics`) or
vm (VictoriaMetrics' /api/v1/import JSON lines, one line per series).
--part K --parts N writes the K-th of N stretches of the window only.
Usage: fleet_history.py --nodes 256 --gpus 8 --hours 24 --end $(date +%s) \
         --format vm > history.jsonl
"""
import argparse
import json
import math
import sys

SERIES = [
    # name, openmetrics type
    ("DCGM_FI_DEV_GPU_TEMP", "gauge"),
    ("DCGM_FI_DEV_POWER_USAGE", "gauge"),
    ("DCGM_FI_DEV_SM_CLOCK", "gauge"),
    ("DCGM_FI_DEV_GPU_UTIL", "gauge"),
    ("DCGM_FI_DEV_FB_USED", "gauge"),
    ("DCGM_FI_DEV_FB_FREE", "gauge"),
    ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter"),
    ("DCGM_FI_DEV_XID_ERRORS", "gauge"),
    ("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "gauge"),
    ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter"),
    ("DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge"),
    ("DCGM_FI_DEV_THERMAL_VIOLATION", "counter"),
]


def values(name, kind, g, t, start, end, phase):
    """The series' value at time t, or None when the GPU does not report."""
    since_end = end - t
    if kind == 6 and since_end < 4 * 3600:
        return None
    if kind == 3 and g == 1 and since_end < 3 * 3600 - 120:
        return None
    hot = kind == 1 and g == 2
    slow = kind == 2 and g == 5 and since_end <= 2 * 3600
    wave = math.sin((t + phase) / 900.0)
    if name == "DCGM_FI_DEV_GPU_TEMP":
        return 90 + (1 if wave > 0 else 0) if hot else (84 if slow else 62 + round(5 * wave))
    if name == "DCGM_FI_DEV_POWER_USAGE":
        return round(450 + 120 * wave, 3)
    if name == "DCGM_FI_DEV_SM_CLOCK":
        return 1100 if slow else 1980
    if name == "DCGM_FI_DEV_GPU_UTIL":
        return 80 + round(10 * wave)
    if name == "DCGM_FI_DEV_FB_USED":
        return 40960
    if name == "DCGM_FI_DEV_FB_FREE":
        return 40000
    if name == "DCGM_FI_DEV_PCIE_REPLAY_COUNTER":
        return 0
    if name == "DCGM_FI_DEV_XID_ERRORS":
        if kind == 3 and g == 1 and since_end <= 3 * 3600:
            return 79
        if kind == 4 and g == 3 and since_end <= 5 * 3600:
            return 13
        return 0
    if name == "DCGM_FI_DEV_CLOCKS_EVENT_REASONS":
        return 0x40 if slow else 0
    if name == "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL":
        return 2 if kind == 5 and g == 0 and since_end <= 6 * 3600 else 0
    if name == "DCGM_FI_DEV_ROW_REMAP_FAILURE":
        return 0
    if name == "DCGM_FI_DEV_THERMAL_VIOLATION":
        if kind == 2 and g == 5 and since_end <= 2 * 3600:
            return int((2 * 3600 - since_end) * 1e9)
        return 0
    raise ValueError(name)


def labels(n, g):
    return {
        "gpu": str(g),
        "UUID": "GPU-%08x-0000-0000-0000-%012x" % (n, g),
        "pci_bus_id": "00000000:%02X:00.0" % (0x18 + g),
        "device": "nvidia%d" % g,
        "modelName": "NVIDIA H100 80GB HBM3",
        "Hostname": "node-%04d" % n,
        "instance": "10.0.%d.%d:9400" % (n // 250, n % 250 + 1),
        "job": "dcgm-exporter",
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nodes", type=int, default=6)
    p.add_argument("--gpus", type=int, default=8)
    p.add_argument("--hours", type=float, default=3)
    p.add_argument("--interval", type=int, default=60)
    p.add_argument("--end", type=int, required=True)
    p.add_argument("--spacing", type=int, default=8)
    p.add_argument("--format", choices=["openmetrics", "vm"], default="openmetrics")
    p.add_argument("--part", type=int, default=0,
                   help="write only the PART-th of PARTS equal stretches of the window (1-based)")
    p.add_argument("--parts", type=int, default=1)
    a = p.parse_args()
    end = a.end - a.end % a.interval
    start = end - int(a.hours * 3600)
    times = list(range(start + a.interval, end + 1, a.interval))
    if a.part:
        # One stretch at a time keeps each OpenMetrics file small enough for
        # promtool; the faults stay where --end puts them.
        per = (len(times) + a.parts - 1) // a.parts
        times = times[(a.part - 1) * per:a.part * per]
    out = sys.stdout
    if a.format == "openmetrics":
        # Every family as a gauge: an OpenMetrics counter's samples would be
        # stored as NAME_total, and dcgm-exporter's names have no suffix.
        for name, _ in SERIES:
            out.write("# TYPE %s gauge\n" % name)
            for n in range(a.nodes):
                kind = n % a.spacing
                for g in range(a.gpus):
                    lab = ",".join('%s="%s"' % kv for kv in labels(n, g).items())
                    prefix = "%s{%s} " % (name, lab)
                    lines = []
                    for t in times:
                        v = values(name, kind, g, t, start, end, n * 37 + g * 11)
                        if v is not None:
                            lines.append("%s%s %d\n" % (prefix, v, t))
                    out.write("".join(lines))
        out.write("# EOF\n")
    else:
        for n in range(a.nodes):
            kind = n % a.spacing
            for g in range(a.gpus):
                base = labels(n, g)
                for name, _ in SERIES:
                    vs, ts = [], []
                    for t in times:
                        v = values(name, kind, g, t, start, end, n * 37 + g * 11)
                        if v is not None:
                            vs.append(v)
                            ts.append(t * 1000)
                    if vs:
                        m = dict(base)
                        m["__name__"] = name
                        out.write(json.dumps({"metric": m, "values": vs, "timestamps": ts},
                                             separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
