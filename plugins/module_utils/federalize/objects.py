# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of resource federalization: plain functions on plain dicts.

Turning a live member object into a control-plane resource template follows
``karmadactl promote`` (karmada-io/karmada@v1.18.2 ``pkg/karmadactl/promote/promote.go``
``preprocessResource``), which calls ``pkg/util/prune/prune.go`` ``RemoveIrrelevantFields``; the
mark that makes the engine adopt the member's object (on Karmada an annotation, ``engines.karmada.api``)
is the engine's ``adoption_template``. On top of that this module also strips the
``kubectl.kubernetes.io/last-applied-configuration`` annotation (the member keeps its own copy:
Karmada merges annotations on update, ``pkg/util/lifted/retain.go``) and the engines' own bookkeeping
labels/annotations (``engines.detect.member_marks``), and it keeps ``spec.ports[].nodePort`` / ``spec.healthCheckNodePort`` unless
told otherwise (Karmada keeps them too; the caller warns about collisions in other clusters).

Dependency discovery mirrors Karmada's native interpreter
(``pkg/resourceinterpreter/default/native/dependencies.go``, ``pkg/util/helper/pod.go``
``GetDependenciesFromPodTemplate``, ``pkg/util/lifted/visitpod.go``): ConfigMaps and Secrets
referenced by volumes, projected volumes, envFrom, env valueFrom and imagePullSecrets of init,
regular and ephemeral containers; the ServiceAccount unless it is ``default``; PVC claims.

No cluster and no Ansible here, so unit tests exercise every rule directly.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import hashlib
import json

from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import (
    label_selector_matches,
    object_ref,
)
from ansible_collections.multicloud.federation.plugins.module_utils.engines.detect import member_marks

LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
# k8s.io/kubectl/pkg/util/deployment: RevisionAnnotation, RevisionHistoryAnnotation.
DEPLOYMENT_REVISION_ANNOTATIONS = (
    "deployment.kubernetes.io/revision",
    "deployment.kubernetes.io/revision-history",
)
# k8s.io/api/core/v1: ServiceAccountUIDKey.
SERVICE_ACCOUNT_UID_ANNOTATION = "kubernetes.io/service-account.uid"
SERVICE_ACCOUNT_TOKEN_TYPE = "kubernetes.io/service-account-token"
# k8s.io/component-helpers/storage/volume: AnnSelectedNode.
PVC_SELECTED_NODE_ANNOTATION = "volume.kubernetes.io/selected-node"
# k8s.io/api/batch/v1: ControllerUidLabel, JobNameLabel (+ the pre-1.27 unprefixed names).
JOB_SELECTOR_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")
JOB_TEMPLATE_LABELS = (
    "controller-uid",
    "job-name",
    "batch.kubernetes.io/controller-uid",
    "batch.kubernetes.io/job-name",
)

# Metadata the member's apiserver owns (prune.go RemoveIrrelevantFields).
APISERVER_METADATA_FIELDS = (
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
    "managedFields",
    "resourceVersion",
    "selfLink",
    "uid",
    "ownerReferences",
    "finalizers",
)

# Where each built-in workload keeps its pod template (the kinds Karmada's native dependency
# interpreter knows; dependencies.go getAllDefaultDependenciesInterpreter).
POD_TEMPLATE_PATHS = {
    ("apps", "Deployment"): ("spec", "template"),
    ("apps", "ReplicaSet"): ("spec", "template"),
    ("apps", "StatefulSet"): ("spec", "template"),
    ("apps", "DaemonSet"): ("spec", "template"),
    ("batch", "Job"): ("spec", "template"),
    ("batch", "CronJob"): ("spec", "jobTemplate", "spec", "template"),
}

# API groups served by kube-apiserver itself; anything else is treated as a custom resource whose
# whole spec goes through the control plane's schema (and structural pruning).
BUILTIN_GROUPS = frozenset(
    [
        "",
        "apps",
        "batch",
        "autoscaling",
        "policy",
        "networking.k8s.io",
        "rbac.authorization.k8s.io",
        "storage.k8s.io",
        "scheduling.k8s.io",
        "coordination.k8s.io",
        "discovery.k8s.io",
        "node.k8s.io",
        "admissionregistration.k8s.io",
        "apiextensions.k8s.io",
        "certificates.k8s.io",
        "events.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "resource.k8s.io",
    ]
)

REDACTED = "VALUE_REDACTED_SECRET_DATA"


class FederalizeError(Exception):
    """Bad input or a state that makes adoption unsafe; the message is shown to the user.

    ``result`` is what the module returns besides the message (the snapshots when adoption
    restarted workloads), or None."""

    def __init__(self, message, result=None):
        super(FederalizeError, self).__init__(message)
        self.result = result


def api_group(api_version):
    """``apps/v1`` -> ``apps``; ``v1`` -> ``""``."""
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def _drop_keys(mapping, keys):
    for key in keys:
        mapping.pop(key, None)


def strip_template(obj, keep_node_ports=True):
    """Build the control-plane template of a live member object.

    Returns ``(template, warnings)``. ``obj`` is not modified. With ``keep_node_ports`` a fixed
    ``nodePort``/``healthCheckNodePort`` stays in the template (the runbook's fixed-port Service)
    and a warning says it must be free in every cluster the policy targets; without it both are
    removed and each cluster allocates its own.
    """
    template = copy.deepcopy(obj)
    warnings = []
    meta = template.setdefault("metadata", {})
    _drop_keys(meta, APISERVER_METADATA_FIELDS)
    template.pop("status", None)

    # The engines' own marks on the objects they manage (engines.detect.member_marks), whichever engine adopts it.
    engine_labels, engine_annotation_prefixes = member_marks()
    labels = meta.get("labels") or {}
    _drop_keys(labels, engine_labels)
    annotations = meta.get("annotations") or {}
    for key in list(annotations):
        if key == LAST_APPLIED_ANNOTATION or key.startswith(engine_annotation_prefixes):
            del annotations[key]

    kind = template.get("kind")
    group = api_group(template.get("apiVersion", ""))
    if kind == "Deployment" and group == "apps":
        _drop_keys(annotations, DEPLOYMENT_REVISION_ANNOTATIONS)
    elif kind == "Service" and group == "":
        warnings.extend(_strip_service(template, keep_node_ports))
    elif kind == "Secret" and group == "":
        if template.get("type") == SERVICE_ACCOUNT_TOKEN_TYPE:
            annotations.pop(SERVICE_ACCOUNT_UID_ANNOTATION, None)
            template["data"] = None
    elif kind == "ServiceAccount" and group == "":
        _strip_service_account(template)
    elif kind == "PersistentVolumeClaim" and group == "":
        if annotations.get(PVC_SELECTED_NODE_ANNOTATION):
            del annotations[PVC_SELECTED_NODE_ANNOTATION]
    elif kind == "Job" and group == "batch":
        _strip_job(template)

    # How the engine is told to adopt the member's object is the engine's (adoption_template).
    meta["annotations"] = annotations
    if labels:
        meta["labels"] = labels
    else:
        meta.pop("labels", None)
    return template, warnings


def _strip_service(template, keep_node_ports):
    spec = template.get("spec") or {}
    warnings = []
    # A headless Service (clusterIP None) keeps it: that is what makes it headless.
    if "clusterIP" in spec and spec.get("clusterIP") != "None":
        spec.pop("clusterIP", None)
        spec.pop("clusterIPs", None)
    fixed = service_node_ports(template)
    if keep_node_ports:
        if fixed:
            warnings.append(
                "%s keeps fixed node ports %s: every cluster its policy targets (and the federation "
                "control plane, whose apiserver allocates them too) must have them free and inside "
                "--service-node-port-range, or creating the Service there fails with 'provided port "
                "is already allocated'."
                % (object_ref(template), ", ".join(str(p) for p in fixed))
            )
    else:
        for port in spec.get("ports") or []:
            port.pop("nodePort", None)
        spec.pop("healthCheckNodePort", None)
    return warnings


def _strip_service_account(template):
    # prune.go removeServiceAccountIrrelevantField: the auto-created "<name>-token-*" secrets.
    secrets = template.get("secrets")
    if secrets:
        prefix = "%s-token-" % template["metadata"].get("name", "")
        kept = [s for s in secrets if not str(s.get("name", "")).startswith(prefix)]
        template["secrets"] = kept


def _strip_job(template):
    # prune.go removeJobIrrelevantField: generated selector labels, unless manualSelector.
    spec = template.get("spec") or {}
    if spec.get("manualSelector"):
        return
    match_labels = (spec.get("selector") or {}).get("matchLabels")
    if match_labels is not None:
        _drop_keys(match_labels, JOB_SELECTOR_LABELS)
    tmpl_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    if tmpl_labels is not None:
        _drop_keys(tmpl_labels, JOB_TEMPLATE_LABELS)


def service_node_ports(service):
    """The node ports a Service pins: every ``spec.ports[].nodePort`` and ``healthCheckNodePort``."""
    spec = service.get("spec") or {}
    ports = [p["nodePort"] for p in spec.get("ports") or [] if p.get("nodePort")]
    if spec.get("healthCheckNodePort"):
        ports.append(spec["healthCheckNodePort"])
    return ports


def node_port_collisions(templates, services_in_target, target):
    """Fixed node ports of ``templates`` already taken by other Services of cluster ``target``.

    ``services_in_target`` is the target cluster's Service list; a Service of the same namespace
    and name is the template's own copy (already there) and does not count. Returns a list of
    human-readable collision descriptions, empty when the move is safe.
    """
    own = set()
    wanted = {}
    for tmpl in templates:
        if tmpl.get("kind") != "Service" or api_group(tmpl.get("apiVersion", "")) != "":
            continue
        key = (tmpl["metadata"].get("namespace"), tmpl["metadata"]["name"])
        own.add(key)
        for port in service_node_ports(tmpl):
            wanted.setdefault(port, key)
    collisions = []
    for svc in services_in_target:
        key = (svc["metadata"].get("namespace"), svc["metadata"]["name"])
        if key in own:
            continue
        for port in service_node_ports(svc):
            if port in wanted:
                collisions.append(
                    "nodePort %d of Service %s/%s is already allocated in cluster %s by Service %s/%s"
                    % (port, wanted[port][0], wanted[port][1], target, key[0], key[1])
                )
    return sorted(collisions)


def pod_template_path(obj):
    """Path of the pod template inside a workload, or None for kinds without one."""
    return POD_TEMPLATE_PATHS.get((api_group(obj.get("apiVersion", "")), obj.get("kind")))


def _get_path(obj, path):
    node = obj
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def compared_part(obj):
    """What must survive the round trip through the control plane unchanged, and its path.

    Built-in workloads: the pod template (a change there rolls the pods). Bare Pods: their spec.
    Custom resources: the whole spec (the control plane's CRD schema prunes unknown fields).
    Other built-in kinds: nothing (None, None).
    """
    path = pod_template_path(obj)
    group = api_group(obj.get("apiVersion", ""))
    if path is None and obj.get("kind") == "Pod" and group == "":
        path = ("spec",)
    if path is None and group not in BUILTIN_GROUPS:
        path = ("spec",)
    if path is None:
        return None, None
    return _get_path(obj, path), path


def diff_paths(member, returned, path=""):
    """Compare the member's value with what the control plane returned.

    Returns ``(dropped, changed, added)`` lists of JSON-pointer-like paths: ``dropped`` exist in the
    member only, ``changed`` differ, ``added`` exist only in the control plane's result (defaults of
    a newer control plane: the member's apiserver drops or already has them, so they do not roll
    pods). Lists are compared element by element; list entries with a ``name`` key (containers,
    volumes, env, ports) are matched by name.
    """
    dropped, changed, added = [], [], []
    _diff(member, returned, path, dropped, changed, added)
    return dropped, changed, added


def _list_by_name(items):
    if items and all(isinstance(i, dict) and "name" in i for i in items):
        names = [i["name"] for i in items]
        if len(set(names)) == len(names):
            return dict((i["name"], i) for i in items)
    return None


def _diff(member, returned, path, dropped, changed, added):
    if isinstance(member, dict) and isinstance(returned, dict):
        for key in member:
            sub = "%s/%s" % (path, str(key).replace("~", "~0").replace("/", "~1"))
            if key not in returned:
                dropped.append(sub)
            else:
                _diff(member[key], returned[key], sub, dropped, changed, added)
        for key in returned:
            if key not in member:
                added.append("%s/%s" % (path, str(key).replace("~", "~0").replace("/", "~1")))
        return
    if isinstance(member, list) and isinstance(returned, list):
        by_name_m = _list_by_name(member)
        by_name_r = _list_by_name(returned)
        if by_name_m is not None and by_name_r is not None:
            for name, item in by_name_m.items():
                sub = "%s[name=%s]" % (path, name)
                if name not in by_name_r:
                    dropped.append(sub)
                else:
                    _diff(item, by_name_r[name], sub, dropped, changed, added)
            for name in by_name_r:
                if name not in by_name_m:
                    added.append("%s[name=%s]" % (path, name))
            return
        for index, item in enumerate(member):
            sub = "%s/%d" % (path, index)
            if index >= len(returned):
                dropped.append(sub)
            else:
                _diff(item, returned[index], sub, dropped, changed, added)
        for index in range(len(member), len(returned)):
            added.append("%s/%d" % (path, index))
        return
    if member != returned:
        changed.append(path or "/")


def compare_round_trip(member_obj, returned_obj):
    """Fields of ``member_obj``'s compared part that the control plane dropped or changed.

    Returns a dict ``{path, dropped, changed, added}`` (``path`` None when the kind is not
    compared).
    """
    member_part, path = compared_part(member_obj)
    if path is None:
        return {"path": None, "dropped": [], "changed": [], "added": []}
    returned_part = _get_path(returned_obj, path)
    prefix = "/" + "/".join(path)
    dropped, changed, added = diff_paths(member_part, returned_part, prefix)
    return {"path": prefix, "dropped": dropped, "changed": changed, "added": added}


def pod_spec(obj):
    """The pod spec of a workload or Pod, or None."""
    path = pod_template_path(obj)
    if path is not None:
        return _get_path(obj, path + ("spec",))
    if obj.get("kind") == "Pod" and api_group(obj.get("apiVersion", "")) == "":
        return obj.get("spec")
    return None


def _containers(spec):
    containers = []
    for key in ("initContainers", "containers", "ephemeralContainers"):
        containers.extend(spec.get(key) or [])
    return containers


def _add(result, name):
    if name and name not in result:
        result.append(name)


# Volume sources that name a Secret in secretRef (visitpod.go VisitPodSecretNames).
SECRET_REF_VOLUME_SOURCES = ("cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos")


def _volume_references(volume, configmaps, secrets):
    """The ConfigMap or Secret one volume names. A volume has one source: like visitpod.go's
    switch, the first source present is the one read."""
    if volume.get("azureFile") is not None:
        _add(secrets, volume["azureFile"].get("secretName"))
    elif volume.get("projected") is not None:
        for source in volume["projected"].get("sources") or []:
            _add(secrets, (source.get("secret") or {}).get("name"))
            _add(configmaps, (source.get("configMap") or {}).get("name"))
    elif volume.get("secret") is not None:
        _add(secrets, volume["secret"].get("secretName"))
    elif volume.get("configMap") is not None:
        _add(configmaps, volume["configMap"].get("name"))
    elif volume.get("csi") is not None:
        _add(secrets, (volume["csi"].get("nodePublishSecretRef") or {}).get("name"))
    else:
        for source in SECRET_REF_VOLUME_SOURCES:
            if volume.get(source) is not None:
                _add(secrets, (volume[source].get("secretRef") or {}).get("name"))
                break


def pod_dependencies(pod_template, namespace):
    """``helper.GetDependenciesFromPodTemplate``: ``[{apiVersion, kind, namespace, name}]`` of the
    ConfigMaps, Secrets, ServiceAccount (unless ``default``) and PVCs a pod template uses, in that
    order, each kind in Karmada's visiting order and without duplicates. ``namespace`` is left out
    of the references when empty (the Go type's ``omitempty``). Used by federalize and by the Lua
    ``kube.getPodDependencies`` of engines.karmada.lua."""
    spec = (pod_template or {}).get("spec") or {}
    configmaps, secrets, claims = [], [], []
    for reference in spec.get("imagePullSecrets") or []:
        _add(secrets, (reference or {}).get("name"))
    for container in _containers(spec):
        for env_from in container.get("envFrom") or []:
            _add(secrets, (env_from.get("secretRef") or {}).get("name"))
            _add(configmaps, (env_from.get("configMapRef") or {}).get("name"))
        for env in container.get("env") or []:
            value_from = env.get("valueFrom") or {}
            _add(secrets, (value_from.get("secretKeyRef") or {}).get("name"))
            _add(configmaps, (value_from.get("configMapKeyRef") or {}).get("name"))
    for volume in spec.get("volumes") or []:
        _volume_references(volume, configmaps, secrets)
        _add(claims, (volume.get("persistentVolumeClaim") or {}).get("claimName"))
    account = spec.get("serviceAccountName")
    by_kind = (("ConfigMap", configmaps), ("Secret", secrets),
               ("ServiceAccount", [account] if account and account != "default" else []),
               ("PersistentVolumeClaim", claims))
    refs = []
    for kind, names in by_kind:
        for name in names:
            ref = {"apiVersion": "v1", "kind": kind, "namespace": namespace, "name": name}
            if not namespace:
                del ref["namespace"]
            refs.append(ref)
    return refs


def dependency_refs(obj):
    """``[{apiVersion, kind, namespace, name}]`` of everything ``obj``'s pods use (may be empty)."""
    spec = pod_spec(obj)
    if spec is None:
        return []
    return pod_dependencies({"spec": spec}, (obj.get("metadata") or {}).get("namespace"))


def redact(obj):
    """A copy safe to print: Secret ``data``/``stringData`` values replaced, keys kept."""
    if not isinstance(obj, dict) or obj.get("kind") != "Secret":
        return obj
    safe = copy.deepcopy(obj)
    for field in ("data", "stringData"):
        if isinstance(safe.get(field), dict):
            safe[field] = dict((key, REDACTED) for key in safe[field])
    annotations = (safe.get("metadata") or {}).get("annotations") or {}
    if LAST_APPLIED_ANNOTATION in annotations:
        annotations[LAST_APPLIED_ANNOTATION] = REDACTED
    return safe


def workload_snapshot(workload, pods, replicasets):
    """What must not change while a workload is adopted: its spec, its ReplicaSets, its pods.

    ``pods``/``replicasets`` are the namespace's lists; the workload's own are those its selector
    matches (ReplicaSets only for Deployments). The generation is recorded for the report only:
    kube-apiserver bumps a Deployment's generation on annotation changes too
    (kubernetes v1.32 ``pkg/registry/apps/deployment/strategy.go`` ``PrepareForUpdate``), and Karmada
    adds its annotations on adoption, so a generation + 1 with an unchanged spec is expected.
    """
    spec = workload.get("spec") or {}
    selector = spec.get("selector")
    snap = {
        "generation": workload.get("metadata", {}).get("generation"),
        "spec": hashlib.sha256(json.dumps(spec, sort_keys=True).encode("utf-8")).hexdigest()[:16],
    }
    if selector is None:
        snap["pods"] = []
        snap["replicasets"] = []
        return snap
    snap["pods"] = sorted(
        "%s/%s" % (p["metadata"]["name"], p["metadata"].get("uid"))
        for p in pods
        if label_selector_matches(selector, p["metadata"].get("labels"))
        and not p["metadata"].get("deletionTimestamp")
    )
    if workload.get("kind") == "Deployment":
        snap["replicasets"] = sorted(
            "%s/%s" % (r["metadata"]["name"], r["metadata"].get("uid"))
            for r in replicasets
            if label_selector_matches(selector, r["metadata"].get("labels"))
        )
    else:
        snap["replicasets"] = []
    return snap


def compare_snapshots(ref, before, after):
    """Human-readable differences between two snapshots of one workload (empty when unchanged)."""
    problems = []
    if before.get("spec") != after.get("spec"):
        problems.append(
            "%s: spec rewritten (generation %s -> %s)" % (ref, before.get("generation"), after.get("generation"))
        )
    for field, what in (("replicasets", "ReplicaSets"), ("pods", "pods")):
        gone = sorted(set(before.get(field, [])) - set(after.get(field, [])))
        new = sorted(set(after.get(field, [])) - set(before.get(field, [])))
        if gone or new:
            problems.append(
                "%s: %s changed (gone: %s; new: %s)"
                % (ref, what, ", ".join(gone) or "none", ", ".join(new) or "none")
            )
    return problems
