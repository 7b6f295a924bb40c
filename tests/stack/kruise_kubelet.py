"""The stack's "kubelet" for one image: kruise-manager.

On a real cluster the Kruise Helm release's ``kruise-controller-manager`` pod runs the manager.
Under KWOK that pod only looks Running, so this loop does what a kubelet would: while a member has
the Kruise CRDs and a Running ``kruise-controller-manager`` pod in ``kruise-system``, it runs that
member's kruise-manager as a local process with the pod's own arguments and plain env values, with its
own ports, cert dir and kubeconfig (kruise ``pkg/webhook/util/util.go``). Its webhook Service is
reached through the member apiserver's egress proxy (``proxy.EgressProxy``), so the manager keeps
the chart's Service-based webhook configurations and Secret-held certs as in a cluster. When the pod goes (release uninstalled) the
process is stopped; when the pod's arguments or environment change (``helm upgrade`` with new
values) it is restarted with the new ones. One process serves a member however many replicas the
chart asks for, so a pod merely being replaced by an identical one restarts nothing.

The binary is the one built for the pod's image tag (``openkruise/kruise-manager:<tag>``, the chart's
``manager.image.tag``, by default the chart's version): ``kruise-manager`` for versions.toml's
``kruise``, ``kruise-manager-<version>`` for ``kruise_runbook`` (the reference runbook's 1.5.1). A
tag the build has no binary for runs ``kruise-manager``, and says so in the supervisor's log. A
``helm upgrade`` to the other chart version changes the tag, and so restarts the manager with the
other binary.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.stack import processes
from tests.stack.components import Components
from tests.stack.kubeapi import Api
from tests.stack.topology import Member

log = logging.getLogger("stack.kruise")

KRUISE_NAMESPACE = "kruise-system"
MANAGER_POD_PREFIX = "kruise-controller-manager-"
# The chart's webhook Service (kruise pkg/webhook/util/util.go GetServiceName default).
WEBHOOK_SERVICE = "kruise-webhook-service"
UNITED_DEPLOYMENT_CRD = "uniteddeployments.apps.kruise.io"
# Debug-only knobs a chart may carry that would only burn the shared CPU here.
DROPPED_ENV = {"KUBE_CACHE_MUTATION_DETECTOR"}
# Consecutive checks without a manager pod before the process is stopped (rides out a rollout).
ABSENT_CHECKS_BEFORE_STOP = 2
# The build's kruise-manager of versions.toml's kruise (a tag without a binary of its own runs it).
DEFAULT_BINARY = "kruise-manager"
RESTART_BACKOFF_SECONDS = 10.0


def manager_pod(pods: list[dict]) -> dict | None:
    """The newest Running, not-terminating kruise-controller-manager pod, if any."""
    candidates = [
        pod for pod in pods
        if pod["metadata"]["name"].startswith(MANAGER_POD_PREFIX)
        and not pod["metadata"].get("deletionTimestamp")
        and pod.get("status", {}).get("phase") == "Running"
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda pod: (pod["metadata"].get("creationTimestamp", ""), pod["metadata"]["name"]))


def manager_container(pod: dict) -> dict:
    containers = pod["spec"]["containers"]
    for container in containers:
        if container["name"] == "manager":
            return container
    return containers[0]


def pod_args(pod: dict) -> list[str]:
    """The container's arguments; the command (the image's /manager) is replaced by the local binary."""
    container = manager_container(pod)
    command = list(container.get("command") or [])
    return command[1:] + list(container.get("args") or [])


def image_tag(pod: dict) -> str:
    """The tag of the manager container's image ("" without one; a digest is no tag)."""
    image = manager_container(pod).get("image") or ""
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    return last.rsplit(":", 1)[1] if ":" in last else ""


def manager_binary(pod: dict, binaries: dict[str, str], built: Callable[[str], bool]) -> tuple[str, str | None]:
    """The kruise-manager binary for the pod's image tag, and a note when the build has none for it.

    binaries: tag -> binary name (layout().kruise_manager_binaries()); built: whether a binary exists.
    """
    tag = image_tag(pod)
    binary = binaries.get(tag)
    if binary and built(binary):
        return binary, None
    if not tag:
        return DEFAULT_BINARY, None
    why = "is not built (python -m tests.stack build)" if binary else f"is none of {sorted(binaries)}"
    return DEFAULT_BINARY, f"the kruise-manager for image tag {tag} {why}: running {DEFAULT_BINARY}"


def pod_env(pod: dict) -> dict[str, str]:
    """Plain env values of the manager container; fieldRef metadata.namespace resolved like a kubelet."""
    env = {}
    for entry in manager_container(pod).get("env") or []:
        name = entry["name"]
        if name in DROPPED_ENV:
            continue
        if "value" in entry:
            env[name] = str(entry["value"])
        elif entry.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "metadata.namespace":
            env[name] = pod["metadata"]["namespace"]
    return env


@dataclass
class MemberKubelet:
    member: Member
    components: Components
    api: Api
    fingerprint: str | None = None
    absent: int = 0
    last_start: float = 0.0
    events: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.member.name}.kruise-manager"

    @property
    def fingerprint_file(self) -> Path:
        return self.components.state.work / f"kruise-{self.member.name}" / "pod-spec.sha256"

    def adopt(self) -> None:
        """After a supervisor restart, keep a manager that is still running."""
        record = processes.read_record(self.components.state, self.name)
        if processes.is_running(record) and self.fingerprint_file.exists():
            self.fingerprint = self.fingerprint_file.read_text().strip()

    def desired(self) -> dict | None:
        if self.api.get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{UNITED_DEPLOYMENT_CRD}") is None:
            return None
        pods = (self.api.get(f"/api/v1/namespaces/{KRUISE_NAMESPACE}/pods") or {}).get("items", [])
        return manager_pod(pods)

    def running(self) -> bool:
        return processes.is_running(processes.read_record(self.components.state, self.name))

    def tick(self) -> None:
        pod = self.desired()
        state = self.components.state
        if pod is None:
            self.absent += 1
            if self.absent >= ABSENT_CHECKS_BEFORE_STOP and processes.read_record(state, self.name):
                outcome = processes.stop(state, self.name)
                self._event(f"no Running kruise-controller-manager pod: kruise-manager {outcome}")
                self.fingerprint = None
                self.fingerprint_file.unlink(missing_ok=True)
            return
        self.absent = 0
        args, env = pod_args(pod), pod_env(pod)
        layout = self.components.layout
        binary, note = manager_binary(pod, layout.kruise_manager_binaries(), lambda name: layout.binary(name).exists())
        fingerprint = hashlib.sha256(json.dumps([args, env, binary], sort_keys=True).encode()).hexdigest()
        if self.running() and fingerprint == self.fingerprint:
            return
        if time.monotonic() - self.last_start < RESTART_BACKOFF_SECONDS:
            return
        if self.running():
            outcome = processes.stop(state, self.name)
            self._event(f"pod {pod['metadata']['name']} has new arguments, environment or image: kruise-manager {outcome}")
        if note:
            self._event(note)
        spec = self.components.kruise_manager(self.member, args, env, binary)
        self.components.kruise_cert_dir(self.member).mkdir(parents=True, exist_ok=True)
        processes.start(state, spec)
        self.last_start = time.monotonic()
        self.fingerprint = fingerprint
        self.fingerprint_file.parent.mkdir(parents=True, exist_ok=True)
        self.fingerprint_file.write_text(fingerprint + "\n")
        self._event(f"started {binary} for pod {pod['metadata']['name']} ({' '.join(spec.argv[1:])})")

    def _event(self, message: str) -> None:
        log.info("%s: %s", self.member.name, message)
        self.events.append(message)
