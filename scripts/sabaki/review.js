// Reads a `tengen review` record with @sabaki/sgf, the SGF library Sabaki uses: it must
// parse, every main-line move node must carry SBKV (a number in 0..100, Black's win rate
// in percent, from which Sabaki draws its graph), and every variation must start with a
// move of the same colour as the main-line move it stands beside.
// Usage: node review.js REVIEWED.sgf [MOVES]
const sgf = require('@sabaki/sgf')
const {check, finish} = require('./tally')

const file = process.argv[2]
const expectMoves = process.argv[3] != null ? +process.argv[3] : null

const roots = sgf.parseFile(file)
check('one game', roots.length === 1, roots.length)
let node = roots[0]
let moves = 0
let variations = 0
while (node.children.length > 0) {
  const [main, ...others] = node.children
  const color = main.data.B != null ? 'B' : main.data.W != null ? 'W' : null
  check('main line nodes are moves', color != null, main.data)
  moves++
  const v = main.data.SBKV
  check(`SBKV on move ${moves}`, v != null && v.length === 1 && +v[0] >= 0 && +v[0] <= 100, main.data)
  for (const o of others) {
    variations++
    check(`variation at move ${moves} is the same player's`, o.data[color] != null, o.data)
  }
  node = main
}
if (expectMoves != null) check('every move reviewed', moves === expectMoves, moves)
finish(`review: ${moves} moves, ${variations} variations; `)
