"""Helpers for the federalization and member_join integration tests: run a playbook of the collection
against the local stack (through the suite's one runner, playbook_runner), and build the reference
runbook's objects."""

from __future__ import annotations

import base64
from pathlib import Path

from tests.integration.playbook_runner import PlaybookRun, run_playbook, stack_inventory


def playbook(env: dict, name: str, extra_vars: dict | None = None, check: bool = False, diff: bool = False,
             extra_inventory: dict | None = None, limit: str | None = None, timeout: float = 1200,
             inventory: str | Path | None = None, verbosity: int = 0, on_line=None) -> PlaybookRun:
    """Run playbooks/<name> against the stack's inventory (``inventory``: another one the stack wrote, e.g.
    its KubeAdmiral federation's), plus an optional inventory overlay. The tests judge the exit code
    themselves; a run without a readable recap raises. on_line: as run_playbook's."""
    overlay = [extra_inventory] if extra_inventory else []
    return run_playbook(Path("playbooks") / name, [inventory or stack_inventory(env), *overlay], env=env,
                        extra_vars=extra_vars, check=check, diff=diff, limit=limit, verbosity=verbosity,
                        expect_failure=None, timeout=timeout, on_line=on_line)


def joined_as_registered(stack) -> dict:
    """Each member's region and zones as Karmada registered them, so member_join.yml changes nothing."""
    hosts = {}
    for cluster in stack.karmada().get("clusters")["items"]:
        name, spec = cluster["metadata"]["name"], cluster["spec"]
        if name in stack.member_kubeconfigs:  # not a Cluster another test registered without a member behind it
            hosts[name] = {"member_join_region": spec.get("region", ""), "member_join_zones": spec.get("zones", [])}
    return {"members": {"hosts": hosts}}


def serves_united_deployment(karmada, cluster, api_version):
    """Ready, and Cluster.status.apiEnablements lists UnitedDeployment: the scheduler (and verify's
    prediction) count the cluster as a candidate again."""
    status = karmada.get("cluster.cluster.karmada.io", cluster).get("status", {})
    ready = any(c["type"] == "Ready" and c["status"] == "True" for c in status.get("conditions", []))
    return ready and any(group["groupVersion"] == api_version and any(r["kind"] == "UnitedDeployment"
                                                                      for r in group.get("resources") or [])
                         for group in status.get("apiEnablements") or [])


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
