#!/usr/bin/env python3
"""Writes a synthetic fleet history in dcgm-exporter's metric and label names
(--names dcgm) or in those of gpudoctor's agent (--names gpudoctor), for
`gpudoctor fleet` tests and benchmarks: NODES nodes x GPUS GPUs, one sample
every INTERVAL seconds for HOURS hours ending at END (Unix seconds).

Node n has a fault of kind n % SPACING (kinds 1-6; the others are healthy):
  1 GPU 2 runs at 90-91 C all along (over the 85 C high-temperature threshold)
  2 GPU 5 in HW thermal slowdown for the last 2 h: clocks-event reasons 0x40,
    SM clock 1100 MHz, the thermal violation counter rising
  3 GPU 1 reports Xid 79 3 h before the end and stops reporting 2 min later
  4 GPU 3 reports Xid 13 5 h before the end
  5 GPU 0 counts 2 uncorrectable (DBE) ECC errors 6 h before the end
  6 the whole node stops reporting 4 h before the end
In gpudoctor's names the same faults are the series `fleet` reads of an agent
that saw them: gpudoctor_gpu_verdict, gpudoctor_gpu_state, temperature and
power, gpudoctor_gpu_throttle_seconds_total, gpudoctor_xid_events_total,
gpudoctor_finding_active (thermal.high_temperature, thermal.slowdown,
xid.fallen_off_bus with gpu.lost and the GPU then in state lost,
xid.application for 10 min, ecc.uncorrectable) and
gpudoctor_last_sample_timestamp_seconds.
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


def dcgm_series(n, kind, gpus, start, end):
    """(name, labels, value at t or None) of every series of node n."""
    out = []
    for g in range(gpus):
        base = labels(n, g)
        phase = n * 37 + g * 11
        for name, _ in SERIES:
            out.append((name, base, lambda t, name=name, g=g, phase=phase:
                        values(name, kind, g, t, start, end, phase)))
    return out


GPUDOCTOR_FAMILIES = [
    "gpudoctor_gpu_verdict",
    "gpudoctor_gpu_state",
    "gpudoctor_gpu_temperature_celsius",
    "gpudoctor_gpu_power_draw_watts",
    "gpudoctor_gpu_throttle_seconds_total",
    "gpudoctor_xid_events_total",
    "gpudoctor_finding_active",
    "gpudoctor_last_sample_timestamp_seconds",
]
SEVERITY = {"warning": 2, "critical": 3}


def gpudoctor_series(n, kind, gpus, end):
    """The series `fleet` reads of node n's agent, in gpudoctor's names: the
    GPU labels the agent serves (gpu, uuid, pci_bus_id, model) and those the
    scrape adds (instance, job)."""
    node = {"instance": "10.0.%d.%d:9402" % (n // 250, n % 250 + 1), "job": "gpudoctor"}
    bus = lambda g: "0000:%02x:00.0" % (0x18 + g)  # the agent's form, as NVML's normalised

    def gpu_labels(g, **extra):
        d = {"gpu": str(g), "uuid": "GPU-%08x-0000-0000-0000-%012x" % (n, g),
             "pci_bus_id": bus(g), "model": "NVIDIA H100 80GB HBM3"}
        d.update(node)
        d.update(extra)
        return d

    # (finding id, severity, GPU, active at this many seconds before the end)
    findings = []
    if kind == 1:
        findings.append(("thermal.high_temperature", "warning", 2, lambda s: True))
    if kind == 2:
        findings.append(("thermal.slowdown", "warning", 5, lambda s: s <= 2 * 3600))
    if kind == 3:
        findings.append(("xid.fallen_off_bus", "critical", 1, lambda s: s <= 3 * 3600))
        findings.append(("gpu.lost", "critical", 1, lambda s: s <= 3 * 3600 - 120))
    if kind == 4:
        findings.append(("xid.application", "warning", 3,
                         lambda s: 5 * 3600 - 600 < s <= 5 * 3600))
    if kind == 5:
        findings.append(("ecc.uncorrectable", "critical", 0, lambda s: s <= 6 * 3600))
    up = lambda t: not (kind == 6 and end - t < 4 * 3600)
    lost = lambda g, t: kind == 3 and g == 1 and end - t <= 3 * 3600 - 120

    def when_up(f):
        return lambda t: f(t) if up(t) else None

    out = []
    for g in range(gpus):
        phase = n * 37 + g * 11
        wave = lambda t, phase=phase: math.sin((t + phase) / 900.0)
        mine = [(sev, act) for (_, sev, fg, act) in findings if fg == g]
        out.append(("gpudoctor_gpu_verdict", gpu_labels(g), when_up(
            lambda t, mine=mine: max([SEVERITY[sev] for sev, act in mine if act(end - t)] + [0]))))
        for state in ("ok", "lost", "hung", "error"):
            out.append(("gpudoctor_gpu_state", gpu_labels(g, state=state), when_up(
                lambda t, g=g, state=state: int(state == ("lost" if lost(g, t) else "ok")))))
        hot = kind == 1 and g == 2
        slow = lambda t, g=g: kind == 2 and g == 5 and end - t <= 2 * 3600
        out.append(("gpudoctor_gpu_temperature_celsius", gpu_labels(g), when_up(
            lambda t, g=g, hot=hot, slow=slow, wave=wave: None if lost(g, t) else (
                90 + (1 if wave(t) > 0 else 0) if hot else
                (84 if slow(t) else 62 + round(5 * wave(t)))))))
        out.append(("gpudoctor_gpu_power_draw_watts", gpu_labels(g), when_up(
            lambda t, g=g, wave=wave: None if lost(g, t) else round(450 + 120 * wave(t), 3))))
        if kind == 2 and g == 5:
            out.append(("gpudoctor_gpu_throttle_seconds_total",
                        gpu_labels(g, reason="hw_thermal_slowdown"), when_up(
                            lambda t: 2 * 3600 - (end - t) if end - t <= 2 * 3600 else None)))
        for code, at, xg in ((79, 3 * 3600, 1), (13, 5 * 3600, 3)):
            if (kind, g) == ({79: 3, 13: 4}[code], xg):
                out.append(("gpudoctor_xid_events_total", gpu_labels(g, xid=str(code)), when_up(
                    lambda t, at=at: 1 if end - t <= at else None)))
    for fid, sev, g, act in findings:
        lab = dict(node, id=fid, severity=sev, gpus=bus(g))
        out.append(("gpudoctor_finding_active", lab, when_up(
            lambda t, act=act: 1 if act(end - t) else None)))
    out.append(("gpudoctor_last_sample_timestamp_seconds", dict(node), when_up(lambda t: t)))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nodes", type=int, default=6)
    p.add_argument("--gpus", type=int, default=8)
    p.add_argument("--hours", type=float, default=3)
    p.add_argument("--interval", type=int, default=60)
    p.add_argument("--end", type=int, required=True)
    p.add_argument("--spacing", type=int, default=8)
    p.add_argument("--names", choices=["dcgm", "gpudoctor"], default="dcgm")
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

    def node_series(n):
        kind = n % a.spacing
        if a.names == "dcgm":
            return dcgm_series(n, kind, a.gpus, start, end)
        return gpudoctor_series(n, kind, a.gpus, end)

    families = [name for name, _ in SERIES] if a.names == "dcgm" else GPUDOCTOR_FAMILIES
    out = sys.stdout
    if a.format == "openmetrics":
        # Every family as a gauge: an OpenMetrics counter's samples would be
        # stored as NAME_total, and dcgm-exporter's names have no suffix
        # (gpudoctor's counters already end in _total).
        for family in families:
            out.write("# TYPE %s gauge\n" % family)
            for n in range(a.nodes):
                for name, lab, value in node_series(n):
                    if name != family:
                        continue
                    prefix = "%s{%s} " % (name, ",".join('%s="%s"' % kv for kv in lab.items()))
                    lines = []
                    for t in times:
                        v = value(t)
                        if v is not None:
                            lines.append("%s%s %d\n" % (prefix, v, t))
                    out.write("".join(lines))
        out.write("# EOF\n")
    else:
        for n in range(a.nodes):
            for name, lab, value in node_series(n):
                vs, ts = [], []
                for t in times:
                    v = value(t)
                    if v is not None:
                        vs.append(v)
                        ts.append(t * 1000)
                if vs:
                    m = dict(lab)
                    m["__name__"] = name
                    out.write(json.dumps({"metric": m, "values": vs, "timestamps": ts},
                                         separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
