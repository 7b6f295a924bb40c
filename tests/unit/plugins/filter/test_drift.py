# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The drift report filters as Jinja sees them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.multicloud.federation.plugins.filter.drift import FilterModule

FILTERS = FilterModule().filters()
DELETE = {"changed": True, "method": "delete", "result": {}, "item": {
    "kind": "ValidatingWebhookConfiguration", "name": "kruise-validating-webhook-configuration"}}


def test_filters_are_registered():
    assert sorted(FILTERS) == ["drift_markdown", "drift_report", "drift_rows"]


def test_rows_report_and_markdown_chain():
    rows = FILTERS["drift_rows"]([{"task": "webhooks"}], "karmada", "federation_webhooks", [{"results": [DELETE]}])
    report = FILTERS["drift_report"](rows, "evaluate")
    assert report["drift"] and report["count"] == 1 and "remediated" not in report
    markdown = FILTERS["drift_markdown"](report, "Drift")
    assert markdown.startswith("# Drift\n")
    assert "| karmada | federation_webhooks | ValidatingWebhookConfiguration kruise-validating-webhook-configuration |" \
        " (object) | `absent` | `present` |" in markdown


def test_a_published_result_carries_each_entrys_result():
    """A role's <role>_results: each entry holds its registered result, and the rows are those of the two lists."""
    published = FILTERS["drift_rows"]([{"task": "webhooks", "result": {"results": [DELETE]}}, {"task": "none"}],
                                      "karmada", "federation_webhooks")
    assert published == FILTERS["drift_rows"]([{"task": "webhooks"}, {"task": "none"}], "karmada",
                                              "federation_webhooks", [{"results": [DELETE]}, {}])
    assert [row["field"] for row in published] == ["(object)"]


def test_bad_input_says_what_is_expected():
    with pytest.raises(AnsibleFilterError, match="list of"):
        FILTERS["drift_rows"]({"task": "x"}, "karmada", "s", [])
    with pytest.raises(AnsibleFilterError, match="1 result"):
        FILTERS["drift_rows"]([{"task": "a"}, {"task": "b"}], "karmada", "s", [{}])
    with pytest.raises(AnsibleFilterError, match="rows"):
        FILTERS["drift_report"]([{"x": 1}])
    with pytest.raises(AnsibleFilterError, match="report"):
        FILTERS["drift_markdown"]([])
