# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a cloud-issued kubeconfig in place is kept or replaced, and how a new one is written (the rules the
cce_kubeconfig and ucs_federation_kubeconfig modules share)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import datetime
import json
import os
import stat

from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import cce_kubeconfig as ck
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import file as kc

NOW = datetime.datetime(2026, 12, 5, tzinfo=datetime.timezone.utc)


def jwt(expires):
    claims = base64.urlsafe_b64encode(json.dumps({"exp": int(expires.timestamp())}).encode()).decode().rstrip("=")
    return "e30.%s.sig" % claims


def kubeconfig(token):
    return {"apiVersion": "v1", "kind": "Config", "current-context": "federation",
            "clusters": [{"name": "fleet", "cluster": {"server": "https://198.51.100.7"}}],
            "users": [{"name": "u", "user": {"token": token}}],
            "contexts": [{"name": "federation", "context": {"cluster": "fleet", "user": "u"}}]}


def test_expiry_reason_keeps_a_credential_valid_beyond_the_days_and_names_one_within():
    assert ck.expiry_reason(kubeconfig(jwt(NOW + datetime.timedelta(days=31))), NOW, 30) is None
    reason = ck.expiry_reason(kubeconfig(jwt(NOW + datetime.timedelta(days=30))), NOW, 30)
    assert reason == "the token expires 2027-01-04T00:00:00+00:00, within 30 days"
    assert ck.expiry_reason(kubeconfig("opaque"), NOW, 30).startswith("the kubeconfig in place has no expiry")


def test_kubeconfig_in_place_asks_the_rule_only_for_a_readable_file_without_force(tmp_path):
    dest = str(tmp_path / "fleet.kubeconfig")
    asked = []

    def rule(existing, now):
        asked.append((existing, now.tzinfo))
        return None

    assert ck.kubeconfig_in_place(dest, False, rule) == (None, None) and asked == [(None, datetime.timezone.utc)]
    data = kubeconfig("opaque")
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
    ck.write_issued(module, dest, kubeconfig("secret-token"))
    assert module.no_log_values == {"secret-token"}
    assert kc.load_installed(dest) == kubeconfig("secret-token")
    assert stat.S_IMODE(os.stat(dest).st_mode) == 0o600


def test_iso():
    assert ck.iso(NOW) == "2026-12-05T00:00:00+00:00" and ck.iso(None) is None


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
