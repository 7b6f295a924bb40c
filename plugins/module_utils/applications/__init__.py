# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The first runbook's applications: OpenKruise UnitedDeployments divided across the members.

- ``united_deployment``: a UnitedDeployment validated as Kruise's webhook would, plus the federation's
  guards (the united_deployment_validate module, the united_deployment_* filters).
- ``united_deployment_application``: an inventory entry per application, normalized, validated and
  rendered (the united_deployment_applications and united_deployment_application_objects filters).
- ``verify``: what the engine and Kruise did, compared with what they should have done (the
  federation_verify module).
- ``rebalance``: a workload whose split no longer follows its static weights scheduled again (the
  workload_rebalance module).
"""
