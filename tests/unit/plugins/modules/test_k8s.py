# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""multicloud.federation.k8s documents kubernetes.core.k8s, whose code runs: every option it has is listed, comes
from the same documentation fragments or is named in the notes, with kubernetes.core's type, default and choices;
``template`` is the one it leaves out (kubernetes.core's action plugin refuses it for this action name:
tests/unit/plugins/action/test_k8s.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.tests.unit.plugins.modules.docs_only import (
    differences,
    fragments,
    undocumented,
)


def test_every_option_but_template_is_documented():
    assert undocumented("k8s") == {"template"}


def test_the_documented_options_are_kubernetes_cores():
    assert differences("k8s") == []


def test_the_same_documentation_fragments_as_kubernetes_core_k8s():
    ours, theirs = fragments("k8s")
    assert ours == theirs
