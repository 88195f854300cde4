// tickreel viewer, the world in 3D (three.js, vendored in the binary and loaded only when this
// view is first opened): entities as labelled figures standing at their height, their trails
// (not joined across a teleport), the edited blocks as they were at the tick shown (GET
// /api/blocks: every block change up to that tick, the last state of each position, air left
// out), an orbit camera (drag to turn, wheel to zoom) that follows the followed entity. A click on
// a figure follows it. Coordinates are the game's: x east, y up, z south; a block at (x, y, z)
// fills x..x+1, y..y+1, z..z+1.
'use strict';
window.tickreelView3d = (() => {
  const FIGURE = { w: 0.6, h: 1.8 };
  const BG = 0x101216;
  let THREE = null;
  const V = {
    on: false, loading: null, renderer: null, scene: null, camera: null, grid: null,
    figures: new Map(), trails: null, blocks: null, edits: [], editsRec: null, blockTick: null,
    blockCount: 0, blockColors: new Map(),
    orbit: { az: Math.PI / 4, el: 0.55, dist: 30, target: null },
    frames: 0, since: 0, fps: null,
  };

  // three.js is fetched from this server the first time the view opens (relative to the page).
  async function load() {
    if (!THREE) THREE = await import('./vendor/three.module.js');
    return THREE;
  }

  function init(canvas) {
    const r = new THREE.WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true });
    r.setPixelRatio(1);
    const scene = new THREE.Scene();
    scene.background = new THREE.Color(BG);
    scene.add(new THREE.HemisphereLight(0xddeeff, 0x303030, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.6);
    sun.position.set(30, 80, 50);
    scene.add(sun);
    const camera = new THREE.PerspectiveCamera(60, 1, 0.1, 4000);
    const grid = new THREE.GridHelper(256, 256, 0x2a2f38, 0x1d2129);
    scene.add(grid);
    const trails = new THREE.LineSegments(new THREE.BufferGeometry(),
      new THREE.LineBasicMaterial({ vertexColors: true, transparent: true, opacity: 0.7 }));
    trails.frustumCulled = false;
    scene.add(trails);
    Object.assign(V, { renderer: r, scene, camera, grid, trails });
  }

  // Opens the view on `canvas` (loads three.js the first time).
  async function open(canvas) {
    V.on = true;
    if (!V.loading) V.loading = load().then(() => init(canvas));
    await V.loading;
  }
  function close() { V.on = false; }

  const colorOf = (id) => new THREE.Color().setHSL(((id * 137.508) % 360) / 360, 0.7, 0.6);

  function label(text) {
    const c = document.createElement('canvas');
    c.width = 256; c.height = 64;
    const g = c.getContext('2d');
    g.font = 'bold 30px system-ui, sans-serif';
    g.textAlign = 'center'; g.textBaseline = 'middle';
    g.lineWidth = 6; g.strokeStyle = '#000'; g.strokeText(text, 128, 32);
    g.fillStyle = '#fff'; g.fillText(text, 128, 32);
    const s = new THREE.Sprite(new THREE.SpriteMaterial({ map: new THREE.CanvasTexture(c), depthTest: false }));
    s.scale.set(3, 0.75, 1);
    return s;
  }

  function figure(id, name) {
    const group = new THREE.Group();
    const body = new THREE.Mesh(new THREE.BoxGeometry(FIGURE.w, FIGURE.h, FIGURE.w),
      new THREE.MeshLambertMaterial({ color: colorOf(id) }));
    body.position.y = FIGURE.h / 2;
    body.userData.entity = id;
    group.add(body);
    // a nose: where it looks (yaw 0 = +z)
    const nose = new THREE.Mesh(new THREE.BoxGeometry(0.2, 0.2, 0.4), new THREE.MeshLambertMaterial({ color: 0xffffff }));
    nose.position.set(0, FIGURE.h - 0.3, FIGURE.w / 2 + 0.15);
    group.add(nose);
    if (name) { const l = label(name); l.position.y = FIGURE.h + 0.6; group.add(l); }
    V.scene.add(group);
    const f = { group, body, named: !!name };
    V.figures.set(id, f);
    return f;
  }

  // The edits of `rec`, fetched once per recording (and again when it grows).
  function setEdits(rec, edits) { V.edits = edits; V.editsRec = rec; V.blockTick = null; V.trailTick = null; }

  const isAir = (name) => /(^|:)(cave_|void_)?air$/.test(name || '');
  function blockColor(state, name) {
    let c = V.blockColors.get(state);
    if (!c) {
      let h = 0;
      for (const ch of (name || String(state))) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
      c = new THREE.Color().setHSL((h % 360) / 360, 0.35, 0.5);
      if (/stone|cobble|andesite|deepslate/.test(name || '')) c.setHSL(0, 0, 0.55);
      V.blockColors.set(state, c);
    }
    return c;
  }

  // The blocks as they were at tick t: the last edit of each position at or before t.
  // (Recomputed only when an edit enters or leaves: the number of edits at or before t.)
  function placeBlocks(t, blockName) {
    let n = 0, lo = 0, hi = V.edits.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (V.edits[m][0] <= t) lo = m + 1; else hi = m; }
    n = lo;
    if (V.blockTick === n) return;
    V.blockTick = n;
    const at = new Map();
    for (let i = 0; i < n; i++) {
      const e = V.edits[i];
      at.set(e[1] + ',' + e[2] + ',' + e[3], e);
    }
    const shown = [];
    for (const e of at.values()) {
      const name = blockName(e[4]);
      if ((name && isAir(name)) || (!name && e[4] === 0)) continue;
      shown.push(e);
    }
    if (!V.blocks || V.blocks.instanceMatrix.count < shown.length) {
      if (V.blocks) { V.scene.remove(V.blocks); V.blocks.dispose(); }
      const cap = Math.max(64, shown.length * 2);
      V.blocks = new THREE.InstancedMesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshLambertMaterial(), cap);
      V.blocks.frustumCulled = false;
      V.scene.add(V.blocks);
    }
    const m = new THREE.Matrix4();
    shown.forEach((e, i) => {
      m.makeTranslation(e[1] + 0.5, e[2] + 0.5, e[3] + 0.5);
      V.blocks.setMatrixAt(i, m);
      V.blocks.setColorAt(i, blockColor(e[4], blockName(e[4])));
    });
    V.blocks.count = shown.length;
    V.blockCount = shown.length;
    V.blocks.instanceMatrix.needsUpdate = true;
    if (V.blocks.instanceColor) V.blocks.instanceColor.needsUpdate = true;
    V.shownBlocks = shown;
  }

  // Draws frame `frame` (entities in blocks and degrees); `trailOf(id)` gives its recent
  // positions ([[x, y, z]...], oldest first, null between two points a teleport apart).
  function draw(canvas, frame, ctx) {
    if (!V.on || !V.renderer) return;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== w || canvas.height !== h) { V.renderer.setSize(w, h, false); V.camera.aspect = w / Math.max(1, h); V.camera.updateProjectionMatrix(); }
    const seen = new Set();
    if (frame) {
      for (const e of frame.e) {
        const name = ctx.names.get(e[0]);
        let f = V.figures.get(e[0]);
        if (f && f.named !== (!!name || e[0] === ctx.follow)) { V.scene.remove(f.group); V.figures.delete(e[0]); f = null; }
        if (!f) f = figure(e[0], name || (e[0] === ctx.follow ? '#' + e[0] : null));
        f.group.visible = true;
        f.group.position.set(e[1], e[2], e[3]);
        f.group.rotation.y = -e[4] * Math.PI / 180;
        seen.add(e[0]);
      }
      if (!V.orbit.target) {
        const c = [0, 0, 0];
        for (const e of frame.e) { c[0] += e[1]; c[1] += e[2]; c[2] += e[3]; }
        const n = Math.max(1, frame.e.length);
        V.orbit.target = [c[0] / n, c[1] / n, c[2] / n];
        V.grid.position.set(Math.round(V.orbit.target[0]), Math.floor(Math.min(...frame.e.map((e) => e[2]), V.orbit.target[1])), Math.round(V.orbit.target[2]));
      }
      const followed = ctx.follow !== null && frame.byId.get(ctx.follow);
      if (followed) V.orbit.target = [followed[1], followed[2] + 1, followed[3]];
    }
    for (const [id, f] of V.figures) if (!seen.has(id)) f.group.visible = false;
    if (!frame || frame.t !== V.trailTick) { V.trailTick = frame ? frame.t : null; drawTrails(frame, ctx); }
    if (frame) placeBlocks(frame.t, ctx.blockName);
    place();
    V.renderer.render(V.scene, V.camera);
    V.frames++;
    const now = performance.now();
    if (now - V.since > 1000) { V.fps = V.frames * 1000 / (now - V.since || 1); V.frames = 0; V.since = now; }
  }

  function drawTrails(frame, ctx) {
    const pos = [], col = [];
    if (frame) {
      for (const e of frame.e) {
        const pts = ctx.trailOf(e[0]);
        const c = colorOf(e[0]);
        for (let i = 1; i < pts.length; i++) {
          const a = pts[i - 1], b = pts[i];
          if (!a || !b) continue;
          pos.push(a[0], a[1] + 0.05, a[2], b[0], b[1] + 0.05, b[2]);
          col.push(c.r, c.g, c.b, c.r, c.g, c.b);
        }
      }
    }
    const g = V.trails.geometry;
    g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
    g.setAttribute('color', new THREE.Float32BufferAttribute(col, 3));
  }

  function place() {
    const o = V.orbit, t = o.target || [0, 64, 0];
    V.camera.position.set(t[0] + o.dist * Math.cos(o.el) * Math.sin(o.az), t[1] + o.dist * Math.sin(o.el),
      t[2] + o.dist * Math.cos(o.el) * Math.cos(o.az));
    V.camera.lookAt(t[0], t[1], t[2]);
  }

  // Where the world point p is drawn on the canvas (pixels from its top left), or null.
  function project(p) {
    if (!V.camera) return null;
    place();
    V.camera.updateMatrixWorld();
    const v = new THREE.Vector3(p[0], p[1], p[2]).project(V.camera);
    const c = V.renderer.domElement;
    return [(v.x + 1) / 2 * c.clientWidth, (1 - v.y) / 2 * c.clientHeight];
  }

  // The entity whose figure is under canvas pixel (x, y), or null.
  function pick(x, y) {
    if (!V.camera) return null;
    const c = V.renderer.domElement;
    const ray = new THREE.Raycaster();
    ray.setFromCamera(new THREE.Vector2(x / c.clientWidth * 2 - 1, 1 - y / c.clientHeight * 2), V.camera);
    const bodies = [...V.figures.values()].filter((f) => f.group.visible).map((f) => f.body);
    const hit = ray.intersectObjects(bodies, false)[0];
    return hit ? hit.object.userData.entity : null;
  }

  function wire(canvas, onPick) {
    let drag = null;
    canvas.addEventListener('mousedown', (e) => { drag = { x: e.clientX, y: e.clientY, moved: false }; });
    window.addEventListener('mouseup', (e) => {
      if (drag && !drag.moved && e.target === canvas) {
        const r = canvas.getBoundingClientRect();
        const id = pick(e.clientX - r.left, e.clientY - r.top);
        if (id !== null) onPick(id);
      }
      drag = null;
    });
    window.addEventListener('mousemove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      drag.moved = true;
      V.orbit.az -= dx * 0.008;
      V.orbit.el = Math.max(-0.2, Math.min(1.5, V.orbit.el + dy * 0.008));
      drag.x = e.clientX; drag.y = e.clientY;
    });
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      V.orbit.dist = Math.max(2, Math.min(1500, V.orbit.dist * Math.exp(e.deltaY * 0.0015)));
    }, { passive: false });
  }

  // What the view holds (the browser test reads it).
  function state() {
    return {
      on: V.on, ready: !!V.renderer, blocks: V.blockCount, fps: V.fps,
      blockAt: (V.shownBlocks || []).slice(0, 100).map((e) => [e[1], e[2], e[3], e[4]]),
      figures: [...V.figures].filter(([, f]) => f.group.visible)
        .map(([id, f]) => [id, f.group.position.x, f.group.position.y, f.group.position.z]),
      orbit: Object.assign({}, V.orbit),
    };
  }
  // Points the camera at p from `dist` blocks away.
  function lookAt(p, dist) { V.orbit.target = p.slice(); if (dist) V.orbit.dist = dist; }

  return { open, close, draw, setEdits, project, pick, wire, state, lookAt, isOn: () => V.on, editsOf: () => V.editsRec };
})();
