"""Helpers for the federalization and member_join integration tests: run a playbook of the collection
against the local stack (through the suite's one runner, playbook_runner), and build the reference
runbook's objects, and lose the controller in the middle of a migration on either engine."""

from __future__ import annotations

import base64
import json
import os
import signal
import threading
import time
from pathlib import Path

from tests.integration.conftest import stack_cli, wait_for
from tests.integration.fault_support import kill
from tests.integration.playbook_runner import PlaybookRecordError, PlaybookRun, run_playbook, stack_inventory


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


def _descendants(pid: int) -> list[int]:
    try:
        children = [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
    return children + [grandchild for child in children for grandchild in _descendants(child)]


def kill_the_controller(proc) -> None:
    """ansible-playbook and its workers, at once: the controller lost (a node gone, a job killed hard).
    Killing ansible-playbook alone would leave the worker that runs the module to finish its move."""
    processes = [proc.pid, *_descendants(proc.pid)]
    for pid in processes:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def kill_once(marker: str, cut_reached, what: str):
    """An on_line callback: once the run prints marker, wait until cut_reached() (e.g. the target added
    beside the source in the placement), then kill the controller."""
    def on_line(line, proc):
        if marker in line:
            wait_for(cut_reached, what, timeout=120, interval=0.5)
            kill_the_controller(proc)
    return on_line


def ready_copies(cluster, name: str, namespace: str) -> int:
    """Ready replicas of a Deployment, 0 when there is none (read once: it may go between two reads)."""
    found = cluster.kubectl("get", "deployment", name, "-n", namespace, "-o", "json", "--ignore-not-found").stdout
    return json.loads(found).get("status", {}).get("readyReplicas", 0) if found.strip() else 0


class ReadyCopiesWatch:
    """The ready copies of a Deployment summed over clusters, read twice a second in a thread from
    start() to stop(). A read that fails stops the watch and is kept in errors: a watch that stopped
    proves nothing, so the tests fail on it."""

    def __init__(self, clusters, name: str, namespace: str):
        self.clusters, self.name, self.namespace = clusters, name, namespace
        self.samples: list[int] = []
        self.errors: list[Exception] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        try:
            while not self._stop.is_set():
                self.samples.append(sum(ready_copies(c, self.name, self.namespace) for c in self.clusters))
                time.sleep(0.5)
        except Exception as error:  # pylint: disable=broad-exception-caught
            self.errors.append(error)

    def start(self) -> "ReadyCopiesWatch":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def assert_never_zero(self) -> None:
        assert not self.errors, self.errors
        assert len(self.samples) >= 5 and min(self.samples) > 0, self.samples


def migrate_with_the_controller_lost(stack, migrate, placed, source: str, target: str) -> PlaybookRun:
    """A migration from source to target whose controller is lost while the move waits for the target:
    the target's kube-scheduler is stopped first (its new pods stay Pending: a slow cluster), and
    ansible-playbook with its workers is killed once placed() - the policy's clusters - holds both.
    Checks that the cut left both placed, then starts the scheduler again and returns the rerun.
    migrate(on_line=None) runs migrate.yml to target on the engine's inventory."""
    kill(stack, f"{target}.kube-scheduler")
    marker = f"TASK [multicloud.federation.federalize : Move the application to {target}]"
    try:
        try:
            migrate(on_line=kill_once(marker, lambda: placed() == {source, target}, f"{target} added beside {source}"))
        except PlaybookRecordError:
            pass  # killed before its recap, as intended
        cut = placed()
        assert cut == {source, target}, cut
    finally:
        stack_cli("up")
    return migrate()


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
