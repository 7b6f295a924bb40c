"""Objects the stack creates in its clusters, as plain data (rendered from upstream files where upstream has them).

Karmada: the ``karmada-system`` namespace (karmada ``artifacts/deploy/namespace.yaml``), the CRDs
from ``charts/karmada/_crds`` with the conversion-webhook patches that ``hack/deploy-karmada.sh``
applies through kustomize (``_crds/patches/webhook_in_*resourcebindings.yaml``), the webhook
configurations from ``artifacts/deploy/webhook-configuration.yaml`` with ``{{caBundle}}`` filled and
the in-cluster service host replaced by the local webhook, and the aggregated apiserver's APIService
behind an ExternalName Service (``artifacts/deploy/karmada-aggregated-apiserver-apiservice.yaml``;
``externalName: localhost`` plus ``spec.service.port`` as in the Karmada "install by binary" guide).
Members: KWOK nodes.

KubeAdmiral (kubewharf/kubeadmiral v1.0.0): the ``kube-admiral-system`` namespace
(``config/sample/host/00-namespace.yaml``), the ``core.kubeadmiral.io`` CRDs
(``config/crds/bases/core_kubeadmiral_io/``), the sample FederatedTypeConfigs
(``config/sample/host/01-ftc.yaml``) edited for a v1.32 host, and per member the Secret and
FederatedCluster of ``docs/cluster-joining.md``.
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

# Hard-coded in KubeAdmiral (pkg/controllers/common/constants.go DefaultFedSystemNamespace; no flag).
KUBEADMIRAL_SYSTEM = "kube-admiral-system"
KUBEADMIRAL_API = "core.kubeadmiral.io/v1alpha1"
# The v1.0.0 sample FTCs name API versions a v1.32 apiserver no longer serves (batch/v1beta1 and
# discovery.k8s.io/v1beta1 went in 1.25, autoscaling/v2beta2 in 1.26): their informers would never
# sync. Upstream moved the same three FTCs to these GA versions after v1.0.0 (PR #320, commit
# ba4ca99 "feat: upgrade 1.20 to 1.26"). FTC name -> (version in the sample, version served by 1.32).
KUBEADMIRAL_FTC_VERSIONS = {
    "cronjobs.batch": ("v1beta1", "v1"),
    "horizontalpodautoscalers.autoscaling": ("v2beta2", "v2"),
    "endpointslices.discovery.k8s.io": ("v1beta1", "v1"),
}
# The multi-cluster-services types: the stack installs neither their CRDs
# (config/crds/bases/multicluster_x-k8s_io) nor runs their controllers (--controllers
# '*,-serviceexport,-serviceimport': both watch discovery.k8s.io/v1beta1 EndpointSlices, hard-coded
# in cmd/controller-manager/app/core.go, so they never become ready on 1.32).
KUBEADMIRAL_FTCS_LEFT_OUT = ("serviceexports.multicluster.x-k8s.io", "serviceimports.multicluster.x-k8s.io")
# Upstream's install marks what the host has of these kinds before KubeAdmiral first starts (its
# bootstrap RBAC, the `kubernetes` Service, kube-system ConfigMaps) as not to be federated
# (hack/make-rules/deploy-kubeadmiral.sh step 4: `kubectl annotate <kind> -A --all`); the federate
# controller skips objects with a non-empty value (pkg/controllers/federate/controller.go).
KUBEADMIRAL_NOT_FEDERATED = ("kubeadmiral.io/no-federated-resource", "1")
KUBEADMIRAL_NOT_FEDERATED_COLLECTIONS = (
    "/apis/apps/v1/deployments", "/apis/apps/v1/daemonsets", "/api/v1/configmaps", "/api/v1/secrets",
    "/apis/rbac.authorization.k8s.io/v1/roles", "/apis/rbac.authorization.k8s.io/v1/rolebindings",
    "/apis/rbac.authorization.k8s.io/v1/clusterroles", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    "/api/v1/services",
)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# libyaml's loader where PyYAML has it: parsing the CRDs is most of a warm `up` with the pure-Python one.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml_documents(path: Path) -> list[dict]:
    with path.open() as handle:
        return [doc for doc in yaml.load_all(handle, Loader=SAFE_LOADER) if isinstance(doc, dict)]


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


def virtual_kubelet_node_name(m: Member) -> str:
    return f"{m.name}-virtual-kubelet"


def member_nodes(m: Member, kubelet_version: str) -> list[tuple[dict, dict]]:
    """(Node, status) pairs: two regular nodes in two zones and, unless the member has none
    (``up --without-virtual-kubelet``), one virtual-kubelet node.

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
    if not m.virtual_kubelet:
        return nodes
    name = virtual_kubelet_node_name(m)
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


# ---------------------------------------------------------------------------------------- KubeAdmiral
def kubeadmiral_namespace() -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": KUBEADMIRAL_SYSTEM}}


def kubeadmiral_crds(crd_dir: Path) -> list[dict]:
    if not crd_dir.is_dir():
        raise FileNotFoundError(f"KubeAdmiral CRD directory {crd_dir} is missing: run `python -m tests.stack build`")
    crds = [doc for path in sorted(crd_dir.glob("*.yaml")) for doc in load_yaml_documents(path)
            if doc.get("kind") == "CustomResourceDefinition"]
    if not crds:
        raise FileNotFoundError(f"no CustomResourceDefinition found under {crd_dir}")
    return crds


def kubeadmiral_ftcs(path: Path) -> list[dict]:
    """The module's sample FederatedTypeConfigs as a v1.32 host needs them (see KUBEADMIRAL_FTC_VERSIONS).

    A sample that no longer has an FTC this edits, or has it at another version, is an error: a
    new KubeAdmiral version needs its edits looked at again, not applied blindly.
    """
    if not path.is_file():
        raise FileNotFoundError(f"KubeAdmiral FederatedTypeConfigs {path} are missing: run `python -m tests.stack build`")
    ftcs = {doc["metadata"]["name"]: doc for doc in load_yaml_documents(path) if doc.get("kind") == "FederatedTypeConfig"}
    for name, (sample_version, served_version) in KUBEADMIRAL_FTC_VERSIONS.items():
        source_type = ftcs.get(name, {}).get("spec", {}).get("sourceType", {})
        if source_type.get("version") != sample_version:
            raise ValueError(f"{path}: FTC {name} has sourceType.version {source_type.get('version')!r}, "
                             f"expected {sample_version!r}; review KUBEADMIRAL_FTC_VERSIONS")
        source_type["version"] = served_version
    return [ftc for name, ftc in ftcs.items() if name not in KUBEADMIRAL_FTCS_LEFT_OUT]


def kubeadmiral_not_federated_patches(collection: str, items: list[dict]) -> list[tuple[str, dict]]:
    """(path, merge patch) for each listed object of ``collection`` not yet marked not to be federated."""
    prefix, plural = collection.rsplit("/", 1)
    key, value = KUBEADMIRAL_NOT_FEDERATED
    patches = []
    for item in items:
        meta = item["metadata"]
        if meta.get("annotations", {}).get(key):
            continue
        namespace = f"/namespaces/{meta['namespace']}" if meta.get("namespace") else ""
        patches.append((f"{prefix}{namespace}/{plural}/{meta['name']}", {"metadata": {"annotations": {key: value}}}))
    return patches


def kubeadmiral_member_secret(m: Member, ca_pem: bytes, cert_pem: bytes, key_pem: bytes) -> dict:
    """The member's credentials on the host, under the data keys of pkg/controllers/common/constants.go."""
    return {
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": m.name, "namespace": KUBEADMIRAL_SYSTEM},
        "type": "Opaque",
        "data": {"certificate-authority-data": _b64(ca_pem), "client-certificate-data": _b64(cert_pem),
                 "client-key-data": _b64(key_pem)},
    }


def kubeadmiral_federated_cluster(m: Member) -> dict:
    """The member's registration. useServiceAccount false: the controller uses the Secret's client
    certificate as is, instead of creating a ServiceAccount in the member and waiting for its token."""
    return {
        "apiVersion": KUBEADMIRAL_API, "kind": "FederatedCluster",
        "metadata": {"name": m.name},
        "spec": {"apiEndpoint": f"https://{INTERNAL_ADDRESS}:{m.apiserver_port}", "secretRef": {"name": m.name},
                 "useServiceAccount": False},
    }
