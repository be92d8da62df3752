//! Counts legal positions (every chain has a liberty) on the 2x2 and 3x3 boards by
//! enumerating every colouring and asking the board itself: stones put with `set_stone`
//! (which resolves no captures), chains from `chain_id`/`chain`, liberties from
//! `liberties`. OEIS A094777: 57 on 2x2, 12,675 on 3x3.

use tengen::{Board, Color, Point};

/// Number of colourings of the `n` x `n` board in which every chain has a liberty, by the
/// board's own chain and liberty logic.
fn count_legal(n: usize) -> u64 {
    let empty = Board::new(n).expect("size in range");
    let pts: Vec<Point> = empty.points().collect();
    let total = 3u64.pow((n * n) as u32);
    let mut legal = 0;
    for code in 0..total {
        let mut b = empty.clone();
        let mut x = code;
        for &p in &pts {
            match x % 3 {
                1 => assert!(b.set_stone(Color::Black, p)),
                2 => assert!(b.set_stone(Color::White, p)),
                _ => {}
            }
            x /= 3;
        }
        b.check_consistency()
            .unwrap_or_else(|e| panic!("colouring {code}: {e}\n{b:?}"));
        let mut all_alive = true;
        for &p in &pts {
            let Some(colour) = b.get(p) else { continue };
            // Visit each chain once, from its head.
            if b.chain_id(p) != Some(p) {
                continue;
            }
            let chain = b.chain(p);
            assert_eq!(chain.len(), b.chain_len(p));
            assert!(chain.iter().all(|&s| b.get(s) == Some(colour)));
            assert!(chain.iter().all(|&s| b.chain_id(s) == Some(p)));
            let libs = b.liberties(p);
            if libs.is_empty() {
                all_alive = false;
            } else {
                // The pseudo-liberty atari test agrees with the real liberty count for
                // chains that have liberties.
                assert_eq!(b.in_atari(p), libs.len() == 1, "colouring {code}\n{b:?}");
            }
        }
        if all_alive {
            legal += 1;
        }
    }
    legal
}

#[test]
fn legal_positions_2x2() {
    assert_eq!(count_legal(2), 57);
}

#[test]
fn legal_positions_3x3() {
    assert_eq!(count_legal(3), 12_675);
}

/// The liberty logic used for the count does not depend on the order the stones were set
/// up in: forward and reverse set-up give the same hash, chains, liberties and ataris.
#[test]
fn liberty_verdicts_do_not_depend_on_set_up_order() {
    let n = 3;
    let empty = Board::new(n).expect("size in range");
    let pts: Vec<Point> = empty.points().collect();
    for code in 0..3u64.pow(9) {
        let mut forward = empty.clone();
        let mut backward = empty.clone();
        let mut stones = Vec::new();
        let mut x = code;
        for &p in &pts {
            match x % 3 {
                1 => stones.push((Color::Black, p)),
                2 => stones.push((Color::White, p)),
                _ => {}
            }
            x /= 3;
        }
        for &(c, p) in &stones {
            forward.set_stone(c, p);
        }
        for &(c, p) in stones.iter().rev() {
            backward.set_stone(c, p);
        }
        assert_eq!(forward.hash(), backward.hash());
        for &p in &pts {
            assert_eq!(forward.liberties(p), backward.liberties(p), "{forward:?}");
            assert_eq!(forward.chain_len(p), backward.chain_len(p));
            if !forward.liberties(p).is_empty() {
                assert_eq!(forward.in_atari(p), backward.in_atari(p));
            }
        }
    }
}
