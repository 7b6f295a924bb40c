# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A CCE cluster's kubeconfig through huaweicloudsdkcce (runbook step 3.1 step 2).

Calls (huaweicloudsdkcce v3 ``cce_client.py``): ``show_cluster`` (GET
/api/v3/projects/{project_id}/clusters/{cluster_id}: its ``status.endpoints``, each ``url`` and ``type``
Internal or External) and ``create_kubernetes_cluster_cert`` (POST
/api/v3/projects/{project_id}/clusters/{cluster_id}/clustercert, body ``{"duration": days}``, ``CertDuration``:
-1 or 1-1827 days, -1 for the five-year maximum). Every create call issues a new client certificate, so
the file in place is read first: it is kept while it is this cluster's (its servers are the cluster's
addresses) and its certificate is valid for more than ``renew_before_days``.

The ``external`` context comes from the address the cluster already has: CCE's answer has it when an EIP
is bound; when the cluster reports an External endpoint and the answer lacks the context, it is added with
that address and the cluster's CA (TLS verified). A cluster without an External endpoint gets no
``external`` context, and asking for it fails before any call that writes: binding an EIP
(``update_cluster_eip``) exposes the API server and costs money, and is never done here.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import os

from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud.errors import (
    HuaweiCloudError,
    sdk_call,
)
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import file as kc
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig.credentials import credential_expiry

try:
    from huaweicloudsdkcce.v3 import CertDuration, CreateKubernetesClusterCertRequest, ShowClusterRequest
except ImportError:  # reported by the module through client.HAS_HUAWEICLOUD_SDK
    pass

MAX_DURATION_DAYS = 1827
EXTERNAL_TLS_CLUSTER = "externalClusterTLSVerify"


def duration_error(duration):
    if duration == -1 or 1 <= duration <= MAX_DURATION_DAYS:
        return None
    return ("duration %s is out of range: give 1 to %d days, or -1 for the longest CCE issues (five years)"
            % (duration, MAX_DURATION_DAYS))


def cluster_endpoints(cluster):
    """{"internal": url, "external": url} of a ShowClusterResponse (only those it has)."""
    found = {}
    for endpoint in (cluster.status.endpoints if cluster.status else None) or []:
        kind = (endpoint.type or "").lower()
        if kind in ("internal", "external") and endpoint.url and kind not in found:
            found[kind] = endpoint.url
    return found


# The kubeconfig keys (kubectl's) of the SDK's cluster and user attributes (huaweicloudsdkcce v3 Clusters,
# ClusterCert; Users, KubeConfigUser), in the order a kubeconfig writes them; a flag is written as True.
CLUSTER_KEYS = (("server", "server"), ("certificate_authority_data", "certificate-authority-data"),
                ("insecure_skip_tls_verify", "insecure-skip-tls-verify"))
USER_KEYS = (("client_certificate_data", "client-certificate-data"), ("client_key_data", "client-key-data"))
FLAG_KEYS = ("insecure-skip-tls-verify",)


def _named_entries(entries, section, keys):
    """[{name, <section>: {kubectl key: value}}] of the SDK's ``entries``, each holding its ``section`` attribute;
    unset values are left out."""
    result = []
    for entry in entries or []:
        values = getattr(entry, section)
        found = {}
        for attribute, key in keys if values is not None else ():
            value = getattr(values, attribute)
            if value:
                found[key] = True if key in FLAG_KEYS else value
        result.append({"name": entry.name, section: found})
    return result


def response_kubeconfig(response):
    """The kubeconfig of a CreateKubernetesClusterCertResponse as kubeconfig data (kubectl's key names)."""
    clusters = _named_entries(response.clusters, "cluster", CLUSTER_KEYS)
    users = _named_entries(response.users, "user", USER_KEYS)
    contexts = [{"name": entry.name, "context": {"cluster": entry.context.cluster, "user": entry.context.user}
                 if entry.context is not None else {}} for entry in response.contexts or []]
    return {"apiVersion": "v1", "kind": "Config", "preferences": {}, "clusters": clusters, "users": users,
            "contexts": contexts, "current-context": response.current_context or ""}


def _by_name(data, section):
    return dict((entry.get("name"), entry.get(section[:-1]) or {}) for entry in data.get(section) or [])


def with_external_context(data, endpoints):
    """``data`` with an ``external`` context when the cluster has an External address and CCE gave none."""
    contexts = _by_name(data, "contexts")
    if "external" in contexts or "external" not in endpoints or "internal" not in contexts:
        return data
    internal = contexts["internal"]
    ca = _by_name(data, "clusters").get(internal.get("cluster"), {}).get("certificate-authority-data")
    cluster = {"server": endpoints["external"]}
    if ca:
        cluster["certificate-authority-data"] = ca
    data = dict(data)
    data["clusters"] = [c for c in data["clusters"] if c.get("name") != EXTERNAL_TLS_CLUSTER] + [
        {"name": EXTERNAL_TLS_CLUSTER, "cluster": cluster}]
    data["contexts"] = list(data["contexts"]) + [
        {"name": "external", "context": {"cluster": EXTERNAL_TLS_CLUSTER, "user": internal.get("user")}}]
    return data


def servers(data):
    return set(cluster.get("server") for cluster in _by_name(data, "clusters").values() if cluster.get("server"))


def _credential(data):
    """credential_expiry of the current context's user (else the first user); None without a readable one."""
    users = data.get("users") or []
    current = _by_name(data, "contexts").get(data.get("current-context"), {}).get("user")
    chosen = [u for u in users if u.get("name") == current] or users[:1]
    if not chosen:
        return None
    try:
        return credential_expiry(chosen[0], ".")
    except ValueError:
        return None


def expiry(data):
    """When the current context's user's credential expires: its client certificate's notAfter, or a JWT
    token's exp claim (kubeconfig.credentials.credential_expiry); None when it cannot be read."""
    found = _credential(data)
    return found["expires"] if found else None


def credential_kind(data):
    """"client certificate" or "token", for messages."""
    found = _credential(data)
    return "token" if found and found["kind"] == "token" else "client certificate"


def renewal_reason(existing, endpoints, now, renew_before_days, context=None):
    """Why the kubeconfig in place must be replaced, or None to keep it.

    ``context`` is the one asked for (None: external when the cluster has an address for it, else internal). A
    file without it is replaced; a file without the ``external`` context the cluster has an address for is
    replaced too, unless ``internal`` is asked for, which such a file serves as it is (a file holding only the
    context a host uses, as the AWX job's files taken from the merged kubeconfig do)."""
    if existing is None:
        return "no kubeconfig at the destination"
    if not servers(existing) or not servers(existing) <= set(endpoints.values()):
        return "the kubeconfig in place is not this cluster's (its servers are not the cluster's addresses)"
    contexts = _by_name(existing, "contexts")
    if context is not None and context not in contexts:
        return "the kubeconfig in place has no context %s" % context
    if context != "internal" and "external" in endpoints and "external" not in contexts:
        return "the cluster has an external address that the kubeconfig in place has no context for"
    return expiry_reason(existing, now, renew_before_days)


def expiry_reason(existing, now, renew_before_days):
    """Why the kubeconfig in place must be replaced for its credential's expiry, or None to keep it (also the
    UCS federation kubeconfig's rule, huaweicloud.ucs.kubeconfig_renewal_reason)."""
    expires = expiry(existing)
    if expires is None:
        return "the kubeconfig in place has no expiry that can be read (a client certificate, or a token's exp claim)"
    if expires - now <= datetime.timedelta(days=renew_before_days):
        return "the %s expires %s, within %d days" % (credential_kind(existing), expires.isoformat(), renew_before_days)
    return None


def iso(moment):
    return moment.isoformat() if moment else None


def kubeconfig_in_place(dest, force, reason_of):
    """(the kubeconfig at ``dest`` or None, why a new one must be issued or None to keep it): ``force``, a file at
    ``dest`` that is not a kubeconfig that can be read, else ``reason_of(existing, now)`` (None: keep it). What the
    cce_kubeconfig and ucs_federation_kubeconfig modules decide before any call that issues a credential."""
    existing = kc.load_installed(dest)
    if force:
        return existing, "force"
    if existing is None and os.path.exists(dest):
        return existing, "the file at dest is not a kubeconfig that can be read"
    return existing, reason_of(existing, datetime.datetime.now(datetime.timezone.utc))


def write_issued(module, dest, data):
    """Write the newly issued kubeconfig ``data`` at ``dest`` (0600), its credentials first made no_log values of
    ``module``, so that no output shows them."""
    for user in data["users"]:
        module.no_log_values.update(v for v in user["user"].values() if v)
    kc.write_private_file(dest, kc.render(data))


def show_cluster(client, cluster_id):
    with sdk_call("CCE show_cluster", "cce:cluster:get", "cluster %s" % cluster_id):
        return client.show_cluster(ShowClusterRequest(cluster_id=cluster_id))


def issue(client, cluster_id, duration):
    """A new kubeconfig (data) from create_kubernetes_cluster_cert."""
    with sdk_call("CCE create_kubernetes_cluster_cert", "cce:cluster:generateClientCredential",
                  "cluster %s" % cluster_id):
        response = client.create_kubernetes_cluster_cert(
            CreateKubernetesClusterCertRequest(cluster_id=cluster_id, body=CertDuration(duration=duration)))
    data = response_kubeconfig(response)
    if not data["users"] or not data["contexts"]:
        raise HuaweiCloudError("CCE create_kubernetes_cluster_cert answered without users or contexts for cluster %s"
                               % cluster_id)
    return data


def select_current(data, context):
    """``data`` with current-context ``context`` (or external, else internal, when None)."""
    names = [c.get("name") for c in data.get("contexts") or []]
    if context is None:
        context = "external" if "external" in names else ("internal" if "internal" in names else data.get("current-context"))
    if context not in names:
        raise HuaweiCloudError("the kubeconfig CCE issued has no context %s (it has %s)" % (context, ", ".join(names)))
    data = dict(data)
    data["current-context"] = context
    return data
