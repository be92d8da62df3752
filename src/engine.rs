//! The engine: the game plus the move generator, its settings (seed, playouts, threads)
//! and the clock. What GTP asks of a player lives here, in board terms (points, not
//! vertices); no I/O and no text forms.

use std::time::Duration;

mod game_end;

use crate::board::{Board, Color, Move, Point, NUM_CELLS};
use crate::game::Game;
use crate::playout::{self, PlayoutRng};
use crate::rules::Rules;
use crate::search::{
    Analysis, Limits, PolicyKind, Reporter, Search, SearchConfig, HAND_PRIOR_EXPAND_VISITS,
};

/// What the move generator answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Genmove {
    Place(Point),
    Pass,
    Resign,
}

/// The time system, as GTP `time_settings` and `kgs-time_settings` give it. Seconds.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum TimeControl {
    /// No limit.
    #[default]
    None,
    /// Sudden death: `main` seconds for the whole game.
    Absolute { main: f64 },
    /// Japanese byo-yomi: main time, then `periods` periods of `period_time` a move.
    Byoyomi {
        main: f64,
        period_time: f64,
        periods: u32,
    },
    /// Canadian: main time, then `stones` moves in every `period_time`.
    Canadian {
        main: f64,
        period_time: f64,
        stones: u32,
    },
}

impl TimeControl {
    /// GTP `time_settings main byo_time byo_stones` (Canadian by nature): byo_time 0 is
    /// absolute time; byo_time > 0 with 0 stones means no limit (GTP v2 §6.3.6).
    pub fn from_gtp(main: f64, byo_time: f64, byo_stones: u32) -> TimeControl {
        if byo_time > 0.0 && byo_stones == 0 {
            TimeControl::None
        } else if byo_time == 0.0 {
            TimeControl::Absolute { main }
        } else {
            TimeControl::Canadian {
                main,
                period_time: byo_time,
                stones: byo_stones,
            }
        }
    }
}

/// Time left for one player, as the controller last told it (`time_left`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Clock {
    /// Seconds left in the current period (main time or byo-yomi period).
    pub seconds: f64,
    /// 0 while in main time; otherwise stones (Canadian) or periods (byo-yomi) left.
    pub stones: u32,
}

/// How long a move may take: the planned time, and the most when the choice is still
/// open then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub target: Duration,
    pub max: Duration,
    /// Whether time this move leaves unused is there for later moves (main time, a
    /// Canadian period with stones still to play after this one): only then is it worth
    /// stopping the search early when its choice is settled. In a byo-yomi period, a
    /// Canadian period of one stone, or a fixed time a move, unused time is lost.
    pub bankable: bool,
}

/// Which move generator plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PlayerKind {
    /// A uniformly random legal move that does not fill an own eye.
    Random,
    /// Monte-Carlo tree search.
    #[default]
    Mcts,
}

/// Engine settings from the command line.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Seed of every random choice; the same seed gives the same moves.
    pub seed: u64,
    /// Search playouts used to judge dead stones for counting.
    pub status_playouts: usize,
    pub player: PlayerKind,
    /// Playouts a move (instead of the clock).
    pub playouts: Option<u64>,
    /// Seconds a move while no time system is set (`None`: by board size).
    pub move_time: Option<f64>,
    /// Search threads.
    pub threads: usize,
    /// Bound on the search tree, in MiB.
    pub max_memory_mib: usize,
    /// Resign when the win rate stays below this for several moves (0: never).
    pub resign: f64,
    /// Seconds kept back from every move's budget for process and pipe lag.
    pub lag_margin: f64,
    /// Think on the opponent's time after a generated move.
    pub ponder: bool,
    /// Answer `version` as Lizzie 0.7.4 needs (see `--lizzie`).
    pub lizzie: bool,
    /// GoGui live graphics on stderr during `genmove` (see `--live-gfx`).
    pub live_gfx: bool,
    /// The search's other constants (threads, memory and seed are set from the fields
    /// above).
    pub search: SearchConfig,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            seed: 0x7465_6e67_656e,
            status_playouts: 1000,
            player: PlayerKind::Mcts,
            playouts: None,
            move_time: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_memory_mib: 512,
            resign: 0.1,
            lag_margin: 0.2,
            ponder: false,
            lizzie: false,
            live_gfx: false,
            search: SearchConfig::default(),
        }
    }
}

/// Memory kept out of `--max-memory` for everything but the search tree (the program,
/// boards, per-thread state, the dead-stone search's own small tree, I/O buffers).
const RESERVE_MIB: usize = 32;

/// The search tree's share of a memory bound of `mib` MiB: all but [`RESERVE_MIB`], or
/// half of a bound too small for that. The whole process stays within the bound.
pub fn tree_bytes(mib: usize) -> usize {
    let mib = mib.max(1);
    if mib >= 2 * RESERVE_MIB {
        (mib - RESERVE_MIB) << 20
    } else {
        (mib << 20) / 2
    }
}

impl Settings {
    /// The search configuration these settings give.
    pub fn search_config(&self) -> SearchConfig {
        SearchConfig {
            threads: self.threads.max(1),
            max_memory: tree_bytes(self.max_memory_mib),
            seed: self.seed,
            ..self.search.clone()
        }
    }
}

/// A move generator: given the game and the colour to move, a move. The search is one,
/// the random mover another.
pub trait Player: Send {
    /// Chooses a move for `color` in `game` within `limits`; the analysis if it has one.
    fn choose(&mut self, game: &Game, color: Color, limits: &Limits) -> (Move, Option<Analysis>);

    /// [`Player::choose`] with live analysis handed to `report` as the search goes (a
    /// player without a search reports nothing).
    fn choose_reporting(
        &mut self,
        game: &Game,
        color: Color,
        limits: &Limits,
        report: Option<Reporter<'_>>,
    ) -> (Move, Option<Analysis>) {
        let _ = report;
        self.choose(game, color, limits)
    }
}

/// The random mover: a uniformly random legal move (superko included) that does not fill
/// one of its own single-point eyes, else pass.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: PlayoutRng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: PlayoutRng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn choose(&mut self, game: &Game, color: Color, _: &Limits) -> (Move, Option<Analysis>) {
        let board = game.board();
        let candidates: Vec<Point> = game
            .legal_points(color)
            .into_iter()
            .filter(|&p| !board.is_eye(color, p))
            .collect();
        if candidates.is_empty() {
            return (Move::Pass, None);
        }
        let i = (self.rng.next_u64() % candidates.len() as u64) as usize;
        (Move::Place(candidates[i]), None)
    }
}

impl Player for Search {
    fn choose(&mut self, game: &Game, color: Color, limits: &Limits) -> (Move, Option<Analysis>) {
        self.choose_reporting(game, color, limits, None)
    }

    fn choose_reporting(
        &mut self,
        game: &Game,
        color: Color,
        limits: &Limits,
        report: Option<Reporter<'_>>,
    ) -> (Move, Option<Analysis>) {
        let a = self.run_reporting(game, color, limits, report);
        (a.best(), Some(a))
    }
}

/// The engine behind the GTP front end.
pub struct Engine {
    pub game: Game,
    pub settings: Settings,
    pub time_control: TimeControl,
    pub clocks: [Option<Clock>; 2],
    player: Box<dyn Player>,
    /// Consecutive own moves (per colour) with a win rate below the resign threshold.
    low_winrate: [u32; 2],
    /// The game [`Engine::low_winrate`] was counted in (start, size, komi, moves): a game
    /// that does not continue it (`clear_board`, `boardsize`, `loadsgf`, `undo`, set-up,
    /// another komi) starts the count afresh.
    streak_game: Option<(StreakKey, Vec<(Color, Move)>)>,
    /// The position (its number of moves) after the last generated and played move: the
    /// one to ponder on, while the game has not moved on.
    ponder_at: Option<usize>,
    /// The last complete dead-stone judgement and what it was made for, so that
    /// `final_score` and the `final_status_list` calls after it agree.
    status_cache: std::sync::Mutex<Option<(StatusKey, Judgement)>>,
    /// The last [`Engine::think`] and the position it was for.
    think_cache: Option<(StatusKey, Analysis)>,
}

impl Engine {
    /// Everything a GTP command may change, one `key value` line each (`tengen-state`):
    /// what a failed command must leave as it was, and what a user may want to check.
    pub fn state_text(&self) -> String {
        let letter = |c: Color| if c == Color::Black { 'B' } else { 'W' };
        let g = &self.game;
        let hashes: Vec<u64> = g.position_hashes().collect();
        let history = hashes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
            (h ^ x).wrapping_mul(0x100_0000_01b3)
        });
        // The last 20 moves (the count says how many there are).
        let all = g.moves();
        let moves: Vec<String> = all[all.len().saturating_sub(20)..]
            .iter()
            .map(|&(c, m)| format!("{}{}", letter(c), crate::record::move_text(m)))
            .collect();
        format!(
            "size {}\nkomi {}\nrules {:?}\nhandicap {}\nsetup {}\nfirst_to_move {}\nto_move {}\nmoves {} last {}\ncaptures {} {}\nposition_hash {:016x}\nhistory_hash {:016x}\ntime_control {:?}\nclock_black {:?}\nclock_white {:?}",
            g.size(),
            g.komi(),
            g.rules(),
            g.handicap(),
            g.setup().len(),
            letter(g.first_to_move()),
            letter(g.to_move()),
            all.len(),
            moves.join(" "),
            g.board().captures(Color::Black),
            g.board().captures(Color::White),
            hashes.last().copied().unwrap_or(0),
            history,
            self.time_control,
            self.clocks[Color::Black.index()],
            self.clocks[Color::White.index()],
        )
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("game", &self.game)
            .field("settings", &self.settings)
            .field("time_control", &self.time_control)
            .finish_non_exhaustive()
    }
}

/// Moves in a row below the resign threshold before resigning.
const RESIGN_MOVES: u32 = 3;

impl Engine {
    /// A 19x19 engine with the given rules and settings.
    pub fn new(rules: Rules, settings: Settings) -> Engine {
        let player: Box<dyn Player> = match settings.player {
            PlayerKind::Random => Box::new(RandomPlayer::new(settings.seed)),
            PlayerKind::Mcts => Box::new(Search::new(settings.search_config())),
        };
        Engine {
            game: Game::new(19, rules).expect("19 is a valid size"),
            settings,
            time_control: TimeControl::None,
            clocks: [None; 2],
            player,
            low_winrate: [0; 2],
            streak_game: None,
            ponder_at: None,
            status_cache: std::sync::Mutex::new(None),
            think_cache: None,
        }
    }

    /// Picks a move for `color` in the current position without playing it.
    pub fn generate(&mut self, color: Color) -> Genmove {
        self.generate_until(color, &|| false)
    }

    /// [`Engine::generate`], stopping the search early when `stop` answers true (an
    /// interrupt); the best move found so far is answered.
    pub fn generate_until(&mut self, color: Color, stop: &(dyn Fn() -> bool + Sync)) -> Genmove {
        self.generate_with(color, stop, false, None)
    }

    /// The move generator; `cleanup` for `kgs-genmove_cleanup`: never pass while a dead
    /// opponent stone stands, the search counting a two-pass end with every stone alive.
    fn generate_with(
        &mut self,
        color: Color,
        stop: &(dyn Fn() -> bool + Sync),
        cleanup: bool,
        report: Option<Reporter<'_>>,
    ) -> Genmove {
        let budget = match self.settings.playouts {
            Some(_) => None,
            None => Some(self.move_budget(color)),
        };
        let started = std::time::Instant::now();
        let limits = Limits {
            playouts: self.settings.playouts,
            time: budget.map(|b| b.target),
            max_time: budget.map(|b| b.max),
            early_stop: budget.is_some_and(|b| b.bankable),
            stop,
            root_filter: None,
        };
        let (mv, analysis) = if cleanup && self.game.rules().remove_dead {
            let mut game = self.game.clone();
            game.set_rules(Rules {
                remove_dead: false,
                ..self.game.rules().clone()
            });
            self.player.choose_reporting(&game, color, &limits, report)
        } else {
            self.player
                .choose_reporting(&self.game, color, &limits, report)
        };
        let mv = match &analysis {
            Some(a) => {
                // The dead-stone judgement of the game-end manners stops at the move's
                // time limit, after at least a quarter of its planned time (so a
                // search that used all of it still judges from some playouts): at 0.1 s
                // a move it overran by 0.11 s. Playout-limited moves judge in full.
                let limit = budget.map(|b| (started + b.max, b.target / 4));
                let judge_start = std::time::Instant::now();
                let over = || {
                    stop()
                        || limit.is_some_and(|(deadline, floor)| {
                            let now = std::time::Instant::now();
                            now >= deadline && now >= judge_start + floor
                        })
                };
                self.game_end_manners(color, mv, a, cleanup, &over)
            }
            None => mv,
        };
        let mv = if self.game.check(color, mv).is_ok() {
            mv
        } else {
            Move::Pass
        };
        if let Some(a) = &analysis {
            crate::log!(
                2,
                "search: {} playouts in {:.2} s ({} root visits), win rate {:.3}, {} nodes",
                a.playouts,
                a.seconds,
                a.root_visits,
                a.winrate,
                a.tree_nodes
            );
            if crate::log::level() >= 3 {
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
                            .map(|&m| crate::record::move_text(m))
                            .collect();
                    crate::log!(
                        3,
                        "  {:>4} {:>7} visits  win {:.3}  prior {:.3} ({} visits)  amaf {:.3} ({})  score B{:+.1}  pv {}",
                        crate::record::move_text(c.mv),
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
            let key = streak_key(&self.game);
            let continues = self
                .streak_game
                .as_ref()
                .is_some_and(|(k, moves)| *k == key && self.game.moves().starts_with(moves));
            if !continues {
                self.low_winrate = [0; 2];
            }
            self.streak_game = Some((key, self.game.moves().to_vec()));
            let low = &mut self.low_winrate[color.index()];
            if a.winrate < self.settings.resign && a.root_visits >= 500 {
                *low += 1;
            } else {
                *low = 0;
            }
        }
        if analysis.is_some() && self.low_winrate[color.index()] >= RESIGN_MOVES {
            return Genmove::Resign;
        }
        match mv {
            Move::Place(p) => Genmove::Place(p),
            Move::Pass => Genmove::Pass,
        }
    }

    /// How long to think about the next move of `color`, from the time system and what
    /// `time_left` said, less the lag margin. Without a time system: `--move-time`, or by
    /// default 1 s on 9x9, 1.5 s on 13x13, 2 s on 19x19 (less the margin), never extended.
    ///
    /// Main time is shared over the moves this player may still make (two fifths of the
    /// empty points, at least 15), weighted by the phase of the game: three quarters of
    /// the share in the opening, a quarter more in the middle game. During main time a
    /// byo-yomi period (or a Canadian period's share per stone) is added, since a move
    /// that runs out of main time goes on in the period. In byo-yomi periods a move takes
    /// nearly the whole period; in a Canadian period, the time left over the stones left.
    /// The search may think up to [`Budget::max`] when the choice is still open.
    pub fn move_budget(&self, color: Color) -> Budget {
        let size = self.game.size();
        let default = if let Some(t) = self.settings.move_time {
            t
        } else if size <= 9 {
            1.0
        } else if size <= 13 {
            1.5
        } else {
            2.0
        };
        let board = self.game.board();
        let empties = board.num_empty() as f64;
        let points = (size * size) as f64;
        let moves_left = (empties / 2.5).max(15.0);
        let filled = 1.0 - empties / points;
        let phase = if filled < 0.1 {
            0.75
        } else if filled < 0.55 {
            1.25
        } else {
            1.0
        };
        let clock = self.clocks[color.index()];
        // (planned seconds, most seconds, whether unused time is kept), before the margin.
        let (target, max, bankable) = match self.time_control {
            TimeControl::None => (default, default, false),
            TimeControl::Absolute { main } => {
                let left = clock.map_or(main, |c| c.seconds);
                let t = left / moves_left * phase;
                (t, (2.5 * t).min(left / 8.0).max(t), true)
            }
            TimeControl::Canadian {
                main,
                period_time,
                stones,
            } => {
                let per_stone = period_time / stones.max(1) as f64;
                match clock {
                    Some(c) if c.stones > 0 => {
                        let t = c.seconds / c.stones as f64;
                        // Extend only into what the remaining stones can spare.
                        let spare = c.seconds - (c.stones as f64 - 1.0) * 0.8 * t;
                        (t, spare.min(1.5 * t).max(t), c.stones > 1)
                    }
                    _ => {
                        let left = clock.map_or(main, |c| c.seconds);
                        let share = left / moves_left * phase;
                        let t = share + per_stone;
                        let max = (share * 2.5).min(left / 8.0).max(share) + per_stone;
                        (t, max, left > 0.0 || stones > 1)
                    }
                }
            }
            TimeControl::Byoyomi {
                main, period_time, ..
            } => match clock {
                Some(c) if c.stones > 0 => {
                    let t = c.seconds.min(period_time);
                    (t, t, false)
                }
                _ => {
                    let left = clock.map_or(main, |c| c.seconds);
                    let share = left / moves_left * phase;
                    (
                        share + period_time,
                        (share * 2.5).min(left / 8.0).max(share) + period_time,
                        left > 0.0,
                    )
                }
            },
        };
        // At least 3% of the most time, whatever the lag margin: the search's own
        // overrun (stopping the workers, the final judgement) is a few tens of ms.
        let margin = self.settings.lag_margin.max(0.03 * max);
        let cut = |s: f64| Duration::from_secs_f64((s - margin).max(0.05).min(s.max(0.05)));
        Budget {
            target: cut(target),
            max: cut(max),
            bankable,
        }
    }

    /// How the search's choice `mv` is adjusted at the end of the game (rules that remove
    /// dead stones, outside cleanup), by the area count with the dead stones judged:
    /// - the opponent has just passed and that count wins: pass;
    /// - the opponent has passed, or the game is over (no dame left), and `mv` lies
    ///   inside an area already settled (an empty region that,
    ///   the judged dead stones taken off, only one colour reaches): a move outside
    ///   settled areas that the search rates nearly as well instead; else pass if the
    ///   count wins, or if the opponent has passed (no stones thrown into a settled area
    ///   for nothing, the opponent's or one's own).
    ///
    /// Under cleanup, or rules that count every stone alive: no pass while a stone the
    /// judgement calls dead stands for the opponent.
    fn game_end_manners(
        &self,
        color: Color,
        mv: Move,
        a: &Analysis,
        cleanup: bool,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Move {
        let judge = || self.judge_dead(stop).dead;
        let remove_dead = !cleanup && self.game.rules().remove_dead;
        let view = game_end::EndView::new(&self.game, color, a, &judge, remove_dead);
        game_end::decide(&view, mv)
    }

    /// [`Engine::genmove_until`] for `kgs-genmove_cleanup`: plays on until every stone
    /// judged dead is captured.
    pub fn genmove_cleanup_until(
        &mut self,
        color: Color,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Genmove {
        let m = self.generate_with(color, stop, true, None);
        self.play_generated(color, m)
    }

    /// [`Engine::genmove_until`] with live analysis handed to `report` while it thinks
    /// (`lz-genmove_analyze`, `kata-genmove_analyze`).
    pub fn genmove_analyze(
        &mut self,
        color: Color,
        stop: &(dyn Fn() -> bool + Sync),
        report: Reporter<'_>,
    ) -> Genmove {
        let m = self.generate_with(color, stop, false, Some(report));
        self.play_generated(color, m)
    }

    /// Analyses the position for `color` until `stop` answers true, handing the
    /// analysis so far to `report` (`lz-analyze`, `kata-analyze`); root moves limited to
    /// those `root_filter` accepts. The tree is kept, as after a search for a move, so
    /// that analysis of the next position (or a `genmove` here) starts from it. `None`
    /// when the player has no search.
    pub fn analyze(
        &mut self,
        color: Color,
        stop: &(dyn Fn() -> bool + Sync),
        root_filter: Option<&(dyn Fn(Move) -> bool + Sync)>,
        report: Reporter<'_>,
    ) -> Option<Analysis> {
        let limits = Limits {
            playouts: None,
            time: None,
            max_time: None,
            early_stop: false,
            stop,
            root_filter,
        };
        self.player
            .choose_reporting(&self.game, color, &limits, Some(report))
            .1
    }

    /// A search of the position for `color` as long as a move would take (or
    /// `--playouts`), stopped early when `stop` answers true; kept, and answered again
    /// while the position stays (GoGui's analyze commands ask one after another). `None`
    /// when the player has no search.
    pub fn think(&mut self, color: Color, stop: &(dyn Fn() -> bool + Sync)) -> Option<Analysis> {
        let key = self.status_key();
        if let Some((k, a)) = &self.think_cache {
            if *k == key && a.color == color {
                return Some(a.clone());
            }
        }
        let budget = self
            .settings
            .playouts
            .is_none()
            .then(|| self.move_budget(color));
        let limits = Limits {
            playouts: self.settings.playouts,
            time: budget.map(|b| b.target),
            max_time: budget.map(|b| b.target),
            early_stop: false,
            stop,
            root_filter: None,
        };
        let a = self.player.choose(&self.game, color, &limits).1?;
        self.think_cache = Some((key, a.clone()));
        Some(a)
    }

    /// Generates a move for `color` and plays it.
    pub fn genmove(&mut self, color: Color) -> Genmove {
        self.genmove_until(color, &|| false)
    }

    /// [`Engine::genmove`], stopping early when `stop` answers true.
    pub fn genmove_until(&mut self, color: Color, stop: &(dyn Fn() -> bool + Sync)) -> Genmove {
        let m = self.generate_until(color, stop);
        self.play_generated(color, m)
    }

    /// Thinks about the position for the player to move, until `stop` answers true, when
    /// pondering is on and the last command played a generated move here (the tree is
    /// kept, so the opponent's move finds its subtree searched). Returns at once
    /// otherwise.
    pub fn ponder(&mut self, stop: &(dyn Fn() -> bool + Sync)) {
        let at = self.ponder_at.take();
        if !self.settings.ponder
            || self.settings.player != PlayerKind::Mcts
            || at != Some(self.game.moves().len())
            || self.game.is_over()
        {
            return;
        }
        let limits = Limits {
            playouts: None,
            time: None,
            max_time: None,
            early_stop: false,
            stop,
            root_filter: None,
        };
        let color = self.game.to_move();
        let (_, a) = self.player.choose(&self.game, color, &limits);
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

    /// How often each point ends up Black's (positive) or White's (negative) in Moggy
    /// playouts (which leave a seki alone) from the current position, in [-1, 1], indexed
    /// by point index. Seeded from the settings and the position, so the same position
    /// always gives the same answer.
    pub fn ownership(&self, playouts: usize) -> Vec<f64> {
        let board = self.game.board();
        let mut own = vec![0i32; crate::board::NUM_CELLS];
        let mut rng = PlayoutRng::seed_from_u64(self.settings.seed ^ board.hash());
        let to_move = self.game.to_move();
        let mut b = board.clone();
        let mut policy = crate::playout::Moggy::default();
        for _ in 0..playouts {
            b.copy_from(board);
            playout::playout(&mut b, to_move, &mut policy, &mut rng);
            for p in b.points() {
                own[p.index()] += playout::end_owner(&b, p);
            }
        }
        own.into_iter()
            .map(|v| v as f64 / playouts.max(1) as f64)
            .collect()
    }

    /// The stones judged dead. Empty when the rules count every stone as alive.
    pub fn dead_stones(&self) -> Vec<Point> {
        self.dead_stones_until(&|| false)
    }

    /// [`Engine::dead_stones`], cut short when `stop` answers true (an interrupt): the
    /// judgement from the playouts run so far.
    ///
    /// A short search from the position (the player to move, `status_playouts`
    /// playouts, Moggy playouts, its own tree; play resumes as if the passes that ended
    /// the game had not been made) gives every point's final ownership. Chains of one
    /// colour that share a liberty form a group; a group is dead when its stones end up
    /// the opponent's area on average beyond [`DEAD_THRESHOLD`]. Stones of a seki end up
    /// nobody's (ownership near 0) and stay on the board; the count then gives their
    /// shared liberties to nobody.
    pub fn dead_stones_until(&self, stop: &(dyn Fn() -> bool + Sync)) -> Vec<Point> {
        self.judge(stop).dead
    }

    /// The dead stones and the ownership they were judged from (empty when the rules
    /// count every stone as alive or the board is empty).
    fn judge(&self, stop: &(dyn Fn() -> bool + Sync)) -> Judgement {
        if !self.game.rules().remove_dead {
            return Judgement::default();
        }
        self.judge_dead(stop)
    }

    /// [`Engine::judge`] whatever the rules do with dead stones.
    fn judge_dead(&self, stop: &(dyn Fn() -> bool + Sync)) -> Judgement {
        let board = self.game.board();
        if board.stone_count(Color::Black) + board.stone_count(Color::White) == 0 {
            return Judgement::default();
        }
        let key = self.status_key();
        if let Ok(cache) = self.status_cache.lock() {
            if let Some((k, j)) = cache.as_ref() {
                if *k == key {
                    return j.clone();
                }
            }
        }
        let stopped = std::sync::atomic::AtomicBool::new(false);
        let watch = || {
            let s = stop();
            if s {
                stopped.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            s
        };
        let own = self.search_ownership(self.settings.status_playouts, &watch);
        let mut dead = dead_from_ownership(board, &own, DEAD_THRESHOLD);
        let killed = killed_by_sacrifice(board);
        if !killed.is_empty() {
            // The chains that kill keep their stones; the killed ones are dead.
            let killers: Vec<Point> = killed.iter().flat_map(|k| k.1.iter().copied()).collect();
            dead.retain(|p| !killers.contains(p));
            dead.extend(killed.iter().flat_map(|k| k.0.iter().copied()));
            dead.sort_unstable();
            dead.dedup();
        }
        let dead = enclosed_dead(board, dead);
        let judgement = Judgement { dead };
        if !stopped.load(std::sync::atomic::Ordering::Relaxed) {
            if let Ok(mut cache) = self.status_cache.lock() {
                *cache = Some((key, judgement.clone()));
            }
        }
        judgement
    }

    /// What the dead-stone judgement depends on: the position, the player to move, the
    /// komi and the budget.
    fn status_key(&self) -> StatusKey {
        let g = &self.game;
        (
            g.board().hash(),
            g.size(),
            g.to_move(),
            g.moves().len(),
            g.komi().to_bits(),
            self.settings.status_playouts,
        )
    }

    /// Final ownership of every point (+1 Black, -1 White, indexed by point index) from a
    /// short search of `playouts` simulations with the player to move, in a tree of its
    /// own (the game's kept tree is not touched), play resumed after any passes.
    pub fn search_ownership(&self, playouts: usize, stop: &(dyn Fn() -> bool + Sync)) -> Vec<f32> {
        let mut config = self.settings.search_config();
        config.policy = PolicyKind::Moggy;
        config.seki_moves = false;
        // Sacrifices decide the status of a finished group (a nakade, a shared liberty
        // filled to kill): no prior against self-ataris here.
        config.priors.self_atari_one = 0;
        config.priors.self_atari_many = 0;
        // The learned model would count them against as the game records do: this
        // search keeps the hand-written priors (and their expansion threshold).
        config.priors.learned = 0;
        config.expand_visits = HAND_PRIOR_EXPAND_VISITS;
        config.max_memory = config.max_memory.min(STATUS_MEMORY);
        let mut search = Search::new(config);
        let limits = Limits {
            playouts: Some(playouts.max(1) as u64),
            time: None,
            max_time: None,
            early_stop: false,
            stop,
            root_filter: None,
        };
        // The search wins or loses by the change from the count as it stands (every stone
        // alive): komi makes that count a draw. With the real komi a decided game gives
        // one side nothing to play for, and its random moves wreck a seki; balanced, each
        // side captures the other's dead stones and neither fills a seki's liberty.
        let mut game = self.game.clone();
        let as_is = crate::score::area_difference(game.board()) as f64;
        game.set_komi(as_is - game.compensation());
        let a = search.run_resumed(&game, game.to_move(), &limits);
        if a.playouts == 0 {
            // No search ran (nothing to choose between): the playouts' view.
            return self
                .ownership(playouts.min(1000))
                .into_iter()
                .map(|v| v as f32)
                .collect();
        }
        a.ownership
    }

    /// The count of the position as it stands, dead stones (as judged) removed.
    pub fn final_score(&self) -> crate::score::Score {
        self.final_score_until(&|| false)
    }

    /// [`Engine::final_score`], the judgement cut short when `stop` answers true. Pure
    /// area counting once the dead stones are off: an empty point that both colours
    /// reach counts to nobody, as the rules say.
    pub fn final_score_until(&self, stop: &(dyn Fn() -> bool + Sync)) -> crate::score::Score {
        let j = self.judge(stop);
        self.game.score(&j.dead)
    }

    /// Sets both clocks' time system and forgets what `time_left` said.
    pub fn set_time_control(&mut self, tc: TimeControl) {
        self.time_control = tc;
        self.clocks = [None; 2];
    }
}

/// A group is dead when its stones end up the opponent's this much on average (ownership
/// in [-1, 1]: 0.4 means captured in about seven simulations out of ten). Tuned on
/// `scripts/score_corpus.py`: 0.3 to 0.5 do about as well, 0.7 loses exact scores.
const DEAD_THRESHOLD: f32 = 0.4;

/// A dead-stone judgement: the dead stones, sorted.
#[derive(Clone, Debug, Default)]
struct Judgement {
    dead: Vec<Point>,
}

/// Bound on the tree of the dead-stone search, in bytes.
const STATUS_MEMORY: usize = 64 << 20;

/// What a resign streak belongs to: the game's starting position, size and komi.
type StreakKey = (Option<u64>, usize, u64);

fn streak_key(game: &Game) -> StreakKey {
    (
        game.position_hashes().next(),
        game.size(),
        game.komi().to_bits(),
    )
}

/// See [`Engine::status_key`].
type StatusKey = (u64, usize, Color, usize, u64, usize);

/// The stones of the groups whose mean ownership (from their own colour's side) is below
/// `-threshold`, sorted. A group: chains of one colour joined when they share a liberty.
pub fn dead_from_ownership(board: &Board, own: &[f32], threshold: f32) -> Vec<Point> {
    // Union-find over chain heads.
    let mut parent: Vec<usize> = (0..NUM_CELLS).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for p in board.points() {
        if board.get(p).is_some() {
            continue;
        }
        for c in [Color::Black, Color::White] {
            let mut first: Option<usize> = None;
            for n in p.neighbors() {
                if board.get(n) != Some(c) {
                    continue;
                }
                let Some(head) = board.chain_id(n) else {
                    continue;
                };
                let h = find(&mut parent, head.index());
                match first {
                    None => first = Some(h),
                    Some(f) if f != h => parent[h] = f,
                    Some(_) => {}
                }
            }
        }
    }
    let mut sum = vec![0f32; NUM_CELLS];
    let mut count = vec![0u32; NUM_CELLS];
    let mut group = vec![usize::MAX; NUM_CELLS];
    for p in board.points() {
        let Some(c) = board.get(p) else { continue };
        let Some(head) = board.chain_id(p) else {
            continue;
        };
        let g = find(&mut parent, head.index());
        group[p.index()] = g;
        let sign = if c == Color::Black { 1.0 } else { -1.0 };
        sum[g] += own.get(p.index()).copied().unwrap_or(0.0) * sign;
        count[g] += 1;
    }
    let mut dead: Vec<Point> = board
        .points()
        .filter(|p| {
            let g = group[p.index()];
            g != usize::MAX && sum[g] / (count[g].max(1) as f32) < -threshold
        })
        .collect();
    dead.sort_unstable();
    dead
}

/// Chains that a sacrifice kills, with the chain that kills them: a chain A whose only
/// two liberties are exactly those of an opponent chain S next to them, no other stone
/// touching either point. Neither side can fill one without being taken, which looks
/// like a seki; but when S's owner fills one (S then in atari), A's owner must capture
/// and gets S's points as its whole eye space, and if that space is a nakade shape
/// (three points or fewer, or a square, T or corner-bent four) a play inside kills A.
/// Playouts and the status search rarely find that sequence (the real games
/// clock9-abs60 game 15, clock9s3-byo game 19, clock9s4-abs60 game 15), so it is read
/// here exactly.
pub fn killed_by_sacrifice(board: &Board) -> Vec<(Vec<Point>, Vec<Point>)> {
    let mut out = Vec::new();
    let mut seen = vec![false; NUM_CELLS];
    for p in board.points() {
        let Some(color) = board.get(p) else { continue };
        if seen[p.index()] {
            continue;
        }
        let chain = board.chain(p);
        for s in &chain {
            seen[s.index()] = true;
        }
        let libs = board.liberties(p);
        if libs.len() != 2 {
            continue;
        }
        let head = board.chain_id(p);
        // Every stone next to the two liberties: this chain or one opponent chain.
        let mut other: Option<Point> = None;
        let mut clean = true;
        for l in &libs {
            for n in l.neighbors() {
                match board.get(n) {
                    Some(c) if c == color => clean &= board.chain_id(n) == head,
                    Some(_) => {
                        let id = board.chain_id(n);
                        match other {
                            None => other = id,
                            Some(o) => clean &= id == Some(o),
                        }
                    }
                    None => {}
                }
            }
        }
        let Some(s) = other else { continue };
        if !clean || board.liberties(s) != libs {
            continue;
        }
        let s_stones = board.chain(s);
        let kills = libs.iter().any(|&fill| {
            // S fills `fill` (touching S alone among its colour, as checked above).
            let mut space = s_stones.clone();
            space.push(fill);
            board.nakade_shape(&space)
        });
        if kills {
            out.push((chain, s_stones));
        }
    }
    // Both small: whoever fills first wins, so neither is dead as the board stands.
    let killers: Vec<Point> = out.iter().map(|k| k.1[0]).collect();
    out.retain(|k| !k.0.iter().any(|p| killers.contains(p)));
    out
}

/// Of the stones judged `dead`, those that stand inside the opponent's area: once they
/// are taken off, their region reaches the opponent's stones only, and it is not most of
/// the board. A group the playouts lose in open ground (a position far from finished)
/// stays on the board.
pub fn enclosed_dead(board: &Board, mut dead: Vec<Point>) -> Vec<Point> {
    let (reach, size) = crate::score::regions(board, &dead);
    let half = board.size() * board.size() / 2;
    dead.retain(|&p| {
        let opponent_bit = match board.get(p) {
            Some(Color::Black) => 2,
            _ => 1,
        };
        reach[p.index()] == opponent_bit && size[p.index()] <= half
    });
    dead.sort_unstable();
    dead
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Early stop only where unused time is kept: main time, or a Canadian period with
    /// stones still to play after this one.
    #[test]
    fn unused_time_is_bankable_only_where_the_clock_keeps_it() {
        let mut e = Engine::new(Rules::chinese(), Settings::default());
        let bankable = |e: &Engine| e.move_budget(Color::Black).bankable;
        assert!(!bankable(&e), "no time settings");
        // tengen match --time-per-move 1: Canadian, no main time, one stone a period.
        e.set_time_control(TimeControl::from_gtp(0.0, 1.0, 1));
        assert!(!bankable(&e));
        e.clocks[Color::Black.index()] = Some(Clock {
            seconds: 1.0,
            stones: 1,
        });
        assert!(!bankable(&e));
        let b = e.move_budget(Color::Black);
        assert_eq!(
            b.target,
            Duration::from_secs_f64(0.8),
            "1 s less the lag margin"
        );
        // A smaller lag margin gives more time, down to 3% of the move's time kept back.
        let target = |e: &Engine| e.move_budget(Color::Black).target.as_secs_f64();
        e.settings.lag_margin = 0.05;
        assert!((target(&e) - 0.95).abs() < 1e-6);
        e.settings.lag_margin = 0.0;
        assert!((target(&e) - 0.97).abs() < 1e-6);
        e.settings.lag_margin = 0.2;
        e.set_time_control(TimeControl::from_gtp(0.0, 10.0, 5));
        e.clocks[Color::Black.index()] = Some(Clock {
            seconds: 10.0,
            stones: 5,
        });
        assert!(bankable(&e), "Canadian period with stones to come");
        e.set_time_control(TimeControl::from_gtp(60.0, 0.0, 0));
        assert!(bankable(&e), "absolute time");
        e.set_time_control(TimeControl::Byoyomi {
            main: 0.0,
            period_time: 5.0,
            periods: 3,
        });
        e.clocks[Color::Black.index()] = Some(Clock {
            seconds: 5.0,
            stones: 3,
        });
        assert!(!bankable(&e), "byo-yomi period");
    }

    #[test]
    fn saves_a_chain_in_atari_by_capturing_where_extending_fails() {
        // From a 9x9 game against Pachi: White's C8 has put Black's C9 in
        // atari. B9 leaves it in atari; E9 captures D9 and saves it. Black's G3 is in
        // atari too, and G4 saves it.
        let rows = [
            "O.XO.....",
            "O.OX.....",
            ".XO......",
            "OOOXXX...",
            ".OOXO.X..",
            "OXXOO....",
            ".XO.OOXO.",
            "XXOOXXOO.",
            ".O.O.....",
        ];
        let b = Board::from_rows(&rows).unwrap();
        assert_eq!(
            game_end::atari_saves(&b, Color::Black, &|_| true),
            vec![Point::from_coord(6, 3), Point::from_coord(4, 8)]
        );
        assert_eq!(game_end::atari_saves(&b, Color::Black, &|_| false), vec![]);
    }

    #[test]
    fn only_stones_inside_the_opponents_area_are_dead() {
        // A white stone at A1 inside Black's corner (A2, B2, B1): dead. A black stone in
        // open ground at E5: stays, though judged dead.
        let mut b = Board::new(9).unwrap();
        let p = |c, r| Point::from_coord(c, r);
        for q in [p(0, 1), p(1, 1), p(1, 0), p(4, 4)] {
            b.place(Color::Black, q);
        }
        b.place(Color::White, p(0, 0));
        b.place(Color::White, p(6, 6));
        assert_eq!(enclosed_dead(&b, vec![p(0, 0), p(4, 4)]), vec![p(0, 0)]);
    }

    #[test]
    fn groups_share_liberties_and_near_zero_ownership_stays_alive() {
        // Two black chains (B1, C2) sharing the liberties C1 and B2: one group. A white
        // stone at E5.
        let mut b = Board::new(9).unwrap();
        let (b1, c2, e5) = (
            Point::from_coord(1, 0),
            Point::from_coord(2, 1),
            Point::from_coord(4, 4),
        );
        b.place(Color::Black, b1);
        b.place(Color::Black, c2);
        b.place(Color::White, e5);
        let mut own = vec![0f32; NUM_CELLS];
        // The group's mean is (-0.9 - 0.1) / 2 = -0.5: dead together, though C2 alone
        // would not be.
        own[b1.index()] = -0.9;
        own[c2.index()] = -0.1;
        // Near 0 (a seki, say): stays.
        own[e5.index()] = 0.1;
        assert_eq!(dead_from_ownership(&b, &own, 0.4), vec![b1, c2]);
        own[e5.index()] = 0.9;
        let mut want = vec![b1, c2, e5];
        want.sort_unstable();
        assert_eq!(dead_from_ownership(&b, &own, 0.4), want);
    }
}
