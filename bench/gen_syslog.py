#!/usr/bin/env python3
# Writes a syslog-style kernel log of about TARGET bytes to PATH: kernel,
# systemd, containerd, kubelet, audit and network traffic with one Xid line
# every 30000 lines (a few hundred per GiB) and a few NVRM UUID lines.
# Deterministic (seeded). Used by kernel_scan_vs_grep.sh and analyze_vs_grep.sh.
#
#   bench/gen_syslog.py PATH TARGET_BYTES
import random, sys
random.seed(7)
path, target = sys.argv[1], int(sys.argv[2])
noise = [
 "{ts} gpu-node-07 kernel: [{mono}] EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.",
 "{ts} gpu-node-07 kernel: [{mono}] IPv6: ADDRCONF(NETDEV_CHANGE): eth{n}: link becomes ready",
 "{ts} gpu-node-07 kernel: [{mono}] mlx5_core 0000:{b:02x}:00.0: Port module event: module 0, Cable plugged",
 "{ts} gpu-node-07 kernel: [{mono}] audit: type=1400 audit({mono}:{n}): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd\" name=\"/proc/{n}/mounts\" pid={pid} comm=\"lxd\"",
 "{ts} gpu-node-07 systemd[1]: Started Session {n} of user ubuntu.",
 "{ts} gpu-node-07 systemd-logind[1123]: New session {n} of user ubuntu.",
 "{ts} gpu-node-07 kernel: [{mono}] docker0: port {n}(veth{pid:x}) entered forwarding state",
 "{ts} gpu-node-07 kernel: [{mono}] TCP: request_sock_TCP: Possible SYN flooding on port 8080. Sending cookies.  Check SNMP counters.",
 "{ts} gpu-node-07 containerd[2210]: time=\"2025-02-15T17:37:45.123Z\" level=info msg=\"shim disconnected\" id={pid:x}{n:x}",
 "{ts} gpu-node-07 kernel: [{mono}] IPv6: ADDRCONF(NETDEV_CHANGE): veth{pid:x}: link becomes ready",
 "{ts} gpu-node-07 CRON[{pid}]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)",
 "{ts} gpu-node-07 kernel: [{mono}] perf: interrupt took too long ({n} > {pid}), lowering kernel.perf_event_max_sample_rate to {n}",
 "{ts} gpu-node-07 kubelet[3301]: I0215 17:37:45.123456    3301 kubelet_pods.go:1082] \"Clean up pod volumes\" pod=\"default/train-{n}\"",
]
rare = "{ts} gpu-node-07 kernel: [{mono}] NVRM: GPU at PCI:0000:{b:02x}:00: GPU-509665ad-b600-ac93-3616-d754b23d636d"
xid = "{ts} gpu-node-07 kernel: [{mono}] NVRM: Xid (PCI:0000:{b:02x}:00): {code}, pid={pid}, name=python3, Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x58005"
written, xids, i = 0, 0, 0
with open(path, "w") as f:
    buf = []
    while written < target:
        i += 1
        ts = "Feb 15 %02d:%02d:%02d" % ((i // 3600000) % 24, (i // 60000) % 60, (i // 1000) % 60)
        mono = "%d.%06d" % (i // 1000, (i * 37) % 1000000)
        if i % 30000 == 0:
            line = xid.format(ts=ts, mono=mono, b=random.choice([0x1b, 0x3b, 0x5d, 0x9b]),
                              code=random.choice([13, 31, 43, 48, 79, 109, 119]), pid=random.randint(1000, 99999))
            xids += 1
        elif i % 50000 == 0:
            line = rare.format(ts=ts, mono=mono, b=i % 255)
        else:
            line = noise[i % len(noise)].format(ts=ts, mono=mono, n=i % 977, b=i % 255, pid=(i * 7919) % 400000)
        buf.append(line)
        written += len(line) + 1
        if len(buf) >= 4096:
            f.write("\n".join(buf) + "\n")
            buf = []
    if buf:
        f.write("\n".join(buf) + "\n")
print(f"generated {i} lines, {xids} Xid lines", file=sys.stderr)
