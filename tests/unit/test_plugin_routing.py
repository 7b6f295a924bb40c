"""meta/runtime.yml's redirects lead to plugins that exist, each old name says when it goes, and every module
reaches an action plugin that runs it in Ansible's worker (plugins/plugin_utils/in_process.py).

Every module has an action plugin of its own name: one file (plugins/action/cluster_info.py) for all the modules
whose action plugin only runs the module, linked under each of their names, and a file of its own for a module
whose action plugin does more. ansible-core and ansible-lint then resolve a task's action to the module's own name;
routing the modules to one action plugin in meta/runtime.yml (plugin_routing.action) would make that plugin's name
the canonical one, and ansible-lint's fqcn[canonical] would ask every task, in this collection and its users'
playbooks, to call the module by it.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = yaml.safe_load((ROOT / "meta" / "runtime.yml").read_text())
MODULES = sorted(path.stem for path in (ROOT / "plugins" / "modules").glob("*.py") if path.stem != "__init__")
IN_PROCESS = "ansible_collections.multicloud.federation.plugins.plugin_utils.in_process"
ACTION = ROOT / "plugins" / "action"
# The action plugin of every module that has none of its own; the others' names are links to it.
SHARED = "cluster_info.py"


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


def action_files():
    return {path.name: path for path in ACTION.glob("*.py") if path.name != "__init__.py"}


def plain_subclass(path):
    """True when the file's ActionModule is a subclass with nothing of its own (``pass``)."""
    tree = ast.parse(path.read_text())
    actions = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "ActionModule"]
    assert len(actions) == 1, path
    return all(isinstance(node, ast.Pass) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
               for node in actions[0].body)


def test_every_module_has_an_action_plugin_of_its_name_and_nothing_else_has_one():
    # ansible-test sanity's action-plugin-docs: an action plugin is documented by the module of its name.
    assert sorted(path[:-3] for path in action_files()) == MODULES


def test_the_modules_that_only_run_share_one_action_plugin_file():
    files = action_files()
    links = {name: os.readlink(path) for name, path in files.items() if path.is_symlink()}
    own = {name for name, path in files.items() if not path.is_symlink()}
    assert SHARED in own and plain_subclass(files[SHARED])
    # A link names a file beside it (ansible-test sanity's symlinks test: inside the collection; ansible-galaxy
    # collection build keeps it as a link only then).
    assert set(links.values()) == {SHARED}, links
    # Any other file is an action plugin that does more than run its module: a plain copy would be a link.
    copies = sorted(name for name in own - {SHARED} if plain_subclass(files[name]))
    assert not copies, "the same action plugin again, link it to %s instead: %s" % (SHARED, copies)
    assert own - {SHARED} == {"k8s.py", "k8s_info.py", "run_lock.py"}


def test_only_an_old_module_name_is_routed_to_another_action_plugin():
    # An action redirect makes its target the canonical name of the task's action (ansible-lint's load_plugin
    # looks for the action plugin first): allowed for an old name that redirects to the same module anyway.
    routing = RUNTIME["plugin_routing"]
    for old, route in routing.get("action", {}).items():
        assert routing["modules"].get(old, {}).get("redirect") == route["redirect"], (old, route)


def is_docs_only(module):
    """A module file with documentation and no code of its own (k8s, k8s_info: kubernetes.core's module runs)."""
    return "def main(" not in (ROOT / "plugins" / "modules" / (module + ".py")).read_text()


# Resolved by ansible-core itself, in a process of its own (the collection loader it installs is process-wide):
# TaskExecutor._get_action_handler_with_module_context picks the module's routed action_plugin, else the action
# plugin found under the task's name, which follows plugin_routing.action redirects (PluginLoader.find_plugin_
# with_context, ansible-core 2.19 to 2.21); the in-process runner imports the module module_loader resolves.
# The action plugin is then made as TaskExecutor makes it, for a task with no arguments on a local connection
# with this Python, and prepares its in-process run as it would before it runs the module (the runner's checks of
# this ansible-core, the module's arguments, its import and main()): what it says is what -vvvv would say.
def resolve(collections_root, names):
    from ansible.parsing.dataloader import DataLoader
    from ansible.playbook.play_context import PlayContext
    from ansible.playbook.task import Task
    from ansible.plugins import loader as plugin_loader
    from ansible.template import Templar

    plugin_loader.init_plugin_loader([collections_root])
    in_process = importlib.import_module(IN_PROCESS)
    loader = DataLoader()
    task_vars = {"ansible_python_interpreter": sys.executable}
    resolved = {}
    for name in names:
        fqcn = "multicloud.federation." + name
        module = plugin_loader.module_loader.find_plugin_with_context(fqcn)
        handler = module.action_plugin if module.resolved and module.action_plugin else fqcn
        action = None
        if plugin_loader.action_loader.has_plugin(handler):
            task = Task.load({"name": name, "action": fqcn}, loader=loader)
            play_context = PlayContext()
            connection = plugin_loader.connection_loader.get("local", play_context, os.devnull)
            action = plugin_loader.action_loader.get(handler, task=task, connection=connection,
                                                     play_context=play_context, loader=loader,
                                                     templar=Templar(loader=loader), shared_loader_obj=plugin_loader)
        found = resolved[name] = {
            "module": module.plugin_resolved_name if module.resolved else None,
            "action": type(action).__module__ if action else None,
            "in_process": isinstance(action, in_process.InProcessExecution),
            "runs": getattr(action, "MODULE", None),
            "imports": None,
            "separate_process_because": None,
        }
        if found["in_process"]:
            reason = action._out_of_process_reason(task_vars)
            run = None
            if not reason:
                run, reason = action._prepare_in_process(action.MODULE or task.action, None, task_vars)
            if run:
                shutil.rmtree(run.module_tmpdir, ignore_errors=True)
                found["imports"] = run.import_name
            found["separate_process_because"] = reason
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
        # On this ansible-core, a local task with the controller's Python runs its module in the worker.
        assert found["separate_process_because"] is None, (name, found)
        if is_docs_only(module):
            # Documentation only: the action runs kubernetes.core's module of the same name.
            assert (found["action"], found["runs"]) == (package + "action." + module, "kubernetes.core." + module)
            assert found["imports"] == "ansible_collections.kubernetes.core.plugins.modules." + module, (name, found)
        else:
            # The action runs the task's own module (the name the task gave, resolved as above).
            assert found["runs"] is None, (name, found)
            assert found["action"] == package + "action." + module, (name, found)
            assert found["imports"] == found["module"], (name, found)


if __name__ == "__main__":
    print(json.dumps(resolve(sys.argv[1], sys.argv[2:])))
