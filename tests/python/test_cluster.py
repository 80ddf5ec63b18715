"""Cluster descriptions (python/interlace/cluster.py, docs/cluster.md): ZRLMPI's form and
interlace's superset are read into per-rank specs; every kind of bad input is refused
with a ClusterError naming the file and the bad key or value."""
from __future__ import annotations

import json

import pytest

import conftest  # noqa: F401  (puts the source tree's package on sys.path without a build)
from interlace.cluster import ClusterError, Cluster, RankSpec, load_cluster, parse_cluster

ZRLMPI_FORM = {"nodes": {"cpu": [0], "fpga": [1, 2, 3]}, "config": {"com_opt": 3, "mem_opt": 0}}


def write(tmp_path, obj, name="cluster.json"):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj, indent=1))
    return p


def test_zrlmpi_form(tmp_path):
    c = load_cluster(write(tmp_path, ZRLMPI_FORM))
    assert isinstance(c, Cluster)
    assert c.size == 4
    assert c.cpu_ranks == [0] and c.accelerator_ranks == [1, 2, 3]
    assert [r.rank for r in c.ranks] == [0, 1, 2, 3]
    assert c.ranks[0] == RankSpec(0, "cpu", None, None, None, None, None)
    assert c.ranks[2].kind == "fpga" and c.ranks[2].accelerator
    assert not c.ranks[0].accelerator
    assert c.config == {"com_opt": 3, "mem_opt": 0}
    assert c.fabric is None and c.source == str(tmp_path / "cluster.json")
    assert not c.tree  # com_opt/mem_opt are FPGA code-generator knobs, not the tree


def test_zrlmpi_jacobi_file_with_optimization_means_tree():
    # ZRLMPI's own examples/cluster_jacobi.json
    c = parse_cluster({"nodes": {"cpu": [0], "fpga": [1, 2, 3, 4, 5, 6, 7]},
                       "config": {"optimization": 1}})
    assert c.size == 8 and c.tree
    assert not parse_cluster({"nodes": {"cpu": [0]}, "config": {"optimization": 0}}).tree
    assert parse_cluster({"nodes": {"cpu": [0]}, "config": {"tree": True}}).tree
    # interlace's spelling wins over ZRLMPI's
    assert not parse_cluster({"nodes": {"cpu": [0]},
                              "config": {"tree": False, "optimization": 1}}).tree


def test_config_is_kept_verbatim():
    cfg = {"com_opt": 3, "mem_opt": 1, "something_else": "kept"}
    assert parse_cluster({"nodes": {"cpu": [0]}, "config": cfg}).config == cfg
    assert parse_cluster({"nodes": {"cpu": [0]}}).config == {}


def test_superset_hosts_ranks_fabric_ranges():
    c = parse_cluster({
        "nodes": {"cpu": ["0-1"], "fpga": ["2-4", 5], "gpu": 6},
        "fabric": "udp",
        "hosts": {"0-1": "node0", "2-6": "node1"},
        "ranks": {"3": {"external": "zrlmpi", "port": 3000},
                  "4-5": {"variant": "accel", "fabric": "udp"}},
        "comment": "anything",
    }, "c.json")
    assert c.size == 7 and c.fabric == "udp"
    assert c.cpu_ranks == [0, 1] and c.accelerator_ranks == [2, 3, 4, 5, 6]
    assert c.ranks[6].kind == "gpu"
    assert [r.host for r in c.ranks] == ["node0"] * 2 + ["node1"] * 5
    assert c.ranks[3].external == "zrlmpi" and c.ranks[3].port == 3000
    assert c.external_ranks == [3]
    assert c.ranks[4].variant == "accel" and c.ranks[5].variant == "accel"
    assert c.ranks[4].fabric == "udp" and c.ranks[2].fabric is None
    assert c.kinds_text() == "0-1: cpu, 2-5: fpga, 6: gpu"


def test_hosts_as_a_list_and_zrlmpi_port_convention():
    c = parse_cluster({"nodes": {"cpu": [0, 1, 2, 3]}, "hosts": ["a", "a", "b", "a"]})
    assert [r.host for r in c.ranks] == ["a", "a", "b", "a"]
    # 2718 plus the ranks before it on the same host
    assert [c.udp_port(r) for r in range(4)] == [2718, 2719, 2718, 2720]


@pytest.mark.parametrize("obj, words", [
    ({"nodes": {"cpu": [0], "fpga": [1, 3]}}, ["rank 2 is missing", "0..3"]),
    ({"nodes": {"cpu": [1]}}, ["rank 0 is missing"]),
    ({"nodes": {"cpu": [0, 1], "fpga": [1, 2]}}, ["rank 1 is listed twice", "'cpu'", "'fpga'"]),
    ({"nodes": {"cpu": [0, 0]}}, ["rank 0 is listed twice"]),
    ({"nodes": {"cpu": [0], "tpu": [1]}}, ["unknown node kind 'tpu'", "cpu, fpga, gpu"]),
    ({"nodes": {"cpu": [0, "x"]}}, ["rank 'x' is not an integer"]),
    ({"nodes": {"cpu": [0, 1.5]}}, ["rank 1.5 is not an integer"]),
    ({"nodes": {"cpu": [True]}}, ["rank True is not an integer"]),
    ({"nodes": {"cpu": [-1, 0]}}, ["rank -1 is negative"]),
    ({"nodes": {"cpu": ["3-1"]}}, ["'3-1' runs backwards"]),
    ({"nodes": {"cpu": [0]}, "nodez": 1}, ["unknown key 'nodez'", "nodes, config"]),
    ({"config": {}}, ["no \"nodes\""]),
    ({"nodes": {}}, ["\"nodes\" must be a non-empty object"]),
    ({"nodes": {"cpu": [0]}, "ranks": {"0": {"colour": 1}}},
     ["ranks['0']: unknown key 'colour'", "host, fabric, variant, external, port"]),
    ({"nodes": {"cpu": [0], "fpga": [1]}, "ranks": {"1": {"external": "zrlmpi"}}},
     ["rank 1 is external", "no host"]),
    ({"nodes": {"cpu": [0]}, "ranks": {"0": {"external": "mpich", "host": "h"}}},
     ["unknown external node type 'mpich'", "zrlmpi"]),
    ({"nodes": {"cpu": [0]}, "ranks": {"1": {"host": "h"}}}, ["rank 1 is not in the job"]),
    ({"nodes": {"cpu": [0]}, "ranks": {"0": {"port": 70000}}}, ["70000 is not a UDP port"]),
    ({"nodes": {"cpu": [0, 1]}, "ranks": {"0-1": {"port": 3000}}}, ["one port for 2 ranks"]),
    ({"nodes": {"cpu": [0, 1]}, "ranks": {"0": {"port": 2719}}},
     ["ranks 0 and 1 both use UDP port 2719"]),
    ({"nodes": {"cpu": [0, 1]}, "hosts": ["a"]}, ["lists 1 hosts for 2 ranks"]),
    ({"nodes": {"cpu": [0]}, "hosts": ["bad host"]}, ["'bad host' is not a valid name"]),
    ({"nodes": {"cpu": [0]}, "hosts": {"0": "a"}, "ranks": {"0": {"host": "b"}}},
     ["rank 0's host is given twice", "'a'", "'b'"]),
    ({"nodes": {"cpu": [0]}, "config": {"tree": "yes"}}, ["\"tree\" must be true or false"]),
    ({"nodes": {"cpu": [0]}, "config": {"optimization": "1"}}, ["'optimization' must be an integer"]),
    ({"nodes": {"cpu": [0]}, "config": []}, ["\"config\" must be an object"]),
    ({"nodes": {"cpu": [0]}, "fabric": 3}, ["\"fabric\": 3 is not a valid name"]),
    ([1, 2], ["a cluster description is a JSON object"]),
])
def test_bad_descriptions_name_the_value(tmp_path, obj, words):
    path = write(tmp_path, obj)
    with pytest.raises(ClusterError) as e:
        load_cluster(path)
    msg = str(e.value)
    assert msg.startswith(str(path) + ":"), msg
    for w in words:
        assert w in msg, msg


def test_bad_json_names_line_and_column(tmp_path):
    path = write(tmp_path, '{"nodes": {"cpu": [0],\n  "fpga": [1,]}}')
    with pytest.raises(ClusterError, match=r"cluster\.json:2:14: invalid JSON"):
        load_cluster(path)


def test_duplicate_json_key_is_refused(tmp_path):
    path = write(tmp_path, '{"nodes": {"cpu": [0], "cpu": [1]}}')
    with pytest.raises(ClusterError, match="key 'cpu' appears twice"):
        load_cluster(path)


def test_missing_file(tmp_path):
    with pytest.raises(ClusterError, match=r"nope\.json: cannot read"):
        load_cluster(tmp_path / "nope.json")


def test_cluster_error_is_a_value_error():
    assert issubclass(ClusterError, ValueError)
    with pytest.raises(ValueError, match="<cluster>: unknown node kind"):
        parse_cluster({"nodes": {"dsp": [0]}})
