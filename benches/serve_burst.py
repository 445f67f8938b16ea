#!/usr/bin/env python3
"""A burst of many new files: the CPU time `serve` spends from the first file to the last rebuild.

Usage: python3 benches/serve_burst.py [--bin PATH] [--files 10000 20000] [-- SERVE FLAGS...]

Serves a site folder (a config file, an empty static/ and content/) over the demo data with
the release binary (built first unless --bin is given), writes N small files into static/ at
once (as a `git checkout` or an unpacked archive does), and waits until a rebuild has put
them all in the site. Prints, for each N, the CPU time (user + system, from /proc) serve spent
from the first file written to that rebuild, how many rebuilds it made, and, for scale, the CPU time of
a plain `build` of the same folder with the N files in it. Linux only. Nothing here asserts
a time.
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICK = os.sysconf("SC_CLK_TCK")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", help="measure this vatcar-site binary instead of building one")
    parser.add_argument("--files", type=int, nargs="+", default=[10000, 20000])
    parser.add_argument("flags", nargs="*", help="more flags for serve (after --), such as --poll")
    args = parser.parse_args()
    binary = args.bin
    if not binary:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        binary = os.path.join(ROOT, "target", "release", "vatcar-site")
    for count in args.files:
        site = tempfile.mkdtemp(prefix="vatcar-burst-")
        try:
            cpu, rebuilds = burst(binary, site, count, args.flags)
            build = plain_build(binary, site)
        finally:
            shutil.rmtree(site, ignore_errors=True)
        print(f"{count} new files: serve {cpu:.2f} s of CPU until they are all served, {rebuilds} rebuild(s); "
              f"a plain build of the folder {build:.2f} s")


def cpu_seconds(pid):
    """User and system time of process `pid` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def burst(binary, site, count, flags):
    """Serves `site`, writes `count` files into its static/, and gives serve's CPU time from
    then until a rebuild put them all in the site, and the number of rebuilds it printed."""
    with open(os.path.join(site, "vatcar-site.toml"), "w") as f:
        f.write('title = "Burst bench"\n')
    for folder in ["static", "content"]:
        os.mkdir(os.path.join(site, folder))
    server = subprocess.Popen([binary, "serve", "--demo", "--port", "0", "--output", "site", *flags],
                              cwd=site, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    started = threading.Event()
    # The rebuilds, and serve's CPU time once the site holds every file.
    rebuilds, complete = [], []
    last = os.path.join(site, "site", f"file-{count - 1}.txt")

    def read():
        for line in server.stderr:
            if "http://127.0.0.1:" in line:
                started.set()
            if "rebuilt after a change to" in line or "error:" in line:
                rebuilds.append(line)
                if os.path.exists(last) and not complete:
                    complete.append(cpu_seconds(server.pid))
            if "warning:" in line and "--site-url" not in line:
                print("  serve: " + line.strip())

    threading.Thread(target=read, daemon=True).start()
    try:
        if not started.wait(60):
            sys.exit("serve did not start")
        before = cpu_seconds(server.pid)
        static = os.path.join(site, "static")
        for n in range(count):
            with open(os.path.join(static, f"file-{n}.txt"), "w") as f:
                f.write(f"file {n}\n")
        while not complete:
            time.sleep(0.2)
        return complete[0] - before, len(rebuilds)
    finally:
        server.kill()
        server.wait()


def plain_build(binary, site):
    """CPU time of `build` of the same folder, with the files in it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([binary, "build", "--demo", "--output", "other", "--quiet"], cwd=site,
                   check=True, stdin=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


if __name__ == "__main__":
    main()
