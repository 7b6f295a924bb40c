# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the engine contract keeps for every engine: the supported member versions, waiting until the
members serve a kind."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines import contract as fe
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig.cluster import interpret_version


# --- supported member versions ----------------------------------------------------------------

@pytest.mark.parametrize("git_version", ["v1.16.0", "v1.20.15", "v1.24.17"])
def test_kubeadmiral_members_inside_its_range_get_no_warning(git_version):
    assert fe.member_version_warning("kubeadmiral", "cluster-a", interpret_version({"gitVersion": git_version})) is None


@pytest.mark.parametrize("git_version", ["v1.15.12", "v1.25.0", "v1.32.9"])
def test_kubeadmiral_members_outside_its_range_are_named_with_their_version(git_version):
    warning = fe.member_version_warning("kubeadmiral", "cluster-a", interpret_version({"gitVersion": git_version}))
    assert "member cluster cluster-a runs Kubernetes %s" % git_version in warning
    assert "KubeAdmiral documents for its members (1.16 to 1.24)" in warning


def test_no_warning_without_a_range_or_a_usable_version():
    assert fe.member_version_warning("karmada", "idc1", interpret_version({"gitVersion": "v1.10.0"})) is None
    assert fe.member_version_warning("kubeadmiral", "x", interpret_version({"gitVersion": ""})) is None


class StatusChanging(object):
    """An engine whose record of the members' APIs fills in one look at a time."""

    display_name = "Karmada"

    def __init__(self, looks):
        self.looks = list(looks)
        self.seen = 0

    def members_serving(self, api_version, kind):
        self.seen += 1
        return self.looks.pop(0) if len(self.looks) > 1 else self.looks[0]


def no_sleep_poll(monkeypatch):
    from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import poll
    from ..fake_cluster import FakeTime
    fake = FakeTime()

    def fake_poll(probe, timeout, interval):
        return poll(probe, timeout, interval, clock=fake.clock, sleep=fake.sleep)
    monkeypatch.setattr(fe, "poll", fake_poll)
    return fake


def test_waits_until_every_named_member_serves_the_kind(monkeypatch):
    no_sleep_poll(monkeypatch)
    engine = StatusChanging([{"idc1": False, "test-ucs": True, "other": False},
                             {"idc1": True, "test-ucs": True, "other": False}])
    waited = fe.wait_for_members_serving(engine, "apps.kruise.io/v1beta1", "UnitedDeployment", ["test-ucs", "idc1"], 60)
    # "other" is not asked for: an application that does not use a member does not wait for it.
    assert engine.seen == 2 and waited == {"waited": 1.0}


def test_a_member_that_never_serves_the_kind_is_named_after_the_timeout(monkeypatch):
    no_sleep_poll(monkeypatch)
    engine = StatusChanging([{"idc1": False, "test-ucs": True}])
    with pytest.raises(fe.EngineError) as raised:
        fe.wait_for_members_serving(engine, "apps.kruise.io/v1beta1", "UnitedDeployment", ["idc1", "test-ucs"], 30)
    message = str(raised.value)
    assert "apps.kruise.io/v1beta1 UnitedDeployment served in idc1 after 30.0 s" in message
    assert "test-ucs" not in message and "kruise step" in message


def test_a_member_the_federation_does_not_have_fails_at_once(monkeypatch):
    fake = no_sleep_poll(monkeypatch)
    with pytest.raises(fe.EngineError) as raised:
        fe.wait_for_members_serving(StatusChanging([{"idc1": True}]), "v1", "ConfigMap", ["idc1", "idc9"], 30)
    assert "no member cluster named idc9" in str(raised.value) and fake.pauses == []
