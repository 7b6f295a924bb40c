# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""huaweicloud.cce_kubeconfig without a cloud: the duration CCE accepts, a cluster's endpoints, the external
context added where CCE gave none, and why a kubeconfig in place is replaced or kept, and how a new one is written
(the rules the cce_kubeconfig and ucs_federation_kubeconfig modules share). Its calls: the cce_kubeconfig
module's contract test (tests/unit/plugins/modules/test_cce_kubeconfig.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import datetime
import json
import os
import stat
import types

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import cce_kubeconfig as ck
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import file as kc

INTERNAL, EXTERNAL = "https://192.168.0.10:5443", "https://203.0.113.7:5443"
ENDPOINTS = {"internal": INTERNAL, "external": EXTERNAL}
NOW = datetime.datetime(2026, 12, 5, 12, 0, 0, tzinfo=datetime.timezone.utc)


def token(days):
    """An unsigned JWT whose exp claim is ``days`` after NOW."""
    def part(data):
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
    return "%s.%s.c2ln" % (part({"alg": "none"}), part({"exp": int((NOW + datetime.timedelta(days=days)).timestamp())}))


def kubeconfig(contexts=("internal", "external"), days=365, servers=(INTERNAL, EXTERNAL)):
    clusters = [{"name": "c%d" % i, "cluster": {"server": s, "certificate-authority-data": "Q0E="}}
                for i, s in enumerate(servers)]
    return {"clusters": clusters, "users": [{"name": "user", "user": {"token": token(days)}}],
            "contexts": [{"name": n, "context": {"cluster": clusters[min(i, len(clusters) - 1)]["name"], "user": "user"}}
                         for i, n in enumerate(contexts)],
            "current-context": contexts[-1]}


def test_the_duration_is_one_to_1827_days_or_minus_one():
    assert [ck.duration_error(d) for d in (-1, 1, 1827)] == [None, None, None]
    for duration in (0, -2, 1828):
        assert ck.duration_error(duration).startswith("duration %s is out of range: give 1 to 1827 days" % duration)


def test_the_first_internal_and_external_endpoints_of_the_cluster():
    endpoint = types.SimpleNamespace
    cluster = types.SimpleNamespace(status=types.SimpleNamespace(endpoints=[
        endpoint(type="Internal", url=INTERNAL), endpoint(type="External", url=EXTERNAL),
        endpoint(type="External", url="https://198.51.100.1:5443"), endpoint(type="IPv6", url="https://[fd00::1]:5443")]))
    assert ck.cluster_endpoints(cluster) == ENDPOINTS
    assert ck.cluster_endpoints(types.SimpleNamespace(status=None)) == {}


def test_an_external_context_is_added_with_the_internal_ones_ca_and_user():
    data = ck.with_external_context(kubeconfig(contexts=("internal",), servers=(INTERNAL,)), ENDPOINTS)
    assert [c["name"] for c in data["contexts"]] == ["internal", "external"]
    assert data["contexts"][-1]["context"] == {"cluster": ck.EXTERNAL_TLS_CLUSTER, "user": "user"}
    assert data["clusters"][-1] == {"name": ck.EXTERNAL_TLS_CLUSTER,
                                    "cluster": {"server": EXTERNAL, "certificate-authority-data": "Q0E="}}
    given = kubeconfig()
    assert ck.with_external_context(given, ENDPOINTS) is given
    assert ck.with_external_context(kubeconfig(contexts=("internal",), servers=(INTERNAL,)), {"internal": INTERNAL}) \
        == kubeconfig(contexts=("internal",), servers=(INTERNAL,))


@pytest.mark.parametrize("existing, context, reason", [
    (None, None, "no kubeconfig at the destination"),
    (kubeconfig(servers=("https://10.9.9.9:6443",)), None, "the kubeconfig in place is not this cluster's"),
    (kubeconfig(contexts=("internal",), servers=(INTERNAL,)), None,
     "the cluster has an external address that the kubeconfig in place has no context for"),
    (kubeconfig(contexts=("internal",), servers=(INTERNAL,)), "externalTLSVerify",
     "the kubeconfig in place has no context externalTLSVerify"),
    (kubeconfig(days=20), None, "the token expires 2026-12-25T12:00:00+00:00, within 30 days"),
])
def test_why_a_kubeconfig_in_place_is_replaced(existing, context, reason):
    assert ck.renewal_reason(existing, ENDPOINTS, NOW, 30, context).startswith(reason)


def test_a_valid_kubeconfig_is_kept_and_an_internal_only_one_serves_internal():
    assert ck.renewal_reason(kubeconfig(days=400), ENDPOINTS, NOW, 30) is None
    assert ck.renewal_reason(kubeconfig(contexts=("internal",), servers=(INTERNAL,), days=400), ENDPOINTS, NOW, 30,
                             "internal") is None


# The keep-or-replace rule and the write both modules share.
RULES_NOW = datetime.datetime(2026, 12, 5, tzinfo=datetime.timezone.utc)


def expiring_jwt(expires):
    claims = base64.urlsafe_b64encode(json.dumps({"exp": int(expires.timestamp())}).encode()).decode().rstrip("=")
    return "e30.%s.sig" % claims


def issued_kubeconfig(token):
    return {"apiVersion": "v1", "kind": "Config", "current-context": "federation",
            "clusters": [{"name": "fleet", "cluster": {"server": "https://198.51.100.7"}}],
            "users": [{"name": "u", "user": {"token": token}}],
            "contexts": [{"name": "federation", "context": {"cluster": "fleet", "user": "u"}}]}


def test_expiry_reason_keeps_a_credential_valid_beyond_the_days_and_names_one_within():
    assert ck.expiry_reason(issued_kubeconfig(expiring_jwt(RULES_NOW + datetime.timedelta(days=31))), RULES_NOW, 30) is None
    reason = ck.expiry_reason(issued_kubeconfig(expiring_jwt(RULES_NOW + datetime.timedelta(days=30))), RULES_NOW, 30)
    assert reason == "the token expires 2027-01-04T00:00:00+00:00, within 30 days"
    assert ck.expiry_reason(issued_kubeconfig("opaque"), RULES_NOW, 30).startswith("the kubeconfig in place has no expiry")


def test_kubeconfig_in_place_asks_the_rule_only_for_a_readable_file_without_force(tmp_path):
    dest = str(tmp_path / "fleet.kubeconfig")
    asked = []

    def rule(existing, now):
        asked.append((existing, now.tzinfo))
        return None

    assert ck.kubeconfig_in_place(dest, False, rule) == (None, None) and asked == [(None, datetime.timezone.utc)]
    data = issued_kubeconfig("opaque")
    kc.write_private_file(dest, kc.render(data))
    assert ck.kubeconfig_in_place(dest, True, rule) == (data, "force") and len(asked) == 1
    assert ck.kubeconfig_in_place(dest, False, rule) == (data, None) and asked[-1][0] == data
    with open(dest, "w") as handle:
        handle.write("not: [a kubeconfig")
    assert ck.kubeconfig_in_place(dest, False, rule) == (None, "the file at dest is not a kubeconfig that can be read")
    assert ck.kubeconfig_in_place(dest, True, rule) == (None, "force") and len(asked) == 2


class Module(object):
    def __init__(self):
        self.no_log_values = set()


def test_write_issued_hides_the_credentials_before_it_writes_privately(tmp_path):
    module, dest = Module(), str(tmp_path / "new.kubeconfig")
    ck.write_issued(module, dest, issued_kubeconfig("secret-token"))
    assert module.no_log_values == {"secret-token"}
    assert kc.load_installed(dest) == issued_kubeconfig("secret-token")
    assert stat.S_IMODE(os.stat(dest).st_mode) == 0o600


def test_iso():
    assert ck.iso(RULES_NOW) == "2026-12-05T00:00:00+00:00" and ck.iso(None) is None


class Entry(object):
    def __init__(self, **values):
        self.__dict__.update(values)


def test_response_kubeconfig_names_each_entry_with_kubectl_s_keys_and_leaves_unset_ones_out():
    internal = Entry(server="https://192.168.0.10:5443", certificate_authority_data="Q0E=", insecure_skip_tls_verify=None)
    external = Entry(server="https://203.0.113.10:5443", certificate_authority_data=None, insecure_skip_tls_verify=1)
    response = Entry(
        clusters=[Entry(name="internalCluster", cluster=internal), Entry(name="externalCluster", cluster=external),
                  Entry(name="empty", cluster=None)],
        users=[Entry(name="user", user=Entry(client_certificate_data="Q0VSVA==", client_key_data="S0VZ")),
               Entry(name="nobody", user=None)],
        contexts=[Entry(name="internal", context=Entry(cluster="internalCluster", user="user")),
                  Entry(name="bare", context=None)],
        current_context=None)
    assert ck.response_kubeconfig(response) == {
        "apiVersion": "v1", "kind": "Config", "preferences": {},
        "clusters": [
            {"name": "internalCluster",
             "cluster": {"server": "https://192.168.0.10:5443", "certificate-authority-data": "Q0E="}},
            {"name": "externalCluster",
             "cluster": {"server": "https://203.0.113.10:5443", "insecure-skip-tls-verify": True}},
            {"name": "empty", "cluster": {}}],
        "users": [{"name": "user", "user": {"client-certificate-data": "Q0VSVA==", "client-key-data": "S0VZ"}},
                  {"name": "nobody", "user": {}}],
        "contexts": [{"name": "internal", "context": {"cluster": "internalCluster", "user": "user"}},
                     {"name": "bare", "context": {}}],
        "current-context": ""}
