# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The federation engines behind one contract: what the runbooks' steps ask, and how each engine does it.

- ``contract``: ``FederationEngine`` (the runbooks' questions and changes, in their own terms), the
  engine names and module option, and the helpers every engine shares.
- ``detect``: which engine a control plane runs (the ``engine`` option, or API discovery), and its
  ``FederationEngine``: ``federation_engine(control_plane, engine)``.
- ``karmada``: Karmada.
- ``kubeadmiral``: KubeAdmiral (the engine of Volcengine DCP).

Code outside this package reaches an engine through ``contract`` and ``detect``, or through an engine
package's public surface (the names its ``__init__.py`` lists in ``__all__``), never through a module of an
engine package (tests/unit/test_structure.py). Engine errors reach modules as ``contract.EngineError``.

Importing this package imports neither engine: filters import pure parts of an engine package
(Karmada's division, for one) and must not load the Kubernetes client. The engines import
``contract``, ``detect`` imports the engines, and ``contract`` imports neither.
"""
