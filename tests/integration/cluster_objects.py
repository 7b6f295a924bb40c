"""Reading and waiting on the stack's Kubernetes objects for the integration tests, on either engine: a
Deployment's manifest, whether it is ready, a workload's Ready count as its cluster reports it, the pods and
ReplicaSets that exist (by uid, to show nothing was restarted), Karmada's split of a binding, a namespace
removed, and the ready copies of an application watched across clusters."""

from __future__ import annotations

import json
import threading


def deployment(name: str, namespace: str, replicas: int, containers: list[dict], *, labels: dict | None = None,
               metadata_labels: dict | None = None, volumes: list[dict] | None = None) -> dict:
    """A Deployment manifest: ``labels`` (app=<name> when None) select its pods, ``metadata_labels`` (none when
    None) are its own, ``volumes`` the pod's (none when None)."""
    labels = labels or {"app": name}
    metadata = {"name": name, "namespace": namespace}
    if metadata_labels is not None:
        metadata["labels"] = metadata_labels
    pod = {"containers": containers}
    if volumes is not None:
        pod["volumes"] = volumes
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata,
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": pod}}}


def ready_condition(obj: dict, kind: str = "Ready") -> bool:
    return any(c["type"] == kind and c["status"] == "True" for c in obj.get("status", {}).get("conditions", []))


def running_ready_pods(cluster, namespace: str, selector: str) -> list[dict]:
    pods = cluster.get("pods", "-n", namespace, "-l", selector)["items"]
    return [p for p in pods if p["status"].get("phase") == "Running" and ready_condition(p)
            and not p["metadata"].get("deletionTimestamp")]


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


def ready_replicas(cluster, kind: str, name: str, namespace: str) -> int | None:
    """The cluster's own count of Ready replicas of the workload (0 when it does not exist, None when it cannot
    be read: a cluster that is down answers nothing within 3 s)."""
    result = cluster.kubectl("get", kind, name, "-n", namespace, "-o", "json", "--ignore-not-found",
                             "--request-timeout=3s", check=False)
    if result.returncode != 0:
        return None
    if not result.stdout.strip():
        return 0
    return int(json.loads(result.stdout).get("status", {}).get("readyReplicas") or 0)


def uids(cluster, kind: str, namespace: str, selector: str | None = None, deleting: bool = True) -> dict[str, str]:
    """name -> uid of the kind's objects in namespace (selector: a label selector); deleting=False leaves out
    those being deleted."""
    args = ("-l", selector) if selector else ()
    return {o["metadata"]["name"]: o["metadata"]["uid"] for o in cluster.get(kind, "-n", namespace, *args)["items"]
            if deleting or not o["metadata"].get("deletionTimestamp")}


def binding_split(karmada, name: str, namespace: str) -> dict[str, int]:
    """Replicas per member cluster in Karmada's ResourceBinding name (what its scheduler decided)."""
    binding = karmada.get("resourcebindings.work.karmada.io", name, "-n", namespace)
    return {c["name"]: c.get("replicas", 0) for c in binding["spec"].get("clusters") or []}


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
