#!/usr/bin/env python3
"""A larger pile from a settled one: `copies` copies of a settled-pile MJCF side by side along x, in one bin
`copies` times as long, the walls between them removed.

Each copy is shifted by the bin's inner length along x (wall_xp's inner face minus wall_xn's), so a body that rested
against a removed wall now rests, at the same place, against the bodies of the next copy that rested against the
other side of it: where both touched the wall plane over a common area they overlap by their two wall penetrations
and are in contact, so the copies join into one island. The outer walls, the y walls (stretched to the new length),
the ground and the options are kept; bodies are renamed `c<copy>_<name>`. The result is nearly at rest, not settled:
the seams carry the removed walls' light loads, and a few bodies there move in the first steps.

Used for piles larger than those shared (bench/README.md, "Big islands"): three copies of settled_pile_N10000.xml
make a 30,000-body pile.

Usage: tile_pile.py SETTLED.xml OUT.xml [--copies 3]
"""

import argparse
import copy
import xml.etree.ElementTree as ET


def floats(text):
    return [float(x) for x in text.split()]


def text(values):
    return " ".join(f"{x:.9g}" for x in values)


def tile(tree, copies):
    """Tiles the worldbody of `tree` in place; returns the number of bodies."""
    world = tree.getroot().find("worldbody")
    walls = {g.get("name"): g for g in world.findall("geom") if (g.get("name") or "").startswith("wall_")}
    if not {"wall_xp", "wall_xn", "wall_yp", "wall_yn"} <= walls.keys():
        raise SystemExit("the pile needs geoms wall_xp, wall_xn, wall_yp and wall_yn (a bin)")
    inner = lambda name, sign: floats(walls[name].get("pos"))[0] + sign * floats(walls[name].get("size"))[0]
    length = inner("wall_xp", -1) - inner("wall_xn", +1)
    offsets = [(c - (copies - 1) / 2) * length for c in range(copies)]
    for name, sign in (("wall_xp", 1), ("wall_xn", -1)):
        pos = floats(walls[name].get("pos"))
        pos[0] += sign * offsets[-1]
        walls[name].set("pos", text(pos))
    for name in ("wall_yp", "wall_yn"):
        size = floats(walls[name].get("size"))
        size[0] += offsets[-1]
        walls[name].set("size", text(size))
    bodies = world.findall("body")
    for body in bodies:
        world.remove(body)
    for c, dx in enumerate(offsets):
        for body in bodies:
            tiled = copy.deepcopy(body)
            pos = floats(tiled.get("pos"))
            pos[0] += dx
            tiled.set("pos", text(pos))
            tiled.set("name", f"c{c}_{body.get('name')}")
            world.append(tiled)
    return copies * len(bodies)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("settled", help="a settled pile's MJCF (a bin: geoms wall_xp, wall_xn, wall_yp, wall_yn)")
    parser.add_argument("out", help="the tiled pile's MJCF")
    parser.add_argument("--copies", type=int, default=3)
    args = parser.parse_args()
    if args.copies < 1:
        raise SystemExit("--copies: must be ≥ 1")
    tree = ET.parse(args.settled)
    n = tile(tree, args.copies)
    tree.getroot().set("model", f"tiled_pile_N{n}")
    tree.write(args.out)
    print(f"{args.out}: {n} bodies")


if __name__ == "__main__":
    main()
