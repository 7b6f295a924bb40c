# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Running a module's main() as Ansible would, for the module tests on FakeClusters."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args


def run_module(module, capsys, args, check_mode=False, diff=False):
    """``module.main()`` with ``args`` (in check mode, with diff, when asked): its JSON result, with the exit
    code as ``rc``."""
    if check_mode:
        args["_ansible_check_mode"] = True
    if diff:
        args["_ansible_diff"] = True
    with patch_module_args(args):
        with pytest.raises(SystemExit) as exit_info:
            module.main()
    result = json.loads(capsys.readouterr().out)
    result["rc"] = exit_info.value.code
    return result


@contextlib.contextmanager
def umask(mask):
    """The process's umask set to ``mask`` inside the block, and restored after it (a file a module writes
    must be 0600 from its creation, not narrowed afterwards, whatever the umask)."""
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


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
