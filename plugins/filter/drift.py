# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the drift report (documented in drift_rows.yml, drift_report.yml and drift_markdown.yml beside
this file); the rules are in module_utils/drift/report.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.multicloud.federation.plugins.module_utils.drift.report import (
    build_report,
    render_markdown,
    step_rows,
)


def drift_rows(entries, cluster, step, results=None):
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise AnsibleFilterError("drift_rows expects a list of {task, object, masked} entries, got %s"
                                 % type(entries).__name__)
    if results is None:
        # A role's published result (<role>_results): each entry carries its own.
        results = [entry.get("result") or {} for entry in entries]
    if not isinstance(results, list):
        raise AnsibleFilterError("drift_rows: results must be the list of registered results, got %s"
                                 % type(results).__name__)
    try:
        return step_rows(str(cluster), str(step), entries, results)
    except ValueError as error:
        raise AnsibleFilterError("drift_rows: %s" % error)


def drift_report(rows, phase="evaluate", remediated=None):
    if not isinstance(rows, list) or not all(isinstance(row, dict) and "field" in row for row in rows):
        raise AnsibleFilterError("drift_report expects the list of rows drift_rows returns")
    return build_report(rows, str(phase), remediated)


def drift_markdown(report, title="Federation drift"):
    if not isinstance(report, dict) or "rows" not in report:
        raise AnsibleFilterError("drift_markdown expects the report drift_report returns")
    return render_markdown(report, str(title))


class FilterModule(object):
    def filters(self):
        return {"drift_rows": drift_rows, "drift_report": drift_report, "drift_markdown": drift_markdown}
