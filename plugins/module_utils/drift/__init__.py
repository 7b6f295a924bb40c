# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The drift report: the runbook's steps run in check and diff mode, turned into rows.

- ``report``: rows, masking, the report and its Markdown (the drift_rows, drift_report and drift_markdown filters).
"""
