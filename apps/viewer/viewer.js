// The browser replay of `tamsi run --html` / `tamsi render --html`: reads the run embedded in the page (the
// <script id="replay-data"> JSON that html_replay.cc writes), draws the bodies' geometry with three.js and plays the
// recorded poses back, with contact points, force arrows and the per-step solver figures beside the view.
//
// Test hook: a URL hash "#t=T" pauses the replay at simulated time T; the page then writes, into <pre id="probe">,
// JSON {ready, time, frame, bodies: {name: {world: [x, y, z], pixel: [px, py]}}, errors} (pixels from the page's
// top-left corner), and window.tamsiReplay.seek(t) does the same from a script. "&size=WxH" fixes the view's size
// (pixels), so that pictures and probes taken in windows of different sizes agree.
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

const data = JSON.parse(document.getElementById('replay-data').textContent);

function decode(base64, Type) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new Type(bytes.buffer);
}

const poses = decode(data.frames.poses, Float32Array);  // frame × body × (x, y, z, qw, qx, qy, qz)
const contactData = decode(data.frames.contact_data, Float32Array);  // contact × (x, y, z, fx, fy, fz)
const contactOffsets = data.frames.contact_offsets;  // frame → first contact; one more entry than frames
const times = data.frames.time;
const numFrames = times.length;
const numBodies = data.bodies.length;

// --- The scene: MuJoCo's z-up world.
const view = document.getElementById('view');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
view.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x20242b);
THREE.Object3D.DEFAULT_UP.set(0, 0, 1);
const camera = new THREE.PerspectiveCamera(45, 1, 0.01 * data.extent, 100 * data.extent);
camera.up.set(0, 0, 1);
const center = new THREE.Vector3(...data.center);
camera.position.copy(center).add(new THREE.Vector3(1.2, -1.6, 1.0).multiplyScalar(data.extent));
const controls = new OrbitControls(camera, renderer.domElement);
controls.target.copy(center);
controls.update();
scene.add(new THREE.HemisphereLight(0xffffff, 0x404040, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
sun.position.set(1, -2, 3);
scene.add(sun);

const meshGeometries = data.meshes.map((m) => {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(decode(m.vertices, Float32Array), 3));
  g.setIndex(new THREE.BufferAttribute(decode(m.faces, Uint32Array), 1));
  const flat = g.toNonIndexed();
  flat.computeVertexNormals();
  return flat;
});

function geometryOf(geom) {
  const s = geom.size;
  switch (geom.type) {
    case 'plane': {
      const span = (x) => (x > 0 ? 2 * x : 4 * data.extent);
      return new THREE.PlaneGeometry(span(s[0]), span(s[1]));
    }
    case 'sphere':
      return new THREE.SphereGeometry(s[0], 24, 16);
    case 'ellipsoid':
      return new THREE.SphereGeometry(1, 24, 16).scale(s[0], s[1], s[2]);
    case 'capsule':
      return new THREE.CapsuleGeometry(s[0], 2 * s[1], 8, 16).rotateX(Math.PI / 2);
    case 'cylinder':
      return new THREE.CylinderGeometry(s[0], s[0], 2 * s[1], 24).rotateX(Math.PI / 2);
    case 'box':
      return new THREE.BoxGeometry(2 * s[0], 2 * s[1], 2 * s[2]);
    case 'mesh':
      return meshGeometries[geom.mesh];
    default:
      return null;
  }
}

const bodyNodes = data.bodies.map(() => {
  const node = new THREE.Group();
  scene.add(node);
  return node;
});
for (const geom of data.geoms) {
  const geometry = geometryOf(geom);
  if (!geometry) continue;
  const [r, g, b, a] = geom.rgba;
  const material = new THREE.MeshStandardMaterial({
    color: new THREE.Color(r, g, b), roughness: 0.6, metalness: 0.1,
    transparent: a < 1, opacity: a, side: geom.type === 'plane' ? THREE.DoubleSide : THREE.FrontSide,
  });
  const mesh = new THREE.Mesh(geometry, material);
  mesh.position.set(...geom.pos);
  mesh.quaternion.set(geom.quat[1], geom.quat[2], geom.quat[3], geom.quat[0]);
  bodyNodes[geom.body].add(mesh);
}

// Contacts: a sphere per point, a line and a cone per force (on geom2; MuJoCo's scale, m per N).
const maxContacts = Math.max(1, ...contactOffsets.slice(1).map((o, f) => o - contactOffsets[f]));
const pointSize = 0.01 * data.extent;
const points = new THREE.InstancedMesh(new THREE.SphereGeometry(pointSize, 10, 6),
                                       new THREE.MeshBasicMaterial({ color: 0x30c0ff }), maxContacts);
const heads = new THREE.InstancedMesh(new THREE.ConeGeometry(0.6 * pointSize, 2.5 * pointSize, 10),
                                      new THREE.MeshBasicMaterial({ color: 0xff8020 }), maxContacts);
const shafts = new THREE.LineSegments(new THREE.BufferGeometry(), new THREE.LineBasicMaterial({ color: 0xff8020 }));
shafts.geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6 * maxContacts), 3));
scene.add(points, heads, shafts);

// --- The replay's state.
const ui = {
  play: document.getElementById('play'), scrub: document.getElementById('scrub'),
  speed: document.getElementById('speed'), points: document.getElementById('show-points'),
  forces: document.getElementById('show-forces'), figures: document.getElementById('figures'),
  chart: document.getElementById('chart'),
};
ui.scrub.max = String(numFrames - 1);
let frame = 0;
let playing = false;
let clock = times[0];  // simulated time being shown while playing
let lastWall = null;

function frameAt(t) {  // the last frame at or before t (binary search)
  let lo = 0, hi = numFrames - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (times[mid] <= t + 1e-12) lo = mid; else hi = mid - 1;
  }
  return lo;
}

const up = new THREE.Vector3(0, 1, 0), dir = new THREE.Vector3(), matrix = new THREE.Matrix4();
const quat = new THREE.Quaternion(), scale = new THREE.Vector3(1, 1, 1), pos = new THREE.Vector3();
function showContacts(f) {
  const first = contactOffsets[f], count = contactOffsets[f + 1] - first;
  const line = shafts.geometry.attributes.position.array;
  let arrows = 0;
  for (let i = 0; i < count; ++i) {
    const c = contactData.subarray(6 * (first + i), 6 * (first + i) + 6);
    pos.set(c[0], c[1], c[2]);
    matrix.makeTranslation(c[0], c[1], c[2]);
    points.setMatrixAt(i, matrix);
    dir.set(c[3], c[4], c[5]).multiplyScalar(data.force_scale);
    const length = dir.length();
    if (length < 1e-9) continue;
    line.set([c[0], c[1], c[2], c[0] + dir.x, c[1] + dir.y, c[2] + dir.z], 6 * arrows);
    quat.setFromUnitVectors(up, dir.clone().normalize());
    heads.setMatrixAt(arrows, matrix.compose(pos.add(dir), quat, scale));
    ++arrows;
  }
  points.count = count;
  heads.count = arrows;
  shafts.geometry.setDrawRange(0, 2 * arrows);
  shafts.geometry.attributes.position.needsUpdate = true;
  points.instanceMatrix.needsUpdate = true;
  heads.instanceMatrix.needsUpdate = true;
  points.visible = ui.points.checked;
  heads.visible = shafts.visible = ui.forces.checked;
}

function showFrame(f) {
  frame = f;
  for (let b = 0; b < numBodies; ++b) {
    const p = poses.subarray(7 * (f * numBodies + b), 7 * (f * numBodies + b) + 7);
    bodyNodes[b].position.set(p[0], p[1], p[2]);
    bodyNodes[b].quaternion.set(p[4], p[5], p[6], p[3]);
  }
  showContacts(f);
  ui.scrub.value = String(f);
  const step = data.frames.step ? data.frames.step[f] : null;
  const rows = [['time', `${times[f].toFixed(4)} s`], ['frame', `${f + 1} of ${numFrames}`]];
  if (step !== null && step >= 0) {
    rows.push(['step', String(step)], ['Newton iterations', String(data.steps.iterations[step])],
              ['contacts', String(data.steps.contacts[step])],
              ['step wall time', `${data.steps.wall_ms[step].toFixed(3)} ms`]);
  }
  rows.push(['contacts drawn', String(contactOffsets[f + 1] - contactOffsets[f])]);
  ui.figures.innerHTML = rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('');
  drawChart();
  renderer.render(scene, camera);
}

// Iterations (and contacts) per step over the run, with the current time marked.
function drawChart() {
  const ctx = ui.chart.getContext('2d');
  const w = ui.chart.width, h = ui.chart.height;
  ctx.clearRect(0, 0, w, h);
  if (!data.steps) return;
  const t0 = times[0], t1 = Math.max(times[numFrames - 1], t0 + 1e-9);
  const x = (t) => ((t - t0) / (t1 - t0)) * (w - 8) + 4;
  const series = [['iterations', '#5ab0ff'], ['contacts', '#ffa040']];
  series.forEach(([name, color], k) => {
    const values = data.steps[name];
    const top = Math.max(1, ...values);
    const y = (v) => h / 2 * (k + 1) - 4 - (v / top) * (h / 2 - 16);
    ctx.strokeStyle = color;
    ctx.beginPath();
    values.forEach((v, i) => (i ? ctx.lineTo(x(data.steps.time[i]), y(v)) : ctx.moveTo(x(data.steps.time[i]), y(v))));
    ctx.stroke();
    ctx.fillStyle = color;
    ctx.fillText(`${name} (max ${top})`, 6, h / 2 * k + 11);
  });
  ctx.strokeStyle = '#ffffff';
  ctx.beginPath();
  ctx.moveTo(x(times[frame]), 0);
  ctx.lineTo(x(times[frame]), h);
  ctx.stroke();
}

const fixedSize = /[#&]size=(\d+)x(\d+)/.exec(window.location.hash);
function resize() {
  const w = fixedSize ? Number(fixedSize[1]) : view.clientWidth;
  const h = fixedSize ? Number(fixedSize[2]) : view.clientHeight;
  renderer.setSize(w, h, false);
  renderer.domElement.style.width = `${w}px`;
  renderer.domElement.style.height = `${h}px`;
  camera.aspect = w / Math.max(1, h);
  camera.updateProjectionMatrix();
  renderer.render(scene, camera);
}

function setPlaying(on) {
  playing = on;
  ui.play.textContent = on ? 'Pause' : 'Play';
  lastWall = null;
  if (on && frame === numFrames - 1) clock = times[0];
  else clock = times[frame];
}

function tick(now) {
  if (playing) {
    if (lastWall !== null) clock += ((now - lastWall) / 1000) * Number(ui.speed.value);
    lastWall = now;
    if (clock >= times[numFrames - 1]) {
      clock = times[numFrames - 1];
      setPlaying(false);
    }
    const f = frameAt(clock);
    if (f !== frame) showFrame(f);
  }
  requestAnimationFrame(tick);
}

// The probe for tests (see the top of this file).
const probeVector = new THREE.Vector3();
function writeProbe() {
  const rect = renderer.domElement.getBoundingClientRect();
  const bodies = {};
  data.bodies.forEach((body, b) => {
    const p = poses.subarray(7 * (frame * numBodies + b), 7 * (frame * numBodies + b) + 3);
    probeVector.set(p[0], p[1], p[2]).project(camera);
    bodies[body.name] = {
      world: [p[0], p[1], p[2]],
      pixel: [rect.left + (probeVector.x + 1) / 2 * rect.width, rect.top + (1 - probeVector.y) / 2 * rect.height],
    };
  });
  const probe = document.getElementById('probe');
  probe.textContent = JSON.stringify({
    ready: true, time: times[frame], frame, bodies, errors: window.tamsiErrors || [],
  });
}

window.tamsiReplay = {
  seek(t) {
    setPlaying(false);
    showFrame(frameAt(t));
    writeProbe();
  },
};

ui.play.addEventListener('click', () => setPlaying(!playing));
ui.scrub.addEventListener('input', () => {
  setPlaying(false);
  showFrame(Number(ui.scrub.value));
});
ui.points.addEventListener('change', () => showFrame(frame));
ui.forces.addEventListener('change', () => showFrame(frame));
controls.addEventListener('change', () => renderer.render(scene, camera));
window.addEventListener('resize', resize);
resize();
const hash = /[#&]t=([0-9.eE+-]+)/.exec(window.location.hash);
if (hash) {
  window.tamsiReplay.seek(Number(hash[1]));
} else {
  showFrame(0);
  setPlaying(true);
}
requestAnimationFrame(tick);
