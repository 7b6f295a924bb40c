# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karmada's OverridePolicy rules as the override_policy module renders them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada import overrides as ko
from ansible_collections.multicloud.federation.plugins.module_utils.federalize import overrides as fo

# The inventory's members: the host b-host is cluster cluster-b in the federation.
MEMBERS = [{"host": "cluster-a", "name": "cluster-a"}, {"host": "b-host", "name": "cluster-b"}]
COLLECTION_RULE = {"target_clusters": ["b-host"], "annotations": {"a/b": "1"}, "remove_annotations": ["old/x"],
                   "labels": {"tier": "web"},
                   "image": [{"component": "Registry", "operator": "replace", "value": "cr.volces.com"}],
                   "json_patch": [{"op": "replace", "path": "/spec/replicas", "value": 2}]}


def test_karmada_overriders():
    rendered = ko.karmada_override_rules(fo.normalize_rules([COLLECTION_RULE], MEMBERS))
    assert rendered == [{"targetCluster": {"clusterNames": ["cluster-b"]}, "overriders": {
        "imageOverrider": [{"component": "Registry", "operator": "replace", "value": "cr.volces.com"}],
        "labelsOverrider": [{"operator": "add", "value": {"tier": "web"}}],
        "annotationsOverrider": [{"operator": "add", "value": {"a/b": "1"}},
                                 {"operator": "remove", "value": {"old/x": ""}}],
        "plaintext": [{"operator": "replace", "path": "/spec/replicas", "value": 2}]}}]
