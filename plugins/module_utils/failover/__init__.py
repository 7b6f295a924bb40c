# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Disaster recovery: a member cloud lost, its share run by the others, and back when it returns.

- ``decision``: pure rules - which member is lost, evacuated, back; what may be evacuated; the drill's
  refusals (no cluster needed, unit-tested).
- ``runner``: the playbook's one pass - read the members through the engine contract, act, wait and
  measure what the members themselves run.
"""
