# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A module for the in-process runner's tests: echoes its arguments, warns, fails on request."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(
        argument_spec=dict(
            name=dict(type="str", required=True),
            count=dict(type="int", default=1),
            token=dict(type="str", no_log=True),
            fail=dict(type="bool", default=False),
            chdir=dict(type="path"),
        ),
        supports_check_mode=True,
    )
    module.warn("warned about %s" % module.params["name"])
    if module.params["chdir"]:
        os.chdir(module.params["chdir"])
    with open(os.path.join(module.tmpdir, "scratch"), "w") as scratch:
        scratch.write("x")
    if module.params["fail"]:
        module.fail_json(msg="failed for %s" % module.params["name"], token=module.params["token"])
    module.exit_json(changed=not module.check_mode, name=module.params["name"], count=module.params["count"],
                     token=module.params["token"], tmpdir=module.tmpdir)


if __name__ == "__main__":
    main()
