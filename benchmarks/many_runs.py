"""Many runs against one qrels: ir-eval in one process, in one process per core, on a local Dask cluster.

Generates ``--runs`` DL19-shaped runs (43 queries x 1,000 documents each; the
first ``--distinct`` are distinct files, the others hard links to them: scoring
a run costs the same whether or not its bytes were read before, and the page
cache holds freshly written files either way) and times, as whole processes:

* ``ir-eval --jobs 1`` and ``ir-eval --jobs N`` (N = the cores here);
* ``ir-eval --dask ADDRESS`` on a ``distributed.LocalCluster`` of N worker
  processes with one thread each, started beforehand (its start-up is timed
  apart), when dask is installed: small runs scored several per task (the
  default), and one task per run (``IR_EVAL_BATCH_BYTES=0``);
* one ``trec_eval`` process for each of the first ``--trec-eval-runs`` runs, for scale.

All outputs are compared byte for byte.  Also printed, for docs/scaling.md:
for each ir-eval call its peak memory and CPU time (the largest and the sum of
the process and the --jobs processes it started; the Dask workers are apart);
and for each Dask call the tasks the scheduler ran, the CPU time of the
workers (together) and of the scheduler; the bytes shipped (the pickled, encoded
qrels scattered to each worker once, one run's result); the peak memory of each
worker.  The Dask call with batches is timed twice: with new workers (each
imports numpy, pandas, pyarrow and metrics on its first task) and again, as on
a cluster that is already running; then with one task per run on that cluster.

The scheduler runs in this process: its CPU time is this process's during a
call, of which the part beyond what it spends when idle (measured for a few
seconds before the calls) is what the tasks cost it.

    python benchmarks/many_runs.py [--runs 100] [--jobs N] [--measures all_trec] [-q] [--mmap-threshold BYTES]
"""

from __future__ import annotations

import argparse
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))


MMAP = "MALLOC_MMAP_THRESHOLD_"
IDLE = 5.0  # seconds the idle CPU of the scheduler and workers is measured over


def timed(cmd: list[str], out: Path, env: dict | None = None) -> tuple[float, int, float]:
    """Wall time (s), peak resident memory (bytes) and CPU time (s, with the children it waited for)
    of one process writing to ``out``."""
    start = time.perf_counter()
    with open(out, "wb") as sink, tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(cmd, stdout=sink, stderr=errors, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode:
            errors.seek(0)
            raise SystemExit(f"{' '.join(cmd[:6])} ... failed: {errors.read().decode()[-2000:]}")
    return seconds, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def task_sizes(qrels: Path, run: Path, measures: str, queries: bool) -> tuple[int, int, int]:
    """Bytes of the pickled state scattered to each worker, of one run's result (a task of several
    runs returns the list of theirs), and of the run file."""
    from metrics import parse_measures, read_qrels
    from metrics.ranking.judged import encode_qrels
    from metrics.scale.parallel import score_file, state

    s = state(encode_qrels(read_qrels(qrels)), parse_measures([measures], trec_rules=True), {}, False, queries, True)
    shipped = len(pickle.dumps(s, protocol=pickle.HIGHEST_PROTOCOL))
    result = len(pickle.dumps(score_file(s, str(run)), protocol=pickle.HIGHEST_PROTOCOL))
    return shipped, result, run.stat().st_size


def scheduled(cluster) -> int:
    """Tasks the scheduler of ``cluster`` has run so far: whole runs, parts and batches of runs."""
    prefixes = cluster.scheduler.task_prefixes  # dask drops the leading underscore of the function's name
    return sum(
        prefixes[name].state_counts.get("memory", 0) for name in ("score_task", "score_batch") if name in prefixes
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--distinct", type=int, default=20, help="distinct run files generated (default 20)")
    parser.add_argument("--jobs", type=int, default=None, help="processes and Dask workers (default: the cores)")
    parser.add_argument("--measures", default="all_trec")
    parser.add_argument("-q", dest="queries", action="store_true", help="per-query output too")
    parser.add_argument("--trec-eval-runs", type=int, default=100)
    parser.add_argument(
        "--mmap-threshold",
        type=int,
        default=0,
        help=f"start the Dask workers with {MMAP} set to this many bytes (docs/scaling.md: 33554432)",
    )
    args = parser.parse_args()
    import trec_eval_ref
    from everyday import generate

    from metrics.scale.parallel import default_jobs

    cores = args.jobs or default_jobs()
    py = sys.executable
    flags = ["-m", args.measures] + (["-q"] if args.queries else [])
    times: dict[str, float] = {}
    memory: dict[str, int] = {}
    cpu: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        qrels, runs = generate(folder, "dl19", runs=min(args.runs, args.distinct))
        for i in range(len(runs), args.runs):
            link = folder / f"dl19.{i}.run"
            os.link(runs[i % args.distinct], link)
            runs.append(link)
        print(f"generated in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        paths = list(map(str, runs))
        outputs = {}
        for jobs in dict.fromkeys((1, cores)):
            key = f"ir-eval --jobs {jobs}"
            outputs[key] = folder / f"out.jobs{jobs}"
            command = [py, "-m", "metrics", "--jobs", str(jobs), *flags, str(qrels), *paths]
            times[key], memory[key], cpu[key] = timed(command, outputs[key])
        cluster = None
        dask: dict[str, dict] = {}  # per Dask call: tasks, CPU of the workers and of the scheduler
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            print("dask.distributed is not installed: no Dask timing (pip install 'ir-workbench[dask]')")
        else:
            from metrics.scale.distributed import BATCH_ENV

            start = time.perf_counter()
            if args.mmap_threshold:  # in the environment the workers are started with (docs/scaling.md)
                os.environ[MMAP] = str(args.mmap_threshold)
            cluster = LocalCluster(
                n_workers=cores, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1"
            )
            os.environ.pop(MMAP, None)
            started = time.perf_counter() - start
            client = Client(cluster, set_as_default=False)
            # what the scheduler (this process) and the workers spend doing nothing: heartbeats, event loops
            workers, before, start = sum(client.run(cpu_self).values()), cpu_self(), time.perf_counter()
            time.sleep(IDLE)
            slept = time.perf_counter() - start
            idle = (cpu_self() - before) / slept, (sum(client.run(cpu_self).values()) - workers) / slept
            command = [py, "-m", "metrics", "--dask", cluster.scheduler_address, *flags, str(qrels), *paths]
            # first call: each worker imports numpy, pandas, pyarrow and metrics; then as on a running cluster
            for when, batch in (("new workers", None), ("second call", None), ("one task per run", "0")):
                key = f"ir-eval --dask ({cores} workers, {when})"
                outputs[key] = folder / f"out.dask.{len(outputs)}"
                env = dict(os.environ)
                env.pop(BATCH_ENV, None)
                if batch is not None:
                    env[BATCH_ENV] = batch
                workers, tasks = sum(client.run(cpu_self).values()), scheduled(cluster)
                before = cpu_self()  # the scheduler runs in this process, which otherwise waits
                times[key], memory[key], cpu[key] = timed(command, outputs[key], env)
                scheduler = cpu_self() - before
                dask[key] = dict(
                    tasks=scheduled(cluster) - tasks,
                    workers=sum(client.run(cpu_self).values()) - workers,
                    scheduler=scheduler,
                    busy=scheduler - idle[0] * times[key],  # the scheduler's CPU beyond its idle rate
                )
            peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
            client.close()
            cluster.close()
        if trec_eval_ref.BIN and args.trec_eval_runs:
            some = paths[: args.trec_eval_runs]
            start = time.perf_counter()
            for run in some:
                subprocess.run([trec_eval_ref.BIN, *flags, str(qrels), run], capture_output=True, check=True)
            times[f"trec_eval, {len(some)} processes"] = time.perf_counter() - start
        reference = outputs["ir-eval --jobs 1"].read_bytes()
        for key, path in outputs.items():
            assert path.read_bytes() == reference, f"{key} changed the output"
        shipped, result, run_bytes = task_sizes(qrels, runs[0], args.measures, args.queries)

    shown = f"-m {args.measures}" + (" -q" if args.queries else "")
    print(f"{args.runs} DL19-shaped runs (43 queries x 1,000 documents), {shown},")
    print(f"{cores} processes / workers, whole processes, outputs identical byte for byte")
    for key, seconds in times.items():
        extra = f"   peak memory {memory[key] / 2**20:4.0f} MiB   CPU {cpu[key]:6.2f} s" if key in memory else ""
        print(f"{key:<46} {seconds:8.2f} s{extra}")
    one = times["ir-eval --jobs 1"]
    for key in times:
        if key.startswith("ir-eval") and key != "ir-eval --jobs 1":
            print(f"speed-up, {key}: {one / times[key]:.2f}x ({one / times[key] / cores:.2f} per core)")
    if cluster is not None:
        print(f"LocalCluster start-up (not in the times above): {started:.2f} s", end="")
        print(f"; workers started with {MMAP}={args.mmap_threshold}" if args.mmap_threshold else "")
        print(
            f"CPU when idle: the scheduler's process {idle[0] * 1000:.0f} ms/s, the workers {idle[1] * 1000:.0f} ms/s"
        )
        for key, call in dask.items():
            n = max(call["tasks"], 1)
            print(
                f"{key}: {call['tasks']} tasks ({args.runs / n:.1f} runs per task);\n"
                f"    CPU of the workers {call['workers']:.2f} s ({call['workers'] / args.runs * 1000:.1f} ms per run);"
                f" of the scheduler {call['scheduler']:.2f} s, {call['busy']:.2f} s beyond its idle rate"
                f" ({call['busy'] / n * 1000:.2f} ms per task, {call['busy'] / args.runs * 1000:.2f} ms per run)"
            )
        print("peak memory per worker: " + ", ".join(f"{peak / 2**20:.0f} MiB" for peak in peaks.values()))
    print(f"bytes shipped: state scattered to each worker once {shipped:,}; one run's result {result:,};")
    print(f"one run file (read by a worker, never shipped) {run_bytes:,}")


if __name__ == "__main__":
    main()
