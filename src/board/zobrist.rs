//! Zobrist keys, generated at compile time from a fixed seed so hashes are stable across
//! runs and builds (tests pin them).

use super::point::NUM_CELLS;

/// One step of splitmix64: the next state and its output.
pub const fn splitmix64(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn make_keys() -> [[u64; NUM_CELLS]; 2] {
    let mut keys = [[0u64; NUM_CELLS]; 2];
    let mut state = 0x7465_6E67_656E_2121; // "tengen!!"
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < NUM_CELLS {
            let (s, k) = splitmix64(state);
            state = s;
            keys[c][i] = k;
            i += 1;
        }
        c += 1;
    }
    keys
}

/// `STONE_KEYS[color][point]`: the key of a stone of that colour on that point.
pub static STONE_KEYS: [[u64; NUM_CELLS]; 2] = make_keys();

/// Keys for the player to move, mixed into situational hashes.
pub const TO_MOVE_KEYS: [u64; 2] = [0x5DEE_CE66_D1CE_4E5B, 0xA3B1_9535_4A39_B70D];

/// Key for a simple-ko point, mixed into situation hashes (times the point index).
pub const KO_KEY: u64 = 0x2545_F491_4F6C_DD1D;
