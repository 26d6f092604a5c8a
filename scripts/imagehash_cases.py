#!/usr/bin/env python3
"""Degenerate images and what Python imagehash says of them, for retrace's cross-check.

Usage: python imagehash_cases.py OUT_DIR

Writes OUT_DIR/*.png and OUT_DIR/cases.jsonl, one line per hash to check:
  {"image": "<file name>", "crop": null | [l, t, r, b], "size": <hash_size>,
   "method": "phash" | "ahash" | "dhash", "hash": "<str(imagehash.<method>(img, size))>"}
where img is the PNG as read back with PIL.Image.open (cropped with img.crop(box) when crop is
given), so the Python side sees exactly the pixels retrace decodes.

The images are the ones where pHash's bits hang on rounding: chessboards of several cell sizes
and phases, horizontal and vertical stripes, mirror-symmetric and antisymmetric patterns,
constant images, gradients, small crops of them and odd sizes, in modes L, RGB, RGBA, LA, P
and 1. Their DCT has many coefficients that are zero up to rounding and a median of 0, so only
an implementation that rounds exactly as scipy's pocketfft agrees on every bit.
Deterministic: no clock, no unseeded randomness; the same files and lines on every run.
Needs imagehash 4.3.2 (with its numpy, scipy, Pillow and PyWavelets).
"""

import json
import os
import random
import sys

import imagehash
from PIL import Image

METHODS = {
    "phash": imagehash.phash,
    "ahash": imagehash.average_hash,
    "dhash": imagehash.dhash,
}


def pattern(width, height, value):
    """An L image whose pixel (x, y) is value(x, y) (clamped to 0..255)."""
    img = Image.new("L", (width, height))
    img.putdata([max(0, min(255, int(value(x, y)))) for y in range(height) for x in range(width)])
    return img


def chessboard(width, height, cell, phase_x=0, phase_y=0, dark=0, light=255):
    return pattern(
        width,
        height,
        lambda x, y: light if ((x + phase_x) // cell + (y + phase_y) // cell) % 2 else dark,
    )


def images():
    """(name, image, [(crop or None, hash_size), ...]) for every case."""
    rng = random.Random(20240607)
    cases = []

    def add(name, img, crops=(None,), sizes=(8,)):
        cases.append((name, img, [(crop, size) for crop in crops for size in sizes]))

    # Chessboards: cell sizes, phases and sizes, with crops the size of replay's regions.
    for cell in (1, 2, 3, 4, 5, 7, 8, 10, 16, 25):
        for phase in sorted({0, 1, cell // 2, cell - 1}):
            for width, height in ((100, 100), (64, 64), (37, 53), (53, 37), (32, 32), (99, 60)):
                crops = [None]
                if (width, height) == (100, 100):
                    crops += [(0, 0, 50, 50), (13, 7, 63, 57), (1, 1, 33, 33)]
                add(
                    f"chess_c{cell}_p{phase}_{width}x{height}",
                    chessboard(width, height, cell, phase, phase),
                    crops,
                )
    for cell in (1, 2, 4):
        add(f"chess_gray_c{cell}", chessboard(96, 96, cell, dark=100, light=101))
        add(f"chess_mid_c{cell}", chessboard(40, 40, cell, dark=64, light=192), sizes=(4, 6, 7, 8, 12, 13, 16))
    # Stripes, one axis at a time.
    for width in (1, 2, 3, 4, 5, 8, 11, 16):
        for phase in (0, 1):
            h = pattern(100, 100, lambda x, y, w=width, p=phase: 255 * (((y + p) // w) % 2))
            v = pattern(100, 100, lambda x, y, w=width, p=phase: 255 * (((x + p) // w) % 2))
            add(f"stripes_h_w{width}_p{phase}", h, [None, (5, 5, 55, 55)])
            add(f"stripes_v_w{width}_p{phase}", v, [None, (5, 5, 55, 55)])
    # Mirror-symmetric and antisymmetric patterns, single and both axes.
    for size in (32, 33, 64, 100, 101):
        mid = (size - 1) / 2
        add(f"sym_x_{size}", pattern(size, size, lambda x, y: 40 + 3 * abs(x - mid)))
        add(f"sym_xy_{size}", pattern(size, size, lambda x, y: 20 + 2 * abs(x - mid) + 2 * abs(y - mid)))
        add(f"antisym_x_{size}", pattern(size, size, lambda x, y: 128 + 2 * (x - mid)))
        add(f"antisym_xy_{size}", pattern(size, size, lambda x, y: 128 + (x - mid) * (y - mid) / 20))
        add(f"cross_{size}", pattern(size, size, lambda x, y: 255 if abs(x - mid) < 2 or abs(y - mid) < 2 else 0))
        add(f"ring_{size}", pattern(size, size, lambda x, y: 255 * (int(((x - mid) ** 2 + (y - mid) ** 2) ** 0.5) // 6 % 2)))
    # Constant images of several sizes, including tiny and odd ones.
    for value in (0, 1, 127, 128, 254, 255):
        for width, height in ((100, 100), (32, 32), (1, 1), (3, 7), (200, 9)):
            add(f"const_{value}_{width}x{height}", Image.new("L", (width, height), value), sizes=(8, 16))
    # Gradients: exact ramps whose DCT is odd-symmetric.
    for width, height in ((32, 32), (100, 100), (255, 1), (17, 40)):
        add(f"grad_x_{width}x{height}", pattern(width, height, lambda x, y, w=width: 255 * x / max(1, w - 1)))
        add(f"grad_y_{width}x{height}", pattern(width, height, lambda x, y, h=height: 255 * y / max(1, h - 1)))
        add(f"grad_xy_{width}x{height}", pattern(width, height, lambda x, y: (x + y) * 3))
    # A two-level image split in halves and quarters.
    for size in (32, 50, 100):
        add(f"halves_{size}", pattern(size, size, lambda x, y, s=size: 255 if x >= s // 2 else 0))
        add(f"quarters_{size}", pattern(size, size, lambda x, y, s=size: 200 if (x >= s // 2) != (y >= s // 2) else 30))
    # Small crops of big chessboards at many offsets and odd sizes.
    for cell in (1, 3, 4, 6):
        board = chessboard(160, 160, cell)
        offsets = [(rng.randrange(0, 100), rng.randrange(0, 100), rng.randrange(2, 60), rng.randrange(2, 60)) for _ in range(20)]
        add(f"board_c{cell}_crops", board, [(x, y, x + w, y + h) for x, y, w, h in offsets])
    # A 200x200 board of 25 px cells (like scikit-image's `checkerboard`), cropped as replay
    # crops: the 100 px square around points swept over the whole image, clipped at its edges.
    board = chessboard(200, 200, 25)
    boxes = [
        (max(0, x - 50), max(0, y - 50), min(200, x + 50), min(200, y + 50))
        for x in range(0, 200, 3)
        for y in range(0, 200, 7)
    ]
    add("checkerboard_200_sweep", board, boxes)
    # The same degenerate content in other modes: RGB, RGBA (alpha ignored), LA, P and 1.
    for cell in (1, 2, 4, 8):
        gray = chessboard(100, 100, cell, 1, 1)
        rgb = Image.merge("RGB", [gray, gray.point(lambda v: 255 - v), gray])
        add(f"chess_rgb_c{cell}", rgb, [None, (20, 20, 70, 70)])
        rgba = rgb.copy()
        rgba.putalpha(chessboard(100, 100, cell + 1))
        add(f"chess_rgba_c{cell}", rgba, [None, (20, 20, 70, 70)])
        la = Image.merge("LA", [gray, gray.point(lambda v: v // 2)])
        add(f"chess_la_c{cell}", la)
        add(f"chess_p_c{cell}", rgb.convert("P"))
        add(f"chess_1_c{cell}", gray.convert("1"))
    return cases


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines = []
    for name, img, checks in images():
        file = f"{name}.png"
        img.save(os.path.join(out, file))
        saved = Image.open(os.path.join(out, file))
        saved.load()
        for crop, size in checks:
            target = saved.crop(crop) if crop else saved
            for method, fn in METHODS.items():
                lines.append(
                    {"image": file, "crop": list(crop) if crop else None, "size": size,
                     "method": method, "hash": str(fn(target, hash_size=size))}
                )
    with open(os.path.join(out, "cases.jsonl"), "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    print(f"{len(lines)} hashes of {len({l['image'] for l in lines})} images in {out}")


if __name__ == "__main__":
    main()
