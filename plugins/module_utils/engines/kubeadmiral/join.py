# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Joining a member cluster to KubeAdmiral: the Secret and the FederatedCluster of
kubewharf/kubeadmiral v1.0.0 ``docs/cluster-joining.md``, built from the member's kubeconfig.

- The Secret lives in the host's ``kube-admiral-system`` namespace, its data keys are those of
  ``pkg/controllers/common/constants.go`` (``certificate-authority-data``, ``client-certificate-data``
  and ``client-key-data``, or ``bootstrap-token-data`` for a bearer token); ``pkg/util/cluster/client.go``
  ``PopulateAuthDetailsFromSecret`` reads them and requires the CA unless ``spec.insecure``.
- The FederatedCluster (``pkg/apis/core/v1alpha1/types_federatedcluster.go``) says where the member's
  API is and which Secret to use. ``useServiceAccount: false``: the controller uses the Secret's
  credential as it is. With true it would create a ServiceAccount in the member and wait 30 s for a
  token that only a member kube-controller-manager with the token controller fills in
  (``pkg/controllers/federatedcluster/clusterjoin.go``).

Pure functions; the kubeconfig is read by the caller. Every value returned under ``data`` is a
credential: callers keep it out of their output.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import os

from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral.engine import (
    API_VERSION,
    SYSTEM_NAMESPACE,
)
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import file as kc

CA_KEY = "certificate-authority-data"
CERT_KEY = "client-certificate-data"
KEY_KEY = "client-key-data"
TOKEN_KEY = "bootstrap-token-data"


class JoinError(EngineError):
    """The kubeconfig cannot give KubeAdmiral a credential; the message says what to fix and holds none."""


def _b64(data):
    return base64.b64encode(data).decode("ascii")


def _inline_or_file(values, inline_key, file_key, base_dir, what, origin):
    """The base64 of a kubeconfig field given inline (``<x>-data``, base64 already) or as a file."""
    if values.get(inline_key):
        return "".join(str(values[inline_key]).split())
    if values.get(file_key):
        path = values[file_key]
        path = path if os.path.isabs(path) else os.path.join(base_dir, path)
        try:
            with open(path, "rb") as handle:
                return _b64(handle.read())
        except (IOError, OSError):
            raise JoinError("%s: the %s file %s cannot be read" % (origin, what, path))
    return None


def registration(data, context, base_dir, origin):
    """``{endpoint, insecure, credential_kind, data}`` for the member behind ``context`` of the parsed
    kubeconfig ``data``: where KubeAdmiral reaches it and the Secret data it needs there."""
    try:
        _context, cluster, user = kc.select_context(data, context, origin)
    except kc.KubeconfigError as error:
        raise JoinError(str(error))
    cluster_values, user_values = cluster.get("cluster") or {}, user.get("user") or {}
    insecure = bool(cluster_values.get("insecure-skip-tls-verify"))
    secret = {}
    ca = _inline_or_file(cluster_values, CA_KEY, "certificate-authority", base_dir, "certificate-authority", origin)
    if ca:
        secret[CA_KEY] = ca
    elif not insecure:
        raise JoinError("%s: cluster %r has no certificate-authority(-data): KubeAdmiral needs the member's CA "
                        "(or insecure-skip-tls-verify, which this collection warns about)" % (origin, cluster["name"]))
    cert = _inline_or_file(user_values, CERT_KEY, "client-certificate", base_dir, "client-certificate", origin)
    key = _inline_or_file(user_values, KEY_KEY, "client-key", base_dir, "client-key", origin)
    if cert and key:
        secret[CERT_KEY], secret[KEY_KEY] = cert, key
        kind = "client-certificate"
    else:
        token = user_values.get("token")
        if not token and user_values.get("tokenFile"):
            token_file = _inline_or_file({"t": user_values["tokenFile"]}, None, "t", base_dir, "tokenFile", origin)
            token = base64.b64decode(token_file).decode("utf-8", "replace").strip() if token_file else None
        if not token:
            used = [k for k in ("exec", "auth-provider", "username") if user_values.get(k)]
            raise JoinError(
                "%s: user %r of context %r has no client certificate and key and no token%s: KubeAdmiral keeps one "
                "of those in the member's Secret. Use a kubeconfig whose user has client-certificate-data and "
                "client-key-data, or a token" % (origin, user.get("name"), context,
                                                 " (it uses %s)" % ", ".join(used) if used else ""))
        secret[TOKEN_KEY] = _b64(token.encode("utf-8"))
        kind = "token"
    return {"endpoint": cluster_values["server"], "insecure": insecure, "credential_kind": kind, "data": secret}


def member_secret(name, data):
    """The Secret in the host's fed system namespace that KubeAdmiral reaches member ``name`` with."""
    return {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": name, "namespace": SYSTEM_NAMESPACE}, "data": dict(data)}


def federated_cluster(name, endpoint, insecure):
    """The member's FederatedCluster: its API endpoint, its Secret, the Secret's credential used as is."""
    spec = {"apiEndpoint": endpoint, "secretRef": {"name": name}, "useServiceAccount": False}
    if insecure:
        spec["insecure"] = True
    return {"apiVersion": API_VERSION, "kind": "FederatedCluster", "metadata": {"name": name}, "spec": spec}
