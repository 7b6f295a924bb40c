"""meta/runtime.yml's redirects lead to plugins that exist, each old name says when it goes, and every module
reaches an action plugin that runs it in Ansible's worker (plugins/plugin_utils/in_process.py)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = yaml.safe_load((ROOT / "meta" / "runtime.yml").read_text())
MODULES = sorted(path.stem for path in (ROOT / "plugins" / "modules").glob("*.py") if path.stem != "__init__")
IN_PROCESS = "ansible_collections.multicloud.federation.plugins.plugin_utils.in_process"


def test_every_redirect_leads_to_a_plugin_of_this_collection_that_exists():
    routing = RUNTIME["plugin_routing"]
    assert routing["modules"], routing
    for plugin_type, entries in routing.items():
        folder = {"modules": "modules", "action": "action"}[plugin_type]
        for old, route in entries.items():
            seen = [old]
            while route:  # a redirect to a name that is redirected in turn (kubeconfig -> kubeconfig_file)
                namespace, name, target = route["redirect"].split(".")
                assert (namespace, name) == ("multicloud", "federation"), route
                assert target not in seen, "a redirect loop: %s" % seen
                seen.append(target)
                route = entries.get(target)
            assert (ROOT / "plugins" / folder / (target + ".py")).is_file(), seen
            assert not (ROOT / "plugins" / folder / (old + ".py")).exists(), "the old name still has a file: %s" % old


def test_kubeconfig_is_kubeconfig_file_until_1_0_0():
    module = RUNTIME["plugin_routing"]["modules"]["kubeconfig"]
    assert module["redirect"] == "multicloud.federation.kubeconfig_file"
    assert module["deprecation"]["removal_version"] == "1.0.0" and "kubeconfig_file" in module["deprecation"]["warning_text"]
    assert RUNTIME["plugin_routing"]["action"]["kubeconfig"]["redirect"] == "multicloud.federation.kubeconfig_file"
    # Not in the k8s action group: it takes file paths, not kubernetes.core's authentication options.
    assert "kubeconfig_file" not in RUNTIME["action_groups"]["k8s"]


def is_docs_only(module):
    """A module file with documentation and no code of its own (k8s, k8s_info: kubernetes.core's module runs)."""
    return "def main(" not in (ROOT / "plugins" / "modules" / (module + ".py")).read_text()


# Resolved by ansible-core itself, in a process of its own (the collection loader it installs is process-wide):
# TaskExecutor._get_action_handler_with_module_context picks the module's routed action_plugin, else the action
# plugin found under the task's name, which follows plugin_routing.action redirects (PluginLoader.find_plugin_
# with_context, ansible-core 2.19 to 2.21); the in-process runner imports the module module_loader resolves.
def resolve(collections_root, names):
    from ansible.plugins.loader import action_loader, init_plugin_loader, module_loader

    init_plugin_loader([collections_root])
    in_process = importlib.import_module(IN_PROCESS)
    resolved = {}
    for name in names:
        fqcn = "multicloud.federation." + name
        module = module_loader.find_plugin_with_context(fqcn)
        handler = module.action_plugin if module.resolved and module.action_plugin else fqcn
        action = action_loader.get(handler, class_only=True) if action_loader.has_plugin(handler) else None
        resolved[name] = {
            "module": module.plugin_resolved_name if module.resolved else None,
            "action": action.__module__ if action else None,
            "in_process": bool(action) and issubclass(action, in_process.InProcessExecution),
            "runs": getattr(action, "MODULE", None),
        }
    return resolved


def test_every_module_resolves_to_an_action_plugin_that_runs_it_in_the_worker(tmp_path):
    collections_root = str(Path(importlib.import_module(IN_PROCESS).__file__).parents[5])
    names = MODULES + sorted(RUNTIME["plugin_routing"]["modules"])
    (tmp_path / "ansible.cfg").write_text("[defaults]\n")  # none of the checkout's or the machine's settings
    # The child imports ansible where this process does: ansible-test units puts it on sys.path, not in the venv.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([collections_root] + [p for p in sys.path if p]),
               ANSIBLE_COLLECTIONS_PATH=collections_root,
               ANSIBLE_HOME=str(tmp_path), ANSIBLE_CONFIG=str(tmp_path / "ansible.cfg"))
    done = subprocess.run([sys.executable, __file__, collections_root] + names, cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    resolved = json.loads(done.stdout)
    package = "ansible_collections.multicloud.federation.plugins."
    for name in names:
        module = RUNTIME["plugin_routing"]["modules"].get(name, {}).get("redirect", name).split(".")[-1]
        found = resolved[name]
        assert found["module"] == package + "modules." + module, (name, found)
        assert found["in_process"], (name, found)
        if is_docs_only(module):
            # Documentation only: the action runs kubernetes.core's module of the same name.
            assert (found["action"], found["runs"]) == (package + "action." + module, "kubernetes.core." + module)
        else:
            # The action runs the task's own module (the name the task gave, resolved as above).
            assert found["runs"] is None, (name, found)
            assert found["action"] == package + "action." + module, (name, found)


if __name__ == "__main__":
    print(json.dumps(resolve(sys.argv[1], sys.argv[2:])))
