"""Ports and names of the local stack: explicit, unique and stable per member index."""

import pytest

from tests.stack import topology
from tests.stack.components import merge_flags


def test_reference_member_names_and_weights():
    members = topology.members(4)
    assert [(m.name, m.weight) for m in members] == [("idc1", 1), ("test-ucs", 2), ("member3", 1), ("member4", 1)]


@pytest.mark.parametrize("count", [1, 2, 4, 12, topology.MAX_MEMBERS])
def test_every_listener_has_its_own_port(count):
    ports = topology.all_ports(count)
    assert len(set(ports.values())) == len(ports), ports


@pytest.mark.parametrize("port", [8080, 8000, 8443, 10257, 10259, 2379, 2380, 6443, 9876, 8090])
def test_no_upstream_default_port_is_used(port):
    assert port not in topology.all_ports(topology.MAX_MEMBERS).values()


def test_member_ports_do_not_depend_on_member_count():
    assert topology.members(2)[1].ports() == topology.members(6)[1].ports()


@pytest.mark.parametrize("count", [0, topology.MAX_MEMBERS + 1])
def test_member_count_is_bounded(count):
    with pytest.raises(ValueError, match="--members"):
        topology.members(count)


def test_pod_cidrs_and_load_balancer_ranges_differ_per_member():
    members = topology.members(5)
    assert len({m.pod_cidr for m in members}) == 5
    assert len({m.load_balancer_prefix for m in members}) == 5


def test_merge_flags_replaces_both_forms_and_keeps_the_rest():
    args = ["--enable-leader-election", "--metrics-addr", ":8080", "--health-probe-addr=:8000",
            "--feature-gates=A=true", "--v=4"]
    merged = merge_flags(args, {"--enable-leader-election": "false", "--metrics-addr": "127.0.0.1:1",
                                "--health-probe-addr": "127.0.0.1:2"})
    assert merged == ["--feature-gates=A=true", "--v=4", "--enable-leader-election=false",
                      "--metrics-addr=127.0.0.1:1", "--health-probe-addr=127.0.0.1:2"]


def test_port_offset_moves_every_port(monkeypatch):
    plain = topology.all_ports(3)
    monkeypatch.setenv("MCF_STACK_PORT_OFFSET", "1000")
    shifted = topology.all_ports(3)
    assert shifted == {owner: port + 1000 for owner, port in plain.items()}


def test_port_offset_must_be_a_small_number(monkeypatch):
    monkeypatch.setenv("MCF_STACK_PORT_OFFSET", "-5")
    with pytest.raises(ValueError, match="MCF_STACK_PORT_OFFSET"):
        topology.karmada_ports()


def test_without_virtual_kubelet_must_name_members_of_the_stack():
    with pytest.raises(ValueError, match="--without-virtual-kubelet names no member of this stack: member3"):
        topology.members(2, without_virtual_kubelet=("idc1", "member3"))
