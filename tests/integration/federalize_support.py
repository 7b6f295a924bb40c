"""Helpers for the federalization and member_join integration tests: run a playbook of the collection
against the local stack and read its recap, and build the reference runbook's objects."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = REPO_ROOT / ".venv" / "bin"
BUILD = REPO_ROOT / ".build"
RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


@dataclass(repr=False)
class PlaybookRun:
    returncode: int
    stdout: str
    stderr: str

    @property
    def recap(self) -> dict[str, dict[str, int]]:
        return {m.group(1): {"ok": int(m.group(2)), "changed": int(m.group(3)), "failed": int(m.group(5))}
                for m in RECAP.finditer(self.stdout)}

    @property
    def changed(self) -> int:
        return sum(host["changed"] for host in self.recap.values())

    def __repr__(self) -> str:
        # pytest shows assertion messages through repr: make it the run's output.
        return f"rc={self.returncode}\n{self.stdout[-6000:]}\n{self.stderr[-3000:]}"

    __str__ = __repr__


def ensure_collection() -> None:
    """`make collection`: multicloud.federation and kubernetes.core resolvable under .build/."""
    if not (BUILD / "ansible_collections" / "multicloud" / "federation" / "galaxy.yml").exists():
        subprocess.run(["make", "collection"], cwd=REPO_ROOT, check=True, capture_output=True, timeout=900)


def playbook(env: dict, name: str, extra_vars: dict | None = None, check: bool = False, diff: bool = False,
             extra_inventory: dict | None = None, limit: str | None = None, timeout: float = 1200) -> PlaybookRun:
    """Run playbooks/<name> against the stack's inventory (plus an optional inventory overlay)."""
    ensure_collection()
    run_env = dict(env)
    run_env.update({
        "ANSIBLE_COLLECTIONS_PATH": str(BUILD),
        "ANSIBLE_CONFIG": str(REPO_ROOT / "ansible.cfg"),
        "ANSIBLE_FORCE_COLOR": "0",
        "ANSIBLE_NOCOLOR": "1",
        "PATH": f"{VENV_BIN}{os.pathsep}{env.get('PATH', os.environ.get('PATH', ''))}",
    })
    with tempfile.TemporaryDirectory() as tmp:
        argv = [str(VENV_BIN / "ansible-playbook"), "-i", run_env["MCF_STACK_INVENTORY"]]
        if extra_inventory:
            overlay = Path(tmp) / "overlay.yml"
            overlay.write_text(yaml.safe_dump(extra_inventory))
            argv += ["-i", str(overlay)]
        if extra_vars:
            vars_file = Path(tmp) / "vars.json"
            vars_file.write_text(json.dumps(extra_vars))
            argv += ["-e", f"@{vars_file}"]
        if check:
            argv.append("--check")
        if diff:
            argv.append("--diff")
        if limit:
            argv += ["--limit", limit]
        argv.append(str(REPO_ROOT / "playbooks" / name))
        result = subprocess.run(argv, cwd=REPO_ROOT, env=run_env, capture_output=True, text=True, timeout=timeout,
                                check=False)  # PlaybookRun carries the exit code; tests assert on it
    return PlaybookRun(result.returncode, result.stdout, result.stderr)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


NAMESPACE = "fed-demo"
SECRET_VALUE = "s3cr3t-federalize-value"
SOURCE_LB_ANNOTATION = "service.beta.kubernetes.io/volcengine-loadbalancer-id"
TARGET_LB_ANNOTATIONS = {
    "kubernetes.io/elb.class": "union",
    "kubernetes.io/elb.id": "elb-test-ucs-0001",
}
NODE_PORT = 31922


def deployment(name: str, replicas: int, configmap: str) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [{
                        "name": "web",
                        "image": "nginx:1.27",
                        "env": [{"name": "PASSWORD",
                                 "valueFrom": {"secretKeyRef": {"name": "fed-secret-01", "key": "password"}}}],
                        "volumeMounts": [{"name": "conf", "mountPath": "/etc/app"}],
                    }],
                    "volumes": [{"name": "conf", "configMap": {"name": configmap}}],
                },
            },
        },
    }


def reference_scenario() -> list[dict]:
    """The runbook's application, created directly in idc1: two Deployments with their ConfigMaps and
    Secret, and a LoadBalancer Service with the source cloud's annotation and a fixed nodePort."""
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fed-cm-01", "namespace": NAMESPACE},
         "data": {"app.conf": "listen 8080\n"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fed-cm-02", "namespace": NAMESPACE},
         "data": {"app.conf": "listen 8081\n"}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "fed-secret-01", "namespace": NAMESPACE},
         "type": "Opaque", "data": {"password": b64(SECRET_VALUE)}},
        deployment("fed-dp-01", 3, "fed-cm-01"),
        deployment("fed-dp-02", 2, "fed-cm-02"),
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "fed-service-01", "namespace": NAMESPACE,
                         "annotations": {SOURCE_LB_ANNOTATION: "lb-idc1-0001"}},
            "spec": {
                "type": "LoadBalancer",
                "selector": {"app": "fed-dp-01"},
                "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP", "nodePort": NODE_PORT}],
            },
        },
    ]


FEDERALIZE_VARS = {
    "federalize_source": "idc1",
    "federalize_namespace": NAMESPACE,
    "federalize_policy_name": "fed-app",
    "federalize_resources": [
        {"api_version": "apps/v1", "kind": "Deployment", "names": ["fed-dp-01", "fed-dp-02"]},
        {"api_version": "v1", "kind": "Service", "names": ["fed-service-01"]},
    ],
    "federalize_wait_timeout": 240,
}

OVERRIDE_VARS = {
    "override_policy_name": "fed-service-01-lb",
    "override_policy_namespace": NAMESPACE,
    "override_policy_resource_selectors": [{"api_version": "v1", "kind": "Service", "name": "fed-service-01"}],
    "override_policy_rules": [{
        "target_clusters": ["test-ucs"],
        "annotations": TARGET_LB_ANNOTATIONS,
        "remove_annotations": [SOURCE_LB_ANNOTATION],
    }],
}
