#!/usr/bin/python3
"""Whole-process benchmark: what a user waits for.

For each model file, side by side in one run, with the file in the page
cache (read once before timing):

  cat FILE > /dev/null
  analyze FILE --hw h100 --format json > /dev/null      (fork + exec)
  /usr/bin/python3 -c 'onnx.load(FILE); onnx.shape_inference.infer_shapes'

each run RUNS times, reporting the median wall time, the ratios
analyze/cat and analyze/python, and each command's peak RSS (the child's
ru_maxrss from wait4). `cat` and `analyze` (and `--before`) alternate;
python runs after them, in its own phase: on the 2-CPU Firecracker VM of
bench/README.md, a process started right after one that touched and freed
1.7 GB (python on ViT-B/16) pays for its first touches of memory again
(the host backs the freed pages anew): `analyze` on ViT-B/16 took 11.5 ms
after `cat` alone and 21.4 ms after python + `cat`, 27.8 ms after a C
program that fills and frees 1.7 GB (medians of 7), `cat` 57 -> 65 ms. `--zoo NAME` rows time `analyze --zoo NAME
--hw h100 --format json` alone. `--scaling N1,N2` writes the synthetic
chains of N1 and N2 nodes (bench/synthetic_chain.py, bench/model_gen.cc's
graph) and times `analyze CHAIN --hw h100 --batch 1 --format json` on both,
alternating: the time per node and its ratio (issue 16: <= 1.3).

  /usr/bin/python3 bench/whole_process.py [--analyze build/tools/analyze]
      [--runs 9] [--no-python] [--zoo NAME ...] [--scaling 10000,100000]
      MODEL.onnx ...

Prints a Markdown table and the machine (lscpu model name, CPUs).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

PY_LOAD = ("import sys, onnx; m = onnx.load(sys.argv[1]); "
           "onnx.shape_inference.infer_shapes(m)")


def run_once(argv):
    """Wall seconds and peak RSS (MB) of one fork+exec of argv."""
    with open(os.devnull, "wb") as devnull:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=devnull, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"whole_process: {' '.join(argv)} failed "
                 f"({proc.returncode}): {err.strip()}")
    return wall, usage.ru_maxrss / 1024.0


def measure(commands, runs):
    """Runs the commands alternately `runs` times; median wall, max RSS."""
    walls = {k: [] for k in commands}
    rss = {k: 0.0 for k in commands}
    # Warm-up: the page cache, the dynamic loader, and the VM's memory
    # after a previous phase's python run (above).
    for _ in range(3):
        for k, argv in commands.items():
            run_once(argv)
    for _ in range(runs):
        for k, argv in commands.items():
            w, r = run_once(argv)
            walls[k].append(w)
            rss[k] = max(rss[k], r)
    return {k: (statistics.median(v), rss[k]) for k, v in walls.items()}


def machine():
    model, cpus = "?", os.cpu_count()
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    return f"{model}, {cpus} CPUs"


def fmt_s(s):
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("models", nargs="*")
    p.add_argument("--analyze", default="build/tools/analyze")
    p.add_argument("--runs", type=int, default=9)
    p.add_argument("--before", help="a second analyze binary (e.g. the "
                   "previous build), timed in the same run")
    p.add_argument("--no-python", action="store_true")
    p.add_argument("--zoo", action="append", default=[])
    p.add_argument("--scaling", help="N1,N2: synthetic chains of N1 and N2 "
                   "nodes, time per node")
    args = p.parse_args()
    print(f"machine: {machine()}; median of {args.runs} runs, page-cached\n")
    print("| model | size | `cat` | `analyze` (peak RSS) | python onnx "
          "load+infer_shapes (peak RSS) | analyze / cat | analyze / python |")
    print("|---|---|---|---|---|---|---|")
    for path in args.models:
        commands = {
            "cat": ["cat", path],
            "analyze": [args.analyze, path, "--hw", "h100", "--format", "json"],
        }
        if args.before:
            commands["before"] = [args.before, path, "--hw", "h100",
                                  "--format", "json"]
        r = measure(commands, args.runs)
        if not args.no_python:  # its own phase, after the others (above)
            r.update(measure(
                {"python": ["/usr/bin/python3", "-c", PY_LOAD, path]},
                args.runs))
        size = os.path.getsize(path) / 1e6
        cat, ana = r["cat"][0], r["analyze"][0]
        py = r.get("python")
        py_cell = f"{fmt_s(py[0])} ({py[1]:.0f} MB)" if py else "-"
        py_ratio = f"{ana / py[0]:.3f}" if py else "-"
        print(f"| {os.path.basename(path)} | {size:.0f} MB | {fmt_s(cat)} | "
              f"{fmt_s(ana)} ({r['analyze'][1]:.0f} MB) | {py_cell} | "
              f"{ana / cat:.2f} | {py_ratio} |")
        if args.before:
            b = r["before"]
            b_py = f"{b[0] / py[0]:.3f}" if py else "-"
            print(f"| ... `--before` binary | | | {fmt_s(b[0])} "
                  f"({b[1]:.0f} MB) | | {b[0] / cat:.2f} | {b_py} |")
    for name in args.zoo:
        zoo = ["--zoo", name, "--hw", "h100", "--format", "json"]
        commands = {"analyze": [args.analyze] + zoo}
        if args.before:
            commands["before"] = [args.before] + zoo
        r = measure(commands, args.runs)
        print(f"| zoo {name} (json) | - | - | {fmt_s(r['analyze'][0])} "
              f"({r['analyze'][1]:.0f} MB) | - | - | - |")
        if args.before:
            print(f"| ... `--before` binary | | | {fmt_s(r['before'][0])} "
                  f"({r['before'][1]:.0f} MB) | | | |")
    if args.scaling:
        scaling(args)


def scaling(args):
    """Per-node whole-process time of two synthetic chains, alternating."""
    sizes = [int(n) for n in args.scaling.split(",")]
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "synthetic_chain.py")
    binaries = {"analyze": args.analyze}
    if args.before:
        binaries["before"] = args.before
    with tempfile.TemporaryDirectory() as tmp:
        commands = {}
        for n in sizes:
            path = os.path.join(tmp, f"chain{n}.onnx")
            subprocess.run(["/usr/bin/python3", gen, str(n), path],
                           check=True)
            for label, binary in binaries.items():
                commands[(label, n)] = [binary, path, "--hw", "h100",
                                        "--batch", "1", "--format", "json"]
        r = measure(commands, args.runs)
    print("\n| binary | nodes | `analyze` (peak RSS) | per node | "
          "per node / smallest |")
    print("|---|---|---|---|---|")
    for label in binaries:
        base = r[(label, sizes[0])][0] / sizes[0]
        for n in sizes:
            wall, rss = r[(label, n)]
            print(f"| {label} | {n} | {fmt_s(wall)} ({rss:.0f} MB) | "
                  f"{wall / n * 1e6:.1f} us | {wall / n / base:.2f} |")


if __name__ == "__main__":
    main()
