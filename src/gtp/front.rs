//! What only a GTP session has, kept out of the engine: the `version` answer Lizzie needs
//! (`--lizzie`) and GoGui's live graphics during `genmove` (`--live-gfx`). [`Front`] wraps
//! an [`Engine`] and answers those two itself; every other command goes to the engine's
//! executor unchanged.

use super::analysis;
use super::command::{Command, GoguiShow};
use super::error::GtpError;
use super::exec::genmove_text;
use super::serve::{Context, Executor, Reply};
use crate::engine::{Engine, GenmoveOptions, Stop};
use crate::search::{Analysis, Reporter};

/// The GTP session's own options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrontOptions {
    /// Answer `version` as `0.15 (Leela Zero 0.15 analysis; Tengen X.Y.Z)`: Lizzie 0.7.4
    /// splits the first word and wants a Leela Zero version of 0.15 or later.
    pub lizzie: bool,
    /// While `genmove` thinks, its best moves, win rates and main variation as
    /// `gogui-gfx:` lines on stderr twice a second, cleared at the end.
    pub live_gfx: bool,
}

/// An engine behind a GTP session with its options.
#[derive(Debug)]
pub struct Front {
    pub engine: Engine,
    pub options: FrontOptions,
}

impl Front {
    pub fn new(engine: Engine, options: FrontOptions) -> Front {
        Front { engine, options }
    }
}

impl Executor for Front {
    fn execute(&mut self, command: Command, ctx: &Context) -> Result<Reply, GtpError> {
        match command {
            Command::Version if self.options.lizzie => Ok(format!(
                "0.15 (Leela Zero 0.15 analysis; Tengen {})",
                env!("CARGO_PKG_VERSION")
            )
            .into()),
            Command::Genmove(color) if self.options.live_gfx => {
                let board = self.engine.game().board().clone();
                let mut sink = |a: &Analysis| {
                    crate::log::raw(&format!(
                        "gogui-gfx:\n{}\n\n",
                        analysis::gogui_show(GoguiShow::BestMovesGfx, a, &board)
                    ));
                };
                let m = self.engine.genmove(
                    color,
                    GenmoveOptions {
                        stop: Stop::when(&|| ctx.interrupted()),
                        report: Some(Reporter {
                            interval: std::time::Duration::from_millis(500),
                            sink: &mut sink,
                            moves_ownership: false,
                        }),
                        ..GenmoveOptions::default()
                    },
                );
                crate::log::raw("gogui-gfx: CLEAR\n");
                Ok(genmove_text(m).into())
            }
            other => self.engine.execute(other, ctx),
        }
    }

    fn execute_streamed(
        &mut self,
        command: Command,
        ctx: &Context,
        out: &mut dyn FnMut(&str),
    ) -> Result<Reply, GtpError> {
        match command {
            Command::Version | Command::Genmove(_) => self.execute(command, ctx),
            other => self.engine.execute_streamed(other, ctx, out),
        }
    }

    fn idle(&mut self, ctx: &Context) {
        self.engine.idle(ctx);
    }
}
