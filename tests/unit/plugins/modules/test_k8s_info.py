# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""multicloud.federation.k8s_info documents kubernetes.core.k8s_info, whose code runs: its options listed, from the
same documentation fragments or named in the notes, with kubernetes.core's type, default and choices."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.multicloud.federation.tests.unit.plugins.modules.docs_only import (
    differences,
    fragments,
    undocumented,
)

# kubernetes.core.k8s_info's metadata_only (since kubernetes.core 3.0.0) is accepted and passed on, but the module's
# notes do not name it yet: when they do, this set empties and the test says so.
NOT_NAMED_YET = {"metadata_only"}


def test_every_option_is_documented():
    assert undocumented("k8s_info") == NOT_NAMED_YET


def test_the_documented_options_are_kubernetes_cores():
    assert differences("k8s_info") == []


def test_the_same_documentation_fragments_as_kubernetes_core_k8s_info():
    ours, theirs = fragments("k8s_info")
    assert ours == theirs
