#!/usr/bin/env python3
"""The vatcar-site benchmark: one command, one table.

Usage: python3 benches/bench.py [--sizes 100 1000 10000] [--runs 3] [--work DIR] [--no-hugo]
                                [--instructions N] [--only content|hugo|figures] [--bin PATH]
                                [--peers DIR]

`--only figures` prints issue 38's table alone (N = 10,000, output on tmpfs, Hugo with
`--peers`): see `figures` below.

Measures, with the release binary (built first):
  - a build from a snapshot at each size N (N controllers, N facility events, N division
    events with ~1 KB markdown descriptions): median wall time, peak memory (RSS of the
    process, from wait4), and time per page; with the output on the work folder's disk and on
    tmpfs (/dev/shm), which measures rendering without file-creation cost;
  - `cp -r` of the finished output on the same file system (disk, and tmpfs), the floor for
    writing those files;
  - a second build with unchanged data (it must rewrite nothing), and, at the largest size up
    to 10,000, an unchanged rebuild against a full build on the same file system, in turns;
  - growth: time per page and peak memory per MiB of input at each size (run with
    `--sizes 1000 10000 50000` for the issue's three sizes);
  - a full build from the local mock API with no latency at that size (peak memory with the
    fetched bodies held);
  - a full build against a local mock API with 300 ms latency on every response (smallest N);
  - `build --demo` end to end (start-up);
  - the demo with one event's description replaced by nested or flat HTML of the same size
    (5 MB, over the 4 MiB cap, and 1 MB, under it): sanitizing must stay linear in size and
    depth;
  - a content page of 32,000 identical headings and one of 50,000 `@/` links, and the same at a
    quarter of the size: the build time over a one-line page's must grow about 4x from the
    quarter to the full size (linear), not 16x (quadratic);
  - Hugo on the same API-shaped data (a peers' folder given with --peers), when a `hugo`
    binary is installed
    (`apt-get install hugo`), with our time per page over Hugo's, on tmpfs (with every core and
    with one, by `taskset`) and on disk; Hugo
    and vatcar-site take turns run by run, so that both meet the same machine. Beside the ratio
    it prints what 10x Hugo's speed would be per page and what `cp -r` of our output takes per
    page on that file system: the two show how far the 10x target sits from the file floor.
Nothing here asserts a time: it prints numbers, and writes them to WORK/results.md.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# A folder outside the repository holding Hugo's site over the same data (gen_data.py, hugo/);
# given with --peers, or the comparison is left out.
PEERS = None
BIN = os.path.join(ROOT, "target", "release", "vatcar-site")
EPOCH = "1795176000"  # 2026-11-21, near the generated data


LAST_CPU = []


def measure(cmd, env=None, prepare=None, runs=3, cwd=None):
    """Median wall seconds and the largest peak RSS (MiB) over `runs` runs. The median CPU
    seconds (user + system) of the same runs is left in LAST_CPU[0]: on a shared virtual
    machine, wall time also counts time the host gave to others, CPU time does not."""
    walls, peaks, cpus = [], [], []
    for _ in range(runs):
        if prepare:
            prepare()
        # What the last run wrote or deleted reaches the disk now, not during the next run.
        os.sync()
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - start)
        err = proc.stderr.read().decode(errors="replace")
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{err}")
        peaks.append(usage.ru_maxrss / 1024)
        cpus.append(usage.ru_utime + usage.ru_stime)
    LAST_CPU[:] = [statistics.median(cpus)]
    return statistics.median(walls), max(peaks), err


def in_turns(cases, runs):
    """Runs each case (cmd, env, prepare) once per round, `runs` rounds, so that all of them
    meet the machine in the same state; a shared VM's speed drifts over minutes. Returns per
    case the median wall seconds, the largest peak MiB, the median CPU seconds and the last
    run's stderr."""
    results = [([], [], [], "") for _ in cases]
    for _ in range(runs):
        errs = []
        for (cmd, env, prepare), (walls, peaks, cpus, _) in zip(cases, results):
            wall, peak, err = measure(cmd, env, prepare=prepare, runs=1)
            walls.append(wall)
            peaks.append(peak)
            cpus.append(LAST_CPU[0])
            errs.append(err)
        # Each case keeps what it printed itself (before, every case got the last case's).
        results = [(w, p, c, err) for (w, p, c, _), err in zip(results, errs)]
    return [(statistics.median(w), max(p), statistics.median(c), e) for w, p, c, e in results]


def env_with(**extra):
    env = dict(os.environ)
    env.pop("VATCAR_API_KEY", None)
    # The generated events' banners name vatcar.net: the builds from the mock API show them
    # from there rather than reach it (the banners' own cost is measured apart).
    env.update({"SOURCE_DATE_EPOCH": EPOCH, "CI": "1", "VATCAR_BANNERS": "remote"}, **extra)
    return env


def count_pages(out):
    return sum(1 for _, _, files in os.walk(out) for f in files if f.endswith(".html"))


def rm(path):
    shutil.rmtree(path, ignore_errors=True)


def instructions(n, work):
    """Instructions of one build at size N, all threads, with the share spent in Tera: unlike
    time, the count does not move with the machine's load, so it shows small changes."""
    if not shutil.which("valgrind"):
        return ["valgrind not installed (`apt-get install valgrind`): no instruction count."]
    subprocess.run(["cargo", "build", "--profile", "profiling", "--locked", "--quiet"], cwd=ROOT, check=True)
    data = os.path.join(work, f"data-{n}")
    if not os.path.exists(os.path.join(data, "division-events.json")):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_data.py"), str(n), data], check=True)
    out = os.path.join(work, f"out-callgrind-{n}")
    rm(out)
    profile = os.path.join(work, f"callgrind-{n}.out")
    binary = os.path.join(ROOT, "target", "profiling", "vatcar-site")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={profile}", binary, "build",
                    "--snapshot", data, "--output", out, "--site-url", "https://bench.example.org/"],
                   env=env_with(), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rm(out)
    report = subprocess.run(["callgrind_annotate", "--inclusive=yes", profile], capture_output=True,
                            text=True, check=True).stdout
    total = int(re.search(r"^\s*([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", report, re.M).group(1).replace(",", ""))
    tera = re.search(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*tera\.rs:tera::tera::Tera::render \[", report, re.M)
    tera = int(tera.group(1).replace(",", "")) if tera else 0
    return [f"Instructions of a build at N = {n} (callgrind, all threads, `{os.path.relpath(profile, ROOT)}`): "
            f"{total / 1e9:.3f} G, {total / (2 * n):,.0f} per event page; Tera's rendering {100 * tera / total:.0f}%."]


def hostile_descriptions(work, runs):
    """The demo with one event's description replaced by `<div>` nested as deep as the bytes
    allow, or the same bytes flat: a build must take about as long for both."""
    import json
    rows = []
    for size in (5_000_000, 1_000_000):
        for shape in ("nested", "flat"):
            snap = os.path.join(work, f"hostile-{shape}-{size}")
            rm(snap)
            shutil.copytree(os.path.join(ROOT, "demo"), snap)
            path = os.path.join(snap, "facility-events.json")
            with open(path) as f:
                events = json.load(f)
            n = size // 11
            events["data"][0]["description"] = (
                "<div>" * n + "x" + "</div>" * n if shape == "nested" else "<div></div>" * n)
            with open(path, "w") as f:
                json.dump(events, f)
            out = os.path.join(work, "out-hostile")
            wall, peak, _ = measure([BIN, "build", "--snapshot", snap, "--output", out], env_with(),
                                    prepare=lambda: rm(out), runs=runs)
            rows.append(f"| demo + one description of {size / 1e6:g} MB of {shape} `<div>` | {wall:.3f} | {peak:.0f} |")
            rm(snap)
    return rows


def content_pages(work, runs):
    """Build time and peak memory of a site folder whose one content page holds N identical
    headings (each needs an id of its own) or N `@/` links (each is checked, and an error would
    name its line), at N and N / 4, against the same build with a one-line page. Linear work
    makes the time over the one-line page's grow 4x from the quarter to the full size. The
    ratio is of CPU time (user + system), which a shared machine's other work moves less than
    wall time; these builds take tens of milliseconds, so each is run at least 9 times (unless
    `--runs 1` asks for one run, for a binary that takes minutes)."""
    site = os.path.join(work, "content-site")
    out = os.path.join(work, "out-content")
    runs = 1 if runs == 1 else max(runs, 9)

    def build(body):
        rm(site)
        os.makedirs(os.path.join(site, "content"))
        with open(os.path.join(site, "vatcar-site.toml"), "w") as f:
            f.write('title = "Bench"\n')
        with open(os.path.join(site, "content", "page.md"), "w") as f:
            f.write('+++\ntitle = "Page"\n+++\n' + body)
        cmd = [BIN, "build", "--demo", "--config", os.path.join(site, "vatcar-site.toml"), "--output", out]
        wall, peak, _ = measure(cmd, env_with(), prepare=lambda: rm(out), runs=runs)
        return wall, peak, LAST_CPU[0]

    base, base_peak, base_cpu = build("One line.\n")
    rows = ["", f"A content page built with the demo's data (median of {runs}). The ratio is of CPU time over the "
            "one-line page's, full size over quarter size: 4 is linear, 16 quadratic.", "",
            "| content page | KB | wall s | CPU s | peak MiB | µs CPU per item | ratio to the quarter |",
            "|---|---|---|---|---|---|---|",
            f"| one line | 0 | {base:.3f} | {base_cpu:.3f} | {base_peak:.0f} | | |"]
    for what, line, n in [("identical headings", "## Same\n", 32_000), ("`@/` links", "[a](@/roster)\n", 50_000)]:
        quarter, quarter_peak, quarter_cpu = build(line * (n // 4))
        full, full_peak, full_cpu = build(line * n)
        ratio = (full_cpu - base_cpu) / max(quarter_cpu - base_cpu, 1e-3)
        rows.append(f"| {n // 4:,} {what} | {len(line) * (n // 4) / 1000:.0f} | {quarter:.3f} | {quarter_cpu:.3f} | "
                    f"{quarter_peak:.0f} | {1e6 * (quarter_cpu - base_cpu) / (n // 4):.2f} | |")
        rows.append(f"| {n:,} {what} | {len(line) * n / 1000:.0f} | {full:.3f} | {full_cpu:.3f} | {full_peak:.0f} | "
                    f"{1e6 * (full_cpu - base_cpu) / n:.2f} | {ratio:.1f} |")
        print(rows[-2], rows[-1], sep="\n", flush=True)
    rm(site)
    rm(out)
    return rows


def publish_stage(n, work, shm, runs):
    """The publish stage on its own (the `-v` line "stage publish"), for
    a rebuild over an existing site of size N in which every page changes (a new title): the
    whole tree is staged, swapped in and the old one removed. On disk and on tmpfs."""
    data = os.path.join(work, f"data-{n}")
    rows = []
    for label, where in [("disk", work)] + ([("tmpfs", shm)] if shm else []):
        out = os.path.join(where, f"publish-{n}")
        rm(out)
        base = [BIN, "build", "--snapshot", data, "--output", out, "--site-url", "https://bench.example.org/"]
        subprocess.run(base, env=env_with(), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        stages, walls = [], []
        for run in range(runs):
            os.sync()
            start = time.perf_counter()
            err = subprocess.run(base + ["-v", "--title", f"Title {run}"], env=env_with(), check=True,
                                 capture_output=True, text=True).stderr
            walls.append(time.perf_counter() - start)
            stages.append(int(re.search(r"stage publish: (\d+) ms", err).group(1)))
        rm(out)
        rows.append(f"| {n} | {label} | {statistics.median(walls):.3f} | {statistics.median(stages)} |")
        print(rows[-1], flush=True)
    return ["", "A rebuild in which every page changes (a new title), over the site already built; "
            "the publish stage is from the last file staged to the folder swapped and the old tree removed:",
            "", "| N | output on | rebuild wall s | publish stage ms |", "|---|---|---|---|", *rows]


def taskset(cores, cmd):
    """`cmd` on the first `cores` cores only (None: all of them), where taskset exists."""
    if cores is None or not shutil.which("taskset"):
        return cmd
    return ["taskset", "-c", ",".join(str(c) for c in range(cores))] + cmd


def input_mib(data):
    return sum(os.path.getsize(os.path.join(data, f)) for f in os.listdir(data)) / 2**20


def growth(rows):
    """Per-page cost and peak memory against the input's size, from the main table's rows
    (N, pages, seconds on tmpfs, peak MiB, input MiB): the per-page cost should stay within
    1.3x across sizes, and the peak grow no faster than the input."""
    if len(rows) < 2:
        return []
    first_ms = 1000 * rows[0][2] / rows[0][1]
    lines = ["", "Growth: time per page (tmpfs) and peak memory against the input's size. The goal: per-page "
             "cost within 1.3x of the smallest size's, and peak memory per MiB of input not growing:", "",
             "| N | pages | input MiB | ms/page (tmpfs) | over the smallest N's | peak MiB | peak MiB per input MiB |",
             "|---|---|---|---|---|---|---|"]
    for n, pages, seconds, peak, mib in rows:
        ms = 1000 * seconds / pages
        lines.append(f"| {n} | {pages} | {mib:.1f} | {ms:.3f} | {ms / first_ms:.2f}x | {peak:.0f} | {peak / mib:.1f} |")
    return lines


def rebuild_vs_full(n, work, shm, runs):
    """An unchanged rebuild against a full build into an empty folder, on the same file system
    (tmpfs where there is one), taking turns run by run."""
    data = os.path.join(work, f"data-{n}")
    where = shm or work
    full_out = os.path.join(where, f"full-{n}")
    again_out = os.path.join(where, f"again-{n}")
    args = ["--snapshot", data, "--site-url", "https://bench.example.org/"]
    subprocess.run([BIN, "build", "--output", again_out] + args, env=env_with(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    (full, _, full_cpu, _), (again, _, again_cpu, err) = in_turns(
        [([BIN, "build", "--output", full_out] + args, env_with(), lambda: rm(full_out)),
         ([BIN, "build", "--output", again_out] + args, env_with(), None)], runs)
    written = re.search(r"\((\d+) written", err)
    rm(full_out)
    rm(again_out)
    label = "tmpfs" if shm else "disk"
    return ["", "An unchanged rebuild (it writes nothing) against a full build into an empty folder, in turns "
            f"(output on {label}); the goal is at most 0.8x:", "",
            "| N | full build s | full CPU s | unchanged rebuild s | rebuild CPU s | rebuild / full (wall) | "
            "rebuild / full (CPU) | files rewritten |",
            "|---|---|---|---|---|---|---|---|",
            f"| {n} | {full:.3f} | {full_cpu:.2f} | {again:.3f} | {again_cpu:.2f} | {again / full:.2f}x | "
            f"{again_cpu / full_cpu:.2f}x | {written.group(1) if written else '?'} |"]


def mock_api_memory(n, work, shm, runs):
    """A full build of size N from the local mock API with no added latency, as a CI job
    fetching a large facility runs it: its peak memory holds the fetched bodies too."""
    data = os.path.join(work, f"data-{n}")
    mock = subprocess.Popen([sys.executable, os.path.join(HERE, "mock_api.py"), data, "--latency", "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        url = mock.stdout.readline().split()[-1]
        out = os.path.join(shm or work, f"out-mock-{n}")
        wall, peak, _ = measure([BIN, "build", "--base-url", url, "--api-key", "bench-key-0123456789",
                                 "--bookings-url", f"{url}/api/booking",
                                 "--output", out, "--site-url", "https://bench.example.org/"],
                                env_with(), prepare=lambda: rm(out), runs=runs)
        rm(out)
    finally:
        mock.kill()
    return (f"| full build of {os.path.basename(data)} from the mock API, no added latency (goal: peak under "
            f"200 MiB) | {wall:.3f} | {peak:.0f} |")


def hugo_site(n, work):
    """Hugo's site of the peers' folder over the peers' data of size N, ready to build."""
    pdata = os.path.join(work, f"peer-data-{n}")
    if not os.path.exists(pdata):
        subprocess.run([sys.executable, os.path.join(PEERS, "gen_data.py"), str(n), pdata], check=True,
                       stdout=subprocess.DEVNULL)
    site = os.path.join(work, "hugo-site")
    rm(site)
    shutil.copytree(os.path.join(PEERS, "hugo"), site)
    subprocess.run([sys.executable, os.path.join(site, "prepare.py"), pdata, "--mode", "stubs"], check=True,
                   stdout=subprocess.DEVNULL)
    return site


def peer_rows(args, shm, hugo, n_pages):
    """Hugo on the peers' data of each size from 1,000, taking turns with our build and `cp -r`
    of our output."""
    lines = []
    if hugo and PEERS and os.path.isdir(PEERS):
        version = subprocess.run([hugo, "version"], capture_output=True, text=True).stdout.split()[1]
        lines += ["", f"Hugo ({version}) on the peers' data of the same size, in the same run; per page is wall time over HTML pages "
                  "(Hugo: N event pages + 3, as the peers' own bench counts them):",
                  "", "| N | output on | cores | Hugo s | Hugo CPU s | Hugo peak MiB | Hugo ms/page | vatcar-site ms/page (same turns) "
                  "| Hugo / vatcar-site per page | 10x Hugo would be ms/page | `cp -r` of our output, ms/page (same turns) |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for n in [s for s in args.sizes if s >= 1000]:
            site = hugo_site(n, args.work)
            hpages = n + 3
            places = [("tmpfs", shm)] if shm else []
            places.append(("disk", args.work))
            data = os.path.join(args.work, f"data-{n}")
            pages = n_pages[n]
            # Both programs use every core they are given; with one core the comparison is of
            # the work alone (on tmpfs only: on disk the kernel's writeback blurs it).
            runs_on = [(label, where, None) for label, where in places]
            if shm and shutil.which("taskset"):
                runs_on.insert(1, ("tmpfs", shm, 1))
            for label, where, cores in runs_on:
                hout = os.path.join(where, f"hugo-out-{n}")
                out = os.path.join(where, f"pair-out-{n}")
                hugo_cmd = taskset(cores, [hugo, "--quiet", "-s", site, "-d", hout])
                ours_cmd = taskset(cores, [BIN, "build", "--snapshot", data, "--output", out, "--site-url",
                                           "https://bench.example.org/"])
                copy = os.path.join(where, f"pair-copy-{n}")
                # Hugo, vatcar-site and `cp -r` of our output take turns, so that all three meet
                # the same machine: on a shared virtual machine the speed drifts over minutes.
                (hwall, hpeak, hcpu, _), (owall, _, _, _), (cwall, _, _, _) = in_turns(
                    [(hugo_cmd, None, lambda: rm(hout)), (ours_cmd, env_with(), lambda: rm(out)),
                     (["cp", "-r", out, copy], None, lambda: rm(copy))], args.runs)
                rm(copy)
                ours = owall / pages
                lines.append(f"| {n} | {label} | {cores or os.cpu_count()} | {hwall:.3f} | {hcpu:.2f} | {hpeak:.0f} | "
                             f"{1000 * hwall / hpages:.3f} | {1000 * ours:.3f} | {(hwall / hpages) / ours:.1f}x | "
                             f"{100 * hwall / hpages:.3f} | {1000 * cwall / pages:.3f} |")
                print(lines[-1], flush=True)
                rm(hout)
                rm(out)
    elif not args.no_hugo:
        lines += ["", f"No peer comparison: {'no peers folder (--peers DIR)' if hugo else 'Hugo is not installed (`apt-get install hugo`)'}."]
    return lines


def ensure_data(n, work):
    data = os.path.join(work, f"data-{n}")
    if not os.path.exists(os.path.join(data, "division-events.json")):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_data.py"), str(n), data], check=True)
    return data


def serve_reload_median(runs):
    """The median of `benches/serve_reload.py` (edit to reload in `serve`, on the demo), in ms."""
    done = subprocess.run([sys.executable, os.path.join(HERE, "serve_reload.py"), "--bin", BIN,
                           "--runs", str(runs)], capture_output=True, text=True, check=True).stdout
    return float(re.search(r"median (\d+) ms", done).group(1)), done.strip().splitlines()[0]


def figures(args, shm, hugo, n=10000):
    """Issue 38's figures in one table, at size N on tmpfs, each ratio from runs that took
    turns (so that both sides met the machine in the same state): per page against Hugo and
    build over `cp -r` with 2 cores and with 1 (`taskset -c 0`), the first and the next
    unchanged rebuild over a full build, the peak memory of a full build (from a snapshot and
    from the mock API), and serve's edit-to-reload median on the demo."""
    if not shm:
        sys.exit("the figures are measured on tmpfs, and there is no /dev/shm")
    os.makedirs(shm, exist_ok=True)
    data = ensure_data(n, args.work)
    out, copy, hout = (os.path.join(shm, name) for name in ("fig-out", "fig-copy", "fig-hugo"))
    site_args = ["--snapshot", data, "--site-url", "https://bench.example.org/"]
    full = [BIN, "build", "--output", out] + site_args
    subprocess.run(full, env=env_with(), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pages = count_pages(out)
    site = hugo_site(n, args.work) if hugo and PEERS else None
    rows, peak = [], 0
    for cores in (2, 1):
        pin = (lambda cmd: taskset(1, cmd)) if cores == 1 else (lambda cmd: cmd)
        cases = [(pin(full), env_with(), lambda: rm(out)), (pin(["cp", "-r", out, copy]), None, lambda: rm(copy))]
        if site:
            cases.append((pin([hugo, "--quiet", "-s", site, "-d", hout]), None, lambda: rm(hout)))
        results = in_turns(cases, args.runs)
        (ours, ours_peak, _, _), (floor, _, _, _) = results[:2]
        peak = max(peak, ours_peak)
        before = len(rows)
        rows.append(("build / `cp -r`", cores, f"{ours / floor:.2f}x ({ours:.2f} s against {floor:.2f} s)",
                     "≤ 1.2" if cores == 2 else "≤ 1.3", ours / floor <= (1.2 if cores == 2 else 1.3)))
        if site:
            hwall = results[2][0]
            ratio = (hwall / (n + 3)) / (ours / pages)
            rows.append(("per page, Hugo / vatcar-site", cores,
                         f"{ratio:.1f}x ({1000 * hwall / (n + 3):.3f} against {1000 * ours / pages:.3f} ms)",
                         "≥ 4x", ratio >= 4))
        print(*(f"| {r[0]}, {r[1]} core{'s' if r[1] > 1 else ''} | {r[2]} |" for r in rows[before:]), sep="\n",
              flush=True)
    rm(copy)
    rm(hout)
    if not site:
        rows.append(("per page, Hugo / vatcar-site", "1 and 2",
                     "not measured: " + ("no peers folder (--peers DIR)" if hugo else "Hugo is not installed"),
                     "≥ 4x", None))
    # The first rebuild over a full build, and the next one over that rebuild, against the
    # full build, in turns.
    first_out, next_out = os.path.join(shm, "fig-first"), os.path.join(shm, "fig-next")

    def full_build_into(folder):
        rm(folder)
        subprocess.run([BIN, "build", "--output", folder] + site_args, env=env_with(), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    full_build_into(next_out)
    subprocess.run([BIN, "build", "--output", next_out] + site_args, env=env_with(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    (fwall, _, fcpu, _), (first, _, first_cpu, first_err), (again, _, again_cpu, again_err) = in_turns(
        [(full, env_with(), lambda: rm(out)),
         ([BIN, "build", "--output", first_out] + site_args, env_with(), lambda: full_build_into(first_out)),
         ([BIN, "build", "--output", next_out] + site_args, env_with(), None)], args.runs)
    for label, wall, cpu, err, goal in [("first unchanged rebuild / full build", first, first_cpu, first_err, 1.0),
                                        ("next unchanged rebuild / full build", again, again_cpu, again_err, 0.8)]:
        written = re.search(r"\((\d+) written", err)
        written = written.group(1) if written else "?"
        rows.append((label, 2, f"{wall / fwall:.2f}x wall ({wall:.2f} s against {fwall:.2f} s), {cpu / fcpu:.2f}x CPU; "
                     f"{written} file{'' if written == '1' else 's'} written", f"≤ {goal}", wall / fwall <= goal))
        print(f"| {label} | {rows[-1][2]} |", flush=True)
    for folder in (out, first_out, next_out):
        rm(folder)
    mock_row = mock_api_memory(n, args.work, shm, args.runs)
    mock_peak = float(mock_row.rsplit("|", 2)[-2])
    rows.append((f"peak memory, a full build at N = {n:,}", 2,
                 f"{peak:.0f} MiB from a snapshot, {mock_peak:.0f} MiB from the mock API", "< 200 MiB",
                 max(peak, mock_peak) < 200))
    reload_ms, reload_line = serve_reload_median(20)
    rows.append(("serve: edit to reload, median on the demo", 2, reload_line, "≤ 100 ms", reload_ms <= 100))
    load = os.getloadavg()
    lines = [f"Issue 38's figures ({time.strftime('%Y-%m-%d %H:%M')}, N = {n:,}: {pages} pages; output on tmpfs; "
             f"median of {args.runs} runs taken in turns; load average {load[0]:.1f} at the end):", "",
             "| figure | cores | measured | goal | met |", "|---|---|---|---|---|"]
    for figure, cores, measured, goal, met in rows:
        lines.append(f"| {figure} | {cores} | {measured} | {goal} | {'' if met is None else 'yes' if met else 'no'} |")
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(ROOT, "target", "bench"))
    ap.add_argument("--no-hugo", action="store_true")
    ap.add_argument("--instructions", type=int, metavar="N", default=None,
                    help="also count instructions (valgrind's callgrind) of a build at size N")
    ap.add_argument("--only", choices=["content", "hugo", "figures"],
                    help="run only these rows; figures: issue 38's table at N = 10,000 on tmpfs")
    ap.add_argument("--peers", help="the peers' folder (Hugo's site over the same data); without it, no comparison")
    ap.add_argument("--bin", help="measure this vatcar-site binary (another commit's) instead of building one")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    global BIN
    if args.bin:
        BIN = os.path.abspath(args.bin)
    else:
        subprocess.run(["cargo", "build", "--release", "--locked", "--quiet"], cwd=ROOT, check=True)
    if args.only == "content":
        text = "\n".join(content_pages(args.work, args.runs)) + "\n"
        with open(os.path.join(args.work, "results-content.md"), "w") as f:
            f.write(text)
        print(text)
        return
    global PEERS
    if args.peers:
        PEERS = os.path.abspath(args.peers)
    shm = "/dev/shm/vatcar-bench" if os.path.isdir("/dev/shm") else None
    hugo = None if args.no_hugo else shutil.which("hugo")
    if args.only == "figures":
        text = "\n".join(figures(args, shm, hugo)) + "\n"
        with open(os.path.join(args.work, "results-figures.md"), "w") as f:
            f.write(text)
        print(text)
        rm(shm)
        return
    if args.only == "hugo":
        n_pages = {}
        for n in args.sizes:
            data = os.path.join(args.work, f"data-{n}")
            if not os.path.exists(os.path.join(data, "division-events.json")):
                subprocess.run([sys.executable, os.path.join(HERE, "gen_data.py"), str(n), data], check=True)
            out = os.path.join(args.work, f"out-{n}")
            rm(out)
            subprocess.run([BIN, "build", "--snapshot", data, "--output", out], env=env_with(), check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            n_pages[n] = count_pages(out)
            rm(out)
        text = "\n".join(peer_rows(args, shm, hugo, n_pages)) + "\n"
        with open(os.path.join(args.work, "results-hugo.md"), "w") as f:
            f.write(text)
        print(text)
        if shm:
            rm(shm)
        return
    lines = [
        f"# vatcar-site benchmark ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, release build, median of {args.runs})",
        "",
        "| N | pages | build s (disk) | ms/page (disk) | cp -r s (disk) | build / cp -r (disk) | build s (tmpfs) | ms/page (tmpfs) | CPU s (tmpfs) | cp -r s (tmpfs) | build / cp -r (tmpfs) | peak MiB | rebuild s | rebuild writes |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    n_pages = {}
    grown = []
    for n in args.sizes:
        data = os.path.join(args.work, f"data-{n}")
        if not os.path.exists(os.path.join(data, "division-events.json")):
            subprocess.run([sys.executable, os.path.join(HERE, "gen_data.py"), str(n), data], check=True)
        out = os.path.join(args.work, f"out-{n}")
        build = [BIN, "build", "--snapshot", data, "--output", out, "--site-url", "https://bench.example.org/"]
        copy = os.path.join(args.work, f"copy-{n}")
        # The build and `cp -r` of what it wrote take turns: the ratio of the two is the point.
        (disk, peak, _, _), (floor, _, _, _) = in_turns(
            [(build, env_with(), lambda: rm(out)), (["cp", "-r", out, copy], None, lambda: rm(copy))], args.runs)
        pages = count_pages(out)
        rebuild, _, err = measure(build, env_with(), runs=args.runs)
        written = re.search(r"\((\d+) written", err)
        tmpfs = cpu = shm_floor = float("nan")
        if shm:
            shm_out = os.path.join(shm, f"out-{n}")
            shm_build = build[:-4] + ["--output", shm_out] + build[-2:]
            shm_copy = os.path.join(shm, f"copy-{n}")
            (tmpfs, peak_shm, cpu, _), (shm_floor, _, _, _) = in_turns(
                [(shm_build, env_with(), lambda: rm(shm_out)),
                 (["cp", "-r", shm_out, shm_copy], None, lambda: rm(shm_copy))], args.runs)
            peak = max(peak, peak_shm)
            rm(shm_copy)
            rm(shm_out)
        n_pages[n] = pages
        grown.append((n, pages, tmpfs if shm else disk, peak, input_mib(data)))
        lines.append(
            f"| {n} | {pages} | {disk:.3f} | {1000 * disk / pages:.3f} | {floor:.3f} | {disk / floor:.2f}x | "
            f"{tmpfs:.3f} | {1000 * tmpfs / pages:.3f} | {cpu:.2f} | {shm_floor:.3f} | {tmpfs / shm_floor:.2f}x | {peak:.0f} | {rebuild:.3f} | {written.group(1) if written else '?'} |"
        )
        rm(copy)
        print(lines[-1], flush=True)

    lines += growth(grown)
    medium = max([n for n in args.sizes if n <= 10000] or [min(args.sizes)])
    lines += rebuild_vs_full(medium, args.work, shm, args.runs)
    lines += publish_stage(max(args.sizes), args.work, shm, args.runs)

    # The network: every response 300 ms late; the endpoints must overlap. A real facility
    # is small, so this uses the smallest size.
    data = os.path.join(args.work, f"data-{min(args.sizes)}")
    mock = subprocess.Popen([sys.executable, os.path.join(HERE, "mock_api.py"), data, "--latency", "0.3"],
                            stdout=subprocess.PIPE, text=True)
    url = mock.stdout.readline().split()[-1]
    out = os.path.join(args.work, "out-mock")
    net, net_peak, _ = measure([BIN, "build", "--base-url", url, "--api-key", "bench-key-0123456789",
                                "--bookings-url", f"{url}/api/booking", "--output", out],
                               env_with(), prepare=lambda: rm(out), runs=args.runs)
    mock.kill()
    demo_out = os.path.join(args.work, "out-demo")
    demo, demo_peak, _ = measure([BIN, "build", "--demo", "--output", demo_out], env_with(),
                                 prepare=lambda: rm(demo_out), runs=max(args.runs, 5))
    lines += ["", "| case | wall s | peak MiB |", "|---|---|---|",
              f"| full build against the mock API, 300 ms per response ({os.path.basename(data)}) | {net:.3f} | {net_peak:.0f} |",
              f"| `build --demo` end to end | {demo:.3f} | {demo_peak:.0f} |",
              mock_api_memory(medium, args.work, shm, args.runs)]
    lines += hostile_descriptions(args.work, args.runs)
    lines += content_pages(args.work, args.runs)

    lines += peer_rows(args, shm, hugo, n_pages)

    if args.instructions:
        lines += ["", *instructions(args.instructions, args.work)]

    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.work, "results.md"), "w") as f:
        f.write(text)
    print(text)
    if shm:
        rm(shm)


if __name__ == "__main__":
    main()
