"""Differential hostile-input harness: every case in fuzz/hostile_cases/ is one expression `case(lib, device)`,
run with PyTorch (the oracle, on the CPU) and with tandem (on each device asked for), and the outcomes compared.

A worker process runs the cases one after another and reports each verdict as a JSON line; it announces each
case before running it, so when the worker dies (segfault, abort, killed for memory) or stops answering (hang),
this parent names the case as a finding and starts a new worker for the rest. The worker runs under an
address-space limit, so a huge allocation fails inside the process (an error tandem must raise and survive)
instead of pushing a shared machine into the OOM killer.

    TANDEM_EMULATE_CUDA=2 PYTHONPATH=python .venv/bin/python fuzz/hostile_diff.py [--devices cpu,cuda:0]
        [--only SUBSTRING] [--timeout SECONDS] [--json FILE]

With --devices meta the cases run on tandem's meta device (no values): only crashes, hangs, shapes and dtypes
against PyTorch's CPU results, and errors other than "a meta tensor has no values" count (hostile_worker.py,
meta_verdict).

Verdicts: ok; crash and hang (the worker died or timed out; "oracle-crash"/"oracle-hang" when PyTorch did);
wrong-value (both returned, values/dtype/shape differ); missing-error (PyTorch raises, tandem returns);
spurious-error (PyTorch returns, tandem raises); wrong-type (both raise, other exception types); message (same
type, another first line); leak (tandem's live-tensor memory grew across repeated runs of a case); known (a
difference listed with its reason in a case module's KNOWN table); known-ok (a case a KNOWN entry lists that
matches PyTorch on this device now: the entry may be stale, unless the difference belongs to another device).
"""
import argparse
import collections
import json
import os
import select
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SEVERE = ("crash", "hang", "wrong-value", "missing-error", "spurious-error", "wrong-type", "leak")


def _worker_command():
    return [sys.executable, os.path.join(HERE, "hostile_worker.py")]


class Worker:
    """One worker process: cases go in on stdin; "start" and verdict lines come back on stdout."""

    def __init__(self, memory_limit_gb):
        env = dict(os.environ, HOSTILE_MEMORY_LIMIT_GB=str(memory_limit_gb))
        self.stderr_path = f"/tmp/hostile_worker_{os.getpid()}.err"
        self.stderr = open(self.stderr_path, "w+")
        self.proc = subprocess.Popen(_worker_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, text=True, bufsize=1, env=env)
        self.buffer = ""

    def send(self, name, device):
        self.proc.stdin.write(json.dumps([name, device]) + "\n")
        self.proc.stdin.flush()

    def read_line(self, timeout):
        """The next line, None on timeout, "" when the worker died."""
        deadline = time.monotonic() + timeout
        while "\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 65536).decode()
            if not chunk:
                return ""
            self.buffer += chunk
        line, self.buffer = self.buffer.split("\n", 1)
        return line

    def stderr_tail(self):
        self.stderr.flush()
        with open(self.stderr_path) as f:
            return f.read()[-3000:]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.stderr.close()
        os.unlink(self.stderr_path)


def _ready_worker(memory_limit_gb):
    worker = Worker(memory_limit_gb)
    line = worker.read_line(120)
    if line != "ready":
        raise SystemExit(f"the worker did not start: {line!r}\n{worker.stderr_tail()}")
    return worker


def run(jobs, timeout, memory_limit_gb, report):
    """Each (case, device) job's verdict dict, also handed to `report` as it comes; a crash or hang costs one
    worker."""
    results = []
    worker = _ready_worker(memory_limit_gb)
    for name, device in jobs:
        worker.send(name, device)
        phase = "queued"
        while True:
            line = worker.read_line(timeout)
            if line and line.startswith("start "):
                phase = line.split(" ", 1)[1]  # "torch" or "tandem": who was running when it died
                continue
            if line:
                results.append(json.loads(line))
                report(results[-1])
                break
            if line is None:
                verdict = "oracle-hang" if phase == "torch" else "hang"
                detail = f"no answer within {timeout}s while running {phase}"
            else:
                code = worker.proc.wait()
                verdict = "oracle-crash" if phase == "torch" else "crash"
                detail = f"worker exited with {code} while running {phase}\n{worker.stderr_tail()}"
            results.append({"case": name, "device": device, "verdict": verdict, "detail": detail})
            report(results[-1])
            worker.stop()
            worker = _ready_worker(memory_limit_gb)
            break
    worker.proc.stdin.close()
    worker.stop()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", default="cpu,cuda:0")
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds one case may take")
    parser.add_argument("--memory-limit-gb", type=float, default=8.0)
    parser.add_argument("--json", help="write every verdict to this file")
    parser.add_argument("--show-ok", action="store_true")
    args = parser.parse_args()

    sys.path.insert(0, HERE)
    from hostile_cases import all_cases, known_differences  # noqa: PLC0415  (the worker imports the same table)

    names = [n for n in sorted(all_cases()) if args.only in n]
    jobs = [(n, d) for n in names for d in args.devices.split(",")]
    known = known_differences()

    def report(r):  # printed as it comes, so a long run shows its findings early
        if r["verdict"] != "ok" and r["case"] in known:
            r["verdict"], r["detail"] = "known", f"{known[r['case']]} ({r['verdict']}: {r['detail']})"
        elif r["case"] in known:  # the difference is gone on this device: its KNOWN entry may be stale
            r["verdict"], r["detail"] = "known-ok", f"matches PyTorch now; KNOWN says: {known[r['case']]}"
        if r["verdict"] != "ok" or args.show_ok:
            print(f"[{r['verdict']}] {r['case']} on {r['device']}: {r['detail']}", flush=True)

    results = run(jobs, args.timeout, args.memory_limit_gb, report)
    counts = collections.Counter(r["verdict"] for r in results)
    print(f"\n{len(names)} cases, {len(results)} runs: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if any(r["verdict"] in SEVERE for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
