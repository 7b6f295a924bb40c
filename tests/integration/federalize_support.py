"""Helpers for the federalization, drift and member_join integration tests: run a playbook of the collection
against the local stack (through the suite's one runner, playbook_runner), on either engine's inventory; build
the reference runbook's objects, wait for a test application's Deployments and remove its namespace; and lose
the controller in the middle of a migration on either engine."""

from __future__ import annotations

import base64
import json
import os
import signal
import threading
from pathlib import Path

from tests.integration.conftest import stack_cli, wait_for
from tests.integration.fault_support import kill
from tests.integration.playbook_runner import PlaybookRecordError, PlaybookRun, run_playbook, stack_inventory


def playbook(env: dict, name: str, extra_vars: dict | None = None, check: bool = False, diff: bool = False,
             extra_inventory: dict | None = None, limit: str | None = None, timeout: float = 1200,
             inventory: str | Path | None = None, verbosity: int = 0, on_line=None, core: Path | None = None) -> PlaybookRun:
    """Run playbooks/<name> against the stack's inventory (``inventory``: another one the stack wrote, e.g.
    its KubeAdmiral federation's), plus an optional inventory overlay. The tests judge the exit code
    themselves; a run without a readable recap raises. on_line, core: as run_playbook's."""
    overlay = [extra_inventory] if extra_inventory else []
    return run_playbook(Path("playbooks") / name, [inventory or stack_inventory(env), *overlay], env=env,
                        extra_vars=extra_vars, check=check, diff=diff, limit=limit, verbosity=verbosity,
                        expect_failure=None, timeout=timeout, on_line=on_line, core=core)


def kubeadmiral_playbook(env: dict, name: str, extra_vars: dict | None = None, **options) -> PlaybookRun:
    """playbook() against the inventory `python -m tests.stack up` wrote for its KubeAdmiral federation."""
    return playbook(env, name, extra_vars, inventory=env["MCF_KUBEADMIRAL_INVENTORY"], **options)


# --- a test's application, in a namespace of its own ------------------------------------------------

def deployment_ready(cluster, name: str, namespace: str, replicas: int | None = None, *,
                     rolled_out: bool = False) -> bool:
    """Deployment name in namespace exists, wants replicas (its own spec's count when None), has them all
    ready and its controller has seen its latest spec; rolled_out: every replica is also of the latest
    template and there are no others (a rollout or a move finished)."""
    found = cluster.kubectl("get", "deployment", name, "-n", namespace, "-o", "json", check=False)
    if found.returncode != 0:
        return False
    dep = json.loads(found.stdout)
    want = dep["spec"]["replicas"] if replicas is None else replicas
    status = dep.get("status", {})
    counts = ("readyReplicas", "updatedReplicas", "replicas") if rolled_out else ("readyReplicas",)
    return (dep["spec"]["replicas"] == want and all(status.get(count, 0) == want for count in counts)
            and status.get("observedGeneration") == dep["metadata"]["generation"])


def remove_namespace(namespace: str, *clusters, wait: bool = True, timeout: str = "180s") -> None:
    """Delete namespace from each cluster in turn (none is an error), waiting until it is gone unless wait
    is false. Delete a federation's control plane first: what it propagated goes from its members too."""
    for cluster in clusters:
        cluster.kubectl("delete", "namespace", namespace, "--ignore-not-found", f"--wait={str(wait).lower()}",
                        f"--timeout={timeout}")


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


class ReadyCopiesWatch:
    """The ready copies of an application summed over clusters, from a watch on each cluster's pods of it
    (label app=<name>, or selector) from start() to stop(). Every change of every pod is an event of the
    stream, so any moment with fewer ready copies is seen, however short; a poll (a read every half second)
    could miss one. A pod counts while its Ready condition is True and it is not being deleted. samples:
    the sum once every cluster is listed, then after each event, in the order the events arrived (all
    clusters run on this machine, and a move waits for the new copies before it deletes the old ones).
    Each stream resumes from the last resourceVersion it saw, so nothing falls between two streams; a
    watch that fails or cannot resume is kept in errors: a watch that stopped proves nothing, so the tests
    fail on it."""

    LIST_TIMEOUT = 30

    def __init__(self, clusters, name: str, namespace: str, selector: str | None = None):
        self.clusters, self.name, self.namespace = clusters, name, namespace
        self.selector = selector or f"app={name}"
        self.samples: list[int] = []
        # (cluster, pod, counted) of each event, for a failure's message.
        self.events: list[tuple[str, str, bool]] = []
        self.errors: list[str] = []
        self._ready: dict[str, set[str]] = {cluster.name: set() for cluster in clusters}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._all_listed = threading.Event()
        self._listed = {cluster.name: threading.Event() for cluster in clusters}
        self._threads = [threading.Thread(target=self._watch, args=(cluster,), daemon=True) for cluster in clusters]

    @staticmethod
    def _counted(pod, deleted: bool) -> bool:
        conditions = (pod.status.conditions if pod.status else None) or []
        return (not deleted and pod.metadata.deletion_timestamp is None
                and any(c.type == "Ready" and c.status == "True" for c in conditions))

    def _set(self, cluster: str, pod, deleted: bool = False) -> bool:
        counted = self._counted(pod, deleted)
        if counted:
            self._ready[cluster].add(pod.metadata.name)
        else:
            self._ready[cluster].discard(pod.metadata.name)
        return counted

    def _watch(self, cluster) -> None:
        from kubernetes import client, config, watch  # pylint: disable=import-outside-toplevel

        try:
            api = client.CoreV1Api(config.new_client_from_config(config_file=str(cluster.kubeconfig),
                                                                 context=cluster.context))
            current = api.list_namespaced_pod(self.namespace, label_selector=self.selector, _request_timeout=30)
            with self._lock:
                for pod in current.items:
                    self._set(cluster.name, pod)
            version = current.metadata.resource_version
            self._listed[cluster.name].set()
            # Streams start once every cluster is listed (they resume from the list, so nothing is lost
            # meanwhile): a sum taken while one cluster is listed and another not yet is no moment at all.
            self._all_listed.wait()
            # Short server-side timeouts, so that a stop is noticed without an event.
            while not self._stop.is_set():
                for event in watch.Watch().stream(api.list_namespaced_pod, self.namespace,
                                                  label_selector=self.selector, resource_version=version,
                                                  allow_watch_bookmarks=True, timeout_seconds=2,
                                                  _request_timeout=30):
                    if event["type"] == "BOOKMARK":
                        version = event["raw_object"]["metadata"]["resourceVersion"]
                        continue
                    pod = event["object"]
                    version = pod.metadata.resource_version
                    with self._lock:
                        counted = self._set(cluster.name, pod, deleted=event["type"] == "DELETED")
                        self.events.append((cluster.name, pod.metadata.name, counted))
                        self.samples.append(sum(len(ready) for ready in self._ready.values()))
        except Exception as error:  # pylint: disable=broad-exception-caught
            # Kept for the tests: the thread's only way out.
            self.errors.append(f"{cluster.name}: {type(error).__name__}: {error}")
            self._listed[cluster.name].set()

    def start(self) -> "ReadyCopiesWatch":
        for thread in self._threads:
            thread.start()
        for cluster, listed in self._listed.items():
            if not listed.wait(self.LIST_TIMEOUT):
                self.errors.append(f"{cluster}: not listed within {self.LIST_TIMEOUT}s")
        with self._lock:
            self.samples.append(sum(len(ready) for ready in self._ready.values()))
        self._all_listed.set()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._all_listed.set()
        for thread in self._threads:
            thread.join(timeout=15)

    def assert_never_zero(self) -> None:
        assert not self.errors, self.errors
        assert self.samples and min(self.samples) > 0, (
            f"{self.name}: a moment without a ready copy; sums {self.samples}; events (cluster, pod, counted) "
            f"{self.events}")


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
