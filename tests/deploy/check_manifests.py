#!/usr/bin/env python3
"""Checks gpudoctor's Kubernetes manifests: every YAML document parses and
carries the fields the deployment depends on.

    check_manifests.py DIR

Prints one line per problem and exits 1 when there is any, else prints
"ok: N documents" and exits 0. Exit 2 when PyYAML is missing or DIR holds no
manifest.
"""
import glob
import json
import os
import sys

try:
    import yaml
except ImportError:
    print("PyYAML is missing (apt-get install python3-yaml)")
    sys.exit(2)

REQUIRED_HOST_PATHS = {"/dev/kmsg", "/sys", "/proc", "/var/log/journal", "/run/log/journal"}
REQUIRED_CAPS = {"SYSLOG", "DAC_READ_SEARCH"}
PORT = 9835


def dig(obj, *keys):
    for key in keys:
        if isinstance(obj, dict):
            obj = obj.get(key)
        elif isinstance(obj, list) and isinstance(key, int) and key < len(obj):
            obj = obj[key]
        else:
            return None
    return obj


def check_scrape_annotations(where, annotations, problems):
    annotations = annotations or {}
    if annotations.get("prometheus.io/scrape") != "true":
        problems.append(f"{where}: prometheus.io/scrape is not \"true\"")
    if str(annotations.get("prometheus.io/port")) != str(PORT):
        problems.append(f"{where}: prometheus.io/port is not {PORT}")


def check_agent_daemonset(where, ds, problems):
    spec = dig(ds, "spec", "template", "spec") or {}
    containers = spec.get("containers") or []
    agent = next((c for c in containers if "agent" in (c.get("args") or [])), None)
    if agent is None:
        problems.append(f"{where}: no container runs `gpudoctor agent`")
        return
    args = agent.get("args") or []
    if "--listen" not in args or not str(args[args.index("--listen") + 1]).endswith(f":{PORT}"):
        problems.append(f"{where}: the agent does not --listen on port {PORT}")
    host_paths = {dig(v, "hostPath", "path") for v in spec.get("volumes") or []}
    for path in sorted(REQUIRED_HOST_PATHS - host_paths):
        problems.append(f"{where}: no hostPath volume for {path}")
    mounted = {m.get("name") for m in agent.get("volumeMounts") or []}
    for v in spec.get("volumes") or []:
        if dig(v, "hostPath", "path") in REQUIRED_HOST_PATHS and v.get("name") not in mounted:
            problems.append(f"{where}: volume {v.get('name')} is not mounted")
    sc = agent.get("securityContext") or {}
    caps = set(dig(sc, "capabilities", "add") or [])
    for cap in sorted(REQUIRED_CAPS - caps):
        problems.append(f"{where}: capability {cap} not added")
    if "ALL" not in (dig(sc, "capabilities", "drop") or []):
        problems.append(f"{where}: capabilities not dropped to the needed ones (drop: [ALL])")
    if sc.get("privileged"):
        problems.append(f"{where}: the agent must not run privileged")
    # The probes go to the plain health listener: the main port speaks TLS
    # once the web config turns it on, and the kubelet's probes would fail.
    health = str(args[args.index("--health-listen") + 1]) if "--health-listen" in args else ""
    health_port = int(health.rsplit(":", 1)[1]) if ":" in health else None
    if health_port is None:
        problems.append(f"{where}: the agent has no --health-listen for the probes")
    named = {p.get("name"): p.get("containerPort") for p in agent.get("ports") or []}
    for probe in ("livenessProbe", "readinessProbe"):
        if dig(agent, probe, "httpGet", "path") != "/healthz":
            problems.append(f"{where}: {probe} is not GET /healthz")
        port = dig(agent, probe, "httpGet", "port")
        port = named.get(port, port)
        if health_port is not None and port != health_port:
            problems.append(f"{where}: {probe} is not on the --health-listen port {health_port}")
        if str(dig(agent, probe, "httpGet", "scheme") or "HTTP").upper() != "HTTP":
            problems.append(f"{where}: {probe} is not plain HTTP (the health listener is)")
    for kind in ("requests", "limits"):
        if not dig(agent, "resources", kind):
            problems.append(f"{where}: no resources.{kind}")
    env = {e.get("name"): e.get("value") for e in agent.get("env") or []}
    if spec.get("runtimeClassName") != "nvidia" and env.get("NVIDIA_VISIBLE_DEVICES") != "all":
        problems.append(f"{where}: no runtimeClassName nvidia nor NVIDIA_VISIBLE_DEVICES=all")
    if "utility" not in str(env.get("NVIDIA_DRIVER_CAPABILITIES", "")):
        problems.append(f"{where}: NVIDIA_DRIVER_CAPABILITIES lacks utility (libnvidia-ml)")
    if not spec.get("tolerations"):
        problems.append(f"{where}: no tolerations for GPU nodes")
    check_scrape_annotations(f"{where} pod template", dig(ds, "spec", "template", "metadata", "annotations"), problems)
    # /metrics and /api/v1/* name every GPU job's processes, users, pods:
    # the agent serves them only with a web config from a Secret.
    if "--web-config" not in args:
        problems.append(f"{where}: the agent runs without --web-config (no authentication)")
    else:
        web = str(args[args.index("--web-config") + 1])
        secrets = {v.get("name") for v in spec.get("volumes") or [] if dig(v, "secret", "secretName")}
        mounts = [m for m in agent.get("volumeMounts") or []
                  if m.get("name") in secrets and web.startswith(str(m.get("mountPath")).rstrip("/") + "/")]
        if not mounts:
            problems.append(f"{where}: --web-config {web} is not mounted from a Secret")
    selector = dig(ds, "spec", "selector", "matchLabels") or {}
    labels = dig(ds, "spec", "template", "metadata", "labels") or {}
    if not selector or any(labels.get(k) != v for k, v in selector.items()):
        problems.append(f"{where}: selector does not match the pod template's labels")


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip())
        return 2
    files = sorted(glob.glob(os.path.join(sys.argv[1], "*.yaml")))
    if not files:
        print(f"{sys.argv[1]}: no *.yaml manifest")
        return 2
    problems = []
    docs = []
    for path in files:
        try:
            with open(path) as f:
                loaded = [d for d in yaml.safe_load_all(f) if d is not None]
        except yaml.YAMLError as e:
            problems.append(f"{os.path.basename(path)}: does not parse: {e}".replace("\n", " "))
            continue
        for i, doc in enumerate(loaded):
            where = f"{os.path.basename(path)}#{i}"
            if not isinstance(doc, dict) or not doc.get("kind") or not doc.get("apiVersion"):
                problems.append(f"{where}: no kind or apiVersion")
                continue
            if not dig(doc, "metadata", "name"):
                problems.append(f"{where}: no metadata.name")
            docs.append((f"{where} {doc['kind']}", doc))

    agents = [(w, d) for w, d in docs if d["kind"] == "DaemonSet"
              and dig(d, "metadata", "labels", "app.kubernetes.io/name") == "gpudoctor"]
    if not agents:
        problems.append("no gpudoctor agent DaemonSet")
    for where, ds in agents:
        check_agent_daemonset(where, ds, problems)

    services = [(w, d) for w, d in docs if d["kind"] == "Service"]
    if not services:
        problems.append("no Service")
    for where, svc in services:
        check_scrape_annotations(where, dig(svc, "metadata", "annotations"), problems)
        if PORT not in [p.get("port") for p in dig(svc, "spec", "ports") or []]:
            problems.append(f"{where}: no port {PORT}")
        pod_labels = [dig(d, "spec", "template", "metadata", "labels") or {} for _, d in agents]
        sel = dig(svc, "spec", "selector") or {}
        if not any(sel and all(l.get(k) == v for k, v in sel.items()) for l in pod_labels):
            problems.append(f"{where}: selector matches no agent pod")

    monitors = [(w, d) for w, d in docs if d["kind"] == "ServiceMonitor"]
    if not monitors:
        problems.append("no ServiceMonitor")
    for where, sm in monitors:
        sel = dig(sm, "spec", "selector", "matchLabels") or {}
        port_names = {p.get("name") for _, s in services for p in dig(s, "spec", "ports") or []}
        matched = [s for _, s in services
                   if sel and all((dig(s, "metadata", "labels") or {}).get(k) == v for k, v in sel.items())]
        if not matched:
            problems.append(f"{where}: selector matches no Service's labels")
        for ep in dig(sm, "spec", "endpoints") or [{}]:
            if not ep.get("basicAuth") and not ep.get("authorization"):
                problems.append(f"{where}: endpoint {ep.get('port')!r} sends no credentials")
            if ep.get("port") not in port_names:
                problems.append(f"{where}: endpoint port {ep.get('port')!r} is not a Service port name")

    # The ConfigMap is the plugin file with the image's path (the Debian
    # package's /usr/bin), and NPD runs in the agent's image, which has
    # gpudoctor and its libraries: no binary copied into NPD's image.
    plugin_file = os.path.join(sys.argv[1], "..", "node-problem-detector", "gpudoctor-plugin.json")
    for where, cm in docs:
        embedded = dig(cm, "data", "gpudoctor-plugin.json") if cm["kind"] == "ConfigMap" else None
        if embedded is not None and os.path.exists(plugin_file):
            with open(plugin_file) as f:
                expected = f.read().replace('"/usr/local/bin/gpudoctor"', '"/usr/bin/gpudoctor"')
                if json.loads(embedded) != json.loads(expected):
                    problems.append(f"{where}: gpudoctor-plugin.json differs from {plugin_file} "
                                    "(with the image's /usr/bin/gpudoctor)")
    # The image the manifests run is deploy/container/Containerfile's: Debian
    # 12 with the package, whose binary is /usr/bin/gpudoctor.
    containerfile = os.path.join(sys.argv[1], "..", "container", "Containerfile")
    if os.path.exists(containerfile):
        with open(containerfile) as f:
            lines = [l.strip() for l in f if l.strip() and not l.lstrip().startswith("#")]
        if not any(l.startswith("FROM ") and ":12" in l for l in lines):
            problems.append("Containerfile: not FROM a Debian 12 image")
        if not any("apt-get install" in l and ".deb" in l for l in lines):
            problems.append("Containerfile: does not install the gpudoctor package")
        if 'ENTRYPOINT ["/usr/bin/gpudoctor"]' not in lines:
            problems.append("Containerfile: ENTRYPOINT is not the package's /usr/bin/gpudoctor")
    for where, ds in agents:
        for c in dig(ds, "spec", "template", "spec", "containers") or []:
            command = c.get("command") or []
            if "agent" in (c.get("args") or []) and command[:1] != ["/usr/bin/gpudoctor"]:
                problems.append(f"{where}: the agent runs {command[:1]}, "
                                "not the image's /usr/bin/gpudoctor")
    agent_images = set()
    for where, ds in agents:
        for c in dig(ds, "spec", "template", "spec", "containers") or []:
            if "agent" in (c.get("args") or []):
                agent_images.add(c.get("image"))
    for where, ds in docs:
        if ds["kind"] != "DaemonSet":
            continue
        pod = dig(ds, "spec", "template", "spec") or {}
        for c in pod.get("containers") or []:
            if not any("node-problem-detector" in str(a) for a in c.get("command") or []):
                continue
            if c.get("image") not in agent_images:
                problems.append(f"{where}: NPD runs in {c.get('image')}, not gpudoctor's image "
                                f"({', '.join(sorted(map(str, agent_images)))})")
        for c in pod.get("initContainers") or []:
            if any("gpudoctor" in str(a) for a in (c.get("command") or []) + (c.get("args") or [])):
                problems.append(f"{where}: init container {c.get('name')} copies gpudoctor "
                                "into another image (it needs its shared libraries)")

    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"ok: {len(docs)} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main())
