# Renders the liquid's surface of a USD stage at a few time codes, as OpenUSD composed it (usdstage.cjs wrote each
# as an OBJ: Debian's Blender cannot read USD itself), with Cycles, one picture per time code.
#
#   blender -b --factory-startup --python tools/interop/blender_usd.py -- OUT_PREFIX usd_1.obj usd_20.obj ...
#
# writes OUT_PREFIX1.png, OUT_PREFIX20.png, ... framed alike: on the box of all the meshes.
import os
import re
import sys

import bpy

sys.path.insert(0, os.path.dirname(__file__))
import look  # noqa: E402

args = sys.argv[sys.argv.index("--") + 1:]
prefix, paths = args[0], args[1:]
boxes = []
for p in paths:
    xs = [list(map(float, line.split()[1:4])) for line in open(p) if line.startswith("v ")]
    boxes.append(([min(v[i] for v in xs) for i in range(3)], [max(v[i] for v in xs) for i in range(3)]))
lo = [min(b[0][i] for b in boxes) for i in range(3)]
hi = [max(b[1][i] for b in boxes) for i in range(3)]
for p in paths:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.wm.obj_import(filepath=p, forward_axis="Y", up_axis="Z")
    mesh = [o for o in bpy.context.selected_objects if o.type == "MESH"][0]
    t = re.search(r"usd_(\d+)\.obj$", p).group(1)
    look.render_water([mesh], lo, hi, f"{prefix}{t}.png", size=(480, 270), samples=48)
