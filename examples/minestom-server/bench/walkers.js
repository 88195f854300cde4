// N mineflayer bots that walk in circles, jump now and then and chat every 10 s, for
// examples/minestom-server/bench.sh: node walkers.js --port P --bots N --seconds S [--report]
// Prints "joined N" once every bot has spawned, then walks S seconds (with --report, the first bot
// reports the second 5 s into the walk and prints "report_ms=MS id=ID"), quits and exits.
'use strict'
const path = require('path')
const mineflayer = require(path.join(__dirname, '..', '..', '..', 'tests', 'minestom', 'node_modules', 'mineflayer'))

const args = process.argv.slice(2)
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt }
const port = Number(opt('--port'))
const n = Number(opt('--bots', '10'))
const seconds = Number(opt('--seconds', '30'))
const report = args.includes('--report')
const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))

async function main () {
  const bots = []
  for (let i = 0; i < n; i++) {
    const bot = mineflayer.createBot({ host: '127.0.0.1', port, username: `W${String(i).padStart(2, '0')}`, auth: 'offline', version: '26.1' })
    bot.on('error', (err) => console.error(`${bot.username}: ${err.message}`))
    bots.push(new Promise((resolve, reject) => {
      bot.once('spawn', () => resolve(bot))
      bot.once('end', (r) => reject(new Error(`${bot.username} ended before spawning: ${r}`)))
    }))
    await sleep(200)
  }
  const all = await Promise.race([Promise.all(bots), sleep(60000).then(() => { throw new Error('bots did not spawn within 60 s') })])
  console.log(`joined ${all.length}`)
  // With --report (recording on): 5 s into the walk the first bot reports the second and times
  // the answer, from sending /report to "Report #ID filed" (the server keeps capturing
  // --report-after seconds first); everyone keeps walking, so the tick window bench.sh measures
  // is the same walk with recording off and on. The walk lasts S seconds, or until the answer.
  let reported = Promise.resolve()
  if (report && all.length >= 2) {
    const reporter = all[0]
    reported = sleep(5000).then(() => {
      const sent = Date.now()
      const filed = new Promise((resolve, reject) => {
        const onMessage = (msg) => {
          const m = /Report #(\d+) filed/.exec(msg.toString())
          if (m) { reporter.removeListener('message', onMessage); resolve(Number(m[1])) }
          if (/failed|Cannot report/.test(msg.toString())) reject(new Error(msg.toString()))
        }
        reporter.on('message', onMessage)
      })
      reporter.chat(`/report ${all[1].username} bench`)
      return Promise.race([filed, sleep(90000).then(() => { throw new Error('no answer to /report within 90 s') })])
        .then((id) => console.log(`report_ms=${Date.now() - sent} id=${id}`))
    })
  }
  let reportDone = false
  reported = reported.finally(() => { reportDone = true })
  const until = Date.now() + seconds * 1000
  await Promise.all(all.map(async (bot, i) => {
    let yaw = (i / all.length) * 2 * Math.PI
    bot.setControlState('forward', true)
    let tick = 0
    while (Date.now() < until || !reportDone) {
      yaw += 0.15
      await bot.look(yaw, 0, true)
      if (tick % 40 === i % 40) bot.setControlState('jump', true)
      if (tick % 40 === (i + 3) % 40) bot.setControlState('jump', false)
      if (tick % 200 === i * 7 % 200) bot.chat(`lap ${tick} of ${bot.username}`)
      await bot.waitForTicks(1)
      tick++
    }
    bot.setControlState('forward', false)
  }))
  await reported
  for (const bot of all) bot.quit()
  await sleep(500)
}

const overall = setTimeout(() => { console.error('walkers.js: overall timeout'); process.exit(3) }, (seconds + 120) * 1000)
main().then(() => { clearTimeout(overall); process.exit(0) }, (err) => { console.error(`walkers.js: ${err.stack || err}`); process.exit(1) })
