// tickreel viewer, the terrain: the answer of GET /api/terrain (the blocks the page can see, each
// with the faces it draws: see native/cli/src/serve/terrain.rs) decoded once into typed arrays,
// the colour of a block by its name (a small table, a hash of the name for the rest), and the
// map's top-down image of it (the highest block of each column, shaded by its height), made once
// per terrain. The 3D view meshes the same decoded blocks (view3d.js).
'use strict';
window.tickreelTerrain = (() => {
  // The colour of a block by its name: the first pattern that matches (ores before the stone
  // they sit in).
  const COLORS = [
    [/diamond_ore/, 0x5fd8d0], [/emerald_ore/, 0x3fc060], [/gold_ore/, 0xe0c040], [/iron_ore/, 0xc8a080],
    [/copper_ore/, 0xc07040], [/redstone_ore/, 0xb02020], [/lapis_ore/, 0x3050b0], [/coal_ore/, 0x303030],
    [/grass_block|moss_block/, 0x5d9b3a], [/water|bubble_column/, 0x3a6fd8], [/lava/, 0xe0641c],
    [/red_sand/, 0xbe6a2a], [/sandstone|sand/, 0xdbcf8e], [/gravel/, 0x8a817c], [/dirt|mud|farmland|podzol/, 0x7a5436],
    [/bedrock/, 0x2e2e2e], [/deepslate/, 0x4a4a50], [/granite/, 0x9a6b58], [/diorite/, 0xbcbcbc],
    [/andesite/, 0x8a8a8a], [/tuff/, 0x6c6d66], [/cobble|stone/, 0x7f7f7f], [/log|wood/, 0x6b5233],
    [/planks|stairs|slab|fence|door/, 0xa88754], [/leaves/, 0x3f7f2a], [/glass/, 0xc0e0f0],
    [/snow/, 0xf4f8fa], [/ice/, 0x9fc4f8], [/clay/, 0x9ea4b0], [/netherrack/, 0x6e3030],
  ];
  // Seen through (drawn translucent in 3D), as the server's flood takes them (leaves are drawn
  // opaque).
  const CLEAR = /water|glass|ice|bubble_column/;

  const rgbOf = (hex) => [((hex >> 16) & 255) / 255, ((hex >> 8) & 255) / 255, (hex & 255) / 255];
  // [r, g, b] (0..1) of block state `state` named `name` (null when the recording names none).
  function color(name, state) {
    const n = name || '';
    for (const [re, hex] of COLORS) if (re.test(n)) return rgbOf(hex);
    let h = 0;
    for (const ch of (n || String(state))) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    // a muted colour from the hash (hue from it, fixed saturation and lightness)
    const hue = (h % 360) / 60, c = 0.35, x = c * (1 - Math.abs((hue % 2) - 1)), m = 0.33;
    const [r, g, b] = hue < 1 ? [c, x, 0] : hue < 2 ? [x, c, 0] : hue < 3 ? [0, c, x] : hue < 4 ? [0, x, c] : hue < 5 ? [x, 0, c] : [c, 0, x];
    return [r + m, g + m, b + m];
  }

  // The answer decoded: n blocks, their world positions (x, y, z), faces drawn (bit k: +x, -x,
  // +y, -y, +z, -z), state, colour and whether they are seen through.
  function decode(res) {
    const states = res.states || [];
    const cols = states.map(([state, name]) => color(name, state));
    const clear = states.map(([, name]) => CLEAR.test(name || ''));
    const n = res.blocks || 0;
    const T = {
      n, tick: res.tick, truncated: !!res.truncated, x: new Int32Array(n), y: new Int32Array(n), z: new Int32Array(n),
      mask: new Uint8Array(n), state: new Uint32Array(n), rgb: new Float32Array(n * 3), clear: new Uint8Array(n),
      faces: 0, clearCount: 0,
    };
    let k = 0;
    for (const [cx, cy, cz, count, b64] of res.sections || []) {
      const bin = atob(b64);
      for (let j = 0; j < count && k < n; j++, k++) {
        const o = j * 5;
        const i = bin.charCodeAt(o) | (bin.charCodeAt(o + 1) << 8);
        const slot = bin.charCodeAt(o + 3) | (bin.charCodeAt(o + 4) << 8);
        T.x[k] = cx * 16 + (i & 15); T.y[k] = cy * 16 + (i >> 8); T.z[k] = cz * 16 + ((i >> 4) & 15);
        T.mask[k] = bin.charCodeAt(o + 2);
        const s = states[slot] || [0, null], c = cols[slot] || [1, 0, 1];
        T.state[k] = s[0];
        T.rgb[k * 3] = c[0]; T.rgb[k * 3 + 1] = c[1]; T.rgb[k * 3 + 2] = c[2];
        T.clear[k] = clear[slot] ? 1 : 0;
        T.clearCount += T.clear[k];
        let m = T.mask[k];
        while (m) { T.faces += m & 1; m >>= 1; }
      }
    }
    T.n = k;
    return T;
  }

  const MAX_IMAGE_SIDE = 4096; // the map image's side at most (pixels = blocks)
  // The map's top-down image: one pixel per column, the colour of its highest block with a
  // face up, lighter the higher it stands. {canvas, x0, z0, w, h, low, high} or null.
  function topImage(T) {
    if (!T || !T.n) return null;
    let x0 = Infinity, x1 = -Infinity, z0 = Infinity, z1 = -Infinity, low = Infinity, high = -Infinity;
    for (let k = 0; k < T.n; k++) {
      if (!(T.mask[k] & 4)) continue;
      x0 = Math.min(x0, T.x[k]); x1 = Math.max(x1, T.x[k]); z0 = Math.min(z0, T.z[k]); z1 = Math.max(z1, T.z[k]);
      low = Math.min(low, T.y[k]); high = Math.max(high, T.y[k]);
    }
    if (x0 > x1) return null;
    const w = Math.min(MAX_IMAGE_SIDE, x1 - x0 + 1), h = Math.min(MAX_IMAGE_SIDE, z1 - z0 + 1);
    const top = new Int32Array(w * h).fill(-0x7fffffff), who = new Int32Array(w * h).fill(-1);
    for (let k = 0; k < T.n; k++) {
      if (!(T.mask[k] & 4)) continue;
      const px = T.x[k] - x0, pz = T.z[k] - z0;
      if (px >= w || pz >= h) continue;
      const p = pz * w + px;
      if (T.y[k] > top[p]) { top[p] = T.y[k]; who[p] = k; }
    }
    const canvas = document.createElement('canvas');
    canvas.width = w; canvas.height = h;
    const g = canvas.getContext('2d'), img = g.createImageData(w, h);
    for (let p = 0; p < w * h; p++) {
      const k = who[p];
      if (k < 0) continue;
      const f = 0.55 + 0.55 * (high > low ? (T.y[k] - low) / (high - low) : 1);
      for (let c = 0; c < 3; c++) img.data[p * 4 + c] = Math.min(255, Math.round(T.rgb[k * 3 + c] * f * 255));
      img.data[p * 4 + 3] = 255;
    }
    g.putImageData(img, 0, 0);
    return { canvas, x0, z0, w, h, low, high };
  }

  return { decode, color, topImage };
})();
