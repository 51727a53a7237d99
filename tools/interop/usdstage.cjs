// The USD side of `make interop`: Pixar's OpenUSD itself — Autodesk's WebAssembly build of it with its Hydra
// bindings (hdEmscripten), as the npm package three-usdz-loader ships it — opens the stage of a `slosh export
// --usd --mesh obj` folder, composes the value clips, and plays it: at every time code Hydra hands this script's
// render delegate the particles (a points prim), the liquid's surface and the rigid bodies (meshes, each body's
// with its transform), which are checked against the PLY frame and the OBJ meshes of the same frame. Debian 12 packages no USD library and builds Blender without USD,
// hence this build.
//
//   USD_WASM_DIR=DIR node --require tools/interop/usdwasm-prelude.cjs tools/interop/usdstage.cjs EXPORT_DIR [OBJ_DIR T...]
//
// DIR holds emHdBindings.js, .wasm, .data and .worker.js. With OBJ_DIR and time codes, the surface as OpenUSD
// composed it at each of those times is also written there as OBJ_DIR/usd_T.obj, for Blender to render. Prints one
// JSON line; exits 1 on a failed check.
const fs = require("node:fs");
const path = require("node:path");

const dir = process.argv[2];
const objDir = process.argv[3];
const dumpTimes = process.argv.slice(4).map(Number);
const wasm = process.env.USD_WASM_DIR;
const getUsdModule = require(path.resolve(wasm, "emHdBindings.js"));

const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };

(async () => {
  const usd = await getUsdModule({
    locateFile: (f) => path.resolve(wasm, path.basename(f)),
    wasmBinary: fs.readFileSync(path.resolve(wasm, "emHdBindings.wasm")),
    printErr: () => {}, // its schema registry complains of plug-ins the web build leaves out (UsdVol, cameras)
  }, wasm, undefined);
  const car = JSON.parse(fs.readFileSync(path.join(dir, "slosh-export.json"), "utf8"));
  usd.FS.mkdir("/run");
  for (const f of fs.readdirSync(dir)) {
    if (f.endsWith(".usda")) usd.FS.createDataFile("/run", f, fs.readFileSync(path.join(dir, f)), true, false, false);
  }

  // a render delegate that keeps what Hydra last gave each prim
  const prims = {};
  const delegate = {
    createRPrim(typeId, id) {
      const p = { typeId, primvars: {} };
      prims[id] = p;
      return {
        updatePoints(v) { p.points = Float32Array.from(v); },
        updateIndices(v) { p.indices = Int32Array.from(v); },
        updatePrimvar(name, v) { p.primvars[name] = v.length; },
        updateNormals() {}, setTransform(m) { p.transform = Array.from(m); }, setMaterial() {},
        setDisplayColor() {}, setUV() {}, updateOrder() {}, commit() {},
      };
    },
    createBPrim() {}, createSPrim() {}, setDriver() {}, CommitResources() {},
  };
  const driver = new usd.HdWebSyncDriver(delegate, "/run/" + car.usd);
  const stage = driver.GetStage();
  check(stage.GetStartTimeCode() === 1 && stage.GetEndTimeCode() === car.frames,
    `the stage runs ${stage.GetStartTimeCode()}–${stage.GetEndTimeCode()}, the export wrote ${car.frames} frames`);
  check(Math.abs(stage.GetTimeCodesPerSecond() - 1 / car.frame_dt) < 1e-9, `${stage.GetTimeCodesPerSecond()} time codes a second`);

  let points = 0, faces = 0, bodies = 0;
  for (let t = 1; t <= car.frames; t++) {
    driver.SetTime(t);
    driver.Draw();
    const parts = prims["/World/Particles"], surface = prims["/World/Surface"];
    if (!parts || !surface || parts.typeId !== "points" || surface.typeId !== "mesh") {
      failures.push(`time ${t}: Hydra has no particles or surface: ${Object.keys(prims)}`);
      break;
    }
    // the PLY frame: its count, and its first particle's position bit for bit
    const ply = fs.readFileSync(path.join(dir, car.files[t - 1]));
    const end = ply.indexOf("end_header\n") + "end_header\n".length;
    const n = Number(ply.subarray(0, end).toString("latin1").match(/element vertex (\d+)/)[1]);
    check(parts.points.length === 3 * n, `time ${t}: ${parts.points.length / 3} particles, the PLY frame ${n}`);
    check(parts.primvars.velocities === 3 * n, `time ${t}: ${parts.primvars.velocities / 3} velocities for ${n} particles`);
    const first = [0, 4, 8].map((o) => ply.readFloatLE(end + o));
    check(n === 0 || first.every((v, k) => v === parts.points[k]), `time ${t}: first particle at ${parts.points.slice(0, 3)}, the PLY's ${first}`);
    points += n;
    // the OBJ mesh of the frame: its vertices and faces
    const obj = fs.readFileSync(path.join(dir, car.meshes[t - 1]), "utf8");
    const verts = (obj.match(/^v /gm) ?? []).length, objFaces = (obj.match(/^f /gm) ?? []).length;
    check(surface.points.length === 3 * verts && surface.indices.length === 3 * objFaces,
      `time ${t}: the surface has ${surface.points.length / 3} vertices and ${surface.indices.length / 3} triangles, the OBJ ${verts} and ${objFaces}`);
    check(surface.primvars.velocities === surface.points.length,
      `time ${t}: the surface has ${surface.primvars.velocities / 3} velocities for ${surface.points.length / 3} vertices`);
    faces += surface.indices.length / 3;
    // each rigid body: its shape as placed, moved by the transform Hydra hands over (USD's row vectors, the
    // translation in the last row), is the body's OBJ mesh of the frame
    for (let b = 0; b < (car.body_meshes ?? []).length; b++) {
      const body = prims[`/World/Bodies/Body${b}`];
      const want = (fs.readFileSync(path.join(dir, car.body_meshes[b][t - 1]), "utf8").match(/^v .*$/gm) ?? [])
        .map((l) => l.split(/\s+/).slice(1, 4).map(Number));
      if (!body || !body.points || !body.transform || body.points.length !== 3 * want.length) {
        failures.push(`time ${t}: body ${b} has ${body?.points?.length / 3} vertices and transform ${body?.transform}, its OBJ ${want.length} vertices`);
        continue;
      }
      const m = body.transform;
      let worst = 0;
      for (let v = 0; v < want.length; v++) {
        const [x, y, z] = body.points.slice(3 * v, 3 * v + 3);
        for (let k = 0; k < 3; k++) {
          worst = Math.max(worst, Math.abs(x * m[k] + y * m[4 + k] + z * m[8 + k] + m[12 + k] - want[v][k]));
        }
      }
      check(worst < 1e-5, `time ${t}: body ${b} lies ${worst} m from its OBJ mesh`);
      bodies = Math.max(bodies, b + 1);
    }
    if (objDir && dumpTimes.includes(t)) {
      const lines = [`# the liquid's surface at time code ${t} of ${car.usd}, as OpenUSD composed it`];
      for (let i = 0; i < surface.points.length; i += 3) lines.push(`v ${surface.points[i]} ${surface.points[i + 1]} ${surface.points[i + 2]}`);
      for (let i = 0; i < surface.indices.length; i += 3) lines.push(`f ${surface.indices[i] + 1} ${surface.indices[i + 1] + 1} ${surface.indices[i + 2] + 1}`);
      fs.writeFileSync(path.join(objDir, `usd_${t}.obj`), lines.join("\n") + "\n");
    }
  }
  console.log(JSON.stringify({ reader: "OpenUSD (three-usdz-loader 1.0.9's WebAssembly build)", frames: car.frames, particles: points, surface_triangles: faces, bodies, failures }));
  process.exit(failures.length ? 1 : 0);
})().catch((e) => { console.error("usdstage:", e); process.exit(1); });
