//! The engine: the game plus the move generator, its settings (seed, playouts, threads)
//! and the clock. What GTP asks of a player lives here, in board terms (points, not
//! vertices); no I/O and no text forms.

mod game_end;

use crate::status;
use crate::time::{self, Budget, Clock, Clocks, TimeSystem};

use crate::board::{Color, Move, Point};
use crate::game::Game;
use crate::playout::PlayoutRng;
use crate::rules::Rules;
use crate::search::{Analysis, Limits, Reporter, Search, SearchConfig};

/// What the move generator answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Genmove {
    Place(Point),
    Pass,
    Resign,
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
    /// The time system and what `time_left` said.
    clocks: Clocks,
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
    /// The dead-stone judgement, with the last one kept.
    judge: status::Judge,
    /// The last [`Engine::think`] and the position it was for.
    think_cache: Option<(status::PositionKey, Analysis)>,
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
            "size {}\nkomi {}\nrules {:?}\nhandicap {}\nsetup {}\nfirst_to_move {}\nto_move {}\nmoves {} last {}\ncaptures {} {}\nposition_hash {:016x}\nhistory_hash {:016x}\ntime_control {}\nclock_black {:?}\nclock_white {:?}",
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
            self.clocks
                .system()
                .map_or("None".to_string(), |t| format!("{t:?}")),
            self.clocks.left(Color::Black),
            self.clocks.left(Color::White),
        )
    }
}

impl Engine {
    /// The game as it stands.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The settings the engine was made with.
    pub fn settings(&self) -> &Settings {
        &self.settings
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
            clocks: Clocks::default(),
            player,
            low_winrate: [0; 2],
            streak_game: None,
            ponder_at: None,
            judge: status::Judge::default(),
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

    /// How long to think about the next move of `color`: [`time::budget`] from the
    /// clocks, the board and the settings (`--move-time`, `--lag-margin`).
    fn move_budget(&self, color: Color) -> Budget {
        let size = self.game.size();
        let move_time = self
            .settings
            .move_time
            .unwrap_or_else(|| time::default_move_time(size));
        time::budget(
            self.clocks.system(),
            self.clocks.left(color),
            size,
            self.game.board().num_empty(),
            move_time,
            self.settings.lag_margin,
        )
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
        let judge = || self.judge_dead(stop);
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

    /// The stones judged dead (sorted). Empty when the rules count every stone as
    /// alive. See [`status::dead_stones`].
    pub fn dead_stones(&self) -> Vec<Point> {
        self.dead_stones_until(&|| false)
    }

    /// [`Engine::dead_stones`], cut short when `stop` answers true (an interrupt): the
    /// judgement from the playouts run so far.
    pub fn dead_stones_until(&self, stop: &(dyn Fn() -> bool + Sync)) -> Vec<Point> {
        if !self.game.rules().remove_dead {
            return Vec::new();
        }
        self.judge_dead(stop)
    }

    /// The judged dead stones whatever the rules do with them.
    fn judge_dead(&self, stop: &(dyn Fn() -> bool + Sync)) -> Vec<Point> {
        self.judge.dead_stones(
            &self.game,
            &self.settings.search_config(),
            self.settings.status_playouts,
            stop,
        )
    }

    /// Every chain with its status (dead, seki or alive), the dead stones judged as in
    /// [`Engine::dead_stones_until`].
    pub fn chain_statuses(
        &self,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Vec<(status::Status, Vec<Point>)> {
        let dead = self.dead_stones_until(stop);
        status::chain_statuses(self.game.board(), &dead)
    }

    /// What the dead-stone judgement (and the kept analysis of [`Engine::think`]) depends
    /// on: the position, the player to move, the komi and the budget.
    fn status_key(&self) -> status::PositionKey {
        status::position_key(&self.game, self.settings.status_playouts)
    }

    /// The count of the position as it stands, dead stones (as judged) removed.
    pub fn final_score(&self) -> crate::score::Score {
        self.final_score_until(&|| false)
    }

    /// [`Engine::final_score`], the judgement cut short when `stop` answers true. Pure
    /// area counting once the dead stones are off: an empty point that both colours
    /// reach counts to nobody, as the rules say.
    pub fn final_score_until(&self, stop: &(dyn Fn() -> bool + Sync)) -> crate::score::Score {
        self.game.score(&self.dead_stones_until(stop))
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
}

/// What a resign streak belongs to: the game's starting position, size and komi.
type StreakKey = (Option<u64>, usize, u64);

fn streak_key(game: &Game) -> StreakKey {
    (
        game.position_hashes().next(),
        game.size(),
        game.komi().to_bits(),
    )
}
