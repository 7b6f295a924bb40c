# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""UCS fleets, their federation and its kubeconfig through huaweicloudsdkucs (runbook steps 3.1 and 4.1).

Pure logic over a ``UcsClient`` (client.ucs_client): read first, decide, and only then write what is
missing; never a second fleet (a fleet is found by its name) or a second federation (a fleet whose spec
has a ``federationId`` or a ``Federation`` condition has one). Calls, from huaweicloudsdkucs 3.1.219
``v1/ucs_client.py`` (method and path) and the model classes' ``attribute_map`` (JSON names):

- ``list_cluster_group`` GET /v1/clustergroups -> ``items`` of ClusterGroup (metadata.uid/name,
  spec.federationId, status.conditions);
- ``list_managed_clusters`` GET /v1/managedclusters -> the account's CCE clusters. The SDK types the
  answer as a bare JSON array (``ListManagedClustersResponse.body: list[Cluster]``, as Huawei's
  international API reference example shows); the Chinese API reference documents ``items``/``total``.
  Both are read (from the raw answer);
- ``show_cluster_list`` GET /v1/clusters -> ``items`` of the clusters registered with UCS
  (spec.clusterGroupID: the fleet each is in);
- ``register_cluster`` POST /v1/clusters (RegisterCluster: metadata.uid the CCE cluster id and name, spec
  category/type/provider/country/city/region/projectID copied from the managed cluster, manageType
  ``discrete``); for a CCE cluster UCS keeps the CCE id as its own (RegisterClusterMetadata.uid: "the
  cluster id, only when a CCE cluster is registered");
- ``register_cluster_group`` POST /v1/clustergroups (metadata.name, spec.clusterIds, spec.description);
- ``join_group`` POST /v1/clusters/{id}/join (``clusterGroupID``); ``update_cluster_group_associated_clusters``
  PUT /v1/clustergroups/{id}/associatedclusters (``clusterIds``, the whole list);
- ``delete_cluster_group`` DELETE /v1/clustergroups/{id};
- ``enable_federation`` POST /v1/clustergroups/{id}/federations (no body); ``show_federation_progress``
  GET .../federations/progress (a Job: status.phase, status.reason);
- ``create_federation_connection`` POST /v1/clustergroups/{id}/connection (projectID, vpcID, subnetID);
  ``download_federation_kubeconfig`` POST /v1/clustergroups/{id}/kubeconfig (``duration``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re
import time

from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import cce_kubeconfig as ck
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import client as hwc
from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud.errors import (
    HuaweiCloudError,
    sdk_call,
)

try:
    from huaweicloudsdkucs.v1 import (
        ClusterJoinGroupRequestBody,
        CreateFederationConnectionRequest,
        CreateFederationConnectionRequestBody,
        DeleteClusterGroupRequest,
        DownloadFederationKubeconfigRequest,
        DownloadFederationKubeconfigRequestBody,
        EnableFederationRequest,
        JoinGroupRequest,
        ListClusterGroupRequest,
        ListManagedClustersRequest,
        RegisterCluster,
        RegisterClusterGroup,
        RegisterClusterGroupObjectMeta,
        RegisterClusterGroupRequest,
        RegisterClusterGroupSpec,
        RegisterClusterMetadata,
        RegisterClusterRequest,
        RegisterClusterSpec,
        ShowClusterGroupRequest,
        ShowClusterListRequest,
        ShowFederationProgressRequest,
        UpdateClusterGroupAssociatedClustersRequest,
        UpdateClusterGroupAssociatedClustersRequestBody,
    )
except ImportError:  # reported by the module through client.HAS_HUAWEICLOUD_SDK
    pass

# A fleet's name as UCS's console accepts it (UCS user guide, "Managing Fleets", ucs_01_0004: starts with a
# lowercase letter, only lowercase letters, digits and hyphens, does not end with a hyphen). Neither the SDK
# (RegisterClusterGroupObjectMeta.name: "fleet name") nor the API reference states a rule or a length.
FLEET_NAME = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")

# download_federation_kubeconfig's duration: days, 1 to 1825 (Huawei's API reference, "Downloading Federation
# kubeconfig" and "Creating a Federation Connection and Downloading kubeconfig": "Validity period of the
# certificate in kubeconfig, in days. Minimum value: 1. Maximum value: 1825"). The SDK's model
# (DownloadFederationKubeconfigRequestBody.duration, int) names no unit or range.
MAX_FEDERATION_DURATION_DAYS = 1825

# show_federation_progress's status.phase. Neither the SDK (JobStatus.phase: "Job phase") nor the API reference
# lists the values: these are recognised, case-insensitively; anything else counts as still running.
PHASES_DONE = ("success", "succeeded", "successful", "completed", "complete")
PHASES_FAILED = ("failed", "failure", "error")

FEDERATION_CONTEXT = "federation"
# The wait's clock and sleep (tests replace them here, not in the time module the SDK also uses).
CLOCK, PAUSE = time.monotonic, time.sleep
UCS_POLICY_HINT = " (Huawei's system policy UCS FullAccess includes every UCS call of this collection)"


def argument_spec(**options):
    """The ucs_* modules' options: the access options (client.HUAWEICLOUD_ARG_SPEC) and ``options``."""
    spec = dict((name, dict(value)) for name, value in hwc.HUAWEICLOUD_ARG_SPEC.items())
    spec.update(options)
    return spec


def fleet_name_error(name):
    if name and FLEET_NAME.match(name):
        return None
    return ("fleet name %r is refused by UCS: start with a lowercase letter, use only lowercase letters, digits "
            "and hyphens, and do not end with a hyphen (UCS user guide, Managing Fleets)" % name)


def federation_duration_error(duration):
    if 1 <= duration <= MAX_FEDERATION_DURATION_DAYS:
        return None
    return ("duration %s is out of range: the federation's kubeconfig is valid 1 to %d days (five years; Huawei's "
            "UCS API reference)" % (duration, MAX_FEDERATION_DURATION_DAYS))


# The UCS calls whose generated code (huaweicloudsdkucs 3.1.219 v1/ucs_client.py: join_group's http_info at line
# 1485, register_cluster_group's at 2366, register_cluster's at 4569) sets Content-Type
# application/x-www-form-urlencoded: the SDK then form-encodes the model's top level only ("metadata=uid&
# metadata=name&spec=category..."), losing every value, where Huawei's API reference documents a JSON body
# ("Only application/json is supported", Creating a Fleet). For these the SDK's own request description is
# taken and sent as JSON through the same client (its serialisation, signing and error handling).
FORM_ENCODED_IN_SDK = ("join_group", "register_cluster_group", "register_cluster")


def _send_as_json(client, operation, request):
    http_info = getattr(client, "_%s_http_info" % operation)(request)
    http_info["header_params"]["Content-Type"] = "application/json"
    http_info["post_params"] = {}
    return client._call_api(**http_info)


def call(operation, resource, function, request):
    """One UCS call; a 403 also names the UCS system policy."""
    try:
        with sdk_call("UCS %s" % operation, resource=resource):
            if operation in FORM_ENCODED_IN_SDK:
                return _send_as_json(function.__self__, operation, request)
            return function(request)
    except HuaweiCloudError as exc:
        if exc.status == 403:
            exc.args = (str(exc) + UCS_POLICY_HINT,)
        raise


# ---- reads -------------------------------------------------------------------------------------------------

def _get(data, *names):
    for name in names:
        data = data.get(name) if isinstance(data, dict) else None
    return data


def fleets_named(client, name):
    """[ClusterGroup] whose metadata.name is ``name``."""
    response = call("list_cluster_group", None, client.list_cluster_group, ListClusterGroupRequest())
    return [g for g in response.items or [] if g.metadata is not None and g.metadata.name == name]


def find_fleet(client, name):
    """The ClusterGroup named ``name``, or None; more than one is an error (the module never makes a second)."""
    found = fleets_named(client, name)
    if len(found) > 1:
        raise HuaweiCloudError("UCS has %d fleets named %s (%s): this module manages one fleet by its name. Fix: "
                               "delete the extra fleets in UCS, or use another name"
                               % (len(found), name, ", ".join(g.metadata.uid for g in found)))
    return found[0] if found else None


def require_fleet(client, name):
    fleet = find_fleet(client, name)
    if fleet is None:
        raise HuaweiCloudError("UCS has no fleet named %s. Fix: create it first (multicloud.federation.ucs_fleet)"
                               % name)
    return fleet


def managed_clusters(client):
    """{cce cluster id: cluster dict (JSON names)} of the account's CCE clusters (list_managed_clusters)."""
    response = call("list_managed_clusters", None, client.list_managed_clusters, ListManagedClustersRequest())
    try:
        data = json.loads(response.raw_content or b"[]")
    except ValueError:
        raise HuaweiCloudError("UCS list_managed_clusters answered something that is not JSON")
    items = data if isinstance(data, list) else (data.get("items") or [] if isinstance(data, dict) else [])
    return dict((_get(c, "metadata", "uid"), c) for c in items if _get(c, "metadata", "uid"))


def registered_clusters(client):
    """{ucs cluster id: fleet id or ''} of the clusters registered with UCS (show_cluster_list)."""
    response = call("show_cluster_list", None, client.show_cluster_list, ShowClusterListRequest())
    return dict((c.metadata.uid, (c.spec.cluster_group_id if c.spec else None) or "")
                for c in response.items or [] if c.metadata is not None and c.metadata.uid)


# ---- the fleet ---------------------------------------------------------------------------------------------

def fleet_plan(name, cluster_ids, fleet, managed, registered, exclusive):
    """What ucs_fleet (state present) must do: {register: [ids], create: bool, join: [ids], set: [ids] or None}.

    Refuses before any write: a cluster the account does not have, a cluster in another fleet.
    """
    fleet_id = fleet.metadata.uid if fleet is not None else None
    unknown = [c for c in cluster_ids if c not in managed and c not in registered]
    if unknown:
        raise HuaweiCloudError(
            "cluster %s is not a CCE cluster of this account (UCS list_managed_clusters and show_cluster_list do not "
            "have it). Fix: check the cluster ids (CCE console, cluster details) and that the access key is this "
            "account's" % ", ".join(unknown))
    elsewhere = [(c, registered[c]) for c in cluster_ids if registered.get(c) and registered[c] != fleet_id]
    if elsewhere:
        raise HuaweiCloudError(
            "cluster %s is already in another fleet (%s); a cluster is in one fleet only. Fix: remove it from that "
            "fleet in UCS first, or leave it out of clusters" % (", ".join(pair[0] for pair in elsewhere),
                                                                 ", ".join(pair[1] for pair in elsewhere)))
    register = [c for c in cluster_ids if c not in registered]
    plan = {"register": register, "create": fleet is None, "join": [], "set": None}
    if fleet is None:
        return plan
    members = sorted(c for c, g in registered.items() if g == fleet_id)
    missing = [c for c in cluster_ids if c not in members]
    if exclusive and sorted(set(cluster_ids)) != members:
        plan["set"] = list(cluster_ids)
    else:
        plan["join"] = missing
    return plan


def plan_actions(name, plan, cluster_ids):
    actions = ["register cluster %s with UCS" % c for c in plan["register"]]
    if plan["create"]:
        actions.append("create fleet %s with clusters %s" % (name, ", ".join(cluster_ids) or "none"))
    actions += ["join cluster %s to fleet %s" % (c, name) for c in plan["join"]]
    if plan["set"] is not None:
        actions.append("set the clusters of fleet %s to %s" % (name, ", ".join(plan["set"]) or "none"))
    return actions


def register(client, cluster):
    """register_cluster for a managed CCE cluster (dict of list_managed_clusters); its UCS id."""
    spec = cluster.get("spec") or {}
    uid = _get(cluster, "metadata", "uid")
    body = RegisterCluster(
        kind="Cluster", api_version="v1",
        metadata=RegisterClusterMetadata(uid=uid, name=_get(cluster, "metadata", "name")),
        spec=RegisterClusterSpec(category=spec.get("category") or "self", type=spec.get("type") or "cce",
                                 provider=spec.get("provider") or "huaweicloud", country=spec.get("country"),
                                 city=spec.get("city"), region=spec.get("region"), project_id=spec.get("projectID"),
                                 manage_type="discrete"))
    response = call("register_cluster", "cluster %s" % uid, client.register_cluster, RegisterClusterRequest(body=body))
    if response.uid and response.uid != uid:
        raise HuaweiCloudError("UCS register_cluster gave cluster %s the id %s, not its CCE id: this collection "
                               "expects UCS to keep a CCE cluster's id" % (uid, response.uid))
    return uid


def apply_fleet(client, name, description, cluster_ids, fleet, plan, managed):
    """Carry out ``plan``; the fleet's id."""
    for cluster_id in plan["register"]:
        register(client, managed[cluster_id])
    if plan["create"]:
        body = RegisterClusterGroup(metadata=RegisterClusterGroupObjectMeta(name=name),
                                    spec=RegisterClusterGroupSpec(cluster_ids=list(cluster_ids), description=description))
        response = call("register_cluster_group", "fleet %s" % name, client.register_cluster_group,
                        RegisterClusterGroupRequest(body=body))
        if not response.uid:
            raise HuaweiCloudError("UCS register_cluster_group answered without the fleet's uid")
        return response.uid
    fleet_id = fleet.metadata.uid
    for cluster_id in plan["join"]:
        call("join_group", "cluster %s" % cluster_id, client.join_group,
             JoinGroupRequest(clusterid=cluster_id, body=ClusterJoinGroupRequestBody(cluster_group_id=fleet_id)))
    if plan["set"] is not None:
        call("update_cluster_group_associated_clusters", "fleet %s" % name,
             client.update_cluster_group_associated_clusters,
             UpdateClusterGroupAssociatedClustersRequest(
                 clustergroupid=fleet_id, body=UpdateClusterGroupAssociatedClustersRequestBody(cluster_ids=plan["set"])))
    return fleet_id


def delete_fleet(client, fleet):
    call("delete_cluster_group", "fleet %s" % fleet.metadata.name, client.delete_cluster_group,
         DeleteClusterGroupRequest(clustergroupid=fleet.metadata.uid))


# ---- the federation ----------------------------------------------------------------------------------------

def show_fleet(client, fleet_id):
    return call("show_cluster_group", "fleet %s" % fleet_id, client.show_cluster_group,
                ShowClusterGroupRequest(clustergroupid=fleet_id))


def has_federation(group):
    """Whether the fleet (ClusterGroup or ShowClusterGroupResponse) has a federation, enabled or being enabled."""
    if group.spec is not None and group.spec.federation_id:
        return True
    conditions = (group.status.conditions if group.status is not None else None) or []
    return any((c.type or "").lower() == "federation" for c in conditions)


def progress(client, fleet_id):
    """{phase, reason, type} of the fleet's federation job (show_federation_progress)."""
    job = call("show_federation_progress", "fleet %s" % fleet_id, client.show_federation_progress,
               ShowFederationProgressRequest(clustergroupid=fleet_id))
    status = job.status
    return {"phase": (status.phase if status else None) or "", "reason": (status.reason if status else None) or "",
            "type": (job.spec.type if job.spec else None) or ""}


def phase_state(phase):
    phase = (phase or "").lower()
    if phase in PHASES_DONE:
        return "done"
    if phase in PHASES_FAILED:
        return "failed"
    return "running"


def failed_error(name, job):
    return HuaweiCloudError(
        "the federation of fleet %s failed to enable: phase %s, reason %s. Fix: read the fleet's federation events in "
        "the UCS console, correct the cause (the member clusters must be running and reachable), then disable the "
        "federation there and run again" % (name, job["phase"], job["reason"] or "not given"),
        error_code=job["reason"] or job["phase"])


def enable(client, fleet_id, name):
    call("enable_federation", "fleet %s" % name, client.enable_federation,
         EnableFederationRequest(clustergroupid=fleet_id))


def wait_enabled(client, fleet_id, name, timeout, sleep):
    """Poll show_federation_progress until done (the last job), failed (an error) or ``timeout`` seconds."""
    clock, pause = CLOCK, PAUSE
    deadline = clock() + timeout
    while True:
        job = progress(client, fleet_id)
        state = phase_state(job["phase"])
        if state == "done":
            return job
        if state == "failed":
            raise failed_error(name, job)
        if clock() + sleep > deadline:
            raise HuaweiCloudError(
                "the federation of fleet %s is not enabled after %s seconds (phase %s). Fix: run again with a longer "
                "wait_timeout; the federation goes on being enabled meanwhile" % (name, timeout, job["phase"] or "none"),
                error_code=job["phase"] or None)
        pause(sleep)


# ---- the federation's kubeconfig ---------------------------------------------------------------------------

def create_connection(client, fleet_id, name, project_id, vpc_id, subnet_id):
    body = CreateFederationConnectionRequestBody(project_id=project_id, vpc_id=vpc_id, subnet_id=subnet_id)
    response = call("create_federation_connection", "fleet %s" % name, client.create_federation_connection,
                    CreateFederationConnectionRequest(clustergroupid=fleet_id, body=body))
    return response.id


def download(client, fleet_id, name, duration):
    """The federation's kubeconfig (data, kubectl's key names) from download_federation_kubeconfig."""
    response = call("download_federation_kubeconfig", "fleet %s" % name, client.download_federation_kubeconfig,
                    DownloadFederationKubeconfigRequest(
                        clustergroupid=fleet_id, body=DownloadFederationKubeconfigRequestBody(duration=duration)))
    data = ck.response_kubeconfig(response)
    # UCS's ClusterCert.insecure_skip_tls_verify is a string and its AuthInfo may carry a token (model classes).
    for entry, source in zip(data["clusters"], response.clusters or []):
        flag = source.cluster.insecure_skip_tls_verify if source.cluster is not None else None
        if str(flag).lower() not in ("true", "1"):
            entry["cluster"].pop("insecure-skip-tls-verify", None)
    for entry, source in zip(data["users"], response.users or []):
        if source.user is not None and source.user.token:
            entry["user"]["token"] = source.user.token
    if not data["users"] or not data["contexts"]:
        raise HuaweiCloudError("UCS download_federation_kubeconfig answered without users or contexts for fleet %s" % name)
    return as_federation_context(data)


def as_federation_context(data):
    """``data`` reduced to one context, named ``federation`` and current: UCS's current context (else its first)."""
    contexts = dict((c.get("name"), c.get("context") or {}) for c in data.get("contexts") or [])
    current = data.get("current-context") if data.get("current-context") in contexts else data["contexts"][0]["name"]
    context = contexts[current]
    clusters = [c for c in data.get("clusters") or [] if c.get("name") == context.get("cluster")]
    users = [u for u in data.get("users") or [] if u.get("name") == context.get("user")]
    if not clusters or not users:
        raise HuaweiCloudError("the federation's kubeconfig from UCS names a cluster or user it does not have")
    return {"apiVersion": "v1", "kind": "Config", "preferences": {}, "clusters": clusters, "users": users,
            "contexts": [{"name": FEDERATION_CONTEXT, "context": dict(context)}], "current-context": FEDERATION_CONTEXT}


def kubeconfig_renewal_reason(existing, now, renew_before_days):
    """Why the federation kubeconfig in place must be replaced, or None to keep it."""
    if existing is None:
        return "no kubeconfig at the destination"
    if FEDERATION_CONTEXT not in [c.get("name") for c in existing.get("contexts") or []]:
        return "the kubeconfig in place has no context %s" % FEDERATION_CONTEXT
    return ck.expiry_reason(existing, now, renew_before_days)
