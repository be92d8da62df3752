//! The engine: the game, the move generator (the search or the random mover), the
//! settings and the clocks, with one way to think (`genmove`, `analyze`, `ponder`, each
//! stopped by a [`Stop`]). It owns its state: every change goes through a method. Time
//! budgets are `time.rs`'s, dead stones `status.rs`'s, the endgame rules `game_end.rs`'s.
//! Board terms only (points, not vertices); no stdin/stdout, no GTP.

mod game_end;
mod player;
mod resign;
mod settings;

pub use player::{Player, PlayerKind, RandomPlayer};
pub use settings::{Network, Settings};

use std::sync::Arc;

use crate::board::{Color, IllegalMove, Move, Point};
use crate::game::{Game, SetupError};
use crate::nn::cache::CacheStats;
use crate::nn::features::InputRules;
use crate::nn::forward::ForwardError;
use crate::nn::{CacheKeys, Evaluation, Request, Service};
use crate::rules::Rules;
use crate::score::Score;
use crate::search::{Analysis, Limits, Reporter, Search};
use crate::status::{self, Status};
use crate::time::{self, Budget, Clock, Clocks, TimeSystem};
use resign::ResignStreak;

/// What the move generator answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Genmove {
    Place(Point),
    Pass,
    Resign,
}

/// When to stop thinking early: a test that answers true once the caller wants the
/// answer now (an interrupt, new input, the opponent's move). The search checks it every
/// few playouts; the dead-stone judgement too.
#[derive(Clone, Copy)]
pub struct Stop<'a>(&'a (dyn Fn() -> bool + Sync));

impl<'a> Stop<'a> {
    /// Stops when `test` answers true.
    pub fn when(test: &'a (dyn Fn() -> bool + Sync)) -> Stop<'a> {
        Stop(test)
    }

    /// Never stops early: the budget (or the playouts) decides.
    pub fn never() -> Stop<'static> {
        Stop(&|| false)
    }
}

impl Default for Stop<'_> {
    fn default() -> Self {
        Stop::never()
    }
}

/// How [`Engine::genmove`] goes about a move. The default searches for the move's budget
/// (or `--playouts`) and plays the move.
#[derive(Default)]
pub struct GenmoveOptions<'a> {
    pub stop: Stop<'a>,
    /// Live analysis while it thinks (`lz-genmove_analyze`, GoGui's live graphics).
    pub report: Option<Reporter<'a>>,
    /// `kgs-genmove_cleanup`: never pass while a dead opponent stone stands, the search
    /// counting a two-pass end with every stone alive.
    pub cleanup: bool,
    /// Answer the move without playing it (`reg_genmove`).
    pub dry_run: bool,
}

/// How [`Engine::analyze`] analyses. The default searches until `stop`.
#[derive(Default)]
pub struct AnalyzeOptions<'a> {
    pub stop: Stop<'a>,
    /// Root moves the search may consider (`avoid` / `allow`); `None`: all.
    pub root_filter: Option<&'a (dyn Fn(Move) -> bool + Sync)>,
    /// The analysis so far, every `interval` (`lz-analyze`, `kata-analyze`).
    pub report: Option<Reporter<'a>>,
    /// Search as long as a move would take (or `--playouts`), and answer the kept
    /// analysis again while the position stays (GoGui's analyze commands ask one after
    /// another), instead of until `stop`.
    pub move_time: bool,
}

/// The engine behind the GTP front end.
pub struct Engine {
    game: Game,
    settings: Settings,
    /// The time system and what `time_left` said.
    clocks: Clocks,
    player: Box<dyn Player>,
    resign: ResignStreak,
    /// The position (its number of moves) after the last generated and played move: the
    /// one to ponder on, while the game has not moved on.
    ponder_at: Option<usize>,
    /// The dead-stone judgement, with the last one kept.
    judge: status::Judge,
    /// The last analysis for a move's time and the position it was for.
    kept_analysis: Option<(status::PositionKey, Analysis)>,
    /// The network's evaluation service (from `settings.network` and
    /// `settings.precision`): the search's, the dead-stone judgement's and `raw_nn`'s.
    service: Option<Arc<Service>>,
}

/// Why the network cannot evaluate.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    #[error("no network loaded (start tengen with --model FILE)")]
    NoNetwork,
    #[error(transparent)]
    Unsupported(#[from] ForwardError),
    #[error("symmetry {0} is not in 0..8")]
    BadSymmetry(usize),
}

impl Engine {
    /// A 19x19 engine with the given rules and settings.
    pub fn new(rules: Rules, mut settings: Settings) -> Engine {
        let player: Box<dyn Player> = match settings.player {
            PlayerKind::Random => Box::new(RandomPlayer::new(settings.search.seed)),
            PlayerKind::Mcts => Box::new(Search::new(settings.search.clone())),
        };
        let network = settings.network.take();
        let mut engine = Engine {
            game: Game::new(19, rules).expect("19 is a valid size"),
            settings,
            clocks: Clocks::default(),
            player,
            resign: ResignStreak::default(),
            ponder_at: None,
            judge: status::Judge::default(),
            kept_analysis: None,
            service: None,
        };
        engine.set_network(network);
        engine
    }

    /// The game as it stands.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The network's evaluations of the current position for the player to move (GTP
    /// `kata-raw-nn`), one for each symmetry in `symmetries`, with policy `optimism`, the
    /// rules shown to the network as KataGo's GTP shows the rules of the same name
    /// ([`InputRules::katago_gtp`]). Evaluations are cached.
    pub fn raw_nn(
        &mut self,
        symmetries: &[usize],
        optimism: f32,
    ) -> Result<Vec<Evaluation>, NetworkError> {
        let service = self.service.as_ref().ok_or(NetworkError::NoNetwork)?;
        if let Some(&s) = symmetries.iter().find(|&&s| s >= 8) {
            return Err(NetworkError::BadSymmetry(s));
        }
        let mut evaluator = service.evaluator(CacheKeys::PerSymmetry);
        let rules = InputRules::katago_gtp(self.game.rules());
        Ok(symmetries
            .iter()
            .map(|&s| evaluator.evaluate_one(Request::new(&self.game, rules, s).optimism(optimism)))
            .collect())
    }

    /// Sets the network `raw_nn` evaluates with, the search plays with and the dead
    /// stones are judged by: one evaluation service in the settings' precision, its cache
    /// a share of the search's memory bound (the previous network's service, with its
    /// cached evaluations, goes).
    pub fn set_network(&mut self, network: Option<Network>) {
        self.service = network
            .as_ref()
            .map(|n| n.service(self.settings.precision, self.settings.search.max_memory_mib));
        self.player.set_net(self.service.clone());
        self.settings.network = network;
    }

    /// The network's evaluation service, if a network is loaded.
    pub fn service(&self) -> Option<&Arc<Service>> {
        self.service.as_ref()
    }

    /// Hits, misses and entries of the evaluation cache (none without a network).
    pub fn nn_cache_stats(&self) -> CacheStats {
        self.service
            .as_ref()
            .map(|s| s.cache_stats())
            .unwrap_or_default()
    }

    /// The settings the engine was made with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    // Changes. A change that does not continue the game (anything but a move) also
    // ends the resign streak, which belongs to one game (see `ResignStreak`).

    /// Plays `mv` for `color`.
    pub fn play(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        self.game.play(color, mv)
    }

    /// Takes back the last move; false if there is none.
    pub fn undo(&mut self) -> bool {
        self.game.undo()
    }

    /// An empty board of `size`, same rules and komi; false (nothing changed) if the
    /// size is not allowed.
    pub fn resize(&mut self, size: usize) -> bool {
        self.game.resize(size)
    }

    /// An empty board of the same size.
    pub fn clear(&mut self) {
        self.game.clear();
    }

    pub fn set_komi(&mut self, komi: f64) {
        self.game.set_komi(komi);
    }

    /// Handicap stones for Black on the empty board; White moves next.
    pub fn set_handicap(&mut self, points: &[Point]) -> Result<(), SetupError> {
        self.game.set_handicap(points)
    }

    /// Set-up stones, with `to_move` to play (GoGui's `gogui-setup`).
    pub fn set_position(&mut self, stones: &[(Color, Point)], to_move: Color) {
        self.game.set_position(stones, to_move);
    }

    /// Who moves first; false (nothing changed) once moves are played.
    pub fn set_first_to_move(&mut self, color: Color) -> bool {
        self.game.set_first_to_move(color)
    }

    /// Replaces the game (`loadsgf`, a sequence of moves checked on a copy).
    pub fn set_game(&mut self, game: Game) {
        self.game = game;
    }

    /// Sets both players' time system (`None`: no limit) and forgets what `time_left`
    /// said.
    pub fn set_time_system(&mut self, system: Option<TimeSystem>) {
        self.clocks.set_system(system);
    }

    /// Records what `time_left` says of `color`'s clock.
    pub fn set_time_left(&mut self, color: Color, clock: Clock) {
        self.clocks.set_left(color, clock);
    }

    // Thinking.

    /// A move for `color` in the current position, played unless `options.dry_run`
    /// (a resignation plays nothing). The search's choice goes through the end-of-game
    /// rules ([`game_end`]) and the resign streak: three moves in a row below
    /// `--resign` resign.
    pub fn genmove(&mut self, color: Color, options: GenmoveOptions<'_>) -> Genmove {
        let dry_run = options.dry_run;
        let m = self.generate(color, options);
        if dry_run {
            m
        } else {
            self.play_generated(color, m)
        }
    }

    /// Analyses the position for `color` (see [`AnalyzeOptions`]). The tree is kept, as
    /// after a search for a move, so that analysis of the next position (or a `genmove`
    /// here) starts from it. `None` when the player has no search.
    pub fn analyze(&mut self, color: Color, options: AnalyzeOptions<'_>) -> Option<Analysis> {
        if !options.move_time {
            let limits = self.limits(None, None, options.stop, options.root_filter);
            return self
                .player
                .choose(&self.game, color, &limits, options.report)
                .1;
        }
        let key = self.status_key();
        if let Some((k, a)) = &self.kept_analysis {
            if *k == key && a.color == color {
                return Some(a.clone());
            }
        }
        // The planned time as a hard limit: no extension, no early stop.
        let budget = self.budget(color).map(|b| Budget {
            max: b.target,
            bankable: false,
            ..b
        });
        let limits = self.limits(
            budget,
            self.settings.playouts,
            options.stop,
            options.root_filter,
        );
        let a = self
            .player
            .choose(&self.game, color, &limits, options.report)
            .1?;
        self.kept_analysis = Some((key, a.clone()));
        Some(a)
    }

    /// Thinks about the position for the player to move, until `stop`, when pondering is
    /// on and the last command played a generated move here (the tree is kept, so the
    /// opponent's move finds its subtree searched). Returns at once otherwise.
    pub fn ponder(&mut self, stop: Stop<'_>) {
        let at = self.ponder_at.take();
        if !self.settings.ponder
            || self.settings.player != PlayerKind::Mcts
            || at != Some(self.game.moves().len())
            || self.game.is_over()
        {
            return;
        }
        let limits = self.limits(None, None, stop, None);
        let color = self.game.to_move();
        let (_, a) = self.player.choose(&self.game, color, &limits, None);
        if let Some(a) = a {
            crate::log!(
                2,
                "ponder: {} playouts in {:.2} s, {} root visits",
                a.playouts,
                a.seconds,
                a.root_visits
            );
        }
    }

    // The end of the game.

    /// The stones judged dead (sorted; [`status::dead_stones`], the last judgement kept).
    /// Empty when the rules count every stone as alive. `stop` cuts the judgement short:
    /// it answers from the playouts run so far.
    pub fn dead_stones(&self, stop: Stop<'_>) -> Vec<Point> {
        if !self.game.rules().remove_dead {
            return Vec::new();
        }
        self.judge_dead(stop)
    }

    /// Every chain with its status (dead, seki or alive), the dead stones as
    /// [`Engine::dead_stones`] judges them.
    pub fn chain_statuses(&self, stop: Stop<'_>) -> Vec<(Status, Vec<Point>)> {
        status::chain_statuses(self.game.board(), &self.dead_stones(stop))
    }

    /// The count of the position as it stands, dead stones (as judged) removed. Area
    /// counting once they are off, except that an empty point both colours reach counts
    /// to the colour the judgement's ownership clearly gives it, else to nobody (a
    /// seki's shared liberties, dame): the inside of a living group that the opponent's
    /// wall still touches is its owner's, as GNU Go and KataGo count an unfinished
    /// position.
    pub fn final_score(&self, stop: Stop<'_>) -> Score {
        if !self.game.rules().remove_dead {
            return self.game.score(&[]);
        }
        let j = self.judgement(stop);
        self.game.score_owned(&j.dead, &j.ownership)
    }

    /// The clocks: the time system and what `time_left` last said of each side.
    pub fn clocks(&self) -> &Clocks {
        &self.clocks
    }

    // How the engine thinks, step by step.

    /// The search limits of one think, the only place they are made: `--playouts`, else
    /// the `budget`'s times (with early stops when its unused time is kept); with no
    /// budget and no playouts, until `stop`.
    fn limits<'a>(
        &self,
        budget: Option<Budget>,
        playouts: Option<u64>,
        stop: Stop<'a>,
        root_filter: Option<&'a (dyn Fn(Move) -> bool + Sync)>,
    ) -> Limits<'a> {
        Limits {
            playouts,
            time: budget.map(|b| b.target),
            max_time: budget.map(|b| b.max),
            early_stop: budget.is_some_and(|b| b.bankable),
            stop: stop.0,
            root_filter,
        }
    }

    /// How long to think about the next move of `color` ([`time::budget`] from the
    /// clocks, the board, `--move-time` and `--lag-margin`); `None` under `--playouts`.
    fn budget(&self, color: Color) -> Option<Budget> {
        if self.settings.playouts.is_some() {
            return None;
        }
        let size = self.game.size();
        let move_time = self
            .settings
            .move_time
            .unwrap_or_else(|| time::default_move_time(size));
        Some(time::budget(
            self.clocks.system(),
            self.clocks.left(color),
            size,
            self.game.board().num_empty(),
            move_time,
            self.settings.lag_margin,
        ))
    }

    /// The move generator behind [`Engine::genmove`]: search, the end-of-game rules, a
    /// legal move, the resign streak.
    fn generate(&mut self, color: Color, options: GenmoveOptions<'_>) -> Genmove {
        let GenmoveOptions {
            stop,
            report,
            cleanup,
            ..
        } = options;
        let budget = self.budget(color);
        let started = std::time::Instant::now();
        let limits = self.limits(budget, self.settings.playouts, stop, None);
        let (mv, analysis) = if cleanup && self.game.rules().remove_dead {
            let mut game = self.game.clone();
            game.set_rules(Rules {
                remove_dead: false,
                ..self.game.rules().clone()
            });
            self.player.choose(&game, color, &limits, report)
        } else {
            self.player.choose(&self.game, color, &limits, report)
        };
        let mv = match &analysis {
            Some(a) => {
                // The dead-stone judgement of the end-of-game rules stops at the move's
                // time limit, after at least a quarter of its planned time (so a
                // search that used all of it still judges from some playouts): at 0.1 s
                // a move it overran by 0.11 s. Playout-limited moves judge in full.
                let limit = budget.map(|b| (started + b.max, b.target / 4));
                let judge_start = std::time::Instant::now();
                let over = || {
                    (stop.0)()
                        || limit.is_some_and(|(deadline, floor)| {
                            let now = std::time::Instant::now();
                            now >= deadline && now >= judge_start + floor
                        })
                };
                self.game_end_rules(color, mv, a, cleanup, Stop::when(&over))
            }
            None => mv,
        };
        let mv = if self.game.check(color, mv).is_ok() {
            mv
        } else {
            Move::Pass
        };
        if let Some(a) = &analysis {
            log_search(a, budget);
            if self
                .resign
                .count(&self.game, color, a, self.settings.resign)
            {
                return Genmove::Resign;
            }
        }
        match mv {
            Move::Place(p) => Genmove::Place(p),
            Move::Pass => Genmove::Pass,
        }
    }

    /// The search's choice `mv` through the end-of-game rules ([`game_end::decide`]),
    /// with the dead stones judged only if a rule needs them. Rules that remove dead
    /// stones, outside cleanup, may pass when the count wins; under cleanup, or rules
    /// that count every stone alive, no pass while a stone judged dead stands for the
    /// opponent.
    fn game_end_rules(
        &self,
        color: Color,
        mv: Move,
        a: &Analysis,
        cleanup: bool,
        stop: Stop<'_>,
    ) -> Move {
        let judge = || self.judge_dead(stop);
        let remove_dead = !cleanup && self.game.rules().remove_dead;
        let view = game_end::EndView::new(&self.game, color, a, &judge, remove_dead);
        game_end::decide(&view, mv)
    }

    /// Plays a generated move (a resignation plays nothing).
    fn play_generated(&mut self, color: Color, m: Genmove) -> Genmove {
        let mv = match m {
            Genmove::Place(p) => Move::Place(p),
            Genmove::Pass => Move::Pass,
            Genmove::Resign => return m,
        };
        if self.game.play(color, mv).is_err() {
            // Cannot happen: the candidates were checked. Pass rather than fail.
            let _ = self.game.play(color, Move::Pass);
            return Genmove::Pass;
        }
        self.ponder_at = Some(self.game.moves().len());
        m
    }

    /// The judged dead stones whatever the rules do with them.
    fn judge_dead(&self, stop: Stop<'_>) -> Vec<Point> {
        self.judgement(stop).dead
    }

    /// The dead-stone judgement (the network's, else a search's) with its ownership.
    fn judgement(&self, stop: Stop<'_>) -> status::Judgement {
        if let Some(service) = &self.service {
            return self.judge.net_judgement(&self.game, service, stop.0);
        }
        self.judge.judgement(
            &self.game,
            &self.settings.search,
            self.settings.status_playouts,
            stop.0,
        )
    }

    /// What the dead-stone judgement (and the kept analysis) depends on: the position,
    /// the player to move, the komi and the judgement's playouts.
    fn status_key(&self) -> status::PositionKey {
        status::position_key(&self.game, self.settings.status_playouts)
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("game", &self.game)
            .field("settings", &self.settings)
            .field("clocks", &self.clocks)
            .finish_non_exhaustive()
    }
}

/// The search of a move on stderr: a line at verbosity 2; at 3 the budget and the best
/// five candidates.
fn log_search(a: &Analysis, budget: Option<Budget>) {
    crate::log!(
        2,
        "search: {} playouts in {:.2} s ({} root visits), win rate {:.3}, {} nodes",
        a.playouts,
        a.seconds,
        a.root_visits,
        a.winrate,
        a.tree_nodes
    );
    if crate::log::level() < 3 {
        return;
    }
    if let Some(b) = budget {
        crate::log!(
            3,
            "search: budget {:.2} s planned, {:.2} s at most",
            b.target.as_secs_f64(),
            b.max.as_secs_f64()
        );
    }
    for c in a.candidates.iter().take(5) {
        let pv: Vec<String> =
            c.pv.iter()
                .take(8)
                .map(|&m| crate::notation::move_text(m))
                .collect();
        crate::log!(
            3,
            "  {:>4} {:>7} visits  win {:.3}  prior {:.3} ({} visits)  amaf {:.3} ({})  score B{:+.1}  pv {}",
            crate::notation::move_text(c.mv),
            c.visits,
            c.winrate,
            c.prior,
            c.prior_visits,
            c.amaf_winrate,
            c.amaf_visits,
            c.score_black,
            pv.join(" ")
        );
    }
}
