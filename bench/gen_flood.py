#!/usr/bin/env python3
# Writes a kernel log flood of about TARGET bytes to PATH (deterministic):
#   xid13   an Xid 13 storm: every line an Xid 13 of one GPU, from 5000
#           processes (pids) of a few programs, with the SM coordinates and
#           ESR values varying as the driver prints them
#   nvrm    a syslog (gen_syslog.py's traffic) in which one line in seven is
#           an ordinary NVRM line that is not an Xid (driver notes, GPU UUID,
#           assertions, rate-limit notes), with one Xid line in 30000
#   xid79   one repeated Xid: Xid 79 of one GPU, over and over, the pid varying
# Every line has a syslog stamp one millisecond after the one before.
#
#   bench/gen_flood.py KIND PATH TARGET_BYTES
import random, sys
random.seed(11)
kind, path, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
noise = [
 "{ts} gpu-node-07 kernel: [{mono}] EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.",
 "{ts} gpu-node-07 kernel: [{mono}] IPv6: ADDRCONF(NETDEV_CHANGE): eth{n}: link becomes ready",
 "{ts} gpu-node-07 systemd[1]: Started Session {n} of user ubuntu.",
 "{ts} gpu-node-07 kernel: [{mono}] docker0: port {n}(veth{pid:x}) entered forwarding state",
 "{ts} gpu-node-07 containerd[2210]: time=\"2025-02-15T17:37:45.123Z\" level=info msg=\"shim disconnected\" id={pid:x}{n:x}",
 "{ts} gpu-node-07 CRON[{pid}]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)",
]
nvrm = [
 "{ts} gpu-node-07 kernel: [{mono}] NVRM: GPU at PCI:0000:{b:02x}:00: GPU-509665ad-b600-ac93-3616-d754b23d636d",
 "{ts} gpu-node-07 kernel: [{mono}] NVRM: nvAssertOkFailedNoLog: Assertion failed: Call timed out [NV_ERR_TIMEOUT] (0x00000065) returned from pRmApi->Control(pRmApi, RES_GET_CLIENT_HANDLE(pKernelChannel), ...) @ kernel_channel.c:{n}",
 "{ts} gpu-node-07 kernel: [{mono}] NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:{b:02x}:00 (printing 1 of every 30).  The GPU likely needs to be reset.",
 "{ts} gpu-node-07 kernel: [{mono}] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023",
 "{ts} gpu-node-07 kernel: [{mono}] NVRM: GPU Board Serial Number: 1650124014249",
]
progs = ["python3", "python", "pt_main_thread", "torchrun", "ray::train"]
errs = ["Out Of Range Address", "Illegal Instruction Encoding", "Misaligned Address", "Illegal Address"]
written, i = 0, 0
with open(path, "w") as f:
    buf = []
    while written < target:
        i += 1
        ms = 1739641065000 + i
        ts = "Feb %2d %02d:%02d:%02d" % (15 + (ms // 86400000 - 20134), (ms // 3600000) % 24, (ms // 60000) % 60, (ms // 1000) % 60)
        mono = "%d.%06d" % (80000 + i // 1000, (i % 1000) * 1000)
        if kind == "xid13":
            pid = 10000 + random.randrange(5000)
            if i % 3:
                msg = "Graphics SM Warp Exception on (GPC %d, TPC %d, SM %d): %s" % (random.randrange(8), random.randrange(9), random.randrange(2), random.choice(errs))
            else:
                msg = "Graphics Exception: ESR 0x%x=0x%x 0x%x=0x0 0x%x=0x4 0x%x=0x0" % (0x504648 + random.randrange(8) * 0x800, random.randrange(1 << 28), 0x504650, 0x504644, 0x50464c)
            line = "%s gpu-node-07 kernel: [%s] NVRM: Xid (PCI:0000:3b:00): 13, pid=%d, name=%s, %s" % (ts, mono, pid, progs[pid % len(progs)], msg)
        elif kind == "xid79":
            line = "%s gpu-node-07 kernel: [%s] NVRM: Xid (PCI:0000:3b:00): 79, pid=%d, name=python3, GPU has fallen off the bus." % (ts, mono, 10000 + i % 4096)
        elif kind == "nvrm":
            if i % 30000 == 0:
                line = "%s gpu-node-07 kernel: [%s] NVRM: Xid (PCI:0000:3b:00): 31, pid=%d, name=python3, Ch 00000008, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f2a_04000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (ts, mono, 10000 + i % 977)
            elif i % 7 == 0:
                line = nvrm[(i // 7) % len(nvrm)].format(ts=ts, mono=mono, b=0x3b, n=i % 977)
            else:
                line = noise[i % len(noise)].format(ts=ts, mono=mono, n=i % 977, pid=(i * 7919) % 400000)
        else:
            sys.exit("kind: xid13, nvrm or xid79")
        buf.append(line)
        written += len(line) + 1
        if len(buf) >= 4096:
            f.write("\n".join(buf) + "\n")
            buf = []
    if buf:
        f.write("\n".join(buf) + "\n")
print(f"generated {i} lines", file=sys.stderr)
