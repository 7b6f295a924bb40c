# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""resolved(): lazily templated containers become plain dicts and lists."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping

from ansible_collections.multicloud.federation.plugins.plugin_utils.resolved import resolved


class LazyMapping(Mapping):
    """Stands for ansible-core's lazy dict: a Mapping that is not a dict."""

    def __init__(self, data):
        self._data = data

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


def test_nested_mappings_and_sequences_become_plain():
    value = resolved(LazyMapping({"a": (1, LazyMapping({"b": [2]})), "c": "x"}))
    assert value == {"a": [1, {"b": [2]}], "c": "x"}
    assert [item.__class__ for item in (value, value["a"], value["a"][1])] == [dict, list, dict]


def test_scalars_are_unchanged():
    assert [resolved(v) for v in (None, 1, "s", True)] == [None, 1, "s", True]
