"""Objects the stack creates in its clusters, as plain data (rendered from upstream files where upstream has them).

Karmada: the ``karmada-system`` namespace (karmada ``artifacts/deploy/namespace.yaml``), the CRDs
from ``charts/karmada/_crds`` with the conversion-webhook patches that ``hack/deploy-karmada.sh``
applies through kustomize (``_crds/patches/webhook_in_*resourcebindings.yaml``), the webhook
configurations from ``artifacts/deploy/webhook-configuration.yaml`` with ``{{caBundle}}`` filled and
the in-cluster service host replaced by the local webhook, and the aggregated apiserver's APIService
behind an ExternalName Service (``artifacts/deploy/karmada-aggregated-apiserver-apiservice.yaml``;
``externalName: localhost`` plus ``spec.service.port`` as in the Karmada "install by binary" guide).
Members: KWOK nodes.
"""

from __future__ import annotations

import base64
import copy
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import yaml

from tests.stack.topology import INTERNAL_ADDRESS, Member

KARMADA_SYSTEM = "karmada-system"
# kwok's own convention for nodes it manages (kwok site/content/en/docs/user/kwok-manage-nodes-and-pods.md).
KWOK_NODE_ANNOTATION = ("kwok.x-k8s.io/node", "fake")
VIRTUAL_KUBELET_TAINT = {"key": "virtual-kubelet.io/provider", "value": "huawei", "effect": "NoSchedule"}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def load_yaml_documents(path: Path) -> list[dict]:
    with path.open() as handle:
        return [doc for doc in yaml.safe_load_all(handle) if isinstance(doc, dict)]


def karmada_namespace() -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": KARMADA_SYSTEM}}


def karmada_crds(crd_dir: Path, webhook_port: int, ca_pem: bytes) -> list[dict]:
    """Every CRD under crd_dir, with the kustomize conversion patches found beside them applied.

    A patch is a CRD document without ``spec.names`` (the kustomize strategic-merge patches only carry
    ``spec.conversion``); its URL ``https://{{name}}.{{namespace}}.svc:443/convert`` is pointed at the
    local karmada-webhook and ``{{caBundle}}`` gets the stack CA.
    """
    if not crd_dir.is_dir():
        raise FileNotFoundError(f"Karmada CRD directory {crd_dir} is missing: run `python -m tests.stack build`")
    crds: dict[str, dict] = {}
    patches: dict[str, dict] = {}
    for path in sorted(crd_dir.rglob("*.yaml")):
        for doc in load_yaml_documents(path):
            if doc.get("kind") != "CustomResourceDefinition":
                continue
            name = doc["metadata"]["name"]
            if "names" in doc.get("spec", {}):
                crds[name] = doc
            else:
                patches[name] = doc
    if not crds:
        raise FileNotFoundError(f"no CustomResourceDefinition found under {crd_dir}")
    for name, patch in patches.items():
        if name not in crds:
            continue
        conversion = copy.deepcopy(patch["spec"].get("conversion"))
        if not conversion:
            continue
        client_config = conversion.get("webhook", {}).get("clientConfig", {})
        if "url" in client_config:
            client_config["url"] = _local_url(client_config["url"], webhook_port)
        if "caBundle" in client_config:
            client_config["caBundle"] = _b64(ca_pem)
        crds[name]["spec"]["conversion"] = conversion
    return list(crds.values())


def _local_url(url: str, port: int) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, f"{INTERNAL_ADDRESS}:{port}", parts.path, parts.query, parts.fragment))


def karmada_webhook_configurations(template: Path, webhook_port: int, ca_pem: bytes) -> list[dict]:
    """The upstream mutating/validating configurations, pointed at the local karmada-webhook."""
    if not template.is_file():
        raise FileNotFoundError(f"Karmada webhook configuration {template} is missing: run `python -m tests.stack build`")
    text = template.read_text().replace("{{caBundle}}", _b64(ca_pem))
    docs = [doc for doc in yaml.safe_load_all(text) if isinstance(doc, dict)]
    for doc in docs:
        for webhook in doc.get("webhooks", []):
            client_config = webhook.get("clientConfig", {})
            if "url" in client_config:
                client_config["url"] = _local_url(client_config["url"], webhook_port)
    return docs


def aggregated_apiserver_registration(port: int, ca_pem: bytes) -> list[dict]:
    service = {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "karmada-aggregated-apiserver", "namespace": KARMADA_SYSTEM},
        "spec": {"type": "ExternalName", "externalName": "localhost"},
    }
    api_service = {
        "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": "v1alpha1.cluster.karmada.io",
                     "labels": {"app": "karmada-aggregated-apiserver", "apiserver": "true"}},
        "spec": {
            # The aggregator verifies the serving cert for <service>.<namespace>.svc, a SAN of the
            # stack's aggregated-apiserver cert, so no insecureSkipTLSVerify is needed.
            "caBundle": _b64(ca_pem),
            "group": "cluster.karmada.io",
            "groupPriorityMinimum": 2000,
            "service": {"name": "karmada-aggregated-apiserver", "namespace": KARMADA_SYSTEM, "port": port},
            "version": "v1alpha1",
            "versionPriority": 10,
        },
    }
    return [service, api_service]


def member_region(m: Member) -> str:
    return f"local-{m.index + 1}"


def member_nodes(m: Member, kubelet_version: str) -> list[tuple[dict, dict]]:
    """(Node, status) pairs: two regular nodes in two zones and one virtual-kubelet node.

    The status is written separately (the main resource resets status on update), and kwok's
    node-initialize stage keeps existing capacity/allocatable (kwok
    ``kustomize/stage/node/fast/node-initialize.yaml``).
    """
    region = member_region(m)
    nodes = []
    for number, zone_suffix in enumerate(("a", "b"), start=1):
        name = f"{m.name}-node-{zone_suffix}"
        labels = {
            "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
            "node.kubernetes.io/instance-type": "c7.2xlarge.4",
            "topology.kubernetes.io/region": region, "topology.kubernetes.io/zone": f"{region}{zone_suffix}",
            "type": "kwok",
        }
        resources = {"cpu": "8", "memory": "32Gi", "pods": "110", "ephemeral-storage": "100Gi"}
        allocatable = {"cpu": "7800m", "memory": "29Gi", "pods": "110", "ephemeral-storage": "90Gi"}
        nodes.append((_node(name, labels, []),
                      _node_status(resources, allocatable, kubelet_version, node_address(m, number), name)))
    name = f"{m.name}-virtual-kubelet"
    labels = {
        "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
        "kubernetes.io/role": "agent", "type": "virtual-kubelet",
        "topology.kubernetes.io/region": region,
    }
    # A serverless (bursting) node advertises a large pool, not one machine.
    resources = {"cpu": "2000", "memory": "8000Gi", "pods": "5000", "ephemeral-storage": "10000Gi"}
    nodes.append((_node(name, labels, [VIRTUAL_KUBELET_TAINT]),
                  _node_status(resources, dict(resources), kubelet_version, node_address(m, 3), name)))
    return nodes


def _node(name: str, labels: dict, taints: list[dict]) -> dict:
    node = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels, "annotations": {KWOK_NODE_ANNOTATION[0]: KWOK_NODE_ANNOTATION[1]}},
        "spec": {},
    }
    if taints:
        node["spec"]["taints"] = taints
    return node


def node_address(m: Member, number: int) -> str:
    """The node's InternalIP (a VPC-like address; nothing connects to it)."""
    return f"10.{200 + m.index}.0.{number}"


def _node_status(capacity: dict, allocatable: dict, kubelet_version: str, address: str, hostname: str) -> dict:
    return {"status": {
        "capacity": capacity, "allocatable": allocatable,
        "addresses": [{"type": "InternalIP", "address": address}, {"type": "Hostname", "address": hostname}],
        "nodeInfo": {"kubeletVersion": kubelet_version, "kubeProxyVersion": kubelet_version,
                     "operatingSystem": "linux", "architecture": "amd64"},
    }}
