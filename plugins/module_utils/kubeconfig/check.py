# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubeconfig step's API check: the cluster behind a context answers, and on the federation
host the engine lists every inventory member as ready. Through the access layer, so the same
K8S_AUTH_* policy applies as for every later step."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.plugins.module_utils.access import cluster as cluster_access
from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError, require_members
from ansible_collections.multicloud.federation.plugins.module_utils.engines.detect import federation_engine
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import cluster as kubeconfig_cluster


class CheckFailed(Exception):
    """The input is wrong; the message says what to fix."""


def check_cluster(data, context, server, origin, members, engine, timeout, connect=cluster_access.connect):
    """Check the API behind ``context`` of the kubeconfig ``data`` (paths resolved).

    ``members``: None, or the member names the federation must list as ready. Returns the result
    fields (server_version, and with members: engine, federation_members)."""
    result = {}
    try:
        cluster = connect(data, context, "the API server %s of context %r in %s" % (server, context, origin), timeout)
        result["server_version"] = kubeconfig_cluster.interpret_version(cluster.version())
    except cluster_access.AccessError as error:
        if "K8S_AUTH_" in str(error):
            raise CheckFailed(str(error))
        raise CheckFailed("%s. Check the access mode (cluster_access: internal needs the VPC, external the public "
                          "endpoint), the network path and the credentials" % error)
    except cluster_access.ApiError as error:
        if error.status == 401:
            raise CheckFailed("%s rejects the kubeconfig's credentials (HTTP 401 Unauthorized): its token or client "
                              "certificate is wrong, revoked or expired. Download the kubeconfig again (or renew the "
                              "token) and install it" % cluster.name)
        raise CheckFailed("%s cannot be reached: %s. Check the access mode (cluster_access: internal needs the VPC, "
                          "external the public endpoint), the network path and the credentials"
                          % (cluster.name, str(error).split(": ", 1)[-1]))
    if members is None:
        return result
    try:
        federation = federation_engine(cluster, engine)
        listed = federation.members()
    except EngineError as error:
        raise CheckFailed(str(error))
    except cluster_access.ApiError as error:
        raise CheckFailed("listing the federation's member clusters at %s (context %r) failed: %s" % (server, context, error))
    status = require_members(federation, members, origin=server, error=CheckFailed, members=listed)
    result["engine"] = federation.name
    result["federation_members"] = status["clusters"]
    return result
