#!/usr/bin/env python3
"""The banner stage's benchmark: what a webmaster waits for, and what hostile banners cost.

Usage: python3 benches/banners.py [--bin PATH] [--runs 3] [--work DIR] [--only CASE ...]

Builds the release binary first (unless --bin), makes the banners with Pillow (installed into a
virtual environment under WORK on first use), serves them from benches/mock_api.py on
127.0.0.1, and prints one table: each case's median wall time, CPU time (user + sys of the
build process) and peak memory (its RSS, from wait4), over --runs runs.

The cases (issues 45 and 47):
  photos     14 distinct 3000 x 1500 JPEG photographs, each answered in 100 ms; a first build
             (an empty cache each run), and the size of the copies made
  rebuild    the same, the cache kept: an unchanged rebuild, and the banner requests it made
  dead       15 banners on a host that does not resolve (banners.invalid), the API at 300 ms
  api300     the API at 300 ms with no banners served here (banners = "remote"): the floor
  many       300 distinct 1920 x 640 banners, answered at once: peak memory
  bombs      8 PNGs of 5,600 x 5,600 transparent pixels (about 120 KB each): time, memory, and
             the warning that names each
Nothing here asserts a time: it prints numbers.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EPOCH = "1795176000"  # 2026-11-21, near the generated data


def pillow(work):
    """A Python with Pillow: this one, or a virtual environment made for it under `work`."""
    try:
        import PIL  # noqa: F401
        return sys.executable
    except ImportError:
        pass
    venv = os.path.join(work, "venv")
    python = os.path.join(venv, "bin", "python3")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "Pillow"], check=True)
    return python


MAKE_IMAGES = r'''
import os, random, sys
from PIL import Image, ImageFilter
kind, count, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(folder, exist_ok=True)
for n in range(count):
    if kind == "bomb":
        Image.new("RGBA", (5600, 5600)).save(f"{folder}/{n:03}.png", optimize=True)
        continue
    width, height = (3000, 1500) if kind == "photo" else (1920, 640)
    random.seed(n)
    # A photograph's look: soft shapes over a gradient, with grain.
    base = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    tint = Image.new("RGB", (width, height), tuple(random.randrange(256) for _ in range(3)))
    image = Image.blend(base, tint, 0.5)
    grain = Image.effect_noise((width, height), 24).convert("RGB")
    image = Image.blend(image, grain, 0.25).filter(ImageFilter.GaussianBlur(1.2))
    image.save(f"{folder}/{n:03}.jpg", quality=88)
'''


def images(python, work, kind, count):
    folder = os.path.join(work, f"{kind}-{count}")
    if not os.path.isdir(folder) or len(os.listdir(folder)) != count:
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([python, "-c", MAKE_IMAGES, kind, str(count), folder], check=True)
    return folder


def snapshot(work, events):
    folder = os.path.join(work, f"data-{events}")
    if not os.path.isdir(folder):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_data.py"), str(events), folder],
                       check=True, stdout=subprocess.DEVNULL)
    return folder


class Mock:
    def __init__(self, data, latency, banners=None, banner_latency=None, banner_origin=None):
        command = [sys.executable, os.path.join(HERE, "mock_api.py"), data, "--latency", str(latency)]
        if banners:
            command += ["--banners", banners]
        if banner_latency is not None:
            command += ["--banner-latency", str(banner_latency)]
        if banner_origin:
            command += ["--banner-origin", banner_origin]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        self.url = self.process.stdout.readline().split()[-1]

    def banner_requests(self):
        with urllib.request.urlopen(f"{self.url}/_banner-requests") as answer:
            return int(answer.read())

    def stop(self):
        self.process.kill()
        self.process.wait()


def build(binary, mock, out, banners="local"):
    """One build against `mock`: wall s, CPU s, peak MiB, stderr."""
    env = dict(os.environ, VATCAR_API_KEY="bench-key-0123456789", VATCAR_BASE_URL=mock.url,
               VATCAR_BOOKINGS_URL=mock.url + "/api/booking", VATCAR_BANNERS=banners,
               SOURCE_DATE_EPOCH=EPOCH)
    began = time.monotonic()
    process = subprocess.Popen([binary, "build", "--output", out], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - began
    if status != 0:
        sys.exit(f"the build failed:\n{stderr}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stderr


def copies(out):
    """The banner copies' total size by format: what a visitor's browser downloads."""
    sizes = {}
    for name in os.listdir(os.path.join(out, "banners")):
        kind = name.rsplit(".", 1)[-1]
        sizes[kind] = sizes.get(kind, 0) + os.path.getsize(os.path.join(out, "banners", name))
    return ", ".join(f"{kind.upper()} {size / 1024:.0f} KiB" for kind, size in sorted(sizes.items()))


def fresh(folder):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    return os.path.join(folder, "out")


def median_row(name, runs, note=""):
    pick = lambda i: statistics.median(run[i] for run in runs)
    return f"| {name} | {pick(0):.2f} s | {pick(1):.2f} s | {pick(2):.0f} MiB | {note} |"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(ROOT, "target", "bench-banners"))
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    binary = args.bin
    if not binary:
        subprocess.run(["cargo", "build", "--release", "--locked"], cwd=ROOT, check=True)
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
        binary = os.path.join(target, "release", "vatcar-site")
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    python = pillow(work)
    wanted = lambda case: not args.only or case in args.only
    rows = ["| case | wall | CPU | peak | |", "|---|---|---|---|---|"]

    if wanted("photos") or wanted("rebuild"):
        mock = Mock(snapshot(work, 14), 0.0, images(python, work, "photo", 14), banner_latency=0.1)
        first, again, asked = [], [], []
        for run in range(args.runs):
            site = os.path.join(work, f"photos-{run}")
            out = fresh(site)
            first.append(build(binary, mock, out))
            before = mock.banner_requests()
            again.append(build(binary, mock, out))
            asked.append(mock.banner_requests() - before)
        mock.stop()
        rows.append(median_row("14 photos 3000 x 1500, 100 ms each, first build", first,
                               "copies: " + copies(out)))
        rows.append(median_row("the same, unchanged rebuild", again,
                               f"{max(asked)} banner requests"))

    if wanted("dead"):
        mock = Mock(snapshot(work, 15), 0.3, images(python, work, "photo", 14),
                    banner_origin="https://banners.invalid")
        runs = [build(binary, mock, fresh(os.path.join(work, f"dead-{run}"))) for run in range(args.runs)]
        mock.stop()
        rows.append(median_row("15 banners on a host that does not resolve, API at 300 ms", runs))

    if wanted("api300"):
        mock = Mock(snapshot(work, 15), 0.3)
        runs = [build(binary, mock, fresh(os.path.join(work, f"api-{run}")), "remote")
                for run in range(args.runs)]
        mock.stop()
        rows.append(median_row("the API at 300 ms, banners remote", runs))

    if wanted("many"):
        mock = Mock(snapshot(work, 300), 0.0, images(python, work, "wide", 300))
        runs = [build(binary, mock, fresh(os.path.join(work, f"many-{run}"))) for run in range(args.runs)]
        mock.stop()
        rows.append(median_row("300 distinct banners 1920 x 640", runs))

    if wanted("bombs"):
        mock = Mock(snapshot(work, 8), 0.0, images(python, work, "bomb", 8))
        runs = [build(binary, mock, fresh(os.path.join(work, f"bombs-{run}"))) for run in range(args.runs)]
        mock.stop()
        warned = max(run[3].count("larger than vatcar-site decodes") for run in runs)
        rows.append(median_row("8 PNG bombs, 5,600 x 5,600", runs, f"{warned} named as too large"))

    print("\n".join(rows))


if __name__ == "__main__":
    sys.exit(main())
