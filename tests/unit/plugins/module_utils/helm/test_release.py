# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Helm release left pending by an interrupted helm process, read from its release Secrets on a
FakeCluster: when it is taken over (its revision's Secret removed, the history left as before the
interrupted operation), when it is refused, and that the stored release (the chart values) never
leaves the module."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import gzip
import json

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.helm import release as helm_release
from ansible_collections.multicloud.federation.plugins.module_utils.helm.release import (
    ReleaseError,
    decode_release,
    desired_chart,
    parse_timestamp,
    recover,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.helm_release_samples import (
    NOW,
    SECRET_VALUE,
    helm_data,
    release_document,
    release_secret,
)


def stored(cluster, name, revision, namespace="default"):
    return cluster.get("v1", "Secret", "sh.helm.release.v1.%s.v%d" % (name, revision), namespace)


def test_no_release_changes_nothing():
    cluster = FakeCluster(objects=[release_secret("other", 1, "pending-install")])
    changed, summary = recover(cluster, "kruise", "default", now=NOW)
    assert changed is False and cluster.writes == []
    assert summary == {"name": "kruise", "namespace": "default", "revision": None, "status_before": None,
                       "status_after": None, "pending_age": None, "up_to_date": None,
                       "crds_recreated": []}


def test_deployed_release_changes_nothing():
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "superseded"), release_secret("kruise", 2, "deployed")])
    changed, summary = recover(cluster, "kruise", "default", now=NOW)
    assert changed is False and cluster.writes == []
    assert (summary["revision"], summary["status_before"], summary["status_after"]) == (2, "deployed", "deployed")


def test_a_failed_release_is_left_to_helm():
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "deployed"), release_secret("kruise", 2, "failed")])
    assert recover(cluster, "kruise", "default", now=NOW)[0] is False and cluster.writes == []


def test_pending_install_older_than_the_grace_is_removed():
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "pending-install", seconds_ago=900)])
    changed, summary = recover(cluster, "kruise", "default", grace=300, now=NOW)
    assert changed is True
    assert summary == {"name": "kruise", "namespace": "default", "revision": 1, "status_before": "pending-install",
                       "status_after": "removed", "pending_age": 900, "up_to_date": None,
                       "crds_recreated": []}
    # No release any more: the next `helm upgrade --install` installs it.
    assert cluster.writes == [("delete", "Secret", "default", "sh.helm.release.v1.kruise.v1", False)]
    assert stored(cluster, "kruise", 1) is None


def test_pending_upgrade_is_removed_and_the_deployed_revision_kept():
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "superseded"), release_secret("kruise", 2, "deployed"),
                                   release_secret("kruise", 3, "pending-upgrade", seconds_ago=301)])
    changed, summary = recover(cluster, "kruise", "default", grace=300, now=NOW)
    assert changed is True and (summary["revision"], summary["status_after"]) == (3, "removed")
    assert [write[:4] for write in cluster.writes] == [("delete", "Secret", "default", "sh.helm.release.v1.kruise.v3")]
    # What Helm reads next (storage.go Last, Deployed): revision 2, deployed, as before the upgrade.
    assert stored(cluster, "kruise", 3) is None
    assert stored(cluster, "kruise", 2)["metadata"]["labels"]["status"] == "deployed"
    assert decode_release(stored(cluster, "kruise", 2))["info"]["status"] == "deployed"
    assert recover(cluster, "kruise", "default", now=NOW)[0] is False


def test_pending_rollback_in_its_namespace():
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "deployed", namespace="kruise-system"),
                                   release_secret("kruise", 2, "pending-rollback", 600, namespace="kruise-system")])
    changed, summary = recover(cluster, "kruise", "kruise-system", now=NOW)
    assert changed is True and summary["status_before"] == "pending-rollback"
    assert stored(cluster, "kruise", 2, "kruise-system") is None
    assert stored(cluster, "kruise", 1, "kruise-system") is not None


def test_the_newest_revision_is_the_highest_number_not_the_last_name():
    cluster = FakeCluster(objects=[release_secret("kruise", 9, "deployed"),
                                   release_secret("kruise", 10, "pending-upgrade", 900)])
    assert recover(cluster, "kruise", "default", now=NOW)[1]["revision"] == 10
    assert stored(cluster, "kruise", 10) is None and stored(cluster, "kruise", 9) is not None


def test_pending_younger_than_the_grace_is_refused_with_what_to_do():
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "deployed"),
                                   release_secret("kruise", 2, "pending-upgrade", seconds_ago=45)])
    with pytest.raises(ReleaseError) as error:
        recover(cluster, "kruise", "default", grace=300, now=NOW)
    message = str(error.value)
    for part in ("Helm release kruise in namespace default", "revision 2 is pending-upgrade for 45 s",
                 "grace period of 300 s", "may still be working on it", "run again in 255 s",
                 "a pending-release grace of 0 (kruise_pending_release_grace,", "to remove revision 2 now",
                 "Never uninstall"):
        assert part in message
    assert cluster.writes == []


def test_a_later_write_of_the_record_counts_as_activity():
    secret = release_secret("kruise", 2, "pending-upgrade", seconds_ago=3600)
    secret["metadata"]["labels"]["modifiedAt"] = str(int(NOW - 10))
    with pytest.raises(ReleaseError, match="pending-upgrade for 10 s"):
        recover(FakeCluster(objects=[secret]), "kruise", "default", now=NOW)


def test_grace_zero_takes_over_at_once_even_without_a_timestamp():
    document = release_document("kruise", 1, "pending-install", 0)
    del document["info"]["last_deployed"]
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "pending-install", data=helm_data(document))])
    with pytest.raises(ReleaseError, match="for an unknown time"):
        recover(cluster, "kruise", "default", grace=300, now=NOW)
    changed, summary = recover(cluster, "kruise", "default", grace=0, now=NOW)
    assert changed is True and summary["pending_age"] is None


def test_check_mode_reports_the_change_and_writes_nothing():
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "pending-install", seconds_ago=900)])
    changed, summary = recover(cluster, "kruise", "default", check_mode=True, now=NOW)
    assert changed is True and summary["status_after"] == "removed"
    assert cluster.writes == []
    assert stored(cluster, "kruise", 1)["metadata"]["labels"]["status"] == "pending-install"


def test_a_helm_process_writing_in_the_meantime_wins(monkeypatch):
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "pending-install", seconds_ago=900)])
    read = cluster.get

    def helm_finishes_first(*args, **kwargs):
        # helm writes the revision after the module listed it, before it reads it again to remove it.
        cluster.store[next(iter(cluster.store))]["metadata"]["labels"]["status"] = "deployed"
        cluster._put(cluster.store[next(iter(cluster.store))])
        return read(*args, **kwargs)
    monkeypatch.setattr(cluster, "get", helm_finishes_first)
    with pytest.raises(ReleaseError, match="changed while it was being removed"):
        recover(cluster, "kruise", "default", now=NOW)
    assert read("v1", "Secret", "sh.helm.release.v1.kruise.v1", "default")["metadata"]["labels"]["status"] == "deployed"
    assert cluster.writes == []


def test_an_uncompressed_release_is_read_as_helm_reads_it():
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "pending-install", 900, compress=False)])
    assert recover(cluster, "kruise", "default", now=NOW)[0] is True
    assert stored(cluster, "kruise", 1) is None


@pytest.mark.parametrize("data, problem", [
    ("%%%not-base64%%%", ": data.release is not base64 as Helm stores it"),
    (base64.b64encode(base64.b64encode(b"\x1f\x8b\x08" + SECRET_VALUE.encode())).decode(),
     ": data.release is not a readable gzip stream"),
    (base64.b64encode(base64.b64encode(gzip.compress(b"\x1f\x8b\x08\x00" * 8, mtime=0)[:12] + b"\xff" * 20)).decode(),
     ": data.release is not a readable gzip stream"),
    (base64.b64encode(base64.b64encode(gzip.compress(SECRET_VALUE.encode(), mtime=0))).decode(),
     ": data.release does not hold a JSON document"),
    (helm_data({"config": {"password": SECRET_VALUE}}), ": data.release is not a Helm release (no info.status)"),
    ("", " has no data.release"),
])
def test_a_malformed_release_is_a_clear_error_without_its_content(data, problem):
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "deployed"),
                                   release_secret("kruise", 2, "pending-upgrade", 900, data=data)])
    with pytest.raises(ReleaseError) as error:
        recover(cluster, "kruise", "default", now=NOW)
    assert str(error.value) == "Secret sh.helm.release.v1.kruise.v2" + problem
    assert SECRET_VALUE not in str(error.value) and cluster.writes == []


def test_a_record_of_another_release_is_refused():
    secret = release_secret("kruise", 2, "pending-upgrade", data=helm_data(release_document("other", 7, "pending-upgrade", 900)))
    with pytest.raises(ReleaseError, match="holds release other revision 7, not kruise revision 2"):
        recover(FakeCluster(objects=[secret]), "kruise", "default", now=NOW)


def test_the_chart_values_are_never_in_the_summary():
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "pending-install", seconds_ago=900)])
    assert SECRET_VALUE not in json.dumps(recover(cluster, "kruise", "default", now=NOW))


@pytest.mark.parametrize("name", ["", "Kruise", "kruise,status=deployed", "a" * 54, "-kruise"])
def test_a_name_that_is_no_helm_release_name_is_refused(name):
    with pytest.raises(ReleaseError, match="is not a Helm release name"):
        recover(FakeCluster(), name, "default", now=NOW)


@pytest.mark.parametrize("text, expected", [
    ("2026-12-03T17:00:00Z", NOW),
    ("2026-12-03T18:00:00.5+01:00", NOW + 0.5),
    ("2026-12-03T12:30:00.123456789-04:30", NOW + 0.123456789),
    ("2026-12-03 17:00:00", None),
    ("", None),
    (None, None),
])
def test_parse_timestamp(text, expected):
    parsed = parse_timestamp(text)
    assert parsed == pytest.approx(expected) if expected is not None else parsed is None


def test_the_default_grace_is_helms_default_timeout():
    assert helm_release.DEFAULT_GRACE == 300


# --- up_to_date: kubernetes.core.helm's default_check, from the release records ------------------------
KRUISE_1_9 = {"name": "kruise", "version": "1.9.0", "app_version": None, "kube_version": None, "values": None,
              "templates": None}
VALUES = {"manager": {"password": SECRET_VALUE}}


def revision(number, status, chart=None, config=None, seconds_ago=3600):
    document = release_document("kruise", number, status, seconds_ago)
    if chart is not None:
        document["chart"] = chart
    if config is not None:
        document["config"] = config
    return release_secret("kruise", number, status, data=helm_data(document))


KRUISE_CHART = object()  # up_to_date's default: KRUISE_1_9 (a dict default would be shared between calls)


def up_to_date(secrets, chart=KRUISE_CHART, values=None, grace=300):
    chart = KRUISE_1_9 if chart is KRUISE_CHART else chart
    cluster = FakeCluster(objects=secrets)
    desired = {"chart": chart, "values": VALUES if values is None else values}
    return recover(cluster, "kruise", "default", grace=grace, now=NOW, desired=desired)[1]["up_to_date"]


def test_a_deployed_release_of_the_same_chart_and_values_is_up_to_date():
    assert up_to_date([revision(1, "superseded"), revision(2, "deployed")]) is True


@pytest.mark.parametrize("secrets,chart,values", [
    ([], KRUISE_1_9, None),  # not installed
    ([revision(1, "deployed")], dict(KRUISE_1_9, version="1.8.3"), None),
    ([revision(1, "deployed")], dict(KRUISE_1_9, name="kruise-fork"), None),
    ([revision(1, "deployed", chart={"metadata": {"name": "kruise", "version": "1.9.0"}, "templates": "x"})],
     dict(KRUISE_1_9, templates={}), None),  # templates not as Helm writes them
    ([revision(1, "deployed")], KRUISE_1_9, {"manager": {"password": "another"}}),
    ([revision(1, "deployed")], KRUISE_1_9, {"manager": {"password": SECRET_VALUE}, "daemon": {}}),
    ([revision(1, "deployed", config={})], KRUISE_1_9, None),
    ([revision(1, "deployed"), revision(2, "failed")], KRUISE_1_9, None),  # helm list --deployed lists nothing
    ([revision(1, "uninstalled")], KRUISE_1_9, None),
    ([revision(1, "deployed")], None, None),  # the chart is not known (a repository chart without a version)
], ids=["not-installed", "other-version", "other-name", "templates-unreadable", "other-value", "one-value-more", "no-values-stored",
        "last-failed", "uninstalled", "chart-unknown"])
def test_anything_else_is_left_to_helm(secrets, chart, values):
    assert up_to_date(secrets, chart, values) is False


def test_app_version_is_compared_when_the_chart_says_it():
    secrets = [revision(1, "deployed", chart={"metadata": {"name": "kruise", "version": "1.9.0", "appVersion": "1.9.0"}})]
    assert up_to_date(secrets, dict(KRUISE_1_9, app_version="1.9.0")) is True
    assert up_to_date(secrets, dict(KRUISE_1_9, app_version="1.9.1")) is False
    # Helm leaves an empty appVersion out of the JSON; Chart.yaml without one reads as "".
    assert up_to_date([revision(1, "deployed")], dict(KRUISE_1_9, app_version="")) is True


def test_after_a_pending_revision_is_removed_the_one_before_it_counts():
    secrets = [revision(1, "deployed"), revision(2, "pending-upgrade", config={"manager": {}}, seconds_ago=900)]
    assert up_to_date(secrets) is True
    assert up_to_date(secrets, values={"manager": {}}) is False


def test_an_unreadable_revision_is_left_to_helm():
    secrets = [release_secret("kruise", 1, "deployed", data="bm90IGhlbG0="), revision(2, "pending-upgrade", seconds_ago=900)]
    assert up_to_date(secrets) is False


def local_chart(tmp_path, values="manager:\n  replicas: 2\n"):
    chart = tmp_path / "kruise"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: kruise\nversion: 1.9.0\nappVersion: '1.9.0'\n")
    (chart / "values.yaml").write_text(values)
    (chart / "templates" / "manager.yaml").write_text("kind: Deployment\n")
    return chart


def stored_chart(template="kind: Deployment\n", replicas=2):
    return {"metadata": {"name": "kruise", "version": "1.9.0", "appVersion": "1.9.0"},
            "values": {"manager": {"replicas": replicas}},
            "templates": [{"name": "templates/manager.yaml", "data": base64.b64encode(template.encode()).decode()}]}


def test_a_local_chart_is_compared_by_its_templates_and_default_values_too(tmp_path):
    chart = desired_chart(str(local_chart(tmp_path)), "1.9.0")
    assert up_to_date([revision(1, "deployed", chart=stored_chart())], chart) is True
    # A chart edited in place under the same version: helm-diff would see it, and so is it seen here.
    assert up_to_date([revision(1, "deployed", chart=stored_chart(template="kind: DaemonSet\n"))], chart) is False
    assert up_to_date([revision(1, "deployed", chart=stored_chart(replicas=3))], chart) is False


def test_a_local_chart_with_another_kube_version_is_left_to_helm(tmp_path):
    # The control plane's chart prepared with kubeVersion kept: Helm checks it on the upgrade and may refuse it.
    chart_dir = local_chart(tmp_path)
    (chart_dir / "Chart.yaml").write_text("apiVersion: v2\nname: kruise\nversion: 1.9.0\nappVersion: '1.9.0'\n"
                                          "kubeVersion: '>= 1.18.0-0'\n")
    chart = desired_chart(str(chart_dir), "1.9.0")
    assert up_to_date([revision(1, "deployed", chart=stored_chart())], chart) is False
    stored = stored_chart()
    stored["metadata"]["kubeVersion"] = ">= 1.18.0-0"
    assert up_to_date([revision(1, "deployed", chart=stored)], chart) is True


def test_a_chart_with_subcharts_or_unreadable_values_is_left_to_helm(tmp_path):
    assert desired_chart(str(local_chart(tmp_path, values="manager: [\n")), "1.9.0") is None
    (tmp_path / "kruise" / "values.yaml").write_text("{}\n")
    (tmp_path / "kruise" / "charts" / "sub").mkdir(parents=True)
    (tmp_path / "kruise" / "charts" / "sub" / "Chart.yaml").write_text("name: sub\nversion: 1.0.0\n")
    assert desired_chart(str(tmp_path / "kruise"), "1.9.0") is None


def test_the_chart_is_read_from_disk_or_named_by_its_reference(tmp_path):
    chart = local_chart(tmp_path)
    assert desired_chart(str(chart), "1.9.0") == {
        "name": "kruise", "version": "1.9.0", "app_version": "1.9.0", "kube_version": "",
        "values": {"manager": {"replicas": 2}},
        "templates": {"templates/manager.yaml": b"kind: Deployment\n"}}
    assert desired_chart("kruise", "1.9.0", "https://openkruise.github.io/charts/") == KRUISE_1_9
    assert desired_chart("openkruise/kruise", "1.9.0") == KRUISE_1_9
    assert desired_chart("oci://registry.example/charts/kruise", "1.9.0") == KRUISE_1_9
    assert desired_chart("kruise", None, "https://openkruise.github.io/charts/") is None


# --- the release's CRDs, restored when no upgrade will run ---------------------------------------------
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "uniteddeployments.apps.kruise.io", "labels": {"app": "kruise"}},
       "spec": {"group": "apps.kruise.io", "names": {"kind": "UnitedDeployment", "plural": "uniteddeployments"}}}
MANIFEST = ("---\n# Source: kruise/templates/crds.yaml\n" + json.dumps(CRD)
            + "\n---\n# Source: kruise/templates/webhook.yaml\napiVersion: admissionregistration.k8s.io/v1\n"
            "kind: ValidatingWebhookConfiguration\nmetadata:\n  name: kruise-validating-webhook-configuration\n")


def with_manifest(number, status, manifest=MANIFEST, seconds_ago=3600, config=None):
    document = release_document("kruise", number, status, seconds_ago)
    document["manifest"] = manifest
    if config is not None:
        document["config"] = config
    return release_secret("kruise", number, status, data=helm_data(document))


def recover_desired(cluster, values=None, check_mode=False):
    desired = {"chart": KRUISE_1_9, "values": VALUES if values is None else values}
    return recover(cluster, "kruise", "default", now=NOW, desired=desired, check_mode=check_mode)


def test_a_deleted_crd_of_an_up_to_date_release_is_created_as_helm_would():
    cluster = FakeCluster(objects=[with_manifest(1, "deployed")])
    changed, summary = recover_desired(cluster)
    assert changed is True and summary["up_to_date"] is True
    assert summary["crds_recreated"] == ["uniteddeployments.apps.kruise.io"]
    created = cluster.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "uniteddeployments.apps.kruise.io")
    assert created["spec"] == CRD["spec"]
    assert created["metadata"]["labels"] == {"app": "kruise", "app.kubernetes.io/managed-by": "Helm"}
    assert created["metadata"]["annotations"] == {"meta.helm.sh/release-name": "kruise",
                                                  "meta.helm.sh/release-namespace": "default"}
    # Only the CRD: the webhook configuration of the manifest is left as it is (deleted on purpose on a control plane).
    assert [write[:2] for write in cluster.writes] == [("create", "CustomResourceDefinition")]
    assert recover_desired(cluster) == (False, dict(summary, crds_recreated=[]))


def test_check_mode_names_the_crd_and_creates_nothing():
    cluster = FakeCluster(objects=[with_manifest(1, "deployed")])
    changed, summary = recover_desired(cluster, check_mode=True)
    assert changed is True and summary["crds_recreated"] == ["uniteddeployments.apps.kruise.io"]
    assert cluster.writes == []


def test_crds_are_left_to_the_upgrade_when_one_will_run():
    cluster = FakeCluster(objects=[with_manifest(1, "deployed")])
    changed, summary = recover_desired(cluster, values={"manager": {}})
    assert (changed, summary["up_to_date"], summary["crds_recreated"]) == (False, False, [])
    assert cluster.writes == []


def test_a_manifest_that_is_not_yaml_restores_nothing():
    cluster = FakeCluster(objects=[with_manifest(1, "deployed", manifest="a: [")])
    assert recover_desired(cluster)[1]["crds_recreated"] == []


# --- locate: the chart's release wherever a runbook reader installed it --------------------------------
def _release_of(chart, name, namespace, revision=1, status="deployed"):
    document = release_document(name, revision, status, 3600, namespace)
    document["chart"]["metadata"]["name"] = chart
    return release_secret(name, revision, status, namespace=namespace, data=helm_data(document))


def test_locate_keeps_the_configured_release_when_it_exists():
    cluster = FakeCluster(objects=[_release_of("kruise", "kruise", "kruise-system"),
                                   _release_of("kruise", "kruise", "default")])
    assert helm_release.locate(cluster, "kruise", "kruise-system", "kruise") == ("kruise", "kruise-system", False)


def test_locate_adopts_the_one_release_of_the_chart_under_another_name_and_namespace():
    cluster = FakeCluster(objects=[_release_of("kruise", "openkruise", "default", 1, "superseded"),
                                   _release_of("kruise", "openkruise", "default", 2),
                                   _release_of("other-chart", "kruise", "tools")])
    assert helm_release.locate(cluster, "kruise", "kruise-system", "kruise") == ("openkruise", "default", True)


def test_locate_without_any_release_of_the_chart_gives_the_configured_place():
    cluster = FakeCluster(objects=[_release_of("other-chart", "x", "default"),
                                   _release_of("kruise", "old", "default", 3, "uninstalled")])
    assert helm_release.locate(cluster, "kruise", "kruise-system", "kruise") == ("kruise", "kruise-system", False)


def test_locate_refuses_two_releases_of_the_chart_naming_both():
    cluster = FakeCluster(objects=[_release_of("kruise", "kruise", "default"), _release_of("kruise", "k2", "tools")])
    with pytest.raises(ReleaseError) as refused:
        helm_release.locate(cluster, "kruise", "kruise-system", "kruise")
    message = str(refused.value)
    assert "kruise in default" in message and "k2 in tools" in message and "nothing was changed" in message
    assert SECRET_VALUE not in message
