"""Where a running stack keeps its state: PKI, etcd data, logs, pid files, kubeconfigs.

Default ``<checkout>/.stack`` (gitignored); ``$MCF_STACK_STATE`` moves it. The inventories for the
collection are written into the checkout, one per federation: ``inventories/local/hosts.yml``
(Karmada, ``$MCF_STACK_INVENTORY`` moves it) and ``inventories/local-kubeadmiral/hosts.yml``
(KubeAdmiral: ``$MCF_STACK_KUBEADMIRAL_INVENTORY``, else beside a moved Karmada one).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from tests.stack.layout import STACK_DIR

REPO_ROOT = STACK_DIR.parent.parent


def state_root() -> Path:
    explicit = os.environ.get("MCF_STACK_STATE")
    return Path(explicit).resolve() if explicit else REPO_ROOT / ".stack"


@dataclass(frozen=True)
class StatePaths:
    root: Path

    @property
    def pki(self) -> Path:
        return self.root / "pki"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def run(self) -> Path:
        """Pid files, one JSON record per process the stack started."""
        return self.root / "run"

    @property
    def etcd_data(self) -> Path:
        return self.root / "etcd"

    @property
    def kubeconfigs(self) -> Path:
        return self.root / "kubeconfigs"

    @property
    def component_kubeconfigs(self) -> Path:
        """Single-context admin kubeconfigs the stack's own processes use."""
        return self.root / "kubeconfigs" / "components"

    @property
    def work(self) -> Path:
        """Per-process scratch (webhook cert dirs, rendered manifests)."""
        return self.root / "work"

    @property
    def config_file(self) -> Path:
        return self.root / "stack.json"

    def federation_kubeconfig(self) -> Path:
        return self.kubeconfigs / "federation.kubeconfig"

    def kubeadmiral_kubeconfig(self) -> Path:
        """The KubeAdmiral federation's kubeconfig: its host apiserver, context ``federation``."""
        return self.kubeconfigs / "kubeadmiral.kubeconfig"

    def member_kubeconfig(self, name: str) -> Path:
        return self.kubeconfigs / f"{name}.kubeconfig"

    def component_kubeconfig(self, cluster: str) -> Path:
        return self.component_kubeconfigs / f"{cluster}.kubeconfig"

    def log(self, component: str) -> Path:
        return self.logs / f"{component}.log"

    def pidfile(self, component: str) -> Path:
        return self.run / f"{component}.json"

    def make_dirs(self) -> None:
        for path in (self.root, self.pki, self.logs, self.run, self.etcd_data, self.kubeconfigs,
                     self.component_kubeconfigs, self.work):
            path.mkdir(parents=True, exist_ok=True)
        for private in (self.root, self.pki, self.kubeconfigs, self.component_kubeconfigs, self.etcd_data):
            private.chmod(0o700)


def inventory_path() -> Path:
    explicit = os.environ.get("MCF_STACK_INVENTORY")
    return Path(explicit).resolve() if explicit else REPO_ROOT / "inventories" / "local" / "hosts.yml"


def kubeadmiral_inventory_path() -> Path:
    """``$MCF_STACK_KUBEADMIRAL_INVENTORY``; else ``<dir>-kubeadmiral/<file>`` for the Karmada
    inventory's ``<dir>/<file>``, so a second stack's ``$MCF_STACK_INVENTORY`` moves both."""
    explicit = os.environ.get("MCF_STACK_KUBEADMIRAL_INVENTORY")
    if explicit:
        return Path(explicit).resolve()
    karmada = inventory_path()
    return karmada.parent.with_name(f"{karmada.parent.name}-kubeadmiral") / karmada.name


def paths() -> StatePaths:
    return StatePaths(state_root())


def load_config(state: StatePaths) -> dict:
    """What the last ``up`` was asked for (member count, join), so later commands agree with it."""
    try:
        return json.loads(state.config_file.read_text())
    except FileNotFoundError:
        return {}


def save_config(state: StatePaths, config: dict) -> None:
    state.config_file.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
