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

import bpy
import mathutils

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
    # the level set as water over a floor, lit by a sun and the sky, seen from the front and above
    obj.hide_render = True
    vol.hide_render = True
    water = bpy.data.materials.new("water")
    water.use_nodes = True
    bsdf = water.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (0.55, 0.75, 0.95, 1)
    bsdf.inputs["Roughness"].default_value = 0.05
    bsdf.inputs["Transmission"].default_value = 0.9
    bsdf.inputs["IOR"].default_value = 1.33
    level.data.materials.append(water)
    centre = mathutils.Vector([(olo[i] + ohi[i]) / 2 for i in range(3)])
    size = max(ohi[i] - olo[i] for i in range(3))
    floor = bpy.data.objects.new("floor", bpy.data.meshes.new("floor"))
    s = 3 * size
    floor.data.from_pydata([(centre.x - s, olo[1] - 0.002, centre.z - s), (centre.x + s, olo[1] - 0.002, centre.z - s),
                            (centre.x + s, olo[1] - 0.002, centre.z + s), (centre.x - s, olo[1] - 0.002, centre.z + s)],
                           [], [(0, 3, 2, 1)])
    grey = bpy.data.materials.new("floor")
    grey.diffuse_color = (0.5, 0.5, 0.5, 1)
    floor.data.materials.append(grey)
    scene.collection.objects.link(floor)
    # slosh is Y-up: the camera looks along −z from in front, raised, at the fluid's middle
    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    cam.location = centre + mathutils.Vector((0.3 * size, 0.55 * size, 1.05 * size))
    back = (cam.location - centre).normalized()  # the camera looks down its −z, with +y (slosh's up) up
    right = mathutils.Vector((0, 1, 0)).cross(back).normalized()
    cam.rotation_euler = mathutils.Matrix((right, back.cross(right), back)).transposed().to_euler()
    cam.data.lens = 28
    scene.collection.objects.link(cam)
    scene.camera = cam
    sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
    sun.data.energy = 3
    sun.rotation_euler = mathutils.Euler((math.radians(-60), 0, math.radians(20)))  # down −y, from behind the camera
    scene.collection.objects.link(sun)
    world = bpy.data.worlds.new("sky")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.6, 0.7, 0.85, 1)
    scene.world = world
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 64
    scene.cycles.use_denoising = False  # Debian builds Blender without OpenImageDenoise
    scene.render.resolution_x, scene.render.resolution_y = 640, 360
    scene.render.filepath = render
    bpy.ops.render.render(write_still=True)
    result["render"] = render

print(json.dumps(result))
sys.exit(1 if failures else 0)
