# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Choosing the federation engine per control plane."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines import detect as fe
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.engine import KarmadaEngine
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral.engine import KubeAdmiralEngine

from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster

KARMADA_API = ("cluster.karmada.io/v1alpha1", "Cluster")
KUBEADMIRAL_API = ("core.kubeadmiral.io/v1alpha1", "FederatedCluster")


def test_auto_detects_karmada_from_discovery():
    engine = fe.federation_engine(FakeCluster("ucs", served=[KARMADA_API]), "auto", karmada_version="v1.18.2")
    assert isinstance(engine, KarmadaEngine) and engine.name == "karmada"
    assert engine.karmada_version == "v1.18.2"


def test_auto_detects_kubeadmiral_from_discovery():
    engine = fe.federation_engine(FakeCluster("dcp", served=[KUBEADMIRAL_API]))
    assert isinstance(engine, KubeAdmiralEngine) and engine.name == "kubeadmiral"
    assert engine.display_name == "KubeAdmiral"


def test_neither_engine_is_a_clear_error():
    with pytest.raises(fe.EngineError) as raised:
        fe.federation_engine(FakeCluster("idc1"))
    message = str(raised.value)
    assert "idc1 serves neither" in message and "cluster.karmada.io/v1alpha1" in message
    assert "core.kubeadmiral.io/v1alpha1" in message and "federation_engine" in message


def test_both_engines_need_a_choice():
    with pytest.raises(fe.EngineError, match="set federation_engine"):
        fe.detect_engine(FakeCluster("x", served=[KARMADA_API, KUBEADMIRAL_API]))


def test_an_engine_that_the_control_plane_does_not_run_is_refused():
    with pytest.raises(fe.EngineError, match="federation_engine is kubeadmiral, but ucs does not serve"):
        fe.federation_engine(FakeCluster("ucs", served=[KARMADA_API]), "kubeadmiral")


def test_an_explicit_engine_skips_detection():
    cluster = FakeCluster("x", served=[KARMADA_API, KUBEADMIRAL_API])
    assert fe.federation_engine(cluster, "karmada").name == "karmada"
