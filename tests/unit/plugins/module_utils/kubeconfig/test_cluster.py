# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading /version."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import cluster as cc


@pytest.mark.parametrize("info, expected", [
    ({"gitVersion": "v1.32.9", "major": "1", "minor": "32"}, {"git_version": "v1.32.9", "major": 1, "minor": 32, "usable": True}),
    ({"gitVersion": "v1.28.3-r0-28.0.8"}, {"git_version": "v1.28.3-r0-28.0.8", "major": 1, "minor": 28, "usable": True}),
    # UCS federation endpoint (and the local stack's `federation` context): not an error.
    ({"gitVersion": ""}, {"git_version": "", "major": None, "minor": None, "usable": False}),
    ({}, {"git_version": "", "major": None, "minor": None, "usable": False}),
    ("not json", {"git_version": "", "major": None, "minor": None, "usable": False}),
    ({"gitVersion": "v0.0.0-master+$Format:%H$"}, {"git_version": "v0.0.0-master+$Format:%H$", "major": 0, "minor": 0, "usable": True}),
    ({"gitVersion": "1.32.9"}, {"git_version": "1.32.9", "major": None, "minor": None, "usable": False}),
])
def test_interpret_version(info, expected):
    assert cc.interpret_version(info) == expected
