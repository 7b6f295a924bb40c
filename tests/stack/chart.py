"""Assemble the Kruise Helm charts the tests and the demo install, from the kruise module's manifests.

No Helm chart repository is reachable and the published chart (openkruise/charts) is another
project's code, so the build reads the kustomize bases under the kruise Go module's ``config/``
(copied to ``layout().kruise_config``) and writes two charts of our own:

* ``layout().kruise_chart`` (``kruise-<version>``): the chart the collection installs.
* ``layout().kruise_chart_no_affinity`` (``kruise-noaffinity-<version>``): identical except that
  its DaemonSet ignores ``daemon.affinity``, so the only way to keep kruise-daemon off
  virtual-kubelet nodes is to remove its tolerate-all toleration (the runbook's other path).
* ``layout().kruise_runbook_chart`` (``kruise-1.5.1``): the reference runbook's chart version,
  assembled the same way from that version's own module (``kruise_runbook`` in versions.toml,
  ``layout().kruise_runbook_config``): its CRDs (UnitedDeployment served as ``v1alpha1`` only), its
  webhooks, manager and daemon. Its ``config/default`` has no ``kruise-daemon-config.yaml`` (that
  namespace came with v1.6), so the chart has no such Namespace either.

Each is also packaged as ``<chart dir>.tgz`` beside it; the collection accepts either.

What comes from where:

* CRDs, RBAC, the webhook configurations and Service, the manager Deployment and the kruise-daemon
  DaemonSet are read from the module (``config/crd``, ``config/rbac``, ``config/webhook``,
  ``config/manager``, ``config/default``). The kustomize ``kruise-`` name prefix
  (``config/default/kustomization.yaml`` namePrefix) and the ``kruise-system`` namespace
  (``config/{rbac,manager,webhook}/kustomization.yaml`` namespace) are applied here, in Python; the
  namespace becomes the value ``installation.namespace``.
* The values and their names mirror the published chart (openkruise/charts
  ``versions/kruise/<ver>/values.yaml``, ``templates/manager.yaml``; see
  ../shared/research/kruise.md §3.2): ``crds.managed``, ``installation.namespace``,
  ``installation.createNamespace``, ``featureGates``, ``manager.*``, ``daemon.*``.

Deliberate choices, each as the published chart does it:

* CRDs are templates gated by ``crds.managed`` (no ``crds/`` directory), so ``helm uninstall``
  deletes them. They are the plain ``config/crd/bases`` documents: the published chart does not
  carry kustomize's conversion-webhook patches (``config/crd/patches/webhook_in_*.yaml``), which
  would point the Karmada control plane's CRDs at a webhook Service that never exists there.
* ``installation.createNamespace`` (default true) renders the Namespace ``installation.namespace``
  labelled ``control-plane: openkruise`` (published chart ``templates/manager.yaml``). The pod
  webhooks skip namespaces carrying a ``control-plane`` label
  (``config/webhook/patch_manifests.yaml``), so kruise's own pods are not sent to its webhook.
  Install the release into another namespace (upstream installs it into ``default``), or set
  ``installation.createNamespace=false`` when the namespace already exists or Helm creates it:
  ``helm install -n kruise-system --create-namespace`` creates the namespace before the chart's
  objects, and creating the chart's Namespace then fails with AlreadyExists
  (helm.sh/helm/v3 ``pkg/action/install.go``: CreateNamespace, then performInstall's Create). The
  collection creates kruise-system itself on the Karmada control plane and passes false there.
  The same flag renders ``kruise-daemon-config`` (``config/default/kruise-daemon-config.yaml``),
  where kruise-manager copies ImagePullJob pull secrets (``pkg/util/meta.go``).
* The kruise-daemon DaemonSet keeps upstream's hard-coded ``tolerations: [{operator: Exists}]``
  and ``hostNetwork: true`` (``config/manager/manager.yaml``); there is no ``daemon.tolerations``.
  ``daemon.affinity`` defaults to ``{}`` as in the 1.5.x/1.6.x charts (1.7.0+ default to
  ``type NotIn [virtual-kubelet]``), so an affinity seen on the DaemonSet can only have come from
  the caller's values. The DaemonSet is skipped when ``featureGates`` contains
  ``KruiseDaemon=false`` (exact substring, as upstream).
* ``daemon.socketFile`` becomes ``--socket-file`` and ``daemon.socketLocation`` the hostPath
  mounted at ``/hostvarrun`` (``pkg/daemon/criruntime/factory_unix.go`` flag ``socket-file``).
* Chart.yaml carries ``kubeVersion: '>= 1.16.0-0'``, as the published 1.5.x charts do (the
  1.5.1 chart as upstream's; the 1.9.0 chart keeps the same line, although upstream's 1.6+ charts
  say ``>= 1.18.0-0``: both parse and pass on the stack's v1.32, and fail alike on UCS's empty
  gitVersion, which is what the control plane's kubeVersion patch is tested against).
"""

from __future__ import annotations

import copy
import gzip
import io
import re
import shutil
import tarfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

# config/default/kustomization.yaml: namePrefix.
NAME_PREFIX = "kruise-"
# config/{rbac,manager,webhook}/kustomization.yaml: namespace.
DEFAULT_NAMESPACE = "kruise-system"
# Kinds kustomize's PrefixTransformer never renames
# (sigs.k8s.io/kustomize/api internal/builtins/PrefixTransformer.go prefixFieldSpecsToSkip).
PREFIX_SKIPPED_KINDS = frozenset({"CustomResourceDefinition", "APIService", "Namespace"})
CLUSTER_SCOPED_KINDS = frozenset(
    {
        "Namespace",
        "CustomResourceDefinition",
        "ClusterRole",
        "ClusterRoleBinding",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "APIService",
    }
)
# The published chart's Chart.yaml kubeVersion for 1.0.1 - 1.5.5 (kruise.md §3.1).
KUBE_VERSION_CONSTRAINT = ">= 1.16.0-0"
# Helm expression every namespaced object gets instead of a literal namespace.
NAMESPACE_VALUE = "{{ .Values.installation.namespace }}"

Log = Callable[[str], None]
Document = dict[str, Any]


class ChartAssemblyError(RuntimeError):
    """The kruise config/ tree is missing or not shaped as this code expects."""


# ---------------------------------------------------------------------------------------------
# Pure transformations of manifest documents (unit-tested without Helm).
# ---------------------------------------------------------------------------------------------


def prefixed(name: str, prefix: str = NAME_PREFIX) -> str:
    return prefix + name


def apply_name_prefix(doc: Document, prefix: str = NAME_PREFIX) -> Document:
    """Return a copy of doc renamed as kustomize's namePrefix does, references included.

    Renamed: metadata.name (except the kinds kustomize skips), a binding's roleRef and its
    ServiceAccount subjects, and webhook clientConfig service names. Those references all point at
    objects of the same kustomize build, which is what kustomize's nameReference transformer
    follows (config/webhook/kustomizeconfig.yaml for the webhook service).
    """
    out = copy.deepcopy(doc)
    kind = out.get("kind")
    meta = out.setdefault("metadata", {})
    if kind not in PREFIX_SKIPPED_KINDS and meta.get("name"):
        meta["name"] = prefixed(meta["name"], prefix)
    if kind in ("RoleBinding", "ClusterRoleBinding"):
        if out.get("roleRef", {}).get("name"):
            out["roleRef"]["name"] = prefixed(out["roleRef"]["name"], prefix)
        for subject in out.get("subjects") or []:
            if subject.get("kind") == "ServiceAccount":
                subject["name"] = prefixed(subject["name"], prefix)
    for webhook in out.get("webhooks") or []:
        service = (webhook.get("clientConfig") or {}).get("service")
        if service and service.get("name"):
            service["name"] = prefixed(service["name"], prefix)
    return out


def apply_namespace(doc: Document, namespace: str) -> Document:
    """Return a copy of doc placed in namespace, as kustomize's namespace field does.

    Namespaced objects get metadata.namespace; bindings' ServiceAccount subjects and webhook
    clientConfig services (config/webhook/kustomizeconfig.yaml) follow. Cluster-scoped objects
    keep no metadata.namespace.
    """
    out = copy.deepcopy(doc)
    kind = out.get("kind")
    meta = out.setdefault("metadata", {})
    if kind in CLUSTER_SCOPED_KINDS:
        meta.pop("namespace", None)
    else:
        meta["namespace"] = namespace
    if kind in ("RoleBinding", "ClusterRoleBinding"):
        for subject in out.get("subjects") or []:
            if subject.get("kind") == "ServiceAccount":
                subject["namespace"] = namespace
    for webhook in out.get("webhooks") or []:
        service = (webhook.get("clientConfig") or {}).get("service")
        if service is not None:
            service["namespace"] = namespace
    return out


def strategic_merge(base: Any, patch: Any) -> Any:
    """Merge patch into base the way the strategic-merge patches under config/ need.

    Maps merge key by key; lists whose items all carry a ``name`` merge item by item on it (the
    patch merge key of webhooks, containers, volumes, ports); other lists are replaced.
    """
    if isinstance(base, dict) and isinstance(patch, dict):
        merged = copy.deepcopy(base)
        for key, value in patch.items():
            merged[key] = strategic_merge(merged[key], value) if key in merged else copy.deepcopy(value)
        return merged
    if isinstance(base, list) and isinstance(patch, list) and _named_items(base) and _named_items(patch):
        merged = copy.deepcopy(base)
        index = {item["name"]: position for position, item in enumerate(merged)}
        for item in patch:
            if item["name"] in index:
                merged[index[item["name"]]] = strategic_merge(merged[index[item["name"]]], item)
            else:
                merged.append(copy.deepcopy(item))
        return merged
    return copy.deepcopy(patch)


def _named_items(items: list) -> bool:
    return bool(items) and all(isinstance(item, dict) and "name" in item for item in items)


def apply_patches(docs: Iterable[Document], patches: Iterable[Document]) -> list[Document]:
    """Apply strategic-merge patches to the documents they name (kind + metadata.name)."""
    result = [copy.deepcopy(doc) for doc in docs]
    for patch in patches:
        key = (patch.get("kind"), patch.get("metadata", {}).get("name"))
        matches = [i for i, doc in enumerate(result) if (doc.get("kind"), doc.get("metadata", {}).get("name")) == key]
        if not matches:
            raise ChartAssemblyError(f"patch for {key[0]} {key[1]!r} matches no document")
        for i in matches:
            result[i] = strategic_merge(result[i], patch)
    return result


def escape_template_text(text: str) -> str:
    """Make upstream text literal inside a Helm template: ``{{`` starts a Go template action."""
    return text.replace("{{", '{{ "{{" }}')


# Placeholders: upstream documents are dumped as YAML, escaped, and only then are the
# placeholders swapped for Helm actions, so no upstream text is ever read as a template.
_SCALAR = "__HELM_VALUE_{}__"
_BLOCK = "__HELM_BLOCK_{}__"
_BLOCK_LINE = re.compile(r"^(?P<indent> *)(?P<key>__HELM_BLOCK_\d+__): null$", re.MULTILINE)


class Placeholders:
    """Stand-ins put into documents before dumping, replaced by Helm actions after."""

    def __init__(self) -> None:
        self.scalars: dict[str, str] = {}
        self.blocks: dict[str, Callable[[int], str]] = {}

    def value(self, action: str) -> str:
        """A scalar that renders as the Helm action (e.g. ``{{ .Values.manager.replicas }}``)."""
        key = _SCALAR.format(len(self.scalars))
        self.scalars[key] = action
        return key

    def block(self, render: Callable[[int], str]) -> str:
        """A mapping key whose line becomes render(indent): template text at that indentation."""
        key = _BLOCK.format(len(self.blocks))
        self.blocks[key] = render
        return key

    def substitute(self, text: str) -> str:
        def block_line(match: re.Match) -> str:
            return self.blocks[match.group("key")](len(match.group("indent")))

        text = _BLOCK_LINE.sub(block_line, text)
        for key, action in self.scalars.items():
            text = text.replace(key, action)
        leftover = re.search(r"__HELM_(VALUE|BLOCK)_\d+__", text)
        if leftover:
            raise ChartAssemblyError(f"placeholder {leftover.group(0)} was not substituted")
        return text


def dump_documents(docs: Iterable[Document], placeholders: Placeholders | None = None) -> str:
    """YAML text of docs, upstream text escaped, placeholders turned into Helm actions."""
    text = "".join(
        "---\n" + yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, width=100000) for doc in docs
    )
    text = escape_template_text(text)
    return (placeholders or Placeholders()).substitute(text)


def with_block(value_path: str, key: str) -> Callable[[int], str]:
    """Template text rendering ``key: <toYaml value>`` only when the value is set."""

    def render(indent: int) -> str:
        pad = " " * indent
        return (
            f"{pad}{{{{- with {value_path} }}}}\n"
            f"{pad}{key}:\n"
            f"{{{{- toYaml . | nindent {indent + 2} }}}}\n"
            f"{pad}{{{{- end }}}}"
        )

    return render


def list_block(key: str, items: list, extra: Callable[[int], str]) -> Callable[[int], str]:
    """Template text of ``key:`` with items (upstream data, escaped) followed by extra(indent)."""

    def render(indent: int) -> str:
        pad = " " * indent
        dumped = escape_template_text(yaml.safe_dump(items, sort_keys=False, width=100000))
        lines = [f"{pad}{key}:"] + [pad + line for line in dumped.splitlines()]
        return "\n".join(lines) + "\n" + extra(indent)

    return render


def _mutation_detector_env(indent: int) -> str:
    # The published chart sets this only with enableKubeCacheMutationDetector; config/manager
    # sets it always (a development setting).
    pad = " " * indent
    return (
        f"{pad}{{{{- if .Values.enableKubeCacheMutationDetector }}}}\n"
        f"{pad}- name: KUBE_CACHE_MUTATION_DETECTOR\n"
        f'{pad}  value: "true"\n'
        f"{pad}{{{{- end }}}}"
    )


def _daemon_extra_env(indent: int) -> str:
    pad = " " * indent
    return _mutation_detector_env(indent) + (
        f"\n{pad}{{{{- with .Values.daemon.extraEnvs }}}}\n"
        f"{{{{- toYaml . | nindent {indent} }}}}\n"
        f"{pad}{{{{- end }}}}"
    )


def omitted_block(indent: int) -> str:
    """A block placeholder that renders nothing (the no-affinity fixture's DaemonSet affinity)."""
    return f"{' ' * indent}{{{{- /* daemon.affinity is ignored by this fixture chart */}}}}"


# ---------------------------------------------------------------------------------------------
# Reading the kruise config/ tree.
# ---------------------------------------------------------------------------------------------


def load_documents(path: Path) -> list[Document]:
    with path.open(encoding="utf-8") as handle:
        return [doc for doc in yaml.safe_load_all(handle) if doc]


def kustomization(directory: Path) -> Document:
    path = directory / "kustomization.yaml"
    if not path.is_file():
        raise ChartAssemblyError(f"{path} is missing: is {directory.parent} the kruise module's config/?")
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def kustomization_resources(directory: Path) -> list[Document]:
    docs: list[Document] = []
    for entry in kustomization(directory).get("resources") or []:
        docs.extend(load_documents(directory / entry))
    return docs


def kustomization_patches(directory: Path) -> list[Document]:
    docs: list[Document] = []
    for entry in kustomization(directory).get("patchesStrategicMerge") or []:
        docs.extend(load_documents(directory / entry))
    return docs


def find_one(docs: Iterable[Document], kind: str, name: str) -> Document:
    found = [doc for doc in docs if doc.get("kind") == kind and doc.get("metadata", {}).get("name") == name]
    if len(found) != 1:
        raise ChartAssemblyError(f"expected one {kind} {name!r} in the kruise manifests, found {len(found)}")
    return found[0]


def container(pod_spec: Document, name: str) -> Document:
    for item in pod_spec.get("containers") or []:
        if item.get("name") == name:
            return item
    raise ChartAssemblyError(f"no container {name!r} in the kruise manifests")


# ---------------------------------------------------------------------------------------------
# Chart content.
# ---------------------------------------------------------------------------------------------


def chart_yaml(version: str) -> str:
    chart_version = version.lstrip("v")
    return yaml.safe_dump(
        {
            "apiVersion": "v2",
            "name": "kruise",
            "description": (
                "OpenKruise assembled by multicloud.federation's test stack from the kruise Go module's "
                "config/ manifests (not the published openkruise/charts chart)"
            ),
            "type": "application",
            "version": chart_version,
            "appVersion": chart_version,
            "kubeVersion": KUBE_VERSION_CONSTRAINT,
        },
        sort_keys=False,
    )


def values_yaml(version: str) -> str:
    """Default values; names as in openkruise/charts versions/kruise/<ver>/values.yaml."""
    values = {
        "crds": {"managed": True},
        "installation": {"namespace": DEFAULT_NAMESPACE, "createNamespace": True},
        "featureGates": "ImagePullJobGate=true",
        "enableKubeCacheMutationDetector": False,
        "manager": {
            "log": {"level": "4"},
            "replicas": 2,
            "image": {"repository": "openkruise/kruise-manager", "tag": version},
            "webhook": {"port": 9876},
            "metrics": {"port": 8080},
            "healthProbe": {"port": 8000},
            "resources": {
                "limits": {"cpu": "200m", "memory": "512Mi"},
                "requests": {"cpu": "100m", "memory": "256Mi"},
            },
            "hostNetwork": False,
            "nodeAffinity": {},
            "nodeSelector": {},
            "tolerations": [],
        },
        "daemon": {
            "log": {"level": "4"},
            "port": 10221,
            "socketLocation": "/var/run",
            "socketFile": "",
            "affinity": {},
            "nodeSelector": {},
            "resources": {
                "limits": {"cpu": "50m", "memory": "128Mi"},
                "requests": {"cpu": "0", "memory": "0"},
            },
            "extraEnvs": [],
        },
    }
    header = (
        "# Values of the Kruise chart assembled by tests/stack/chart.py; names mirror the published\n"
        "# chart (openkruise/charts versions/kruise/<ver>/values.yaml). daemon.affinity defaults to {}\n"
        "# as in the 1.5.x/1.6.x charts. Set installation.createNamespace=false when the namespace\n"
        "# already exists or helm --create-namespace creates it.\n"
    )
    return header + yaml.safe_dump(values, sort_keys=False)


def crd_templates(config: Path) -> dict[str, str]:
    """templates/crds/<file>: each CRD of config/crd's kustomization, gated by crds.managed."""
    crd_dir = config / "crd"
    files: dict[str, str] = {}
    for entry in kustomization(crd_dir).get("resources") or []:
        docs = load_documents(crd_dir / entry)
        if not docs or any(doc.get("kind") != "CustomResourceDefinition" for doc in docs):
            raise ChartAssemblyError(f"{crd_dir / entry} is not a CustomResourceDefinition")
        body = dump_documents(docs)
        files[f"templates/crds/{Path(entry).name}"] = "{{- if .Values.crds.managed }}\n" + body + "{{- end }}\n"
    return files


def namespace_template(config: Path) -> str:
    # config/default/kruise-daemon-config.yaml came with v1.6 (ImagePullJob pull secrets); v1.5.1 has
    # none and its manager never reads that namespace.
    daemon_config_file = config / "default" / "kruise-daemon-config.yaml"
    daemon_config = [
        doc for doc in (load_documents(daemon_config_file) if daemon_config_file.is_file() else [])
        if doc.get("kind") == "Namespace"
    ]
    ours = {
        "apiVersion": "v1",
        "kind": "Namespace",
        # The published chart's label; the pod webhooks skip namespaces that carry control-plane.
        "metadata": {"name": NAMESPACE_VALUE, "labels": {"control-plane": "openkruise"}},
    }
    placeholders = Placeholders()
    ours["metadata"]["name"] = placeholders.value(NAMESPACE_VALUE)
    body = dump_documents([ours, *daemon_config], placeholders)
    return "{{- if .Values.installation.createNamespace }}\n" + body + "{{- end }}\n"


def namespaced(docs: Iterable[Document], placeholders: Placeholders) -> list[Document]:
    ns = placeholders.value(NAMESPACE_VALUE)
    return [apply_namespace(apply_name_prefix(doc), ns) for doc in docs]


def rbac_template(config: Path) -> str:
    placeholders = Placeholders()
    docs = namespaced(kustomization_resources(config / "rbac"), placeholders)
    return dump_documents(docs, placeholders)


def webhook_templates(config: Path) -> dict[str, str]:
    webhook_dir = config / "webhook"
    docs = apply_patches(kustomization_resources(webhook_dir), kustomization_patches(webhook_dir))
    placeholders = Placeholders()
    docs = namespaced(docs, placeholders)
    configurations = [doc for doc in docs if doc["kind"].endswith("WebhookConfiguration")]
    services = [doc for doc in docs if doc["kind"] == "Service"]
    names = sorted(doc["metadata"]["name"] for doc in configurations)
    if names != ["kruise-mutating-webhook-configuration", "kruise-validating-webhook-configuration"]:
        raise ChartAssemblyError(f"unexpected webhook configurations in {webhook_dir}: {names}")
    if [doc["metadata"]["name"] for doc in services] != ["kruise-webhook-service"]:
        raise ChartAssemblyError(f"expected the Service webhook-service in {webhook_dir}")
    for service in services:
        for port in service["spec"]["ports"]:
            port["targetPort"] = placeholders.value("{{ .Values.manager.webhook.port }}")
    return {
        "templates/webhookconfiguration.yaml": dump_documents(configurations, placeholders),
        "templates/webhook-service.yaml": dump_documents(services, placeholders),
    }


def manager_documents(config: Path) -> list[Document]:
    """config/manager resources with config/default's manager patch, prefixed (not namespaced)."""
    manager = kustomization_resources(config / "manager")
    default_patches = [
        patch
        for patch in kustomization_patches(config / "default")
        if (patch.get("kind"), patch.get("metadata", {}).get("name")) in {(d.get("kind"), d["metadata"]["name"]) for d in manager}
    ]
    docs = apply_patches(manager, default_patches)
    # The module's own Namespace "system" is replaced by installation.namespace (namespace.yaml).
    return [apply_name_prefix(doc) for doc in docs if doc.get("kind") != "Namespace"]


def manager_template(config: Path) -> str:
    """ServiceAccount, webhook Secret and the kruise-controller-manager Deployment."""
    docs = [doc for doc in manager_documents(config) if doc["kind"] != "DaemonSet"]
    docs = [doc for doc in docs if not (doc["kind"] == "ServiceAccount" and doc["metadata"]["name"] == "kruise-daemon")]
    placeholders = Placeholders()
    docs = [apply_namespace(doc, placeholders.value(NAMESPACE_VALUE)) for doc in docs]
    deployment = find_one(docs, "Deployment", "kruise-controller-manager")
    v = placeholders.value
    spec = deployment["spec"]
    spec["replicas"] = v("{{ .Values.manager.replicas }}")
    pod = spec["template"]["spec"]
    manager = container(pod, "manager")
    # Arguments as the published chart's templates/manager.yaml passes them.
    manager["args"] = [
        "--enable-leader-election",
        v("--metrics-addr=:{{ .Values.manager.metrics.port }}"),
        v("--health-probe-addr=:{{ .Values.manager.healthProbe.port }}"),
        "--logtostderr=true",
        v("--leader-election-namespace={{ .Values.installation.namespace }}"),
        v("--v={{ .Values.manager.log.level }}"),
        v("--feature-gates={{ .Values.featureGates }}"),
    ]
    manager["image"] = v("{{ .Values.manager.image.repository }}:{{ .Values.manager.image.tag }}")
    env = [item for item in manager.get("env") or [] if item.get("name") != "KUBE_CACHE_MUTATION_DETECTOR"]
    env.append({"name": "WEBHOOK_PORT", "value": v("{{ .Values.manager.webhook.port | quote }}")})
    del manager["env"]
    manager[placeholders.block(list_block("env", env, _mutation_detector_env))] = None
    manager["ports"] = [
        {"containerPort": v("{{ .Values.manager.webhook.port }}"), "name": "webhook-server", "protocol": "TCP"},
        {"containerPort": v("{{ .Values.manager.metrics.port }}"), "name": "metrics", "protocol": "TCP"},
        {"containerPort": v("{{ .Values.manager.healthProbe.port }}"), "name": "health", "protocol": "TCP"},
    ]
    for probe in ("readinessProbe", "livenessProbe"):
        if probe in manager:
            manager[probe]["httpGet"]["port"] = v("{{ .Values.manager.healthProbe.port }}")
    manager[placeholders.block(with_block(".Values.manager.resources", "resources"))] = None
    manager.pop("resources", None)
    pod["hostNetwork"] = v("{{ .Values.manager.hostNetwork }}")
    pod[placeholders.block(_manager_affinity)] = None
    pod[placeholders.block(with_block(".Values.manager.nodeSelector", "nodeSelector"))] = None
    pod[placeholders.block(with_block(".Values.manager.tolerations", "tolerations"))] = None
    return dump_documents(docs, placeholders)


def _manager_affinity(indent: int) -> str:
    pad = " " * indent
    return (
        f"{pad}{{{{- with .Values.manager.nodeAffinity }}}}\n{pad}affinity:\n{pad}  nodeAffinity:\n"
        f"{{{{- toYaml . | nindent {indent + 4} }}}}\n{pad}{{{{- end }}}}"
    )


def daemon_template(config: Path, honour_affinity: bool) -> str:
    """ServiceAccount kruise-daemon and the kruise-daemon DaemonSet (skipped with KruiseDaemon=false)."""
    all_docs = manager_documents(config)
    service_account = find_one(all_docs, "ServiceAccount", "kruise-daemon")
    daemonset = find_one(all_docs, "DaemonSet", "kruise-daemon")
    placeholders = Placeholders()
    ns = placeholders.value(NAMESPACE_VALUE)
    service_account = apply_namespace(service_account, ns)
    daemonset = apply_namespace(daemonset, ns)
    v = placeholders.value
    pod = daemonset["spec"]["template"]["spec"]
    if pod.get("tolerations") != [{"operator": "Exists"}] or pod.get("hostNetwork") is not True:
        raise ChartAssemblyError("kruise-daemon in config/manager/manager.yaml lost its tolerate-all toleration or hostNetwork")
    daemon = container(pod, "daemon")
    # Arguments as the published chart's templates/manager.yaml passes them.
    daemon["args"] = [
        "--logtostderr=true",
        v("--v={{ .Values.daemon.log.level }}"),
        v("--addr=:{{ .Values.daemon.port }}"),
        v("--feature-gates={{ .Values.featureGates }}"),
        v("--socket-file={{ .Values.daemon.socketFile }}"),
    ]
    daemon["image"] = v("{{ .Values.manager.image.repository }}:{{ .Values.manager.image.tag }}")
    env = [item for item in daemon.get("env") or [] if item.get("name") != "KUBE_CACHE_MUTATION_DETECTOR"]
    del daemon["env"]
    daemon[placeholders.block(list_block("env", env, _daemon_extra_env))] = None
    daemon["livenessProbe"]["httpGet"]["port"] = v("{{ .Values.daemon.port }}")
    daemon[placeholders.block(with_block(".Values.daemon.resources", "resources"))] = None
    daemon.pop("resources", None)
    for volume in pod.get("volumes") or []:
        if volume.get("name") == "runtime-socket":
            volume["hostPath"]["path"] = v("{{ .Values.daemon.socketLocation }}")
    affinity = with_block(".Values.daemon.affinity", "affinity") if honour_affinity else omitted_block
    # Insert the affinity and nodeSelector blocks first in the pod spec, where upstream has them.
    new_pod = {
        placeholders.block(affinity): None,
        placeholders.block(with_block(".Values.daemon.nodeSelector", "nodeSelector")): None,
    }
    new_pod.update(pod)
    daemonset["spec"]["template"]["spec"] = new_pod
    body = dump_documents([service_account], placeholders)
    body += '{{- if not (contains "KruiseDaemon=false" .Values.featureGates) }}\n'
    body += dump_documents([daemonset], placeholders)
    body += "{{- end }}\n"
    return body


def chart_files(config: Path, version: str, honour_affinity: bool) -> dict[str, str]:
    """Every file of one chart, by path relative to the chart directory."""
    files = {
        "Chart.yaml": chart_yaml(version),
        "values.yaml": values_yaml(version),
        ".helmignore": "*.tgz\n",
        "templates/namespace.yaml": namespace_template(config),
        "templates/rbac.yaml": rbac_template(config),
        "templates/manager.yaml": manager_template(config),
        "templates/daemon.yaml": daemon_template(config, honour_affinity),
    }
    files.update(crd_templates(config))
    files.update(webhook_templates(config))
    return files


# ---------------------------------------------------------------------------------------------
# Writing.
# ---------------------------------------------------------------------------------------------


def package(files: dict[str, str], top: str = "kruise") -> bytes:
    """A chart archive as ``helm package`` lays it out (one top directory), byte-reproducible."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for rel in sorted(files):
                data = files[rel].encode("utf-8")
                info = tarfile.TarInfo(f"{top}/{rel}")
                info.size = len(data)
                info.mode = 0o644
                info.mtime = 0
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def read_chart_dir(directory: Path) -> dict[str, str] | None:
    if not directory.is_dir():
        return None
    return {
        str(path.relative_to(directory)): path.read_text(encoding="utf-8")
        for path in directory.rglob("*")
        if path.is_file()
    }


def write_chart(directory: Path, files: dict[str, str], log: Log) -> bool:
    """Write the chart directory and its .tgz unless both already hold exactly files."""
    archive = directory.with_name(directory.name + ".tgz")
    packed = package(files)
    if read_chart_dir(directory) == files and archive.is_file() and archive.read_bytes() == packed:
        log(f"chart {directory.name}: up to date")
        return False
    staging = directory.with_name(directory.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    for rel, text in files.items():
        path = staging / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    shutil.rmtree(directory, ignore_errors=True)
    staging.rename(directory)
    archive_tmp = archive.with_name(archive.name + ".tmp")
    archive_tmp.write_bytes(packed)
    archive_tmp.replace(archive)
    log(f"chart {directory.name}: written ({len(files)} files) and packaged as {archive.name}")
    return True


def assemble(layout: Any, log: Log) -> None:
    """Write layout.kruise_chart and layout.kruise_chart_no_affinity (plus .tgz) from layout.kruise_config."""
    version = layout.versions["kruise"]["version"]
    write_charts(Path(layout.kruise_config), version, {
        Path(layout.kruise_chart): True,
        Path(layout.kruise_chart_no_affinity): False,
    }, log)


def assemble_runbook(layout: Any, log: Log) -> None:
    """Write layout.kruise_runbook_chart (plus .tgz), the reference runbook's Kruise version (1.5.1),
    from layout.kruise_runbook_config: the same assembly, that version's own manifests and CRDs."""
    version = layout.versions["kruise_runbook"]["version"]
    write_charts(Path(layout.kruise_runbook_config), version, {Path(layout.kruise_runbook_chart): True}, log)


def write_charts(config: Path, version: str, charts: dict[Path, bool], log: Log) -> None:
    """Each chart directory (value: whether it honours daemon.affinity) of one Kruise version's config/."""
    if not config.is_dir():
        raise ChartAssemblyError(f"kruise manifests not found at {config}: copy the kruise module's config/ there first")
    files = {directory: chart_files(config, version, honour_affinity=honour) for directory, honour in charts.items()}
    for directory, chart in files.items():
        directory.parent.mkdir(parents=True, exist_ok=True)
        write_chart(directory, chart, log)
