// Real Minecraft clients (mineflayer) against examples/minestom-server, for tests/minestom.sh.
//
//   node bots.js --port P --log FILE
//
// Five bots join over 127.0.0.1: Alice walks a known path (west, then sprinting north, jumping,
// sneaking); Bob digs and places blocks; Carol hits Bob; Dave sprints 56 blocks west and chats
// there; Hal runs the time-trial course twice, the second time racing the first as a ghost, then
// Carol runs it, Hal a third time racing rank 2 (Carol's run, chosen with /race rank 2) and Carol
// again against her personal best (/race pb); the
// others chat near spawn; Alice reports Bob and waits for the server to say the
// report's id. Every packet a bot sends that the recording should
// reflect is logged as it is written (positions and rotations, swings, attacks, chat), plus each
// block edit with the state the bot's own world then shows. Exits non-zero if anything did not
// happen; every wait is bounded.
'use strict'
const fs = require('fs')
const path = require('path')
const mineflayer = require(path.join(__dirname, 'node_modules', 'mineflayer'))
const { Vec3 } = require(path.join(__dirname, 'node_modules', 'vec3'))
const nbt = require(path.join(__dirname, 'node_modules', 'prismarine-nbt'))

const args = process.argv.slice(2)
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt }
const port = Number(opt('--port'))
const logFile = opt('--log')
if (!port || !logFile) { console.error('usage: node bots.js --port P --log FILE'); process.exit(2) }

const out = fs.openSync(logFile, 'w')
const log = (rec) => fs.writeSync(out, JSON.stringify({ ms: Date.now(), ...rec }) + '\n')
const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))
const deadline = (ms, what) => new Promise((resolve, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms))
const within = (ms, what, p) => Promise.race([p, deadline(ms, what)])

function stateName (block) {
  const props = block.getProperties()
  const keys = Object.keys(props).sort()
  const base = 'minecraft:' + block.name
  return keys.length === 0 ? base : `${base}[${keys.map(k => `${k}=${String(props[k])}`).join(',')}]`
}

function join (username) {
  const bot = mineflayer.createBot({ host: '127.0.0.1', port, username, auth: 'offline', version: '26.1' })
  // The client's own view of what it tells the server: the state after each movement packet.
  const sent = { x: NaN, y: NaN, z: NaN, yaw: NaN, pitch: NaN, onGround: false }
  const write = bot._client.write.bind(bot._client)
  bot._client.write = (name, params) => {
    switch (name) {
      case 'position':
      case 'position_look':
      case 'look':
        if (name !== 'look') { sent.x = params.x; sent.y = params.y; sent.z = params.z }
        if (name !== 'position') { sent.yaw = params.yaw; sent.pitch = params.pitch }
        sent.onGround = !!(params.flags ? params.flags.onGround : params.onGround)
        log({ bot: username, type: 'move', packet: name, ...sent })
        break
      case 'arm_animation':
        log({ bot: username, type: 'swing', hand: params.hand })
        break
      case 'attack':
        log({ bot: username, type: 'attack', target: params.target ?? params.entityId })
        break
      case 'use_entity':
        if (params.mouse === 1) log({ bot: username, type: 'attack', target: params.target })
        break
      case 'use_item':
        log({ bot: username, type: 'use', hand: params.hand, item: bot.heldItem ? 'minecraft:' + bot.heldItem.name : null })
        break
      case 'chat_message':
        log({ bot: username, type: 'chat', text: params.message })
        break
      case 'chat_command':
        log({ bot: username, type: 'command', text: params.command })
        break
      case 'entity_action':
        // mineflayer 4.39 sends sprinting as the pre-26.1 numbers 3/4, which protocol 775 reads as
        // start/stop riding jump: send the named actions 26.1 has.
        if (params.actionId === 3) params = { ...params, actionId: 'start_sprinting' }
        else if (params.actionId === 4) params = { ...params, actionId: 'stop_sprinting' }
        log({ bot: username, type: 'action', action: params.actionId })
        break
      case 'player_input':
        log({ bot: username, type: 'input', inputs: params.inputs })
        break
    }
    return write(name, params)
  }
  bot.on('health', () => log({ bot: username, type: 'health', health: bot.health }))
  bot.on('kicked', (reason) => { console.error(`${username} kicked: ${JSON.stringify(reason)}`) })
  bot.on('error', (err) => { console.error(`${username} error: ${err.message}`) })
  const spawned = new Promise((resolve, reject) => {
    bot.once('spawn', resolve)
    bot.once('end', (reason) => reject(new Error(`${username} disconnected before spawning: ${reason}`)))
  })
  return { bot, spawned }
}

async function ticks (bot, n) { await within(n * 50 + 10000, `${n} ticks`, bot.waitForTicks(n)) }

async function hold (bot, controls, n) {
  for (const c of controls) bot.setControlState(c, true)
  await ticks(bot, n)
  for (const c of controls) bot.setControlState(c, false)
}

async function alice (bot) {
  // The known path: face west (yaw 90°: -x), walk 20 ticks; face north (-z), sprint 20 ticks with
  // a jump; sneak 15 ticks; turn to look around.
  await bot.look(Math.PI / 2, 0, true)
  await hold(bot, ['forward'], 20)
  await bot.look(0, 0, true)
  bot.setControlState('sprint', true)
  bot.setControlState('forward', true)
  await ticks(bot, 8)
  bot.setControlState('jump', true)
  await ticks(bot, 4)
  bot.setControlState('jump', false)
  await ticks(bot, 8)
  bot.setControlState('forward', false)
  bot.setControlState('sprint', false)
  await ticks(bot, 5)
  await hold(bot, ['sneak', 'forward'], 15)
  await bot.look(-Math.PI / 2, -0.3, true)
  await ticks(bot, 5)
  // Use the held item (stone) in the air, twice.
  for (let i = 0; i < 2; i++) {
    bot.activateItem()
    await ticks(bot, 3)
    bot.deactivateItem()
    await ticks(bot, 3)
  }
  log({ bot: 'Alice', type: 'path-done', x: bot.entity.position.x, y: bot.entity.position.y, z: bot.entity.position.z })
}

async function edit (bot, kind, pos, fn) {
  await within(15000, `${kind} at ${pos}`, fn())
  await ticks(bot, 2)
  const now = bot.blockAt(pos)
  log({ bot: bot.username, type: kind, x: pos.x, y: pos.y, z: pos.z, state: stateName(now) })
  return now
}

async function bob (bot) {
  // Walk to (2.5, 40, 1.5) first, then dig and place around x = 2..4, z = 3.
  await bot.lookAt(new Vec3(2.5, 40, 3.5), true)
  const dig1 = new Vec3(2, 39, 3)
  let b = await edit(bot, 'dig', dig1, () => bot.dig(bot.blockAt(dig1), true))
  if (b.name !== 'air') throw new Error(`Bob dug ${dig1} but the block is ${b.name}`)
  const places = [
    { item: 'stone', ref: new Vec3(3, 39, 3), face: new Vec3(0, 1, 0) },
    { item: 'oak_log', ref: new Vec3(4, 39, 3), face: new Vec3(0, 1, 0) },
    { item: 'glass', ref: new Vec3(3, 40, 3), face: new Vec3(0, 1, 0) },
    { item: 'oak_planks', ref: new Vec3(4, 40, 3), face: new Vec3(0, 1, 0) }
  ]
  for (const p of places) {
    const item = bot.inventory.items().find(i => i.name === p.item)
    if (!item) throw new Error(`Bob has no ${p.item}`)
    await within(5000, `equip ${p.item}`, bot.equip(item, 'hand'))
    await ticks(bot, 2)
    log({ bot: 'Bob', type: 'held', item: 'minecraft:' + bot.heldItem.name, count: bot.heldItem.count })
    const dest = p.ref.plus(p.face)
    b = await edit(bot, 'place', dest, () => bot.placeBlock(bot.blockAt(p.ref), p.face))
    if (b.name !== p.item) throw new Error(`Bob placed ${p.item} at ${dest} but the block is ${b.name}`)
  }
  // Dig the glass again (by hand, 0.45 s): a placed block dug in the same recording.
  const glass = new Vec3(3, 41, 3)
  b = await edit(bot, 'dig', glass, () => bot.dig(bot.blockAt(glass), true))
  if (b.name !== 'air') throw new Error(`Bob dug the glass at ${glass} but the block is ${b.name}`)
}

async function carol (bot) {
  const target = await within(10000, 'Carol sees Bob', (async () => {
    for (;;) {
      const e = bot.players.Bob && bot.players.Bob.entity
      if (e) return e
      await ticks(bot, 1)
    }
  })())
  for (let i = 0; i < 3; i++) {
    await bot.lookAt(target.position.offset(0, 1.5, 0), true)
    bot.attack(target)
    await ticks(bot, 10)
  }
}

async function dave (bot) {
  // Far from the others: sprint west (yaw 90°) until x < -56, then say a line there, more than the
  // report's 48-block radius from Bob (who stays near spawn).
  await bot.look(Math.PI / 2, 0, true)
  bot.setControlState('sprint', true)
  bot.setControlState('forward', true)
  await within(30000, 'Dave runs west', (async () => {
    while (bot.entity.position.x > -56) await ticks(bot, 1)
  })())
  bot.setControlState('forward', false)
  bot.setControlState('sprint', false)
  await ticks(bot, 10)
  const p = bot.entity.position
  log({ bot: 'Dave', type: 'far', x: p.x, y: p.y, z: p.z })
  bot.chat(`far away from Bob ${process.pid}`)
  await ticks(bot, 5)
}

async function goTo (bot, x, z, what) {
  // Steer straight at (x, z) on flat ground until within 0.3 block; bounded.
  await within(20000, what, (async () => {
    bot.setControlState('forward', true)
    for (;;) {
      const p = bot.entity.position
      if (Math.hypot(p.x - x, p.z - z) < 0.3) break
      await bot.lookAt(new Vec3(x, p.y + bot.entity.eyeHeight, z), true)
      await ticks(bot, 1)
    }
    bot.setControlState('forward', false)
  })())
  await ticks(bot, 10)
}

// One run of the time trial (examples/minestom-server: start on the gold pad, gates at x = 15 and
// 22, finish on the emerald pad at x 28..30) along the line z = LANE, walked or sprinted; resolves
// once the server says the run finished.
async function trialRun (bot, name, n, lane, sprint, finished) {
  await goTo(bot, 9.5, lane, `${name} to the start pad (run ${n})`)
  await bot.look(-Math.PI / 2, 0, true)
  await ticks(bot, 5)
  log({ bot: name, type: 'run-start', n })
  if (sprint) bot.setControlState('sprint', true)
  bot.setControlState('forward', true)
  await within(20000, `${name} runs the course (run ${n})`, (async () => {
    while (bot.entity.position.x < 29.5) await ticks(bot, 1)
  })())
  bot.setControlState('forward', false)
  bot.setControlState('sprint', false)
  await within(20000, `the server says ${name}'s run ${n} finished`, (async () => {
    while (finished.length < n) await ticks(bot, 1)
  })())
  log({ bot: name, type: 'run', n, ...finished[n - 1] })
}

function trialMessages (bot, name) {
  const finished = []
  bot.on('messagestr', (msg) => {
    if (/^(Run started|Checkpoint|Racing|Finished|Run |Your ghost)/.test(msg)) log({ bot: name, type: 'trial-message', text: msg })
    const m = /^Finished sprint in ([\d.]+) s \(run #(\d+), (\d+) ticks\)/.exec(msg)
    if (m) finished.push({ seconds: Number(m[1]), id: Number(m[2]), ticks: Number(m[3]) })
  })
  return finished
}

async function hal (bot, carolBot) {
  // The time trial: Hal walks a run, then sprints one that races the first as a ghost (the board's
  // best), along z = -9.5. Then Carol walks one along z = -10.5 (rank 2 of the board, Hal's sprint
  // being rank 1), Hal chooses `/race rank 2` and sprints a third run against Carol's ghost. Logs
  // what the server says and every position of the ghost it sees.
  const finished = trialMessages(bot, 'Hal')
  // Minestom sends the action bar as its own packet (set_action_bar_text), which mineflayer
  // does not turn into an event: read the packet.
  bot._client.on('action_bar', (packet) => {
    const simple = nbt.simplify(packet.text)
    log({ bot: 'Hal', type: 'action-bar', text: typeof simple === 'string' ? simple : String(simple.text ?? JSON.stringify(simple)) })
  })
  trackGhosts(bot, 'Hal')
  await trialRun(bot, 'Hal', 1, -9.5, false, finished)
  await trialRun(bot, 'Hal', 2, -9.5, true, finished)
  const carolFinished = trialMessages(carolBot, 'Carol')
  trackGhosts(carolBot, 'Carol')
  await trialRun(carolBot, 'Carol', 1, -10.5, false, carolFinished)
  await choose(bot, 'rank 2')
  await trialRun(bot, 'Hal', 3, -9.5, true, finished)
  // Carol walks again against her personal best (her first run; the board's best is Hal's).
  await choose(carolBot, 'pb')
  await trialRun(carolBot, 'Carol', 2, -10.5, false, carolFinished)
}

// `/race WHAT`; resolves once the server confirms the choice.
async function choose (bot, what) {
  const told = { 'rank 2': 'Your ghost: rank 2.', pb: 'Your ghost: your best run.' }[what]
  let chosen = false
  const listener = (msg) => { if (msg === told) chosen = true }
  bot.on('messagestr', listener)
  bot.chat(`/race ${what}`)
  await within(10000, `the server takes /race ${what}`, (async () => {
    while (!chosen) await ticks(bot, 1)
  })())
  bot.removeListener('messagestr', listener)
}

// Logs every position of a mannequin (a ghost) the racer's client sees.
function trackGhosts (bot, name) {
  const ghosts = new Set()
  bot.on('entitySpawn', (e) => {
    if (e.name === 'mannequin') {
      ghosts.add(e.id)
      log({ bot: name, type: 'ghost-spawn', id: e.id, x: e.position.x, y: e.position.y, z: e.position.z })
    }
  })
  bot.on('entityMoved', (e) => {
    if (ghosts.has(e.id)) log({ bot: name, type: 'ghost', id: e.id, x: e.position.x, y: e.position.y, z: e.position.z })
  })
  bot.on('entityGone', (e) => { if (ghosts.has(e.id)) log({ bot: name, type: 'ghost-gone', id: e.id }) })
}

async function main () {
  const names = ['Alice', 'Bob', 'Carol', 'Dave', 'Hal']
  const bots = {}
  for (const name of names) {
    bots[name] = join(name)
    await sleep(300)
  }
  await within(60000, 'every bot spawns', Promise.all(names.map(n => bots[n].spawned)))
  // Carol watches the pig the server walks in a circle (its first 400 moves).
  let pigMoves = 0
  bots.Carol.bot.on('entityMoved', (e) => {
    if (e.name === 'pig' && pigMoves < 400 && !e.getCustomName()) {
      pigMoves++
      log({ bot: 'Carol', type: 'pig', id: e.id, x: e.position.x, y: e.position.y, z: e.position.z })
    }
  })
  // ... and what the server tells her of its state: its shared flags (metadata 0) and health
  // (metadata 9), its equipment and the damage it takes (the server changes them every 2 s).
  const isPig = (id) => bots.Carol.bot.entities[id] && bots.Carol.bot.entities[id].name === 'pig'
  bots.Carol.bot._client.on('entity_metadata', (packet) => {
    if (!isPig(packet.entityId)) return
    for (const m of packet.metadata) {
      if (m.key === 0) log({ bot: 'Carol', type: 'pig-flags', id: packet.entityId, value: Number(m.value) })
      if (m.key === 9) log({ bot: 'Carol', type: 'pig-health', id: packet.entityId, value: Number(m.value) })
    }
  })
  bots.Carol.bot._client.on('entity_equipment', (packet) => {
    if (!isPig(packet.entityId)) return
    const mcData = bots.Carol.bot.registry
    for (const q of packet.equipments) {
      const item = q.item && q.item.itemCount > 0 ? 'minecraft:' + mcData.items[q.item.itemId].name : 'minecraft:air'
      log({ bot: 'Carol', type: 'pig-equipment', id: packet.entityId, slot: q.slot, item })
    }
  })
  bots.Carol.bot._client.on('damage_event', (packet) => {
    if (isPig(packet.entityId)) log({ bot: 'Carol', type: 'pig-hurt', id: packet.entityId })
  })
  // The lamp the server switches by itself every 2 s at (4, 45, -4): each state Carol's client is told.
  bots.Carol.bot.on('blockUpdate:(4, 45, -4)', (old, now) => {
    if (now) log({ bot: 'Carol', type: 'lamp', block: stateName(now) })
  })
  for (const name of names) {
    const bot = bots[name].bot
    log({ bot: name, type: 'joined', entityId: bot.entity.id, uuid: bot._client.uuid, username: bot.username })
  }
  // Let the spawn teleports settle and the chunks arrive.
  await ticks(bots.Alice.bot, 40)

  // Carol hits Bob while they both stand at spawn; then everyone acts at once.
  await carol(bots.Carol.bot)
  const runs = [alice(bots.Alice.bot), bob(bots.Bob.bot), dave(bots.Dave.bot), hal(bots.Hal.bot, bots.Carol.bot)]
  for (const name of ['Alice', 'Bob', 'Carol']) {
    bots[name].bot.chat(`hello from ${name} ${process.pid}`)
    await ticks(bots[name].bot, 3)
  }
  await within(120000, 'the walk, the block edits and the time trials', Promise.all(runs))
  bots.Carol.bot.chat('gg, see you')

  // Alice reports Bob; the server answers with the report's id once it is written and filed.
  const reporter = bots.Alice.bot
  const filed = new Promise((resolve, reject) => {
    reporter.on('messagestr', (msg) => {
      const m = /^Report #(\d+) filed against (\S+)/.exec(msg)
      if (m) resolve({ id: Number(m[1]), reported: m[2] })
      else if (/^(Cannot report|Report against)/.test(msg)) reject(new Error(msg))
    })
  })
  reporter.chat('/report Bob griefing near spawn')
  const report = await within(90000, 'the report is filed', filed)
  log({ bot: 'Alice', type: 'report', id: report.id, reported: report.reported, reason: 'griefing near spawn' })
  console.log(`report #${report.id} filed against ${report.reported}`)

  // Carol replays the report in game: its players as mannequins only she sees, the block Bob
  // placed at (3, 40, 3) shown to her as it was when the report starts (air), while Alice still
  // sees the stone; /replay stop gives her the world back.
  const viewer = bots.Carol.bot
  const mannequins = new Set()
  viewer.on('entitySpawn', (e) => {
    if (e.name === 'mannequin') {
      mannequins.add(e.id)
      log({ bot: 'Carol', type: 'replay-entity', id: e.id, x: e.position.x, y: e.position.y, z: e.position.z })
    }
  })
  const nameOf = (e) => { const n = e.getCustomName(); return n ? n.toString() : null }
  // The profile (skin source) each mannequin is given: its metadata 17.
  viewer._client.on('entity_metadata', (packet) => {
    if (!mannequins.has(packet.entityId)) return
    for (const m of packet.metadata) {
      if (m.key === 17) log({ bot: 'Carol', type: 'replay-profile', id: packet.entityId, profile: JSON.stringify(m.value) })
    }
  })
  viewer.on('entityMoved', (e) => {
    if (mannequins.has(e.id)) log({ bot: 'Carol', type: 'replay-entity', id: e.id, name: nameOf(e), x: e.position.x, y: e.position.y, z: e.position.z })
  })
  const replayMessages = []
  viewer.on('messagestr', (msg) => { if (/^(Replay|Cannot replay)/.test(msg)) replayMessages.push(msg) })
  const stone = new Vec3(3, 40, 3)
  const at = (bot) => stateName(bot.blockAt(stone))
  const p0 = viewer.entity.position.clone()
  log({ bot: 'Carol', type: 'replay-before', x: p0.x, y: p0.y, z: p0.z, block: at(viewer) })
  viewer.chat(`/replay ${report.id}`)
  await within(20000, 'the replay starts', (async () => {
    while (!replayMessages.some(m => m.startsWith('Replaying'))) await ticks(viewer, 1)
  })())
  await ticks(viewer, 5)
  log({ bot: 'Carol', type: 'replay-block', block: at(viewer), alice: at(bots.Alice.bot) })
  await ticks(viewer, 60)
  viewer.chat('/replay speed 8')
  await ticks(viewer, 80)
  viewer.chat('/replay stop')
  await within(10000, 'the replay stops', (async () => {
    while (!replayMessages.includes('Replay stopped.')) await ticks(viewer, 1)
  })())
  await ticks(viewer, 10)
  const p1 = viewer.entity.position
  log({ bot: 'Carol', type: 'replay-after', x: p1.x, y: p1.y, z: p1.z, block: at(viewer), mannequinsLeft: Object.values(viewer.entities).filter(e => e.name === 'mannequin').length })

  await ticks(reporter, 10)
  // What Bob's client holds around the edits at the end (terrain and edits together).
  const area = []
  for (let x = 0; x <= 6; x++) {
    for (let y = 37; y <= 42; y++) {
      for (let z = 1; z <= 5; z++) area.push([x, y, z, stateName(bots.Bob.bot.blockAt(new Vec3(x, y, z)))])
    }
  }
  log({ bot: 'Bob', type: 'area', blocks: area })
  for (const name of names) {
    const bot = bots[name].bot
    const p = bot.entity.position
    log({ bot: name, type: 'final', x: p.x, y: p.y, z: p.z })
    bot.quit()
  }
  await sleep(1000)
  fs.closeSync(out)
}

const overall = setTimeout(() => { console.error('bots.js: overall timeout (240 s)'); process.exit(3) }, 240000)
main().then(() => { clearTimeout(overall); process.exit(0) }, (err) => {
  console.error(`bots.js: ${err.stack || err}`)
  process.exit(1)
})
