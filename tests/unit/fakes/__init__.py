# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fakes that play clusters, controllers and clouds for the unit tests, one module per fake:

- ``cluster``: ``FakeCluster``, an in-memory ``access.cluster.Cluster`` (same methods and return shapes, a log
  of every write), and ``FakeTime``, a clock and a sleep for ``access.cluster.poll``.
- ``dynamic_client``: kubernetes.core's K8SClient as ``Cluster`` drives it (discovery, one answer a call).
- ``federation``: the runbook's Karmada federation (control plane, idc1 and test-ucs) after a correct split,
  and its KubeAdmiral counterpart, for verify and validate.
- ``rebalancer``: Karmada's workloadRebalancer controller and scheduler on a fake clock, over a split left
  stale.
- ``federalize_world``: Karmada's controllers reconciling every policy write into bindings, Works and the
  members' copies, for federalize and federalize_placement.
- ``kubeadmiral_world``: KubeAdmiral's controllers (federate, nsautoprop, scheduler, follower, sync, status)
  for the same scenario on KubeAdmiral.
- ``kubeadmiral_overrides_world``: a KubeAdmiral host with two joined members and the OverridePolicy APIs.
- ``failover_world``: a scripted federation, engine, readiness and clock for failover.runner.
- ``huaweicloud``: a local HTTPS endpoint that plays Huawei Cloud's CCE, UCS and IAM and checks every
  SDK-HMAC-SHA256 signature with its own verifier.
- ``huaweicloud_contract``: that endpoint's fixtures (``cloud``, ``sdk_state``), test key and module options.

Hand-made objects that play nothing (federation_samples, kruise_samples, helm_release_samples) stay beside the
tests in tests/unit/plugins/module_utils/.
"""
