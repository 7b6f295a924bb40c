# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Running a module's main() as Ansible would, for the module tests on FakeClusters."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.module_utils.testing import patch_module_args


def run_module(module, capsys, args):
    """``module.main()`` with ``args``: its JSON result, with the exit code as ``rc``."""
    with patch_module_args(args):
        with pytest.raises(SystemExit) as exit_info:
            module.main()
    result = json.loads(capsys.readouterr().out)
    result["rc"] = exit_info.value.code
    return result


def connect_to(monkeypatch, module, cluster):
    """Make the module's ``connect_control_plane`` return ``cluster``; the list returned receives the
    name each connection was made as."""
    names = []

    def connect(_module, name):
        names.append(name)
        return cluster
    monkeypatch.setattr(module, "connect_control_plane", connect)
    return names


def record_engine_choice(monkeypatch, module):
    """Wrap the module's ``federation_engine``; the dict returned receives the engine and
    karmada_version it was called with."""
    seen = {}
    real_engine = module.federation_engine

    def federation_engine(cluster, engine, karmada_version):
        seen.update(engine=engine, karmada_version=karmada_version)
        return real_engine(cluster, engine, karmada_version)
    monkeypatch.setattr(module, "federation_engine", federation_engine)
    return seen
