// tickreel viewer, the edited blocks at the play position: the answer of GET /api/blocks?tick=T
// (the world the server's reader rebuilt at T, and the block changes of the ticks after it up to
// `to`: see native/cli/src/serve/blocks.rs) held as a map of position -> state, moved to a tick
// by applying the changes it passes (forward) and undoing them (backward), so that playing
// through the window asks the server nothing; outside [tick, to] the page asks again (viewer.js).
// Air is no block: a change to air removes one. The map and the 3D view read the same list.
'use strict';
window.tickreelBlocks = (() => {
  // A holder of one recording's blocks. isAir(state) names air (the recording's palette).
  function create(isAir) {
    const B = {
      rec: null, base: null, to: null, complete: true, at: new Map(), changes: [], next: 0, undo: [],
      version: 0, listVersion: -1, list: [], tick: null,
    };
    const key = (x, y, z) => x + ',' + y + ',' + z;

    // Holds answer `res` of recording `rec`, then moves to tick t.
    function set(rec, res, t) {
      B.rec = rec; B.base = res.tick; B.to = res.to; B.complete = res.complete !== false;
      B.at = new Map();
      for (const b of res.blocks) B.at.set(key(b[0], b[1], b[2]), b);
      B.changes = res.changes || [];
      B.next = 0; B.undo = []; B.tick = res.tick;
      B.version++;
      moveTo(t);
    }
    function clear() { Object.assign(B, { rec: null, base: null, to: null, at: new Map(), changes: [], next: 0, undo: [], tick: null }); B.version++; }

    // Whether tick t is within what is held.
    const covers = (rec, t) => B.rec === rec && B.base !== null && t >= B.base && t <= B.to;

    function put(x, y, z, state) {
      const k = key(x, y, z), old = B.at.get(k);
      if (isAir(state)) B.at.delete(k); else B.at.set(k, [x, y, z, state]);
      return old;
    }
    // Moves to tick t (within [base, to]; outside it, to the nearest end): applies the changes
    // up to t, undoes those after it. True when a block changed.
    function moveTo(t) {
      if (B.base === null) return false;
      t = Math.max(B.base, Math.min(B.to, Math.floor(t)));
      let changed = false;
      while (B.next < B.changes.length && B.changes[B.next][0] <= t) {
        const c = B.changes[B.next++];
        B.undo.push(put(c[1], c[2], c[3], c[4]) || null);
        changed = true;
      }
      while (B.next > 0 && B.changes[B.next - 1][0] > t) {
        const c = B.changes[--B.next], old = B.undo.pop();
        const k = key(c[1], c[2], c[3]);
        if (old) B.at.set(k, old); else B.at.delete(k);
        changed = true;
      }
      B.tick = t;
      if (changed) B.version++;
      return changed;
    }
    // The blocks held, lowest first (the map draws the highest of a column last); made again
    // only when a block changed.
    function list() {
      if (B.listVersion !== B.version) {
        B.list = Array.from(B.at.values()).sort((a, b) => a[1] - b[1]);
        B.listVersion = B.version;
      }
      return B.list;
    }
    const state = () => ({ rec: B.rec, base: B.base, to: B.to, tick: B.tick, complete: B.complete, count: B.at.size, changes: B.changes.length, version: B.version });
    return { set, clear, covers, moveTo, list, state, version: () => B.version, window: () => (B.base === null ? null : [B.base, B.to]) };
  }
  return { create };
})();
