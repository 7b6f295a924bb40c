# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubeconfig files and what the clusters behind them answer (the kubeconfig step).

- ``file``: pure kubeconfig logic: parse, check, select a context, merge, redact, render, write privately;
  ``KubeconfigFile``, the kubeconfig_file module's run.
- ``credentials``: when a kubeconfig user's credential stops working.
- ``cluster``: what a cluster's answers mean (its /version).
- ``check``: the step's API check through the access layer (handed to ``KubeconfigFile``); whether the
  federation lists the members as Ready is judged by ``engines.contract.require_members``.
"""
