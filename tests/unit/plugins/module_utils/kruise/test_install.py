# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kruise readiness rules, reading them from a cluster (FakeCluster) and waiting."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import ApiError, poll
from ansible_collections.multicloud.federation.plugins.module_utils.kruise import install as kruise_install
from ansible_collections.multicloud.federation.plugins.module_utils.kruise.install import (
    crd_summary,
    custom_resource_summary,
    is_kruise_crd,
    is_per_node_state,
    list_custom_resources,
    read_state,
    readiness_problems,
    united_deployment_probe,
    wait_until_ready,
    webhook_summary,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeTime
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.kruise_samples import (
    MUTATING,
    UD_API,
    configuration,
    crd,
    kruise_member,
)

ALL = ["crds", "webhooks", "dry_run"]


def ready_state():
    crds = [crd_summary(crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments")),
            crd_summary(crd("policy.kruise.io", "PodUnavailableBudget", "podunavailablebudgets"))]
    hooks = [webhook_summary("MutatingWebhookConfiguration", "m", configuration("Y2E=")),
             webhook_summary("ValidatingWebhookConfiguration", "v", configuration("Y2E=", "Y2E="))]
    return crds, hooks


def test_crd_summary_uses_the_storage_version():
    summary = crd_summary(crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments"))
    assert summary == {"name": "uniteddeployments.apps.kruise.io", "group": "apps.kruise.io",
                       "kind": "UnitedDeployment", "plural": "uniteddeployments", "namespaced": True,
                       "version": "v1alpha1", "established": True}


def test_only_kruise_groups_count():
    assert is_kruise_crd(crd("apps.kruise.io", "CloneSet", "clonesets"))
    assert is_kruise_crd(crd("policy.kruise.io", "PodUnavailableBudget", "podunavailablebudgets"))
    assert not is_kruise_crd(crd("work.karmada.io", "Work", "works"))


def test_ready():
    crds, hooks = ready_state()
    assert readiness_problems(crds, hooks, {"ok": True, "message": ""}, ALL) == []


def test_a_running_pod_is_not_enough_every_gap_is_named():
    crds, hooks = ready_state()
    crds[1]["established"] = False
    hooks[1] = webhook_summary("ValidatingWebhookConfiguration", "v", configuration("Y2E=", ""))
    problems = readiness_problems(crds, hooks, {"ok": False, "message": "HTTP 500: no endpoints"}, ALL)
    assert problems == [
        "CRD podunavailablebudgets.policy.kruise.io is not Established",
        "ValidatingWebhookConfiguration v: no caBundle yet in w1.kb.io",
        "server-side dry-run create of a UnitedDeployment failed: HTTP 500: no endpoints",
    ]


def test_missing_pieces():
    problems = readiness_problems([], [webhook_summary("MutatingWebhookConfiguration", "m", None)], None, ALL)
    assert problems == [
        "no CustomResourceDefinition of a *.kruise.io group exists",
        "CRD uniteddeployments.apps.kruise.io does not exist",
        "MutatingWebhookConfiguration m does not exist",
    ]


def test_control_plane_checks_only_crds():
    crds = ready_state()[0]
    absent = [webhook_summary("MutatingWebhookConfiguration", "m", None)]
    assert readiness_problems(crds, absent, None, ["crds"]) == []


def test_probe_is_a_valid_looking_united_deployment():
    probe = united_deployment_probe("default")
    assert probe["kind"] == "UnitedDeployment" and probe["metadata"]["namespace"] == "default"
    template = probe["spec"]["template"]["cloneSetTemplate"]
    assert probe["spec"]["selector"]["matchLabels"] == template["metadata"]["labels"]
    assert template["spec"]["template"]["metadata"]["labels"] == template["metadata"]["labels"]
    assert probe["spec"]["updateStrategy"]["type"] == "Manual"


def test_custom_resource_summary():
    ud = crd_summary(crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments"))
    item = {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment",
            "metadata": {"name": "demo", "namespace": "shop"}}
    assert custom_resource_summary(ud, item) == {
        "apiVersion": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment", "name": "demo",
        "namespace": "shop", "ref": "UnitedDeployment shop/demo"}
    cluster_scoped = custom_resource_summary(ud, {"metadata": {"name": "x"}})
    assert cluster_scoped["ref"] == "UnitedDeployment x" and "namespace" not in cluster_scoped


def test_per_node_state_is_only_what_kruise_manager_creates_per_node():
    assert is_per_node_state(crd_summary(crd("apps.kruise.io", "NodeImage", "nodeimages", scope="Cluster")))
    assert is_per_node_state(crd_summary(crd("apps.kruise.io", "NodePodProbe", "nodepodprobes", scope="Cluster")))
    assert not is_per_node_state(crd_summary(crd("apps.kruise.io", "ImagePullJob", "imagepulljobs")))
    assert not is_per_node_state(crd_summary(crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments")))
    assert not is_per_node_state(crd_summary(crd("example.kruise.io", "NodeImage", "nodeimages")))


# --- one cluster's state, through the access layer --------------------------------------------

class RefusingWebhooks(FakeCluster):
    """A cluster whose admission webhooks cannot be called yet."""

    def create(self, body, dry_run=False):
        raise ApiError("%s: HTTP 500 InternalError: failed calling webhook \"vuniteddeployment.kb.io\"" % self.name, 500)


def test_read_state_of_a_ready_member_dry_runs_a_united_deployment():
    cluster = kruise_member()
    state = read_state(cluster, ALL, "default")
    assert state["problems"] == [] and state["dry_run"] == {"ok": True, "message": ""}
    assert [c["name"] for c in state["crds"]] == ["clonesets.apps.kruise.io", "nodeimages.apps.kruise.io",
                                                  "uniteddeployments.apps.kruise.io"]
    assert [(w["kind"], w["exists"], w["webhooks"]) for w in state["webhooks"]] == [
        ("MutatingWebhookConfiguration", True, 1), ("ValidatingWebhookConfiguration", True, 2)]
    # Sent with dryRun=All, so nothing is stored.
    assert cluster.writes == [("create", "UnitedDeployment", "default", "multicloud-federation-readiness-probe", True)]
    assert cluster.get(UD_API[0], UD_API[1], "multicloud-federation-readiness-probe", "default") is None


def test_a_refused_dry_run_is_a_problem_with_the_api_message():
    cluster = RefusingWebhooks("context idc1", objects=[crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments")])
    state = read_state(cluster, ["crds", "dry_run"], "default")
    assert state["dry_run"]["ok"] is False
    assert state["problems"] == ["server-side dry-run create of a UnitedDeployment failed: context idc1: HTTP 500 "
                                 "InternalError: failed calling webhook \"vuniteddeployment.kb.io\""]


def test_no_dry_run_before_the_united_deployment_crd_is_established():
    cluster = FakeCluster(objects=[crd("apps.kruise.io", "UnitedDeployment", "uniteddeployments", established=False)])
    state = read_state(cluster, ALL, "default")
    assert state["dry_run"] is None and cluster.writes == []
    assert "CRD uniteddeployments.apps.kruise.io is not Established" in state["problems"]


def test_wait_until_ready_looks_again_until_the_ca_bundles_are_there(monkeypatch):
    cluster = kruise_member()
    cluster.store[("admissionregistration.k8s.io/v1", MUTATING[0], None, MUTATING[1])]["webhooks"][0]["clientConfig"] = {}
    fake = FakeTime()

    def sleep(seconds):
        fake.sleep(seconds)
        if len(fake.pauses) == 2:  # kruise-manager writes its caBundle
            cluster.patch("admissionregistration.k8s.io/v1", MUTATING[0], MUTATING[1],
                          {"webhooks": [{"name": "w0.kb.io", "clientConfig": {"caBundle": "Y2E="}}]})
    monkeypatch.setattr(kruise_install, "poll", functools.partial(poll, clock=fake.clock, sleep=sleep))
    state, _waited = wait_until_ready(cluster, ALL, "default", 300, 3)
    assert state["problems"] == [] and fake.pauses == [3, 4.5]


def test_without_wait_one_look_reports_the_problems():
    cluster = FakeCluster()
    state, waited = wait_until_ready(cluster, ALL, "default", 0, 3)
    assert waited == 0.0 and "no CustomResourceDefinition of a *.kruise.io group exists" in state["problems"]


def test_custom_resources_of_every_kruise_crd_but_per_node_state():
    ud = {"apiVersion": UD_API[0], "kind": UD_API[1], "metadata": {"name": "demo", "namespace": "shop"}}
    image = {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "NodeImage", "metadata": {"name": "node-1"}}
    cluster = kruise_member(ud, image)
    crds = read_state(cluster, ["crds"], "default")["crds"]
    assert list_custom_resources(cluster, crds) == [{"apiVersion": UD_API[0], "kind": UD_API[1], "name": "demo",
                                                     "namespace": "shop", "ref": "UnitedDeployment shop/demo"}]


def test_an_established_crd_the_server_does_not_serve_is_an_error_not_an_empty_list():
    cluster = kruise_member(served=[UD_API])
    crds = read_state(cluster, ["crds"], "default")["crds"]
    with pytest.raises(ApiError, match="CRD clonesets.apps.kruise.io is Established, but the API server does not serve"):
        list_custom_resources(cluster, crds)
