#!/usr/bin/env python3
"""Writes the `http_api` fuzz target's seeds (fuzz/seeds/http_api/): each is a little-endian u16
length, a recording from fuzz/seeds/reader/ (served as crafted.reel), and request lines for every
route, over the crafted file, the sound ones and the names that lead outside (see
fuzz/src/http_api.rs). Run from the repository root: python3 scripts/http-api-seeds.py"""
import pathlib
import struct

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "fuzz/seeds/http_api"
out.mkdir(parents=True, exist_ok=True)
requests = {
    "info": ["info?rec=crafted.reel", "markers?rec=crafted.reel", "recordings", "!info?rec=golden.reel"],
    "frames": [
        "frames?rec=crafted.reel&from=0&count=64",
        "frames?rec=crafted.reel&from=4294967295&count=2048&step=9&dir=back",
        "seek?rec=crafted.reel&tick=7",
        "frames?rec=golden.reel&count=3",
    ],
    "ghost": [
        "ghost?rec=crafted.reel&entity=1&ghost_entity=2",
        "ghost?rec=crafted.reel&entity=1&ghost=golden.reel&ghost_entity=1",
        "catalog/top?course=c",
        "live?rec=crafted.reel",
    ],
    "leaving": [
        "info?rec=link.reel",
        "frames?rec=out%2Fsecret.reel&count=2",
        "seek?rec=leaving.reel.live&tick=0",
        "info?rec=..%2Fserved%2Fgolden.reel",
        "info?rec=sub%2Fgolden-v1.reel",
        "/",
        "/viewer.js",
        "!frames?rec=crafted.reel",
    ],
}
for recording in sorted((root / "fuzz/seeds/reader").glob("*.reel")):
    data = recording.read_bytes()
    for name, lines in requests.items():
        body = struct.pack("<H", len(data)) + data + "\n".join(lines).encode()
        (out / f"{recording.stem}-{name}").write_bytes(body)
print(f"{len(list(out.iterdir()))} seeds in {out.relative_to(root)}")
