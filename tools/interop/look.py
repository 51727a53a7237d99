# How `make interop` renders water in Blender: the meshes given as water (a clear, slightly blue glass) over a grey
# floor, lit by a sun and a pale sky, seen from the front and above; Cycles on the CPU. slosh is Y-up and the
# meshes come in as written (no axis conversion), so the floor, the camera and the sun are set up around +y.
import math

import bpy
import mathutils


def render_water(meshes, lo, hi, path, size=(640, 360), samples=64):
    scene = bpy.context.scene
    water = bpy.data.materials.new("water")
    water.use_nodes = True
    bsdf = water.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (0.55, 0.75, 0.95, 1)
    bsdf.inputs["Roughness"].default_value = 0.05
    bsdf.inputs["Transmission"].default_value = 0.9
    bsdf.inputs["IOR"].default_value = 1.33
    for m in meshes:
        m.data.materials.clear()
        m.data.materials.append(water)
    centre = mathutils.Vector([(lo[i] + hi[i]) / 2 for i in range(3)])
    extent = max(hi[i] - lo[i] for i in range(3))
    floor = bpy.data.objects.new("floor", bpy.data.meshes.new("floor"))
    s, y = 3 * extent, lo[1] - 0.002
    floor.data.from_pydata([(centre.x - s, y, centre.z - s), (centre.x + s, y, centre.z - s),
                            (centre.x + s, y, centre.z + s), (centre.x - s, y, centre.z + s)], [], [(0, 3, 2, 1)])
    grey = bpy.data.materials.new("floor")
    grey.diffuse_color = (0.5, 0.5, 0.5, 1)
    floor.data.materials.append(grey)
    scene.collection.objects.link(floor)
    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    cam.location = centre + mathutils.Vector((0.3 * extent, 0.55 * extent, 1.05 * extent))
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
    scene.cycles.samples = samples
    scene.cycles.use_denoising = False  # Debian builds Blender without OpenImageDenoise
    scene.render.resolution_x, scene.render.resolution_y = size
    scene.render.filepath = path
    bpy.ops.render.render(write_still=True)
