"""Meshes each level set grid of a VDB file with OpenVDB's own mesher (volumeToMesh, at the zero crossing, no
adaptivity) and prints, as JSON, each grid's name with the mesh's bounds and its quad and triangle counts: what the
Go tests compare with slosh's own meshes of the same frame.

Usage: meshvdb.py FILE
"""
import json
import sys

import pyopenvdb as vdb

grids, _ = vdb.readAll(sys.argv[1])
out = {}
for g in grids:
    if g.gridClass != vdb.GridClass.LEVEL_SET:
        continue
    points, triangles, quads = g.convertToPolygons(isovalue=0.0, adaptivity=0.0)
    if len(points) == 0:
        out[g.name] = {"lo": None, "hi": None, "faces": 0}
        continue
    out[g.name] = {
        "lo": [float(x) for x in points.min(axis=0)],
        "hi": [float(x) for x in points.max(axis=0)],
        "faces": int(len(triangles) + len(quads)),
    }
print(json.dumps(out))
