// Sabaki's analysis traffic through @sabaki/gtp: the state tracker's sync (komi before
// boardsize, clear_board, set_free_handicap, replays with passes, undos), a genmove, then
// `kata-analyze B 50 ownership true` and `lz-analyze W 50`, each read for at least three
// updates through the controller's line subscriber (as Sabaki's EngineSyncer does) and
// parsed by Sabaki's rules, stopped by `protocol_version` (Sabaki's sendAbort), after
// which the next response must be well-formed.
// Usage: node analysis.js PATH/TO/tengen [ENGINE ARGS...] (e.g. --model FILE)
const {Controller, ControllerStateTracker} = require('@sabaki/gtp')

const {check, finish, crash} = require('./tally')

const engine = process.argv[2] || '../../target/release/tengen'

// Sabaki's reading of one `info` line (src/modules/enginesyncer.js): segments split on
// `info`, the trailing run of vertices is the variation (cut at a pass), the rest is
// key/value pairs; segments whose move is not a vertex are dropped. The `ownership`
// list is cut off first, as a kata-analyze consumer must (Sabaki draws no ownership).
function sabakiParse(line) {
  const own = line.indexOf(' ownership ')
  const infos = own < 0 ? line : line.slice(0, own)
  const ownership = own < 0 ? null : line.slice(own + 11).trim().split(/\s+/).map(Number)
  const variations = infos
    .split(/\s*info\s+/)
    .slice(1)
    .map((x) => x.trim())
    .map((x) => {
      const m = x.match(/(pass|[A-Za-z]\d+)(\s+(pass|[A-Za-z]\d+))*$/)
      if (m == null) return null
      let passAt = m[0].indexOf('pass')
      if (passAt < 0) passAt = Infinity
      return [
        x.slice(0, m.index).trim().split(/\s+/).slice(0, -1),
        m[0].slice(0, passAt).split(/\s+/).filter((v) => v.length >= 2)
      ]
    })
    .filter((x) => x != null)
    .map(([tokens, pv]) => {
      const o = {pv}
      for (let i = 0; i + 1 < tokens.length; i += 2) o[tokens[i]] = tokens[i + 1]
      return o
    })
    .filter(({move}) => move != null && /^[A-Za-z]\d+$/.test(move))
    .map((o) => ({
      ...o,
      winratePercent: o.winrate.includes('.') ? +o.winrate * 100 : +o.winrate / 100
    }))
  return {segments: infos.split(/\s*info\s+/).length - 1, variations, ownership}
}

async function analyse(c, name, args, size, checkUpdate, stopLimitMs = 1000) {
  const updates = []
  let first = null
  let enough
  const three = new Promise((resolve) => (enough = resolve))
  const done = c.sendCommand({name, args}, ({line}) => {
    if (first == null) first = line
    if (line.startsWith('info ')) {
      updates.push(line)
      if (updates.length === 3) enough()
    }
  })
  await Promise.race([three, new Promise((r) => setTimeout(r, 20000))])
  // Sabaki's sendAbort: a protocol_version while the engine is busy.
  const t0 = Date.now()
  const abort = c.sendCommand({name: 'protocol_version'})
  const response = await done
  const stopMs = Date.now() - t0
  const pv = await abort
  check(`${name}: '=' first`, first != null && first.startsWith('='), first)
  check(`${name}: no error`, !response.error, response)
  check(`${name}: three updates`, updates.length >= 3, updates.length)
  check(`${name} ${size}x${size}: stopped within ${stopLimitMs} ms`, stopMs < stopLimitMs, stopMs)
  return stopMs
  check(`${name}: next response well-formed`, !pv.error && pv.content === '2', pv)
  for (const u of updates.slice(0, 3)) {
    const p = sabakiParse(u)
    check(`${name}: Sabaki keeps every segment`, p.variations.length === p.segments && p.segments > 0, u)
    for (const v of p.variations) {
      check(`${name}: win rate in range`, v.winratePercent >= 0 && v.winratePercent <= 100, v)
      check(`${name}: visits a number`, Number.isInteger(+v.visits), v)
      check(`${name}: variation starts with the move`, v.pv[0] === v.move, v)
    }
    checkUpdate(p, size)
  }
}

async function main() {
  const c = new Controller(engine, ['--threads', '2', ...process.argv.slice(3)])
  const tracker = new ControllerStateTracker(c)
  c.start()
  // Sabaki's start-up queries.
  await Promise.all(['name', 'version', 'protocol_version', 'list_commands'].map((name) => c.sendCommand({name})))
  const names = (await c.sendCommand({name: 'list_commands'})).content.split('\n')
  for (const n of ['lz-analyze', 'kata-analyze', 'lz-genmove_analyze', 'kata-genmove_analyze'])
    check(`lists ${n}`, names.includes(n), names)
  check('no bare analyze listed', !names.includes('analyze'), names)

  // A handicap game replayed with a pass, then a shorter line (undos), as Sabaki syncs.
  const history = [
    {name: 'set_free_handicap', args: ['C3', 'G7']},
    {name: 'play', args: ['W', 'E5']},
    {name: 'play', args: ['B', 'pass']},
    {name: 'play', args: ['W', 'C7']},
    {name: 'play', args: ['B', 'G3']}
  ]
  await tracker.sync({komi: 0.5, boardsize: [9, 9], history})
  let stones = await c.sendCommand({name: 'list_stones', args: ['black']})
  check('synced handicap game', stones.content === 'G7 C3 G3', stones)
  const g = await c.sendCommand({name: 'genmove', args: ['W']})
  check('genmove', !g.error && /^([A-HJ]\d)$/.test(g.content), g)
  // Back to before the pass's answer: undos of the genmove and two moves.
  await tracker.sync({komi: 0.5, boardsize: [9, 9], history: history.slice(0, 3)})
  stones = await c.sendCommand({name: 'list_stones', args: ['white']})
  check('synced back by undo', stones.content === 'E5', stones)

  await analyse(c, 'kata-analyze', ['B', '50', 'ownership', 'true'], 9, (p, size) => {
    check('kata: ownership for every point', p.ownership != null && p.ownership.length === size * size, p.ownership)
    check('kata: ownership in range', p.ownership != null && p.ownership.every((v) => v >= -1 && v <= 1), '')
    for (const v of p.variations)
      check('kata: floats hold a point', ['winrate', 'scoreLead', 'prior', 'lcb'].every((k) => v[k].includes('.')), v)
  })
  await analyse(c, 'lz-analyze', ['W', '50'], 9, (p) => {
    for (const v of p.variations)
      check('lz: integers', ['winrate', 'prior', 'lcb'].every((k) => /^\d+$/.test(v[k]) && +v[k] <= 10000), v)
  })

  // 19x19: the analysis stops within 50 ms of Sabaki's abort (issue 28), with or without a
  // network; the worst of three stops counts.
  await tracker.sync({komi: 7.5, boardsize: [19, 19], history: [
    {name: 'play', args: ['B', 'Q16']}, {name: 'play', args: ['W', 'D4']},
    {name: 'play', args: ['B', 'Q3']}, {name: 'play', args: ['W', 'D16']}]})
  const stops = []
  for (const color of ['B', 'B', 'B'])
    stops.push(await analyse(c, 'kata-analyze', [color, '20', 'ownership', 'true'], 19, (p, size) => {
      check('kata 19x19: ownership for every point', p.ownership != null && p.ownership.length === size * size, '')
    }, 50))
  console.log(`19x19 stop latency: ${stops.join(', ')} ms`)

  // genmove_analyze: ends with `play VERTEX` in the response, not stopped by the next command.
  const lines = []
  const gaDone = c.sendCommand({name: 'lz-genmove_analyze', args: ['B', '20']}, ({line}) => lines.push(line))
  const after = c.sendCommand({name: 'name'})
  const ga = await gaDone
  check('genmove_analyze ends with play', /^play ([A-HJ-T]\d{1,2}|pass|resign)$/.test(lines.filter((l) => l !== '').pop()), lines.slice(-2))
  check('genmove_analyze no error', !ga.error, ga)
  check('command after genmove_analyze', (await after).content === 'Tengen', '')

  const exited = new Promise((resolve) => c.process.once('exit', (code, signal) => resolve({code, signal})))
  await c.stop()
  check('exits after quit', (await exited).code === 0, '')
  finish('analysis: ')
}

main().catch((err) => crash('analysis: ', err))
