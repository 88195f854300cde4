// One mineflayer bot for the crash phase of tests/minestom.sh:
//   node crash.js --port P --log FILE --name NAME --seconds S [--quit]
// Joins, walks north-east (sprinting) for S seconds logging every movement packet it sends (as
// bots.js does), then quits with --quit; without it, walks until the server goes away (it is
// killed) and exits 0 when the connection ends.
'use strict'
const fs = require('fs')
const path = require('path')
const mineflayer = require(path.join(__dirname, 'node_modules', 'mineflayer'))

const args = process.argv.slice(2)
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt }
const port = Number(opt('--port'))
const name = opt('--name')
const seconds = Number(opt('--seconds', '5'))
const quit = args.includes('--quit')
const out = fs.openSync(opt('--log'), 'a')
const log = (rec) => fs.writeSync(out, JSON.stringify({ ms: Date.now(), bot: name, ...rec }) + '\n')

const bot = mineflayer.createBot({ host: '127.0.0.1', port, username: name, auth: 'offline', version: '26.1' })
const sent = { x: NaN, y: NaN, z: NaN, yaw: NaN, pitch: NaN, onGround: false }
const write = bot._client.write.bind(bot._client)
bot._client.write = (packet, params) => {
  if (packet === 'position' || packet === 'position_look' || packet === 'look') {
    if (packet !== 'look') { sent.x = params.x; sent.y = params.y; sent.z = params.z }
    if (packet !== 'position') { sent.yaw = params.yaw; sent.pitch = params.pitch }
    sent.onGround = !!(params.flags ? params.flags.onGround : params.onGround)
    log({ type: 'move', packet, ...sent })
  }
  return write(packet, params)
}
let spawned = false
bot.on('error', (err) => console.error(`${name}: ${err.message}`))
bot.on('end', (reason) => {
  log({ type: 'end', reason: String(reason) })
  fs.closeSync(out)
  process.exit(spawned && (quit || reason !== 'disconnect.quitting') ? 0 : 1)
})
bot.once('spawn', async () => {
  spawned = true
  log({ type: 'joined', entityId: bot.entity.id, uuid: bot._client.uuid, username: bot.username })
  await bot.waitForTicks(20)
  await bot.look(-Math.PI / 4, 0, true)
  bot.setControlState('forward', true)
  bot.setControlState('sprint', true)
  const until = Date.now() + seconds * 1000
  while (Date.now() < until) await bot.waitForTicks(1)
  bot.setControlState('forward', false)
  if (quit) {
    await bot.waitForTicks(5)
    log({ type: 'quit' })
    bot.quit()
  }
})
setTimeout(() => { console.error(`crash.js ${name}: timeout`); process.exit(3) }, (seconds + 90) * 1000)
