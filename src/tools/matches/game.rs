//! One game of a match: both engines set up (board, komi, time, the opening), then each
//! move asked for, checked by Tengen's own `Game`, timed against the runner's clock and
//! passed to the other engine, until two passes, a resignation, the move limit or a loss;
//! then the result row and the SGF (players, times left, result). Knows nothing of the
//! match folder, resuming or other games.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::board::{Color, Move};
use crate::game::Game;
use crate::gtp::GtpMove;
use crate::notation::{color_name, move_text};
use crate::record::record_of;
use crate::sgf;
use crate::time::TimeSystem;

use super::clock::RunningClock;
use super::referee::{count, score_winner};
use super::result::{GameResult, MoveTimes, Reason, Side};
use super::seats::{loss, Loss, Seats, Setup};

/// What a game produced: the result row, the SGF text.
pub(super) struct Played {
    pub(super) result: GameResult,
    pub(super) sgf: String,
}

/// One move's time, and the mover's clock after it.
#[derive(Clone, Copy, Default)]
struct MoveNote {
    seconds: Option<f64>,
    left: Option<(f64, u32)>,
}

pub(super) fn play_game(setup: &Setup, seats: &mut Seats, game_no: usize) -> Played {
    let start = Instant::now();
    let black = if game_no.is_multiple_of(2) {
        Side::A
    } else {
        Side::B
    };
    let side_of = |c: Color| {
        if c == Color::Black {
            black
        } else {
            black.other()
        }
    };
    let mut rules = setup.args.rules.clone();
    rules.komi = setup.args.komi;
    let mut game = Game::new(setup.args.size, rules).expect("size checked");
    let mut notes: Vec<MoveNote> = Vec::new();
    let mut times = [MoveTimes::default(); 2];
    let mut comment = String::new();
    let outcome = run_moves(
        setup, seats, game_no, &mut game, &mut notes, &mut times, &side_of,
    );
    let names = seats.names.clone();
    let (result, winner, reason, scorer) = match outcome {
        Err(l) => {
            let w = l.side.other();
            let wc = if w == black { "B" } else { "W" };
            let _ = write!(comment, "{} lost: {}", l.side.letter(), l.reason.word());
            if !l.note.is_empty() {
                let _ = write!(comment, " ({})", l.note);
            }
            (
                format!("{wc}+{}", l.reason.re_suffix()),
                Some(w),
                l.reason,
                "-".to_string(),
            )
        }
        Ok(reason) => {
            let (text, scorer) = count(setup, seats, &game);
            let winner = match score_winner(&text) {
                Some(Some(c)) => Some(side_of(c)),
                _ => None,
            };
            let _ = write!(comment, "counted by {scorer}");
            (text, winner, reason, scorer)
        }
    };
    let result_row = GameResult {
        game: game_no,
        black,
        result,
        winner,
        reason,
        moves: game.moves().len(),
        seconds: start.elapsed().as_secs_f64(),
        scorer,
        times,
        names: names.clone(),
    };
    let sgf = game_sgf(setup, &game, &notes, &result_row, &comment);
    Played {
        result: result_row,
        sgf,
    }
}

/// Sets both engines up and plays until two passes, a resignation, the move limit or a
/// loss; `Ok` with how a countable game ended.
fn run_moves(
    setup: &Setup,
    seats: &mut Seats,
    game_no: usize,
    game: &mut Game,
    notes: &mut Vec<MoveNote>,
    times: &mut [MoveTimes; 2],
    side_of: &dyn Fn(Color) -> Side,
) -> Result<Reason, Loss> {
    let timeout = Duration::from_secs_f64(setup.args.timeout);
    let size = setup.args.size;
    for side in [Side::A, Side::B] {
        let must = |r: Result<String, String>, cmd: &str| {
            r.map(|_| ())
                .map_err(|e| loss(side, Reason::Refused, format!("'{cmd}' answered ? {e}")))
        };
        let cmd = format!("boardsize {size}");
        must(seats.send(setup, side, &cmd, timeout)?, &cmd)?;
        must(
            seats.send(setup, side, "clear_board", timeout)?,
            "clear_board",
        )?;
        // A `?` to komi or the time settings is tolerated: the runner still keeps both.
        let _ = seats.send(setup, side, &format!("komi {}", setup.args.komi), timeout)?;
        if let Some(t) = setup.time {
            let kgs = seats.player(setup, side)?.kgs_time;
            let cmd = if kgs && matches!(t, TimeSystem::Byoyomi { .. }) {
                t.kgs_time_settings()
            } else {
                t.time_settings()
            };
            let _ = seats.send(setup, side, &cmd, timeout)?;
        }
    }
    if !setup.openings.is_empty() {
        let (_, moves) = &setup.openings[game_no % setup.openings.len()];
        for &(color, mv) in moves {
            if game.play(color, mv).is_err() {
                break;
            }
            notes.push(MoveNote::default());
            let cmd = format!("play {} {}", color_name(color), move_text(mv));
            for side in [Side::A, Side::B] {
                if let Err(e) = seats.send(setup, side, &cmd, timeout)? {
                    return Err(loss(
                        side,
                        Reason::Refused,
                        format!("'{cmd}' answered ? {e}"),
                    ));
                }
            }
        }
    }
    let mut clocks = [
        setup.time.map(RunningClock::new),
        setup.time.map(RunningClock::new),
    ];
    while !game.is_over() {
        if game.moves().len() >= setup.max_moves {
            return Ok(Reason::MaxMoves);
        }
        let color = game.to_move();
        let side = side_of(color);
        let mut wait = timeout;
        if let Some(clock) = &clocks[side.index()] {
            let (secs, stones) = clock.time_left();
            let cmd = format!("time_left {} {secs} {stones}", color_name(color));
            let _ = seats.send(setup, side, &cmd, timeout)?;
            // Past this the flag has fallen whatever the engine says.
            wait = Duration::from_secs_f64(clock.available() + setup.args.grace + 0.05);
        }
        let t0 = Instant::now();
        let ask = match side {
            Side::A => &setup.args.a_genmove,
            Side::B => &setup.args.b_genmove,
        };
        let reply = seats.send(setup, side, &format!("{ask} {}", color_name(color)), wait);
        let took = t0.elapsed().as_secs_f64();
        let reply = match reply {
            Err(l) if l.reason == Reason::Timeout && clocks[side.index()].is_some() => {
                return Err(loss(
                    side,
                    Reason::Time,
                    format!("no move after {took:.1} s"),
                ));
            }
            r => r?,
        };
        let text = match reply {
            Ok(t) => t,
            Err(e) => {
                return Err(loss(
                    side,
                    Reason::BadGenmove,
                    format!("genmove answered ? {e}"),
                ))
            }
        };
        times[side.index()].add(took);
        let mut left = None;
        if let Some(clock) = clocks[side.index()].as_mut() {
            if !clock.charge(took, setup.args.grace) {
                return Err(loss(side, Reason::Time, format!("move took {took:.2} s")));
            }
            left = Some((clock.time_left().0 as f64, clock.time_left().1));
        }
        let word = text.trim();
        if word.eq_ignore_ascii_case("resign") {
            return Err(loss(side, Reason::Resign, ""));
        }
        let mv = match word.to_ascii_lowercase().parse::<GtpMove>() {
            Ok(GtpMove::Pass) => Move::Pass,
            Ok(GtpMove::Vertex(v)) => match game.board().point(v.col as usize, v.row as usize) {
                Some(p) => Move::Place(p),
                None => {
                    return Err(loss(
                        side,
                        Reason::Illegal,
                        format!("{word}: off the board"),
                    ))
                }
            },
            Err(_) => {
                return Err(loss(
                    side,
                    Reason::BadGenmove,
                    format!("genmove answered {word:?}"),
                ))
            }
        };
        if let Err(e) = game.play(color, mv) {
            return Err(loss(side, Reason::Illegal, format!("{word}: {e}")));
        }
        notes.push(MoveNote {
            seconds: Some(took),
            left,
        });
        let other = side.other();
        let cmd = format!("play {} {}", color_name(color), move_text(mv));
        if let Err(e) = seats.send(setup, other, &cmd, timeout)? {
            return Err(loss(
                other,
                Reason::Refused,
                format!("'{cmd}' answered ? {e}"),
            ));
        }
    }
    Ok(Reason::Score)
}

/// Today's date as YYYY-MM-DD (UTC), for SGF `DT`.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn game_sgf(
    setup: &Setup,
    game: &Game,
    notes: &[MoveNote],
    r: &GameResult,
    comment: &str,
) -> String {
    let mut rec = record_of(game);
    let name = |s: Side| r.names[s.index()].clone();
    rec.info = vec![
        ("PB".into(), name(r.black)),
        ("PW".into(), name(r.black.other())),
        ("RE".into(), r.result.clone()),
        ("DT".into(), today()),
        ("GN".into(), format!("game {}", r.game)),
    ];
    if let Some(t) = setup.time {
        rec.info.push(("TM".into(), t.to_string()));
    }
    rec.info.push((
        "C".into(),
        format!(
            "tengen match game {}: A = {} ({}), B = {} ({}); {}; {}",
            r.game,
            name(Side::A),
            setup.args.a,
            name(Side::B),
            setup.args.b,
            r.reason.word(),
            comment
        ),
    ));
    for (node, note) in rec.nodes.iter_mut().skip(1).zip(notes) {
        let Some((color, _)) = node.mv else { continue };
        if let Some((secs, stones)) = note.left {
            let (tl, ol) = if color == Color::Black {
                ("BL", "OB")
            } else {
                ("WL", "OW")
            };
            node.extra.push((tl.into(), format!("{secs}")));
            if stones > 0 {
                node.extra.push((ol.into(), stones.to_string()));
            }
        }
        if let Some(s) = note.seconds {
            node.extra.push(("C".into(), format!("{s:.2} s")));
        }
    }
    if let (Some(words), Some(last)) = (
        crate::score::result_in_words(&r.result),
        rec.nodes.last_mut(),
    ) {
        // The result where a person reads it: the last node's comment.
        match last.extra.iter_mut().find(|(k, _)| k == "C") {
            Some((_, c)) => *c = format!("{c}\n{words}"),
            None => last.extra.push(("C".into(), words)),
        }
    }
    sgf::write_record(&rec) + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_is_iso() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"));
    }
}
