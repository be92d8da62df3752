//! Who counts a finished game: A's `final_score` when B names the same winner, else the
//! referee engine's count (fed the whole game), else Tengen's own; and the winner a
//! `final_score` text names. Knows nothing of how the game was played.

use std::time::Duration;

use crate::board::Color;
use crate::engine::{Engine, Settings, Stop};
use crate::game::Game;
use crate::gtp::client::{Client, Failure};
use crate::notation::{color_name, move_text};

use super::result::Side;
use super::seats::{Seats, Setup};

/// The winner a `final_score` text names: `Some(Some(c))`, `Some(None)` for a draw
/// (`0`), `None` if it is not a result.
pub fn score_winner(text: &str) -> Option<Option<Color>> {
    let t = text.trim();
    if t == "0" || t.eq_ignore_ascii_case("draw") || t.eq_ignore_ascii_case("jigo") {
        return Some(None);
    }
    let (who, rest) = t.split_once('+')?;
    let color = match who.trim().to_ascii_uppercase().as_str() {
        "B" | "BLACK" => Color::Black,
        "W" | "WHITE" => Color::White,
        _ => return None,
    };
    // A margin that is not a number (`B+R`, `B+`) still names the winner; a zero one not.
    Some(match rest.trim().parse::<f64>() {
        Ok(m) if m > 0.0 => Some(color),
        Ok(_) => None,
        Err(_) => Some(color),
    })
}

/// Counts a finished game: A's `final_score` when B names the same winner, else the
/// referee's, else Tengen's own count (dead stones as the engine judges them).
pub(super) fn count(setup: &Setup, seats: &mut Seats, game: &Game) -> (String, String) {
    let timeout = Duration::from_secs_f64(setup.args.timeout);
    let mut texts = Vec::new();
    for side in [Side::A, Side::B] {
        let t = match seats.send(setup, side, "final_score", timeout) {
            Ok(Ok(t)) => Some(t.trim().to_string()),
            _ => None,
        };
        texts.push(t);
    }
    if let (Some(a), Some(b)) = (&texts[0], &texts[1]) {
        if let (Some(wa), Some(wb)) = (score_winner(a), score_winner(b)) {
            if wa == wb {
                return (a.clone(), "engines".into());
            }
        }
    }
    if let Some(cmd) = &setup.args.referee {
        if let Some(text) = referee_count(seats, cmd, setup, game, timeout) {
            return (text, "referee".into());
        }
    }
    let mut engine = Engine::new(game.rules().clone(), Settings::default());
    engine.set_game(game.clone());
    let score = engine.final_score(Stop::never());
    (score.result_string(), "tengen".into())
}

fn referee_count(
    seats: &mut Seats,
    cmd: &str,
    setup: &Setup,
    game: &Game,
    timeout: Duration,
) -> Option<String> {
    if seats.referee.is_none() {
        seats.referee = Client::spawn_command_line(cmd, setup.stderr()).ok();
    }
    let r = seats.referee.as_mut()?;
    match referee_exchange(r, game, timeout) {
        Ok(text) => text,
        Err(_) => {
            // No answer: its state is unknown, so the next count starts a fresh one.
            seats.referee = None;
            None
        }
    }
}

/// Feeds the referee the game and asks its count: `Ok(None)` when it refuses a command or
/// names no winner.
fn referee_exchange(
    r: &mut Client,
    game: &Game,
    timeout: Duration,
) -> Result<Option<String>, Failure> {
    let mut accepted = |c: &str| -> Result<bool, Failure> { Ok(r.ask(c, timeout)?.ok) };
    if !accepted(&format!("boardsize {}", game.size()))? || !accepted("clear_board")? {
        return Ok(None);
    }
    // A referee may refuse `komi` (it then counts with its own): only silence fails.
    accepted(&format!("komi {}", game.komi()))?;
    for &(c, m) in game.moves() {
        if !accepted(&format!("play {} {}", color_name(c), move_text(m)))? {
            return Ok(None);
        }
    }
    let a = r.ask("final_score", timeout)?;
    Ok((a.ok && score_winner(&a.text).is_some()).then(|| a.text.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_score_texts() {
        assert_eq!(score_winner("B+3.5"), Some(Some(Color::Black)));
        assert_eq!(score_winner("w+0.5"), Some(Some(Color::White)));
        assert_eq!(score_winner("W+R"), Some(Some(Color::White)));
        assert_eq!(score_winner("0"), Some(None));
        assert_eq!(score_winner("B+0"), Some(None));
        assert_eq!(score_winner("no idea"), None);
        assert_eq!(score_winner(""), None);
    }
}
