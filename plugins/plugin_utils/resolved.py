# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Plain data from the lazily templated values ansible-core (2.19+) hands to filters."""

from __future__ import annotations

from collections.abc import Mapping


def resolved(value):
    """The value with every dict and list rebuilt as a plain one, each item templated once.

    Why: a dict or list a filter receives is a lazy container whose copy.deepcopy also copies its
    templating context; the module_utils the filters call deep-copy their input (they must not
    change it), and on the inventory's applications that copy took 1.2 s of CPU per task.
    Iterating the container templates each item, the way any other read would.
    """
    if isinstance(value, Mapping):
        return {key: resolved(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [resolved(item) for item in value]
    return value
