# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""multicloud.federation.k8s documents what kubernetes.core's action plugin, which runs before it, accepts for
a task of that name."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import types

import pytest
import yaml

from ansible.errors import AnsibleActionFail
from ansible_collections.multicloud.federation.plugins.action.k8s import ActionModule
from ansible_collections.multicloud.federation.plugins.modules import k8s as k8s_docs


def test_template_is_not_documented_since_kubernetes_core_refuses_it_for_this_action():
    action = ActionModule.__new__(ActionModule)
    action._task = types.SimpleNamespace(action="multicloud.federation.k8s")
    with pytest.raises(AnsibleActionFail, match="'template' is only a supported parameter for the 'k8s' module"):
        action.load_template("app.yml.j2", {}, {})
    documentation = yaml.safe_load(k8s_docs.DOCUMENTATION)
    assert "template" not in documentation["options"]
    assert not [line for line in documentation["description"] if "O(template)" in line]
