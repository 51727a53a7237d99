// The USD side of `make interop`: TinyUSDZ (an independent C++ USD reader, its WebAssembly build from npm), run
// in Node, reads every layer of a `slosh export --usd --mesh obj` folder and checks it against the sidecar, the
// PLY frames and the OBJ meshes of the same export.
//
//   node tools/interop/readusd.mjs EXPORT_DIR [TINYUSDZ_DIR]
//
// Debian 12 packages no USD library and builds its Blender without USD, so TinyUSDZ is the reader here. It parses
// usda fully but does not compose value clips, so the stage's animation is checked as its parts: the root stage's
// time range, frame rate and clips (as TinyUSDZ parsed them), and each frame's layer opened as a stage of its own:
// the surface as TinyUSDZ's render scene holds it (faces and vertices, against the OBJ), and the particles as its
// parse echoes them (point, velocity and id counts against the PLY, the first point bit for bit). Prints one JSON
// line; exits 1 on a failed check.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const dir = process.argv[2];
const tinyDir = process.argv[3] ?? "node_modules/tinyusdz";
// The npm build is made for browsers: let it take Node for one, and hand it the WebAssembly itself.
process.type = "renderer";
globalThis.window = globalThis;
const { default: init } = await import(pathToFileURL(resolve(tinyDir, "tinyusdz.js")).href);
const usd = await init({ wasmBinary: readFileSync(join(tinyDir, "tinyusdz.wasm")) });

const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };
const car = JSON.parse(readFileSync(join(dir, "slosh-export.json"), "utf8"));

// echo parses a file as a layer and returns TinyUSDZ's own serialisation of what it read.
function echo(name) {
  const l = new usd.TinyUSDZLoaderNative();
  if (!l.loadAsLayerFromBinary(readFileSync(join(dir, name)), name)) {
    failures.push(`${name}: TinyUSDZ could not parse it: ${l.error?.()}`);
    return "";
  }
  return l.layerToString();
}

// the array in `name.timeSamples = { N: [...] }` of prim's block in an echo
function sample(text, prim, name) {
  const at = text.indexOf(`"${prim}"`);
  const from = text.indexOf(` ${name}.timeSamples = {`, at);
  if (at < 0 || from < 0) return null;
  const open = text.indexOf("[", from);
  return text.slice(open + 1, text.indexOf("]", open));
}
const tuples = (s) => (s.match(/\(([^()]*)\)/g) ?? []);
const count = (s) => (s.trim() === "" ? 0 : s.split(",").length);

// the root stage and the manifest
const root = echo(car.usd);
const meta = (k) => (root.match(new RegExp(`\\b${k} = ([^\\n]*)`)) ?? [])[1];
check(meta("startTimeCode") === "1" && meta("endTimeCode") === String(car.frames),
  `root: time codes ${meta("startTimeCode")}–${meta("endTimeCode")}, want 1–${car.frames}`);
check(Number(meta("framesPerSecond")) === Math.round(1 / car.frame_dt), `root: ${meta("framesPerSecond")} frames a second`);
check((root.match(/@\.\/usd_\d{6}\.usda@/g) ?? []).length === car.frames, "root: the clips do not name every frame's layer");
check(/def Camera "Camera"/.test(root) && /def Points "Particles"/.test(root), "root: no camera or particles prim");
echo("usd_manifest.usda");

// each frame
let faces = 0, points = 0;
for (let k = 0; k < car.frames; k++) {
  const name = car.usd_frames[k];
  const text = echo(name);
  const ply = readFileSync(join(dir, car.files[k]));
  const head = ply.subarray(0, ply.indexOf("end_header\n") + "end_header\n".length).toString("latin1");
  const n = Number(head.match(/element vertex (\d+)/)[1]);
  const pts = tuples(sample(text, "Particles", "points") ?? "");
  check(pts.length === n, `${name}: ${pts.length} points, the PLY frame ${n}`);
  check(tuples(sample(text, "Particles", "velocities") ?? "").length === n, `${name}: velocities are not one a point`);
  check(count(sample(text, "Particles", "ids") ?? "") === n, `${name}: ids are not one a point`);
  if (n > 0 && pts.length > 0) {
    const first = pts[0].slice(1, -1).split(",").map((v) => Math.fround(Number(v)));
    const x = [0, 4, 8].map((o) => ply.readFloatLE(head.length + o));
    check(first.every((v, i) => v === x[i]), `${name}: first point ${first}, the PLY's ${x}`);
  }
  points += pts.length;
  // the surface, through TinyUSDZ's render scene
  const stage = new usd.TinyUSDZLoaderNative();
  if (!stage.loadFromBinary(readFileSync(join(dir, name)), name)) {
    failures.push(`${name}: TinyUSDZ could not make a scene of it: ${stage.error?.()}`);
    continue;
  }
  let mesh = null;
  for (let i = 0; i < stage.numMeshes(); i++) {
    const m = stage.getMesh(i);
    if (m.absPath === "/World/Surface") mesh = m;
  }
  if (car.meshes) {
    const obj = readFileSync(join(dir, car.meshes[k]), "utf8");
    const objFaces = (obj.match(/^f /gm) ?? []).length, objVerts = (obj.match(/^v /gm) ?? []).length;
    const got = mesh ? [Object.keys(mesh.faceVertexCounts).length, Object.keys(mesh.points).length / 3] : [0, 0];
    check(mesh && got[0] === objFaces && got[1] === objVerts,
      `${name}: the surface has ${got[0]} faces and ${got[1]} vertices, the OBJ ${objFaces} and ${objVerts}`);
    faces += got[0];
  }
}
console.log(JSON.stringify({ reader: "tinyusdz 0.9.0-rc10", frames: car.frames, points, surface_faces: faces, failures }));
process.exit(failures.length ? 1 : 0);
