# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What "OpenKruise is installed and ready" means (kruise-daemon's placement: kruise/daemon.py).

Upstream facts (openkruise/kruise at v1.9.0 unless said otherwise; openkruise/charts):

- Kruise's CRDs are in the API groups ``apps.kruise.io`` and ``policy.kruise.io``
  (``config/crd/bases``); a CRD serves requests once its ``Established`` condition is True.
- kruise-manager fills ``caBundle`` into every webhook of ``kruise-mutating-webhook-configuration``
  and ``kruise-validating-webhook-configuration`` once its certificate exists
  (``pkg/webhook/util/configuration/configuration.go Ensure``); until then the API server cannot
  call the webhooks and, with ``failurePolicy: Fail``, rejects every UnitedDeployment. A Running
  manager pod does not mean this has happened, so readiness is a server-side dry-run create of a
  UnitedDeployment, which runs the mutating and validating webhooks.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import ApiError, poll

KRUISE_GROUP_SUFFIX = "kruise.io"
CRD_API = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
WEBHOOK_API_VERSION = "admissionregistration.k8s.io/v1"
WEBHOOK_CONFIGURATIONS = (
    ("MutatingWebhookConfiguration", "kruise-mutating-webhook-configuration"),
    ("ValidatingWebhookConfiguration", "kruise-validating-webhook-configuration"),
)


def is_kruise_crd(crd):
    return (crd.get("spec") or {}).get("group", "").endswith(KRUISE_GROUP_SUFFIX)


def crd_established(crd):
    for condition in (crd.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Established":
            return condition.get("status") == "True"
    return False


def crd_summary(crd):
    spec = crd.get("spec") or {}
    served = [v.get("name") for v in spec.get("versions") or [] if v.get("served")]
    storage = [v.get("name") for v in spec.get("versions") or [] if v.get("storage")]
    return {
        "name": crd["metadata"]["name"],
        "group": spec.get("group"),
        "kind": (spec.get("names") or {}).get("kind"),
        "plural": (spec.get("names") or {}).get("plural"),
        "namespaced": spec.get("scope") == "Namespaced",
        "version": (storage or served or [None])[0],
        "established": crd_established(crd),
    }


def webhooks_without_ca_bundle(configuration):
    """Names of the webhooks in a webhook configuration whose clientConfig has no caBundle."""
    return [
        hook.get("name")
        for hook in configuration.get("webhooks") or []
        if not (hook.get("clientConfig") or {}).get("caBundle")
    ]


def webhook_summary(kind, name, configuration):
    if configuration is None:
        return {"kind": kind, "name": name, "exists": False, "webhooks": 0, "without_ca_bundle": []}
    return {
        "kind": kind,
        "name": name,
        "exists": True,
        "webhooks": len(configuration.get("webhooks") or []),
        "without_ca_bundle": webhooks_without_ca_bundle(configuration),
    }


def readiness_problems(crds, webhooks, dry_run, checks):
    """Why Kruise is not ready yet; an empty list means ready.

    crds: crd_summary() of every Kruise CRD; webhooks: webhook_summary() of both configurations;
    dry_run: None when not run, else {"ok": bool, "message": str}; checks: the checks asked for.
    """
    problems = []
    if "crds" in checks:
        if not crds:
            problems.append("no CustomResourceDefinition of a *.kruise.io group exists")
        if not any(c["kind"] == "UnitedDeployment" and c["group"] == "apps.kruise.io" for c in crds):
            problems.append("CRD uniteddeployments.apps.kruise.io does not exist")
        for crd in crds:
            if not crd["established"]:
                problems.append("CRD %s is not Established" % crd["name"])
    if "webhooks" in checks:
        for hook in webhooks:
            if not hook["exists"]:
                problems.append("%s %s does not exist" % (hook["kind"], hook["name"]))
            elif not hook["webhooks"]:
                problems.append("%s %s has no webhooks" % (hook["kind"], hook["name"]))
            elif hook["without_ca_bundle"]:
                problems.append(
                    "%s %s: no caBundle yet in %s" % (hook["kind"], hook["name"], ", ".join(hook["without_ca_bundle"]))
                )
    if "dry_run" in checks and dry_run is not None and not dry_run["ok"]:
        problems.append("server-side dry-run create of a UnitedDeployment failed: %s" % dry_run["message"])
    return problems


def united_deployment_probe(namespace, name="multicloud-federation-readiness-probe"):
    """A minimal valid UnitedDeployment, only ever sent with dryRun=All."""
    labels = {"app": name}
    return {
        "apiVersion": "apps.kruise.io/v1alpha1",
        "kind": "UnitedDeployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "cloneSetTemplate": {
                    "metadata": {"labels": labels},
                    "spec": {
                        "selector": {"matchLabels": labels},
                        "template": {
                            "metadata": {"labels": labels},
                            "spec": {"containers": [{"name": "probe", "image": "registry.invalid/probe:0"}]},
                        },
                    },
                }
            },
            "topology": {"subsets": [{"name": "probe"}]},
            "updateStrategy": {"type": "Manual", "manualUpdate": {}},
        },
    }


# Objects kruise-manager creates by itself, one per Node and named after it: NodeImage
# (pkg/controller/nodeimage/nodeimage_controller.go Reconcile) and NodePodProbe
# (pkg/controller/nodepodprobe/node_pod_probe_controller.go syncNodePodProbe). They exist on every
# member running Kruise and hold no user input, so they never count as what an uninstall destroys.
PER_NODE_STATE = (("apps.kruise.io", "NodeImage"), ("apps.kruise.io", "NodePodProbe"))


def is_per_node_state(crd):
    """Whether crd (a crd_summary()) is one whose objects kruise-manager keeps for every Node."""
    return (crd["group"], crd["kind"]) in PER_NODE_STATE


def custom_resource_summary(crd, item):
    meta = item.get("metadata") or {}
    entry = {
        "apiVersion": item.get("apiVersion") or "%s/%s" % (crd["group"], crd["version"]),
        "kind": item.get("kind") or crd["kind"],
        "name": meta.get("name"),
    }
    if meta.get("namespace"):
        entry["namespace"] = meta["namespace"]
    entry["ref"] = "%s %s%s" % (entry["kind"], entry["namespace"] + "/" if meta.get("namespace") else "", entry["name"])
    return entry


# ---------------------------------------------------------------------------------------------
# Reading the state of one cluster (``access.cluster.Cluster``) and waiting until it is ready.
#
# CRDs, webhook configurations and the dry-run create all go through API discovery. Kruise's API
# groups appear when its CRDs are created and disappear when they are deleted, also between two
# runs that share the client's discovery cache file; the access layer refreshes discovery and
# retries once on both (a kind it does not find; a path the server no longer serves), so a group
# created a moment ago is found and one deleted since is simply absent. A group that is not in
# discovery yet although its CRD is Established makes the dry run fail with a message, and the
# wait looks again.
# ---------------------------------------------------------------------------------------------

# The pause between two rounds of checks grows from wait_sleep up to this (or wait_sleep when longer).
MAX_WAIT_SLEEP = 10


def dry_run_united_deployment(cluster, namespace):
    """{"ok", "message"} of a server-side dry-run create of united_deployment_probe(), which runs
    Kruise's admission webhooks; nothing is persisted."""
    try:
        cluster.create(united_deployment_probe(namespace), dry_run=True)
    except ApiError as error:
        return {"ok": False, "message": str(error)}
    return {"ok": True, "message": ""}


def read_state(cluster, checks, probe_namespace):
    """{"crds", "webhooks", "dry_run" (None when not run), "problems"} of one cluster."""
    crds = [crd_summary(crd) for crd in cluster.list(*CRD_API) if is_kruise_crd(crd)]
    webhooks = [webhook_summary(kind, name, cluster.get(WEBHOOK_API_VERSION, kind, name))
                for kind, name in WEBHOOK_CONFIGURATIONS]
    dry_run = None
    if "dry_run" in checks and any(c["kind"] == "UnitedDeployment" and c["group"] == "apps.kruise.io"
                                   and c["established"] for c in crds):
        dry_run = dry_run_united_deployment(cluster, probe_namespace)
    return {"crds": crds, "webhooks": webhooks, "dry_run": dry_run,
            "problems": readiness_problems(crds, webhooks, dry_run, checks)}


def wait_until_ready(cluster, checks, probe_namespace, timeout, interval):
    """read_state() until no problem is left or ``timeout`` seconds passed (0: one look).
    Returns (state, waited)."""
    def probe():
        state = read_state(cluster, checks, probe_namespace)
        return not state["problems"], state

    _ready, state, waited = poll(probe, timeout, interval, max(interval, MAX_WAIT_SLEEP))
    return state, waited


def list_custom_resources(cluster, crds):
    """custom_resource_summary() of every object of the Established Kruise CRDs ``crds``
    (crd_summary()s), without kruise-manager's per-node state.

    A CRD that is Established but whose API the server does not serve is an ApiError, not an
    empty list: callers decide on it whether an uninstall destroys anything."""
    found = []
    for crd in crds:
        if not crd["established"] or not crd["version"] or is_per_node_state(crd):
            continue
        api_version = "%s/%s" % (crd["group"], crd["version"])
        if not cluster.serves(api_version, crd["kind"]):
            raise ApiError("%s: CRD %s is Established, but the API server does not serve %s %s"
                           % (cluster.name, crd["name"], api_version, crd["kind"]), 404)
        for item in cluster.list(api_version, crd["kind"]):
            found.append(custom_resource_summary(crd, item))
    return sorted(found, key=lambda r: (r["kind"], r.get("namespace", ""), r["name"]))
