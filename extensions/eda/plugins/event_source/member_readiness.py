# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""multicloud.federation.member_readiness: Event-Driven Ansible source that watches the federation's members.

It reads, every ``interval`` seconds, the control plane's own record of its members (Karmada ``Cluster``,
KubeAdmiral ``FederatedCluster``: Ready and when it last changed, and the collection's evacuation taint)
and puts an event on the queue when a member is due for failover.yml: lost for longer than
``grace_seconds`` and not evacuated (``action: evacuate``), or evacuated and Ready for ``restore_seconds``
(``action: failback``). While a member stays due the event is repeated every ``repeat_seconds``, so a
failed run is tried again. The judgement is failover.yml's own (plugins/module_utils/failover/decision.py):
the rulebook only decides when to run it. When the control plane cannot be read, nothing is sent.

Arguments:
  kubeconfig      path of the kubeconfig of the federation control plane (required)
  context         its context (default the file's current context)
  engine          karmada, kubeadmiral or auto (default auto)
  members         the inventory's member names as the federation knows them (default every member it lists)
  grace_seconds   as failover.yml's failover_grace_seconds (default 300)
  restore_seconds as failover.yml's failover_restore_seconds (default 300)
  interval        seconds between reads (default 10)
  repeat_seconds  seconds before a due member's event is sent again (default 60)

Event: {"failover": {"action": "evacuate" | "failback", "member": name, "members": [states]}}

Example rulebook: extensions/eda/rulebooks/failover.yml.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import asyncio
import logging
import os
import sys
import time

LOG = logging.getLogger("multicloud.federation.member_readiness")


def _import_collection():
    """ansible-rulebook runs this file by path: make the collection it lies in importable."""
    try:
        import ansible_collections.multicloud.federation  # noqa: F401 pylint: disable=unused-import
    except ImportError:
        # <root>/ansible_collections/multicloud/federation/extensions/eda/plugins/event_source/<this file>
        root = os.path.abspath(__file__)
        for _level in range(8):
            root = os.path.dirname(root)
        sys.path.insert(0, root)


def read_states(args):
    """(members' states, plan) through the collection's access layer and engine contract."""
    _import_collection()
    from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import connect
    from ansible_collections.multicloud.federation.plugins.module_utils.failover import decision
    from ansible_collections.multicloud.federation.plugins.module_utils.engines.detect import federation_engine

    engine = federation_engine(connect(args["kubeconfig"], args.get("context"), "the federation control plane"),
                               args.get("engine") or "auto")
    health = engine.member_health()
    names = args.get("members") or [row["name"] for row in health]
    states = decision.member_states(health, names, time.time())
    return states, decision.plan(states, int(args.get("grace_seconds", 300)), int(args.get("restore_seconds", 300)))


def due_events(states, plan):
    return [{"failover": {"action": action, "member": member, "members": states}}
            for action, key in (("evacuate", "evacuate"), ("failback", "failback")) for member in plan[key]]


async def main(queue, args):
    interval = float(args.get("interval", 10))
    repeat = float(args.get("repeat_seconds", 60))
    sent = {}
    while True:
        try:
            states, plan = await asyncio.to_thread(read_states, args)
        except Exception as error:  # pylint: disable=broad-except
            # Never act on what the controller cannot see: a control plane that cannot be read sends nothing.
            LOG.warning("the federation's members cannot be read, nothing sent: %s", str(error).splitlines()[0][:300])
        else:
            now = time.monotonic()
            due = dict(((e["failover"]["action"], e["failover"]["member"]), e) for e in due_events(states, plan))
            for key in list(sent):
                if key not in due:
                    del sent[key]
            for key, event in due.items():
                if key not in sent or now - sent[key] >= repeat:
                    await queue.put(event)
                    sent[key] = now
        await asyncio.sleep(interval)


if __name__ == "__main__":
    # python member_readiness.py <kubeconfig> [context]: print the events as they come.
    class _Printer:
        async def put(self, event):
            print(event)

    asyncio.run(main(_Printer(), {"kubeconfig": sys.argv[1], "context": sys.argv[2] if len(sys.argv) > 2 else None,
                                  "grace_seconds": 0, "restore_seconds": 0, "interval": 5}))
