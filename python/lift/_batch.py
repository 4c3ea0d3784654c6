"""`lift.batch`: the jobs of a `lift batch` manifest (docs/batch.md), run here or as Ray
tasks, one `lift.batch/1` record each, in manifest order.

Every job runs through `lift._lift.batch_run`, the function `lift batch` runs per job,
so a record from Ray equals the CLI's (`seconds` aside). With `executor="ray"` each job
is one Ray task on the cluster `ray.init` connects to (`ray_address`, else the running
one, else a local one); the kernel files must be readable at the same paths there.
"""
import json
import os
import tempfile

from . import _lift

_PATH_KEYS = ("kernel", "kernel2", "launch", "launch2")


def manifest_file(jobs):
    """The manifest path: `jobs` itself if it is a path, else a JSON manifest written
    into a temporary file with every path made absolute (relative to the cwd)."""
    if isinstance(jobs, (str, os.PathLike)):
        return os.path.abspath(jobs)
    out = []
    for job in jobs:
        job = dict(job)
        for k in _PATH_KEYS:
            if k in job:
                job[k] = os.path.abspath(job[k])
        out.append(job)
    fd, path = tempfile.mkstemp(prefix="lift-batch-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(out, f)
    return path


def run_job(manifest, index):
    """One job's record (a Ray task's body)."""
    return json.loads(_lift.batch_run(manifest, [index]))[0]


def batch(jobs, executor="local", ray_address=None):
    """Yield the record of every job of `jobs` (a manifest path, or a list of job dicts
    with the manifest's keys) in manifest order. `executor`: "local" (this process, on
    all cores) or "ray" (one Ray task per job; records streamed back in order)."""
    manifest = manifest_file(jobs)
    count = _lift.batch_job_count(manifest)
    if executor == "local":
        yield from json.loads(_lift.batch_run(manifest, list(range(count))))
        return
    if executor != "ray":
        raise ValueError(f'executor is "local" or "ray", not {executor!r}')
    import ray
    if not ray.is_initialized():
        ray.init(address=ray_address)
    task = ray.remote(num_cpus=1)(run_job)
    refs = [task.remote(manifest, i) for i in range(count)]
    for ref in refs:
        yield ray.get(ref)
