//! Handicap placement: where `fixed_handicap` (GTP v2 §4.1.1) and `place_free_handicap`
//! put their stones on an empty board, as 0-based (col, row) with row 0 at the bottom.
//! Knows board sizes only: no board, no game, no GTP text.

/// GTP v2 §4.1.1 fixed handicap placement for `n` stones on a `size` board, as 0-based
/// (col, row) with row 0 at the bottom; `None` if that many is not defined there (sizes
/// below 7; more than 4 on even sizes and on 7x7; fewer than 2 or more than 9).
pub fn fixed_handicap_points(size: usize, n: usize) -> Option<Vec<(usize, usize)>> {
    if size < 7 || !(2..=9).contains(&n) {
        return None;
    }
    if (size.is_multiple_of(2) || size == 7) && n > 4 {
        return None;
    }
    let d = if size >= 13 { 3 } else { 2 };
    let (lo, hi, mid) = (d, size - 1 - d, (size - 1) / 2);
    let mut pts = vec![(lo, lo), (hi, hi)];
    if n >= 3 {
        pts.push((lo, hi));
    }
    if n >= 4 {
        pts.push((hi, lo));
    }
    if n >= 6 {
        pts.push((lo, mid));
        pts.push((hi, mid));
    }
    if n >= 8 {
        pts.push((mid, lo));
        pts.push((mid, hi));
    }
    if !n.is_multiple_of(2) && n >= 5 {
        pts.push((mid, mid));
    }
    Some(pts)
}

/// Where the engine puts `n` free handicap stones on an empty `size` board: the fixed
/// points as far as they go, then further points spread over the board (every other
/// point of every other line, then the rest), at most `size * size - 1` stones.
pub fn free_handicap_points(size: usize, n: usize) -> Option<Vec<(usize, usize)>> {
    if n < 2 || n >= size * size {
        return None;
    }
    let mut pts = Vec::with_capacity(n);
    let fixed_max = (2..=9)
        .rev()
        .find(|&k| fixed_handicap_points(size, k).is_some());
    if let Some(k) = fixed_max {
        pts = fixed_handicap_points(size, n.min(k)).unwrap_or_default();
    }
    let mut extra: Vec<(usize, usize)> = Vec::new();
    for pass in 0..3 {
        for row in 0..size {
            for col in 0..size {
                let on = match pass {
                    0 => row % 2 == 1 && col % 2 == 1,
                    1 => (row + col) % 2 == 1,
                    _ => true,
                };
                if on {
                    extra.push((col, row));
                }
            }
        }
    }
    for q in extra {
        if pts.len() >= n {
            break;
        }
        if !pts.contains(&q) {
            pts.push(q);
        }
    }
    Some(pts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_points_follow_gtp() {
        // 19x19: the 4-4 points, then the sides, then tengen.
        assert_eq!(fixed_handicap_points(19, 2), Some(vec![(3, 3), (15, 15)]));
        assert_eq!(
            fixed_handicap_points(19, 5).unwrap(),
            vec![(3, 3), (15, 15), (3, 15), (15, 3), (9, 9)]
        );
        assert_eq!(fixed_handicap_points(19, 9).unwrap().len(), 9);
        // 9x9 on the 3-3 points; 7x7 and even sizes up to 4 stones.
        assert_eq!(
            fixed_handicap_points(9, 4).unwrap(),
            vec![(2, 2), (6, 6), (2, 6), (6, 2)]
        );
        assert_eq!(fixed_handicap_points(7, 5), None);
        assert_eq!(fixed_handicap_points(10, 5), None);
        assert_eq!(fixed_handicap_points(6, 2), None);
        assert_eq!(fixed_handicap_points(19, 1), None);
        assert_eq!(fixed_handicap_points(19, 10), None);
    }

    #[test]
    fn free_points_extend_the_fixed_ones_without_repeats() {
        assert_eq!(free_handicap_points(19, 4), fixed_handicap_points(19, 4));
        let pts = free_handicap_points(9, 80).unwrap();
        assert_eq!(pts.len(), 80);
        let mut sorted = pts.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 80, "no point twice");
        assert_eq!(&pts[..9], &fixed_handicap_points(9, 9).unwrap()[..]);
        // Small boards have no fixed points: spread from the corner.
        assert_eq!(free_handicap_points(3, 2), Some(vec![(1, 1), (1, 0)]));
        assert_eq!(free_handicap_points(9, 81), None);
        assert_eq!(free_handicap_points(9, 1), None);
    }
}
