# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The access layer: the K8S_AUTH_* policy, one error text, discovery that follows APIs that
appear or disappear, and the one wait loop."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest
from kubernetes.client.rest import ApiException
from kubernetes.dynamic.exceptions import api_exception

from ansible_collections.multicloud.federation.plugins.module_utils.access import cluster as ca
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster, FakeTime
from ansible_collections.multicloud.federation.tests.unit.fakes.dynamic_client import FakeClient, FakeResource


def dynamic_error(status, body, reason="Not Found"):
    error = ApiException(status=status, reason=reason)
    error.body = body
    error.headers = {"Authorization": "Bearer secret-token"}
    return api_exception(error)


OBJECT_NOT_FOUND = json.dumps({"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404,
                               "message": 'deployments.apps "x" not found',
                               "details": {"name": "x", "kind": "deployments"}})


# --- K8S_AUTH_* policy ------------------------------------------------------------------------
def test_environment_without_k8s_auth_is_fine():
    ca.check_environment("/k/a.kubeconfig", "internal", environ={"HOME": "/root"})


@pytest.mark.parametrize("name", ["K8S_AUTH_HOST", "K8S_AUTH_API_KEY", "K8S_AUTH_USERNAME", "K8S_AUTH_CLIENT_CERT",
                                  "K8S_AUTH_KEY_FILE", "K8S_AUTH_IMPERSONATE_USER", "K8S_AUTH_PROXY",
                                  "K8S_AUTH_PROXY_HEADERS_BASIC_AUTH"])
def test_redirecting_variable_is_refused_by_name(name):
    with pytest.raises(ca.AccessError, match=name) as raised:
        ca.check_environment("/k/a.kubeconfig", "internal", environ={name: "x"})
    assert "cluster_kubeconfig" in str(raised.value)


def test_kubeconfig_variable_naming_the_inventory_file_is_fine(tmp_path):
    path = tmp_path / "a.kubeconfig"
    path.write_text("")
    ca.check_environment(str(path), "internal", environ={"K8S_AUTH_KUBECONFIG": str(tmp_path / "." / "a.kubeconfig")})


def test_kubeconfig_variable_naming_another_file_is_refused(tmp_path):
    with pytest.raises(ca.AccessError, match="K8S_AUTH_KUBECONFIG"):
        ca.check_environment(str(tmp_path / "a"), "internal", environ={"K8S_AUTH_KUBECONFIG": str(tmp_path / "b")})


def test_context_variable_must_agree():
    ca.check_environment("/k/a", "internal", environ={"K8S_AUTH_CONTEXT": "internal"})
    with pytest.raises(ca.AccessError, match="K8S_AUTH_CONTEXT"):
        ca.check_environment("/k/a", "internal", environ={"K8S_AUTH_CONTEXT": "external"})


def test_tls_verification_cannot_be_switched_off_by_environment():
    ca.check_environment("/k/a", None, environ={"K8S_AUTH_VALIDATE_CERTS": "true"})
    with pytest.raises(ca.AccessError, match="K8S_AUTH_VERIFY_SSL"):
        ca.check_environment("/k/a", None, environ={"K8S_AUTH_VERIFY_SSL": "no"})


# --- one error text ---------------------------------------------------------------------------
def test_api_error_text_uses_the_status_and_never_the_headers():
    text = ca.api_error_text(dynamic_error(404, OBJECT_NOT_FOUND))
    assert text == 'HTTP 404 NotFound: deployments.apps "x" not found'
    assert "secret-token" not in text


def test_api_error_text_of_a_plain_body_and_of_no_response():
    assert ca.api_error_text(dynamic_error(404, "404 page not found")) == "HTTP 404 Not Found: 404 page not found"

    class Refused(Exception):
        reason = "Connection refused\nmore"
    assert ca.api_error_text(Refused()) == "no response: Connection refused"


# --- discovery that follows the cluster -------------------------------------------------------
def test_listed_objects_carry_their_api_version_and_kind():
    resource = FakeResource([{"items": [{"metadata": {"name": "a"}}]}])
    cluster = ca.Cluster(FakeClient([resource]), "idc1")
    assert cluster.list("apps.kruise.io/v1beta1", "UnitedDeployment") == [
        {"metadata": {"name": "a"}, "apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment"}]


def test_an_api_that_is_not_served_reads_as_absent():
    client = FakeClient([None, None])
    cluster = ca.Cluster(client, "idc1")
    assert cluster.get("apps.kruise.io/v1beta1", "UnitedDeployment", "demo", "default") is None
    assert cluster.list("apps.kruise.io/v1beta1", "UnitedDeployment") == []


def test_an_api_deleted_since_discovery_is_looked_up_again_not_a_traceback():
    # The discovery cache (a file shared by runs) still lists the CRD; the server answers the
    # path itself with "404 page not found". After the refresh the API is gone: absent.
    stale = FakeResource([dynamic_error(404, "404 page not found")])
    client = FakeClient([stale, None])
    cluster = ca.Cluster(client, "karmada")
    assert cluster.list("apps.kruise.io/v1beta1", "UnitedDeployment") == []
    assert client.client.resources.invalidations == 1


def test_an_api_recreated_since_discovery_is_read_after_the_refresh():
    stale = FakeResource([dynamic_error(404, "404 page not found")])
    fresh = FakeResource([{"items": []}])
    client = FakeClient([stale, fresh])
    assert ca.Cluster(client, "karmada").list("apps.kruise.io/v1beta1", "UnitedDeployment") == []
    assert client.client.resources.invalidations == 1 and fresh.responses == []


def test_serves_now_reads_one_object_so_a_stale_cache_does_not_count():
    stale = FakeResource([dynamic_error(404, "404 page not found")])
    client = FakeClient([stale, None])
    assert ca.Cluster(client, "karmada").serves_now("apps.kruise.io/v1beta1", "UnitedDeployment") is False
    assert client.client.resources.invalidations == 1
    served = FakeResource([{"items": []}])
    assert ca.Cluster(FakeClient([served]), "karmada").serves_now("apps.kruise.io/v1beta1", "UnitedDeployment") is True
    assert served.responses == []
    assert ca.Cluster(FakeClient([None]), "karmada").serves_now("apps.kruise.io/v1beta1", "UnitedDeployment") is False


def test_a_missing_object_is_none_and_other_errors_carry_one_text():
    client = FakeClient([FakeResource([dynamic_error(404, OBJECT_NOT_FOUND)])])
    assert ca.Cluster(client, "idc1").get("apps/v1", "Deployment", "x", "default") is None
    forbidden = json.dumps({"kind": "Status", "reason": "Forbidden", "message": "no", "code": 403})
    client = FakeClient([FakeResource([dynamic_error(403, forbidden, "Forbidden")])])
    with pytest.raises(ca.ApiError) as raised:
        ca.Cluster(client, "idc1").get("apps/v1", "Deployment", "x", "default")
    assert str(raised.value) == "idc1: HTTP 403 Forbidden: no"
    assert raised.value.status == 403


def test_writes_to_an_api_that_is_not_served_say_so():
    client = FakeClient([None])
    with pytest.raises(ca.ApiError, match="idc1 does not serve apps.kruise.io/v1beta1 UnitedDeployment"):
        ca.Cluster(client, "idc1").create({"apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment",
                                           "metadata": {"name": "a", "namespace": "default"}})


# --- the one wait loop ------------------------------------------------------------------------
def test_poll_backs_off_and_keeps_the_deadline():
    fake = FakeTime()
    done, value, waited = ca.poll(lambda: (False, fake.now), timeout=20, interval=1, max_interval=4,
                                  clock=fake.clock, sleep=fake.sleep)
    assert not done
    assert fake.pauses[:4] == [1, 1.5, 2.25, 3.375]
    assert max(fake.pauses) <= 4
    assert waited == 20 and fake.now == 20


def test_poll_stops_at_the_first_success():
    fake = FakeTime()
    answers = iter([(False, 1), (False, 2), (True, 3)])
    assert ca.poll(lambda: next(answers), timeout=60, clock=fake.clock, sleep=fake.sleep) == (True, 3, 2.5)


def test_member_entry_needs_name_and_kubeconfig():
    with pytest.raises(ca.AccessError, match="member_clusters filter"):
        ca.connect_member({"name": "idc1"})


# patch_on_fresh_read: a write under the resourceVersion read, read again after 409 Conflict.
CM = ("v1", "ConfigMap")


class OtherWriter(FakeCluster):
    """Another writer changes the ConfigMap between each read and the write, ``times`` times."""

    def __init__(self, times, **kwargs):
        super(OtherWriter, self).__init__(**kwargs)
        self.times, self.patches = times, 0

    def patch(self, api_version, kind, name, patch, namespace=None, patch_type="merge", dry_run=False):
        self.patches += 1
        if self.times:
            self.times -= 1
            obj = self.get(api_version, kind, name, namespace)
            obj["data"]["other"] = str(self.patches)
            self._put(obj)
        return super(OtherWriter, self).patch(api_version, kind, name, patch, namespace, patch_type, dry_run)


def config_map():
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n"}, "data": {"k": "0"}}


def add_one(obj):
    return {"data": {"k": str(int(obj["data"]["k"]) + 1)}}


def test_a_change_made_between_read_and_write_is_kept_and_the_write_decided_again():
    cluster = OtherWriter(1, objects=[config_map()])
    read, written = ca.patch_on_fresh_read(cluster, *CM, "c", add_one, namespace="n")
    assert cluster.patches == 2 and read["data"]["other"] == "1"
    stored = cluster.get(*CM, "c", "n")
    assert stored["data"] == {"k": "1", "other": "1"} and written["data"] == stored["data"]


def test_a_write_that_keeps_conflicting_stops_after_client_gos_five_attempts():
    cluster = OtherWriter(10, objects=[config_map()])
    with pytest.raises(ca.ApiError, match="409") as raised:
        ca.patch_on_fresh_read(cluster, *CM, "c", add_one, namespace="n")
    assert raised.value.status == 409 and cluster.patches == ca.CONFLICT_ATTEMPTS == 5
    assert cluster.get(*CM, "c", "n")["data"]["k"] == "0"


def test_nothing_to_change_or_nothing_there_writes_nothing():
    cluster = OtherWriter(0, objects=[config_map()])
    read, written = ca.patch_on_fresh_read(cluster, *CM, "c", lambda obj: None, namespace="n")
    assert read["data"] == {"k": "0"} and written is None and cluster.patches == 0
    assert ca.patch_on_fresh_read(cluster, *CM, "gone", add_one, namespace="n") == (None, None)


def test_other_api_errors_are_not_tried_again():
    class Refusing(OtherWriter):
        def patch(self, *args, **kwargs):
            self.patches += 1
            raise ca.ApiError("HTTP 422 Invalid", 422, "Invalid")
    cluster = Refusing(0, objects=[config_map()])
    with pytest.raises(ca.ApiError, match="422"):
        ca.patch_on_fresh_read(cluster, *CM, "c", add_one, namespace="n")
    assert cluster.patches == 1
