"""`lift.batch`: suite jobs run in this process and as Ray tasks on a local Ray cluster
give the same records (`seconds` aside), and the verdicts the fixtures' authors wrote
(`expect` in each fixture.toml, from the kernels' mathematics)."""
import os
import re

import lift

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPS = ["softmax", "softmax_bug", "add", "layer_norm", "gelu_bug", "sum"]


def fixture(op):
    with open(os.path.join(ROOT, "triton_ir", op, "fixture.toml")) as f:
        text = f.read()
    spec = re.search(r'^spec = (".*")$', text, re.M).group(1)
    expect = re.search(r'^expect = "(\w+)"$', text, re.M).group(1)
    return eval(spec), expect  # a TOML basic string is a Python string literal


def jobs():
    out = []
    for op in OPS:
        spec, _ = fixture(op)
        out.append({"id": f"{op}:check", "kind": "check", "spec": spec,
                    "kernel": os.path.join(ROOT, "triton_ir", op, "kernel.ttir")})
    return out


def without_seconds(records):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


def test_local_batch_gives_the_fixtures_verdicts():
    records = list(lift.batch(jobs()))
    assert [r["index"] for r in records] == list(range(len(OPS)))
    assert [r["verdict"] for r in records] == [fixture(op)[1] for op in OPS], records


def test_ray_tasks_give_the_records_of_a_local_run():
    import ray
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = list(lift.batch(jobs(), executor="ray"))
    finally:
        ray.shutdown()
    local = list(lift.batch(jobs()))
    assert without_seconds(remote) == without_seconds(local)
    assert [r["verdict"] for r in remote] == [fixture(op)[1] for op in OPS]
