#!/usr/bin/env python3
"""Build ../map.textproto (message counterattack.data.Map) from geography.json.

Standard library only, deterministic. Usage:

    python3 build_map.py            # writes ../map.textproto, runs the checks
    python3 build_map.py --ascii    # also prints the map as ASCII (rows north->south)
    python3 build_map.py --check    # checks only, writes nothing

Grid: flat-topped hexes, hex_km side to side, columns west->east from 01, rows
north->south from 01, hex id CCRR. Even columns sit half a hex lower than odd ones.
Column spacing is 1.5 * hex_km / sqrt(3) (1.732 km for 2 km hexes), row spacing hex_km.
Geographic coordinates are projected with a local equirectangular projection around
grid.ref_lat; the centre of hex 0101 is (grid.origin_lat, grid.origin_lon).

A hex exists when its centre lies inside the bounding box of the grid section and
inside the polygon formed by the Vistula (west), the Narew and the Bug (north) and a
closing line beyond the south-east corner. Terrain, roads and hexsides are derived
from the features of geography.json (see README.md beside the textprotos).

Exit status is non-zero when a consistency check fails.
"""

import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEO = os.path.join(HERE, "geography.json")
OUT = os.path.join(HERE, "..", "map.textproto")
CALENDAR = os.path.join(HERE, "..", "calendar.textproto")

SYM = {"clear": ".", "woods": "f", "marsh": "m", "village": "v", "town": "t", "city": "C"}
PRIORITY = ["clear", "woods", "marsh", "village", "town", "city"]  # later wins


class Grid:
    def __init__(self, g):
        self.lat0 = g["origin_lat"]
        self.lon0 = g["origin_lon"]
        self.hk = g["hex_km"]
        self.kmlat = g["km_per_deg_lat"]
        self.kmlon = 111.32 * math.cos(math.radians(g["ref_lat"]))
        self.dx = 1.5 * self.hk / math.sqrt(3.0)
        self.dy = self.hk

    def xy(self, latlon):
        lat, lon = latlon
        return ((lon - self.lon0) * self.kmlon, (self.lat0 - lat) * self.kmlat)

    def latlon(self, x, y):
        return (self.lat0 - y / self.kmlat, self.lon0 + x / self.kmlon)

    def centre(self, c, r):
        return ((c - 1) * self.dx, (r - 1) * self.dy + (self.dy / 2.0 if c % 2 == 0 else 0.0))

    def hex_at(self, x, y):
        """Nearest hex centre (the hex containing the point); may be off the grid."""
        c0 = int(round(x / self.dx)) + 1
        best = None
        for c in (c0 - 1, c0, c0 + 1):
            off = self.dy / 2.0 if c % 2 == 0 else 0.0
            r0 = int(round((y - off) / self.dy)) + 1
            for r in (r0 - 1, r0, r0 + 1):
                cx, cy = self.centre(c, r)
                d = (cx - x) ** 2 + (cy - y) ** 2
                if best is None or d < best[0] - 1e-12 or (abs(d - best[0]) <= 1e-12 and (c, r) < best[1]):
                    best = (d, (c, r))
        return best[1]


def neighbours(c, r):
    if c % 2 == 1:
        return [(c, r - 1), (c + 1, r - 1), (c + 1, r), (c, r + 1), (c - 1, r), (c - 1, r - 1)]
    return [(c, r - 1), (c + 1, r), (c + 1, r + 1), (c, r + 1), (c - 1, r + 1), (c - 1, r)]


def adjacent(a, b):
    return b in neighbours(*a)


def to_cube(c, r):
    q = c - 1
    row = r - 1
    x = q
    z = row - (q - (q & 1)) // 2
    return (x, -x - z, z)


def from_cube(x, y, z):
    q = x
    row = z + (q - (q & 1)) // 2
    return (q + 1, row + 1)


def cube_round(x, y, z):
    rx, ry, rz = round(x), round(y), round(z)
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    else:
        rz = -rx - ry
    return (int(rx), int(ry), int(rz))


def hex_line(a, b):
    ca, cb = to_cube(*a), to_cube(*b)
    n = max(abs(ca[0] - cb[0]), abs(ca[1] - cb[1]), abs(ca[2] - cb[2]))
    out = []
    for i in range(n + 1):
        t = i / n if n else 0.0
        p = [ca[k] + (cb[k] - ca[k]) * t + 1e-6 * (k + 1) for k in range(3)]
        out.append(from_cube(*cube_round(*p)))
    return out


def hid(h):
    return h[0] * 100 + h[1]


def hname(h):
    return "%02d%02d" % h


def point_in_poly(x, y, poly):
    inside = False
    n = len(poly)
    j = n - 1
    for i in range(n):
        xi, yi = poly[i]
        xj, yj = poly[j]
        if (yi > y) != (yj > y):
            xc = xi + (y - yi) * (xj - xi) / (yj - yi)
            if x < xc:
                inside = not inside
        j = i
    return inside


def seg_dist(px, py, ax, ay, bx, by):
    vx, vy = bx - ax, by - ay
    L = vx * vx + vy * vy
    t = 0.0 if L == 0 else max(0.0, min(1.0, ((px - ax) * vx + (py - ay) * vy) / L))
    qx, qy = ax + t * vx, ay + t * vy
    return math.hypot(px - qx, py - qy)


def poly_dist(px, py, line):
    return min(seg_dist(px, py, line[i][0], line[i][1], line[i + 1][0], line[i + 1][1])
               for i in range(len(line) - 1))


def seg_intersect(p1, p2, p3, p4):
    def orient(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    d1 = orient(p3, p4, p1)
    d2 = orient(p3, p4, p2)
    d3 = orient(p1, p2, p3)
    d4 = orient(p1, p2, p4)
    return ((d1 > 0) != (d2 > 0)) and ((d3 > 0) != (d4 > 0)) and d1 != 0 and d2 != 0 and d3 != 0 and d4 != 0


def crossings(p1, p2, line):
    n = 0
    for i in range(len(line) - 1):
        if seg_intersect(p1, p2, line[i], line[i + 1]):
            n += 1
    return n


def q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Builder:
    def __init__(self, geo):
        self.geo = geo
        self.g = Grid(geo["grid"])
        self.errors = []
        self.notes = []

    def err(self, msg):
        self.errors.append(msg)

    # ------------------------------------------------------------------ grid
    def build_grid(self):
        geo, g = self.geo, self.g
        gr = geo["grid"]
        br = geo["boundary_rivers"]
        ring = br["Vistula"] + br["Narew"][1:] + br["Bug"][1:] + br["closing"][1:]
        self.boundary = [g.xy(p) for p in ring]
        self.rivers = {k: [g.xy(p) for p in br[k]] for k in ("Vistula", "Narew", "Bug")}
        xmax = g.xy((0, gr["lon_max"]))[0]
        ymax = g.xy((gr["lat_min"], 0))[1]
        cmax = int(xmax / g.dx) + 2
        rmax = int(ymax / g.dy) + 2
        on = set()
        for c in range(1, cmax + 1):
            for r in range(1, rmax + 1):
                x, y = g.centre(c, r)
                lat, lon = g.latlon(x, y)
                if not (gr["lat_min"] <= lat <= gr["lat_max"] and gr["lon_min"] <= lon <= gr["lon_max"]):
                    continue
                if point_in_poly(x, y, self.boundary):
                    on.add((c, r))
        # keep the largest connected component (drops slivers cut off by a river bend)
        comps = []
        seen = set()
        for h in sorted(on):
            if h in seen:
                continue
            comp = []
            stack = [h]
            seen.add(h)
            while stack:
                a = stack.pop()
                comp.append(a)
                for b in neighbours(*a):
                    if b in on and b not in seen:
                        seen.add(b)
                        stack.append(b)
            comps.append(comp)
        comps.sort(key=lambda cm: (-len(cm), min(cm)))
        for cm in comps[1:]:
            self.notes.append("dropped %d isolated hex(es): %s" % (len(cm), " ".join(hname(h) for h in sorted(cm))))
            for h in cm:
                on.discard(h)
        self.on = on
        self.columns = max(c for c, r in on)
        self.rows = max(r for c, r in on)
        self.terrain = {h: "clear" for h in on}

    def is_on(self, h):
        return h in self.on

    def is_edge(self, h):
        return any(not self.is_on(n) for n in neighbours(*h))

    def nearest_on(self, x, y, maxd=None, pred=None):
        best = None
        for h in self.on:
            if pred and not pred(h):
                continue
            cx, cy = self.g.centre(*h)
            d = math.hypot(cx - x, cy - y)
            if best is None or d < best[0] - 1e-9 or (abs(d - best[0]) <= 1e-9 and h < best[1]):
                best = (d, h)
        if best is None or (maxd is not None and best[0] > maxd):
            return None
        return best[1]

    def set_terrain(self, h, t):
        if h in self.terrain and PRIORITY.index(t) >= PRIORITY.index(self.terrain[h]):
            self.terrain[h] = t

    # --------------------------------------------------------------- terrain
    def build_terrain(self):
        g = self.g
        for f in self.geo["forests"]:
            poly = [g.xy(p) for p in f["polygon"]]
            for h in self.on:
                if point_in_poly(*g.centre(*h), poly):
                    self.set_terrain(h, "woods")
        for m in self.geo["marshes"]:
            if "polygon" in m:
                poly = [g.xy(p) for p in m["polygon"]]
                for h in self.on:
                    if point_in_poly(*g.centre(*h), poly):
                        self.set_terrain(h, "marsh")
            else:
                line = [g.xy(p) for p in m["line"]]
                for h in self.on:
                    if poly_dist(*g.centre(*h), line) <= m["buffer_km"]:
                        self.set_terrain(h, "marsh")
        self.places = []
        for p in self.geo["places"]:
            x, y = g.xy(p["at"])
            h = g.hex_at(x, y)
            if not self.is_on(h):
                h2 = self.nearest_on(x, y, maxd=2.0)
                if h2 is None:
                    self.err("place %s at %s falls off the map (hex %s)" % (p["name"], p["at"], hname(h)))
                    continue
                self.notes.append("place %s snapped from off-map %s to %s" % (p["name"], hname(h), hname(h2)))
                h = h2
            if p["kind"] in ("village", "town", "city"):
                self.set_terrain(h, p["kind"])
            self.places.append((h, p["name"]))

    # ----------------------------------------------------------------- warsaw
    def build_warsaw(self):
        g = self.g
        w = self.geo["warsaw"]
        used = set()
        self.praga = []
        for b in w["praga_bridges"]:
            x, y = g.xy(b["east_end"])
            h = g.hex_at(x, y)
            if not self.is_on(h) or h in used:
                h = self.nearest_on(x, y, pred=lambda k: k not in used and self.is_edge(k))
            used.add(h)
            self.praga.append((b["name"], h))
            self.set_terrain(h, "city")
            self.places.append((h, "Praga (" + b["name"] + ")"))
        jb = w["jozefow_bridge"]
        x, y = g.xy(jb["east_end"])
        self.jozefow = (jb["name"], self.nearest_on(x, y, pred=self.is_edge))
        self.places.append((self.jozefow[1], "Jozefow bridge"))

    # ------------------------------------------------------------------ paths
    def trace(self, pts, snap_km=1.2):
        """Hex path along a polyline: dense sampling, snapping to the map near its
        edge, gap filling, loop removal. Returns the raw path (may contain off-map
        hexes where the line really leaves the map)."""
        g = self.g
        xy = [g.xy(p) for p in pts]
        samples = []
        for i in range(len(xy) - 1):
            (ax, ay), (bx, by) = xy[i], xy[i + 1]
            n = max(1, int(math.hypot(bx - ax, by - ay) / 0.2))
            for k in range(n):
                t = k / n
                samples.append((ax + (bx - ax) * t, ay + (by - ay) * t))
        samples.append(xy[-1])
        path = []
        for (x, y) in samples:
            h = g.hex_at(x, y)
            if not self.is_on(h):
                # hug the map where the line runs just beyond a river bank or the edge
                cand = [n for n in [h] + neighbours(*h) if self.is_on(n)]
                best = None
                for n in cand:
                    cx, cy = g.centre(*n)
                    d = math.hypot(cx - x, cy - y)
                    if d <= snap_km and (best is None or d < best[0]):
                        best = (d, n)
                if best:
                    h = best[1]
            if path and h == path[-1]:
                continue
            if path and not adjacent(path[-1], h):
                a = path[-1]
                common = [n for n in neighbours(*a) if adjacent(n, h)]
                if common:
                    common.sort(key=lambda n: (not self.is_on(n),
                                               math.hypot(g.centre(*n)[0] - x, g.centre(*n)[1] - y), n))
                    fill = [common[0]]
                else:
                    fill = hex_line(a, h)[1:-1]
                for f in fill:
                    self._push(path, f)
            self._push(path, h)
        # string pulling: drop a hex whose two path neighbours touch each other (a
        # zigzag along a hex boundary), unless it holds one of the line's waypoints
        keep = set()
        for (x, y) in xy:
            keep.add(g.hex_at(x, y))
        changed = True
        while changed:
            changed = False
            i = 1
            while i < len(path) - 1:
                if path[i] not in keep and adjacent(path[i - 1], path[i + 1]):
                    del path[i]
                    changed = True
                else:
                    i += 1
        return path

    @staticmethod
    def _push(path, h):
        if path and path[-1] == h:
            return
        if h in path:
            del path[path.index(h) + 1:]
            return
        path.append(h)

    def build_roads(self):
        self.roads = []
        self.road_ends = {}
        self.road_hexes = {}
        for rd in self.geo["roads"]:
            path = self.trace(rd["points"])
            runs, cur = [], []
            for h in path:
                if self.is_on(h):
                    cur.append(h)
                else:
                    if cur:
                        runs.append(cur)
                    cur = []
            if cur:
                runs.append(cur)
            runs = [r for r in runs if len(r) >= 2]
            if not runs:
                self.err("road %s has no on-map part" % rd["name"])
                continue
            if len(runs) > 1:
                self.notes.append("road %s leaves and re-enters the map: %d parts" % (rd["name"], len(runs)))
            for i, run in enumerate(runs):
                name = rd["name"] if len(runs) == 1 else "%s (part %d)" % (rd["name"], i + 1)
                self.roads.append((rd["type"], name, run))
                for h in run:
                    self.road_hexes.setdefault(rd["type"], set()).add(h)
            self.road_ends[rd["name"]] = (runs[0][0], runs[-1][-1], path)

    # --------------------------------------------------------------- hexsides
    def pairs(self):
        for h in sorted(self.on):
            for n in neighbours(*h):
                if n in self.on and h < n:
                    yield h, n

    def build_hexsides(self):
        g = self.g
        self.hexsides = []
        feats = [(s["type"], s["name"], [g.xy(p) for p in s["line"]]) for s in self.geo["streams"]]
        feats += [("major_river", k, self.rivers[k]) for k in ("Vistula", "Narew", "Bug")]
        taken = set()
        for typ, name, line in feats:
            xs = [p[0] for p in line]
            ys = [p[1] for p in line]
            bx0, bx1, by0, by1 = min(xs) - 3, max(xs) + 3, min(ys) - 3, max(ys) + 3
            sides = []
            for a, b in self.pairs():
                pa, pb = g.centre(*a), g.centre(*b)
                if max(pa[0], pb[0]) < bx0 or min(pa[0], pb[0]) > bx1 or max(pa[1], pb[1]) < by0 or min(pa[1], pb[1]) > by1:
                    continue
                if crossings(pa, pb, line) % 2 == 1 and (a, b) not in taken:
                    taken.add((a, b))
                    sides.append("%s-%s" % (hname(a), hname(b)))
            if sides:
                self.hexsides.append((typ, name, sides))

    # ------------------------------------------------------------- overlays
    def build_overlays(self):
        ov = self.geo["overlays"]
        self.entries = []
        self.entry_hexes = {}
        for e in ov["entry_points"]:
            hexes = []
            for rname, end in e["roads"]:
                if rname not in self.road_ends:
                    self.err("entry %s: unknown road %s" % (e["id"], rname))
                    continue
                first, last, _ = self.road_ends[rname]
                hexes.append(first if end == "first" else last)
            self.entries.append((e, hexes))
            self.entry_hexes[e["id"]] = hexes
            if e.get("place") and hexes:
                self.places.append((hexes[0], e["place"]))
        self.routes = ov["off_map_routes"]
        self.victory = []
        placemap = {}
        for h, n in self.places:
            placemap.setdefault(n, h)
        for v in ov["victory"]:
            w = v["what"]
            if w == "praga":
                hexes = [h for _, h in self.praga]
            elif w.startswith("place:"):
                hexes = [placemap[w[6:]]] if w[6:] in placemap else []
            elif w.startswith("entry:"):
                hexes = [self.entry_hexes[i][0] for i in w[6:].split(",") if i in self.entry_hexes]
            else:
                hexes = []
            if not hexes:
                self.err("victory %s: no hexes" % v["name"])
            self.victory.append((v["name"], hexes, v["points_per_hex"]))

    # ----------------------------------------------------------------- checks
    def check(self):
        on = self.on
        n = len(on)
        if n <= 1000:
            self.err("only %d hexes (need > 1000)" % n)
        if self.columns > 99 or self.rows > 99:
            self.err("grid too large: %dx%d" % (self.columns, self.rows))
        # connectivity
        start = min(on)
        seen = {start}
        stack = [start]
        while stack:
            a = stack.pop()
            for b in neighbours(*a):
                if b in on and b not in seen:
                    seen.add(b)
                    stack.append(b)
        if len(seen) != n:
            self.err("map not connected: %d of %d hexes reachable" % (len(seen), n))
        for typ, name, run in self.roads:
            for h in run:
                if h not in on:
                    self.err("road %s: hex %s off map" % (name, hname(h)))
            for a, b in zip(run, run[1:]):
                if not adjacent(a, b):
                    self.err("road %s: %s and %s not adjacent" % (name, hname(a), hname(b)))
            if len(set(run)) != len(run):
                self.err("road %s: repeats a hex" % name)
        for typ, name, sides in self.hexsides:
            for s in sides:
                a, b = s.split("-")
                ha, hb = (int(a[:2]), int(a[2:])), (int(b[:2]), int(b[2:]))
                if ha not in on or hb not in on:
                    self.err("hexside %s %s: hex off map" % (name, s))
                if not adjacent(ha, hb):
                    self.err("hexside %s %s: not adjacent" % (name, s))
        for h, name in self.places:
            if h not in on:
                self.err("place %s: hex off map" % name)
        for name, h in self.praga + [self.jozefow]:
            if h is None or h not in on:
                self.err("bridge %s: hex off map" % name)
            elif not self.is_edge(h):
                self.err("bridge %s: hex %s not on the river bank" % (name, hname(h)))
        if len({h for _, h in self.praga}) != len(self.praga):
            self.err("Praga bridge hexes are not distinct")
        for name, hexes, _ in self.victory:
            for h in hexes:
                if h not in on:
                    self.err("victory %s: hex off map" % name)
        ids = set()
        for e, hexes in self.entries:
            if e["id"] in ids:
                self.err("entry %s duplicated" % e["id"])
            ids.add(e["id"])
            if not hexes:
                self.err("entry %s has no hex" % e["id"])
            for h in hexes:
                if h not in on:
                    self.err("entry %s: hex off map" % e["id"])
                elif not self.is_edge(h):
                    self.err("entry %s: hex %s not on the map edge" % (e["id"], hname(h)))
        if len(self.entry_hexes.get("E", [])) != 2 or len(set(self.entry_hexes.get("E", []))) != 2:
            self.err("entry E must have two distinct hexes")
        nodes = ids | {"WARSAW"}
        outdirs = {}
        for r in self.routes:
            if r["from"] not in nodes or r["to"] not in nodes:
                self.err("off-map route %s->%s: unknown node" % (r["from"], r["to"]))
            outdirs.setdefault(r["from"], set()).add(r["to"])
        multi = sorted(k for k, v in outdirs.items() if len(v) > 1)
        if multi not in (["B"], ["B", "WARSAW"]):
            self.err("off-map chart: only B may have routes in more than one direction, got %s" % multi)
        fixed = {(r["from"], r["to"]): r["cost_half"] for r in self.routes}
        if fixed.get(("F", "E")) != 10 or fixed.get(("E", "D")) != 12:
            self.err("off-map chart: F->E must cost 10 half MP and E->D 12 (rule 6 example)")
        # rule 6 example: the northern E hex is on a road
        if self.entry_hexes.get("E"):
            north = min(self.entry_hexes["E"], key=lambda h: (self.g.centre(*h)[1], h))
            if not any(north in s for t, s in self.road_hexes.items() if t != "railway"):
                self.err("entry E: northern hex %s is not on a road" % hname(north))
        # calendar setup hexes, when the calendar exists
        if os.path.exists(CALENDAR):
            txt = open(CALENDAR, encoding="utf-8").read()
            for m in re.finditer(r"\bhex:\s*(\d+)", txt):
                v = int(m.group(1))
                if v and (v // 100, v % 100) not in on:
                    self.err("calendar.textproto: setup hex %04d not on the map" % v)
            counters = os.path.join(HERE, "..", "counters.textproto")
            if os.path.exists(counters):
                ctxt = open(counters, encoding="utf-8").read()
                trains = set(re.findall(r'id:\s*"([^"]+)"[^}]*?unit_class:\s*ARMORED_TRAIN', ctxt))
                rail = self.road_hexes.get("railway", set())
                for m in re.finditer(r'setup\s*\{\s*unit:\s*"([^"]+)"\s*hex:\s*(\d+)', txt):
                    v = int(m.group(2))
                    if m.group(1) in trains and (v // 100, v % 100) not in rail:
                        self.err("calendar.textproto: armored train %s set up off the railways (%04d)" % (m.group(1), v))

    # ----------------------------------------------------------------- output
    def ascii(self):
        lines = []
        for r in range(1, self.rows + 1):
            lines.append("".join(SYM[self.terrain[(c, r)]] if (c, r) in self.on else " "
                                 for c in range(1, self.columns + 1)))
        return lines

    def textproto(self):
        g = self.geo["grid"]
        o = []
        o.append("# Model's Counterattack -- the map (message counterattack.data.Map).")
        o.append("# GENERATED by source/build_map.py from source/geography.json: do not edit by hand;")
        o.append("# edit geography.json (or the script) and rerun `python3 source/build_map.py`.")
        o.append("# Hex ids are CCRR; flat-topped hexes, even columns half a hex lower; about 2 km a hex.")
        o.append("# Symbols: see tec.textproto (. clear, f woods, m marsh, v village, t town, C city, ' ' no hex).")
        o.append("# proto-file: scenario.proto")
        o.append("# proto-message: counterattack.data.Map")
        o.append("")
        o.append("columns: %d" % self.columns)
        o.append("rows: %d" % self.rows)
        for line in self.ascii():
            o.append("row: %s" % q(line))
        for h, name in self.places:
            o.append("place { hex: %d name: %s }" % (hid(h), q(name)))
        for typ, name, run in self.roads:
            o.append("road {")
            o.append("  type: %s" % q(typ))
            o.append("  name: %s" % q(name))
            o.append("  hexes: [%s]" % ", ".join(str(hid(h)) for h in run))
            o.append("}")
        for typ, name, sides in self.hexsides:
            o.append("hexside {")
            o.append("  type: %s" % q(typ))
            o.append("  name: %s" % q(name))
            o.append("  sides: [%s]" % ", ".join(q(s) for s in sides))
            o.append("}")
        w = self.geo["warsaw"]
        o.append("warsaw {")
        o.append("  name: %s" % q(w["name"]))
        for name, h in self.praga:
            o.append("  praga_bridge { name: %s hex: %d cost_half: 6 }" % (q(name), hid(h)))
        o.append("  jozefow_bridge { name: %s hex: %d cost_half: 8 }" % (q(self.jozefow[0]), hid(self.jozefow[1])))
        o.append("  supply_source: true")
        o.append("}")
        for e, hexes in self.entries:
            o.append("entry_point {")
            o.append("  id: %s" % q(e["id"]))
            o.append("  side: %s" % e["side"])
            o.append("  name: %s" % q(e["name"]))
            o.append("  hexes: [%s]" % ", ".join(str(hid(h)) for h in hexes))
            o.append("  supply_source: %s" % ("true" if e["supply_source"] else "false"))
            o.append("}")
        for r in self.routes:
            o.append("off_map_route { from: %s to: %s cost_half: %d }" % (q(r["from"]), q(r["to"]), r["cost_half"]))
        for name, hexes, pts in self.victory:
            o.append("victory { name: %s hexes: [%s] points_per_hex: %d }" % (q(name), ", ".join(str(hid(h)) for h in hexes), pts))
        o.append("geo { origin_lat: %.4f origin_lon: %.4f hex_km: %.1f }" % (g["origin_lat"], g["origin_lon"], g["hex_km"]))
        prov = self.geo["provenance"]
        o.append("provenance {")
        for k in ("from_rulebook", "reconstructed", "why"):
            o.append("  %s: %s" % (k, q(prov[k])))
        o.append("}")
        return "\n".join(o) + "\n"


def main(argv):
    geo = json.load(open(GEO, encoding="utf-8"))
    b = Builder(geo)
    b.build_grid()
    b.build_terrain()
    b.build_warsaw()
    b.build_roads()
    b.build_hexsides()
    b.build_overlays()
    b.check()
    for n in b.notes:
        print("note:", n)
    if "--ascii" in argv:
        print("     " + "".join(str((c // 10) % 10) for c in range(1, b.columns + 1)))
        print("     " + "".join(str(c % 10) for c in range(1, b.columns + 1)))
        for r, line in enumerate(b.ascii(), 1):
            print("%3d  %s" % (r, line))
    counts = {}
    for t in b.terrain.values():
        counts[t] = counts.get(t, 0) + 1
    print("hexes: %d (grid %d columns x %d rows)" % (len(b.on), b.columns, b.rows))
    print("terrain: " + ", ".join("%s %d" % (k, counts.get(k, 0)) for k in PRIORITY))
    for e, hexes in b.entries:
        print("entry %s: %s" % (e["id"], " ".join(hname(h) for h in hexes)))
    for name, hexes, pts in b.victory:
        print("victory %s: %s x%d" % (name, " ".join(hname(h) for h in hexes), pts))
    if b.errors:
        for e in b.errors:
            print("ERROR:", e, file=sys.stderr)
        return 1
    if "--check" not in argv:
        with open(OUT, "w", encoding="utf-8", newline="\n") as f:
            f.write(b.textproto())
        print("wrote", os.path.normpath(OUT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
