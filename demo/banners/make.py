"""Writes the demo's own event banners: a small flat graphic per banner address the demo's
events name (the event's name over two colours), as `fetch` would have saved them, so that
`build --demo` serves its banners itself and reads nothing from the network.

Writes demo/banners/<SHA-256 of the PNG>, demo/banners/list.rs (the files, for the binary) and
demo/banners.json (each address and its file, as a snapshot lists them). Needs Pillow.
Run from the repository's root after changing the demo's events: python3 demo/banners/make.py
"""

import glob
import hashlib
import io
import json
import os

from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.dirname(HERE)
# The demo's base address (src/settings: DEFAULT_BASE_URL's origin): relative banners resolve
# against it, as banner_address does.
ORIGIN = "https://vatcar.net"
COLOURS = [((11, 93, 122), (245, 196, 0)), ((18, 52, 86), (233, 84, 32)),
           ((20, 110, 70), (250, 240, 210)), ((90, 30, 110), (255, 170, 60))]


def address(image_url):
    """The address as the build keys it: absolute, spaces and the like percent-encoded."""
    url = image_url if image_url.startswith("https://") else ORIGIN + image_url
    keep = lambda c: 33 <= ord(c) < 127 and c not in '"<>\\^`{|}'
    return "".join(c if keep(c) else "".join(f"%{b:02X}" for b in c.encode()) for c in url)


def banner(name, colours):
    image = Image.new("RGB", (960, 320), colours[0])
    draw = ImageDraw.Draw(image)
    draw.polygon([(610, 0), (960, 0), (960, 320), (450, 320)], fill=colours[1])
    font = ImageFont.load_default(size=43)
    # The font has no arrows: "San Juan / Santo Domingo" reads as well.
    words, lines = name.replace("⇄", "/").split(), [""]
    for word in words:
        if draw.textlength(f"{lines[-1]} {word}", font=font) > 510:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]} {word}".strip()
    for n, line in enumerate(lines[:3]):
        draw.text((45, 72 + 62 * n), line, font=font, fill=(255, 255, 255))
    out = io.BytesIO()
    image.quantize(16).save(out, "PNG", optimize=True)
    return out.getvalue()


def main():
    for old in glob.glob(os.path.join(HERE, "?" * 64)):
        os.remove(old)
    listed, files = {}, {}
    for source in ["facility-events.json", "division-events.json"]:
        with open(os.path.join(DEMO, source), encoding="utf-8") as f:
            events = json.load(f)["data"]
        for event in events:
            if not event.get("image_url") or address(event["image_url"]) in listed:
                continue
            body = banner(event["name"], COLOURS[len(listed) % len(COLOURS)])
            digest = hashlib.sha256(body).hexdigest()
            files[digest] = body
            listed[address(event["image_url"])] = f"banners/{digest}"
    for digest, body in files.items():
        with open(os.path.join(HERE, digest), "wb") as f:
            f.write(body)
    with open(os.path.join(DEMO, "banners.json"), "w", encoding="utf-8") as f:
        json.dump(listed, f, indent=2, sort_keys=True)
        f.write("\n")
    with open(os.path.join(HERE, "list.rs"), "w", encoding="utf-8") as f:
        f.write("// Written by demo/banners/make.py: the demo's banners, for src/fetch/snapshot.rs.\n[\n")
        for digest in sorted(files):
            f.write(f'    ("{digest}", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/{digest}")).as_slice()),\n')
        f.write("]\n")
    print(f"{len(files)} banners, {sum(map(len, files.values()))} bytes")


if __name__ == "__main__":
    main()
