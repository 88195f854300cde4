// tickreel viewer, the world in 3D (three.js, vendored in the binary and loaded only when this
// view is first opened): entities as labelled figures standing at their height, their trails
// (not joined across a teleport), the edited blocks as they were at the tick shown (the page's
// blocks.js: the world the server rebuilt at a tick, moved along by the changes after it; air
// left out), an orbit camera (drag to turn, wheel to zoom) that follows the followed entity. A click on
// a figure follows it. Coordinates are the game's: x east, y up, z south; a block at (x, y, z)
// fills x..x+1, y..y+1, z..z+1.
//
// Drawn in a few draw calls whatever the crowd, so that software WebGL keeps up: the figures'
// bodies and noses are two instanced meshes, the labels one instanced quad textured from an
// atlas of names (a name is drawn into it once, when it first appears), the trails one line
// set in preallocated buffers updated incrementally (a ring of segments per entity: each new
// trail step writes one segment, the segment to the current position is rewritten), the blocks
// one mesh of their open faces rebuilt only when a block changes, the terrain (terrain.js: the
// blocks the server found seen, their exposed faces) two meshes, opaque and translucent, built
// once per terrain, under the edited blocks and the figures. A frame is drawn only when
// something changed (the tick shown, the camera, the size, the blocks); nothing is allocated per
// frame.
'use strict';
window.tickreelView3d = (() => {
  const FIGURE = { w: 0.6, h: 1.8 };
  const BG = 0x101216;
  const TRAIL = 100, TRAIL_STEP = 2, JUMP = 16; // as the map's trails (viewer.js)
  const STEPS = TRAIL / TRAIL_STEP;             // trail segments per entity (plus the head)
  const MAX_TRAILS = 4096;                      // entities with a trail at most
  const CELL = { w: 256, h: 32, cols: 4 };      // label atlas cells
  const MAX_LABEL_ROWS = 128;                   // atlas rows at most (512 labels)
  const LABEL = { w: 3, h: 0.375, above: 0.6 }; // a label's size and height above a figure (blocks)
  let THREE = null;
  const V = {
    on: false, loading: null, renderer: null, scene: null, camera: null, grid: null,
    bodies: null, noses: null, labels: null, figCap: 0, figIds: [], frame: null, follow: null,
    trails: null, trailSlot: new Map(), trailCap: 0, trailBase: null, trailRec: null,
    atlas: null, blocks: null, terrain: null, terrainClear: null, terrainData: null, terrainBuilt: null, blocksVersion: null,
    blockCount: 0, blockColors: new Map(), entityColors: new Map(), shownBlocks: [],
    orbit: { az: Math.PI / 4, el: 0.55, dist: 30, target: null },
    resolution: 1, top: 1, adaptive: true, calls: 0, dirty: true, frames: 0, since: 0, fps: null, ms: 0, msFrames: 0, msMean: null, drawings: 0, drawMs: 0,
  };
  let M = null, C = null; // scratch matrix and colour, made once

  // three.js is fetched from this server the first time the view opens (relative to the page).
  async function load() {
    if (!THREE) THREE = await import('./vendor/three.module.js');
    return THREE;
  }

  function init(canvas) {
    // what software WebGL pays for per pixel, left out: no multisampling, no alpha channel
    // composited with the page, no stencil buffer
    const r = new THREE.WebGLRenderer({ canvas, antialias: false, alpha: false, stencil: false, powerPreference: 'high-performance' });
    r.setPixelRatio(1);
    const scene = new THREE.Scene();
    scene.background = new THREE.Color(BG);
    const camera = new THREE.PerspectiveCamera(60, 1, 0.1, 4000);
    const grid = new THREE.GridHelper(256, 256, 0x2a2f38, 0x1d2129);
    scene.add(grid);
    M = new THREE.Matrix4();
    C = new THREE.Color();
    Object.assign(V, { renderer: r, scene, camera, grid });
    V.atlas = makeAtlas(32);
  }

  // Opens the view on `canvas` (loads three.js the first time).
  async function open(canvas) {
    V.on = true;
    V.dirty = true;
    if (!V.loading) V.loading = load().then(() => init(canvas));
    await V.loading;
  }
  function close() { V.on = false; }

  function colorOf(id) {
    let c = V.entityColors.get(id);
    if (!c) {
      c = new THREE.Color().setHSL(((id * 137.508) % 360) / 360, 0.7, 0.6);
      if (V.entityColors.size > 65536) V.entityColors.clear();
      V.entityColors.set(id, c);
    }
    return c;
  }

  // ---- figures: bodies and noses (instanced), labels (one instanced quad from an atlas) ------

  function makeFigures(cap) {
    for (const m of [V.bodies, V.noses, V.labels]) if (m) { V.scene.remove(m); m.geometry.dispose(); m.dispose(); }
    const body = shaded(new THREE.BoxGeometry(FIGURE.w, FIGURE.h, FIGURE.w));
    body.translate(0, FIGURE.h / 2, 0);
    V.bodies = new THREE.InstancedMesh(body, new THREE.MeshBasicMaterial({ vertexColors: true }), cap);
    // a nose: where it looks (yaw 0 = +z)
    const nose = shaded(new THREE.BoxGeometry(0.2, 0.2, 0.4));
    nose.translate(0, FIGURE.h - 0.3, FIGURE.w / 2 + 0.15);
    V.noses = new THREE.InstancedMesh(nose, new THREE.MeshBasicMaterial({ vertexColors: true }), cap);
    const quad = new THREE.PlaneGeometry(1, 1);
    quad.setAttribute('cell', new THREE.InstancedBufferAttribute(new Float32Array(cap), 1));
    V.labels = new THREE.InstancedMesh(quad, labelMaterial(), cap);
    V.labels.renderOrder = 10;
    for (const m of [V.bodies, V.noses, V.labels]) {
      m.count = 0;
      m.frustumCulled = false;
      m.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
      V.scene.add(m);
    }
    V.bodies.setColorAt(0, C.set(0xffffff)); // makes the colour buffer
    V.figCap = cap;
    V.figIds = new Array(cap).fill(-1);
  }

  // Light comes from above: each face is shaded by where it faces (baked into vertex colours,
  // so that every material is unlit and cheap to fill).
  const SHADE = { top: 1, bottom: 0.5, x: 0.8, z: 0.65 };
  const shadeOf = (nx, ny) => (ny > 0.5 ? SHADE.top : ny < -0.5 ? SHADE.bottom : Math.abs(nx) > 0.5 ? SHADE.x : SHADE.z);
  function shaded(geometry) {
    const n = geometry.attributes.normal, col = new Float32Array(n.count * 3);
    for (let i = 0; i < n.count; i++) col.fill(shadeOf(n.getX(i), n.getY(i)), i * 3, i * 3 + 3);
    geometry.setAttribute('color', new THREE.BufferAttribute(col, 3));
    return geometry;
  }

  // Labels face the camera: the quad is laid out in view space around its instance's position.
  function labelMaterial() {
    return new THREE.ShaderMaterial({
      uniforms: {
        map: { value: V.atlas.texture },
        grid: { value: new THREE.Vector2(CELL.cols, V.atlas.rows) },
        size: { value: new THREE.Vector2(LABEL.w, LABEL.h) },
      },
      vertexShader: `
        attribute float cell;
        uniform vec2 grid;
        uniform vec2 size;
        varying vec2 vUv;
        void main() {
          vec4 mv = modelViewMatrix * instanceMatrix * vec4(0.0, 0.0, 0.0, 1.0);
          mv.xy += position.xy * size;
          gl_Position = projectionMatrix * mv;
          float col = mod(cell, grid.x), row = floor(cell / grid.x);
          vUv = vec2((col + uv.x) / grid.x, 1.0 - (row + 1.0 - uv.y) / grid.y);
        }`,
      fragmentShader: `
        uniform sampler2D map;
        varying vec2 vUv;
        void main() {
          vec4 c = texture2D(map, vUv);
          if (c.a < 0.1) discard;
          gl_FragColor = c;
        }`,
      transparent: true, depthTest: false, depthWrite: false,
    });
  }

  // The atlas of label texts: each text is drawn into a cell once, when it first appears.
  function makeAtlas(rows) {
    const canvas = document.createElement('canvas');
    canvas.width = CELL.w * CELL.cols;
    canvas.height = CELL.h * rows;
    const texture = new THREE.CanvasTexture(canvas);
    texture.generateMipmaps = false;
    texture.minFilter = THREE.LinearFilter;
    return { canvas, g: canvas.getContext('2d'), texture, rows, cells: new Map(), next: 0 };
  }
  function cellOf(text) {
    const a = V.atlas;
    let c = a.cells.get(text);
    if (c !== undefined) return c;
    if (a.next >= a.rows * CELL.cols) {
      // full: a bigger atlas (up to MAX_LABEL_ROWS rows), or the same size started over
      V.atlas = makeAtlas(Math.min(MAX_LABEL_ROWS, a.rows * 2));
      a.texture.dispose();
      V.labels.material.uniforms.map.value = V.atlas.texture;
      V.labels.material.uniforms.grid.value.set(CELL.cols, V.atlas.rows);
      V.labelsStale = true;
      return cellOf(text);
    }
    c = V.atlas.next++;
    const g = V.atlas.g, x = (c % CELL.cols) * CELL.w, y = Math.floor(c / CELL.cols) * CELL.h;
    g.clearRect(x, y, CELL.w, CELL.h);
    g.font = 'bold 22px system-ui, sans-serif';
    g.textAlign = 'center'; g.textBaseline = 'middle';
    g.lineWidth = 5; g.strokeStyle = '#000'; g.strokeText(text, x + CELL.w / 2, y + CELL.h / 2, CELL.w - 8);
    g.fillStyle = '#fff'; g.fillText(text, x + CELL.w / 2, y + CELL.h / 2, CELL.w - 8);
    V.atlas.cells.set(text, c);
    V.atlas.texture.needsUpdate = true;
    return c;
  }

  // Places every entity of `frame`; labels for the named and the followed.
  function placeFigures(frame, ctx) {
    const n = frame.e.length;
    if (!V.bodies || V.figCap < n) makeFigures(Math.max(64, n * 2));
    const cells = V.labels.geometry.getAttribute('cell');
    let labels = 0;
    for (let pass = 0; pass < 2; pass++) {
      labels = 0;
      V.labelsStale = false;
      for (let i = 0; i < n; i++) {
        const e = frame.e[i];
        const yaw = -e[4] * Math.PI / 180;
        M.makeRotationY(yaw).setPosition(e[1], e[2], e[3]);
        V.bodies.setMatrixAt(i, M);
        V.noses.setMatrixAt(i, M);
        if (V.figIds[i] !== e[0] || pass) { V.figIds[i] = e[0]; V.bodies.setColorAt(i, colorOf(e[0])); }
        const name = ctx.names.get(e[0]) || (e[0] === ctx.follow ? '#' + e[0] : null);
        if (name && labels < MAX_LABEL_ROWS * CELL.cols) {
          M.makeTranslation(e[1], e[2] + FIGURE.h + LABEL.above, e[3]);
          V.labels.setMatrixAt(labels, M);
          cells.array[labels++] = cellOf(name);
        }
      }
      if (!V.labelsStale) break; // the atlas started over: every cell again
    }
    V.bodies.count = V.noses.count = n;
    V.labels.count = labels;
    for (const m of [V.bodies, V.noses, V.labels]) m.instanceMatrix.needsUpdate = true;
    V.bodies.instanceColor.needsUpdate = true;
    cells.needsUpdate = true;
  }

  // ---- trails: one line set, a ring of STEPS segments per entity plus its head --------------

  function makeTrails(cap) {
    if (V.trails) { V.scene.remove(V.trails); V.trails.geometry.dispose(); }
    const g = new THREE.BufferGeometry();
    const floats = cap * (STEPS + 1) * 2 * 3;
    g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(floats), 3).setUsage(THREE.DynamicDrawUsage));
    g.setAttribute('color', new THREE.BufferAttribute(new Float32Array(floats), 3).setUsage(THREE.DynamicDrawUsage));
    g.setDrawRange(0, 0);
    V.trails = new THREE.LineSegments(g, new THREE.LineBasicMaterial({ vertexColors: true, transparent: true, opacity: 0.7 }));
    V.trails.frustumCulled = false;
    V.scene.add(V.trails);
    V.trailCap = cap;
    V.trailSlot.clear();
  }

  // Writes segment `seg` of slot `slot`: from a to b (entity frames' rows), or nothing (both
  // ends at one point) when either is missing or they are a teleport apart.
  function segment(slot, seg, a, b, c) {
    const pos = V.trails.geometry.attributes.position.array, col = V.trails.geometry.attributes.color.array;
    const o = (slot * (STEPS + 1) + seg) * 6;
    if (!a || !b || Math.hypot(b[1] - a[1], b[3] - a[3]) >= JUMP) {
      const p = a || b;
      const x = p ? p[1] : 0, y = p ? p[2] : 0, z = p ? p[3] : 0;
      pos[o] = pos[o + 3] = x; pos[o + 1] = pos[o + 4] = y + 0.05; pos[o + 2] = pos[o + 5] = z;
      return;
    }
    pos[o] = a[1]; pos[o + 1] = a[2] + 0.05; pos[o + 2] = a[3];
    pos[o + 3] = b[1]; pos[o + 4] = b[2] + 0.05; pos[o + 5] = b[3];
    // colours are sent to the GPU again only when one changed (a slot given to another entity)
    if (col[o] !== Math.fround(c.r) || col[o + 1] !== Math.fround(c.g) || col[o + 2] !== Math.fround(c.b)) {
      col[o] = col[o + 3] = c.r; col[o + 1] = col[o + 4] = c.g; col[o + 2] = col[o + 5] = c.b;
      V.trailColors = true;
    }
  }

  const rowOf = (f, id) => (f && f.byId.get(id)) || null;

  // The trails at `frame`: the segments between trail steps (ticks that are multiples of
  // TRAIL_STEP) are written once, as the play position passes them; a seek back or far writes
  // them all again; the segment from the last step to the position shown is rewritten.
  function placeTrails(frame, ctx) {
    const t = frame.t, base = t - (t % TRAIL_STEP);
    const again = V.trailBase === null || base < V.trailBase || base - V.trailBase > TRAIL || V.trailRec !== ctx.rec;
    if (again) {
      if (!V.trails || V.trailCap < frame.e.length) makeTrails(Math.min(MAX_TRAILS, Math.max(64, frame.e.length * 2)));
      V.trailSlot.clear();
      V.trails.geometry.attributes.position.array.fill(0);
    }
    // entities new to the trails get a slot (the slots are given again when they run out)
    for (const e of frame.e) {
      if (V.trailSlot.has(e[0])) continue;
      if (V.trailSlot.size >= V.trailCap) {
        if (V.trailCap < MAX_TRAILS) { makeTrails(Math.min(MAX_TRAILS, V.trailCap * 2)); V.trailBase = null; return placeTrails(frame, ctx); }
        continue;
      }
      const slot = V.trailSlot.size;
      V.trailSlot.set(e[0], slot);
      // its steps so far (an entity seen for the first time has no trail written yet)
      if (!again) writeSteps(e[0], slot, base - TRAIL + TRAIL_STEP, base, ctx);
    }
    if (again) {
      for (const [id, slot] of V.trailSlot) writeSteps(id, slot, base - TRAIL + TRAIL_STEP, base, ctx);
    } else if (base > V.trailBase) {
      for (const [id, slot] of V.trailSlot) writeSteps(id, slot, V.trailBase + TRAIL_STEP, base, ctx);
    }
    V.trailBase = base;
    V.trailRec = ctx.rec;
    // the heads: from the last trail step to the position shown
    const last = base === t ? null : ctx.frameAt(base);
    for (const [id, slot] of V.trailSlot) {
      const now = frame.byId.get(id) || null;
      segment(slot, STEPS, base === t ? now : rowOf(last, id), now, colorOf(id));
    }
    const g = V.trails.geometry;
    g.setDrawRange(0, V.trailSlot.size * (STEPS + 1) * 2);
    g.attributes.position.needsUpdate = true;
    if (V.trailColors) { g.attributes.color.needsUpdate = true; V.trailColors = false; }
  }

  // Writes the segments ending at the trail steps from..=to of entity id.
  function writeSteps(id, slot, from, to, ctx) {
    from = Math.max(from, to - TRAIL + TRAIL_STEP);
    const c = colorOf(id);
    let prev = rowOf(ctx.frameAt(from - TRAIL_STEP), id);
    for (let s = from; s <= to; s += TRAIL_STEP) {
      const now = rowOf(ctx.frameAt(s), id);
      segment(slot, ((s / TRAIL_STEP) % STEPS + STEPS) % STEPS, prev, now, c);
      prev = now;
    }
  }

  // ---- blocks --------------------------------------------------------------------------------

  // A block's six faces: the neighbour they face, their shade, their corners counter-clockwise
  // seen from outside (from the block's corner at its lowest x, y, z).
  const FACES = [[0, 1], [0, -1], [1, 1], [1, -1], [2, 1], [2, -1]].map(([axis, sign]) => {
    const n = [0, 0, 0];
    n[axis] = sign;
    const u = (axis + 1) % 3, w = (axis + 2) % 3;
    const corners = [[0, 0], [1, 0], [1, 1], [0, 1]].map(([a, b]) => {
      const p = [0, 0, 0];
      p[axis] = sign > 0 ? 1 : 0; p[u] = a; p[w] = b;
      return p;
    });
    // (u, w, axis) is right-handed: u x w = axis; reversed on the negative side
    if (sign < 0) corners.reverse();
    return { n, corners, shade: shadeOf(n[0], n[1]) };
  });
  const MAX_BLOCKS = 500000; // blocks drawn at most

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

  // ---- meshing: faces merged into rectangles, their colours in a texture ----------------------
  //
  // Software WebGL pays for every triangle (a 100 x 100 floor of single-block faces is 40,800
  // triangles, and drew at a third of the rate without them), so faces are not drawn one by one:
  // the faces drawn that lie side by side in one plane and look the same way are merged into
  // rectangles, whatever their colours (a floor's top is one rectangle), and each rectangle's
  // texels (one a face, its colour and shade) are packed into a texture read without filtering.
  // The picture is the same as one quad a face; the triangles are a few per rectangle.

  const ATLAS_SIDE = 4096; // the colour texture's side at most (texels: one a face)
  const MAX_RECT = 256;    // a rectangle's side at most (faces)

  // Meshes `n` blocks: x, y, z, mask (faces drawn, bit k as FACES), rgb (linear, 3 a block), each
  // an array; null when no face is drawn, else { geometry, texture, faces, quads }. Faces past
  // the texture's room are left out (ATLAS_SIDE² faces: far past the blocks drawn at most).
  function meshFaces(n, X, Y, Z, MASK, RGB) {
    // the faces by direction and plane: key -> { f, plane, cells: Map(u,w -> k) }
    const planes = new Map();
    let faces = 0;
    for (let k = 0; k < n; k++) {
      const m = MASK[k];
      if (!m) continue;
      const p = [X[k], Y[k], Z[k]];
      for (let f = 0; f < 6; f++) {
        if (!(m & (1 << f))) continue;
        const axis = f >> 1, u = (axis + 1) % 3, w = (axis + 2) % 3;
        const plane = p[axis] + (f & 1 ? 0 : 1);
        const key = f + ':' + plane;
        let P = planes.get(key);
        if (!P) { P = { f, plane, cells: new Map() }; planes.set(key, P); }
        P.cells.set(p[u] + ',' + p[w], k);
        faces++;
      }
    }
    if (!faces) return null;
    // greedy rectangles in each plane: the cells in (w, u) order, each not yet taken grown along
    // u, then along w while the whole row is there
    const rects = [];
    for (const P of planes.values()) {
      const axis = P.f >> 1, u = (axis + 1) % 3, w = (axis + 2) % 3;
      const cells = [];
      for (const [key, k] of P.cells) { const [a, b] = key.split(',').map(Number); cells.push([a, b, k]); }
      cells.sort((p, q) => p[1] - q[1] || p[0] - q[0]);
      const taken = new Set();
      const free = (a, b) => { const key = a + ',' + b; return P.cells.has(key) && !taken.has(key); };
      for (const [a0, b0] of cells) {
        if (taken.has(a0 + ',' + b0)) continue;
        let wu = 1;
        while (wu < MAX_RECT && free(a0 + wu, b0)) wu++;
        let hw = 1;
        grow: while (hw < MAX_RECT) {
          for (let i = 0; i < wu; i++) if (!free(a0 + i, b0 + hw)) break grow;
          hw++;
        }
        const ks = new Int32Array(wu * hw);
        for (let j = 0; j < hw; j++) for (let i = 0; i < wu; i++) {
          const key = (a0 + i) + ',' + (b0 + j);
          taken.add(key);
          ks[j * wu + i] = P.cells.get(key);
        }
        rects.push({ f: P.f, plane: P.plane, u, w, a0, b0, wu, hw, ks });
      }
    }
    // the texture: rectangles on shelves, tallest first
    rects.sort((p, q) => q.hw - p.hw);
    let x = 0, y = 0, shelf = 0, width = 0;
    const placed = [];
    for (const r of rects) {
      if (x + r.wu > ATLAS_SIDE) { x = 0; y += shelf; shelf = 0; }
      if (y + r.hw > ATLAS_SIDE) break;
      r.tx = x; r.ty = y;
      x += r.wu; shelf = Math.max(shelf, r.hw); width = Math.max(width, x);
      placed.push(r);
    }
    const tw = width, th = y + shelf;
    const texels = new Uint8Array(tw * th * 4);
    const pos = new Float32Array(placed.length * 12), uv = new Float32Array(placed.length * 8);
    const idx = new Uint32Array(placed.length * 6);
    let drawn = 0;
    placed.forEach((r, q) => {
      const F = FACES[r.f];
      for (let j = 0; j < r.hw; j++) for (let i = 0; i < r.wu; i++) {
        const k = r.ks[j * r.wu + i], o = ((r.ty + j) * tw + r.tx + i) * 4;
        C.setRGB(RGB[k * 3] * F.shade, RGB[k * 3 + 1] * F.shade, RGB[k * 3 + 2] * F.shade);
        const hex = C.getHex(); // sRGB, as the texture is read
        texels[o] = hex >> 16; texels[o + 1] = (hex >> 8) & 255; texels[o + 2] = hex & 255; texels[o + 3] = 255;
      }
      drawn += r.wu * r.hw;
      for (let v = 0; v < 4; v++) {
        const c = F.corners[v], o = (q * 4 + v) * 3, t = (q * 4 + v) * 2;
        const cu = c[r.u], cw = c[r.w];
        const p = [0, 0, 0];
        p[r.f >> 1] = r.plane; p[r.u] = r.a0 + cu * r.wu; p[r.w] = r.b0 + cw * r.hw;
        pos[o] = p[0]; pos[o + 1] = p[1]; pos[o + 2] = p[2];
        uv[t] = (r.tx + cu * r.wu) / tw; uv[t + 1] = (r.ty + cw * r.hw) / th;
      }
      const b = q * 4;
      idx[q * 6] = b; idx[q * 6 + 1] = b + 1; idx[q * 6 + 2] = b + 2;
      idx[q * 6 + 3] = b; idx[q * 6 + 4] = b + 2; idx[q * 6 + 5] = b + 3;
    });
    const texture = new THREE.DataTexture(texels, tw, th, THREE.RGBAFormat);
    texture.colorSpace = THREE.SRGBColorSpace;
    texture.magFilter = texture.minFilter = THREE.NearestFilter;
    texture.generateMipmaps = false;
    texture.needsUpdate = true;
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(pos, 3));
    geometry.setAttribute('uv', new THREE.BufferAttribute(uv, 2));
    geometry.setIndex(new THREE.BufferAttribute(idx, 1));
    geometry.computeBoundingSphere();
    return { geometry, texture, faces: drawn, quads: placed.length };
  }

  // A mesh of meshFaces' answer m (null: none), opaque or seen through.
  function faceMesh(m, clear) {
    if (!m) return null;
    const mat = clear
      ? new THREE.MeshBasicMaterial({ map: m.texture, transparent: true, opacity: 0.55, depthWrite: false, side: THREE.DoubleSide })
      : new THREE.MeshBasicMaterial({ map: m.texture });
    const mesh = new THREE.Mesh(m.geometry, mat);
    mesh.renderOrder = clear ? 5 : 0;
    return mesh;
  }
  function dropMesh(mesh) {
    if (!mesh) return;
    V.scene.remove(mesh);
    mesh.geometry.dispose();
    if (mesh.material.map) mesh.material.map.dispose();
    mesh.material.dispose();
  }

  // The blocks shown (ctx.blocks(): [x, y, z, state], air left out), meshed again only when
  // their version changed: a face is drawn where no block shown is its neighbour.
  function placeBlocks(ctx) {
    const version = ctx.blocksVersion();
    if (V.blocksVersion === version) return false;
    V.blocksVersion = version;
    let shown = ctx.blocks();
    if (shown.length > MAX_BLOCKS) shown = shown.slice(0, MAX_BLOCKS);
    const n = shown.length;
    const filled = new Set();
    for (const e of shown) filled.add(e[0] + ',' + e[1] + ',' + e[2]);
    const X = new Int32Array(n), Y = new Int32Array(n), Z = new Int32Array(n), MASK = new Uint8Array(n), RGB = new Float32Array(n * 3);
    shown.forEach((e, i) => {
      X[i] = e[0]; Y[i] = e[1]; Z[i] = e[2];
      let m = 0;
      FACES.forEach((f, k) => {
        if (!filled.has((e[0] + f.n[0]) + ',' + (e[1] + f.n[1]) + ',' + (e[2] + f.n[2]))) m |= 1 << k;
      });
      MASK[i] = m;
      const c = blockColor(e[3], ctx.blockName(e[3]));
      RGB[i * 3] = c.r; RGB[i * 3 + 1] = c.g; RGB[i * 3 + 2] = c.b;
    });
    dropMesh(V.blocks);
    const m = meshFaces(n, X, Y, Z, MASK, RGB);
    V.blocks = faceMesh(m, false);
    if (V.blocks) V.scene.add(V.blocks);
    V.blockFaces = m ? m.faces : 0;
    V.blockQuads = m ? m.quads : 0;
    V.blockCount = n;
    V.shownBlocks = shown;
    return true;
  }

  // ---- terrain -------------------------------------------------------------------------------

  // The terrain to draw (decoded by tickreelTerrain.decode), meshed at the next drawing.
  function setTerrain(T) { V.terrainData = T; V.dirty = true; }

  // The terrain's faces in two meshes, the opaque blocks and those seen through (translucent,
  // drawn after): built once per terrain, never per frame.
  function placeTerrain() {
    const T = V.terrainData;
    if (V.terrainBuilt === T) return false;
    V.terrainBuilt = T;
    dropMesh(V.terrain);
    dropMesh(V.terrainClear);
    V.terrain = V.terrainClear = null;
    V.terrainFaces = 0;
    if (!T || !T.n) return true;
    const build = (clear) => {
      // the blocks of this kind only: the others' faces masked out
      const mask = new Uint8Array(T.n);
      for (let k = 0; k < T.n; k++) mask[k] = T.clear[k] === clear ? T.mask[k] : 0;
      const m = meshFaces(T.n, T.x, T.y, T.z, mask, T.rgb);
      const mesh = faceMesh(m, clear);
      if (mesh) { V.scene.add(mesh); V.terrainFaces += m.faces; }
      return mesh;
    };
    V.terrain = build(0);
    V.terrainClear = build(1);
    // the grid would cut through the ground: it lies under the terrain's lowest block drawn
    let low = Infinity;
    for (let k = 0; k < T.n; k++) low = Math.min(low, T.y[k]);
    if (V.grid && low < V.grid.position.y) V.grid.position.y = low;
    return true;
  }

  // ---- a frame -------------------------------------------------------------------------------

  // Draws frame `frame` (entities in blocks and degrees) if anything changed since the last
  // drawing. ctx: names (id -> name), follow (id or null), rec (the recording shown),
  // frameAt(t) (the frame held at tick t, or null), blockName(state).
  function draw(canvas, frame, ctx) {
    if (!V.on || !V.renderer) return;
    const began = performance.now();
    V.calls++;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    V.top = Math.min(1, Math.sqrt(MAX_PIXELS / Math.max(1, w * h)));
    if (V.adaptive && V.resolution > V.top) V.resolution = V.top;
    if (canvas.width !== Math.floor(w * V.resolution) || canvas.height !== Math.floor(h * V.resolution)) {
      V.renderer.setPixelRatio(V.resolution);
      V.renderer.setSize(w, h, false);
      V.camera.aspect = w / Math.max(1, h);
      V.camera.updateProjectionMatrix();
      V.dirty = true;
    }
    if (frame !== V.frame || ctx.follow !== V.follow) {
      V.frame = frame;
      V.follow = ctx.follow;
      V.dirty = true;
      if (frame) {
        placeFigures(frame, ctx);
        if (!V.orbit.target && frame.e.length) {
          let x = 0, y = 0, z = 0, low = Infinity;
          for (const e of frame.e) { x += e[1]; y += e[2]; z += e[3]; low = Math.min(low, e[2]); }
          const n = frame.e.length;
          V.orbit.target = [x / n, y / n, z / n];
          V.grid.position.set(Math.round(x / n), Math.floor(Math.min(low, y / n)), Math.round(z / n));
        }
        const followed = ctx.follow !== null && frame.byId.get(ctx.follow);
        if (followed) V.orbit.target = [followed[1], followed[2] + 1, followed[3]];
        placeTrails(frame, ctx);
      } else if (V.bodies) {
        V.bodies.count = V.noses.count = V.labels.count = 0;
        if (V.trails) V.trails.geometry.setDrawRange(0, 0);
        V.trailBase = null;
      }
    }
    if (placeTerrain()) V.dirty = true;
    if (placeBlocks(ctx)) V.dirty = true;
    if (!V.dirty) return;
    V.dirty = false;
    render();
    V.frames++;
    const now = performance.now();
    V.ms += now - began;
    V.msFrames++;
    V.drawings++;
    V.drawMs += now - began;
    if (now - V.since > 1000) {
      V.fps = V.frames * 1000 / (now - V.since || 1);
      adapt(V.fps, V.frames / Math.max(1, V.calls));
      V.calls = 0;
      V.msMean = V.ms / Math.max(1, V.msFrames);
      V.frames = 0; V.since = now; V.ms = 0; V.msFrames = 0;
    }
  }

  // Resolution follows the frame rate: when every animation frame has something new to draw
  // (`busy`: the share of calls that drew) and fewer than MIN_FPS are drawn a second, the view
  // draws at fewer pixels (down to MIN_RESOLUTION of the canvas's); when it draws more than
  // EASY_FPS, at more again, up to MAX_PIXELS in all (the canvas shows them stretched to its
  // size, one drawn pixel to every CSS pixel at most: the screen's device pixel ratio is not
  // used). Software WebGL is bound by the pixels it fills and the page's compositor by the
  // pixels it copies: measured in Chromium's SwiftShader, a frame of the 100-figure,
  // 10,000-block scene cost about 67 ms of CPU at 1000x540 pixels, 45 ms at a quarter of them
  // and 31 ms at a sixteenth (BENCHMARKS.md, "Viewer 3D view").
  const MIN_FPS = 30, EASY_FPS = 45, MIN_RESOLUTION = 0.35, MAX_PIXELS = 260000;
  function adapt(fps, busy) {
    if (!V.adaptive || busy < 0.9) return;
    let k = V.resolution;
    if (fps < MIN_FPS) k = Math.max(MIN_RESOLUTION, k * 0.8);
    else if (fps > EASY_FPS) k = Math.min(V.top || 1, k * 1.25);
    if (k !== V.resolution) { V.resolution = k; V.dirty = true; }
  }

  function render() {
    place();
    V.renderer.render(V.scene, V.camera);
  }

  // Draws the view again at once (the drawing buffer is not kept once shown, so that nothing is
  // copied per frame: who reads the canvas's pixels draws it first, in the same task).
  function redraw() {
    if (V.renderer) render();
    return !!V.renderer;
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
    if (!V.camera || !V.bodies) return null;
    const c = V.renderer.domElement;
    const ray = new THREE.Raycaster();
    ray.setFromCamera(new THREE.Vector2(x / c.clientWidth * 2 - 1, 1 - y / c.clientHeight * 2), V.camera);
    V.bodies.boundingSphere = null; // the figures have moved since
    const hit = ray.intersectObject(V.bodies, false)[0];
    return hit && hit.instanceId !== undefined ? V.figIds[hit.instanceId] : null;
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
      V.dirty = true;
    });
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      V.orbit.dist = Math.max(2, Math.min(1500, V.orbit.dist * Math.exp(e.deltaY * 0.0015)));
      V.dirty = true;
    }, { passive: false });
  }

  // What the view holds (the browser test reads it). fps: frames drawn in the last second
  // measured (a frame is drawn only when something changed); ms: the mean time of a drawing
  // (on this thread: the GPU's work is not in it); drawings, drawMs: their counts since opened.
  function state() {
    const f = V.on && V.frame;
    return {
      on: V.on, ready: !!V.renderer, blocks: V.blockCount,
      terrainBlocks: V.terrainBuilt ? V.terrainBuilt.n : 0, terrainFaces: V.terrainFaces || 0, blockFaces: V.blockFaces || 0, blockQuads: V.blockQuads || 0, fps: V.fps, ms: V.msMean, resolution: V.resolution, drawings: V.drawings, drawMs: V.drawMs,
      blockAt: V.shownBlocks.slice(0, 100).map((e) => e.slice()),
      figures: f ? f.e.map((e) => [e[0], e[1], e[2], e[3]]) : [],
      labels: V.labels ? V.labels.count : 0,
      trailSegments: V.trails ? V.trails.geometry.drawRange.count / 2 : 0,
      orbit: Object.assign({}, V.orbit),
    };
  }
  // Draws at `k` times the canvas's CSS pixels (0.25..=1, past MAX_PIXELS too), or (k null)
  // adapts it to the frame rate again.
  function setResolution(k) {
    V.adaptive = k === null || k === undefined;
    if (!V.adaptive) V.resolution = Math.max(0.25, Math.min(1, Number(k) || 1));
    V.dirty = true;
    return V.resolution;
  }

  // Points the camera at p from `dist` blocks away.
  function lookAt(p, dist) { V.orbit.target = p.slice(); if (dist) V.orbit.dist = dist; V.dirty = true; }

  return { open, close, draw, redraw, setResolution, setTerrain, project, pick, wire, state, lookAt, isOn: () => V.on };
})();
