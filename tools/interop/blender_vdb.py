# Blender's side of `make interop`: Debian's Blender, headless, imports a frame of `slosh export --vdb
# --vdb-density --mesh obj` and checks what it reads; with --render it also renders the level set with Cycles.
#
#   blender -b --factory-startup --python tools/interop/blender_vdb.py -- FRAME.vdb FRAME.obj VOXEL [--render OUT.png]
#
# It checks that Blender's volume holds the grids slosh wrote (surface and density, float), that the OBJ's face
# count is the file's, and that the level set meshed by Blender's Volume to Mesh modifier at its zero crossing has
# the OBJ's bounds to within a voxel. Blender 3.4 places a VDB's voxels half a voxel off OpenVDB's own convention
# (fixed in later Blenders, pull request 138449), so the offset is measured and printed, and the tolerance is one
# voxel; OpenVDB's own mesher, in `make test`, is held to a tenth of a voxel. Prints one JSON line; exits 1 on a
# failed check.
import json
import math
import sys

import os

import bpy

sys.path.insert(0, os.path.dirname(__file__))
import look  # noqa: E402  (Blender runs this file as a script: its folder is not on the path)

args = sys.argv[sys.argv.index("--") + 1:]
vdb_path, obj_path, voxel = args[0], args[1], float(args[2])
render = args[args.index("--render") + 1] if "--render" in args else None
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene

bpy.ops.object.volume_import(filepath=vdb_path)
vol = bpy.context.selected_objects[0]
vol.data.grids.load()
grids = {g.name: g.data_type for g in vol.data.grids}
check(grids.get("surface") == "FLOAT", f"grids {grids}: want a float grid named surface")
check(grids.get("density") == "FLOAT", f"grids {grids}: want a float grid named density")

# the OBJ as written: no axis conversion (slosh is Y-up; Blender's importer would turn it Z-up)
bpy.ops.wm.obj_import(filepath=obj_path, forward_axis="Y", up_axis="Z")
obj = [o for o in bpy.context.selected_objects if o.type == "MESH"][0]
faces_in_file = sum(1 for line in open(obj_path) if line.startswith("f "))
check(len(obj.data.polygons) == faces_in_file, f"Blender read {len(obj.data.polygons)} faces, the file has {faces_in_file}")


def bounds(o):
    ev = o.evaluated_get(bpy.context.evaluated_depsgraph_get())
    m = ev.to_mesh()
    vs = [ev.matrix_world @ v.co for v in m.vertices]
    faces = len(m.polygons)
    ev.to_mesh_clear()
    if not vs:
        return None, None, 0
    return [min(v[i] for v in vs) for i in range(3)], [max(v[i] for v in vs) for i in range(3)], faces


level = bpy.data.objects.new("surface", bpy.data.meshes.new("surface"))
scene.collection.objects.link(level)
mod = level.modifiers.new("volume to mesh", "VOLUME_TO_MESH")
mod.object, mod.grid_name, mod.threshold, mod.resolution_mode, mod.adaptivity = vol, "surface", 0.0, "GRID", 0.0
lo, hi, level_faces = bounds(level)
olo, ohi, _ = bounds(obj)
offset = None
if lo is None:
    failures.append("Volume to Mesh made nothing of the level set")
else:
    offset = [((lo[i] - olo[i]) + (hi[i] - ohi[i])) / 2 / voxel for i in range(3)]
    worst = max(max(abs(lo[i] - olo[i]), abs(hi[i] - ohi[i])) for i in range(3)) / voxel
    check(worst <= 1.0, f"the level set's bounds {lo}–{hi} are {worst:.2f} voxels from the OBJ's {olo}–{ohi}")

result = {
    "blender": bpy.app.version_string, "grids": grids, "obj_faces": len(obj.data.polygons),
    "level_set_faces": level_faces, "level_set_bounds": [lo, hi], "obj_bounds": [olo, ohi],
    "mean_offset_voxels": offset, "failures": failures,
}

if render and not failures:
    obj.hide_render = True
    vol.hide_render = True
    look.render_water([level], olo, ohi, render)
    result["render"] = render

print(json.dumps(result))
sys.exit(1 if failures else 0)
