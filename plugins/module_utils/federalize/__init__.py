# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The second runbook, resource federalization: adopt, override, move and spread an application.

- ``objects``: pure rules on single objects (the template made from a member's object, its
  dependencies, the round-trip and snapshot comparisons).
- ``adoption``: the federalize module's steps (``Federalizer``).
- ``placement``: the federalize_placement module's steps (``PlacementChange``).
- ``overrides``: per-cluster overrides, the override_policy module's rule sets (``RuleSet``, ``OverrideRun``).
"""
