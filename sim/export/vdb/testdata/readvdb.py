"""Reads a VDB file with OpenVDB's own Python module and prints what the Go tests check, as JSON.

Usage: readvdb.py FILE 'JSON list of [i, j, k] voxels to sample'|@FILE_OF_IT [GRID NAMES IN THE ORDER TO PRINT]

A float grid's values and background are numbers ("value", "background"); a vector grid's are lists of three
("vec", "vec_background", its "value" and "background" null), and it has a "vector_type".
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
    vector = isinstance(g.background, tuple)
    for ijk in probes:
        v, on = acc.probeValue(tuple(ijk))
        if vector:
            values.append({"ijk": ijk, "value": None, "vec": list(v), "active": on})
        else:
            values.append({"ijk": ijk, "value": v, "active": on})
    bbox = g.evalActiveVoxelBoundingBox()
    out.append({
        "name": g.name,
        "class": g.gridClass,
        "type": g.valueTypeName,
        "voxel": list(g.transform.voxelSize()),
        "background": None if vector else g.background,
        "vec_background": list(g.background) if vector else None,
        "vector_type": g.vectorType if vector else None,
        "active": g.activeVoxelCount(),
        "leaves": g.leafCount(),
        "bbox": [list(bbox[0]), list(bbox[1])],
        "values": values,
    })
print(json.dumps({"library": list(vdb.LIBRARY_VERSION), "grids": out, "meta": {k: str(v) for k, v in meta.items()}}))
