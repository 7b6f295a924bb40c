# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The playbooks' module_defaults name only this collection's action groups (meta/runtime.yml).

A ``group/<collection>.<group>`` key must resolve when a playbook is parsed: where the collection is imported
(Galaxy, Automation Hub) or syntax-checked without kubernetes.core, ``group/kubernetes.core.k8s`` stops
``ansible-playbook --syntax-check`` ("could not resolve the module_defaults group"), and the import log shows it
as a warning. This collection's groups extend kubernetes.core's (``extend_group``), which is resolved only
where kubernetes.core is installed, so one key reaches the same modules.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
GROUPS = yaml.safe_load((ROOT / "meta" / "runtime.yml").read_text())["action_groups"]
PLAYBOOKS = sorted([ROOT / "site.yml"] + list((ROOT / "playbooks").glob("*.yml")) + list((ROOT / "awx" / "playbooks").glob("*.yml")))


def module_defaults_keys(node):
    """Every key of every module_defaults (play, block or task level) below ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "module_defaults" and isinstance(value, dict):
                yield from value
            yield from module_defaults_keys(value)
    elif isinstance(node, list):
        for item in node:
            yield from module_defaults_keys(item)


@pytest.mark.parametrize("playbook", PLAYBOOKS, ids=lambda path: str(path.relative_to(ROOT)))
def test_module_defaults_groups_are_this_collections(playbook):
    for key in module_defaults_keys(yaml.safe_load(playbook.read_text())):
        if not key.startswith("group/"):
            continue
        collection, action_group = key[len("group/"):].rpartition(".")[::2]
        assert collection == "multicloud.federation", "%s: %s is another collection's group" % (playbook.name, key)
        assert action_group in GROUPS, "%s: %s is not in meta/runtime.yml's action_groups" % (playbook.name, key)


@pytest.mark.parametrize("action_group", ["k8s", "helm"])
def test_each_group_extends_kubernetes_cores_group_of_the_same_name(action_group):
    assert GROUPS[action_group][0] == {"metadata": {"extend_group": ["kubernetes.core.%s" % action_group]}}
