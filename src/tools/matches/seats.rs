//! The engines of one worker and what every worker shares: the match's fixed setup, each
//! engine started on first use (asked its name, version and time commands), every GTP
//! exchange with a deadline, an engine that failed dropped (killed) and restarted for the
//! next game, and the loss a failure costs. Knows nothing of the game's moves or of
//! counting.

use std::time::Duration;

use crate::board::{Color, Move};
use crate::gtp::client::{Client, Failure, Stderr};
use crate::time::TimeSystem;

use super::args::MatchArgs;
use super::result::{Reason, Side};

/// The fixed settings of a match, shared by the workers.
pub(super) struct Setup {
    pub(super) args: MatchArgs,
    pub(super) time: Option<TimeSystem>,
    pub(super) max_moves: usize,
    pub(super) openings: Vec<Opening>,
}

/// An opening: its file name and main-line moves.
pub(super) type Opening = (String, Vec<(Color, Move)>);

/// A started engine and what it said of itself.
pub(super) struct Player {
    client: Client,
    pub(super) kgs_time: bool,
}

/// A worker's engines, kept from game to game and restarted when one failed.
pub(super) struct Seats {
    pub(super) players: [Option<Player>; 2],
    /// What each engine last said its name was (kept after it is stopped).
    pub(super) names: [String; 2],
    pub(super) referee: Option<Client>,
}

impl Setup {
    /// What becomes of the engines' stderr.
    pub(super) fn stderr(&self) -> Stderr {
        if self.args.engine_stderr {
            Stderr::Inherit
        } else {
            Stderr::Discard
        }
    }
}

/// An engine failed the game for `side`.
pub(super) struct Loss {
    pub(super) side: Side,
    pub(super) reason: Reason,
    pub(super) note: String,
}

pub(super) fn loss(side: Side, reason: Reason, note: impl Into<String>) -> Loss {
    Loss {
        side,
        reason,
        note: note.into(),
    }
}

fn failure_reason(f: &Failure) -> Reason {
    match f {
        Failure::Died(_) => Reason::Crash,
        Failure::Timeout(_) => Reason::Timeout,
    }
}

impl Seats {
    fn command(setup: &Setup, side: Side) -> &str {
        match side {
            Side::A => &setup.args.a,
            Side::B => &setup.args.b,
        }
    }

    /// The engine of `side`, started (and asked its name) if need be.
    pub(super) fn player(&mut self, setup: &Setup, side: Side) -> Result<&mut Player, Loss> {
        // A failed exchange already emptied the seat (`send`), so a seated engine is sound.
        let slot = &mut self.players[side.index()];
        if slot.is_none() {
            let timeout = Duration::from_secs_f64(setup.args.timeout);
            let mut client = Client::spawn_command_line(Self::command(setup, side), setup.stderr())
                .map_err(|e| loss(side, Reason::Crash, e))?;
            let ask = |c: &mut Client, cmd: &str| -> Result<Option<String>, Loss> {
                match c.ask(cmd, timeout) {
                    Ok(a) if a.ok => Ok(Some(a.text)),
                    Ok(_) => Ok(None),
                    Err(f) => Err(loss(
                        side,
                        failure_reason(&f),
                        format!("no answer to {cmd}"),
                    )),
                }
            };
            let name = ask(&mut client, "name")?.unwrap_or_else(|| "?".into());
            let version = ask(&mut client, "version")?.unwrap_or_default();
            let kgs_time = ask(&mut client, "known_command kgs-time_settings")?
                .is_some_and(|t| t.trim() == "true");
            let name = format!("{} {}", name.trim(), version.trim())
                .trim()
                .to_string();
            self.names[side.index()] = name;
            *slot = Some(Player { client, kgs_time });
        }
        Ok(slot.as_mut().expect("started above"))
    }

    /// Sends `cmd` to `side`; a `?` is returned as `Ok(Err(text))`, no answer as a loss.
    pub(super) fn send(
        &mut self,
        setup: &Setup,
        side: Side,
        cmd: &str,
        timeout: Duration,
    ) -> Result<Result<String, String>, Loss> {
        let p = self.player(setup, side)?;
        match p.client.ask(cmd, timeout) {
            Ok(a) if a.ok => Ok(Ok(a.text)),
            Ok(a) => Ok(Err(a.text)),
            Err(f) => {
                // Its state is unknown now: dropping it kills it.
                self.players[side.index()] = None;
                Err(loss(
                    side,
                    failure_reason(&f),
                    format!("{} to '{cmd}'", failure_text(&f)),
                ))
            }
        }
    }

    pub(super) fn close(self) {
        // A failed engine was dropped (killed) already; the others are asked to quit.
        for p in self.players.into_iter().flatten() {
            p.client.finish(Duration::from_secs(2));
        }
        if let Some(r) = self.referee {
            r.finish(Duration::from_secs(2));
        }
    }
}

fn failure_text(f: &Failure) -> &'static str {
    match f {
        Failure::Died(_) => "died",
        Failure::Timeout(_) => "no answer",
    }
}
