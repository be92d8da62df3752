// The pass/fail tally the Sabaki checks share: `check` counts a result and prints a
// failure, `finish` prints the tally and exits non-zero after any failure, `crash` does
// the same for an exception.
let passed = 0
let failed = 0

function check(what, ok, detail) {
  if (ok) passed++
  else {
    failed++
    console.log(`FAIL ${what}: ${JSON.stringify(detail).slice(0, 400)}`)
  }
}

function finish(prefix = '') {
  console.log(`${prefix}${passed} passed, ${failed} failed`)
  process.exit(failed ? 1 : 0)
}

function crash(prefix, err) {
  failed++
  console.log(`FAIL ${err && err.stack ? err.stack : err}`)
  finish(prefix)
}

module.exports = {check, finish, crash}
