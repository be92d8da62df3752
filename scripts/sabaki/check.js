// Drives tengen through @sabaki/gtp's Controller, the way Sabaki does: commands are written
// without waiting for earlier answers, ids are Sabaki's own, responses are parsed by Sabaki's
// parser. Exits non-zero on the first surprise and prints 'N passed, N failed'.
// Usage: node check.js PATH/TO/tengen [ENGINE ARGS...] (e.g. --model FILE)
const {Controller} = require('@sabaki/gtp')

const {check, finish, crash} = require('./tally')

const engine = process.argv[2] || '../../target/release/tengen'

async function main() {
  const c = new Controller(engine, ['--seed', '1', ...process.argv.slice(3)])
  c.start()
  const send = (line) => c.sendCommand({name: line.split(' ')[0], args: line.split(' ').slice(1)})

  // Sabaki's start-up burst, all in flight at once.
  const burst = ['name', 'version', 'protocol_version', 'list_commands', 'boardsize 9',
    'clear_board', 'komi 6.5', 'play B E5', 'play W E5', 'genmove W', 'showboard']
  const r = await Promise.all(burst.map(send))
  check('name', !r[0].error && r[0].content === 'Tengen', r[0])
  check('version', !r[1].error && /\d+\.\d+/.test(r[1].content), r[1])
  check('protocol_version', r[2].content === '2', r[2])
  const names = r[3].content.split('\n')
  for (const n of ['play', 'genmove', 'undo', 'loadsgf', 'final_score', 'gogui-interrupt'])
    check(`list_commands has ${n}`, names.includes(n), names)
  for (const i of [4, 5, 6, 7]) check(burst[i], !r[i].error && r[i].content === '', r[i])
  check('occupied point refused', r[8].error && r[8].content === 'illegal move', r[8])
  check('genmove answers a vertex', !r[9].error && /^([A-HJ]\d|pass|resign)$/.test(r[9].content), r[9])
  check('showboard is multi-line', !r[10].error && r[10].content.split('\n').length >= 11, r[10])

  // Errors keep the engine going, and the state is intact.
  const e = await Promise.all(['boardsize 99', 'komi x', 'undo', 'undo', 'undo', 'no_such_cmd',
    'list_stones black'].map(send))
  check('unacceptable size', e[0].error && e[0].content === 'unacceptable size', e[0])
  check('komi syntax error', e[1].error && e[1].content === 'syntax error', e[1])
  check('undo genmove', !e[2].error, e[2])
  check('undo E5', !e[3].error, e[3])
  check('nothing left to undo', e[4].error && e[4].content === 'cannot undo', e[4])
  check('unknown command', e[5].error && e[5].content === 'unknown command', e[5])
  check('board empty again', !e[6].error && e[6].content === '', e[6])

  // A short game to two passes, then counting and the record.
  const g = await Promise.all(['play B C3', 'play W G7', 'play B pass', 'play W pass',
    'final_score', 'printsgf', 'final_status_list dead'].map(send))
  check('moves accepted', g.slice(0, 4).every((x) => !x.error), g.slice(0, 4))
  check('final_score', !g[4].error && /^([BW]\+\d+(\.\d+)?|0)$/.test(g[4].content), g[4])
  check('printsgf', !g[5].error && g[5].content.startsWith('(;') && g[5].content.includes('KM[6.5]'), g[5])
  check('final_status_list', !g[6].error, g[6])

  // Sabaki's stop() sends quit and kills the engine after 3 s if it has not exited.
  const exited = new Promise((resolve) => c.process.once('exit', (code, signal) => resolve({code, signal})))
  await c.stop()
  const how = await exited
  check('exits by itself after quit', how.code === 0 && how.signal == null, how)
  finish()
}

main().catch((err) => crash('', err))
