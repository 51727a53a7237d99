"""Reads a VDB file with OpenVDB's own Python module and prints what the Go tests check, as JSON.

Usage: readvdb.py FILE 'JSON list of [i, j, k] voxels to sample'|@FILE_OF_IT [GRID NAMES IN THE ORDER TO PRINT]
"""
import json
import sys

import pyopenvdb as vdb

path, probes, order = sys.argv[1], sys.argv[2], sys.argv[3:]
if probes.startswith("@"):
    with open(probes[1:]) as f:
        probes = f.read()
probes = json.loads(probes)
grids, meta = vdb.readAll(path)
grids.sort(key=lambda g: order.index(g.name) if g.name in order else len(order))
out = []
for g in grids:
    acc = g.getConstAccessor()
    values = []
    for ijk in probes:
        v, on = acc.probeValue(tuple(ijk))
        values.append({"ijk": ijk, "value": v, "active": on})
    bbox = g.evalActiveVoxelBoundingBox()
    out.append({
        "name": g.name,
        "class": g.gridClass,
        "type": g.valueTypeName,
        "voxel": list(g.transform.voxelSize()),
        "background": g.background,
        "active": g.activeVoxelCount(),
        "leaves": g.leafCount(),
        "bbox": [list(bbox[0]), list(bbox[1])],
        "values": values,
    })
print(json.dumps({"library": list(vdb.LIBRARY_VERSION), "grids": out, "meta": {k: str(v) for k, v in meta.items()}}))
