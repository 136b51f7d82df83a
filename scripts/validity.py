#!/usr/bin/env python3
"""scripts/validity.py: the simulator's mode-validity matrix (docs/scenarios.md, "Modes").

Runs each scenario of tests/scenarios/validity/ in `--mode des` and `--mode fluid` over the
same seeds and measures what fluid gets wrong against DES: failed %, p99, the share of
samples where InService differs, the final desired capacity and the verdict (exit code).
A scenario whose outcome hangs on chance (health checks that fail at random under
overload) is compared on its mean over several seeds, both modes on the same seeds:
DES itself differs more from one seed to the next than the bar allows.

The bar (issue 12): the same verdict, failed % within max(2 points, 25 %), final desired
within 1. `--check` exits 1 when a scenario misses it; `--markdown` prints the table that
docs/scenarios.md holds.

`--quick` (the integration test) runs overload-diurnal, whose DES run costs ~17 CPU seconds
a seed, on seeds 1-2 only.

usage: scripts/validity.py SCALER_BIN [--check] [--markdown] [--quick] [--only NAME]
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(HERE, "..", "tests", "scenarios", "validity")

# name, what it stands for in the matrix, seeds
MATRIX = [
    ("light-open", "light open load", [1]),
    ("low-rate", "low rate (2 req/s)", [1]),
    ("saturating-fixed", "saturating, 96 % busy", [1]),
    ("queue-limit", "overload, queue limit 20", [1]),
    ("overload-flat", "HTTP health under overload, ELB type", list(range(1, 33))),
    ("http-health-ec2", "HTTP health under overload, EC2 type", list(range(1, 33))),
    ("step", "step 100 -> 400 req/s", [1]),
    ("diurnal", "diurnal, within reach", [1]),
    ("overload-diurnal", "diurnal from overload (2 days)", [1, 2, 3, 4]),  # --quick: 1-2
    ("closed-clients", "closed, 40 clients, think 500 ms", [1]),
    ("closed-bursts", "closed bursts (ab -c 100 -n 3000)", [1]),
]


def run(binary, path, mode, seed):
    t0 = time.monotonic()
    p = subprocess.run([binary, "simulate", path, "--mode", mode, "--seed", str(seed), "--json"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    secs = time.monotonic() - t0
    if p.returncode not in (0, 3):
        raise SystemExit(f"validity: {path} --mode {mode} exited {p.returncode}")
    doc = json.loads(p.stdout)
    samples = [x for x in doc["timeline"] if x.get("type") == "sample"]
    summ = doc["summary"]
    return {
        "failed_pct": summ["failed_pct"],
        "p99_ms": summ["p99_ms"],
        "final_desired": summ["groups"][0]["final_desired"],
        "in_service": [s["groups"][0]["in_service"] for s in samples],
        "exit": doc["exit"],
        "secs": secs,
    }


def mean(xs):
    return sum(xs) / len(xs)


def measure(binary, name, seeds):
    path = os.path.join(DIR, name + ".json")
    des = [run(binary, path, "des", s) for s in seeds]
    flu = [run(binary, path, "fluid", s) for s in seeds]
    diff = []
    for d, f in zip(des, flu):
        n = min(len(d["in_service"]), len(f["in_service"]))
        diff.append(100.0 * sum(d["in_service"][i] != f["in_service"][i] for i in range(n)) / n)
    r = {
        "name": name,
        "seeds": seeds,
        "des_failed": mean([x["failed_pct"] for x in des]),
        "fluid_failed": mean([x["failed_pct"] for x in flu]),
        "des_p99": mean([x["p99_ms"] for x in des]),
        "fluid_p99": mean([x["p99_ms"] for x in flu]),
        "des_desired": mean([x["final_desired"] for x in des]),
        "fluid_desired": mean([x["final_desired"] for x in flu]),
        "diff_samples": mean(diff),
        # the verdict each seed gives; the scenario's verdict is the majority's
        "des_pass": sum(x["exit"] == 0 for x in des),
        "fluid_pass": sum(x["exit"] == 0 for x in flu),
        "des_secs": sum(x["secs"] for x in des),
        "fluid_secs": sum(x["secs"] for x in flu),
    }
    n = len(seeds)
    r["des_verdict"] = "pass" if 2 * r["des_pass"] > n else "fail"
    r["fluid_verdict"] = "pass" if 2 * r["fluid_pass"] > n else "fail"
    d, f = r["des_failed"], r["fluid_failed"]
    r["failed_err"] = f - d
    r["failed_ok"] = abs(f - d) <= max(2.0, 0.25 * d)
    r["desired_ok"] = abs(r["fluid_desired"] - r["des_desired"]) <= 1
    r["verdict_ok"] = r["des_verdict"] == r["fluid_verdict"]
    r["ok"] = r["failed_ok"] and r["desired_ok"] and r["verdict_ok"]
    return r


def markdown(rows):
    out = ["| condition | scenario | seeds | failed % DES / fluid | p99 ms DES / fluid | "
           "samples with different InService | final desired DES / fluid | verdict DES / fluid | "
           "within the bar |",
           "|---|---|---|---|---|---|---|---|---|"]
    for what, r in rows:
        s = r["seeds"]
        seeds = str(s[0]) if len(s) == 1 else f"{s[0]}-{s[-1]}"
        out.append(
            f"| {what} | {r['name']} | {seeds} | {r['des_failed']:.3f} / {r['fluid_failed']:.3f} | "
            f"{r['des_p99']:.1f} / {r['fluid_p99']:.1f} | {r['diff_samples']:.1f}% | "
            f"{r['des_desired']:g} / {r['fluid_desired']:g} | "
            f"{r['des_verdict']} / {r['fluid_verdict']} | {'yes' if r['ok'] else 'NO'} |")
    return "\n".join(out)


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    binary = args[0]
    check = "--check" in args
    only = args[args.index("--only") + 1] if "--only" in args else None
    rows = []
    bad = 0
    for name, what, seeds in MATRIX:
        if only and name != only:
            continue
        if "--quick" in args and name == "overload-diurnal":
            seeds = [1, 2]
        r = measure(binary, name, seeds)
        rows.append((what, r))
        why = [k for k in ("verdict_ok", "failed_ok", "desired_ok") if not r[k]]
        print(f"{'ok' if r['ok'] else 'MISS'} {name}: failed {r['des_failed']:.3f} / "
              f"{r['fluid_failed']:.3f} %, final desired {r['des_desired']:g} / "
              f"{r['fluid_desired']:g}, verdict {r['des_verdict']} / {r['fluid_verdict']}, "
              f"InService differs {r['diff_samples']:.1f}% of samples, p99 {r['des_p99']:.1f} / "
              f"{r['fluid_p99']:.1f} ms (cpu {r['des_secs']:.2f} / {r['fluid_secs']:.2f} s)"
              + (f" [{', '.join(why)}]" if why else ""), flush=True)
        bad += not r["ok"]
    if "--markdown" in args:
        print(markdown(rows))
    return 1 if check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
